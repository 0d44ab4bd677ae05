"""read_edgelist: file -> parsed table -> chosen columns -> cleaned graph."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import pandas as pd

from ..errors import GraphFormatError, GraphInputError
from ..graph import CleaningReport, Graph, SignedGraph, build_graph
from ._formats import Parsed, parse
from ._frames import guess_columns, missing_column_error
from ._sources import Source, open_source

__all__ = ["read_edgelist", "graph_from_source"]

_INT_TEXT = re.compile(r"^[+-]?\d+$")


def _display_name(name: str) -> str:
    """Graph name: the file's base name without compression/format suffixes."""
    base = os.path.basename(name.split(":")[-1] if ":" in name and not os.path.exists(name) else name)
    for suffix in (".gz", ".bz2", ".xz", ".tar", ".csv", ".txt", ".tsv", ".parquet", ".g"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def _pick(parsed: Parsed, spec: Any, role: str, name: str):
    """Column key for ``spec`` (name or 0-based position) in the parsed frame."""
    cols = list(parsed.frame.columns)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not -len(cols) <= spec < len(cols):
            raise GraphInputError(f"{name}: {role} column position {spec} is out of range; the file has "
                                  f"{len(cols)} columns {cols if parsed.header else ''}".rstrip())
        return cols[spec]
    if spec in cols:
        return spec
    if not parsed.header:
        raise GraphInputError(f"{name}: {role} column {spec!r}: this {parsed.format} file has no header; "
                              f"select columns by 0-based position (it has {len(cols)} columns)")
    raise missing_column_error(role, spec, cols, where=name)


def _vertex_values(col: pd.Series) -> np.ndarray:
    """Endpoint labels: integers as integers (any size), other text as strings."""
    if col.dtype.kind in "iu":
        return col.to_numpy()
    arr = col.to_numpy()
    if col.dtype.kind == "f":
        return arr  # build_graph rejects non-integral / NaN ids, naming the row
    # text (or python ints beyond uint64): integer literals become integers
    vals = arr.tolist()
    if all(isinstance(v, int) for v in vals):
        ints = vals
    elif all(isinstance(v, str) and _INT_TEXT.match(v) for v in vals):
        ints = [int(v) for v in vals]
    else:
        return np.asarray([str(v) for v in vals], dtype=object)
    lo, hi = min(ints), max(ints)
    if lo >= -(2**63) and hi < 2**63:
        return np.asarray(ints, dtype=np.int64)
    if lo >= 0 and hi < 2**64:
        return np.asarray(ints, dtype=np.uint64)
    out = np.empty(len(ints), dtype=object)  # beyond 64 bits: exact python ints
    out[:] = ints
    return out


def _value_column(parsed: Parsed, spec: Any, role: str, name: str) -> np.ndarray:
    key = _pick(parsed, spec, role, name)
    col = parsed.frame[key]
    if col.dtype.kind not in "biuf":
        num = pd.to_numeric(col, errors="coerce")
        r = int(np.flatnonzero(num.isna().to_numpy())[0]) if num.isna().any() else 0
        line = parsed.first_data_line + r if parsed.format not in ("parquet", "mrel") else None
        raise GraphFormatError(f"{role} column {key!r} has non-numeric value {col.iloc[r]!r} "
                               f"(data row {r + 1})", path=name, line=line)
    return col.to_numpy(dtype=np.float64 if col.dtype.kind == "f" else None)


def _is_abs(weight: Any, parsed: Parsed) -> bool:
    """weight="abs" means |value column| unless the file really has a column named "abs"."""
    return isinstance(weight, str) and weight == "abs" and "abs" not in parsed.frame.columns


def _default_roles(parsed: Parsed) -> dict[str, Any]:
    cols = list(parsed.frame.columns)
    if parsed.header:
        g = guess_columns(cols)
        return {"source": g["source"] if g["source"] is not None else cols[0],
                "target": g["target"] if g["target"] is not None else cols[1],
                "value": g["sign"] if g["sign"] is not None else g["weight"]}
    return {"source": 0, "target": 1, "value": 2 if len(cols) > 2 else None}


def graph_from_source(src: Source, *, format: str = "auto", source: Any = None, target: Any = None,
                      sign: Any = None, weight: Any = None, signed: bool = True, directed: bool = False,
                      conflicts: str = "first", zero_sign: str = "positive", component: str = "largest",
                      numbering: str = "sorted", vertex_table: Any = None, name: str | None = None) -> Graph:
    """:func:`read_edgelist` on an already opened :class:`Source`."""
    parsed = parse(src.data, src.name, format)
    defaults = _default_roles(parsed)
    src_key = _pick(parsed, defaults["source"] if source is None else source, "source", src.name)
    dst_key = _pick(parsed, defaults["target"] if target is None else target, "target", src.name)
    u = _vertex_values(parsed.frame[src_key])
    v = _vertex_values(parsed.frame[dst_key])

    sgn = wgt = None
    if signed:
        if directed:
            raise GraphInputError("signed graphs are undirected; pass signed=False for a directed graph")
        sign_spec = defaults["value"] if sign is None else sign
        if sign_spec is None:
            raise GraphInputError(
                f"{src.name}: no sign column (the file has columns {list(parsed.frame.columns)}); "
                "pass sign=<column> or signed=False for an unsigned graph")
        sgn = _value_column(parsed, sign_spec, "sign", src.name)
        if _is_abs(weight, parsed):
            wgt = np.abs(sgn).astype(np.float64)
        elif weight is not None:
            wgt = _value_column(parsed, weight, "weight", src.name)
    else:
        if sign is not None:
            raise GraphInputError("sign= needs signed=True")
        weight_spec = defaults["value"] if weight is None or _is_abs(weight, parsed) else weight
        if weight_spec is not None:
            wgt = _value_column(parsed, weight_spec, "weight", src.name)
            if _is_abs(weight, parsed):
                wgt = np.abs(wgt)

    report = CleaningReport(source=src.name, comment_lines=parsed.comment_lines, notes=list(parsed.notes))
    if src.compression:
        report.notes.insert(0, f"{src.compression}-compressed")
    graph = build_graph(u, v, sign=sgn, weight=wgt, directed=directed, conflicts=conflicts,
                        zero_sign=zero_sign, component=component, numbering=numbering,
                        name=name or _display_name(src.name),
                        graph_class=SignedGraph if signed else Graph, report=report)
    if parsed.declared_vertices is not None and report.vertices_in_input != parsed.declared_vertices:
        report.notes.append(f"{report.vertices_in_input} distinct vertex ids appear in the edges "
                            f"(declared: {parsed.declared_vertices}; vertices without edges are not stored)")
    if vertex_table is not None:
        from ._convert import relabel_from_table

        graph = relabel_from_table(graph, vertex_table)
    return graph


def read_edgelist(path_or_buffer: Any, *, format: str = "auto", source: Any = None, target: Any = None,
                  sign: Any = None, weight: Any = None, signed: bool = True, directed: bool = False,
                  conflicts: str = "first", zero_sign: str = "positive", component: str = "largest",
                  numbering: str = "sorted", member: str | None = None, vertex_table: Any = None,
                  name: str | None = None) -> Graph:
    """Read a signed (or weighted) edge list from a file into a graph.

    Parameters
    ----------
    path_or_buffer : str, path-like, file object or bytes
        The file.  gzip, bz2 and xz compression are recognised by their
        magic bytes (not the file name); a tar archive (compressed or not)
        needs ``member``.
    format : str, default "auto"
        One of ``"graphb"`` (CSV with a header line, e.g.
        ``From_Tribe,To_Tribe,Weight``), ``"csv"`` (headerless ``u,v,sign``,
        e.g. NDS-VU; BOM and CRLF accepted), ``"snap"`` (whitespace separated,
        ``#`` comments), ``"bitcoin"`` (SNAP ``source,target,rating,time``),
        ``"konect"`` (``%`` header lines), ``"levorato"`` (``.g``: ``n m`` then
        exactly ``m`` edge lines), ``"mrel"`` (XPRESS-like ``Mrel: [ (i,j)w ...]``)
        or ``"parquet"``.  ``"auto"`` detects the format from the content.
    source, target : str or int, optional
        Endpoint columns: a header name (``graphb``, ``parquet``) or a 0-based
        position (any format).  Default: recognised names (``source``/``target``,
        ``src``/``dst``, ``from``/``to``, ...), else the first two columns.
    sign : str or int, optional
        Column whose *sign* is the edge sign (so ratings work: Bitcoin ratings
        -10..10 give sign(rating)).  Default: the format's value column (the
        third column, or a column named ``sign``/``weight``/``vote``/...).
    weight : str or int, optional
        Weight column.  With ``signed=True`` the default is no weight; with
        ``signed=False`` it is the value column when the file has one
        (unweighted otherwise).  The special value ``"abs"`` gives the absolute
        value of the sign/value column (e.g. the magnitude of a Bitcoin rating).
    signed : bool, default True
        Return a :class:`SignedGraph` (undirected, sign per edge).  False
        returns a :class:`Graph` with optional weights (for betweenness).
    directed : bool, default False
        Only with ``signed=False``: keep (u, v) and (v, u) apart.
    conflicts : {"first", "drop", "error"}, default "first"
        Pairs seen with both signs: keep the first sign in file order
        (graphB+ rule; reproduces the published statistics), remove the pair
        (Levorato instances' rule), or raise.
    zero_sign : {"positive", "drop", "error"}, default "positive"
        Sign-0 rows (e.g. neutral votes): kept as positive edges and flagged
        in ``graph.zero_sign`` (graphB+), removed, or an error.
    component : {"largest", "all"}, default "largest"
        Keep the largest connected component (as the papers do) or everything.
    numbering : {"sorted", "graphbplus"}, default "sorted"
        Internal ids in label order, or graphB+'s first-appearance order.
    member : str, optional
        File inside a tar archive (full path or base name).
    vertex_table : path or DataFrame, optional
        A vertex table such as graphB+'s ``*_users.csv`` (first column the id
        used in the edge list, second column a name): the graph's labels
        become those names (ids absent from the table keep their id).
    name : str, optional
        Graph name (default: the file name without suffixes).

    Returns
    -------
    SignedGraph or Graph
        ``graph.cleaning`` is the :class:`CleaningReport`: source file, comment
        lines, every row accounted for, and notes on anything the file said
        that is not an edge (declared sizes, ignored trailing lines).

    Raises
    ------
    GraphFormatError
        The file cannot be parsed: the message names the file and line
        (ragged line, non-numeric or missing sign, truncated gzip, binary data,
        empty file, a vertex table passed as edge list).
    GraphInputError
        Missing or misnamed columns (lists those available), a tar archive
        without ``member`` (lists the members), nothing left after cleaning.

    Notes
    -----
    Vertex ids may be integers of any size (ids past int64 are kept exactly,
    as Python ints) or strings; they are factorised to internal ids
    ``0..n-1`` and kept in ``graph.labels``.  Files are read whole into
    memory and parsed with pandas' C engine: Epinions (841k lines) loads in
    about a second.

    Lines after the declared ``m`` edges of a ``.g`` file are never read as
    edges (the KONECT highland copy ends with a path query ``3 16``); they are
    counted in ``graph.cleaning.notes``.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> from importlib.resources import files
    >>> g = rb.read_edgelist(files("rapids_balance") / "data" / "highland_tribes_graphB_edges.csv.gz")
    >>> g.n, g.m, g.cleaning.duplicate_rows
    (16, 58, 58)
    """
    src = open_source(path_or_buffer, member=member)
    return graph_from_source(src, format=format, source=source, target=target, sign=sign, weight=weight,
                             signed=signed, directed=directed, conflicts=conflicts, zero_sign=zero_sign,
                             component=component, numbering=numbering, vertex_table=vertex_table, name=name)
