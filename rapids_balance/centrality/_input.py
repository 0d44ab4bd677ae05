"""From what the user passed to what the kernels read.

:func:`coerce_input` turns a graph of this library, an edge-list DataFrame
(pandas, cuDF, polars, pyarrow), a networkx graph or a cuGraph graph into a
:class:`~rapids_balance.graph.Graph` plus one positive, finite length per
edge (or ``None`` for unweighted), following the ``weight`` argument.
:class:`BCGraph` is the kernels' view: out-CSR with a length per slot, the
in-CSR (the same arrays for undirected graphs) and each vertex's shortest
out-edge.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._containers import ClusterGraph, GraphOnCluster, OnCluster
from ..errors import GraphInputError
from ..graph import CleaningReport, Graph, SignedGraph, _py, build_graph, numeric_values
from ..io._roles import resolve_roles

_WEIGHT_HELP = ("weight must be None (unweighted), 'weight', 'abs', the name of a column / "
                "edge attribute, an array of one length per edge, or a callable")


# ---------------------------------------------------------------------------
# lengths
# ---------------------------------------------------------------------------

def validate_lengths(lengths: Any, labels_src, labels_dst, what: str) -> np.ndarray:
    """Lengths as float64, or a :class:`GraphInputError` naming the first bad edge.

    Betweenness needs positive, finite lengths.  networkx accepts zero
    lengths but its Dijkstra then counts paths wrongly (a vertex reached
    over a zero-length edge can be settled before all its equally short
    predecessors, and zero-length cycles make the number of shortest paths
    infinite); negative lengths make Dijkstra's answer wrong without an
    error.  NaN and infinity have no meaning as lengths.
    """
    # NaN and infinity are reported below with the edge they sit on
    a = np.ascontiguousarray(numeric_values(lengths, "edge lengths", what, finite=False), dtype=np.float64)
    bad = ~(np.isfinite(a) & (a > 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        v = float(a[i])
        u_lab, v_lab = _py(labels_src[i]), _py(labels_dst[i])
        kind = ("NaN" if np.isnan(v) else "infinite" if np.isinf(v)
                else "zero" if v == 0 else "negative")
        hint = {
            "zero": "zero lengths make shortest-path counts ill-defined (networkx accepts them "
                    "and may count paths wrongly); contract those edges or use a small positive length",
            "negative": "Dijkstra needs non-negative lengths (networkx silently returns wrong "
                        "values); for signed values state the mapping, e.g. weight='abs' or weight=None "
                        "(CLI: --weight abs / --weight none)",
            "NaN": "remove or fill missing weights",
            "infinite": "remove edges of infinite length",
        }[kind]
        raise GraphInputError(
            f"{what}: betweenness needs positive finite edge lengths, but {int(bad.sum())} edge(s) "
            f"are not; the first is ({u_lab!r}, {v_lab!r}) with {kind} length {v!r}: {hint}")
    return a


def _lengths_for_graph(g: Graph, weight) -> np.ndarray | None:
    """Raw (unvalidated) lengths of our Graph per the ``weight`` argument."""
    if weight is None:
        return None
    if callable(weight):
        return np.asarray(weight(g.edges_frame()))
    if isinstance(weight, str):
        if weight == "abs":
            return None if g.weight is None else np.abs(g.weight)
        if weight == "weight":
            if g.weight is not None:
                return g.weight
            if isinstance(g, SignedGraph):
                raise GraphInputError(
                    "this SignedGraph has signs but no edge lengths; say how to map edges to "
                    "lengths: weight=None (every edge has length 1, signs ignored), "
                    "weight='abs' (|weight|, 1 when there are none), an array of lengths or "
                    "a callable taking the edges DataFrame (src, dst, sign[, weight])")
            return None  # as networkx: a missing weight attribute means length 1
        raise GraphInputError(f"a {type(g).__name__} holds a single weight array; {_WEIGHT_HELP} "
                              f"(got {weight!r})")
    arr = np.asarray(weight)
    if arr.ndim != 1 or arr.size != g.m:
        raise GraphInputError(f"weight array must have one length per edge ({g.m}), got shape {arr.shape}")
    return arr


# ---------------------------------------------------------------------------
# input coercion
# ---------------------------------------------------------------------------

def _module_of(obj) -> str:
    return type(obj).__module__.split(".")[0]


def coerce_input(obj: Any, weight, directed: bool | None, *, for_edges: bool, source: Any = None,
                 target: Any = None, sign: Any = None) -> tuple[Graph, np.ndarray | None]:
    """(graph, validated lengths or None) from any supported input.

    ``source``, ``target`` and ``sign`` name columns (names or 0-based
    positions) of a table or file; ``sign`` is the value column whose
    magnitude ``weight="abs"`` takes.  A file path is read with
    :func:`~rapids_balance.read_edgelist` (unsigned unless ``sign`` is given).
    """
    roles = {"source": source, "target": target, "sign": sign}
    if isinstance(obj, OnCluster):
        # an input the workers read raises there; one the client holds is built here and handed
        # back with its lengths as the graph's weights (nothing graph-sized in the call's kwargs)
        _on_cluster(obj.obj, weight, directed, roles)
        g, lengths = coerce_input(obj.obj, weight, directed, for_edges=for_edges, **roles)
        raise GraphOnCluster(graph=_with_weight(g, lengths),
                             call={"weight": None if lengths is None else "weight"})
    if isinstance(obj, Graph):
        g = obj
        if directed is not None and bool(directed) != g.directed:
            raise GraphInputError(
                f"directed={directed} but the graph is {'directed' if g.directed else 'undirected'}; "
                "build the graph with the direction you want")
        raw = _lengths_for_graph(g, weight)
    elif isinstance(obj, (str, os.PathLike)):
        return coerce_input(_read_file(obj, weight, directed, roles), _file_weight(weight), directed,
                            for_edges=for_edges)
    elif _module_of(obj) == "networkx":
        for role, val in roles.items():
            if val is not None:
                raise GraphInputError(f"{role}= names a table column; a networkx graph has none (its nodes "
                                      "are the vertices; weight= names the edge attribute holding lengths)")
        g, raw = _from_networkx(obj, weight, directed, for_edges)
    elif _module_of(obj) == "cugraph":
        g, raw = _from_cugraph(obj, weight, directed)
    elif hasattr(obj, "columns") or hasattr(obj, "to_pandas") or hasattr(obj, "column_names"):
        g, raw = _from_frame(obj, weight, directed, roles)
    else:
        from ..graph import graph_from_any

        try:
            g = graph_from_any(obj, **{k: v for k, v in roles.items() if v is not None})
        except ImportError:
            raise GraphInputError(f"cannot compute betweenness of a {type(obj).__name__}: pass a Graph, "
                                  "an edge-list DataFrame, a networkx or a cuGraph graph") from None
        return coerce_input(g, weight, directed, for_edges=for_edges)
    if raw is None:
        return g, None
    lab = g.labels
    return g, validate_lengths(raw, lab[g.edge_src], lab[g.edge_dst], g.name or type(obj).__name__)


def _with_weight(g: Graph, lengths: np.ndarray | None) -> Graph:
    """``g`` with ``lengths`` (one per edge, validated) as its weights: a shallow copy, unless
    they are its weights already."""
    if lengths is None or lengths is g.weight:
        return g
    import copy

    out = copy.copy(g)
    out.weight = lengths
    return out


def _on_cluster(obj: Any, weight, directed: bool | None, roles: dict[str, Any]) -> None:
    """An input the workers of a cluster read or hold: raises :class:`GraphOnCluster` with the
    parts read as this module reads the same rows here (a dataset as :func:`_read_file`, a Dask
    DataFrame as :func:`_from_frame`) and the ``weight`` the call on the built graph takes."""
    from ..io import coerce_graph

    given = {k: v for k, v in roles.items() if v is not None}
    if isinstance(obj, ClusterGraph):
        if given:  # refused there, by name
            coerce_graph(OnCluster(obj), **given)
        if directed is not None and bool(directed) != obj.directed:
            raise GraphInputError(
                f"directed={directed} but the graph is {'directed' if obj.directed else 'undirected'}; "
                "build the graph with the direction you want")
        if isinstance(weight, str) and weight not in ("weight", "abs"):
            raise GraphInputError(f"a {obj.kind} holds a single weight array; {_WEIGHT_HELP} "
                                  f"(got {weight!r})")
        raise GraphOnCluster(handle=obj, call={"weight": weight})
    if _module_of(obj) in ("dask", "dask_cudf") and hasattr(obj, "npartitions"):
        # a callable or an array reads the whole table (or its row order) here, and 'abs' falls
        # back to a sign column the unsigned build does not keep: none of them on the workers
        if not (weight is None or isinstance(weight, str)) or weight == "abs":
            raise GraphInputError(
                f"weight={weight!r} is not supported for a Dask DataFrame read on the workers; "
                "name the length column (weight='<column>') or pass weight=None")
        cols = list(obj.columns)
        if weight not in (None, "weight") and weight not in cols:
            raise GraphInputError(f"edge list has no column {weight!r} (columns: {cols})")
        named = weight if weight in cols else None
        try:
            coerce_graph(OnCluster(obj), signed=False, **{**given, "weight": named},
                         directed=bool(directed), component="all", name="edge list")
        except GraphOnCluster as found:
            found.call = {"weight": None if named is None else "weight"}
            raise
        raise AssertionError("a Dask DataFrame was read here")  # pragma: no cover
    if isinstance(obj, (str, os.PathLike)):
        from ..io._parts import is_dataset_path

        if is_dataset_path(obj):
            try:
                _read_file(OnCluster(obj), weight, directed, roles)
            except GraphOnCluster as found:
                found.call = {"weight": _file_weight(weight)}
                raise


def _file_weight(weight):
    """The ``weight`` argument once a file was read with its length column as the graph's weight."""
    if isinstance(weight, (str, int)) and not isinstance(weight, bool) and weight != "abs":
        return "weight"
    return weight


