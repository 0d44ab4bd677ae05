"""``balance()``: sample spanning trees, balance, and turn the states into attributes.

The work is split into batches of tree ids.  :func:`_balance_partial` turns
one batch into integer counters and :func:`_balance_finalize` turns summed
counters into a :class:`BalanceResult`.  The single-process path, the
batches inside one call, and the Dask path (``client=``) all use these two
functions; integer sums do not depend on their order, so every path gives
the same result bit for bit.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from .._output import frames_like_input
from ..backend import resolve_backend
from .._validation import check_backend, check_choice, check_count, check_progress, check_seed
from ..io._roles import check_roles
from ..distributed._run import RangeBatches, on_workers
from ..errors import GraphInputError
from ._harary import MAJORITIES, TIE
from ._result import (ATTRIBUTE_DEFINITIONS, BalanceResult, TableCounters, compute_attributes, counter_namespace,
                      zero_counters)
from ._trees import cpu_chunks, seed_mix
from ._roots import SAMPLERS, check_root_labels, check_roots_arg, tree_roots

__all__ = ["balance", "BalanceParams", "_balance_partial", "_balance_finalize", "batch_size_for",
           "tree_batches", "available_memory", "memory_needed", "check_memory"]

METHODS = ("path-sign", "cycle")
MAX_CPU_BATCH = 256
#: path-sign batches on the CPU: 16 blocks of 64 trees, so two threads get 8 each and the
#: per-batch work (counter reduction, slot signs) is paid once per 1000 trees
MAX_CPU_BLOCK_BATCH = 1024
MAX_GPU_BATCH = 4096


@dataclass(frozen=True)
class BalanceParams:
    """Everything a batch needs besides the graph (picklable, for Dask workers)."""

    n_trees: int
    sampler: str = "bfs"
    roots: tuple | None = None
    seed: int = 0
    method: str = "path-sign"
    majority: str = "larger"
    attributes: str = "consensus"
    backend: str = "cpu"
    batch_size: int | None = None


# ---------------------------------------------------------------------------
# batch sizing
# ---------------------------------------------------------------------------

def _available_ram() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 << 30


#: cgroup v2 and v1 files: (limit, usage)
_CGROUP_FILES = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                 ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                  "/sys/fs/cgroup/memory/memory.usage_in_bytes"))


def _cgroup_room() -> int | None:
    """Bytes this process's memory cgroup still allows (limit - usage); None without a limit."""
    for limit_file, usage_file in _CGROUP_FILES:
        try:
            with open(limit_file) as fh:
                limit = fh.read().strip()
            with open(usage_file) as fh:
                usage = int(fh.read().strip())
        except (OSError, ValueError):
            continue
        if limit == "max" or int(limit) >= 1 << 60:  # v1 says "no limit" with a huge number
            return None
        return max(0, int(limit) - usage)
    return None


def _address_space_room() -> int | None:
    """Bytes of address space left under ``RLIMIT_AS`` (``ulimit -v``, ``prlimit --as``); None if unlimited."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return max(0, soft - int(line.split()[1]) * 1024)
    except (ImportError, OSError, ValueError):
        pass
    return None


def available_memory() -> int:
    """Bytes this process can still allocate: the least of MemAvailable, the cgroup's room and
    the address-space limit's room."""
    rooms = [_available_ram(), _cgroup_room(), _address_space_room()]
    return min(r for r in rooms if r is not None)


def memory_needed(graph, params: BalanceParams, n_chunks: int = 1, batch: int = 1) -> int:
    """Bytes a CPU ``balance()`` allocates besides the graph, with ``n_chunks`` parallel chunks.

    The estimate (all counts in bytes; n vertices, m edges, T the batch):

    * counters: ``32 m + 16 n`` (six int64 arrays), kept for the whole call;
    * per batch: slot signs ``2 m`` (one byte per CSR slot);
    * ``method="path-sign"``, per chunk (one per thread, at most one per
      block of 64 trees): ``44 n + 20 m`` (block state 16 n, frontier lists
      20 n, vertex counters 8 n; tree edges per slot 8 m, edge counters
      12 m), plus ``9 n`` with ``majority="agreeable"`` (a deep graph's
      per-tree pass needs less: ``28 n + 8 m``); once, the copy of a deep
      graph numbered in BFS order and that pass's block state and
      counters: ``42 m + 40 n``;
    * ``method="cycle"`` (tree by tree), per chunk: ``40 n + 5 m`` of
      scratch and ``4 m`` of tree-edge counts; per tree of the batch ``n``
      bytes of sides and ``m`` of balanced signs;
    * the result tables at the end: ``17 m + 64 n`` (per edge two int64
      label columns and the signs, the four float64 fractions taking the
      place of their counters; per vertex the labels, three float64 columns
      and their temporaries).

    Measured on a seeded power-law graph of 10^6 edges (64 trees, whole
    process high-water mark over the resident size before the call): 106
    bytes per edge, where this estimate gives 133.

    The batch size and the chunk count change only memory and speed, never
    the result.
    """
    n, m = int(graph.n), int(graph.m)
    counters = 32 * m + 16 * n
    if params.method == "cycle":
        chunk = 40 * n + 9 * m
        batch_bytes = batch * (n + m)
    else:
        chunk = 44 * n + 20 * m + (9 * n if params.majority == "agreeable" else 0)
        batch_bytes = 42 * m + 40 * n
    trees = 2 * m + n_chunks * chunk + batch_bytes
    tables = 17 * m + 64 * n
    return counters + max(trees, tables)


