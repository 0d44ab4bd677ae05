"""The graph containers: :class:`Graph`, :class:`SignedGraph` and :class:`CleaningReport`.

They hold a built graph and know nothing of how it was built: the layout
of their arrays is described in :mod:`rapids_balance.graph` (the public
module, which also gives the ways to build one), the CSR construction is
:func:`rapids_balance._csr.csr_arrays`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, asdict
from types import ModuleType
from typing import Any

import numpy as np

from . import _xp
from ._csr import csr_arrays, edge_slots_from_csr
from .errors import GraphInputError, short_repr

__all__ = ["Graph", "SignedGraph", "CleaningReport", "GraphSummary", "ClusterGraph", "OnCluster",
           "GraphOnCluster"]


@dataclass
class CleaningReport:
    """What cleaning did to the input, counted.  Nothing is dropped uncounted.

    Every input row is accounted for exactly once::

        input_rows = self_loops + zero_sign_dropped + duplicate_rows
                     + conflict_rows_ignored + conflict_rows_dropped
                     + edges_outside_component + (edges of the graph)

    ``duplicate_rows`` repeat a pair with the sign it already has; of them,
    ``reverse_rows`` list an undirected pair the other way round from its
    first row (``v,u`` after ``u,v``: in a who-rates-whom file, the second
    person's rating of the first, merged into one undirected edge), the rest
    repeat the same row;
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
    reverse_rows: int = 0
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
    #: SHA-256 and size of the input file's bytes, hashed as they were read (None: not a file)
    source_sha256: str | None = None
    source_bytes: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"cleaning report for {self.source}:"]
        for k, v in self.as_dict().items():
            if k not in ("source", "notes", "columns", "source_sha256", "source_bytes"):
                lines.append(f"  {k}: {v}")
        for role, info in self.columns.items():
            lines.append(f"  {role} column: {short_repr(info['column'], 40)} ({info['why']})")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class GraphSummary(dict):
    """:meth:`Graph.summary`'s dict (JSON as it is), printed as a readable report.

    ``print(g.summary())`` shows one statistic a line and the cleaning report
    below them, as ``rapids-balance info`` does; the keys are unchanged.
    """

    def __str__(self) -> str:
        s = self
        lines = [f"graph: {s['name']}" + (" (directed)" if s.get("directed") else ""),
                 f"  vertices:            {s['vertices']:,}",
                 f"  edges:               {s['edges']:,}",
                 f"  fundamental cycles:  {s['cycles']:,}"]
        if "percent_positive" in s:
            lines.append(f"  positive edges:      {s['positive_edges']:,} ({s['percent_positive']:.2f} %)")
            lines.append(f"  negative edges:      {s['negative_edges']:,}")
            if s.get("zero_sign_edges"):
                lines.append(f"  zero-sign edges:     {s['zero_sign_edges']:,} (kept as positive)")
        if "weight_min" in s:
            lines.append(f"  weights:             {s['weight_min']:g} .. {s['weight_max']:g}")
        lines += [f"  max degree:          {s['max_degree']:,}",
                  f"  mean degree:         {s['mean_degree']:.3f}",
                  f"  components:          {s['components']}"]
        c = s["cleaning"]
        lines.append(f"cleaning ({c['source']}):")
        lines.append(f"  input rows {c['input_rows']:,}, comment lines {c['comment_lines']:,}, "
                     f"distinct vertex ids {c['vertices_in_input']:,}")
        lines.append(f"  self loops {c['self_loops']:,}, zero-sign rows dropped {c['zero_sign_dropped']:,}")
        lines.append(GraphSummary._repeats_line(c))
        lines.append(f"  pairs with both signs {c['conflicting_pairs']:,} (rule '{c['conflict_rule']}': "
                     f"{c['conflict_rows_ignored']:,} later rows ignored, "
                     f"{c['conflict_rows_dropped']:,} rows dropped)")
        lines.append(f"  components in input {c['components']:,} (rule '{c['component_rule']}': "
                     f"{c['vertices_outside_component']:,} vertices and "
                     f"{c['edges_outside_component']:,} edges outside the kept component)")
        lines.append(f"  numbering: {c['numbering']}")
        for role, info in c.get("columns", {}).items():
            lines.append(f"  {role} column: {info['column']!r} ({info['why']})")
        if c.get("header_lines"):
            lines.append(f"  header lines read as column names: {c['header_lines']}")
        if c.get("id_spellings_merged"):
            lines.append(f"  vertex-id spellings merged (ids '{c['ids']}'): {c['id_spellings_merged']:,}")
        lines += [f"  note: {n}" for n in c["notes"]]
        return "\n".join(lines)

    @staticmethod
    def _repeats_line(c: dict[str, Any]) -> str:
        """Repeated pairs with their sign: reverse-direction rows (merged) apart from exact repeats."""
        reverse = c.get("reverse_rows", 0)
        same = c["duplicate_rows"] - reverse
        if not c["duplicate_rows"]:
            return "  repeated pairs: none"
        parts = []
        if reverse:
            parts.append(f"{reverse:,} rows list a pair the other way round (v,u after u,v), "
                         "merged into one undirected edge")
        if same:
            parts.append(f"{same:,} rows repeat a pair in the same direction")
        return f"  repeated pairs with the same sign, {c['duplicate_rows']:,} rows: " + "; ".join(parts)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # IPython and Jupyter show the readable report for a bare ``g.summary()``
        printer.text(str(self) if not cycle else "GraphSummary(...)")


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


