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
from typing import Any, Sequence

import numba
import numpy as np

from .._display import Display
from .._xp import COMPILED_MIN_SIZE

__all__ = ["BalanceResult", "ATTRIBUTE_DEFINITIONS", "TableCounters", "compute_attributes", "graphbplus_text", "counter_namespace",
           "zero_counters"]

ATTRIBUTE_DEFINITIONS = ("consensus", "datalab")

EDGE_COUNTERS = ("in_tree", "negative", "switched", "agree2")
VERTEX_COUNTERS = ("status2", "clean")


def zero_counters(n: int, m: int, xp: Any = np) -> dict[str, np.ndarray]:
    """Empty counters for a graph with n vertices and m edges (in namespace ``xp``: numpy or CuPy)."""
    out = {k: xp.zeros(m, dtype=xp.int64) for k in EDGE_COUNTERS}
    out.update({k: xp.zeros(n, dtype=xp.int64) for k in VERTEX_COUNTERS})
    out["trees"] = xp.zeros(1, dtype=xp.int64)
    out["ties"] = xp.zeros(1, dtype=xp.int64)
    return out


def counter_namespace(graph, backend: str) -> Any:
    """Where a run's counters live: the graph's device namespace for a GPU run on a graph kept
    on the device (counters and result tables never leave it), numpy otherwise."""
    if backend == "gpu" and getattr(graph, "on_device", False):
        from array_api_compat import array_namespace

        return array_namespace(graph.device_arrays()["indptr"])
    return np


def _graph_arrays(graph, on_host: bool) -> dict[str, Any]:
    """The graph arrays the attributes read: host arrays, or the graph's device arrays."""
    names = ("indptr", "slot_edge", "edge_src", "edge_dst", "sign")
    if on_host:
        out = {k: getattr(graph, k) for k in names}
        out["zero_sign"] = graph.zero_sign
        return out
    d = graph.device_arrays()
    out = {k: d[k] for k in names}
    if "zero_sign" in d:
        out["zero_sign"] = d["zero_sign"]
    elif graph.on_device:  # read where it lives: graph.zero_sign would copy it to the host
        out["zero_sign"] = graph._xp_arrays.get("zero_sign")
    else:
        from ..backend import to_device

        out["zero_sign"] = None if graph.zero_sign is None else to_device(graph.zero_sign, "gpu")
    return out


@numba.njit(parallel=True, cache=True)
def _incident_sum_host(indptr, slot_edge, per_edge):
    out = np.zeros(indptr.size - 1, np.int64)
    for v in numba.prange(indptr.size - 1):
        acc = 0
        for j in range(indptr[v], indptr[v + 1]):
            acc += per_edge[slot_edge[j]]
        out[v] = acc
    return out


@numba.njit(parallel=True, cache=True)
def _incident_pair_sum_host(indptr, indices, per_vertex):
    # sum over v's edges (v, u) of per_vertex[v] + per_vertex[u], with no per-edge temporary
    out = np.zeros(indptr.size - 1, np.int64)
    for v in numba.prange(indptr.size - 1):
        acc = (indptr[v + 1] - indptr[v]) * per_vertex[v]
        for j in range(indptr[v], indptr[v + 1]):
            acc += per_vertex[indices[j]]
        out[v] = acc
    return out


def _incident_sum(xp, a: dict[str, Any], per_edge: Any) -> Any:
    """Sum of an int64 edge quantity over each vertex's incident edges, exactly.

    Integer sums along the CSR rows (a prefix sum over the slots, differenced
    at the row starts): no floating-point order to depend on, so host and
    device give the same bits.
    """
    if isinstance(per_edge, np.ndarray) and per_edge.size >= COMPILED_MIN_SIZE:  # no slot-sized temporaries
        return _incident_sum_host(a["indptr"], a["slot_edge"], per_edge)
    vals = xp.take(per_edge, xp.astype(a["slot_edge"], xp.int64))
    csum = xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(vals)])
    indptr = xp.astype(a["indptr"], xp.int64)
    return xp.take(csum, indptr[1:]) - xp.take(csum, indptr[:-1])


#: edge column -> (its counter, the counter's denominator in trees)
EDGE_FRACTIONS = {"in_tree": ("in_tree", 1), "negative": ("negative", 1), "switched": ("switched", 1),
                  "agreement": ("agree2", 2)}


