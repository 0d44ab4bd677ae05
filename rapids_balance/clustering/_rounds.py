"""Parallel rounds of non-conflicting moves (the GPU's move rule on the CPU)."""

from __future__ import annotations

import numba

from ._moves import reset_clusters
from ._tables import NEW_CLUSTER, is_mover

# -- parallel rounds of non-conflicting moves ---------------------------------

@numba.njit(cache=True, nogil=True)
def select_movers(indptr, indices, bd, bk, mover):
    """Movers of one parallel round (see :func:`._tables.is_mover`)."""
    for u in range(bd.size):
        mover[u] = is_mover(u, indptr, indices, bd, bk)


@numba.njit(cache=True, nogil=True)
def apply_round(indptr, indices, labels, csize, free, nfree, nclus, maxc, bd, bk, mover, mark,
                touched):
    """Apply the selected moves: new clusters take ids from the stack in vertex
    order (at most ``maxc - nclus`` of them); then rebuild sizes and the free
    stack.  ``mark`` flags the vertices whose sums changed (neighbours of
    movers); ``touched`` lists them and the movers.  Returns (moves, gain, n_touched)."""
    n = labels.size
    room = n if maxc <= 0 else maxc - nclus[0]
    top = nfree[0]
    moves = 0
    gain = 0.0
    nt = 0
    for v in range(n):
        if not mover[v]:
            continue
        k2 = bk[v]
        if k2 == NEW_CLUSTER:
            if room <= 0:
                mover[v] = False
                continue
            room -= 1
            top -= 1
            k2 = free[top]
        labels[v] = k2
        moves += 1
        gain += bd[v]
        touched[nt] = v
        nt += 1
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            if not mark[u]:
                mark[u] = True
                touched[nt] = u
                nt += 1
    reset_clusters(labels, csize, free, nfree, nclus)
    return moves, gain, nt
