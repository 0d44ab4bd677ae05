"""One GRASP or ILS restart, the unit of work of both drivers and of a Dask run.

:func:`_restart` is a pure function of (graph, restart id, params): a
construction (GRASP or a V-cycle), the local search, and for ILS the
perturbation loop.  The sequential drivers (:mod:`._solve`) and the
scale-out hook (:mod:`._scale_out`) both call it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._deadline import NO_DEADLINE, passed
from ..graph import Graph
from . import _cpu
from ._multilevel import CLASSIC_SWEEPS, coarsen, v_cycle
from ._objective import canonical, imbalance_value
from ._state import CPUState, Level

DENSE = 0.05          # density from which "auto" picks the dense-graph ILS flavour
PAPER_ILS_MAX = 5     # Levorato et al.'s iterMaxILS
DENSE_ILS_MAX = 20    # failed tries per level with plateau moves (see correlation_clustering)


# -- one restart: the unit of work of GRASP / ILS -----------------------------------

def _restart(graph: Graph, restart_id: int, params: dict[str, Any]) -> tuple[np.ndarray, float]:
    """One GRASP or ILS restart: construction, VND, and (ILS) perturbation loop.

    ``params`` holds ``method`` ("grasp"/"ils"), ``seed``, ``max_clusters``
    (0: unbounded), ``alpha``, ``construction``, ``local_search``,
    ``perturbation_max``, ``ils_max``, ``perturbation``, ``plateau``, ``merge_moves``
    (None: "auto", see :func:`correlation_clustering`), ``backend`` ("cpu"/"gpu") and
    ``deadline`` (a ``time.perf_counter()`` value or None).  A pure function
    of its arguments when ``deadline`` is None, so restarts may run anywhere
    (a Dask worker) and be reduced as :func:`correlation_clustering` does:
    lowest imbalance, ties to the smallest restart id.  Returns (labels in
    internal vertex order, numbered by first appearance; imbalance).
    """
    level = params.get("_level") or Level.of_graph(graph)
    seed = int(params["seed"])
    maxc = int(params.get("max_clusters") or 0)
    stream = 7919 * (restart_id + 1)
    labels = _construct(level, restart_id, params)
    st = CPUState(level, labels, maxc, log_capacity=max(4096, level.n),
                  deadline=_deadline(params))
    _local_search(st, params)
    if params["method"] == "ils":
        kinds = _kick_kinds(level, restart_id, params.get("perturbation", "auto"))
        dense = _is_dense(level)
        plateau = _auto(params.get("plateau"), True)
        merge = _auto(params.get("merge_moves"), dense)
        ils_max = params.get("ils_max")
        if ils_max is None:
            ils_max = DENSE_ILS_MAX if plateau and dense else PAPER_ILS_MAX
        _ils_loop(st, seed, stream, int(params["perturbation_max"]), int(ils_max),
                  params.get("deadline"), kinds, plateau, merge)
    lab = canonical(st.labels)
    return lab, float(imbalance_value(graph, lab))


def _deadline(params: dict[str, Any]) -> float:
    """``params["deadline"]`` as the kernels take it (``NO_DEADLINE`` for None)."""
    deadline = params.get("deadline")
    return NO_DEADLINE if deadline is None else float(deadline)


def _is_dense(level: Level) -> bool:
    n = level.n
    return level.indices.size >= DENSE * max(n * (n - 1), 1)


def _auto(flag: bool | None, default: bool) -> bool:
    return default if flag is None else bool(flag)


def _kick_kinds(level: Level, restart_id: int, perturbation: str) -> int:
    """1: single-vertex kicks; 3: the first kick may merge or split a cluster.

    ``"auto"``: mixed kicks on dense graphs (density >= 5 %: they won 6 of the
    paper's random instances in 60 s); on sparse graphs even restarts use
    vertex kicks and odd ones mixed kicks (Slashdot first-8000/10000: mixed
    kicks alone gave 16,092 / 20,595, alternating 16,060 / 20,561).
    """
    if perturbation == "vertex":
        return 1
    if perturbation == "mixed":
        return 3
    return 3 if _is_dense(level) or restart_id % 2 == 1 else 1


def _construct(level: Level, restart_id: int, params: dict[str, Any]) -> np.ndarray:
    seed = int(params["seed"])
    maxc = int(params.get("max_clusters") or 0)
    how = "grasp" if params["method"] == "grasp" else params["construction"]
    if how == "auto":
        # alternate: even restarts are the paper's GRASP construction, odd ones
        # a multilevel V-cycle (better on large sparse graphs); best restart wins
        how = "grasp" if restart_id % 2 == 0 else "multilevel"
    if how == "multilevel":
        return v_cycle(level, seed, 1000 * (restart_id + 1), None, maxc,
                       deadline=_deadline(params), classic=True)
    lab = np.zeros(level.n, np.int32)
    _cpu.grasp_construct(level.indptr, level.indices, level.a, float(params["alpha"]), seed,
                         restart_id + 1, maxc, lab)
    return lab


def _local_search(st: CPUState, params: dict[str, Any]) -> None:
    """VND on the state: best-move (paper) or parallel rounds, on the chosen backend."""
    mode = params["local_search"]
    if mode == "auto":
        # the best-move VND is the fastest on a CPU (Slashdot: 2 s vs 4 s for
        # parallel rounds); "auto" must not depend on the backend, or CPU and
        # GPU results would differ
        mode = "best"
    if params.get("backend") == "gpu":
        from ._gpu import GPUState

        gs = GPUState(st.level, st.labels, st.maxc)
        gs.parallel() if mode == "parallel" else gs.vnd_best()
        st.reset(gs.host_labels())
    elif mode == "parallel":
        st.parallel()
    # the best-move pass ends every search so the result is a 1-opt optimum
    st.vnd_best()


def _ils_loop(st: CPUState, seed: int, stream: int, perturbation_max: int, ils_max: int,
              deadline: float | None, kinds: int = 1, plateau: bool = False,
              merge: bool = False) -> None:
    """Levorato et al.'s ILS: perturb ``level`` vertices, VND, keep if better;
    after ``ils_max`` failures raise the level, after a success reset it to 1.
    With ``plateau`` a perturbation that ends at an equal imbalance is kept
    too (a walk on the plateau; it still counts as a failure)."""
    counter = 0
    level = 1
    descend = st.vnd_merge if merge else st.vnd_best
    if merge:
        descend()
    st.save()
    while level <= perturbation_max:
        improved = False
        for _ in range(ils_max):
            if deadline is not None and passed(deadline):
                return
            st.start_log()
            change = st.perturb(level, seed, stream, counter, kinds)
            counter += 4 * level
            _, gain = descend()
            if change + gain < -st.tol:
                st.save()
                improved = True
                break
            if plateau and change + gain <= st.tol:
                st.save()
            else:
                st.rollback()
        level = 1 if improved else level + 1


# -- the two halves of a tiny run's kernels (see _solve._ready) --------------------

def classic_construction(method: str, construction: str) -> bool:
    """Whether restarts of ``method`` may be built by the classic V-cycle (:func:`_construct`)."""
    return method == "ils" and construction in ("auto", "multilevel")


def ready_construction(weighted: bool, max_clusters: int, seed: int, grasp: bool,
                       levels: bool) -> None:
    """Compile (or load) the constructions' kernels on a tiny graph, with a search's types.

    ``grasp``: the GRASP construction (also the multilevel search's start under
    ``n_clusters``); ``levels``: the label propagation and the contraction of a
    V-cycle's coarsening, from singletons and inside a clustering, and the
    objective.  None of the local search's kernels (:func:`ready_local_search`):
    run in a side process of :func:`rapids_balance._ready.ready`.
    """
    from .._ready import tiny_signed_graph

    graph = tiny_signed_graph(weighted)
    level = Level.of_graph(graph)
    deadline = time.perf_counter() + 3600.0
    labels = np.zeros(level.n, np.int32)
    if grasp:
        _cpu.grasp_construct(level.indptr, level.indices, level.a, 1.0, seed, 1, max_clusters,
                             labels)
    if levels:
        _, _, top, _ = coarsen(level, seed, 1, None, deadline, CLASSIC_SWEEPS, 0)
        coarsen(level, seed, 2, np.arange(level.n, dtype=np.int32) % 4, deadline)
        labels = canonical(np.asarray(top))
    imbalance_value(graph, canonical(labels))


def ready_local_search(weighted: bool, max_clusters: int, seed: int, method: str,
                       params: dict[str, Any]) -> None:
    """Compile (or load) the local search's kernels on a tiny graph, with a search's types.

    The sums' tables, the finest sweeps of the classic V-cycle (when ``method``
    builds restarts with it), the VND of ``params["local_search"]`` and, for
    ILS, its perturbation loop with the plateau and merge moves the tiny graph
    takes; none of :func:`ready_construction`'s kernels.
    """
    from .._ready import tiny_signed_graph

    level = Level.of_graph(tiny_signed_graph(weighted))
    st = CPUState(level, np.arange(level.n, dtype=np.int32) % 4, max_clusters,
                  log_capacity=max(4096, level.n), deadline=time.perf_counter() + 3600.0)
    _local_search(st, {"local_search": params.get("local_search", "auto"), "backend": "cpu"})
    if method == "ils":
        dense = _is_dense(level)
        _ils_loop(st, seed, 7919, 2, 2, None, _kick_kinds(level, 1, params.get("perturbation", "auto")),
                  _auto(params.get("plateau"), True), _auto(params.get("merge_moves"), dense))
    if classic_construction(method, params.get("construction", "auto")):
        # last: by then the side has cached the random order that these sweeps share with
        # the constructions, and it is loaded, not compiled again
        st.sweeps(seed, 1, max_sweeps=2)
