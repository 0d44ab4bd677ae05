"""Weighted node and edge betweenness centrality (Brandes, exact or sampled).

The sources are cut into fixed leaves (a function of the data and the
backend); :func:`_bc_partial` computes one leaf (a pure function of the graph,
the sources and the parameters) and the leaves are folded along one fixed tree
(``SPLIT_EVERY`` per node), locally or on a Dask cluster, where a task folds a
whole subtree (:func:`_bc_subtree`), then normalised exactly as networkx does
(the parameters, the sources and the rescaling by networkx's rules are
:mod:`._setup`'s).
"""

from __future__ import annotations

import copy
import dataclasses
import time
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .._display import Display
from .._output import frames_like_input, label_column, make_table
from ..backend import resolve_backend
from ..distributed._run import on_workers
from ..errors import GraphInputError
from ..io._roles import check_roles
from ._input import BCGraph, coerce_input
from ._setup import (_check_params, _rescale, _sources, _vertex_ids,  # noqa: F401 (callers)
                     draw_like_networkx)

__all__ = ["betweenness_centrality", "edge_betweenness_centrality", "betweenness_centrality_subset",
           "edge_betweenness_centrality_subset"]

# sources per chunk: one thread (CPU) runs a chunk in order into its own
# accumulator row; the GPU runs one source per thread block and folds the
# sources into one accumulator (its batches: the occupancy model of ._gpu)
_CHUNK = {"cpu": 8, "gpu": 1}
# accumulator rows plus per-chunk workspace of one CPU batch stay under this
_BATCH_BUDGET = {"cpu": 256 * 2**20}
_MAX_ROWS = {"cpu": 64}
# the CPU batches are the leaves of a fixed reduction tree (SPLIT_EVERY leaves per node):
# at least _MIN_BATCHES of them where each keeps _MIN_BATCH_ROWS chunks (k=500 is 16 leaves
# of 32 sources, not one), so a cluster has leaves to spread, and the tree, the same in one
# process and on any cluster, holds SPLIT_EVERY partials per level, not one per leaf.  A leaf
# is a rounding boundary, not a unit of work: one kernel call computes the chunk rows of as
# many leaves as the budget allows (one parallel region, not one per leaf: on two busy cores
# each region's start and end barrier cost 0.4 s of k=500's 1.3 s)
_MIN_BATCHES = 16
_MIN_BATCH_ROWS = 4
SPLIT_EVERY = 8
# unit lengths on the CPU: sources per bit-parallel BFS block (a power of two
# up to 64) while a thread's path counts and dependencies (16 bytes per vertex
# and source) stay under this; below 8 sources per block: one BFS per source
_BITSET_BUDGET = 128 * 2**20
_BITSET_MIN = 8


# ---------------------------------------------------------------------------
# the scale-out hook: one batch of sources
# ---------------------------------------------------------------------------

