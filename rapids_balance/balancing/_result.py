"""Balancing results: counters over T trees turned into vertex and edge attributes.

Counters (int64, summed over trees; ``*2`` counters are in half units so a
tied tree can give one half):

* per edge: ``in_tree``, ``negative`` (balanced edge negative), ``switched``
  (balanced sign differs from the input sign), ``agree2`` (both ends in the
  majority);
* per vertex: ``status2`` (in the majority), ``clean`` (no negative balanced
  edge at the vertex);
* ``trees`` and ``ties`` (trees whose two sides had equal size).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["BalanceResult", "ATTRIBUTE_DEFINITIONS", "compute_attributes", "graphbplus_text"]

ATTRIBUTE_DEFINITIONS = ("consensus", "datalab")

EDGE_COUNTERS = ("in_tree", "negative", "switched", "agree2")
VERTEX_COUNTERS = ("status2", "clean")


def zero_counters(n: int, m: int) -> dict[str, np.ndarray]:
    """Empty counters for a graph with n vertices and m edges."""
    out = {k: np.zeros(m, np.int64) for k in EDGE_COUNTERS}
    out.update({k: np.zeros(n, np.int64) for k in VERTEX_COUNTERS})
    out["trees"] = np.zeros(1, np.int64)
    out["ties"] = np.zeros(1, np.int64)
    return out


def _incident_sum(graph, per_edge: np.ndarray) -> np.ndarray:
    """Sum of an edge quantity over each vertex's incident edges (fixed order)."""
    return (np.bincount(graph.edge_src, weights=per_edge, minlength=graph.n)
            + np.bincount(graph.edge_dst, weights=per_edge, minlength=graph.n))


def compute_attributes(graph, counters: dict[str, np.ndarray], attributes: str = "consensus"):
    """Vertex and edge DataFrames from the counters (see :func:`balance` for formulas)."""
    import pandas as pd

    if attributes not in ATTRIBUTE_DEFINITIONS:
        raise ValueError(f"attributes must be one of {ATTRIBUTE_DEFINITIONS}, got {attributes!r}")
    T = int(counters["trees"][0])
    status = counters["status2"] / (2.0 * T)
    agreement = counters["agree2"] / (2.0 * T)
    degree = graph.degrees().astype(np.float64)
    if attributes == "consensus":
        influence = _incident_sum(graph, agreement) / degree
        edge_authority = (status[graph.edge_src] + status[graph.edge_dst]) / 2.0
        authority = _incident_sum(graph, edge_authority) / degree
    else:  # datalab
        influence = _incident_sum(graph, agreement)
        authority = counters["clean"] / float(T)
    sign = graph.sign.astype(np.int8)
    if graph.zero_sign is not None:
        sign = np.where(graph.zero_sign, 0, sign).astype(np.int8)
    vertices = pd.DataFrame({
        "vertex": graph.labels,
        "status": status,
        "influence": influence,
        "authority": authority,
    })
    edges = pd.DataFrame({
        "src": graph.labels[graph.edge_src],
        "dst": graph.labels[graph.edge_dst],
        "sign": sign,
        "in_tree": counters["in_tree"] / float(T),
        "negative": counters["negative"] / float(T),
        "switched": counters["switched"] / float(T),
        "agreement": agreement,
    })
    return vertices, edges


def _label_text(x: Any) -> str:
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return str(int(x))
    return str(x)


def graphbplus_text(graph, counters: dict[str, np.ndarray]) -> str:
    """The graphB+ v0.2 output file as a string (see :meth:`BalanceResult.write_graphbplus`)."""
    T = int(counters["trees"][0])
    labels = [_label_text(x) for x in graph.labels.tolist()]
    status2 = counters["status2"].tolist()
    lines = ["original node ID, percentage node was in agreeable majority"]
    # 100.0 * s2 / (2T) is bitwise 100.0 * s / T when s2 = 2s (scaling by 2 is exact)
    lines += ["%s,%.1f" % (labels[v], 100.0 * status2[v] / (2 * T)) for v in range(graph.n)]
    lines.append("source node ID, destination node ID, percentage edge was in tree, "
                 "percentage edge was negative")
    in_tree = counters["in_tree"].tolist()
    negative = counters["negative"].tolist()
    src = graph.edge_src.tolist()
    dst = graph.edge_dst.tolist()
    lines += ["%s,%s,%.1f,%.1f" % (labels[src[e]], labels[dst[e]], 100.0 * in_tree[e] / T,
                                   100.0 * negative[e] / T) for e in range(graph.m)]
    return "\n".join(lines) + "\n"


@dataclass
class BalanceResult:
    """Attributes of a signed graph over T sampled nearest balanced states.

    Attributes
    ----------
    vertices : pandas.DataFrame
        ``vertex`` (original label), ``status``, ``influence``, ``authority``.
    edges : pandas.DataFrame
        ``src``, ``dst`` (original labels, each undirected edge once),
        ``sign`` (input sign; 0 for an input 0, balanced as +1), ``in_tree``,
        ``negative``, ``switched``, ``agreement``.
    n_trees : int
        Number of trees T.
    params : dict
        The arguments the result was computed with (backend resolved).
    counters : dict of numpy.ndarray
        The integer counters behind the attributes (see module docstring).
    graph : SignedGraph
        The graph balanced.
    """

    vertices: Any
    edges: Any
    n_trees: int
    params: dict
    counters: dict = field(repr=False)
    graph: Any = field(repr=False)

    @property
    def frustration_mean(self) -> float:
        """Mean number of switched edges per tree (each tree's frustration, averaged)."""
        return float(self.counters["switched"].sum()) / self.n_trees

    @property
    def tied_trees(self) -> int:
        """Trees whose two Harary sides had the same size."""
        return int(self.counters["ties"][0])

    def graphbplus_text(self) -> str:
        """The graphB+ v0.2 output file as a string."""
        return graphbplus_text(self.graph, self.counters)

    def write_graphbplus(self, path: str | os.PathLike) -> None:
        """Write graphB+ v0.2's output file (``graphBplus_02.cpp``, byte layout).

        The line ``original node ID, percentage node was in agreeable
        majority``, one ``id,pct`` row per vertex in internal-id order, the
        line ``source node ID, destination node ID, percentage edge was in
        tree, percentage edge was negative``, then one ``src,dst,pct,pct``
        row per undirected edge (smaller internal id first); percentages have
        one decimal, ``100.0 * count / T`` rounded as C's ``printf("%.1f")``.
        The vertex percentage is the status under this result's ``majority``
        (graphB+ uses ``majority="agreeable"``).

        The file is written atomically (a temporary file in the same
        directory, renamed onto ``path`` when complete), so an interrupted
        write never leaves a partial file under ``path``.

        Raises
        ------
        OSError
            The directory is missing or not writable (the message names
            ``path``); ``path`` is left as it was.
        """
        from .._files import atomic_open

        text = self.graphbplus_text()  # built first: a failure here writes nothing
        with atomic_open(path, "w", newline="\n") as fh:
            fh.write(text)

    def __repr__(self) -> str:
        p = self.params
        return (f"<BalanceResult: {self.graph.n} vertices, {self.graph.m} edges, {self.n_trees} trees, "
                f"method={p.get('method')!r}, majority={p.get('majority')!r}, "
                f"mean frustration {self.frustration_mean:.2f}>")
