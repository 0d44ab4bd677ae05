"""Sparse per-vertex cluster sums: the data structure behind every 1-opt move.

For vertex ``u`` the table holds one entry per cluster adjacent to ``u``:
cluster id, signed weight ``A_u[k]`` (positive minus negative weight from
``u`` to cluster ``k``) and the number of edges behind it.  The table lives in
``u``'s own CSR slot range ``indptr[u] .. indptr[u] + tlen[u]`` (a vertex has
at most ``deg(u)`` adjacent clusters), so the whole structure takes O(n + m)
memory for any number of clusters, unlike the paper's dense n x c matrices.

Moving ``i`` from ``k1`` to ``k2`` changes the imbalance by
``A_i[k1] - A_i[k2]`` (a non-adjacent or new cluster has ``A = 0``).

These are ``@numba.njit`` bodies called from the CPU kernels and, as device
functions, from the CUDA kernels, so both backends do the same arithmetic in
the same order.
"""

from __future__ import annotations

import numba

NO_MOVE = -1
NEW_CLUSTER = -2


@numba.njit(cache=True, inline="always")
def table_add(tid, tsum, tcnt, tlen, indptr, u, k, w):
    """Add an edge of signed weight ``w`` from ``u`` to cluster ``k``."""
    s = indptr[u]
    n_ent = tlen[u]
    for p in range(s, s + n_ent):
        if tid[p] == k:
            tsum[p] += w
            tcnt[p] += 1
            return
    tid[s + n_ent] = k
    tsum[s + n_ent] = w
    tcnt[s + n_ent] = 1
    tlen[u] = n_ent + 1


@numba.njit(cache=True, inline="always")
def table_sub(tid, tsum, tcnt, tlen, indptr, u, k, w):
    """Remove an edge of signed weight ``w`` from ``u`` to cluster ``k``.

    An entry whose edge count reaches zero is dropped (the last entry takes
    its place), so rounding residue never survives an empty entry.
    """
    s = indptr[u]
    n_ent = tlen[u]
    for p in range(s, s + n_ent):
        if tid[p] == k:
            c = tcnt[p] - 1
            if c == 0:
                last = s + n_ent - 1
                tid[p] = tid[last]
                tsum[p] = tsum[last]
                tcnt[p] = tcnt[last]
                tlen[u] = n_ent - 1
            else:
                tsum[p] -= w
                tcnt[p] = c
            return


@numba.njit(cache=True, inline="always")
def rebuild_table(u, indptr, indices, a, labels, tid, tsum, tcnt, tlen):
    """Fill ``u``'s table from scratch, in CSR order (the same on every backend)."""
    tlen[u] = 0
    for p in range(indptr[u], indptr[u + 1]):
        table_add(tid, tsum, tcnt, tlen, indptr, u, labels[indices[p]], a[p])


@numba.njit(cache=True, inline="always")
def best_move(u, own, indptr, tid, tsum, tlen, allow_new, tol, constrained, cons, ccons,
              out_d, out_k):
    """Best 1-opt move of ``u`` (currently in ``own``) into ``out_d[u], out_k[u]``.

    ``out_k`` is a cluster id, ``NEW_CLUSTER`` or ``NO_MOVE`` (no move lowers
    the imbalance by more than ``tol``; then ``out_d`` is 0).  Ties go to the
    smallest cluster id; a new cluster is chosen only when strictly better
    than every adjacent one.  With ``constrained``, ``u`` may only join
    clusters ``k`` with ``ccons[k] == cons[u]`` (used while coarsening inside
    the clusters of a given solution).
    """
    s = indptr[u]
    n_ent = tlen[u]
    a_own = 0.0
    for p in range(s, s + n_ent):
        if tid[p] == own:
            a_own = tsum[p]
            break
    best_d = -tol
    best_k = NO_MOVE
    for p in range(s, s + n_ent):
        k = tid[p]
        if k == own:
            continue
        if constrained and ccons[k] != cons[u]:
            continue
        d = a_own - tsum[p]
        if better(d, k, best_d, best_k):  # NO_MOVE (-1) loses no tie: ids are >= 0
            best_d = d
            best_k = k
    if allow_new and a_own < best_d:
        best_d = a_own
        best_k = NEW_CLUSTER
    if best_k == NO_MOVE:
        best_d = 0.0
    out_d[u] = best_d
    out_k[u] = best_k


@numba.njit(cache=True, inline="always")
def relabel(v, k2, labels, csize, free, nfree, nclus):
    """Cluster bookkeeping of moving ``v`` to ``k2`` (id or NEW_CLUSTER); returns k2.

    New clusters pop the id stack; an empty id being re-opened (undo,
    perturbation) is taken out of the stack; an emptied cluster pushes its id.
    The stack is LIFO, so undoing moves in reverse order restores it exactly.
    """
    k1 = labels[v]
    if k2 == NEW_CLUSTER:
        nfree[0] -= 1
        k2 = free[nfree[0]]
        nclus[0] += 1
    elif csize[k2] == 0:
        top = nfree[0] - 1
        for q in range(top, -1, -1):
            if free[q] == k2:
                free[q] = free[top]
                free[top] = k2
                break
        nfree[0] -= 1
        nclus[0] += 1
    labels[v] = k2
    csize[k1] -= 1
    csize[k2] += 1
    if csize[k1] == 0:
        free[nfree[0]] = k1
        nfree[0] += 1
        nclus[0] -= 1
    return k2


@numba.njit(cache=True, inline="always")
def better(d1, v1, d2, v2):
    """Total order of candidates (moves of vertices, or target clusters of one
    vertex): lower gain first, then lower id."""
    return d1 < d2 or (d1 == d2 and v1 < v2)


@numba.njit(cache=True, inline="always")
def is_mover(u, indptr, indices, bd, bk):
    """Parallel-round rule: ``u`` moves when its gain beats that of every
    neighbour with an improving move (ties: smaller id), so the movers form an
    independent set and their gains add up exactly.  (Seeded random
    tie-breaking was tried: it fragments clusters, 74,697 vs 69,437 on
    Slashdot from singletons.)"""
    if bk[u] == NO_MOVE:
        return False
    for p in range(indptr[u], indptr[u + 1]):
        x = indices[p]
        if bk[x] != NO_MOVE and better(bd[x], x, bd[u], u):
            return False
    return True