def _bc_partial(graph: BCGraph, sources: np.ndarray, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalised node and edge dependencies summed over ``sources``.

    Parameters
    ----------
    graph : BCGraph
        The prepared graph (see ``_input.BCGraph``).
    sources : int array
        Internal ids of the sources of this batch, in the order they are summed.
    params : dict
        ``backend`` ("cpu"/"gpu"), ``endpoints``, ``edges`` (compute edge
        scores), ``chunk``, ``targets`` (optional int8 mask of the target
        vertices; absent: every vertex); CPU only: ``bitset`` (unit lengths:
        each chunk of at most 64 sources is one bit-parallel BFS); GPU only:
        ``vwidth``, ``threads``, ``blocks`` (thread blocks per source; absent:
        the occupancy model's choice), none of which changes the result: the
        GPU folds the sources in order, whatever ``chunk`` says.

    Returns
    -------
    (node, edge) : float64 arrays of length n and m (m = 0 without ``edges``)
    """
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    chunk = int(params.get("chunk", 8))
    want_edges = bool(params.get("edges", False))
    endpoints = bool(params.get("endpoints", False))
    tmask = params.get("targets")
    tmask = np.zeros(0, np.int8) if tmask is None else np.ascontiguousarray(tmask, dtype=np.int8)
    if params.get("backend", "cpu") == "gpu":
        fold = _gpu_fold(graph, params, max(int(sources.size), 1))
        fold.add(sources)
        return fold.result()
    from ._cpu import bc_batch_cpu

    node = np.zeros(graph.n)
    edge = np.zeros(graph.m if want_edges else 0)
    bc_batch_cpu(sources, chunk, graph.n, graph.indptr, graph.indices, graph.wslot, graph.slot_edge,
                 graph.rindptr, graph.rindices, graph.rwslot, graph.rslot_edge, graph.directed,
                 int(params.get("nbuckets", graph.nbuckets)), endpoints, want_edges, tmask, node, edge,
                 bitset=bool(params.get("bitset", False)))
    return node, edge


def _unit_lengths(graph: BCGraph) -> bool:
    # Dial's two buckets: every length is the integer 1 (or there is no edge)
    return graph.nbuckets == 2


def _bitset_width(n: int) -> int:
    """Sources per bit-parallel BFS block for ``n`` vertices (0: one BFS per source)."""
    width = 64
    while width >= _BITSET_MIN and 16 * width * n > _BITSET_BUDGET:
        width //= 2
    return width if width >= _BITSET_MIN else 0


def _params(graph: BCGraph, backend: str, *, endpoints: bool, edges: bool,
            targets: np.ndarray | None = None) -> dict:
    """Kernel parameters of one computation: fixed by the data and the backend, never by threads."""
    params = {"backend": backend, "endpoints": bool(endpoints), "edges": bool(edges), "chunk": _CHUNK[backend]}
    if targets is not None:
        params["targets"] = targets
    width = _bitset_width(graph.n) if backend == "cpu" and targets is None and _unit_lengths(graph) else 0
    if width:
        params.update(chunk=width, bitset=True)
    return params


def _gpu_fold(graph: BCGraph, params: dict, batch: int):
    """The device accumulators of one GPU computation (``._gpu_fold.BetweennessFold``)."""
    from ._gpu import virtual_warp_width
    from ._gpu_fold import BetweennessFold

    vw = int(params.get("vwidth") or virtual_warp_width(graph.n, graph.indices.size))
    threads = int(params.get("threads") or _gpu_threads(vw))
    tmask = params.get("targets")
    tmask = None if tmask is None else np.ascontiguousarray(tmask, dtype=np.int8)
    blocks = params.get("blocks")
    return BetweennessFold(graph, batch, bool(params.get("endpoints", False)),
                           bool(params.get("edges", False)), vw, threads, tmask,
                           blocks=None if blocks is None else int(blocks))


def _gpu_threads(vw: int) -> int:
    from ..backend import simulator_enabled

    from ._gpu import BLOCK_THREADS

    # the simulator runs every thread as a Python thread: keep blocks small there
    return max(vw, 32) if simulator_enabled() else max(vw, BLOCK_THREADS)


def _batches(sources: np.ndarray, n: int, nnz: int, m_acc: int, backend: str,
             chunk: int, distributed: bool = False) -> list[np.ndarray]:
    """Fixed batches: a function of the data and the backend, never of threads.

    A batch is ``rows`` chunks; each chunk needs an accumulator row of
    ``n + m_acc`` float64 and its workspace (CPU: distances, counts,
    dependencies, queue, DAG; GPU: the same without the DAG, plus queues).
    On the CPU the estimate fixes the batch boundaries and so the order of
    the floating-point sums: changing it changes results in the last bits.
    The GPU folds sources one by one into one accumulator, so its batches
    (the sources of one launch, :func:`._gpu.sources_in_flight` for the
    current device) change nothing but speed; on a Dask cluster its batch
    partials are summed per batch, so there the reference device fixes them.
    """
    size, _ = _leaf_cut(sources.size, n, nnz, m_acc, backend, chunk, distributed)
    return [sources[i:i + size] for i in range(0, sources.size, size)]


def _leaf_cut(n_sources: int, n: int, nnz: int, m_acc: int, backend: str, chunk: int,
              distributed: bool = False) -> tuple[int, int]:
    """(sources per leaf of :func:`_batches`, chunk rows one CPU kernel call may hold)."""
    if backend == "gpu":
        from ._gpu import REFERENCE_DEVICE, device_limits, sources_in_flight

        limits = REFERENCE_DEVICE if distributed else device_limits()
        return sources_in_flight(n, nnz, m_acc, *limits), 1
    work = 45 * n + 8 * nnz
    row_bytes = 8 * (n + m_acc) + work
    rows = max(1, min(_MAX_ROWS[backend], _BATCH_BUDGET[backend] // max(row_bytes, 1)))
    spread = max(_MIN_BATCH_ROWS, -(-n_sources // (_MIN_BATCHES * chunk)))
    return min(rows, spread) * chunk, rows


def _bc_leaves(graph: BCGraph, sources: np.ndarray, params: dict, bar=None):
    """The partials of the leaves of ``sources`` (runs of ``params["leaf"]`` sources), in order.

    Each is :func:`_bc_partial` of its leaf, bit for bit; on the CPU one
    kernel call computes the chunk rows of as many whole leaves as
    ``params["rows"]`` allows, then sums each leaf's rows (one parallel
    region each, however small the leaves).
    """
    leaf = int(params["leaf"])
    if params.get("backend", "cpu") != "cpu":
        for i in range(0, sources.size, leaf):
            part = _bc_partial(graph, sources[i:i + leaf], params)
            if bar is not None:
                bar.update(min(leaf, sources.size - i))
            yield part
        return
    from ._cpu import bc_rows_cpu, sum_row_groups

    chunk = int(params["chunk"])
    per_leaf = leaf // chunk  # a leaf is whole chunks (the last leaf may be shorter)
    per_call = max(1, int(params["rows"]) // per_leaf) * leaf
    want_edges = bool(params.get("edges", False))
    tmask = params.get("targets")
    tmask = np.zeros(0, np.int8) if tmask is None else np.ascontiguousarray(tmask, dtype=np.int8)
    for a in range(0, sources.size, per_call):
        part = np.ascontiguousarray(sources[a:a + per_call], dtype=np.int64)
        node_rows, edge_rows = bc_rows_cpu(
            part, chunk, graph.n, graph.indptr, graph.indices, graph.wslot, graph.slot_edge,
            graph.rindptr, graph.rindices, graph.rwslot, graph.rslot_edge, graph.directed,
            int(params.get("nbuckets", graph.nbuckets)), bool(params.get("endpoints", False)),
            want_edges, tmask, graph.m, bitset=bool(params.get("bitset", False)),
            wide=params.get("wide"))
        nodes = sum_row_groups(node_rows, per_leaf)
        del node_rows
        edges = sum_row_groups(edge_rows, per_leaf) if want_edges else None
        del edge_rows
        if bar is not None:
            bar.update(part.size)
        for i in range(nodes.shape[0]):
            yield nodes[i], (edges[i] if want_edges else np.zeros(0))


def _bc_subtree(graph: BCGraph, sources: np.ndarray, params: dict, bar=None
                ) -> tuple[np.ndarray, np.ndarray]:
    """The leaves of ``sources`` folded along the fixed tree: one task on a cluster.

    For the leaves of one aligned subtree (``SPLIT_EVERY ** j`` consecutive
    leaves from a multiple of that count, or the rest at the end) this is
    that subtree's node of the tree over every leaf, so a cluster that folds
    these results with ``split_every=SPLIT_EVERY`` gets the single-process
    root bit for bit (:func:`~rapids_balance.distributed._run.tree_task_span`).
    """
    from ..distributed._run import stream_reduce

    return stream_reduce(_bc_leaves(graph, sources, params, bar), split_every=SPLIT_EVERY)


def _run(graph: BCGraph, sources: np.ndarray, params: dict, *, progress: bool, client,
         desc: str, info: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Summed (node, edge) dependencies of ``sources``; with ``client``, every worker first
    readies its kernels (``info["seconds_compile_workers"]``: its seconds)."""
    from .._progress import progress_bar
    from ..distributed._run import ready_on_workers, run_batches, tree_task_span

    m_acc = graph.m if params["edges"] else 0
    leaf, rows = _leaf_cut(sources.size, graph.n, graph.indices.size, m_acc, params["backend"],
                           params["chunk"], distributed=client is not None)
    node = np.zeros(graph.n)
    edge = np.zeros(m_acc)
    if client is not None:
        # every worker compiles (or loads) the batches' kernels at once, before its first batch
        workers_s = ready_on_workers(client, _ready_betweenness, _kernel_kind(graph, params))
        if info is not None:
            info["seconds_compile_workers"] = workers_s
        # a task per aligned subtree of leaves (how many leaves: from the cluster's size),
        # folded along the upper levels of the same tree as the local loop: the same float
        # additions, bit for bit, for any number of workers
        span = leaf * tree_task_span(client, -(-sources.size // leaf), SPLIT_EVERY)
        tasks = [sources[i:i + span] for i in range(0, sources.size, span)]
        nb, eb = run_batches(client, graph, _bc_subtree, tasks, dict(params, leaf=leaf, rows=rows),
                             split_every=SPLIT_EVERY, progress=progress, desc=desc)
        return node + nb, edge + eb
    if params["backend"] == "gpu":
        # one device accumulator across batches: a left fold over the sources
        fold = _gpu_fold(graph, params, max(min(leaf, sources.size), 1))
        with progress_bar(sources.size, desc, enabled=progress, unit="src") as bar:
            for i in range(0, sources.size, leaf):
                b = sources[i:i + leaf]
                fold.add(b)
                bar.update(b.size)
        return fold.result()
    if not sources.size:
        return node, edge
    with progress_bar(sources.size, desc, enabled=progress, unit="src") as bar:
        nb, eb = _bc_subtree(graph, sources, dict(params, leaf=leaf, rows=rows), bar)
    return node + nb, edge + eb


def _kernel_kind(graph: BCGraph, params: dict) -> tuple:
    """What fixes the type signatures of ``params``' batches on ``graph`` (small, hashable):
    the parameters without the target mask, whether there is one, and the graph's direction,
    Dial's bucket count and distance width."""
    from ._cpu import wide_distances

    kind = {k: v for k, v in params.items() if k != "targets"}
    kind.update(targets="targets" in params, directed=bool(graph.directed),
                nbuckets=int(graph.nbuckets), wide=wide_distances(graph.n, graph.nbuckets))
    return tuple(sorted(kind.items()))


def _ready_betweenness(kind: tuple) -> float:
    """A worker's kernels for the batches of :func:`_kernel_kind` ``kind``, compiled or
    loaded once per process (:mod:`rapids_balance._ready`); its seconds.

    The batches run on a tiny graph built by the same code as any graph, so
    its arrays have the real graph's types; the code path (bit-parallel BFS,
    Dial's buckets and their distance width, or the heap) is the real one's,
    not the one the tiny graph's unit lengths would choose; on the GPU both
    the one-block and the split kernels run (the occupancy model picks
    either, per batch).
    """
    from .._ready import ready, tiny_backend, tiny_signed_graph
    from ..graph import build_graph

    p = dict(kind)
    if tiny_backend(p["backend"]) != p["backend"]:
        return 0.0  # numba's CUDA simulator: its kernels are Python, nothing to compile

    def job() -> None:
        tiny = tiny_signed_graph()
        g = build_graph(tiny.edge_src, tiny.edge_dst, directed=p["directed"])
        twin = BCGraph.from_graph(g, None)  # unit lengths: right for every path
        params = {k: v for k, v in p.items() if k not in ("targets", "directed")}
        if p["targets"]:
            params["targets"] = (np.arange(g.n) % 2).astype(np.int8)
        for blocks in ((None,) if p["backend"] == "cpu" else (1, 2)):
            _run(twin, np.arange(g.n, dtype=np.int64), dict(params, blocks=blocks),
                 progress=False, client=None, desc="ready")

    return ready(("betweenness", kind), job)


# ---------------------------------------------------------------------------
# the prepared graph (parameters, sources and rescaling: ._setup)
# ---------------------------------------------------------------------------

def _prepare(owner: str, graph, p: dict[str, Any], for_edges: bool):
    """Checked parameters -> (backend, Graph, BCGraph)."""
    roles = check_roles(graph, owner, {"source": p["source"], "target": p["target"], "sign": p["sign"]})
    be = resolve_backend(p["backend"])
    g, lengths = coerce_input(graph, p["weight"], p["directed"], for_edges=for_edges, **roles)
    if g.n == 0:
        raise GraphInputError("the graph has no vertices")
    return be, g, BCGraph.from_graph(g, lengths)


def _setup(owner: str, graph, p: dict[str, Any], for_edges: bool):
    """Checked parameters -> (backend, Graph, BCGraph, sources, sampled)."""
    be, g, bg = _prepare(owner, graph, p, for_edges)
    sources, sampled = _sources(g, p["k"], p["seed"], owner)
    return be, g, bg, sources, sampled


# ---------------------------------------------------------------------------
# scores from a prepared graph (shared by the public API and the networkx backend)
# ---------------------------------------------------------------------------

def node_scores(bg: BCGraph, sources: np.ndarray, *, sampled: bool, normalized: bool, endpoints: bool,
                backend: str, progress: bool = False, client: Any = None,
                info: dict | None = None) -> np.ndarray:
    """Rescaled node betweenness over ``sources`` (networkx's ``betweenness_centrality``).

    ``sampled``: the sources are a sample (rescaled as networkx rescales
    ``k`` sources; a sample of every vertex is the exact computation).
    Scale factors are Python floats, so a sample of no source raises
    :class:`ZeroDivisionError` where networkx does.  ``info``: filled as :func:`_run` fills it.
    """
    params = _params(bg, backend, endpoints=endpoints, edges=False)
    node, _ = _run(bg, sources, params, progress=progress, client=client, desc="betweenness",
                   info=info)
    return _rescaled_nodes(bg, node, sources, sampled=sampled, normalized=normalized, endpoints=endpoints)


def _rescaled_nodes(bg: BCGraph, node: np.ndarray, sources: np.ndarray, *, sampled: bool, normalized: bool,
                    endpoints: bool) -> np.ndarray:
    """networkx's rescaling of summed node dependencies (``k`` sources or exact)."""
    kk = sources.size if sampled else None
    if kk == bg.n:  # as networkx: sampling every vertex is the exact computation
        kk = None
    is_src = None
    if kk is not None:
        is_src = np.zeros(bg.n, bool)
        is_src[sources] = True
    return np.asarray(_rescale(node, bg.n, normalized=normalized, directed=bg.directed,
                               endpoints=bool(endpoints), k=kk, is_source=is_src), np.float64)


def edge_scores(bg: BCGraph, sources: np.ndarray, *, sampled: bool, normalized: bool, backend: str,
                progress: bool = False, client: Any = None, info: dict | None = None) -> np.ndarray:
    """Rescaled edge betweenness over ``sources``, one value per edge of ``bg`` (edge order)."""
    params = _params(bg, backend, endpoints=False, edges=True)
    _, edge = _run(bg, sources, params, progress=progress, client=client, desc="edge betweenness",
                   info=info)
    return np.asarray(_rescale(edge, bg.n, normalized=normalized, directed=bg.directed, endpoints=True,
                               k=sources.size if sampled else None, is_source=None), np.float64)


def subset_scores(bg: BCGraph, sources: np.ndarray, targets: np.ndarray, *, edges: bool,
                  normalized: bool, backend: str, progress: bool = False,
                  client: Any = None, info: dict | None = None) -> np.ndarray:
    """networkx's ``(edge_)betweenness_centrality_subset`` over internal ids.

    ``sources`` may repeat (each occurrence counts, as in networkx);
    ``targets`` is a set.  Node scores are rescaled with ``endpoints=False``
    and edge scores with ``endpoints=True``, as networkx does.
    """
    tmask = np.zeros(bg.n, np.int8)
    tmask[np.asarray(targets, np.int64)] = 1
    params = _params(bg, backend, endpoints=False, edges=edges, targets=tmask)
    node, edge = _run(bg, np.asarray(sources, np.int64), params, progress=progress, client=client,
                      desc="edge betweenness" if edges else "betweenness", info=info)
    vals = edge if edges else node
    return np.asarray(_rescale(vals, bg.n, normalized=normalized, directed=bg.directed,
                               endpoints=bool(edges), k=None, is_source=None), np.float64)


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------

@on_workers
@frames_like_input()
def betweenness_centrality(graph: Any, k: int | Sequence | None = None, *, normalized: bool = True,
                           weight: str | None | Callable | np.ndarray = None,
                           endpoints: bool = False, seed: int | None = None,
                           directed: bool | None = None, backend: str = "auto",
                           progress: bool | None = None, client: Any = None, source: Any = None,
                           target: Any = None, sign: Any = None) -> pd.DataFrame:
    r"""Shortest-path betweenness centrality of every vertex, weighted or not.

    .. math::

       c_B(v) = \sum_{s,t \in V} \frac{\sigma(s, t|v)}{\sigma(s, t)}

    where :math:`\sigma(s, t)` is the number of shortest :math:`(s, t)`-paths
    and :math:`\sigma(s, t|v)` the number of those passing through a vertex
    :math:`v` other than :math:`s, t` (:math:`\sigma(s, s) = 1`, and with
    ``endpoints=True`` :math:`v` may be :math:`s` or :math:`t`).  Values,
    normalisation and the treatment of undirected graphs are those of
    :func:`networkx.betweenness_centrality`.

    Parameters
    ----------
    graph : Graph, SignedGraph, DataFrame, networkx graph or cuGraph graph
        Edge lists (pandas, cuDF, polars, pyarrow) are read from columns
        ``src``/``source`` and ``dst``/``target``/``destination`` (else the
        first two columns); they build an undirected graph unless
        ``directed=True``, keep every component, and keep the first row of a
        repeated pair.  networkx nodes without edges are kept (score 0).
    k : int, sequence of vertices or None, optional
        ``None``: every vertex is a source (exact).  An int in ``[1, n]``:
        that many source vertices drawn at random without replacement with
        ``seed``; the result estimates the exact one and is rescaled as
        networkx does.  A non-empty sequence of distinct vertex labels:
        exactly those sources (as cuGraph).
    normalized : bool, default True
        Divide by the number of (source, target) pairs; else undirected
        scores are halved (each pair counted once).
    weight : str, None, array or callable, default None
        Edge *lengths* (a path's length is the sum of its edges' lengths).
        ``None`` (the default, as in networkx and cuGraph): every edge has
        length 1 (BFS levels, same code).  A string
        names the column / edge attribute; a missing ``"weight"`` means
        length 1 as in networkx, except for a :class:`SignedGraph` without
        weights, which must say how signs map to lengths.  ``"abs"``: the
        absolute value of the weight (of the ``weight`` column, else the third
        column of an edge list).  An array: one length per edge of a
        :class:`Graph`, in its edge order.  A callable: applied to the edges
        DataFrame (``graph.edges_frame()``, or the edge list itself), returning
        the lengths; for a networkx graph it is networkx's
        ``weight(u, v, data)`` (``None`` hides the edge).  Lengths must be
        positive and finite; zero, negative, NaN or infinite lengths raise
        :class:`GraphInputError` (see Notes).
    endpoints : bool, default False
        Count the end vertices of each path.
    seed : int, None, random.Random, numpy Generator or RandomState, optional
        Seed of the source sampler when ``k`` is an int: an int in
        ``[0, 2**63 - 1]`` (our counter-based sampler, the rule of every
        seeded function), ``None`` (as in networkx: a fresh sample on every
        call), or a random-number generator object, from which the sources
        are drawn exactly as networkx draws them (``seed.sample(list(G), k)``;
        numpy generators need networkx installed).
    directed : bool or None, optional
        ``None`` follows the input; for an edge list ``True`` builds a
        directed graph.  A graph object must already have this direction.
    backend : {"auto", "cpu", "gpu"}, default "auto"
    progress : bool or None, default None
        Show a progress bar over sources (stderr). None: only when stderr is a terminal
        (a few plain lines in a log with True, nothing with False).
    client : dask.distributed.Client, optional
        Run the source batches on a Dask cluster (each worker runs the
        kernels of ``backend``); the result is bit-identical to a local run
        with the same backend.  With a client, ``graph`` may also be a
        :class:`~rapids_balance.ClusterGraph`, a Dask DataFrame or a Parquet
        dataset (a folder or a glob): the workers read the edges and build
        the graph this function builds from the same rows in one process,
        and the whole call runs on a worker (a length ``weight`` given as a
        callable, an array or ``"abs"`` is refused for a Dask DataFrame).
    source, target, sign : str or int, optional
        Column roles when ``graph`` is a table or a file: a column name or a
        0-based position; ``None``: recognised names (see ``graph``).  Refused
        with a built :class:`~rapids_balance.graph.Graph`.  (``weight``
        above names the length column.)

    Returns
    -------
    pandas.DataFrame
        Columns ``vertex`` (original labels) and ``betweenness_centrality``
        (float64), one row per vertex, in the graph's vertex order (a cuDF
        DataFrame for a cuDF input or a graph kept on the device).
        ``attrs["info"]`` (a dict) says how it was computed: ``backend``
        (``"cpu"`` or ``"gpu"``), ``sources`` (how many), ``sampled``
        (whether they were drawn at random: an int ``k``), ``seconds`` (the
        whole call, reading the input included; on a worker for a graph on
        the cluster) and, with ``client=``, ``seconds_compile_workers``:
        ``{worker address: seconds}`` each worker spent compiling (or
        loading from numba's cache) the kernels of the call, all workers at
        once before the first batch (0 on a worker that had them).  pandas
        and cuDF copy ``attrs`` into the tables derived from this one (it
        still describes this computation) and keep it in a ``concat`` only
        of tables whose ``attrs`` are equal.  A Dask DataFrame
        (``as_dask=True``) has no ``attrs``; the tables it computes carry
        them.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is
        read; ``k`` above the number of vertices or naming an unknown
        vertex, right after).
    GraphInputError
        Unusable input or lengths (zero, negative, NaN, infinite).
    BackendUnavailableError
        ``backend="gpu"`` without a GPU.

    Notes
    -----
    Brandes' algorithm [1]_ in two phases per source.  Phase 1 finds
    distances and path counts; phase 2 accumulates dependencies from the
    farthest vertex back.  The CPU runs one Dijkstra per source, sources in
    parallel: Dial's buckets when all lengths are integers up to 4096, else a
    radix heap [3]_ keyed by the bits of the float64 distances; phase 2 walks
    the recorded shortest-path DAG.  Unweighted (every length 1), blocks of
    up to 64 sources share one bit-parallel BFS: a bit per source in a
    64-bit word per vertex, so each adjacency row is read once per level
    rather than once per source, while path counts and dependencies stay
    per source and follow each source's shortest-path DAG (16 bytes per
    vertex and source: the block narrows above 131,072 vertices, and above
    about a million a BFS per source takes over).  The
    GPU runs the level-synchronous Dijkstra of [2]_:
    each step settles every candidate with tentative distance strictly below
    :math:`\Delta = \min_c (d(c) + w_{min}(c))`, which keeps all shortest-path
    predecessors of a settled vertex in earlier levels; many sources run at
    once (one thread block each) with work-efficient frontier queues and a
    virtual warp per vertex whose width follows the mean degree.

    Ties are exact: two paths tie when their float64 length sums are equal,
    as in networkx, so integer and dyadic lengths tie exactly.  Path counts
    are float64 (as in networkx): they exceed the range of 64-bit integers
    on large graphs with many equal-length paths, and only their ratios
    matter; beyond :math:`2^{53}` they are rounded, not wrapped.

    Lengths must be positive.  networkx accepts zero lengths, but its
    Dijkstra may then settle a vertex before all of its equally short
    predecessors and count paths wrongly, and a zero-length cycle makes the
    number of shortest paths infinite; negative lengths give wrong results
    silently.  We raise instead.  A :class:`SignedGraph` never has its signs
    read as lengths: pass ``weight=None``, ``"abs"``, an array or a callable.

    Sampling: with an int ``k`` and an int ``seed`` the sources are a seeded
    partial Fisher-Yates shuffle of the vertex ids from the counter-based
    generator of :mod:`rapids_balance._random`; that draw cannot equal
    networkx's ``random.sample`` for the same int, but a ``random.Random``
    (or numpy generator) seed draws networkx's sources, and for the same
    source set (or a sequence ``k``) the scores equal networkx's estimator.
    Through networkx's dispatch (``backend="rapids_balance"``, see
    :mod:`rapids_balance.nx_backend`) every call returns networkx's numbers.

    Results are deterministic: sources run in fixed batches and chunks whose
    partial sums are added in a fixed order, whatever the number of threads or
    Dask workers.  CPU and GPU results agree to rounding.

    Self loops never lie on a shortest path and are ignored.

    References
    ----------
    .. [1] Ulrik Brandes: On variants of shortest-path betweenness centrality
       and their generic computation.  Social Networks 30(2):136-145, 2008.
    .. [2] A GPU-based solution for fast calculation of the betweenness
       centrality in large weighted networks.  PeerJ Computer Science 3:e140,
       2017, https://doi.org/10.7717/peerj-cs.140
    .. [3] Ravindra K. Ahuja, Kurt Mehlhorn, James B. Orlin, Robert E. Tarjan:
       Faster algorithms for the shortest path problem.  Journal of the ACM
       37(2):213-223, 1990.

    Examples
    --------
    >>> import pandas as pd
    >>> import rapids_balance as rb
    >>> edges = pd.DataFrame({"src": [0, 1, 2, 0], "dst": [1, 2, 3, 3],
    ...                       "weight": [1.0, 1.0, 1.0, 5.0]})
    >>> rb.betweenness_centrality(edges, weight="weight", backend="cpu")["betweenness_centrality"].round(4).tolist()
    [0.0, 0.6667, 0.6667, 0.0]
    """
    started = time.perf_counter()
    p = _check_params("betweenness_centrality", dict(
        k=k, normalized=normalized, weight=weight, endpoints=endpoints, seed=seed, directed=directed,
        backend=backend, progress=progress, client=client, source=source, target=target, sign=sign))
    be, g, bg, sources, sampled = _setup("betweenness_centrality", graph, p, for_edges=False)
    info = _info(be, sources, sampled)
    scores = node_scores(bg, sources, sampled=sampled, normalized=normalized, endpoints=endpoints,
                         backend=be, progress=progress, client=client, info=info)
    return _reported(info, started, _node_frame(g, scores, graph))


@on_workers
@frames_like_input()
def edge_betweenness_centrality(graph: Any, k: int | Sequence | None = None, *, normalized: bool = True,
                                weight: str | None | Callable | np.ndarray = None,
                                seed: int | None = None, directed: bool | None = None,
                                backend: str = "auto", progress: bool | None = None,
                                client: Any = None, source: Any = None, target: Any = None,
                                sign: Any = None) -> pd.DataFrame:
    r"""Shortest-path betweenness centrality of every edge, weighted or not.

    .. math::

       c_B(e) = \sum_{s,t \in V} \frac{\sigma(s, t|e)}{\sigma(s, t)}

    where :math:`\sigma(s, t|e)` is the number of shortest :math:`(s,
    t)`-paths through the edge :math:`e`.  Values and normalisation are those
    of :func:`networkx.edge_betweenness_centrality`.

    Parameters
    ----------
    graph : Graph, SignedGraph, DataFrame, networkx graph or cuGraph graph
        As for :func:`betweenness_centrality` (networkx multigraphs are
        refused here; networkx's dispatch to this library keys them by
        ``(u, v, key)``).
    k : int, sequence of vertices or None, optional
        Sources: all (``None``), that many (in ``[1, n]``) sampled with
        ``seed``, or the given vertices.
    normalized : bool, default True
        Divide by :math:`n(n-1)`; else undirected scores are halved.
    weight : str, None, array or callable, default None
        Edge lengths, as for :func:`betweenness_centrality` (``None``:
        unweighted).
    seed : int, None, random.Random, numpy Generator or RandomState, optional
        Seed of the source sampler, as for :func:`betweenness_centrality`.
    directed : bool or None, optional
        As for :func:`betweenness_centrality`.
    backend : {"auto", "cpu", "gpu"}, default "auto"
    progress : bool or None, default None
        Show a progress bar over sources. None: only when stderr is a terminal
        (a few plain lines in a log with True, nothing with False).
    client : dask.distributed.Client, optional
        Run the source batches on a Dask cluster; ``graph`` may then be read
        on the workers, as for :func:`betweenness_centrality`.
    source, target, sign : str or int, optional
        Column roles, as for :func:`betweenness_centrality`.

    Returns
    -------
    pandas.DataFrame
        Columns ``src``, ``dst`` (original labels; for undirected graphs
        each edge once, in the graph's edge order) and
        ``betweenness_centrality``; ``attrs["info"]`` as for
        :func:`betweenness_centrality`.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is
        read; ``k`` above the number of vertices or naming an unknown
        vertex, right after).
    GraphInputError
        Unusable input or lengths (zero, negative, NaN, infinite).
    BackendUnavailableError
        ``backend="gpu"`` without a GPU.

    Notes
    -----
    The same two-phase computation as :func:`betweenness_centrality`; in
    phase 2 every share :math:`\sigma_{sw}/\sigma_{sv}(1+\delta_s(v))` that
    flows from a vertex ``v`` to its predecessor ``w`` is also added to the
    edge ``(w, v)``.  Self loops are not reported (networkx reports them with
    score 0).

    References
    ----------
    .. [1] Ulrik Brandes: On variants of shortest-path betweenness centrality
       and their generic computation.  Social Networks 30(2):136-145, 2008.
    .. [2] A GPU-based solution for fast calculation of the betweenness
       centrality in large weighted networks.  PeerJ Computer Science 3:e140,
       2017, https://doi.org/10.7717/peerj-cs.140

    Examples
    --------
    >>> import pandas as pd
    >>> import rapids_balance as rb
    >>> edges = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    >>> rb.edge_betweenness_centrality(edges, weight=None, backend="cpu")
       src  dst  betweenness_centrality
    0    0    1                0.666667
    1    1    2                0.666667
    """
    started = time.perf_counter()
    p = _check_params("edge_betweenness_centrality", dict(
        k=k, normalized=normalized, weight=weight, seed=seed, directed=directed, backend=backend,
        progress=progress, client=client, source=source, target=target, sign=sign))
    be, g, bg, sources, sampled = _setup("edge_betweenness_centrality", graph, p, for_edges=True)
    info = _info(be, sources, sampled)
    scores = edge_scores(bg, sources, sampled=sampled, normalized=normalized, backend=be,
                         progress=progress, client=client, info=info)
    return _reported(info, started, _edge_frame(g, scores, graph))


@dataclasses.dataclass(frozen=True)
class BetweennessResult(Display):
    """Node and edge betweenness of one computation (see :func:`node_and_edge_betweenness`).

    Attributes
    ----------
    vertices : pandas.DataFrame
        ``vertex``, ``betweenness_centrality``: as :func:`betweenness_centrality`.
    edges : pandas.DataFrame
        ``src``, ``dst``, ``betweenness_centrality``: as
        :func:`edge_betweenness_centrality`.

    Each table's ``attrs["info"]`` says how both were computed (see
    :func:`betweenness_centrality`).
    """

    vertices: pd.DataFrame
    edges: pd.DataFrame

    def _display(self):
        sizes = []
        for name, table in (("vertices", self.vertices), ("edges", self.edges)):
            try:
                sizes.append((name, len(table)))
            except TypeError:  # a dask table: its length is not computed for a display
                pass
        return "BetweennessResult", sizes, [("vertices", self.vertices), ("edges", self.edges)]

    def __repr__(self) -> str:
        return self.summary_line()


@on_workers
@frames_like_input(dask_fields=("edges",))
def node_and_edge_betweenness(graph: Any, k: int | Sequence | None = None, *, normalized: bool = True,
                weight: str | None | Callable | np.ndarray = None, seed: int | None = None,
                directed: bool | None = None, backend: str = "auto", progress: bool | None = None,
                client: Any = None, source: Any = None, target: Any = None,
                sign: Any = None) -> BetweennessResult:
    r"""Node and edge betweenness centrality from one pass over the sources.

    The edge computation of Brandes' algorithm already accumulates every
    vertex's dependency, so both tables cost one single-source search per
    source instead of two (networkit's ``Betweenness(computeEdgeCentrality=True)``
    does the same).  The values are exactly those of
    :func:`betweenness_centrality` (``endpoints=False``) and
    :func:`edge_betweenness_centrality` with the same arguments.

    Parameters
    ----------
    graph : Graph, SignedGraph, DataFrame, networkx graph or cuGraph graph
        As for :func:`betweenness_centrality`.
    k : int, sequence of vertices or None, optional
        Sources: all (``None``, exact), that many sampled with ``seed``, or
        the given vertices.
    normalized : bool, default True
        As for the two functions above.
    weight : str, None, array or callable, default None
        Edge lengths (``None``: unweighted).
    seed : int, None, random.Random, numpy Generator or RandomState, optional
        Seed of the source sampler; the same seed picks the same sources as
        the two functions above.
    directed : bool or None, optional
        As for :func:`betweenness_centrality`.
    backend : {"auto", "cpu", "gpu"}, default "auto"
    progress : bool or None, default None
        Show a progress bar over sources. None: only when stderr is a terminal
        (a few plain lines in a log with True, nothing with False).
    client : dask.distributed.Client, optional
        Run the source batches on a Dask cluster; ``graph`` may then be read
        on the workers, as for :func:`betweenness_centrality`.
    source, target, sign : str or int, optional
        Column roles, as for :func:`betweenness_centrality`.

    Returns
    -------
    BetweennessResult
        ``vertices`` and ``edges`` tables, each with its own copy of
        ``attrs["info"]`` (as for :func:`betweenness_centrality`).

    Raises
    ------
    InvalidParameterError, GraphInputError, BackendUnavailableError
        As for :func:`edge_betweenness_centrality`.

    See Also
    --------
    betweenness_centrality, edge_betweenness_centrality

    References
    ----------
    .. [1] Ulrik Brandes: On variants of shortest-path betweenness centrality
       and their generic computation.  Social Networks 30(2):136-145, 2008.

    Examples
    --------
    >>> import pandas as pd
    >>> import rapids_balance as rb
    >>> res = rb.node_and_edge_betweenness(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}), backend="cpu", progress=False)
    >>> res.vertices
       vertex  betweenness_centrality
    0       0                     0.0
    1       1                     1.0
    2       2                     0.0
    >>> res.edges["betweenness_centrality"].tolist()
    [0.6666666666666666, 0.6666666666666666]
    """
    started = time.perf_counter()
    owner = "node_and_edge_betweenness"
    p = _check_params(owner, dict(
        k=k, normalized=normalized, weight=weight, seed=seed, directed=directed, backend=backend,
        progress=progress, client=client, source=source, target=target, sign=sign))
    be, g, bg, sources, sampled = _setup(owner, graph, p, for_edges=True)
    info = _info(be, sources, sampled)
    params = _params(bg, be, endpoints=False, edges=True)
    node, edge = _run(bg, sources, params, progress=progress, client=client, desc="betweenness",
                      info=info)
    node_scores_ = _rescaled_nodes(bg, node, sources, sampled=sampled, normalized=normalized, endpoints=False)
    edge_scores_ = np.asarray(_rescale(edge, bg.n, normalized=normalized, directed=bg.directed, endpoints=True,
                                       k=sources.size if sampled else None, is_source=None), np.float64)
    vertices, edges = _reported(info, started, _node_frame(g, node_scores_, graph),
                                _edge_frame(g, edge_scores_, graph))
    return BetweennessResult(vertices=vertices, edges=edges)


def _info(backend: str, sources: np.ndarray, sampled: bool) -> dict[str, Any]:
    """The facts of one computation its tables report (``attrs["info"]``, see the Returns
    section of :func:`betweenness_centrality`)."""
    return {"backend": backend, "sources": int(np.size(sources)), "sampled": bool(sampled)}


def _reported(info: dict, started: float, *tables: Any) -> Any:
    """``tables`` (one: the table itself) each with its own copy of ``info`` and the call's
    ``seconds`` since ``started`` in ``attrs["info"]`` (pandas' documented metadata dict,
    which cuDF 26.10 has too: python/cudf/cudf/core/indexed_frame.py, ``attrs``)."""
    info["seconds"] = time.perf_counter() - started
    for table in tables:
        table.attrs["info"] = copy.deepcopy(info)
    return tables[0] if len(tables) == 1 else tables


def _node_frame(g, scores: np.ndarray, like: Any) -> pd.DataFrame:
    """The vertex table, in the flavour of the user's input ``like`` (cuDF for a device input)."""
    return make_table({"vertex": label_column(g), "betweenness_centrality": scores}, like=like)


def _edge_frame(g, scores: np.ndarray, like: Any) -> pd.DataFrame:
    """The edge table, in the flavour of the user's input ``like``."""
    return make_table({"src": label_column(g, g.edge_src), "dst": label_column(g, g.edge_dst),
                       "betweenness_centrality": scores}, like=like)


def _subset(owner: str, graph, sources, targets, p: dict[str, Any], *, edges: bool) -> pd.DataFrame:
    started = time.perf_counter()
    p = _check_params(owner, p)
    be, g, bg = _prepare(owner, graph, p, for_edges=edges)
    src = _vertex_ids(g, sources, "sources", owner, distinct=True)
    tgt = _vertex_ids(g, targets, "targets", owner, distinct=True)
    info = dict(_info(be, src, False), targets=int(np.size(tgt)))
    scores = subset_scores(bg, src, tgt, edges=edges, normalized=p["normalized"], backend=be,
                           progress=p["progress"], client=p["client"], info=info)
    return _reported(info, started, _edge_frame(g, scores, graph) if edges
                     else _node_frame(g, scores, graph))


@on_workers
@frames_like_input()
def betweenness_centrality_subset(graph: Any, sources: Sequence, targets: Sequence, *,
                                  normalized: bool = False,
                                  weight: str | None | Callable | np.ndarray = None,
                                  directed: bool | None = None, backend: str = "auto",
                                  progress: bool | None = None, client: Any = None, source: Any = None,
                                  target: Any = None, sign: Any = None) -> pd.DataFrame:
    r"""Betweenness of every vertex over paths from ``sources`` to ``targets`` only.

    .. math::

       c_B(v) = \sum_{s \in S, t \in T} \frac{\sigma(s, t|v)}{\sigma(s, t)}

    with the notation of :func:`betweenness_centrality`; values and
    normalisation are those of :func:`networkx.betweenness_centrality_subset`
    (``sources=targets=`` every vertex gives ``betweenness_centrality``).

    Parameters
    ----------
    graph : Graph, SignedGraph, DataFrame, networkx graph or cuGraph graph
        As for :func:`betweenness_centrality`.
    sources, targets : sequence of vertex labels
        Distinct labels of vertices of the graph (empty: every score is 0).
    normalized : bool, default False
        Divide by :math:`(n-1)(n-2)`; else undirected scores are halved
        (networkx's default and scaling).
    weight : str, None, array or callable, default None
        Edge lengths, as for :func:`betweenness_centrality` (``None``:
        unweighted).
    directed, backend, progress, client, source, target, sign
        As for :func:`betweenness_centrality`.

    Returns
    -------
    pandas.DataFrame
        Columns ``vertex`` and ``betweenness_centrality``, one row per vertex;
        ``attrs["info"]`` as for :func:`betweenness_centrality`, with
        ``targets`` (how many) and ``sampled`` always False.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value, or ``sources``/``targets``
        repeat a vertex or name one the graph does not have (networkx ignores
        unknown targets; a typo here is reported instead).
    GraphInputError
        Unusable input or lengths (zero, negative, NaN, infinite).
    BackendUnavailableError
        ``backend="gpu"`` without a GPU.

    Notes
    -----
    One Dijkstra (or BFS) per source, as in :func:`betweenness_centrality`;
    in the accumulation only targets start a dependency (Brandes 2008,
    section 3.2).  See :func:`betweenness_centrality` for lengths and ties.

    Examples
    --------
    >>> import pandas as pd
    >>> from rapids_balance.centrality import betweenness_centrality_subset
    >>> edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    >>> betweenness_centrality_subset(edges, [0], [3], backend="cpu")["betweenness_centrality"].tolist()
    [0.0, 0.5, 0.5, 0.0]
    """
    return _subset("betweenness_centrality_subset", graph, sources, targets, dict(
        normalized=normalized, weight=weight, directed=directed, backend=backend, progress=progress,
        client=client, source=source, target=target, sign=sign), edges=False)


@on_workers
@frames_like_input()
def edge_betweenness_centrality_subset(graph: Any, sources: Sequence, targets: Sequence, *,
                                       normalized: bool = False,
                                       weight: str | None | Callable | np.ndarray = None,
                                       directed: bool | None = None, backend: str = "auto",
                                       progress: bool | None = None, client: Any = None,
                                       source: Any = None, target: Any = None,
                                       sign: Any = None) -> pd.DataFrame:
    r"""Betweenness of every edge over paths from ``sources`` to ``targets`` only.

    .. math::

       c_B(e) = \sum_{s \in S, t \in T} \frac{\sigma(s, t|e)}{\sigma(s, t)}

    Values and normalisation are those of
    :func:`networkx.edge_betweenness_centrality_subset`.

    Parameters
    ----------
    graph : Graph, SignedGraph, DataFrame, networkx graph or cuGraph graph
        As for :func:`edge_betweenness_centrality`.
    sources, targets : sequence of vertex labels
        Distinct labels of vertices of the graph.
    normalized : bool, default False
        Divide by :math:`n(n-1)`; else undirected scores are halved.
    weight : str, None, array or callable, default None
        Edge lengths, as for :func:`betweenness_centrality`.
    directed, backend, progress, client, source, target, sign
        As for :func:`betweenness_centrality`.

    Returns
    -------
    pandas.DataFrame
        Columns ``src``, ``dst`` and ``betweenness_centrality``, as
        :func:`edge_betweenness_centrality`; ``attrs["info"]`` as for
        :func:`betweenness_centrality_subset`.

    Raises
    ------
    InvalidParameterError
        As for :func:`betweenness_centrality_subset`.
    GraphInputError
        Unusable input or lengths.
    BackendUnavailableError
        ``backend="gpu"`` without a GPU.

    Notes
    -----
    networkx's accumulation is kept as it is, so the numbers are the same:
    a target ``w`` passes :math:`\sigma_{sv}/\sigma_{sw}(1 + \delta_s(w))` to
    each predecessor ``v``, but a vertex that is not a target splits its
    dependency :math:`\delta_s(w)` *evenly* among its predecessors rather
    than in proportion to their path counts.  With ``targets`` = every
    vertex the result is :func:`edge_betweenness_centrality`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rapids_balance.centrality import edge_betweenness_centrality_subset
    >>> edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    >>> edge_betweenness_centrality_subset(edges, [0], [3], backend="cpu")["betweenness_centrality"].tolist()
    [0.5, 0.5, 0.5]
    """
    return _subset("edge_betweenness_centrality_subset", graph, sources, targets, dict(
        normalized=normalized, weight=weight, directed=directed, backend=backend, progress=progress,
        client=client, source=source, target=target, sign=sign), edges=True)
