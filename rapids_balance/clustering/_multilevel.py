"""Multilevel correlation clustering: label propagation, contraction, refinement.

One *V-cycle*:

1. coarsen: on the current level, label propagation from singletons (sweeps
   of exact 1-opt moves in a seeded random order) groups vertices; the groups
   are contracted into one vertex each (:func:`._cpu.contract`, edge weight =
   net signed weight between groups); repeat while the graph shrinks;
2. the coarsest clustering is the last label-propagation result (or, in a
   later cycle, the current solution, see below);
3. uncoarsen: project the clustering one level down and improve it with
   1-opt moves at every level; at the input level finish with the paper's
   best-move VND, so the result is a 1-opt local optimum.

Later cycles coarsen *inside* the clusters of the best solution so far (a
vertex may only join groups of its own cluster) and start the uncoarsening
from that solution, so a cycle never makes it worse; the seeded random
orders make each cycle explore differently (iterated multilevel search, as
in Hausberger, Faraj and Schulz's ScalableCorrelationClustering).
"""

from __future__ import annotations

import numba
import numpy as np

from . import _cpu
from .._deadline import NO_DEADLINE, passed
from ._objective import canonical
from ._state import CPUState, Level, propagate

COARSEN_SWEEPS = 1        # label-propagation sweeps per coarsening level (more gave no better cycles)
CLASSIC_SWEEPS = 5        # the same in the classic cycle (see v_cycle)
REFINE_SWEEPS = 50        # sweeps per level while uncoarsening (stops at a local optimum)
MIN_SHRINK = 0.97         # stop coarsening when a level keeps more than this share of vertices
MAX_LEVELS = 40
#: levels with fewer CSR slots are contracted in one thread (a parallel launch costs more)
CONTRACT_PARALLEL_MIN_SLOTS = 1 << 20
CAP_LEVELS = 6            # levels whose label propagation groups at most CAP_BASE * CAP_GROWTH**level
CAP_BASE = 2              # input vertices
CAP_GROWTH = 2
#: above this many CSR slots (edges counted twice), and in the first V-cycle, the coarsening is
#: uncapped: capped levels of a sparse power-law graph shrink its edges by a few per cent each
#: (10^7 edges: seven levels of 8.5-9.5M edges, one V-cycle 136 s at 0.95x the planted cost;
#: uncapped: two levels, 46 s, 0.85x; 6*10^5 edges: 4.2 s at 1.12x, uncapped 1.5 s at 0.85x)
CAP_MAX_SLOTS = 4_000_000