@numba.njit(parallel=True, cache=True)
def _fractions_in_place(counts, denominator):
    # the float64 fraction takes the place of its int64 count: no second array of the edges' size
    out = counts.view(np.float64)
    for i in numba.prange(counts.size):
        out[i] = counts[i] / denominator
    return out


def _fractions(counts: np.ndarray, denominator: float) -> np.ndarray:
    """``counts / denominator`` as float64, in place of the counts where they are large enough for
    the memory to matter (numpy's division below: the same correctly rounded quotients, and no
    kernel to compile on a small graph's first call)."""
    if counts.size >= COMPILED_MIN_SIZE:
        return _fractions_in_place(counts, denominator)
    return counts / denominator


class TableCounters(dict):
    """The counters of a host result whose edge counters (and ``status2``) became table columns.

    ``balance()`` writes each edge fraction over its int64 counter, and the
    vertex ``status`` over ``status2`` (8 bytes per edge and counter, and per
    vertex, not held twice); reading such a counter here gives it back from
    its column, exactly (``count = fraction * trees * d``, with ``d`` 2 for
    ``agree2`` and ``status2``: the fraction is a correctly rounded quotient
    of integers far below 2**52), as a fresh int64 array.
    """

    def __init__(self, counters: dict, edges: Any, trees: int, vertices: Any = None):
        # the counters in zero_counters' order, those written over recovered when read
        order = (*EDGE_COUNTERS, *VERTEX_COUNTERS)
        super().__init__({**{k: counters.get(k) for k in order},
                          **{k: v for k, v in counters.items() if k not in order}})
        # the columns as Series: pandas copies a column on write while another Series shares it,
        # so a user's edit of the table does not reach the counters
        self._columns = {key: (edges[col], den * trees) for col, (key, den) in EDGE_FRACTIONS.items()}
        if "status2" not in counters:
            self._columns["status2"] = (vertices["status"], 2 * trees)

    def __getitem__(self, key: str) -> np.ndarray:
        value = super().__getitem__(key)
        if value is None:
            column, scale = self._columns.pop(key)
            if hasattr(column, "compute"):  # a column of the edge table kept on a Dask cluster
                column = column.compute()
            value = np.rint(column.to_numpy() * scale).astype(np.int64)
            super().__setitem__(key, value)
        return value

    def detached(self) -> "TableCounters":
        """These counters without those the edge table holds: pickled, they travel without
        them (the edge table stays where it is); :meth:`attach` names the table again."""
        out = dict.__new__(TableCounters)
        dict.update(out, {k: (None if k in self._edge_keys() else self[k]) for k in self})
        out._columns = {k: (None, scale) for k, (_, scale) in self._columns.items()
                        if k in self._edge_keys()}
        return out

    def _edge_keys(self) -> set:
        return {key for key, _ in EDGE_FRACTIONS.values() if dict.get(self, key) is None}

    def attach(self, edges: Any) -> None:
        """Recover the edge counters from ``edges`` (a Dask DataFrame of the edge table) when read."""
        for col, (key, _) in EDGE_FRACTIONS.items():
            if key in self._columns:
                self._columns[key] = (edges[col], self._columns[key][1])

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def items(self):
        return [(k, self[k]) for k in self]

    def values(self):
        return [self[k] for k in self]

    def __reduce__(self):
        if any(column is None for column, _ in self._columns.values()):  # detached
            return _detached_counters, (dict(dict.items(self)), dict(self._columns))
        return dict, (dict(self.items()),)


def _detached_counters(values: dict, columns: dict) -> TableCounters:
    out = dict.__new__(TableCounters)
    dict.update(out, values)
    out._columns = columns
    return out


