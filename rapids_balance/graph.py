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

from dataclasses import dataclass, field, asdict
from typing import Any

import numpy as np

from .errors import GraphInputError

__all__ = ["Graph", "SignedGraph", "CleaningReport", "build_graph"]

CONFLICT_RULES = ("first", "drop", "error")
ZERO_SIGN_RULES = ("positive", "drop", "error")
COMPONENT_RULES = ("largest", "all")
NUMBERING_RULES = ("sorted", "graphbplus")


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
    """

    source: str = "<arrays>"
    input_rows: int = 0
    comment_lines: int = 0
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
            if k not in ("source", "notes"):
                lines.append(f"  {k}: {v}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


class Graph:
    """A graph in CSR form with original vertex labels (see module docstring).

    Build one with :meth:`from_edgelist` or :func:`rapids_balance.read_edgelist`
    rather than calling the constructor.
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
    def from_edgelist(cls, data: Any = None, *, source: str = "source", target: str = "target",
                      sign: str | None = None, weight: str | None = None, **options) -> "Graph":
        """Build a graph from an edge-list DataFrame or a mapping of arrays.

        ``data`` may be a pandas, polars, pyarrow or cuDF table, a dict of
        arrays, or a tuple ``(sources, targets[, values])``.  ``options`` are
        those of :func:`build_graph` (``directed``, ``conflicts``,
        ``zero_sign``, ``component``, ``numbering``, ``name``).
        """
        from .io import edgelist_columns
        from .io._frames import guess_columns, _columns, table_kind

        kind = table_kind(data)
        if sign is None and weight is None and kind not in ("sequence", "unknown"):
            guess = guess_columns(_columns(data, kind))
            sign, weight = guess["sign"], guess["weight"]
            if source == "source" and guess["source"] is not None:
                source, target = guess["source"], guess["target"]
        src, dst, sgn, wgt = edgelist_columns(data, source=source, target=target,
                                              sign=sign, weight=weight)
        if cls is SignedGraph and sgn is None and wgt is not None:
            sgn, wgt = wgt, None  # a signed graph reads its sign from the value column
        return build_graph(src, dst, sign=sgn, weight=wgt, graph_class=cls, **options)

    # -- accessors ----------------------------------------------------
    @property
    def n_vertices(self) -> int:
        return self.n

    @property
    def n_edges(self) -> int:
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
    removes such edges instead.
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

def _factorize_labels(src, dst, source_name: str):
    """Map arbitrary labels (ints, huge ints, strings) to dense codes.

    Returns (uniques, codes_src, codes_dst); uniques are sorted.
    """
    src = np.asarray(src)
    dst = np.asarray(dst)
    both = np.concatenate([src, dst])
    if both.dtype.kind == "f":
        if not np.isfinite(both).all():
            bad = int(np.flatnonzero(~np.isfinite(both))[0] % max(src.size, 1))
            raise GraphInputError(f"{source_name}: vertex id is NaN or infinite in row {bad}")
        if not (both == np.round(both)).all():
            bad = int(np.flatnonzero(both != np.round(both))[0] % max(src.size, 1))
            raise GraphInputError(f"{source_name}: vertex id {both[bad]!r} in row {bad} is not an integer")
        both = both.astype(np.int64)
    elif both.dtype.kind == "O":
        types = {type(x) for x in both[: min(both.size, 1_000_000)]}
        if any(x is None for x in both) or float in types and any(x != x for x in both if isinstance(x, float)):
            raise GraphInputError(f"{source_name}: missing vertex id (None/NaN)")
        if len(types) > 1 and not types <= {int, np.int64, np.int32}:
            both = both.astype(str)
    try:
        uniques, codes = np.unique(both, return_inverse=True)
    except TypeError as exc:
        raise GraphInputError(f"{source_name}: vertex ids of mixed, unorderable types ({exc})") from None
    codes = codes.reshape(-1).astype(np.int64)
    return uniques, codes[: src.size], codes[src.size:]


def _py(x):
    """numpy scalar -> plain Python value, for readable messages."""
    return x.item() if isinstance(x, np.generic) else x


def numeric_values(values, what: str, source_name: str, *, finite: bool = True) -> np.ndarray:
    """``values`` as a numeric array, or a :class:`GraphInputError` naming ``what``.

    Strings that parse as numbers are accepted.  With ``finite`` a NaN or
    infinite value is an error naming its (0-based) data row.
    """
    v = np.asarray(values)
    if v.dtype.kind not in "biuf":
        try:
            v = v.astype(np.float64)
        except (TypeError, ValueError):
            raise GraphInputError(f"{source_name}: {what} is not numeric (dtype {v.dtype})") from None
    if finite and v.dtype.kind == "f" and not np.isfinite(v).all():
        bad = int(np.flatnonzero(~np.isfinite(v))[0])
        raise GraphInputError(f"{source_name}: {what} is NaN or infinite in data row {bad} (0-based)")
    return v


def _signs_from_values(values, source_name: str) -> np.ndarray:
    return np.sign(numeric_values(values, "sign column", source_name)).astype(np.int8)


def build_graph(src, dst, sign=None, weight=None, *, directed: bool = False,
                conflicts: str = "first", zero_sign: str = "positive",
                component: str = "largest", numbering: str = "sorted",
                name: str = "", graph_class: type | None = None,
                report: CleaningReport | None = None) -> Graph:
    """Clean raw edge columns and build a :class:`Graph` / :class:`SignedGraph`.

    Parameters
    ----------
    src, dst : array-like
        Edge endpoints as original labels (integers of any size, or strings).
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

    Returns
    -------
    Graph or SignedGraph
        With ``.cleaning`` holding the counted :class:`CleaningReport`.
    """
    for arg, val, allowed in (("conflicts", conflicts, CONFLICT_RULES),
                              ("zero_sign", zero_sign, ZERO_SIGN_RULES),
                              ("component", component, COMPONENT_RULES),
                              ("numbering", numbering, NUMBERING_RULES)):
        if val not in allowed:
            raise ValueError(f"{arg} must be one of {allowed}, got {val!r}")
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

    sgn = None if sign is None else _signs_from_values(sign, src_name)
    if sgn is not None and sgn.size != k:
        raise GraphInputError(f"{src_name}: sign column length {sgn.size} != {k} edges")
    wgt = None if weight is None else numeric_values(weight, "weight column", src_name).astype(np.float64)

    uniques, cu, cv = _factorize_labels(src, dst, src_name)
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
                raise GraphInputError(f"{src_name}: sign 0 in data row {r} (0-based; zero_sign='error')")
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
                rows_g = row[group == gi]
                raise GraphInputError(
                    f"{src_name}: {n_conf} vertex pairs appear with both signs, e.g. "
                    f"({_py(uniques[a[first][gi]])!r}, {_py(uniques[b[first][gi]])!r}) in data rows "
                    f"{rows_g.tolist()[:5]} (0-based; conflicts='error'; use 'first' or 'drop')")
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

    ``source``, ``target``, ``sign`` and ``weight`` name the columns (or
    positions, or networkx edge attributes) that play each role, as in
    :func:`rapids_balance.read_edgelist`; ``None`` leaves the choice to the
    input's format or recognised names.
    """
    if isinstance(obj, Graph):
        return obj
    from .io import coerce_graph

    roles = {k: v for k, v in (("source", source), ("target", target), ("sign", sign),
                               ("weight", weight)) if v is not None}
    return coerce_graph(obj, **roles, **options)