def _read_file(path, weight, directed, roles: dict[str, Any]) -> Graph:
    """A file for betweenness: unsigned (signed when ``sign=`` is given), lengths from ``weight``."""
    from ..io import coerce_graph, read_edgelist

    # an OnCluster dataset: its parts, read by the same options on the workers (_on_cluster)
    read = coerce_graph if isinstance(path, OnCluster) else read_edgelist
    given = {k: v for k, v in roles.items() if v is not None}
    column = weight if isinstance(weight, (str, int)) and not isinstance(weight, bool) and \
        weight not in ("weight", "abs") else None
    if "sign" in given:
        return read(path, signed=True, weight="abs" if weight == "abs" else column, **given)
    return read(path, signed=False, directed=bool(directed), weight=column, **given)


def _from_networkx(G, weight, directed, for_edges) -> tuple[Graph, np.ndarray | None]:
    if directed is not None and bool(directed) != G.is_directed():
        raise GraphInputError(f"directed={directed} but the networkx graph is "
                              f"{'directed' if G.is_directed() else 'undirected'}")
    multi = G.is_multigraph()
    if multi and for_edges:
        raise GraphInputError("edge betweenness of a multigraph is not supported; collapse parallel edges first")
    nodes = list(G.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    # networkx semantics: a missing attribute is length 1, a multigraph
    # uses its shortest parallel edge, a callable returning None hides the edge
    if weight is None:
        wfun = None
    elif callable(weight):
        wfun = weight
    elif isinstance(weight, str):
        attr = "weight" if weight == "abs" else weight
        absval = weight == "abs"

        def wfun(u, v, d):
            if multi:
                val = min(dd.get(attr, 1) for dd in d.values())
            else:
                val = d.get(attr, 1)
            return abs(val) if absval else val
    else:
        raise GraphInputError(f"for a networkx graph, {_WEIGHT_HELP} (an array has no edge order here)")
    src, dst, lengths = [], [], []
    seen = set()
    for u, v in G.edges():
        if u == v:
            continue  # a self loop is never on a shortest path
        a, b = index[u], index[v]
        if not G.is_directed() and a > b:
            a, b = b, a
        if (a, b) in seen:
            continue
        seen.add((a, b))
        if wfun is not None:
            val = wfun(u, v, G[u][v])
            if val is None:
                continue
            lengths.append(val)
        src.append(a)
        dst.append(b)
    src_a = np.asarray(src, dtype=np.int64)
    dst_a = np.asarray(dst, dtype=np.int64)
    o = np.lexsort((dst_a, src_a))
    labels = np.empty(len(nodes), dtype=object)
    labels[:] = nodes
    if labels.size and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in nodes):
        try:
            labels = labels.astype(np.int64)
        except OverflowError:
            pass
    raw = None
    if wfun is not None:
        try:
            raw = np.asarray(lengths, dtype=np.float64)[o]
        except (TypeError, ValueError):
            raise GraphInputError(f"networkx graph: edge attribute {weight!r} is not numeric") from None
    g = Graph(edge_src=src_a[o], edge_dst=dst_a[o], n_vertices=len(nodes), labels=labels,
              directed=G.is_directed(), weight=raw, name=str(G.name or "networkx graph"))
    return g, raw


