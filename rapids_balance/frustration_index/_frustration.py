"""``frustration()``: tree samplers -> frustration cloud -> refinement.

The trees are cut into fixed batches of ids (``batch_size``, default 64).
:func:`_cloud_partial` turns one batch into a :class:`~._cloud.CloudPart`,
:func:`_merge_clouds` folds parts into the cloud in batch order.  The
single-process path and a Dask run (``client=``) use the same batches and
the same fold, so they return the same cloud, bit for bit.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._output import frames_like_input
from .._progress import progress_bar
from ..backend import resolve_backend
from ..errors import GraphInputError
from ..graph import graph_from_any
from ._cloud import Cloud, CloudPart, build_part, merge_part, states_for_cap
from ._refine import RefineParams, parallel_descent, refine as refine_states
from ._result import FrustrationResult, state_frame, switched_frame
from ._samplers import SAMPLERS, sample_trees
from ._states import count_frustrated, tree_states, words_to_sides

__all__ = ["frustration", "FrustrationParams", "_cloud_partial", "_merge_clouds"]

DEFAULT_BATCH = 64
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


def _batches(params: FrustrationParams) -> list[range]:
    b = params.batch_size
    return [range(a, min(a + b, params.n_trees)) for a in range(0, params.n_trees, b)]


def _cloud_partial(graph, tree_ids, params: FrustrationParams) -> CloudPart:
    """Distinct balanced states of trees ``tree_ids`` (one batch; pure).

    Tree ``i`` is built from the seed ``params.seed + i`` whichever batch
    holds it.
    """
    tree_ids = np.asarray(list(tree_ids), dtype=np.int64)
    from ..balancing._trees import path_signs

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
    return build_part(words, hashes, switches, tree_ids, codes, params.max_states)


def _merge_clouds(parts: Sequence[CloudPart], params: FrustrationParams,
                  cloud: Cloud | None = None) -> Cloud:
    """Fold parts (in batch order) into ``cloud`` (a new one by default)."""
    if cloud is None:
        cloud = Cloud(max_states=params.max_states)
    for part in parts:
        merge_part(cloud, part)
    return cloud


def _parse_refine(refine) -> RefineParams | None:
    if refine is False or refine is None:
        return None
    if refine is True:
        return RefineParams()
    if isinstance(refine, RefineParams):
        return refine
    if isinstance(refine, dict):
        return RefineParams(**refine)
    if isinstance(refine, (int, np.integer)) and not isinstance(refine, bool) and refine >= 0:
        return RefineParams(rounds=int(refine))
    raise ValueError("refine must be True/False, a number of rounds, a dict of "
                     f"RefineParams fields or a RefineParams, got {refine!r}")


@frames_like_input(dask_fields=("switched",))
def frustration(graph: Any, n_trees: int = 1000, *, sampler: str = "bfs", seed: int = 0,
                refine: Any = True, max_states: int | None = None,
                memory_limit: int | None = None, backend: str = "auto", progress: bool = True,
                client: Any = None, roots: Sequence[Any] | None = None,
                batch_size: int | None = None) -> FrustrationResult:
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
    n_trees : int, default 1000
        Spanning trees to sample (0 with ``refine`` searches bipartitions only).
    sampler : {"bfs", "bfs-random-root", "dfs", "rdfs", "hybrid", "kruskal", "uniform"}
        Tree sampler (see :mod:`rapids_balance.frustration_index._samplers`).
    seed : int, default 0
        Tree ``i`` uses ``seed + i``; the refinement derives its draws from ``seed``.
    refine : bool, int, dict or RefineParams, default True
        Local-search refinement of the best states: True for the default
        effort, an int for that many recombination rounds, False for the
        tree-only estimate of graphB++.
    max_states : int, optional
        Keep at most this many states in the cloud (graphB++ Alg. 3).
    memory_limit : int, optional
        Bytes the stored states may take; converted into a state cap.
    backend : {"auto", "cpu", "gpu"}
        Where BFS trees, path signs, state words and move gains are computed.
    progress : bool, default True
        Progress bar over tree batches (and refinement rounds).
    client : distributed.Client, optional
        Run the tree batches on a Dask cluster (same result as locally).
    roots : sequence of labels, optional
        Root of tree ``i`` is ``roots[i mod len(roots)]`` (e.g.
        :func:`rapids_balance.balancing.graphbplus_roots` to replay graphB+).
    batch_size : int, optional
        Trees per batch (default 64).  The memory cap is applied at batch
        boundaries, so it is part of the result's definition.

    Returns
    -------
    FrustrationResult
        ``index``, ``tree_index``, ``refined_index``, ``best_state``,
        ``switched``, ``cloud``, ``history``.

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
    graph = graph_from_any(graph)
    _validate(graph, n_trees, sampler)
    be = resolve_backend(backend)
    cap = states_for_cap(graph.n, max_states, memory_limit)
    rp = _parse_refine(refine)
    if n_trees == 0 and rp is None:
        raise ValueError("n_trees=0 with refine=False computes nothing; sample trees or refine")
    if batch_size is not None and int(batch_size) < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size!r}")
    params = FrustrationParams(n_trees=int(n_trees), sampler=sampler, seed=int(seed),
                               roots=None if roots is None else tuple(roots), backend=be,
                               max_states=cap, batch_size=int(batch_size or DEFAULT_BATCH))
    t0 = time.perf_counter()
    cloud = _run_cloud(graph, params, progress, client)
    t_cloud = time.perf_counter() - t0
    return _finalize(graph, cloud, params, rp, progress, t_cloud)


def _validate(graph, n_trees, sampler) -> None:
    if graph.sign is None:
        raise GraphInputError("frustration needs a signed graph (a sign for every edge)")
    if graph.directed:
        raise GraphInputError("frustration needs an undirected signed graph")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if isinstance(n_trees, bool) or not isinstance(n_trees, (int, np.integer)) or n_trees < 0:
        raise ValueError(f"n_trees must be a non-negative integer, got {n_trees!r}")
    from scipy.sparse.csgraph import connected_components

    if graph.n > 1 and connected_components(graph._scipy_matrix(), directed=False)[0] != 1:
        raise GraphInputError("frustration needs a connected graph; build it with "
                              "component='largest'")


def _run_cloud(graph, params: FrustrationParams, progress: bool, client) -> Cloud:
    batches = _batches(params)
    cloud = Cloud(max_states=params.max_states)
    if client is not None:
        from ..distributed._map import check_client, map_batches

        check_client(client)
        parts = map_batches(client, graph, _cloud_partial, batches, params, progress=progress,
                            desc="frustration")
        return _merge_clouds(parts, params, cloud)
    with progress_bar(params.n_trees, "frustration trees", progress, unit="tree") as bar:
        for b in batches:
            _merge_clouds([_cloud_partial(graph, b, params)], params, cloud)
            bar.update(len(b))
            bar.set_postfix_str(f"best {cloud.best}, states {len(cloud)}")
    return cloud


def _finalize(graph, cloud: Cloud, params: FrustrationParams, rp: RefineParams | None,
              progress: bool, t_cloud: float) -> FrustrationResult:
    k = len(cloud)
    order = cloud.best_positions(k)
    first = np.asarray(cloud.first_tree, np.int64)
    sid = np.empty(k, np.int64)  # state ids in order of discovery
    sid[np.argsort(first, kind="stable")] = np.arange(k)
    frame = pd.DataFrame({
        "state": sid[order],
        "count": np.asarray(cloud.counts, np.int64)[order],
        "switches": np.asarray(cloud.switches, np.int64)[order],
        "sampler": [SAMPLERS[cloud.sampler[i]] for i in order],
        "first_tree": first[order],
    })
    words = [cloud.words[i] for i in order]
    hist_rows = [("trees", t, 0, b) for t, b in cloud.history]
    tree_index = cloud.best if k else None
    best_side = words_to_sides(words[0], graph.n) if k else np.zeros(graph.n, np.int8)
    refined_index = None
    t1 = time.perf_counter()
    rounds_log: list[int] = []
    if rp is not None:
        starts = [np.where(words_to_sides(w, graph.n) > 0, -1, 1).astype(np.int8)
                  for w in words[:max(1, (rp.population + 1) // 2)]]
        with progress_bar(rp.rounds + 1, "refine", progress, unit="round") as bar:
            def report(best):
                rounds_log.append(int(best))
                bar.update(1)
                bar.set_postfix_str(f"best {best}")

            x, _ = refine_states(graph, starts, seed=params.seed, params=rp, progress=report)
        x, _ = parallel_descent(graph, x, seed=params.seed, backend=params.backend)
        side = (x < 0).astype(np.int8)
        side = (side != side[0]).astype(np.int8)
        refined_index = count_frustrated(graph, side)
        if tree_index is None or refined_index <= tree_index:
            best_side = side
        hist_rows += [("refine", params.n_trees, r, b) for r, b in enumerate(rounds_log)]
    index = count_frustrated(graph, best_side)
    hist = pd.DataFrame(hist_rows, columns=["stage", "trees", "round", "index"]).astype(
        {"trees": np.int64, "round": np.int64, "index": np.int64})
    info = {"trees": cloud.n_trees, "states": k, "evicted": cloud.evicted,
            "max_states": params.max_states, "seconds_cloud": t_cloud,
            "seconds_refine": time.perf_counter() - t1 if rp is not None else 0.0,
            "backend": params.backend}
    res = FrustrationResult(index=int(index), tree_index=tree_index, refined_index=refined_index,
                            best_state=state_frame(graph, best_side),
                            switched=switched_frame(graph, best_side), cloud=frame, history=hist,
                            params={**asdict(params), "refine": None if rp is None else asdict(rp)},
                            info=info, _cloud_words=words)
    res.params.pop("hash_mask", None)
    return res