def _gib(x: int) -> str:
    return f"{x / 2**30:.2f} GiB"


def check_memory(graph, params: BalanceParams) -> None:
    """Refuse, before any tree is built, a CPU run whose smallest configuration cannot fit.

    The smallest configuration is one chunk (one thread) and a batch of one
    block of trees; :func:`memory_needed` gives its size.

    Raises
    ------
    MemoryError
        Saying how much is needed and how much is available.
    """
    if params.backend == "gpu":
        return
    need = memory_needed(graph, params, 1, 1)
    have = available_memory()
    if need > have:
        raise MemoryError(
            f"balance needs about {_gib(need)} besides the graph ({graph.n:,} vertices, {graph.m:,} "
            f"edges: see memory_needed) but only {_gib(have)} is available to this process "
            "(the least of MemAvailable, the cgroup's limit and the address-space limit); "
            "free memory or run on a larger machine")


def chunks_that_fit(graph, params: BalanceParams, wanted: int, batch: int = 1) -> int:
    """The most parallel chunks, up to ``wanted``, whose memory fits what is available now."""
    have = available_memory()
    k = max(1, int(wanted))
    while k > 1 and memory_needed(graph, params, k, batch) > have:
        k -= 1
    return k


def _gpu_free_memory() -> int:
    from ..backend import gpu_free_memory

    return gpu_free_memory()