def compute_attributes(graph, counters: dict[str, np.ndarray], attributes: str = "consensus",
                       consume: bool = False):
    """Vertex and edge tables from the counters (see :func:`balance` for formulas).

    Counters on the device (a GPU run on a graph kept on the device) give
    cuDF tables built from device arrays; host counters give pandas tables
    (cuDF for a graph kept on the device), through :func:`_output.make_table`.
    Incident sums are exact integer sums, so every backend gives the same bits.
    With ``consume`` host edge counters and ``status2`` are turned into
    their float64 fractions in place (``counters`` then no longer holds
    them: see :class:`TableCounters`).
    """
    from array_api_compat import array_namespace

    from .._output import make_table, wants_device

    if attributes not in ATTRIBUTE_DEFINITIONS:
        raise ValueError(f"attributes must be one of {ATTRIBUTE_DEFINITIONS}, got {attributes!r}")
    xp = array_namespace(counters["status2"])
    on_host = isinstance(counters["status2"], np.ndarray)
    a = _graph_arrays(graph, on_host)
    f64 = xp.float64
    T = int(counters["trees"][0])
    in_place = consume and on_host and not wants_device(graph)
    # int32 ids index as well as int64 ones: no 16 bytes per edge of widened copies
    src, dst = a["edge_src"], a["edge_dst"]
    indptr = xp.astype(a["indptr"], xp.int64)
    degree = xp.astype(indptr[1:] - indptr[:-1], f64)
    influence = xp.astype(_incident_sum(xp, a, counters["agree2"]), f64) / (2.0 * T)
    if attributes == "consensus":
        influence = influence / degree
        # mean over v's edges of (status(u) + status(v)) / 2 = sum(status2[u] + status2[v]) / (4T deg)
        if on_host and graph.m >= COMPILED_MIN_SIZE:
            status4 = _incident_pair_sum_host(a["indptr"], graph.indices, counters["status2"])
        else:
            edge_status4 = xp.take(counters["status2"], src) + xp.take(counters["status2"], dst)
            status4 = _incident_sum(xp, a, edge_status4)
            del edge_status4  # 8 bytes per edge, not kept while the tables are built
        authority = xp.astype(status4, f64) / (4.0 * T) / degree
        del status4  # 8 bytes per vertex, not kept while the edge columns are made
    else:  # datalab
        authority = xp.astype(counters["clean"], f64) / float(T)
    # the last reader of status2 is done: its fraction may take its place
    status = (_fractions(counters.pop("status2"), 2.0 * T) if in_place
              else xp.astype(counters["status2"], f64) / (2.0 * T))
    if on_host:
        from .._xp import gather

        vertex = graph.labels.copy()  # the table's own copy (the graph's labels are read-only)
    else:
        from ..io._device import device_labels_column

        vertex = device_labels_column(graph)
    vertices = make_table({"vertex": vertex, "status": status, "influence": influence,
                           "authority": authority}, like=graph, copy=not on_host)
    # the vertex temporaries go before the per-edge columns are made
    del vertex, status, influence, authority, degree, indptr
    sign = xp.astype(a["sign"], xp.int8)
    if a["zero_sign"] is not None:
        sign = xp.where(a["zero_sign"], xp.zeros_like(sign), sign)
    if on_host:
        src_lab, dst_lab = gather(graph.labels, graph.edge_src), gather(graph.labels, graph.edge_dst)
    else:
        src_lab, dst_lab = device_labels_column(graph, src), device_labels_column(graph, dst)
    if in_place:
        fractions = {col: _fractions(counters.pop(key), float(den * T))
                     for col, (key, den) in EDGE_FRACTIONS.items()}
    else:
        fractions = {col: xp.astype(counters[key], f64) / float(den * T)
                     for col, (key, den) in EDGE_FRACTIONS.items()}
    edges = make_table(copy=False, like=graph,  # fresh columns: the table keeps them
                       columns={"src": src_lab, "dst": dst_lab, "sign": sign, **fractions})
    return vertices, edges


def _label_text(x: Any) -> str:
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return str(int(x))
    return str(x)


#: the vertex header of the graphB+ file per ``majority`` (graphB+'s own line for its own rule)
GRAPHBPLUS_VERTEX_HEADER = {"agreeable": "original node ID, percentage node was in agreeable majority",
                            "larger": "original node ID, percentage node was on the larger Harary side"}


