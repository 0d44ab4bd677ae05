"""Graph containers: one CSR story for signed and for weighted graphs.

:class:`Graph` holds a (possibly directed, possibly weighted) graph in CSR
form with the original vertex labels; :class:`SignedGraph` is the undirected
graph with a sign on every edge that the balancing, frustration and
clustering code works on.  Both are read-only once built.

Layout (``n`` vertices, ``m`` edges, internal ids ``0..n-1``):

* ``edge_src``, ``edge_dst`` (int32, length m): the edges.  Undirected graphs
  store each edge once with ``edge_src < edge_dst``; edges are sorted by
  ``(edge_src, edge_dst)``.
* ``indptr`` (int64, n+1), ``indices`` (int32): the adjacency.  An undirected
  edge fills two CSR slots, a directed one fills one (out-edges).  Each row is
  sorted by neighbour id.
* ``slot_edge`` (int32, one per slot): the edge id behind each CSR slot.
* ``edge_slots`` (int64, m x 2 undirected / m x 1 directed): the CSR slot(s)
  of each edge; for undirected edges column 0 is the slot in ``edge_src``'s
  row and column 1 the slot in ``edge_dst``'s row.
* ``sign`` (int8, m, values +1/-1) for signed graphs; ``weight`` (float64, m)
  when the input had weights.
* ``labels``: original vertex label of each internal id (int64 or object).

Every array lives on the host.  :meth:`Graph.device_arrays` returns a cached
copy on the GPU for kernels that need one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, asdict
from typing import Any

import numpy as np

from .errors import GraphFormatError, GraphInputError, short_repr

__all__ = ["Graph", "SignedGraph", "CleaningReport", "build_graph"]

CONFLICT_RULES = ("first", "drop", "error")
ZERO_SIGN_RULES = ("positive", "drop", "error")
COMPONENT_RULES = ("largest", "all")
NUMBERING_RULES = ("sorted", "graphbplus")
ID_RULES = ("auto", "text")


@dataclass
class CleaningReport:
    """What cleaning did to the input, counted.  Nothing is dropped uncounted.

    Every input row is accounted for exactly once::

        input_rows = self_loops + zero_sign_dropped + duplicate_rows
                     + conflict_rows_ignored + conflict_rows_dropped
                     + edges_outside_component + (edges of the graph)

    ``duplicate_rows`` repeat a pair with the sign it already has;
    ``conflict_rows_ignored`` are later rows of a pair seen with both signs
    whose first sign was kept (``conflicts="first"``).

    ``columns`` says which input column played which role and why, e.g.
    ``{"sign": {"column": "rating", "why": "fixed by the bitcoin format"}}``
    (why: "named by the user", "fixed by the <format> format", "recognised
    header name", "the only columns left for the endpoints").
    ``header_lines`` counts lines read as column names, not edges.
    ``id_spellings_merged`` counts vertex-id spellings that name the same
    vertex under the ``ids`` rule (``ids="auto"``: ``007`` and ``7`` are the
    integer 7); a note gives an example.
    """

    source: str = "<arrays>"
    input_rows: int = 0
    comment_lines: int = 0
    header_lines: int = 0
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)
    ids: str = "auto"
    id_spellings_merged: int = 0
    self_loops: int = 0
    duplicate_rows: int = 0
    conflicting_pairs: int = 0
    conflict_rows_ignored: int = 0
    conflict_rows_dropped: int = 0
    conflict_rule: str = "first"
    zero_sign_edges: int = 0
    zero_sign_dropped: int = 0
    zero_sign_rule: str = "positive"
    vertices_in_input: int = 0
    components: int = 0
    component_rule: str = "largest"
    vertices_outside_component: int = 0
    edges_outside_component: int = 0
    numbering: str = "sorted"
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"cleaning report for {self.source}:"]
        for k, v in self.as_dict().items():
            if k not in ("source", "notes", "columns"):
                lines.append(f"  {k}: {v}")
        for role, info in self.columns.items():
            lines.append(f"  {role} column: {short_repr(info['column'], 40)} ({info['why']})")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


class Graph:
    """A graph in CSR form with original vertex labels (see module docstring).

    Build one with :meth:`from_edgelist` or :func:`rapids_balance.read_edgelist`
    rather than calling the constructor.  Every array is read-only.

    Attributes
    ----------
    n, m : int
        Number of vertices and edges (also ``n_vertices``, ``n_edges``).
    directed : bool
        Directed graphs keep (u, v) and (v, u) apart; signed graphs never are.
    edge_src, edge_dst : numpy.ndarray of int32, shape (m,)
        Endpoints by internal id; undirected edges have ``edge_src < edge_dst``,
        sorted by ``(edge_src, edge_dst)``.
    indptr : numpy.ndarray of int64, shape (n + 1,)
    indices : numpy.ndarray of int32
        CSR adjacency (an undirected edge fills two slots), rows sorted.
    slot_edge : numpy.ndarray of int32
        Edge id behind each CSR slot.
    edge_slots : numpy.ndarray of int64, shape (m, 2) or (m, 1)
        The CSR slot(s) of each edge.
    sign : numpy.ndarray of int8 or None
        +1/-1 per edge (signed graphs).
    weight : numpy.ndarray of float64 or None
        Weight per edge, when the input had one.
    zero_sign : numpy.ndarray of bool or None
        Edges whose input sign was 0 (stored as +1).
    labels : numpy.ndarray
        Original label of each internal id (int64, uint64 or object).
    cleaning : CleaningReport
        What cleaning did to the input, counted.
    name : str
        The graph's name (by default the file name without suffixes).
    """

    def __init__(self, *, edge_src, edge_dst, n_vertices: int, labels, directed: bool,
                 sign=None, weight=None, zero_sign=None,
                 cleaning: CleaningReport | None = None, name: str = ""):
        self.n = int(n_vertices)
        self.directed = bool(directed)
        self.edge_src = _readonly(np.ascontiguousarray(edge_src, dtype=np.int32))
        self.edge_dst = _readonly(np.ascontiguousarray(edge_dst, dtype=np.int32))
        self.m = int(self.edge_src.size)
        self.labels = _readonly(np.asarray(labels))
        self.sign = None if sign is None else _readonly(np.ascontiguousarray(sign, dtype=np.int8))
        self.weight = None if weight is None else _readonly(np.ascontiguousarray(weight, dtype=np.float64))
        # edges whose input sign was 0 (kept as positive, as graphB+ does)
        self.zero_sign = None if zero_sign is None else _readonly(np.asarray(zero_sign, dtype=bool))
        self.cleaning = cleaning if cleaning is not None else CleaningReport()
        self.name = name
        self._build_csr()
        self._device = None
        self._label_index = None

    # -- construction -------------------------------------------------
    def _build_csr(self) -> None:
        n, m = self.n, self.m
        eid = np.arange(m, dtype=np.int64)
        if self.directed:
            rows, cols, slot_eid = self.edge_src, self.edge_dst, eid
        else:
            rows = np.concatenate([self.edge_src, self.edge_dst])
            cols = np.concatenate([self.edge_dst, self.edge_src])
            slot_eid = np.concatenate([eid, eid])
        # one stable sort on a combined key is much faster than lexsort
        order = np.argsort(rows.astype(np.int64) * max(n, 1) + cols, kind="stable")
        counts = np.bincount(rows, minlength=n) if m else np.zeros(n, np.int64)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        self.indptr = _readonly(indptr)
        self.indices = _readonly(np.ascontiguousarray(cols[order], dtype=np.int32))
        self.slot_edge = _readonly(np.ascontiguousarray(slot_eid[order], dtype=np.int32))
        slot_of = np.empty(order.size, dtype=np.int64)
        slot_of[order] = np.arange(order.size, dtype=np.int64)
        if self.directed:
            self.edge_slots = _readonly(slot_of.reshape(m, 1))
        else:
            self.edge_slots = _readonly(np.stack([slot_of[:m], slot_of[m:]], axis=1))

    @classmethod
    def from_edgelist(cls, data: Any = None, *, source: Any = None, target: Any = None,
                      sign: Any = None, weight: Any = None, **options) -> "Graph":
        """Build a graph from an edge-list DataFrame or a mapping of arrays.

        Parameters
        ----------
        data : DataFrame, table, mapping or tuple
            A pandas, polars, pyarrow, cuDF or Dask table, a dict of arrays,
            or a tuple ``(sources, targets[, values])`` (``SignedGraph``
            reads the third array as the sign, ``Graph`` as the weight).
        source, target, sign, weight : str or int, optional
            The column playing each role, by name or 0-based position.
            Unnamed roles are taken only from recognised column names
            (``source``/``src``/``from``..., ``sign``/``vote``/``rating``...,
            ``weight``/``w``...); a column with any other name is never
            taken as the sign.  Endpoints may also be the only two columns
            left once the other roles are assigned.
        **options
            Those of :func:`build_graph` (``directed``, ``conflicts``,
            ``zero_sign``, ``component``, ``numbering``, ``name``).

        Returns
        -------
        Graph or SignedGraph
            ``graph.cleaning.columns`` says which column played which role and why.

        Raises
        ------
        GraphInputError
            No sign column for a ``SignedGraph`` (the message lists the
            columns and the keyword to pass), unknown or ambiguous columns,
            missing values, or anything :func:`build_graph` refuses.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"src": [1, 2, 3], "dst": [2, 3, 1], "trust": [5, -2, 1]})
        >>> g = SignedGraph.from_edgelist(df, sign="trust")
        >>> g.m, g.cleaning.columns["sign"]
        (3, {'column': 'trust', 'why': 'named by the user'})
        """
        from .io._frames import edgelist_columns, table_kind, table_to_graph

        roles = {"source": source, "target": target, "sign": sign, "weight": weight}
        if table_kind(data) == "sequence":
            if any(v is not None for v in roles.values()):
                raise GraphInputError("a tuple of arrays has no columns to name: pass "
                                      "(sources, targets[, values]) without source=/target=/sign=/weight=")
            src, dst, sgn, wgt = edgelist_columns(data)
            if cls is SignedGraph and sgn is None and wgt is not None:
                sgn, wgt = wgt, None  # a signed graph reads its sign from the value array
            return build_graph(src, dst, sign=sgn, weight=wgt, graph_class=cls, **options)
        return table_to_graph(data, roles=roles, want_sign=True if cls is SignedGraph else None,
                              graph_class=cls, options=options, owner=f"{cls.__name__}.from_edgelist")

    # -- accessors ----------------------------------------------------
    @property
    def n_vertices(self) -> int:
        """Number of vertices (``n``)."""
        return self.n

    @property
    def n_edges(self) -> int:
        """Number of edges (``m``)."""
        return self.m

    def degrees(self) -> np.ndarray:
        """Number of CSR slots per vertex (undirected: degree; directed: out-degree)."""
        return np.diff(self.indptr)

    def vertex_ids(self, labels) -> np.ndarray:
        """Internal ids of original ``labels``; raises KeyError naming unknown ones."""
        if self._label_index is None:
            self._label_index = {lab: i for i, lab in enumerate(self.labels.tolist())}
        out = np.empty(len(labels), dtype=np.int64)
        for k, lab in enumerate(labels):
            key = lab.item() if isinstance(lab, np.generic) else lab
            try:
                out[k] = self._label_index[key]
            except KeyError:
                raise KeyError(f"vertex {lab!r} is not in the graph") from None
        return out

    def device_arrays(self) -> dict[str, Any]:
        """CSR arrays as CuPy arrays (cached); numpy under the CUDA simulator."""
        if self._device is None:
            from .backend import to_device

            names = ["indptr", "indices", "slot_edge", "edge_src", "edge_dst", "edge_slots"]
            if self.sign is not None:
                names.append("sign")
            if self.weight is not None:
                names.append("weight")
            # numpy under the simulator: writable copies, because the simulator
            # copies kernel arguments back and refuses read-only arrays
            self._device = {k: to_device(np.array(getattr(self, k)), "gpu") for k in names}
        return self._device

    def edges_frame(self):
        """The edges as a pandas DataFrame with original labels (src, dst, sign/weight)."""
        import pandas as pd

        cols = {"src": self.labels[self.edge_src], "dst": self.labels[self.edge_dst]}
        if self.sign is not None:
            cols["sign"] = self.sign
        if self.weight is not None:
            cols["weight"] = self.weight
        return pd.DataFrame(cols)

    def summary(self) -> dict[str, Any]:
        """Vertices, edges, fundamental cycles, % positive, degrees, components, cleaning."""
        from scipy.sparse.csgraph import connected_components

        deg = np.diff(self.indptr) if not self.directed else (
            np.bincount(self.edge_src, minlength=self.n) + np.bincount(self.edge_dst, minlength=self.n))
        n_comp = connected_components(self._scipy_matrix(), directed=False)[0] if self.n else 0
        out: dict[str, Any] = {
            "name": self.name,
            "directed": self.directed,
            "vertices": self.n,
            "edges": self.m,
            "cycles": self.m - self.n + n_comp,
            "components": int(n_comp),
            "max_degree": int(deg.max()) if self.n else 0,
            "mean_degree": float(deg.mean()) if self.n else 0.0,
        }
        if self.sign is not None:
            pos = (self.sign > 0)
            if self.zero_sign is not None:
                pos = pos & ~self.zero_sign
            out["positive_edges"] = int(pos.sum())
            out["negative_edges"] = int((self.sign < 0).sum())
            out["zero_sign_edges"] = int(self.zero_sign.sum()) if self.zero_sign is not None else 0
            out["percent_positive"] = round(100.0 * out["positive_edges"] / self.m, 2) if self.m else 0.0
        if self.weight is not None:
            out["weight_min"] = float(self.weight.min()) if self.m else None
            out["weight_max"] = float(self.weight.max()) if self.m else None
        out["cleaning"] = self.cleaning.as_dict()
        return out

    def _scipy_matrix(self):
        import scipy.sparse as sp

        return sp.csr_matrix((np.ones(self.indices.size, np.int8), self.indices, self.indptr),
                             shape=(self.n, self.n))

    def __repr__(self) -> str:
        kind = type(self).__name__
        extra = []
        if self.weight is not None:
            extra.append("weighted")
        if self.directed:
            extra.append("directed")
        tag = f" ({', '.join(extra)})" if extra else ""
        nm = f" {self.name!r}" if self.name else ""
        return f"<{kind}{nm}: {self.n} vertices, {self.m} edges{tag}>"


class SignedGraph(Graph):
    """Undirected graph with a sign (+1/-1) on every edge, optionally weighted.

    Input signs are ``numpy.sign`` of the value column: any positive value is
    +1, any negative value -1.  A value of 0 is kept as a positive edge by
    default (graphB+'s rule) and flagged in ``zero_sign``; ``zero_sign="drop"``
    removes such edges instead.  Boolean sign columns (``True``/``False``,
    ``true``/``false`` text) are refused rather than guessed (is ``False`` a
    negative edge or a zero?): map them to +1/-1 explicitly.  NaN and
    infinite signs are refused with their row (and line, for files).
    """

    def __init__(self, **kw):
        if kw.get("sign") is None:
            raise GraphInputError("a SignedGraph needs a sign for every edge")
        if kw.get("directed"):
            raise GraphInputError("a SignedGraph is undirected; use Graph(directed=True) for directed graphs")
        super().__init__(**kw)

    @property
    def negative(self) -> np.ndarray:
        """Boolean mask of negative edges."""
        return self.sign < 0


# ---------------------------------------------------------------------------
# building from raw columns: cleaning, component, numbering, CSR
# ---------------------------------------------------------------------------

RowWhere = Callable[[int], int]
"""Maps a 0-based data row to its 1-based line in the input file (file input only)."""


def _at_row(row: int, locate: RowWhere | None) -> str:
    return f"data row {row} (0-based)" if locate is None else f"data row {row} (line {locate(row)})"


def _row_error(source_name: str, message: str, row: int, locate: RowWhere | None,
               suffix: str = "") -> GraphInputError:
    """``message`` about one data row: a GraphFormatError with the line for file input."""
    if locate is None:
        return GraphInputError(f"{source_name}: {message} in {_at_row(row, None)}{suffix}")
    return GraphFormatError(f"{message} in data row {row} (0-based){suffix}", path=source_name,
                            line=locate(row))


def _integral_floats(a: np.ndarray, source_name: str, locate: RowWhere | None) -> np.ndarray:
    """Float ids that are whole numbers within int64, as int64 (exact: no rounding anywhere)."""
    bad = ~np.isfinite(a)
    if bad.any():
        raise _row_error(source_name, "vertex id is NaN or infinite", int(np.flatnonzero(bad)[0]), locate)
    bad = (a != np.round(a)) | (np.abs(a) >= 2.0**63)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise _row_error(source_name, f"vertex id {short_repr(float(a[r]))} is not an integer within "
                         "int64 (pass ids as integers or strings)", r, locate)
    return a.astype(np.int64)


def exact_int_array(values: list) -> np.ndarray:
    """Python ints as int64, else uint64, else exact Python ints (object)."""
    lo, hi = (min(values), max(values)) if values else (0, 0)
    if lo >= -(2**63) and hi < 2**63:
        return np.asarray(values, dtype=np.int64)
    if lo >= 0 and hi < 2**64:
        return np.asarray(values, dtype=np.uint64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _common_ints(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two integer columns in one dtype that holds every value exactly (never float)."""
    if a.dtype == b.dtype:
        return a, b
    lo = min(int(a.min()) if a.size else 0, int(b.min()) if b.size else 0)
    hi = max(int(a.max()) if a.size else 0, int(b.max()) if b.size else 0)
    if lo >= -(2**63) and hi < 2**63:
        return a.astype(np.int64), b.astype(np.int64)
    if lo >= 0:
        return a.astype(np.uint64), b.astype(np.uint64)
    return np.array(a.tolist(), dtype=object), np.array(b.tolist(), dtype=object)


def _is_int_value(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _object_labels(both: np.ndarray, source_name: str, locate: RowWhere | None, n_src: int) -> np.ndarray:
    """Object labels checked for gaps; all-int columns become exact integer arrays.

    Typed labels keep their identity: the int ``1`` and the string ``"1"``
    are different vertices (as in networkx).  Only text files have the
    ``007`` / ``7`` question, settled by :func:`rapids_balance.read_edgelist`'s ``ids`` rule.
    """
    import pandas as pd

    miss = pd.isna(both)
    if miss.any():
        r = int(np.flatnonzero(miss)[0])
        raise _row_error(source_name, "missing vertex id (None/NaN)", r % n_src if n_src else r, locate)
    if all(_is_int_value(x) for x in both.tolist()):
        return exact_int_array(both.tolist())
    return both


def _factorize_labels(src, dst, source_name: str, *, locate: RowWhere | None = None):
    """Map labels (ints of any size, strings) to dense codes, exactly (no float round trip).

    Returns (uniques, codes_src, codes_dst); uniques are sorted (ints before
    strings when both occur), so internal ids follow label order.  Integer
    columns of different dtypes (int64 and uint64) are joined in a dtype
    that holds both exactly.
    """
    import pandas as pd

    src = np.asarray(src)
    dst = np.asarray(dst)
    n_src = src.size
    cols = []
    for a in (src, dst):
        if a.dtype.kind == "b":
            raise GraphInputError(f"{source_name}: vertex ids are booleans; use integers or strings")
        if a.dtype.kind == "f":
            a = _integral_floats(a, source_name, locate)
        elif a.dtype.kind not in "iu":
            a = a.astype(object)
        cols.append(a)
    src, dst = cols
    if src.dtype.kind in "iu" and dst.dtype.kind in "iu":
        src, dst = _common_ints(src, dst)
        both = np.concatenate([src, dst])
    else:
        both = _object_labels(np.concatenate([src.astype(object), dst.astype(object)]), source_name, locate,
                              n_src)
    try:
        codes, uniques = pd.factorize(both, sort=True)
    except TypeError as exc:
        raise GraphInputError(f"{source_name}: vertex ids of mixed, unorderable types ({exc}); convert them "
                              "to one type") from None
    uniques = np.asarray(uniques)
    if uniques.dtype.kind not in "iuO":
        uniques = uniques.astype(object)
    codes = codes.astype(np.int64, copy=False)
    return uniques, codes[:n_src], codes[n_src:]


def _py(x):
    """numpy scalar -> plain Python value, for readable messages."""
    return x.item() if isinstance(x, np.generic) else x


def numeric_values(values, what: str, source_name: str, *, finite: bool = True,
                   locate: RowWhere | None = None) -> np.ndarray:
    """``values`` as a numeric array, or a :class:`GraphInputError` naming ``what``.

    Strings that parse as numbers are accepted.  Booleans are refused (is
    ``False`` a negative edge or a zero?): map them to numbers explicitly.
    With ``finite`` a NaN or infinite value is an error naming its data row
    (and its line, for file input).
    """
    v = np.asarray(values)
    if v.dtype.kind in "mM":
        raise GraphInputError(f"{source_name}: {what} holds dates or durations ({v.dtype}), not signs or "
                              "weights; name the right column, or convert it to numbers explicitly")
    if v.dtype.kind == "b" or (v.dtype.kind == "O" and v.size and isinstance(v.flat[0], (bool, np.bool_))):
        raise GraphInputError(
            f"{source_name}: {what} holds booleans (True/False); a sign or weight must be a number. "
            "Map them explicitly, e.g. signs = np.where(column, 1, -1) (True -> +1, False -> -1)")
    if v.dtype.kind not in "iuf":
        try:
            v = v.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            bad = _first_non_numeric(v)
            if bad is None:
                raise GraphInputError(f"{source_name}: {what} is not numeric (dtype {v.dtype})") from None
            raise _row_error(source_name, f"{what} is not numeric: {short_repr(v[bad])}", bad,
                             locate) from None
    if finite and v.dtype.kind == "f" and not np.isfinite(v).all():
        bad = int(np.flatnonzero(~np.isfinite(v))[0])
        raise _row_error(source_name, f"{what} is NaN or infinite ({float(v[bad])!r})", bad, locate)
    return v


def _first_non_numeric(v: np.ndarray) -> int | None:
    import pandas as pd

    num = pd.to_numeric(pd.Series(v, dtype=object), errors="coerce")
    bad = np.flatnonzero(num.isna().to_numpy())
    return int(bad[0]) if bad.size else None


def _signs_from_values(values, source_name: str, locate: RowWhere | None = None) -> np.ndarray:
    return np.sign(numeric_values(values, "sign column", source_name, locate=locate)).astype(np.int8)


def check_build_options(owner: str, *, directed: Any = False, conflicts: Any = "first",
                        zero_sign: Any = "positive", component: Any = "largest", numbering: Any = "sorted") -> None:
    """The cleaning keywords, checked before any work (one message style, see ``_validation``)."""
    from ._validation import check_bool, check_choice

    check_bool(directed, "directed", owner)
    for arg, val, allowed in (("conflicts", conflicts, CONFLICT_RULES), ("zero_sign", zero_sign, ZERO_SIGN_RULES),
                              ("component", component, COMPONENT_RULES),
                              ("numbering", numbering, NUMBERING_RULES)):
        check_choice(val, arg, owner, allowed)


def build_graph(src, dst, sign=None, weight=None, *, directed: bool = False,
                conflicts: str = "first", zero_sign: str = "positive",
                component: str = "largest", numbering: str = "sorted",
                name: str = "", graph_class: type | None = None,
                report: CleaningReport | None = None, locate: RowWhere | None = None) -> Graph:
    """Clean raw edge columns and build a :class:`Graph` / :class:`SignedGraph`.

    Parameters
    ----------
    src, dst : array-like
        Edge endpoints as original labels (integers of any size, or strings),
        kept exactly: int64 and uint64 columns are joined without floats,
        and the int ``1`` and the string ``"1"`` are different vertices.
    sign : array-like, optional
        Numeric values whose sign is the edge sign (ratings work: sign(rating)).
    weight : array-like, optional
        Finite numeric edge weights.
    directed : bool
        Keep (u, v) and (v, u) apart.  Only for unsigned :class:`Graph`.
    conflicts : {"first", "drop", "error"}
        A pair seen with both signs keeps its first sign in input order
        (graphB+), is removed (Levorato instances), or raises.
    zero_sign : {"positive", "drop", "error"}
        Value 0 counts as a positive edge (graphB+), is removed, or raises.
    component : {"largest", "all"}
        Keep the largest connected component (as the papers do) or everything.
        Among equally large components the one whose first row comes first in
        the input wins (as in graphB+).
    numbering : {"sorted", "graphbplus"}
        Internal ids by sorted label, or graphB+'s first-appearance order over
        the unique edges sorted by (min label, max label, sign), redone within
        the largest component.
    locate : callable, optional
        0-based data row -> 1-based file line, so errors name the line.

    Returns
    -------
    Graph or SignedGraph
        With ``.cleaning`` holding the counted :class:`CleaningReport`.

    Raises
    ------
    InvalidParameterError
        A cleaning keyword is not one of its documented values.
    GraphInputError
        Empty input, missing or non-integral ids, non-numeric / NaN /
        infinite / boolean signs or weights, nothing left after cleaning,
        ``conflicts="error"`` / ``zero_sign="error"`` violations (naming the
        data row, and the line for file input).

    Examples
    --------
    >>> g = build_graph([1, 2, 3], [2, 3, 1], sign=[1, -1, 1])
    >>> g.n, g.m, g.cleaning.self_loops
    (3, 3, 0)
    """
    check_build_options("build_graph", directed=directed, conflicts=conflicts, zero_sign=zero_sign,
                        component=component, numbering=numbering)
    if graph_class is None:
        graph_class = SignedGraph if sign is not None else Graph
    rep = report if report is not None else CleaningReport(source=name or "<arrays>")
    rep.conflict_rule, rep.zero_sign_rule = conflicts, zero_sign
    rep.component_rule, rep.numbering = component, numbering
    src_name = rep.source

    src = np.asarray(src)
    dst = np.asarray(dst)
    k = src.size
    if dst.size != k:
        raise GraphInputError(f"{src_name}: source and target have different lengths ({k} vs {dst.size})")
    rep.input_rows = int(k)
    if k == 0:
        raise GraphInputError(f"{src_name}: the edge list is empty")
    if directed and graph_class is SignedGraph:
        raise GraphInputError("signed graphs are undirected; pass directed=False")

    sgn = None if sign is None else _signs_from_values(sign, src_name, locate)
    if sgn is not None and sgn.size != k:
        raise GraphInputError(f"{src_name}: sign column length {sgn.size} != {k} edges")
    wgt = None if weight is None else numeric_values(weight, "weight column", src_name,
                                                     locate=locate).astype(np.float64)
    if wgt is not None and wgt.size != k:
        raise GraphInputError(f"{src_name}: weight column length {wgt.size} != {k} edges")

    uniques, cu, cv = _factorize_labels(src, dst, src_name, locate=locate)
    rep.vertices_in_input = int(uniques.size)
    row = np.arange(k, dtype=np.int64)

    # self loops
    keep = cu != cv
    rep.self_loops = int(k - keep.sum())
    # zero signs
    zero = None
    if sgn is not None:
        zmask = (sgn == 0) & keep
        if zmask.any():
            if zero_sign == "error":
                r = int(np.flatnonzero(zmask)[0])
                raise _row_error(src_name, "sign 0", r, locate, " (zero_sign='error'; use 'positive' or 'drop')")
            if zero_sign == "drop":
                rep.zero_sign_dropped = int(zmask.sum())
                keep &= ~zmask
    cu, cv, row = cu[keep], cv[keep], row[keep]
    if sgn is not None:
        sgn = sgn[keep]
    if wgt is not None:
        wgt = wgt[keep]
    if cu.size == 0:
        raise GraphInputError(f"{src_name}: no edges remain after cleaning "
                              f"({rep.self_loops} self loops, {rep.zero_sign_dropped} zero signs dropped)")

    # pair key; undirected pairs are (min, max)
    if directed:
        a, b = cu, cv
    else:
        a, b = np.minimum(cu, cv), np.maximum(cu, cv)
    # group rows by pair, file order inside a pair (stable sort on one key)
    order = np.argsort(a * np.int64(uniques.size) + b, kind="stable")
    a, b, row = a[order], b[order], row[order]
    if sgn is not None:
        sgn = sgn[order]
    if wgt is not None:
        wgt = wgt[order]
    first = np.ones(a.size, dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    group = np.cumsum(first) - 1
    n_groups = int(group[-1]) + 1
    if sgn is not None:
        sgn_adj = np.where(sgn == 0, 1, sgn)  # 0 behaves as positive
        has_pos = np.zeros(n_groups, bool)
        has_neg = np.zeros(n_groups, bool)
        has_pos[group[sgn_adj > 0]] = True
        has_neg[group[sgn_adj < 0]] = True
        conflict = has_pos & has_neg
        n_conf = int(conflict.sum())
        rep.conflicting_pairs = n_conf
        if n_conf:
            if conflicts == "error":
                gi = int(np.flatnonzero(conflict)[0])
                rows_g = row[group == gi].tolist()[:5]
                lines = "" if locate is None else f", lines {[locate(r) for r in rows_g]}"
                raise GraphInputError(
                    f"{src_name}: {n_conf} vertex pairs appear with both signs, e.g. "
                    f"({short_repr(_py(uniques[a[first][gi]]), 40)}, {short_repr(_py(uniques[b[first][gi]]), 40)}) "
                    f"in data rows {rows_g} (0-based{lines}; conflicts='error'; use 'first' or 'drop')")
            in_conf = conflict[group]
            if conflicts == "drop":
                rep.conflict_rows_dropped = int(in_conf.sum())
            else:
                # later rows whose sign differs from the pair's first sign
                first_sign = sgn_adj[first][group]
                rep.conflict_rows_ignored = int((in_conf & (sgn_adj != first_sign)).sum())
    sel = first.copy()
    if rep.conflict_rows_dropped:
        in_conf = conflict[group]
        sel &= ~in_conf
        rep.duplicate_rows = int((~in_conf).sum() - sel.sum())
    else:
        rep.duplicate_rows = int(a.size - n_groups - rep.conflict_rows_ignored)
    a, b, row = a[sel], b[sel], row[sel]
    if sgn is not None:
        sgn = sgn[sel]
    if wgt is not None:
        wgt = wgt[sel]
    if a.size == 0:
        raise GraphInputError(f"{src_name}: no edges remain after removing conflicting pairs")

    # vertices that still have an edge
    used = np.zeros(uniques.size, bool)
    used[a] = True
    used[b] = True

    # components
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    nu = uniques.size
    adj = sp.coo_matrix((np.ones(a.size, np.int8), (a, b)), shape=(nu, nu)).tocsr()
    _, comp = connected_components(adj, directed=False)
    comp_sizes = np.bincount(comp[used])
    rep.components = int((comp_sizes > 0).sum())
    if component == "largest":
        # largest by vertex count; among tied components the one whose first
        # kept row comes first in the input (graphB+'s union-find does this)
        tied = np.flatnonzero(comp_sizes == comp_sizes.max())
        if tied.size > 1:
            first_row = np.full(comp_sizes.size, np.iinfo(np.int64).max)
            np.minimum.at(first_row, comp[a], row)
            best = int(tied[np.argmin(first_row[tied])])
        else:
            best = int(tied[0])
        in_c = comp == best
        keep_e = in_c[a]
        rep.vertices_outside_component = int(used.sum() - (used & in_c).sum())
        rep.edges_outside_component = int(a.size - keep_e.sum())
        a, b = a[keep_e], b[keep_e]
        if sgn is not None:
            sgn = sgn[keep_e]
        if wgt is not None:
            wgt = wgt[keep_e]
        used &= in_c

    # numbering
    if numbering == "graphbplus":
        new_id = _graphbplus_numbering(uniques, a, b, sgn, nu)
    else:
        new_id = np.full(nu, -1, dtype=np.int64)
        new_id[used] = np.arange(int(used.sum()))
    n = int(used.sum())
    labels = uniques[np.argsort(np.where(new_id >= 0, new_id, np.iinfo(np.int64).max), kind="stable")[:n]]
    u, v = new_id[a], new_id[b]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    eo = np.argsort(u * np.int64(max(n, 1)) + v, kind="stable")
    u, v = u[eo], v[eo]
    if sgn is not None:
        sgn = sgn[eo]
        zero = sgn == 0
        rep.zero_sign_edges = int(zero.sum())
        sgn = np.where(zero, 1, sgn).astype(np.int8)
        if not zero.any():
            zero = None
    if wgt is not None:
        wgt = wgt[eo]
    if labels.dtype.kind in "iu":
        labels = labels.astype(np.int64) if labels.dtype != np.uint64 or labels.max() < 2**63 else labels

    kwargs = dict(edge_src=u, edge_dst=v, n_vertices=n, labels=labels, directed=directed,
                  sign=sgn, weight=wgt, zero_sign=zero, cleaning=rep, name=name)
    if graph_class is SignedGraph and sgn is None:
        raise GraphInputError(f"{src_name}: a signed graph needs a sign column")
    return graph_class(**kwargs)


def _graphbplus_numbering(uniques, a, b, sgn, nu) -> np.ndarray:
    """graphB+'s vertex numbering (see :func:`build_graph`).

    Ids go to vertices in order of first appearance while walking the unique
    edges sorted by (min label, max label, sign); the reference code numbers
    the whole file this way, extracts the largest component and numbers it
    again the same way, which is the same as numbering the component directly
    because the walk order of its edges is unchanged.
    """
    lo = np.minimum(a, b)  # codes are ranks of sorted labels, so this sorts by label
    hi = np.maximum(a, b)
    keys = (sgn if sgn is not None else np.zeros(a.size, np.int8), hi, lo)
    o = np.lexsort(keys)
    walk = np.empty(2 * o.size, dtype=np.int64)
    walk[0::2] = lo[o]
    walk[1::2] = hi[o]
    _, first_pos = np.unique(walk, return_index=True)
    verts = np.unique(walk)
    order = np.argsort(first_pos, kind="stable")
    new_id = np.full(nu, -1, dtype=np.int64)
    new_id[verts[order]] = np.arange(verts.size)
    return new_id


def graph_from_any(obj: Any, *, source: Any = None, target: Any = None, sign: Any = None,
                   weight: Any = None, **options) -> Graph:
    """Coerce user input (our graphs, files, DataFrames, networkx, cuGraph) to a Graph.

    Parameters
    ----------
    obj : Graph, str or path-like, DataFrame / table / mapping, tuple, networkx or cuGraph graph
        A built graph is returned as it is; a path is read with
        :func:`rapids_balance.read_edgelist`.
    source, target, sign, weight : str or int, optional
        The columns (names or 0-based positions; networkx: edge attributes)
        that play each role, as in :func:`rapids_balance.read_edgelist`;
        ``None`` leaves the choice to the input's format or recognised
        names.  A column is never taken as the sign by position alone.
    **options
        ``signed`` (True: a sign column is required, and its absence is an
        error listing the columns and the keyword to pass), and the cleaning
        options of :func:`rapids_balance.read_edgelist`.

    Returns
    -------
    Graph or SignedGraph

    Raises
    ------
    GraphInputError
        See :func:`rapids_balance.io.coerce_graph`.

    Examples
    --------
    >>> import pandas as pd
    >>> g = graph_from_any(pd.DataFrame({"src": [1, 2], "dst": [2, 3], "sign": [1, -1]}))
    >>> type(g).__name__, g.m
    ('SignedGraph', 2)
    """
    if isinstance(obj, Graph):
        return obj
    from .io import coerce_graph

    roles = {k: v for k, v in (("source", source), ("target", target), ("sign", sign),
                               ("weight", weight)) if v is not None}
    return coerce_graph(obj, **roles, **options)
