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

import numpy as np

from . import _cpu
from .._deadline import NO_DEADLINE, passed
from ._objective import canonical
from ._state import CPUState, Level

COARSEN_SWEEPS = 5        # label-propagation sweeps per coarsening level
REFINE_SWEEPS = 50        # sweeps per level while uncoarsening (stops at a local optimum)
MIN_SHRINK = 0.97         # stop coarsening when a level keeps more than this share of vertices
MAX_LEVELS = 40


def coarsen(level0: Level, seed: int, stream: int, constraint: np.ndarray | None,
            deadline: float = NO_DEADLINE):
    """Hierarchy of levels and maps (fine vertex -> coarse vertex).

    Returns ``levels, maps, top_labels, top_constraint`` where ``top_labels``
    is the label-propagation clustering of the coarsest level.  No level is
    added after ``deadline``.
    """
    levels = [level0]
    maps: list[np.ndarray] = []
    cur = level0
    cons = constraint
    while True:
        if passed(deadline):  # this level's sums would cost a pass over it: its vertices stay apart
            return levels, maps, np.arange(cur.n, dtype=np.int32), cons
        st = CPUState(cur, np.arange(cur.n, dtype=np.int32), deadline=deadline)
        st.sweeps(seed, stream * MAX_LEVELS + len(levels), max_sweeps=COARSEN_SWEEPS,
                  min_moves=max(1, cur.n // 1000), constraint=cons)
        lab = canonical(st.labels)
        nc = int(lab.max()) + 1 if lab.size else 0
        if nc > MIN_SHRINK * cur.n or len(levels) >= MAX_LEVELS or nc <= 1 or passed(deadline):
            return levels, maps, lab, cons
        ptr, idx, a = _cpu.contract(cur.indptr, cur.indices, cur.a, lab, nc)
        if cons is not None:
            cc = np.zeros(nc, np.int32)
            cc[lab] = cons
            cons = cc
        maps.append(lab)
        cur = Level(ptr, idx, a)
        levels.append(cur)


def refine(level: Level, labels: np.ndarray, seed: int, stream: int, max_clusters: int,
           finest: bool, final_vnd=None, deadline: float = NO_DEADLINE) -> np.ndarray:
    """1-opt improvement of ``labels`` on one level: sweeps, then (input
    level) the best-move VND, on the device when ``final_vnd`` is given.
    Stops early at ``deadline`` (then no longer 1-opt, never worse)."""
    if passed(deadline):  # not even the sums of the level: they cost a pass over it
        return labels
    st = CPUState(level, labels, max_clusters, deadline=deadline)
    st.sweeps(seed, stream, max_sweeps=REFINE_SWEEPS)
    if finest:
        if final_vnd is not None:
            return final_vnd(level, st.labels)
        st.vnd_best()
    return st.labels


def v_cycle(level0: Level, seed: int, cycle: int, current: np.ndarray | None = None,
            max_clusters: int = 0, final_vnd=None, deadline: float = NO_DEADLINE) -> np.ndarray:
    """One V-cycle; returns labels of ``level0`` (no worse than ``current``).

    At ``deadline`` the coarsening and the refinement stop where they are
    and the labels are projected back to ``level0``: a valid clustering.
    """
    stream = 1 + cycle
    levels, maps, top, cons = coarsen(level0, seed, stream, current, deadline)
    labels = cons.copy() if cons is not None else top
    if max_clusters and int(labels.max()) + 1 > max_clusters:
        labels = _cap_clusters(levels[-1], seed, stream, max_clusters)
    for depth in range(len(levels) - 1, -1, -1):
        labels = refine(levels[depth], labels, seed, stream * MAX_LEVELS + depth + 20,
                        max_clusters, depth == 0, final_vnd, deadline)
        if depth > 0:
            labels = labels[maps[depth - 1]]
    return labels


def _cap_clusters(level: Level, seed: int, stream: int, max_clusters: int) -> np.ndarray:
    """A start with at most ``max_clusters`` clusters on the coarsest level (greedy GRASP)."""
    lab = np.zeros(level.n, np.int32)
    _cpu.grasp_construct(level.indptr, level.indices, level.a, 0.0, seed, stream, max_clusters, lab)
    return lab
