"""Vertex labels: labels as an object array, and labels taken from a vertex table."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._containers import Graph
from ..errors import GraphInputError

__all__ = ["relabel_from_table"]


def _object_array(items: list) -> np.ndarray:
    # np.asarray would turn tuple labels into a 2-D array
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def relabel_from_table(graph: Graph, table: Any) -> Graph:
    """The same graph with labels taken from a vertex table (id column, name column).

    ``table`` is a path (CSV with a header, compressed or not) or a DataFrame
    whose first column holds the ids used in the edge list and second column
    the names.  Ids absent from the table keep their id as label (as text).
    """
    import pandas as pd

    if isinstance(table, pd.DataFrame):
        frame = table
    else:
        from ._sources import open_source
        import io

        src = open_source(table)
        frame = pd.read_csv(io.BytesIO(src.data.removeprefix(b"\xef\xbb\xbf")), keep_default_na=False)
    if frame.shape[1] < 2:
        raise GraphInputError(f"a vertex table needs an id column and a name column, got {list(frame.columns)}")
    ids = frame.iloc[:, 0].tolist()
    names = frame.iloc[:, 1].astype(str).tolist()
    mapping = dict(zip(ids, names))
    labels = [mapping.get(lab, str(lab)) for lab in graph.labels.tolist()]
    missing = sum(1 for lab in graph.labels.tolist() if lab not in mapping)
    cls = type(graph)
    new = cls(edge_src=graph.edge_src, edge_dst=graph.edge_dst, n_vertices=graph.n,
              labels=_object_array(labels), directed=graph.directed, sign=graph.sign, weight=graph.weight,
              zero_sign=graph.zero_sign, cleaning=graph.cleaning, name=graph.name)
    new.cleaning.notes.append(f"labels from vertex table ({len(mapping)} rows); {missing} vertex id(s) "
                              "not in the table keep their id")
    return new