class Graph:
    """A graph in CSR form with original vertex labels (see module docstring).

    Build one with :meth:`from_edgelist` or :func:`rapids_balance.read_edgelist`
    rather than calling the constructor.  Every array is read-only.  The
    constructor takes numpy arrays (anything ``numpy.asarray`` reads) or
    arrays of one device namespace (``edge_src`` decides); device arrays
    stay where they are and the host attributes below are copies made on
    first use (see :attr:`on_device`).

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
        The CSR slot(s) of each edge; a host graph derives it from the CSR on
        first use (16 bytes per edge that no search needs).
    sign : numpy.ndarray of int8 or None
        +1/-1 per edge (signed graphs).
    weight : numpy.ndarray of float64 or None
        Weight per edge, when the input had one.
    zero_sign : numpy.ndarray of bool or None
        Edges whose input sign was 0 (stored as +1).
    labels : numpy.ndarray
        Original label of each internal id (int64, uint64 or object).
    on_device : bool
        The arrays live in a device namespace (see :meth:`device_arrays`).
    xp : module
        The array-API namespace of the graph's arrays (numpy's for a host graph).
    cleaning : CleaningReport
        What cleaning did to the input, counted.
    name : str
        The graph's name (by default the file name without suffixes).
    """

    # name -> array in the device namespace, for an on-device graph (None: a host graph)
    _xp_arrays: dict[str, Any] | None = None

    def __init__(self, *, edge_src, edge_dst, n_vertices: int, labels, directed: bool,
                 sign=None, weight=None, zero_sign=None,
                 cleaning: CleaningReport | None = None, name: str = ""):
        self.n = int(n_vertices)
        self.directed = bool(directed)
        self.cleaning = cleaning if cleaning is not None else CleaningReport()
        self.name = name
        self._device = None
        self._label_index = None
        # arrays of a device namespace stay there; their host copies are made on first use
        if _xp.is_device_array(edge_src) or _xp.is_device_array(edge_dst):
            self._keep_on_device(edge_src, edge_dst, labels, sign, weight, zero_sign)
            return
        self.edge_src = _readonly(np.ascontiguousarray(edge_src, dtype=np.int32))
        self.edge_dst = _readonly(np.ascontiguousarray(edge_dst, dtype=np.int32))
        self.m = int(self.edge_src.size)
        self.labels = _readonly(np.asarray(labels))
        self.sign = None if sign is None else _readonly(np.ascontiguousarray(sign, dtype=np.int8))
        self.weight = None if weight is None else _readonly(np.ascontiguousarray(weight, dtype=np.float64))
        # edges whose input sign was 0 (kept as positive, as graphB+ does)
        self.zero_sign = None if zero_sign is None else _readonly(np.asarray(zero_sign, dtype=bool))
        self._build_csr()

    def _keep_on_device(self, edge_src, edge_dst, labels, sign, weight, zero_sign) -> None:
        xp = _xp.namespace(edge_src, edge_dst)

        def kept(a, dtype):  # no copy when the array already has the dtype
            return None if a is None else xp.astype(xp.asarray(a), dtype, copy=False)

        arrays = {"edge_src": kept(edge_src, xp.int32), "edge_dst": kept(edge_dst, xp.int32),
                  "sign": kept(sign, xp.int8), "weight": kept(weight, xp.float64),
                  "zero_sign": kept(zero_sign, xp.bool)}
        if _xp.is_device_array(labels):
            arrays["labels"] = labels
        else:
            self.labels = _readonly(np.asarray(labels))  # e.g. text labels of device codes: host only
        self.m = int(arrays["edge_src"].shape[0])
        arrays.update(csr_arrays(xp, arrays["edge_src"], arrays["edge_dst"], self.n, self.directed))
        self._xp_arrays = arrays

    def _build_csr(self) -> None:
        # edge_slots is derived on first use (see __getattr__): no search reads it
        csr = csr_arrays(_xp.namespace(), self.edge_src, self.edge_dst, self.n, self.directed,
                         edge_slots=False)
        for key, arr in csr.items():
            setattr(self, key, _readonly(arr))

    def __getattr__(self, name: str) -> Any:
        # reached only when normal lookup fails: a host graph's edge_slots, or a host array of an
        # on-device graph, made on first use and kept
        if name == "edge_slots" and self.__dict__.get("_xp_arrays") is None and "slot_edge" in self.__dict__:
            slots = _readonly(edge_slots_from_csr(_xp.namespace(), self.indices, self.slot_edge,
                                                  self.edge_dst, self.directed))
            self.__dict__[name] = slots
            return slots
        arrays = self.__dict__.get("_xp_arrays")
        if arrays is None or name not in arrays:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        arr = arrays[name]
        host = None if arr is None else _readonly(_xp.to_host(arr))
        self.__dict__[name] = host
        return host

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

    @property
    def on_device(self) -> bool:
        """True when the arrays live in a device namespace (CuPy; see :attr:`xp`)."""
        return self._xp_arrays is not None

    @property
    def xp(self) -> ModuleType:
        """The array-API namespace of the graph's arrays: numpy's for a host graph."""
        if self._xp_arrays is None:
            return _xp.namespace()
        return _xp.namespace(self._xp_arrays["edge_src"])

    def device_arrays(self) -> dict[str, Any]:
        """CSR, edge and sign/weight arrays for GPU kernels, by name (cached).

        An on-device graph returns its own arrays (no copy); a host graph
        returns CuPy copies (numpy under the CUDA simulator).
        """
        if self._device is None:
            names = ["indptr", "indices", "slot_edge", "edge_src", "edge_dst", "edge_slots"]
            if self._xp_arrays is not None:
                names += [k for k in ("sign", "weight") if self._xp_arrays[k] is not None]
                self._device = {k: self._xp_arrays[k] for k in names}
                return self._device
            from .backend import to_device

            if self.sign is not None:
                names.append("sign")
            if self.weight is not None:
                names.append("weight")
            # numpy under the simulator: writable copies, because the simulator
            # copies kernel arguments back and refuses read-only arrays
            self._device = {k: to_device(np.array(getattr(self, k)), "gpu") for k in names}
        return self._device

    def device_labels(self) -> Any:
        """The labels where the graph's arrays live: the device array of an on-device
        graph (no copy), else :attr:`labels` (host; also text labels of device codes)."""
        if self._xp_arrays is not None and "labels" in self._xp_arrays:
            return self._xp_arrays["labels"]
        return self.labels

    def edges_frame(self):
        """The edges as a pandas DataFrame with original labels (src, dst, sign/weight)."""
        import pandas as pd

        cols = {"src": self.labels[self.edge_src], "dst": self.labels[self.edge_dst]}
        if self.sign is not None:
            cols["sign"] = self.sign
        if self.weight is not None:
            cols["weight"] = self.weight
        return pd.DataFrame(cols)

    def summary(self) -> "GraphSummary":
        """Vertices, edges, fundamental cycles, % positive, degrees, components, cleaning.

        A dict (JSON-ready); printing it shows a readable report.
        """
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
        return GraphSummary(out)

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