def _from_frame(df, weight, directed, roles: dict[str, Any] | None = None) -> tuple[Graph, np.ndarray | None]:
    if type(df).__module__.split(".")[0] in ("cudf", "dask_cudf"):
        from ..io._device import host_frame
        from ..io._frames import materialise

        # the betweenness kernels read host arrays: one copy per column (io/_device.py)
        df = host_frame(materialise(df)[0])
    elif not hasattr(df, "columns") or not hasattr(df, "iloc"):
        df = df.to_pandas()
    cols = list(df.columns)
    roles = dict(roles or {})
    if isinstance(weight, str) and weight not in ("abs", "weight") and weight not in cols:
        raise GraphInputError(f"edge list has no column {weight!r} (columns: {cols})")
    named_weight = weight if isinstance(weight, str) and weight != "abs" and weight in cols else None
    # the same column rules as read_edgelist / graph_from_any
    res = resolve_roles(cols, {**roles, "weight": named_weight}, where="edge list", want_sign=None)
    raw = None
    if weight is None:
        pass
    elif callable(weight):
        raw = np.asarray(weight(df))
    elif isinstance(weight, str):
        if weight == "abs":
            wcol = res.weight if res.weight is not None else res.sign
            if wcol is None:
                raise GraphInputError(f"weight='abs' but the edge list has no value column among {cols}; "
                                      "name it with sign=<column>")
            raw = np.abs(numeric_values(np.asarray(df[wcol]), f"column {wcol!r}", "edge list",
                                        finite=False).astype(np.float64))
        elif res.weight is not None:
            raw = np.asarray(df[res.weight])
        # weight="weight" without such a column: unweighted, as networkx
    else:
        raw = np.asarray(weight)
        if raw.ndim != 1 or raw.size != len(df):
            raise GraphInputError(f"weight array must have one length per row ({len(df)}), got shape {raw.shape}")
    src = np.asarray(df[res.source])
    dst = np.asarray(df[res.target])
    if raw is not None:
        # rows are checked before cleaning so the error names an input row
        validate_lengths(raw, src, dst, "edge list")
    report = CleaningReport(source="edge list", columns=res.report())
    g = build_graph(src, dst, weight=raw, directed=bool(directed), component="all",
                    name="edge list", graph_class=Graph, report=report)
    return g, g.weight


