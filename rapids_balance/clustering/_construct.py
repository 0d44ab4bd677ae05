"""GRASP construction: a randomised greedy start."""

from __future__ import annotations

import numba
import numpy as np

from .._host_sort import merge_sort
from .._random import randint
from ._contract import _gather
from ._propagation import random_order

# -- GRASP construction -----------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def grasp_construct(indptr, indices, a, alpha, seed, stream, maxc, labels):
    """Randomized greedy construction (Drummond et al.'s GRASP, per vertex).

    Vertices arrive in a seeded random order; each joins a cluster drawn
    uniformly from its restricted candidate list: the adjacent clusters and
    a new one, whose imbalance increase ``-A_v[k]`` is within
    ``cmin + alpha * (cmax - cmin)``.  alpha = 1 draws among all candidates,
    alpha = 0 is greedy.
    """
    n = labels.size
    labels[:] = -1
    order = random_order(n, seed, stream * 1000003 + 999983)
    acc = np.zeros(n, dtype=np.float64)
    seen = np.full(n, -1, dtype=np.int64)
    cand = np.empty(n + 1, dtype=np.int64)
    cost = np.empty(n + 1, dtype=np.float64)
    # the candidates sorted as uint64 keys by the package's merge sort: numba's np.sort
    # would compile its quicksort (seconds of a first call) for this one use
    srt = np.empty(n + 1, dtype=np.uint64)
    nclus = 0
    for i in range(n):
        v = order[i]
        nt = _gather(v, v, -1, indptr, indices, a, labels, acc, seen, cand, np.int64(0))
        for t in range(nt):
            srt[t] = cand[t]
        merge_sort(srt, nt)
        for t in range(nt):
            cand[t] = srt[t]
            cost[t] = -acc[cand[t]]
        if maxc <= 0 or nclus < maxc:
            cand[nt] = -2
            cost[nt] = 0.0
            nt += 1
        if nt == 0:
            labels[v] = randint(seed, stream, 3 * n + i, nclus)
            continue
        cmin = cost[0]
        cmax = cost[0]
        for t in range(1, nt):
            cmin = min(cmin, cost[t])
            cmax = max(cmax, cost[t])
        thr = cmin + alpha * (cmax - cmin) + 1e-12 * (abs(cmin) + abs(cmax))
        nr = 0
        for t in range(nt):
            if cost[t] <= thr:
                cand[nr] = cand[t]
                nr += 1
        k = cand[randint(seed, stream, n + i, nr)]
        if k == -2:
            k = nclus
            nclus += 1
        labels[v] = k
    return nclus