# --- a graph held by a Dask cluster ---------------------------------------------------------

@dataclass(frozen=True)
class ClusterGraph:
    """A graph built and kept on the workers of a Dask cluster: what the client holds of it.

    Made by :func:`rapids_balance.cluster_graph` (or by a
    capability given a Dask DataFrame or a Parquet dataset with ``client=``).
    Its edges never reach the client: the workers read the parts, one builds
    the graph and the others copy it; the client keeps this handle, whose
    fields are what results and messages need.  Pass it to the capabilities
    with the same ``client=``; their whole call then runs on the workers.

    Attributes
    ----------
    key : str
        The Dask key of the built graph.
    fingerprint : str
        Digest of its content (the workers' caches are keyed by it).
    n, m : int
        Vertices and edges.
    name : str
    kind : str
        ``"SignedGraph"`` or ``"Graph"``.
    directed, weighted : bool
    cleaning : CleaningReport
        Every input row accounted for, as for a graph read in one process.
    parts : int
        Number of parts (files or partitions) the edges came in.
    """

    key: str
    fingerprint: str
    n: int
    m: int
    name: str
    kind: str
    directed: bool
    weighted: bool
    cleaning: Any = field(repr=False, compare=False)
    parts: int = 0

    on_device = False  # what the result tables' flavour asks: its tables are pandas

    def __repr__(self) -> str:
        return (f"<ClusterGraph {self.name or '(unnamed)'}: {self.kind}, {self.n} vertices, "
                f"{self.m} edges, kept on the Dask workers ({self.fingerprint[:12]})>")