def batch_size_for(graph, params: BalanceParams) -> int:
    """Trees per batch: what a quarter of free memory holds, within fixed caps.

    Per tree, the CPU ``method="cycle"`` batch keeps one byte of side per
    vertex and one per edge (tree edges are counted per thread chunk, not
    stored per tree); ``method="path-sign"`` works in blocks of 64 trees
    with per-thread state of about 44 bytes per vertex and 20 per edge,
    whatever the batch (:func:`memory_needed`, which sets the thread
    chunks), so its batch is not cut by memory: up to
    ``MAX_CPU_BLOCK_BATCH`` trees in one batch, whose blocks are full.  (A
    second batch would run its per-thread state on top of counters the
    first one already wrote: at 10^8 edges, 64 trees cut into batches of 43
    and 21 peaked 21 bytes per edge above the same trees in one batch.)
    Free memory is :func:`available_memory`, which
    honours cgroup and address-space limits; the GPU batch
    keeps about 64 bytes per vertex of BFS, path-sign and component state
    (plus one byte per edge for the cycle walk).  The batch size changes
    only speed and memory, never the result.
    """
    if params.batch_size is not None:
        return max(1, int(params.batch_size))
    n, m = graph.n, graph.m
    cyc = m if params.method == "cycle" else 0
    if params.backend == "gpu":
        per_tree = 64 * n + 2 * cyc
        free, cap = _gpu_free_memory() // 4, MAX_GPU_BATCH
    elif params.method == "cycle":
        per_tree = n + cyc
        cap = MAX_CPU_BATCH
        free = min(available_memory() // 4, 1 << 30)
    else:
        return int(max(1, min(MAX_CPU_BLOCK_BATCH, params.n_trees)))
    return int(max(1, min(cap, params.n_trees, free // max(per_tree, 1))))


# ---------------------------------------------------------------------------
# the scale-out hooks
# ---------------------------------------------------------------------------

def _check_reached(reached: np.ndarray, n: int) -> None:
    if (reached == -1).any():
        raise RuntimeError("internal error: a cycle-balanced state was not balanced")
    if (reached != n).any():
        raise GraphInputError(
            f"the graph is not connected (a spanning tree reached {int(reached.min())} of {n} "
            "vertices); balance needs one connected component: build the graph with "
            "component='largest'")


def _batch_cpu(graph, roots: np.ndarray, s2: np.ndarray, params: BalanceParams,
               counters: dict[str, np.ndarray]) -> None:
    from ._trees import block_split

    roots = roots.astype(np.int32)
    # path signs: whole blocks of trees at once, a short tail tree by tree (same trees either way)
    nb = 0 if params.method == "cycle" else block_split(roots.size)
    if nb:
        _blocks_cpu(graph, roots[:nb], s2[:nb], params, counters)
    if nb < roots.size:
        _trees_cpu(graph, roots[nb:], s2[nb:], params, counters)


def _blocks_cpu(graph, roots: np.ndarray, s2: np.ndarray, params: BalanceParams,
                counters: dict[str, np.ndarray]) -> None:
    """Counters of a batch by blocks of trees: tree, path signs, edges and vertices fused."""
    from ._cpu import block_pass, deep_pass
    from ._trees import BLOCK, slot_negative
    from ._layout import deep_layout

    T = roots.size
    maj = np.empty(T, np.uint8)
    reached = np.empty(T, np.int64)
    slot_neg = slot_negative(graph)
    lay = deep_layout(graph, slot_neg)  # a deep graph: numbered in BFS order, same trees
    if lay is None:  # parallel over blocks of 64 trees
        chunks = chunks_that_fit(graph, params, cpu_chunks(-(-T // BLOCK)))
        csr = (graph.indptr, graph.indices, graph.slot_edge, slot_neg)
        status2, clean, ids = counters["status2"], counters["clean"], np.empty(0, np.int32)
        run, extra = block_pass, ()
    else:  # parallel over the trees of a block, each tree by its own queue
        chunks = chunks_that_fit(graph, params, cpu_chunks(min(T, BLOCK)))
        csr = (lay["indptr"], lay["indices"], lay["slot_edge"], lay["slot_neg"], lay["edge_slots"])
        roots = lay["inv"][roots]
        status2, clean, ids = np.zeros(graph.n, np.int64), np.zeros(graph.n, np.int64), lay["ids"]
        run, extra = deep_pass, (lay["slot_rec"],)
    run(*csr, graph.edge_src, graph.edge_dst, graph.sign, roots, s2,
        params.majority == "agreeable", chunks, maj, reached,
        counters["in_tree"], counters["negative"], counters["switched"], counters["agree2"],
        status2, clean, ids, *extra)
    if lay is not None:
        counters["status2"][ids] += status2
        counters["clean"][ids] += clean
    _check_reached(reached, graph.n)
    counters["trees"][0] += T
    counters["ties"][0] += int((maj == TIE).sum())


def _trees_cpu(graph, roots: np.ndarray, s2: np.ndarray, params: BalanceParams,
               counters: dict[str, np.ndarray]) -> None:
    """Counters of a batch tree by tree (the cycle walk, and short tails of path-sign batches)."""
    from ._cpu import edge_pass, trees_pass, vertex_pass

    T, n, m = roots.size, graph.n, graph.m
    use_cycle = params.method == "cycle"
    side_T = np.empty((n, T), np.int8)
    n_chunks = chunks_that_fit(graph, params, cpu_chunks(T), T)
    in_tree_c = np.zeros((n_chunks, m), np.int32)
    bal_T = np.empty((m, T) if use_cycle else (0, T), np.int8)
    maj = np.empty(T, np.int8)
    reached = np.empty(T, np.int64)
    agreeable = params.majority == "agreeable"
    trees_pass(graph.indptr, graph.indices, graph.slot_edge, graph.edge_src, graph.edge_dst,
               graph.sign, roots, s2, use_cycle, agreeable, n_chunks,
               side_T, in_tree_c, bal_T, maj, reached)
    _check_reached(reached, n)
    edge_pass(graph.edge_src, graph.edge_dst, graph.sign, side_T, in_tree_c, bal_T, use_cycle, maj,
              counters["in_tree"], counters["negative"], counters["switched"], counters["agree2"])
    vertex_pass(graph.indptr, graph.indices, side_T, maj, counters["status2"], counters["clean"])
    counters["trees"][0] += T
    counters["ties"][0] += int((maj == TIE).sum())


def _balance_partial_narrow(graph, tree_ids, params: BalanceParams) -> dict[str, np.ndarray]:
    """:func:`_balance_partial` with each counter in the narrowest integer type that holds
    it (a batch on a Dask worker: what travels to the reduction)."""
    from ..distributed._run import narrow

    return narrow(_balance_partial(graph, tree_ids, params))


def _balance_partial(graph, tree_ids, params: BalanceParams,
                     into: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Integer counters of the trees ``tree_ids`` (a pure function of its inputs).

    Parameters
    ----------
    graph : SignedGraph
        Connected signed graph.
    tree_ids : range or sequence of int
        Global tree numbers; tree ``i`` has root ``tree_roots(...)[i]`` and
        seed ``params.seed + i`` whichever batch it falls in.  Worked through
        in chunks of :func:`batch_size_for` trees (roots and seeds made per
        chunk), so a long range costs one chunk's memory.
    params : BalanceParams
    into : dict of str to numpy.ndarray, optional
        Counters to add to (and return) instead of new ones: one set of
        counters for a whole call rather than two.

    Returns
    -------
    dict of str to numpy.ndarray
        int64 counters (see :mod:`rapids_balance.balancing._result`); summing
        the dicts of disjoint batches gives the dict of their union.
    """
    if not isinstance(tree_ids, range):
        tree_ids = np.asarray(tree_ids, dtype=np.int64).reshape(-1)
    counters = (into if into is not None
                else zero_counters(graph.n, graph.m, counter_namespace(graph, params.backend)))
    step = batch_size_for(graph, params)
    # roots and seeds per kernel launch: a batch of any length costs one launch's memory
    for a in range(0, len(tree_ids), step):
        ids = np.asarray(tree_ids[a:a + step], dtype=np.int64)
        roots, seeds = tree_roots(graph, ids, sampler=params.sampler, roots=params.roots,
                                  seed=params.seed)
        s2 = seed_mix(seeds)
        if params.backend == "gpu":
            from ._gpu import batch_counters_gpu

            part, reached = batch_counters_gpu(graph, roots, s2, params)
            _check_reached(reached, graph.n)
            for k in counters:
                counters[k] += part[k]
        else:
            _batch_cpu(graph, roots, s2, params, counters)
    return counters


def release_free_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    The tree kernels' per-thread scratch is freed into per-thread heaps that
    keep their pages; returning them lowers the process's resident peak by
    their size when the result tables are built next.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name and sys.platform.startswith("linux") else None
    except (OSError, AttributeError):
        trim = None
    if trim is not None:
        trim(0)


def _balance_finalize(graph, counters: dict[str, np.ndarray], params: BalanceParams) -> BalanceResult:
    """Summed counters -> :class:`BalanceResult` (attributes per ``params.attributes``)."""
    T = int(counters["trees"][0])
    host = isinstance(counters["status2"], np.ndarray)
    if host:
        release_free_heap()  # the trees' freed scratch, before the tables need the room
    vertices, edges = compute_attributes(graph, counters, params.attributes, consume=host)
    if "in_tree" not in counters:  # the edge counters and status2 became the tables' columns
        counters = TableCounters(counters, edges, T, vertices)
    p = asdict(params)
    p["roots"] = list(params.roots) if params.roots is not None else None
    return BalanceResult(vertices=vertices, edges=edges, n_trees=T, params=p, counters=counters, graph=graph)


# ---------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------

def _check_params(owner: str, p: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of :func:`balance` but the graph, before the graph is touched."""
    out = dict(p)
    out["n_trees"] = check_count(p["n_trees"], "n_trees", owner)
    check_choice(p["sampler"], "sampler", owner, SAMPLERS)
    out["roots"] = check_roots_arg(p["roots"], owner)
    out["seed"] = check_seed(p["seed"], owner)
    check_choice(p["method"], "method", owner, METHODS)
    check_choice(p["majority"], "majority", owner, MAJORITIES)
    check_choice(p["attributes"], "attributes", owner, ATTRIBUTE_DEFINITIONS)
    check_backend(p["backend"], owner)
    check_progress(p["progress"], owner)
    out["batch_size"] = check_count(p["batch_size"], "batch_size", owner, allow_none=True)
    from ..distributed._run import check_client_arg

    check_client_arg(p["client"], owner, p["backend"])
    return out


def _check_graph(graph) -> None:
    # a graph kept on the device is asked there: graph.sign would copy the signs to the host
    signed = ("sign" in graph.device_arrays() if getattr(graph, "on_device", False)
              else getattr(graph, "sign", None) is not None)
    if not signed or getattr(graph, "directed", False):
        raise GraphInputError("balance needs an undirected signed graph (a SignedGraph with a sign "
                              "on every edge)")
    if graph.n < 2 or graph.m < 1:
        raise GraphInputError("balance needs a graph with at least one edge")


def tree_batches(n_trees: int, step: int) -> RangeBatches:
    """Tree ids ``0 .. n_trees-1`` in consecutive batches of ``step``, made one at a time."""
    return RangeBatches(n_trees, step)


@on_workers
@frames_like_input(dask_fields=("edges",))
def balance(graph: Any, n_trees: int = 1000, *, sampler: str = "bfs",
            roots: Sequence[Any] | None = None, seed: int = 0, method: str = "path-sign",
            majority: str = "larger", attributes: str = "consensus", backend: str = "auto",
            progress: bool | None = None, batch_size: int | None = None,
            client: Any = None, source: Any = None, target: Any = None, sign: Any = None,
            weight: Any = None) -> BalanceResult:
    """Nearest balanced states of a signed graph over many spanning trees.

    For each of ``n_trees`` BFS spanning trees, every fundamental cycle is
    balanced (a non-tree edge takes the sign that makes its cycle positive),
    the balanced graph is split into its two Harary sides, and one side is
    called the majority.  Counting over the trees gives vertex and edge
    attributes.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        A connected signed graph (a DataFrame, networkx graph, ... is
        coerced, keeping its largest component).
    n_trees : int, default 1000
        Number of spanning trees T, in ``[1, 2**63 - 1]`` (tree ids are
        int64).  Trees run in batches made one at a time, so a large count
        costs time, not memory up front.
    sampler : {"bfs", "bfs-random-root"}
        Root choice.  ``"bfs"``: with ``roots=None``, vertices by descending
        degree (ties to the smaller internal id), tree ``i`` using the
        ``i mod n``-th.  ``"bfs-random-root"``: roots drawn from ``seed``.
    roots : sequence of vertex labels, optional
        Original labels of the roots; tree ``i`` uses ``roots[i mod len]``.
    seed : int, default 0
        An int in ``[0, 2**63 - 1]`` (the rule of every seeded function;
        floats, bools and None are refused).  Tree ``i`` uses the seed
        ``seed + i`` in graphB+'s parent rule (see
        :mod:`rapids_balance.balancing._trees`), in 32-bit wrap-around
        arithmetic as graphB+'s C ``int``.  graphB+ v0.2 uses 17.
    method : {"path-sign", "cycle"}
        ``"path-sign"`` (ECL-SGB, O(m) per tree): a non-tree edge ``(u, v)``
        gets ``ps(u) * ps(v)``.  ``"cycle"`` (graphB+): pre-order relabeling
        and a walk around each fundamental cycle.  Both give the same states.
    majority : {"larger", "agreeable"}
        ``"larger"``: the larger Harary side; on a tie every vertex gets 1/2.
        ``"agreeable"``: the side holding the largest connected component of
        positive balanced edges (graphB+ v0.2's output; ties to the component
        with the smallest internal id).
    attributes : {"consensus", "datalab"}
        Which definitions of influence and authority to report (below).
    backend : {"auto", "cpu", "gpu"}
        ``"auto"`` uses a usable GPU, else the numba CPU path.
    progress : bool or None, default None
        Show a progress bar over tree batches. None: only when stderr is a terminal
        (a few plain lines in a log with True, nothing with False).
    batch_size : int, optional
        Trees per kernel launch; default from free memory.  Does not change
        the result.
    client : distributed.Client, optional
        Run the batches on a Dask cluster (same result).
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file: a column name or a
        0-based position (networkx: an edge attribute).  ``None``: taken from
        the format or a recognised header.  Refused with a built
        :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    BalanceResult
        ``.vertices`` (vertex, status, influence, authority) and ``.edges``
        (src, dst, sign, in_tree, negative, switched, agreement), both with
        original labels; ``.write_graphbplus(path)`` writes graphB+'s file.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is
        read; ``roots`` naming no vertex, right after).
    GraphInputError
        The graph is unsigned, directed, disconnected or has no edge.
    BackendUnavailableError
        ``backend="gpu"`` without a usable GPU.

    Notes
    -----
    With :math:`\\delta_t(v) = 1` if v is in tree t's majority, 1/2 if t's
    sides tie, 0 otherwise, over T trees:

    * ``status(v) = mean_t delta_t(v)``;
    * ``in_tree(e)``, ``negative(e)``, ``switched(e)``: share of trees with e
      in the tree, negative after balancing, with its sign changed;
    * ``agreement(u, v) = mean_t [u, v same side] * delta_t(u)``: share of
      trees with both ends in the majority (a tie counts 1/2).

    ``attributes="consensus"`` (default; graphB++'s consensus tool):

    * ``influence(v)`` = mean agreement of v's edges;
    * ``authority(v)`` = mean over v's edges (u, v) of
      ``(status(u) + status(v)) / 2``.

    ``attributes="datalab"`` (the older DataLab code):

    * ``influence(v)`` = sum (not mean) of the agreement of v's edges;
    * ``authority(v)`` = share of trees in which v has no negative incident
      edge after balancing.

    Trees are built by BFS with graphB+'s deterministic parent rule, so the
    result depends only on the arguments, not on the backend, thread count,
    batch size or number of Dask workers.

    References
    ----------
    .. [1] G. Alabandi, J. Tešić, L. Rusnak, M. Burtscher, "Discovering and
       Balancing Fundamental Cycles in Large Signed Graphs", SC'21.
    .. [2] J. VanAusdal, L. Rusnak, M. Burtscher, "Signed Graph Balancing in
       Linear Time" (ECL-SGB).
    .. [3] L. Rusnak, J. Tešić, "Characterizing attitudinal network graphs
       through frustration cloud", 2021.

    Examples
    --------
    >>> from rapids_balance.graph import build_graph
    >>> g = build_graph([0, 1, 2, 0], [1, 2, 3, 2], sign=[1, 1, -1, -1])
    >>> res = balance(g, n_trees=4, progress=False, backend="cpu")
    >>> list(res.vertices.columns)
    ['vertex', 'status', 'influence', 'authority']
    """
    from ..graph import graph_from_any
    from .._progress import progress_bar

    p = _check_params("balance", dict(
        n_trees=n_trees, sampler=sampler, roots=roots, seed=seed, method=method, majority=majority,
        attributes=attributes, backend=backend, progress=progress, batch_size=batch_size,
        client=client))
    roles = check_roles(graph, "balance", dict(source=source, target=target, sign=sign, weight=weight))
    be = resolve_backend(backend)
    graph = graph_from_any(graph, signed=True, **roles)
    _check_graph(graph)
    n_trees = p["n_trees"]
    params = BalanceParams(n_trees=n_trees, sampler=sampler, roots=p["roots"], seed=p["seed"],
                           method=method, majority=majority, attributes=attributes, backend=be,
                           batch_size=p["batch_size"])
    if params.roots is not None:
        check_root_labels(graph, params.roots, "balance")
    if client is None:
        check_memory(graph, params)
    workers_s = None
    if client is not None:
        from ..distributed._run import WorkerBatches, ready_on_workers, run_batches, sum_narrow

        # every worker compiles (or loads) the kernels at once, before its first batch
        workers_s = ready_on_workers(client, _ready_balance, params)
        # integer sums do not depend on the cut: the cluster picks its batches (two per worker);
        # the counters travel and wait narrowed (a byte or two per element, not eight)
        batches = WorkerBatches(n_trees, max_size=batch_size_for(graph, params), per_worker=2)
        counters = run_batches(client, graph, _balance_partial_narrow, batches, params,
                               combine=sum_narrow, progress=progress, desc="balance")
        counters = {k: v.astype(np.int64) for k, v in counters.items()}
    else:
        batches = tree_batches(n_trees, batch_size_for(graph, params))
        counters = zero_counters(graph.n, graph.m, counter_namespace(graph, params.backend))
        with progress_bar(n_trees, "balance", progress, unit="tree") as bar:
            for b in batches:
                _balance_partial(graph, b, params, into=counters)
                bar.update(len(b))
    res = _balance_finalize(graph, counters, params)
    if workers_s is not None:
        res.info["seconds_compile_workers"] = workers_s
    return res


def _ready_balance(params: BalanceParams) -> float:
    """A worker's kernels for ``params``' code paths, compiled or loaded once per process: a
    tiny balance run with the same options (:mod:`rapids_balance._ready`); its seconds."""
    from .._ready import ready, tiny_backend, tiny_signed_graph

    be = tiny_backend(params.backend)
    key = ("balance", params.sampler, params.method, params.majority, params.attributes, be)
    return ready(key, lambda: balance(tiny_signed_graph(), n_trees=2, sampler=params.sampler,
                                      method=params.method, majority=params.majority,
                                      attributes=params.attributes, backend=be, progress=False))
