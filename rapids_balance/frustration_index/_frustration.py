"""``frustration()``: tree samplers -> frustration cloud -> refinement.

The trees are cut into fixed batches of ids (``batch_size``, default 64).
:func:`_cloud_partial` turns one batch into a :class:`~._cloud.CloudPart`,
:func:`_merge_clouds` folds parts into the cloud in batch order.  The
single-process path and a Dask run (``client=``) use the same batches and
the same fold, so they return the same cloud, bit for bit.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import asdict, dataclass, replace
from typing import Any, Sequence

import numba
import numpy as np

from .._output import frames_like_input, make_table
from .._progress import progress_bar
from ..backend import resolve_backend
from .._validation import (check_backend, check_progress, check_choice, check_count, check_seed,
                           check_time_limit, param_error)
from ..io._roles import check_roles
from .._deadline import NO_DEADLINE, deadline_of, passed
from ..distributed._run import RangeBatches, local_deadline, on_workers, wall_deadline
from ..errors import GraphInputError
from ..graph import graph_from_any
from ..balancing._roots import check_root_labels, check_roots_arg
from ._cloud import Cloud, CloudPart, build_part, merge_part, states_for_cap, thin_history
from ._refine import (RefineParams, compile_wide_levels, parallel_descent, refine as refine_states,
                      slot_signs)
from ._result import FrustrationResult, state_frame, switched_frame
from ._samplers import SAMPLERS, sample_trees
from ._states import bfs_sides, count_frustrated, tree_states, words_to_sides

__all__ = ["frustration", "FrustrationParams", "default_trees", "default_refine",
           "_cloud_partial", "_merge_clouds"]

DEFAULT_BATCH = 64
#: default tree count on graphs up to TREE_WORK / 1000 edges; fewer above, at least a batch
DEFAULT_TREES = 1000
TREE_WORK = 64_000_000
#: above this many edges the default refinement runs fewer V-cycles: one already lands
#: near its final state there, and each costs seconds (graphs up to the size of
#: Epinions and Slashdot keep the full effort)
LARGE_EDGES = 900_000
#: two V-cycles at once (one from the best tree, one fresh), one tabu step per vertex and
#: level (more found nothing better on planted graphs), clusters grown past pairs (a
#: third of the coarse edges: the levels' memory stays a small multiple of the graph's)
LARGE_REFINE = {"population": 2, "rounds": 2, "tabu_factor": 1, "grow": 1}
#: share of a time limit that tree sampling may use when the refinement follows (above
#: LARGE_EDGES edges a tree costs seconds and the refinement, not the trees, finds the
#: good states)
TREE_SHARE = 0.1
LARGE_TREE_SHARE = 0.05
#: a chunk of trees (one per thread) costs about this many connectivity BFS passes
TREE_PASSES = 4.0
#: reserves of a timed search, in connectivity BFS passes over the graph (measured on the
#: machine as it is, before the clock starts): FINAL_PASSES for what follows the search
#: whatever it found (each cut V-cycle's cost, the frustration count, the output tables),
#: UNWIND_PASSES more for the improving moves of the V-cycles cut at the search's deadline
#: and the polish (parallel descent), so that the call returns within its limit
FINAL_PASSES = 1.0
UNWIND_PASSES = 1.5
#: a first tree estimated under this many seconds is sampled whatever the limit
TREE_GRACE_S = 0.01
#: bytes of the trees sampled at once without a deadline (a tree holds parent, parent edge
#: and order as int32 and a path sign as int8 per vertex)
CHUNK_BYTES = 64 * 2**20
TREE_BYTES = 13
#: device bytes a vertex a tree of a GPU batch: the BFS's or Kruskal's trees and their state
#: (as balancing's GPU batch counts them)
GPU_TREE_BYTES = 64
_REFINE_MAX = 2**31 - 1  # refinement effort counts stay within the kernels' int32 loop bounds
_POPULATION_MAX = 1024  # the refinement holds population states of n vertices at once
_ALL_BITS = (1 << 64) - 1


@dataclass(frozen=True)
class FrustrationParams:
    """Everything a batch needs besides the graph (small and picklable for Dask)."""

    n_trees: int
    sampler: str = "bfs"
    seed: int = 0
    roots: tuple | None = None
    backend: str = "cpu"
    max_states: int | None = None
    batch_size: int = DEFAULT_BATCH
    hash_mask: int = _ALL_BITS  # tests force hash collisions with a narrow mask


def _batches(params: FrustrationParams) -> RangeBatches:
    """The tree batches, as a lazy sequence (one range made at a time)."""
    return RangeBatches(params.n_trees, params.batch_size)


def _cloud_states(graph, tree_ids: np.ndarray, params: FrustrationParams):
    """The balanced state of each tree of ``tree_ids``: (words, hashes, switches, sampler codes),
    one row a tree, each from the tree's id alone."""
    from ..balancing._path_signs import path_signs

    if params.backend == "gpu" and params.sampler in ("bfs", "bfs-random-root"):
        # sample_trees' roots and seeds, but the path signs straight from the BFS kernels:
        # they stay on the device, with no order (a sort) and no second pass to make them
        from ..balancing._trees import bfs_path_signs_gpu
        from ..balancing._roots import tree_roots
        from ._samplers import SAMPLER_CODES

        root_ids, seeds = tree_roots(graph, tree_ids, sampler=params.sampler, roots=params.roots,
                                     seed=params.seed)
        ps = bfs_path_signs_gpu(graph, root_ids, seeds)
        codes = np.full(tree_ids.size, SAMPLER_CODES[params.sampler], np.int8)
    elif params.backend == "gpu" and params.sampler == "kruskal":
        # the same trees, their path signs made on the device as they are rooted
        from ._samplers import kruskal_path_signs_gpu

        ps, codes = kruskal_path_signs_gpu(graph, tree_ids, seed=params.seed, roots=params.roots)
    else:
        parent, parent_edge, order, codes = sample_trees(
            graph, tree_ids, sampler=params.sampler, seed=params.seed, roots=params.roots,
            backend=params.backend)
        if params.backend == "gpu":
            from ..backend import to_device

            ps = path_signs(to_device(order, "gpu"), to_device(parent, "gpu"),
                            to_device(parent_edge, "gpu"), to_device(graph.sign, "gpu"), backend="gpu")
        else:
            ps = path_signs(order, parent, parent_edge, graph.sign, backend="cpu")
        del parent, parent_edge, order
    words, hashes, switches = tree_states(ps, graph, backend=params.backend)
    hashes = hashes & np.uint64(params.hash_mask)
    return words, hashes, switches, codes