def _from_cugraph(G, weight, directed) -> tuple[Graph, np.ndarray | None]:
    is_dir = bool(G.is_directed())
    if directed is not None and bool(directed) != is_dir:
        raise GraphInputError(f"directed={directed} but the cuGraph graph is "
                              f"{'directed' if is_dir else 'undirected'}")
    from ..io._device import cugraph_edges, host_frame

    edges = cugraph_edges(G)
    # columns by the names the graph records (cuGraph keeps no column order)
    wanted = {"src": edges.source, "dst": edges.target}
    wcol = edges.weight
    if isinstance(weight, str) and weight not in ("weight", "abs") and weight in list(edges.frame.columns):
        wcol = weight
    if wcol is not None and weight is not None:
        wanted["weight"] = wcol
    df = host_frame(edges.frame, wanted)
    if callable(weight) or (isinstance(weight, str) and weight not in ("weight", "abs") and weight != wcol):
        spec = weight  # a callable reads the frame; a column the graph lacks is refused there
    else:
        spec = None if "weight" not in wanted else ("abs" if weight == "abs" else "weight")
    return _from_frame(df, spec, is_dir)


# ---------------------------------------------------------------------------
# the kernels' view
# ---------------------------------------------------------------------------

_MAX_DIAL_LENGTH = 1 << 12