class OnCluster:
    """An input to be read by the workers of a Dask cluster, not here.

    A capability called with ``client=`` and a Dask DataFrame, a Parquet
    dataset (a folder or a glob) or a :class:`ClusterGraph` is first called
    with its input wrapped in this: the capability checks its parameters as
    always, and its coercion of the input (:func:`rapids_balance.io.as_graph`)
    raises :class:`GraphOnCluster` with the input's parts (their files and
    columns checked) instead of reading it.  Any other input (one the client
    holds: a table, a file, a graph) is coerced here as always and handed
    back built, in :class:`GraphOnCluster` too, for the call to run on a
    worker.
    """

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __repr__(self) -> str:
        return f"OnCluster({self.obj!r})"


class GraphOnCluster(Exception):
    """Raised by the input coercion for an :class:`OnCluster` input: the graph is to be built
    (``parts``: an :class:`rapids_balance.io.EdgeParts`) or is held already (``handle``) on
    the cluster, or (``graph``) was built here from an input the client holds, to be sent.
    Never reaches a user: the caller that wrapped the input catches it.  ``call``: keyword
    arguments the call on the workers takes in place of the user's (a coercion that read a
    role from the edge list says how the built graph is to be read)."""

    def __init__(self, parts: Any = None, handle: ClusterGraph | None = None,
                 call: dict | None = None, graph: Graph | None = None):
        super().__init__("the graph is read on the Dask cluster")
        self.parts = parts
        self.handle = handle
        self.graph = graph
        self.call = dict(call or {})