def coarsen(level0: Level, seed: int, stream: int, constraint: np.ndarray | None,
            deadline: float = NO_DEADLINE, sweeps: int = COARSEN_SWEEPS,
            cap_levels: int = CAP_LEVELS):
    """Hierarchy of levels and maps (fine vertex -> coarse vertex).

    The first ``cap_levels`` levels group at most ``CAP_BASE * CAP_GROWTH**level``
    input vertices (size-constrained label propagation, ``sweeps`` sweeps per
    level): small groups first, so the hierarchy has several levels and each
    refinement moves pieces of a useful size (full Slashdot, one V-cycle from
    singletons: 68,900 instead of 69,730 without the cap).

    Returns ``levels, maps, top_labels, top_constraint`` where ``top_labels``
    is the label-propagation clustering of the coarsest level.  No level is
    added after ``deadline``.
    """
    levels = [level0]
    maps: list[np.ndarray] = []
    cur = level0
    cons = constraint
    weight = np.ones(level0.n, np.int64)
    capped = cap_levels
    while True:
        if passed(deadline):  # this level's sums would cost a pass over it: its vertices stay apart
            return levels, maps, np.arange(cur.n, dtype=np.int32), cons
        cap = CAP_BASE * CAP_GROWTH ** (len(levels) - 1) if len(levels) <= capped else 0
        lab = propagate(cur, np.arange(cur.n, dtype=np.int32), seed,
                        stream * MAX_LEVELS + len(levels), sweeps,
                        min_moves=max(1, cur.n // 1000), constraint=cons, deadline=deadline,
                        vertex_weight=weight, max_weight=cap)
        lab = canonical(lab)
        nc = int(lab.max()) + 1 if lab.size else 0
        if cap and nc > MIN_SHRINK * cur.n and not passed(deadline):
            capped = 0  # the cap holds the groups back: go on without it
            continue
        if nc > MIN_SHRINK * cur.n or len(levels) >= MAX_LEVELS or nc <= 1 or passed(deadline):
            return levels, maps, lab, cons
        parts = numba.get_num_threads() if cur.indices.size >= CONTRACT_PARALLEL_MIN_SLOTS else 1
        ptr, idx, a = _cpu.contract(cur.indptr, cur.indices, cur.a, lab, nc, parts, deadline)
        if ptr.size != nc + 1:  # the deadline passed while contracting: no such level
            return levels, maps, lab, cons
        cur.count(cur.indices.size)
        if cons is not None:
            cc = np.zeros(nc, np.int32)
            cc[lab] = cons
            cons = cc
        weight = np.bincount(lab, weights=weight, minlength=nc).astype(np.int64)
        maps.append(lab)
        cur = Level(ptr, idx, a, cur.work)
        levels.append(cur)


def refine(level: Level, labels: np.ndarray, seed: int, stream: int, max_clusters: int,
           finest: bool, final_vnd=None, deadline: float = NO_DEADLINE,
           tables: bool = False) -> np.ndarray:
    """1-opt improvement of ``labels`` on one level: sweeps, then (input
    level) the best-move VND, on the device when ``final_vnd`` is given.
    ``tables``: the finest level's sweeps run on the VND's state (the
    construction of the ILS restarts keeps its published results so).
    Stops early at ``deadline`` (then no longer 1-opt, never worse)."""
    if passed(deadline):  # not even the sums of the level: they cost a pass over it
        return labels
    if tables and finest:
        st = CPUState(level, labels, max_clusters, deadline=deadline)
        st.sweeps(seed, stream, max_sweeps=REFINE_SWEEPS)
        if final_vnd is not None:
            return final_vnd(level, st.labels)
        st.vnd_best()
        return st.labels
    info: dict = {}
    labels = propagate(level, labels, seed, stream, REFINE_SWEEPS, max_clusters=max_clusters,
                       deadline=deadline, info=info)
    if not finest or passed(deadline) or (final_vnd is None and info["converged"]):
        return labels  # converged sweeps leave no improving move: the VND would make none
    if final_vnd is not None:
        return final_vnd(level, labels)
    st = CPUState(level, labels, max_clusters, deadline=deadline)
    st.vnd_best()
    return st.labels


def v_cycle(level0: Level, seed: int, cycle: int, current: np.ndarray | None = None,
            max_clusters: int = 0, final_vnd=None, deadline: float = NO_DEADLINE,
            partner: np.ndarray | None = None, classic: bool = False) -> np.ndarray:
    """One V-cycle; returns labels of ``level0`` (no worse than ``current``).

    With ``partner`` (another clustering) the cycle *combines* the two: the
    coarsening groups only vertices that share a cluster in both (their
    overlay), and the uncoarsening starts from ``current``, so every coarse
    level can move the pieces on which the two disagree (the recombination
    of Hausberger, Faraj and Schulz's memetic algorithm).

    ``classic``: the cycle of the first releases (five uncapped sweeps per
    level, finest sweeps on the VND's state), which the ILS construction
    keeps so that its restarts give their published results.

    At ``deadline`` the coarsening and the refinement stop where they are
    and the labels are projected back to ``level0``: a valid clustering.
    """
    stream = 1 + cycle
    constraint = current if partner is None or current is None else overlay(current, partner)
    sweeps, cap_levels = (CLASSIC_SWEEPS, 0) if classic else (COARSEN_SWEEPS, CAP_LEVELS)
    if cycle == 0 or level0.indices.size > CAP_MAX_SLOTS:
        cap_levels = 0  # the first cycle: fast and good on any graph, whatever the time limit
    levels, maps, top, cons = coarsen(level0, seed, stream, constraint, deadline, sweeps,
                                      cap_levels)
    if cons is None:
        labels = top
    else:
        labels = np.ascontiguousarray(current, dtype=np.int32)
        for m in maps:  # each coarse vertex lies inside one cluster of ``current``
            coarse = np.zeros(int(m.max()) + 1 if m.size else 0, np.int32)
            coarse[m] = labels
            labels = coarse
    if max_clusters and int(labels.max()) + 1 > max_clusters:
        labels = _cap_clusters(levels[-1], seed, stream, max_clusters)
    for depth in range(len(levels) - 1, -1, -1):
        labels = refine(levels[depth], labels, seed, stream * MAX_LEVELS + depth + 20,
                        max_clusters, depth == 0, final_vnd, deadline, tables=classic)
        if depth > 0:
            labels = labels[maps[depth - 1]]
            # a refined level is done with: the finest level's search gets its memory
            levels[depth] = maps[depth - 1] = None
    return labels


def overlay(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cluster ids of the overlay of two clusterings (vertices together in both)."""
    key = np.asarray(a, np.int64) * max(int(np.max(b, initial=0)) + 1, 1) + np.asarray(b, np.int64)
    return np.unique(key, return_inverse=True)[1].astype(np.int32).reshape(-1)


def _cap_clusters(level: Level, seed: int, stream: int, max_clusters: int) -> np.ndarray:
    """A start with at most ``max_clusters`` clusters on the coarsest level (greedy GRASP)."""
    lab = np.zeros(level.n, np.int32)
    _cpu.grasp_construct(level.indptr, level.indices, level.a, 0.0, seed, stream, max_clusters, lab)
    return lab