def _dial_buckets(lens: np.ndarray, n: int) -> int:
    """Bucket count (a power of two) for Dial's queue on the CPU, 0 for the heap.

    Integer lengths up to 4096 (unweighted included) settle in O(1) per
    vertex from a circular array of buckets.  Distances stay exact integers
    in float64 while (n - 1) * max length < 2**53.
    """
    if lens.size == 0:
        return 2
    top = float(lens.max())
    if top > _MAX_DIAL_LENGTH or n * top >= 2.0**53 or not np.array_equal(lens, np.round(lens)):
        return 0
    return 1 << int(top).bit_length()  # a power of two above the longest edge


@dataclass
class BCGraph:
    """CSR arrays with a length per slot, as the betweenness kernels read them.

    Picklable (plain numpy arrays), so a Dask client can scatter it once.
    """

    n: int
    m: int
    directed: bool
    weighted: bool
    indptr: np.ndarray
    indices: np.ndarray
    wslot: np.ndarray
    slot_edge: np.ndarray
    rindptr: np.ndarray
    rindices: np.ndarray
    rwslot: np.ndarray
    rslot_edge: np.ndarray
    minw: np.ndarray
    nbuckets: int = 0
    _dev: dict | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_graph(cls, g: Graph, lengths: np.ndarray | None) -> "BCGraph":
        n, m = g.n, g.m
        lens = np.ones(m) if lengths is None else np.asarray(lengths, dtype=np.float64)
        indptr = np.asarray(g.indptr, dtype=np.int64)
        indices = np.asarray(g.indices, dtype=np.int32)
        slot_edge = np.asarray(g.slot_edge, dtype=np.int32)
        wslot = np.ascontiguousarray(lens[slot_edge])
        if g.directed:
            # in-edges, grouped by head, for pulling path counts
            order = np.lexsort((g.edge_src, g.edge_dst))
            rindptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.bincount(g.edge_dst, minlength=n), out=rindptr[1:])
            rindices = np.ascontiguousarray(g.edge_src[order], dtype=np.int32)
            rwslot = np.ascontiguousarray(lens[order])
            rslot_edge = order.astype(np.int32)  # edges are numbered in edge order
        else:
            rindptr, rindices, rwslot, rslot_edge = indptr, indices, wslot, slot_edge
        minw = np.full(n, np.inf)
        if wslot.size:
            rows = np.repeat(np.arange(n), np.diff(indptr))
            np.minimum.at(minw, rows, wslot)
        return cls(n, m, g.directed, lengths is not None, indptr, indices, wslot, slot_edge,
                   rindptr, rindices, rwslot, rslot_edge, minw, _dial_buckets(lens, n))

    def device(self) -> dict:
        """The arrays on the GPU (cached; numpy under the simulator)."""
        if self._dev is None:
            from ..backend import to_device

            names = ("indptr", "indices", "wslot", "slot_edge", "rindptr", "rindices", "rwslot", "minw")
            # copies: the simulator writes every argument back to the host,
            # and the Graph's arrays are read-only
            self._dev = {k: to_device(np.array(getattr(self, k)), "gpu") for k in names}
        return self._dev

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_dev"] = None
        return state