def _cloud_partial(graph, tree_ids, params: FrustrationParams) -> CloudPart:
    """Distinct balanced states of trees ``tree_ids`` (one batch; pure).

    Tree ``i`` is built from the seed ``params.seed + i`` whichever batch
    holds it.
    """
    tree_ids = np.asarray(tree_ids, dtype=np.int64).reshape(-1)
    words, hashes, switches, codes = _cloud_states(graph, tree_ids, params)
    return build_part(words, hashes, switches, tree_ids, codes, params.max_states)


def _cloud_parts(graph, batches: Sequence, params: FrustrationParams) -> list[CloudPart]:
    """:func:`_cloud_partial` of each of the consecutive ``batches`` (ranges of tree ids), their
    trees sampled and their states made in one go on the device, each batch then a part of its
    own: the parts are those of the batches one by one (a tree's state depends on its id alone,
    and :func:`build_part` sees each batch's trees as it would), so the cloud, its counts, its
    history (a row a batch) and the cap's evictions do not depend on the grouping."""
    if len(batches) == 1:
        return [_cloud_partial(graph, batches[0], params)]
    ids = np.concatenate([np.asarray(b, dtype=np.int64).reshape(-1) for b in batches])
    whole = _cloud_states(graph, ids, params)
    parts, a = [], 0
    for b in batches:
        k = len(b)
        words, hashes, switches, codes = (x[a:a + k] for x in whole)
        parts.append(build_part(words, hashes, switches, ids[a:a + k], codes, params.max_states))
        a += k
    return parts