def graphbplus_text(graph, counters: dict[str, np.ndarray], majority: str = "agreeable") -> str:
    """The graphB+ v0.2 output file as a string (see :meth:`BalanceResult.write_graphbplus`)."""
    T = int(counters["trees"][0])
    labels = [_label_text(x) for x in graph.labels.tolist()]
    status2 = counters["status2"].tolist()
    lines = [GRAPHBPLUS_VERTEX_HEADER[majority]]
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
class BalanceResult(Display):
    """Attributes of a signed graph over T sampled nearest balanced states.

    Attributes
    ----------
    vertices : pandas.DataFrame or cudf.DataFrame
        ``vertex`` (original label), ``status``, ``influence``, ``authority``.
        cuDF when the input was cuDF or the graph is kept on the device.
    edges : pandas.DataFrame or cudf.DataFrame
        ``src``, ``dst`` (original labels, each undirected edge once),
        ``sign`` (input sign; 0 for an input 0, balanced as +1), ``in_tree``,
        ``negative``, ``switched``, ``agreement``.
    n_trees : int
        Number of trees T.
    params : dict
        The arguments the result was computed with (backend resolved).
    counters : dict of numpy.ndarray or device arrays
        The integer counters behind the attributes (see module docstring);
        CuPy arrays after a GPU run on a graph kept on the device.  After a
        host run the edge counters are not held twice: each fraction of the
        edge table was written over its counter, and the counter is
        recovered from that column, exactly, when first read
        (:class:`TableCounters`; it pickles as a plain dict).
    graph : SignedGraph or ClusterGraph
        The graph balanced (its handle, for a graph kept on a Dask cluster).
    info : dict
        With ``client=``: ``seconds_compile_workers``, each worker's seconds
        compiling (or loading) the kernels, all workers at once, before the
        trees ran (0 on a worker that had them).
    """

    vertices: Any
    edges: Any
    n_trees: int
    params: dict
    counters: dict = field(repr=False)
    graph: Any = field(repr=False)
    info: dict = field(default_factory=dict, repr=False)

    @property
    def frustration_mean(self) -> float:
        """Mean number of switched edges per tree (each tree's frustration, averaged)."""
        return float(self.counters["switched"].sum()) / self.n_trees

    @property
    def tied_trees(self) -> int:
        """Trees whose two Harary sides had the same size."""
        return int(self.counters["ties"][0])

    def __getstate__(self) -> dict:
        # pickled (sent from a Dask worker), the edge counters stay in the edge table's
        # columns they were written over, not sent a second time as int64 arrays
        state = dict(self.__dict__)
        if isinstance(self.counters, TableCounters) and self.edges is not None:
            state["counters"] = self.counters.detached()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if isinstance(self.counters, TableCounters) and self.edges is not None:
            self.counters.attach(self.edges)

    def detach_tables(self, fields: Sequence[str]) -> "BalanceResult":
        """A copy without its edge table (and the counters that table holds), for a result kept
        on a Dask worker whose edge table the caller reads as a Dask DataFrame."""
        import copy

        out = copy.copy(self)
        out.edges = None
        if isinstance(self.counters, TableCounters):
            out.counters = self.counters.detached()
        return out

    def attach_tables(self, tables: dict) -> None:
        """The edge table (a Dask DataFrame) back in its place; its counters are read from it."""
        self.edges = tables["edges"]
        if isinstance(self.counters, TableCounters):
            self.counters.attach(self.edges)

    def graphbplus_text(self) -> str:
        """The graphB+ v0.2 output file as a string."""
        return graphbplus_text(self.graph, self.counters, self.params.get("majority") or "agreeable")

    def write_graphbplus(self, path: str | os.PathLike) -> None:
        """Write graphB+ v0.2's output file (``graphBplus_02.cpp``, byte layout).

        The line ``original node ID, percentage node was in agreeable
        majority``, one ``id,pct`` row per vertex in internal-id order, the
        line ``source node ID, destination node ID, percentage edge was in
        tree, percentage edge was negative``, then one ``src,dst,pct,pct``
        row per undirected edge (smaller internal id first); percentages have
        one decimal, ``100.0 * count / T`` rounded as C's ``printf("%.1f")``.
        The vertex percentage is the status under this result's ``majority``
        (graphB+ uses ``majority="agreeable"``); under ``majority="larger"``
        the first line says ``percentage node was on the larger Harary side``
        instead, so the file never claims graphB+'s rule it did not use.

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

    def _display(self):
        p = self.params
        return ("BalanceResult", [("vertices", self.graph.n), ("edges", self.graph.m), ("trees", self.n_trees),
                                  ("method", p.get("method")), ("majority", p.get("majority")),
                                  ("mean frustration", self.frustration_mean), ("tied trees", self.tied_trees)],
                [("vertices", self.vertices), ("edges", self.edges)])

    def __repr__(self) -> str:
        p = self.params
        return (f"<BalanceResult: {self.graph.n} vertices, {self.graph.m} edges, {self.n_trees} trees, "
                f"method={p.get('method')!r}, majority={p.get('majority')!r}, "
                f"mean frustration {self.frustration_mean:.2f}>")