def _device_batches(graph, params: FrustrationParams) -> int:
    """Batches the GPU samples at once: enough trees for :data:`MIN_BLOCKS_PER_SM` blocks on
    every SM (a block a tree in the BFS and Kruskal kernels), as many as a quarter of the
    free device memory holds at ``GPU_TREE_BYTES`` a vertex a tree; 1 on the CPU and for the
    samplers whose trees are made on the host (their batches go in chunks of bounded memory)."""
    if params.backend != "gpu" or params.sampler not in ("bfs", "bfs-random-root", "kruskal"):
        return 1
    from .._occupancy import MIN_BLOCKS_PER_SM
    from ..backend import gpu_free_memory, sm_count

    fill = -(-MIN_BLOCKS_PER_SM * sm_count() // max(params.batch_size, 1))
    fits = (gpu_free_memory() // 4) // max(GPU_TREE_BYTES * graph.n * params.batch_size, 1)
    return int(max(1, min(fill, fits)))


def _merge_clouds(parts: Sequence[CloudPart], params: FrustrationParams,
                  cloud: Cloud | None = None, *, whole_batches: bool = True) -> Cloud:
    """Fold parts (in batch order) into ``cloud`` (a new one by default).

    ``whole_batches``: each part is a batch, so the history is thinned after
    each (:func:`thin_history`); a caller folding pieces of a batch thins
    once the batch is done.
    """
    if cloud is None:
        cloud = Cloud(max_states=params.max_states)
    for part in parts:
        merge_part(cloud, part)
        if whole_batches:
            thin_history(cloud.history)
    return cloud


_REFINE_MUST = "True, False, an int >= 0 (rounds), a dict of RefineParams fields or a RefineParams"
# RefineParams field -> smallest allowed value (threads: 0 means numba's count)
_REFINE_LOW = {"population": 1, "rounds": 0, "patience": 0, "tabu_factor": 0, "tenure_divisor": 1,
               "stall": 0,
               "coarsest": 1, "cluster_divisor": 1, "grow": 0, "restarts": 0,
               "threads": 0}


def _parse_refine(refine, owner: str = "frustration") -> RefineParams | None:
    """``refine=`` as RefineParams (None: no refinement), every field checked."""
    if refine is False or refine is None:
        return None
    if refine is True:
        return RefineParams()
    if isinstance(refine, bool) or type(refine).__name__ == "bool_":
        return RefineParams() if refine else None
    if isinstance(refine, numbers.Integral):
        rounds = check_count(refine, "refine", owner, low=0, high=_REFINE_MAX)
        return RefineParams(rounds=rounds)
    if isinstance(refine, RefineParams):
        fields = asdict(refine)
    elif isinstance(refine, dict):
        unknown = sorted(set(refine) - set(_REFINE_LOW), key=str)
        if unknown:
            raise param_error("refine", owner, "a dict whose keys are RefineParams fields ("
                              + ", ".join(_REFINE_LOW) + ")", refine)
        fields = {**asdict(RefineParams()), **refine}
    else:
        raise param_error("refine", owner, _REFINE_MUST, refine)
    checked = {k: check_count(v, f"refine[{k}]", owner, low=_REFINE_LOW[k],
                              high=_POPULATION_MAX if k == "population" else _REFINE_MAX)
               for k, v in fields.items()}
    return RefineParams(**checked)


def default_trees(n_edges: int) -> int:
    """Trees sampled by default: 1000, fewer on graphs above 64,000 edges.

    Trees cost a pass over the graph each, and on large graphs the
    refinement, not the trees, finds the good states; the count keeps
    ``trees * edges`` near ``TREE_WORK`` and never goes below one batch.
    """
    return max(DEFAULT_BATCH, min(DEFAULT_TREES, TREE_WORK // max(int(n_edges), 1)))


def default_refine(n_edges: int, rounds: int | None = None) -> RefineParams:
    """The effort of ``refine=True`` (or ``refine=rounds``) on a graph of ``n_edges`` edges.

    :class:`RefineParams`' defaults up to ``LARGE_EDGES`` edges; above,
    ``LARGE_REFINE``: two states, 2 rounds, one tabu step per vertex and
    level, grown clusters (a 10^7-edge graph gets its first V-cycles done in
    well under a minute on two cores, in a small multiple of the graph's
    memory).  No restarts: on Slashdot and wiki-Elec they found no better
    state than the rounds (``RefineParams.restarts`` asks for them).
    """
    base = RefineParams() if n_edges <= LARGE_EDGES else RefineParams(**LARGE_REFINE)
    return base if rounds is None else replace(base, rounds=rounds)


def _check_params(owner: str, p: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of :func:`frustration` but the graph, before the graph is touched."""
    out = dict(p)
    out["n_trees"] = check_count(p["n_trees"], "n_trees", owner, low=0, allow_none=True)
    check_choice(p["sampler"], "sampler", owner, SAMPLERS)
    out["seed"] = check_seed(p["seed"], owner)
    out["refine"] = _parse_refine(p["refine"], owner)
    # True or a round count: the default effort, scaled to the graph once it is read
    flag = isinstance(p["refine"], bool) or type(p["refine"]).__name__ == "bool_"
    out["refine_auto"] = out["refine"] is not None and (
        flag or isinstance(p["refine"], numbers.Integral))
    out["refine_rounds"] = None if flag or not out["refine_auto"] else out["refine"].rounds
    out["time_limit"] = check_time_limit(p["time_limit"], owner)
    if out["n_trees"] == 0 and out["refine"] is None:
        raise param_error("n_trees", owner, "at least 1 when refine=False (nothing would be "
                          "computed)", 0)
    out["max_states"] = check_count(p["max_states"], "max_states", owner, allow_none=True)
    out["memory_limit"] = check_count(p["memory_limit"], "memory_limit", owner, allow_none=True)
    check_backend(p["backend"], owner)
    check_progress(p["progress"], owner)
    out["roots"] = check_roots_arg(p["roots"], owner)
    out["batch_size"] = check_count(p["batch_size"], "batch_size", owner, allow_none=True)
    if p["client"] is not None:
        from ..distributed._run import check_client_arg, check_task_count

        check_client_arg(p["client"], owner, p["backend"])
        trees = DEFAULT_TREES if out["n_trees"] is None else out["n_trees"]
        check_task_count(len(RangeBatches(trees, out["batch_size"] or DEFAULT_BATCH)),
                         f"{owner}(n_trees={trees})")
    return out


@on_workers
@frames_like_input(dask_fields=("switched",))
def frustration(graph: Any, n_trees: int | None = None, *, sampler: str = "bfs", seed: int = 0,
                refine: Any = True, max_states: int | None = None,
                memory_limit: int | None = None, time_limit: float | None = None,
                backend: str = "auto", progress: bool | None = None,
                client: Any = None, roots: Sequence[Any] | None = None,
                batch_size: int | None = None, source: Any = None, target: Any = None,
                sign: Any = None, weight: Any = None) -> FrustrationResult:
    """Frustration index estimate, frustration cloud and nearest balanced state.

    Every spanning tree of a signed graph gives a nearest balanced state (the
    Harary bipartition of its path signs); the number of edges whose sign it
    flips bounds the frustration index from above.  This samples ``n_trees``
    trees, collects their distinct states with counts (graphB++'s frustration
    cloud) and, with ``refine``, improves the best states by local search
    over bipartitions.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        A connected signed graph.
    n_trees : int, optional
        Spanning trees to sample, in ``[0, 2**63 - 1]`` (0 with ``refine``
        searches bipartitions only).  Batches are made one at a time, so a
        large count costs time, not memory up front.  Default
        (:func:`default_trees`): 1000, fewer on graphs above 64,000 edges
        (``64_000_000 // edges``, at least 64).
    sampler : {"bfs", "bfs-random-root", "dfs", "rdfs", "hybrid", "kruskal", "uniform"}
        Tree sampler (see :mod:`rapids_balance.frustration_index._samplers`).
    seed : int, default 0
        An int in ``[0, 2**63 - 1]`` (the rule of every seeded function;
        floats, bools and None are refused).  Tree ``i`` uses ``seed + i``
        (modulo ``2**63``); the refinement derives its draws from ``seed``.
    refine : bool, int, dict or RefineParams, default True
        Local-search refinement of the best states: True for the default
        effort, an int >= 0 for that many recombination rounds, False for the
        tree-only estimate of graphB++.  True and an int scale the effort
        to the graph (:func:`default_refine`: above 900,000 edges two
        states, 2 rounds, one tabu step per vertex and grown clusters,
        which keeps a 10^7-edge graph within a minute and about 100 bytes
        per edge); a dict or RefineParams is taken as
        given.  Every field is an int >= 0
        (``population``, ``tenure_divisor``, ``coarsest``,
        ``cluster_divisor`` >= 1; ``population`` <= 1024, the others
        < 2**31).
    max_states : int, optional
        Keep at most this many states in the cloud (graphB++ Alg. 3); >= 1.
    memory_limit : int, optional
        Bytes the stored states may take; converted into a state cap (at
        least one state's bytes).
    time_limit : float, optional
        Seconds, a finite number >= 0, of search: the best state found when
        it expires is returned (``info["stopped"]`` is ``"time_limit"``,
        ``info["trees"]`` the trees actually sampled).  The clock starts
        once the graph is read and every kernel the search will call is
        compiled or loaded from numba's cache (a tiny run through the same
        stages, once per process: tens of seconds in a fresh environment,
        under a second later; see :func:`rapids_balance.warmup`), so a
        first call gets its whole limit; ``info["seconds_compile"]``
        reports that time and ``info["seconds_search"]`` the rest (the
        graph's connectivity check included: the call takes the limit plus
        the compilation).  With ``client=`` every worker readies its kernels
        the same way, all at once (``info["seconds_compile_workers"]``:
        seconds per worker), and every worker stops its trees at the same
        deadline; the cluster's preparation counts against the limit (the
        check of its workers, which a fresh worker answers by importing the
        package, and their loading of cached kernels: ``info["seconds_cluster"]``),
        its compiling does not.  With
        ``refine`` the search is anytime: trees take a tenth of the limit
        (a twentieth above 900,000 edges) or ``n_trees`` (at least one tree:
        with a limit a tree cannot fit in, a single one); then a first wave
        of V-cycles (one per thread, from the best tree states) gives a
        good state early, and the time that wave took on the machine as it
        is sets how many more states the population gets (as many as leave
        room for two rounds of recombination), so a short limit or a busy
        machine still recombines.  A V-cycle cut by the limit keeps the
        gains of the levels it built (it finishes only the improving moves
        it is on), and none starts after it.  What follows the search
        whatever it found (the last moves, the count, the output tables)
        is a pass or two over the graph: its time, measured by the
        connectivity check on the machine as it is, is reserved from the
        limit.  The kernels read the clock every few hundred thousand
        adjacency entries scanned, so the call returns within a few per
        cent of the limit (or a few milliseconds).  At very short limits
        (on the CPU backend): when the first tree, about four passes,
        would end past the search's share of the limit, no tree is
        sampled (``info["trees"]`` is 0, ``tree_index`` None, the cloud
        empty) and the search starts from the state of the connectivity
        check's own BFS tree, or from all vertices on one side when that
        frustrates fewer edges (``info["start"]`` is ``"check-bfs"`` or
        ``"one-side"``; ``"trees"`` otherwise); when the limit leaves no
        time for an improving move either, that state is returned as it
        is (the refinement, which could make no move, is skipped; its one
        history row is that state's index).  ``time_limit=0`` means the
        least useful work: that state, of the check's own tree (or one
        side), with ``info["stopped_stages"]`` naming the stages it cut.
        With a Dask ``client`` the trees and the refinement's V-cycles
        stop at the same deadline on every worker.
    backend : {"auto", "cpu", "gpu"}
        Where BFS trees, path signs, state words and move gains are computed.
    progress : bool or None, default None
        Progress bar over tree batches (and refinement rounds). None: only when stderr is a terminal
        (a few plain lines in a log with True, nothing with False).
    client : distributed.Client, optional
        Run the tree batches on a Dask cluster (same result as locally); at
        most 200,000 batches (``n_trees / batch_size``) per run.  On a graph
        of at least 50,000 edges the refinement's V-cycles run there too,
        one task each (the first generation, the restarts' copies and each
        round's children side by side over the workers' task threads), with
        the same result as locally while no ``time_limit`` cuts the search;
        under a limit every worker stops its V-cycles at the same deadline.
        ``info["refine_on"]`` says where they ran (``"workers"`` or
        ``"threads"``, this process's, on a smaller graph),
        ``info["refine_workers"]`` how many V-cycles each worker ran.
    roots : sequence of labels, optional
        Root of tree ``i`` is ``roots[i mod len(roots)]`` (e.g.
        :func:`rapids_balance.balancing.graphbplus_roots` to replay graphB+).
    batch_size : int, optional
        Trees per batch (default 64), >= 1.  The memory cap is applied at batch
        boundaries, so it is part of the result's definition.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file: a column name or a
        0-based position (networkx: an edge attribute).  ``None``: taken from
        the format or a recognised header.  Refused with a built
        :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    FrustrationResult
        ``index``, ``tree_index``, ``refined_index``, ``best_state``,
        ``switched``, ``cloud``, ``history``.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is
        read or any work starts; ``memory_limit`` below one state and
        unknown ``roots`` right after the graph is built).
    GraphInputError
        The graph is unsigned, directed or disconnected.
    BackendUnavailableError
        ``backend="gpu"`` without a usable GPU.

    Notes
    -----
    A state is a bipartition up to swapping its sides; the cloud stores it
    canonically (internal vertex 0 on side 0), looks it up by a 64-bit hash
    and confirms equality bit for bit, so different states never merge.
    With a cap, the kept states are the ``max_states`` with fewest switches
    (ties: found first) after each batch; a kept state keeps counting its
    repeats, an evicted state seen again starts over as a new entry (its
    count and ``first_tree`` then cover only its later occurrences).  The
    best index is never evicted.

    Results depend only on the arguments, on any number of threads, without
    a ``time_limit`` (or with one far beyond the work).  With a limit, how
    much work fits (trees, the population's size, where V-cycles stop), hence
    the result, depends on the machine's speed and load: the same seed gives
    the same result for the same work, not for the same seconds.

    The refinement (not in graphB++) is a multilevel memetic tabu search over
    bipartitions (:mod:`rapids_balance.frustration_index._refine`): single-vertex
    moves, moves of contracted clusters, and recombination of states.  It
    starts from the best tree states and never returns a worse state than
    the best tree's.  It is deterministic for a given ``seed``.  How far the
    result can be from the optimum on a graph too large for
    :func:`frustration_index_exact`: :func:`frustration_lower_bound` packs
    edge-disjoint unbalanced cycles around ``best_state`` and proves
    ``index - bound`` as a bound on the gap.

    References
    ----------
    .. [1] M. Shebaro, J. Tešić, "Scaling Frustration Index and Balanced
       State Discovery for Real Signed Graphs" (graphB++).
    .. [2] G. Alabandi, J. Tešić, L. Rusnak, M. Burtscher, "Discovering and
       Balancing Fundamental Cycles in Large Signed Graphs" (graphB+), SC'21.

    Examples
    --------
    >>> from rapids_balance.graph import build_graph
    >>> g = build_graph([0, 1, 2, 2], [1, 2, 0, 3], sign=[1, 1, -1, -1])
    >>> res = frustration(g, n_trees=8, progress=False)
    >>> res.index, len(res.switched)
    (1, 1)
    """
    checked = time.perf_counter()
    p = _check_params("frustration", dict(
        n_trees=n_trees, sampler=sampler, seed=seed, refine=refine, max_states=max_states,
        memory_limit=memory_limit, time_limit=time_limit, backend=backend, progress=progress,
        client=client, roots=roots, batch_size=batch_size))
    # with a client: the check of its workers (a fresh worker imports the package to answer)
    cluster_s = 0.0 if client is None else time.perf_counter() - checked
    roles = check_roles(graph, "frustration", dict(source=source, target=target, sign=sign,
                                                   weight=weight))
    be = resolve_backend(backend)
    graph = graph_from_any(graph, signed=True, **roles)
    _check_signs(graph)
    cap = states_for_cap(graph.n, p["max_states"], p["memory_limit"])
    rp = p["refine"]
    if p["refine_auto"]:
        rp = default_refine(graph.m, p["refine_rounds"])
    trees = default_trees(graph.m) if p["n_trees"] is None else p["n_trees"]
    params = FrustrationParams(n_trees=trees, sampler=sampler, seed=p["seed"],
                               roots=p["roots"], backend=be, max_states=cap,
                               batch_size=p["batch_size"] or DEFAULT_BATCH)
    if params.roots is not None:
        check_root_labels(graph, params.roots, "frustration")
    pass_s, check_side = _check_graph(graph)
    # the tree stage's plan, relative to the clock's start (known before it starts): whether a
    # chunk of a lone tree can come, which alone compiles the tree-by-tree BFS
    no_room, _, single = _tree_stage(_Budget(0.0, deadline_of(-pass_s, p["time_limit"]), pass_s),
                                     graph.m, rp is not None, pass_s, params.backend)
    compile_s = _ready(params, rp, graph.m,
                       not no_room and _lone_tree(params, graph.n, p["time_limit"] is not None, single))
    workers_s = None
    spread = _refine_on_workers(client, rp, graph)
    if client is not None:  # the workers' kernels too, all at once, before the clock starts
        from ..distributed._run import ready_on_workers

        # the refinement's too when its V-cycles run there
        workers_s = ready_on_workers(client, _ready, params, *((rp, graph.m) if spread else (None,)))
        # a cluster's preparation counts (the workers' imports and cache loads), its
        # compiling does not
        cluster_s += workers_s.loading_s
    t0 = time.perf_counter()  # the clock starts once the graph is read and the kernels ready
    # ... but the connectivity check (a pass over the graph, seconds at 10^8 edges) counts
    deadline = deadline_of(t0 - pass_s - cluster_s, p["time_limit"])
    budget = _Budget(t0, deadline, pass_s)
    start = None
    no_room, tree_deadline, single = _tree_stage(budget, graph.m, rp is not None, pass_s,
                                                 params.backend)
    if no_room:
        # the first tree alone would overrun the limit: start from the check's own tree
        start = _cheap_start(graph, check_side)
        cloud = Cloud(max_states=params.max_states)
    else:
        cloud = _run_cloud(graph, params, progress, client, tree_deadline,
                           TREE_PASSES * pass_s, single)
    del check_side
    t_cloud = time.perf_counter() - t0
    res = _finalize(graph, cloud, params, rp, progress, t_cloud, budget, start,
                    client if spread else None)
    res.info["seconds_compile"] = compile_s
    if workers_s is not None:
        res.info["seconds_compile_workers"] = workers_s
        res.info["seconds_cluster"] = cluster_s
    res.info["seconds_search"] = time.perf_counter() - t0 + pass_s
    return res


@dataclass(frozen=True)
class _Budget:
    """A timed search's deadlines: ``search`` for the search itself, ``hard`` for the
    improving moves of the V-cycles it cut, ``final`` (the user's) for the whole call.

    The reserves are counted in passes of ``pass_s`` seconds (the connectivity BFS,
    timed on the machine as it is): the work after the search is one pass or two
    whatever the search found, and grows with the graph, so it is taken out of the
    limit instead of being added to it.
    """

    start: float
    final: float
    pass_s: float

    @property
    def hard(self) -> float:
        return max(self.start, self.final - FINAL_PASSES * self.pass_s)

    @property
    def search(self) -> float:
        return max(self.start, self.hard - UNWIND_PASSES * self.pass_s)


def _tree_stage(budget: _Budget, m: int, refining: bool, pass_s: float,
                backend: str = "cpu") -> tuple[bool, float, bool]:
    """The tree stage of a search on ``m`` edges: ``(no_room, deadline, single)``.

    ``no_room``: no tree fits (the search starts from the connectivity check's
    tree); ``deadline``: the end of the trees' share of the limit;
    ``single``: the first chunk holds one tree (a chunk would overrun the
    share, and the refinement needs a tree state, but one only).
    """
    deadline = budget.final
    if deadline != NO_DEADLINE and backend == "cpu" and _no_room_for_a_tree(budget, refining):
        return True, deadline, False
    if deadline != NO_DEADLINE and refining:
        share = TREE_SHARE if m <= LARGE_EDGES else LARGE_TREE_SHARE
        deadline = min(budget.search, budget.start + share * max(budget.search - budget.start, 0.0))
    return False, deadline, deadline != NO_DEADLINE and budget.start + TREE_PASSES * pass_s > deadline


def _lone_tree(params: FrustrationParams, n: int, timed: bool, single: bool) -> bool:
    """Can a chunk of this search's trees end in a lone tree past its blocks of
    ``BLOCK`` (a chunk of ``BLOCK * k + 1`` trees)?  Only such a tree goes
    through the tree-by-tree BFS (:func:`~..balancing._trees.block_split`),
    whose compiling (two seconds) a first call need not pay otherwise.  The
    chunks are those of :func:`_chunks`, batch by batch; samplers other than
    the BFS ones, and the GPU, are not told apart (True).
    """
    from ..balancing._trees import BLOCK

    if params.backend != "cpu" or params.sampler not in ("bfs", "bfs-random-root"):
        return True
    batch = max(1, params.batch_size)
    lengths = {min(batch, params.n_trees)} | ({params.n_trees % batch} - {0})
    if params.max_states is not None:  # a capped cloud's chunk is its batch
        sizes = lengths
    else:
        step = max(1, numba.get_num_threads())
        if not timed:
            step = max(step, CHUNK_BYTES // (TREE_BYTES * max(n, 1)))
        firsts = {min(batch, params.n_trees) - 1} if single else set()  # after the lone first
        sizes = {1} if single else set()
        for length in lengths | firsts:
            sizes |= {min(step, length), length % step} - {0}
    return any(size % BLOCK == 1 for size in sizes)


def _no_room_for_a_tree(budget: _Budget, refining: bool) -> bool:
    """True when the first tree (``TREE_PASSES`` passes) would end past the search's
    deadline (past the reserve of the work after it, without a refinement); a tree
    estimated under ``TREE_GRACE_S`` is always sampled."""
    end = budget.search if refining else budget.hard
    return TREE_PASSES * budget.pass_s > max(end - budget.start, TREE_GRACE_S)


def _cheap_start(graph, check_side: np.ndarray) -> tuple[np.ndarray, str]:
    """The first state of a search that has no time for a tree: the better of the
    connectivity check's BFS tree state and all vertices on one side (whose
    frustrated edges are the negative ones), with its name for ``info["start"]``."""
    if count_frustrated(graph, check_side) <= np.count_nonzero(graph.sign < 0):
        return check_side, "check-bfs"
    return np.zeros(graph.n, np.int8), "one-side"


def _ready(params: FrustrationParams, rp: RefineParams | None, m: int | None = None,
           lone_tree: bool = True) -> float:
    """Compile (or load) every kernel a search with these options calls, once per process.

    A tiny run through the same stages (trees of ``params.sampler``, the
    cloud and its cap, the refinement's levels, population, restarts and
    polish, the time-limited paths) on the same backend; see
    :mod:`rapids_balance._ready`.  Returns its seconds (0.0 once ready).  ``m``: the edge
    count of the graph to be searched, which bounds its coarse levels' sums, so that the
    refinement's kernels for sums it cannot reach are not compiled (None: all widths).
    ``lone_tree``: whether a chunk can end in a lone tree (:func:`_lone_tree`); if not, the
    tree-by-tree BFS is not compiled.
    """
    from .._ready import Side, ready, tiny_backend, tiny_signed_graph

    capped = params.max_states is not None
    wide = None if m is None else m > np.iinfo(np.int16).max  # int32 sums: compile_wide_levels
    key = ("frustration", params.backend, params.sampler, capped,
           None if rp is None else (rp.restarts > 0, rp.grow > 0), wide, lone_tree)
    tiny = None if rp is None else replace(
        rp, population=min(rp.population, 4), rounds=min(rp.rounds, 2), coarsest=8,
        restarts=min(rp.restarts, 1))

    def trees(n_trees: int, refine) -> None:
        frustration(tiny_signed_graph(), n_trees, sampler=params.sampler, seed=params.seed,
                    refine=refine, max_states=2 if capped else None, time_limit=3600.0,
                    backend=tiny_backend(params.backend), progress=False)

    def job():
        trees(4, False if tiny is None else tiny)
        if tiny is not None:
            compile_wide_levels(tiny_signed_graph(), m)
        if lone_tree:  # a chunk of a single tree (a limit shorter than a chunk's trees)
            trees(1, False)

    side = None
    if tiny is not None and params.backend == "cpu":
        from ._refine import _match

        # the refinement's kernels (about half of the compiling) in a second process while
        # this one compiles the trees'
        def first():
            trees(4, False)
            if lone_tree:
                trees(1, False)

        side = Side(f"{__name__}:ready_refinement",
                    {"refine": asdict(tiny), "seed": params.seed, "m": m}, _match, first)
    return ready(key, job, side)


def ready_refinement(refine: dict, seed: int, m: int | None) -> None:
    """Compile (or load) the refinement's kernels alone: the side process of :func:`_ready`.

    The refinement (``refine``: :class:`RefineParams` fields) of a tiny graph from one start
    state under a deadline, the parallel descent after it, and the wide levels of a graph
    of ``m`` edges (:func:`compile_wide_levels`): the calls, with the types, of a timed
    search's refinement.
    """
    from .._ready import tiny_signed_graph

    graph = tiny_signed_graph()
    start = np.where(np.arange(graph.n) % 2 == 0, 1, -1).astype(np.int8)
    signs = slot_signs(graph)
    deadline = time.perf_counter() + 3600.0
    x, _ = refine_states(graph, [start], seed=seed, params=RefineParams(**refine),
                         deadline=deadline, hard=deadline, signs=signs)
    parallel_descent(graph, x, seed=seed, deadline=deadline, signs=signs)
    compile_wide_levels(graph, m)


def _check_signs(graph) -> None:
    if graph.sign is None:
        raise GraphInputError("frustration needs a signed graph (a sign for every edge)")
    if graph.directed:
        raise GraphInputError("frustration needs an undirected signed graph")


def _check_graph(graph) -> tuple[float, np.ndarray]:
    """Refuse a disconnected graph; returns the seconds of the check, a pass over the graph
    (what a timed search counts its reserves in, see :class:`_Budget`), and the state of
    its BFS tree (the first state of a search with no time for a sampled tree)."""
    # a BFS over the CSR: no matrix copy (seconds and ~50 bytes per edge at 10^7 edges);
    # loaded (or compiled) first on no vertex, so that the pass is timed alone
    bfs_sides(graph.indptr[:1], graph.indices, graph.slot_edge, graph.sign)
    start = time.perf_counter()
    reached, side = bfs_sides(graph.indptr, graph.indices, graph.slot_edge, graph.sign)
    if reached != graph.n:
        raise GraphInputError("frustration needs a connected graph; build it with "
                              "component='largest'")
    return time.perf_counter() - start, side


def _run_cloud(graph, params: FrustrationParams, progress: bool, client,
               deadline: float = NO_DEADLINE, estimate: float = 0.0,
               single: bool = False) -> Cloud:
    """The cloud of ``params.n_trees`` trees, or of those sampled before ``deadline``.

    No chunk of trees starts that would end past ``deadline`` at the pace of
    the faster of the two before (``estimate`` seconds for the first; one
    slow chunk, a pause of the machine, does not end the sampling).  The first chunk
    always runs; with ``single`` it holds one tree (a chunk holds one per
    thread, but costs more than one tree).
    """
    batches = _batches(params)
    cloud = Cloud(max_states=params.max_states)
    last = math.inf  # seconds of the last chunk
    if client is not None:
        from ..distributed._run import run_batches

        # the parts come back in batch order and are merged here: the state cap is per call
        if deadline == NO_DEADLINE:
            return run_batches(client, graph, _cloud_partial, batches, params,
                               fold=lambda parts: _merge_clouds(parts, params, cloud),
                               progress=progress, desc="frustration")
        # a limit: every task stops its trees at the deadline (a wall-clock instant, the one
        # clock the workers share), chunk by chunk as the single process does
        wall = wall_deadline(deadline)
        return run_batches(client, graph, _cloud_parts_until, batches,
                           (params, wall, estimate, single),
                           fold=lambda parts: _merge_timed(parts, params, cloud),
                           progress=progress, desc="frustration", until=wall)
    group = _device_batches(graph, params) if deadline == NO_DEADLINE else 1
    if group > 1:  # the device fills with several batches' trees at once; parts stay per batch
        with progress_bar(params.n_trees, "frustration trees", progress, unit="tree") as bar:
            for i in range(0, len(batches), group):
                for part in _cloud_parts(graph, [batches[j] for j in
                                                 range(i, min(i + group, len(batches)))], params):
                    _merge_clouds([part], params, cloud)
                    bar.set_postfix_str(f"best {cloud.best}, states {len(cloud)}", refresh=False)
                    bar.update(part.n_trees)
        return cloud
    with progress_bar(params.n_trees, "frustration trees", progress, unit="tree") as bar:
        for b in batches:
            rows = len(cloud.history)
            for chunk in _chunks(b, params, deadline, graph.n, single and cloud.n_trees == 0):
                if cloud.n_trees > 0 and passed(deadline - estimate):
                    return cloud
                t = time.perf_counter()
                _merge_clouds([_cloud_partial(graph, chunk, params)], params, cloud, whole_batches=False)
                took = time.perf_counter() - t
                estimate, last = min(last, took), took
                # no forced redraw: the bar redraws at its own pace (a log file gets a few lines)
                bar.set_postfix_str(f"best {cloud.best}, states {len(cloud)}", refresh=False)
                bar.update(len(chunk))
            cloud.history[rows:] = cloud.history[-1:]  # one history row per batch, chunked or not
            thin_history(cloud.history)
    return cloud


def _cloud_parts_until(graph, tree_ids, args) -> list[CloudPart]:
    """One batch of a timed cloud on a worker: its chunks' parts, those that end before the
    wall-clock deadline (the first chunk of the first batch always runs: the search needs
    a tree state).  ``args``: the params, the ``time.time()`` deadline, the first chunk's
    estimated seconds and ``single`` (the first chunk holds one tree)."""
    params, wall, estimate, single = args
    deadline = local_deadline(wall)
    first = tree_ids.start == 0
    parts: list[CloudPart] = []
    last = math.inf
    for chunk in _chunks(tree_ids, params, deadline, graph.n, single and first):
        if (parts or not first) and passed(deadline - estimate):
            break
        t = time.perf_counter()
        parts.append(_cloud_partial(graph, chunk, params))
        took = time.perf_counter() - t
        estimate, last = min(last, took), took
    return parts


def _merge_timed(batches: Sequence[list[CloudPart]], params: FrustrationParams,
                 cloud: Cloud) -> Cloud:
    """Fold the timed batches' chunk parts in tree order, as the single process folds
    its chunks (history thinned once per batch); batches after the first cut short hold
    no tree of the cloud (a tree id past the deadline is never merged)."""
    for parts in batches:
        rows = len(cloud.history)
        _merge_clouds(parts, params, cloud, whole_batches=False)
        if len(cloud.history) > rows:
            cloud.history[rows:] = cloud.history[-1:]
            thin_history(cloud.history)
    return cloud


def _chunks(batch, params: FrustrationParams, deadline: float, n: int, single: bool = False):
    """The batch in pieces small enough to stop near ``deadline`` and to bound the memory.

    With a state cap (applied per batch, so part of the result's
    definition), the batch itself.  Else, with a deadline, chunks of as many
    trees as threads; without one, chunks whose trees take at most
    ``CHUNK_BYTES`` (at least as many trees as threads), so a large graph
    never holds a whole batch of trees at once.  Without a cap the cloud does
    not depend on how the trees are cut (states keep their order of first
    appearance and exact counts), so chunks change no result.  ``single``:
    the first chunk holds one tree.
    """
    if params.max_states is not None:
        yield batch
        return
    step = max(1, numba.get_num_threads())
    if deadline == NO_DEADLINE:
        step = max(step, CHUNK_BYTES // (TREE_BYTES * max(n, 1)))
    first = 1 if single else 0
    if first:
        yield batch[:first]
    for i in range(first, len(batch), step):
        yield batch[i:i + step]


def _refine_on_workers(client, rp: RefineParams | None, graph) -> bool:
    """Whether the refinement's V-cycles run on ``client``'s workers: with a client, a
    refinement and a graph of at least ``CLUSTER_REFINE_EDGES`` edges (on a smaller one a
    V-cycle costs no more than a task's round trip: the caller's threads run them)."""
    from ._refine_cluster import CLUSTER_REFINE_EDGES

    return client is not None and rp is not None and graph.m >= CLUSTER_REFINE_EDGES


def _refined(graph, starts: list, params: FrustrationParams, rp: RefineParams, progress: bool,
             search: float, hard: float, rounds_log: list[int], client=None,
             where: dict | None = None) -> np.ndarray:
    """The refinement from ``starts`` (±1 vectors), then the parallel descent: the best
    state's sides (int8 0/1, vertex 0 on side 0); the best index after each round is
    appended to ``rounds_log``.  With ``client`` the V-cycles run on its workers
    (:class:`~._refine_cluster.ClusterVCycles`); ``where`` gets what ran where."""
    runner = None
    if client is not None:
        from ._refine_cluster import ClusterVCycles

        runner = ClusterVCycles(client, graph, rp, search, hard)
    with progress_bar(rp.rounds + 1, "refine", progress, unit="round") as bar:
        def report(best):
            rounds_log.append(int(best))
            bar.update(1)
            bar.set_postfix_str(f"best {best}", refresh=False)

        signs = slot_signs(graph)
        x, _ = refine_states(graph, starts, seed=params.seed, params=rp, progress=report,
                             deadline=search, hard=hard, signs=signs, runner=runner)
    if where is not None:
        where["refine_on"] = "threads" if runner is None else "workers"
        if runner is not None:
            where["refine_tasks"] = runner.tasks
            where["refine_workers"] = dict(sorted(runner.workers.items()))
    x, _ = parallel_descent(graph, x, seed=params.seed, backend=params.backend,
                            deadline=search, signs=signs)
    side = (x < 0).astype(np.int8)
    return (side != side[0]).astype(np.int8)


def _finalize(graph, cloud: Cloud, params: FrustrationParams, rp: RefineParams | None,
              progress: bool, t_cloud: float, budget: _Budget | None = None,
              start: tuple[np.ndarray, str] | None = None, client=None) -> FrustrationResult:
    """The result: the cloud's table, the refinement from its best states (or from
    ``start``, a side vector and its name, when no tree was sampled), the tables.  With
    ``client`` the refinement's V-cycles run on its workers."""
    deadline = NO_DEADLINE if budget is None else budget.final
    k = len(cloud)
    order = cloud.best_positions(k)
    first = np.asarray(cloud.first_tree, np.int64)
    sid = np.empty(k, np.int64)  # state ids in order of discovery
    sid[np.argsort(first, kind="stable")] = np.arange(k)
    frame = make_table({
        "state": sid[order],
        "count": np.asarray(cloud.counts, np.int64)[order],
        "switches": np.asarray(cloud.switches, np.int64)[order],
        "sampler": [SAMPLERS[cloud.sampler[i]] for i in order],
        "first_tree": first[order],
    }, like=graph)
    words = [cloud.words[i] for i in order]
    hist_rows = [("trees", t, 0, b) for t, b in cloud.history]
    tree_index = cloud.best if k else None
    if k:
        best_side, start_name = words_to_sides(words[0], graph.n), "trees"
    elif start is not None:
        best_side, start_name = start
    else:
        best_side, start_name = np.zeros(graph.n, np.int8), None
    refined_index = side = None
    t1 = time.perf_counter()
    rounds_log: list[int] = []
    where: dict[str, Any] = {"refine_on": None}
    search = hard = deadline
    if budget is not None and deadline != NO_DEADLINE:
        search, hard = budget.search, budget.hard
    if rp is not None:
        # past ``hard`` no move is made: the refinement would return its first start, after
        # seconds of set-up on a large graph (the signs of the slots, a count)
        side = best_side
        if not passed(hard):
            starts = [np.where(words_to_sides(w, graph.n) > 0, -1, 1).astype(np.int8)
                      for w in words[:max(1, (rp.population + 1) // 2)]]
            if start is not None:
                starts = [np.where(best_side > 0, -1, 1).astype(np.int8)]
            side = _refined(graph, starts, params, rp, progress, search, hard, rounds_log,
                            client, where)
        refined_index = count_frustrated(graph, side)
        rounds_log = rounds_log or [refined_index]
        if tree_index is None or refined_index <= tree_index:
            best_side = side
        hist_rows += [("refine", cloud.n_trees, r, b) for r, b in enumerate(rounds_log)]
    index = refined_index if best_side is side else count_frustrated(graph, best_side)
    hist = make_table({"stage": [r[0] for r in hist_rows],
                       **{c: np.array([r[i] for r in hist_rows], np.int64)
                          for i, c in enumerate(("trees", "round", "index"), 1)}}, like=graph)
    info = {"trees": cloud.n_trees, "states": k, "evicted": cloud.evicted,
            "max_states": params.max_states, "seconds_cloud": t_cloud,
            "seconds_refine": time.perf_counter() - t1 if rp is not None else 0.0,
            "backend": params.backend, "start": start_name,
            "stopped": "time_limit" if cloud.n_trees < params.n_trees or passed(search) else None,
            # which stage the limit cut short: the trees (their share of it ended before
            # n_trees), the refinement (the limit itself ended)
            "stopped_stages": [stage for stage, cut in (("trees", cloud.n_trees < params.n_trees),
                                                        ("refine", rp is not None and passed(search)))
                               if cut],
            **where}
    res = FrustrationResult(index=int(index), tree_index=tree_index, refined_index=refined_index,
                            best_state=state_frame(graph, best_side),
                            switched=switched_frame(graph, best_side), cloud=frame, history=hist,
                            params={**asdict(params), "refine": None if rp is None else asdict(rp)},
                            info=info, _cloud_words=words)
    res.params.pop("hash_mask", None)
    return res
