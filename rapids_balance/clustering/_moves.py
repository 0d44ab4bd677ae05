"""Move tables and cluster bookkeeping: the state every clustering move reads and writes.

All state is a handful of flat arrays (see :mod:`._state`):

* ``labels`` (int32, n): cluster of each vertex, ids in ``0..n-1``;
* ``csize`` (int32, n): cluster sizes; ``free`` (int32, n) + ``nfree``: a
  stack of unused ids (top = ``free[nfree-1]``); ``nclus``: clusters in use;
* ``tid``/``tsum``/``tcnt`` (one per CSR slot) + ``tlen`` (n): the sparse
  per-vertex cluster sums of :mod:`._tables`;
* ``bd``/``bk`` (n): each vertex's best move (gain, target).

Here: building and evaluating the tables, moving one vertex, cluster ids,
members by cluster, and the segment tree over the vertices' best moves.
"""

from __future__ import annotations

import numba
import numpy as np

from .._chunks import run_chunks, slot_chunks
from ._tables import best_move, better, rebuild_table, relabel, table_add, table_sub

# -- tables -----------------------------------------------------------------

def build_tables(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark):
    """(Re)build the tables of every vertex, or of the vertices with ``mark``.

    Each vertex fills its own slot range in CSR order: no races, and the same
    summation order as the GPU kernel.  Chunks of vertices run on threads
    (:mod:`rapids_balance._chunks`: a ``prange`` would compile numba's parfor
    passes, seconds of a first call), then the hubs' tables.
    """
    k = slot_chunks(indices.size)
    run_chunks(lambda c: _tables_chunk(c, k, indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark),
               k)
    _build_hub_tables(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark)


@numba.njit(cache=True, nogil=True)
def _tables_chunk(c, n_chunks, indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark):
    """Chunk ``c`` of :func:`build_tables` (a contiguous range of vertices), hubs left out."""
    n = labels.size
    use_mark = mark.size > 0
    for u in range(n * c // n_chunks, n * (c + 1) // n_chunks):
        if (use_mark and not mark[u]) or indptr[u + 1] - indptr[u] > HUB_DEGREE:
            continue
        rebuild_table(u, indptr, indices, a, labels, tid, tsum, tcnt, tlen)


#: from this degree a vertex's table is built through a cluster -> slot map
#: (``rebuild_table`` scans the table for every edge: quadratic in the degree)
HUB_DEGREE = 48


@numba.njit(cache=True, nogil=True)
def _build_hub_tables(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark):
    """The tables of the vertices above ``HUB_DEGREE``: the entries, their
    order and their summation order of ``rebuild_table``, in O(degree)."""
    n = labels.size
    use_mark = mark.size > 0
    where = np.empty(0, np.int64)
    owner = np.empty(0, np.int64)
    for u in range(n):
        s = indptr[u]
        if (use_mark and not mark[u]) or indptr[u + 1] - s <= HUB_DEGREE:
            continue
        if owner.size == 0:
            where = np.empty(n, np.int64)
            owner = np.full(n, -1, np.int64)
        ne = 0
        for p in range(s, indptr[u + 1]):
            k = labels[indices[p]]
            if owner[k] == u:
                q = where[k]
                tsum[q] += a[p]
                tcnt[q] += 1
            else:
                owner[k] = u
                q = s + ne
                where[k] = q
                tid[q] = k
                tsum[q] = a[p]
                tcnt[q] = 1
                ne += 1
        tlen[u] = ne


def eval_all(indptr, labels, tid, tsum, tlen, allow_new, tol, constrained, cons, ccons, bd, bk):
    """Every vertex's best move into ``bd``/``bk``, in chunks of vertices on threads."""
    k = slot_chunks(tid.size)
    run_chunks(lambda c: _eval_chunk(c, k, indptr, labels, tid, tsum, tlen, allow_new, tol,
                                     constrained, cons, ccons, bd, bk), k)


@numba.njit(cache=True, nogil=True)
def _eval_chunk(c, n_chunks, indptr, labels, tid, tsum, tlen, allow_new, tol, constrained, cons,
                ccons, bd, bk):
    """Chunk ``c`` of :func:`eval_all`: a contiguous range of vertices."""
    n = labels.size
    for u in range(n * c // n_chunks, n * (c + 1) // n_chunks):
        best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, constrained, cons,
                  ccons, bd, bk)


@numba.njit(cache=True, nogil=True)
def refresh_list(indptr, indices, a, labels, tid, tsum, tcnt, tlen, allow_new, tol, verts, nv,
                 rebuild, bd, bk):
    """Rebuild (``rebuild``) and re-evaluate the tables of ``verts[:nv]``.

    Serial on purpose: after the first rounds only a few vertices change, and
    a parallel launch per round costs more than the work.
    """
    cons = labels[:0]
    for i in range(nv):
        u = verts[i]
        if rebuild[u]:
            rebuild_table(u, indptr, indices, a, labels, tid, tsum, tcnt, tlen)
        best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, False, cons, cons, bd, bk)


# -- cluster-id bookkeeping ---------------------------------------------------

@numba.njit(cache=True, nogil=True)
def move_vertex(v, k2, indptr, indices, a, labels, csize, free, nfree, nclus,
                tid, tsum, tcnt, tlen):
    """Move ``v`` to ``k2`` (a cluster id or NEW_CLUSTER); update sums; return k2."""
    k1 = labels[v]
    k2 = relabel(v, k2, labels, csize, free, nfree, nclus)
    for p in range(indptr[v], indptr[v + 1]):
        u = indices[p]
        table_sub(tid, tsum, tcnt, tlen, indptr, u, k1, a[p])
        table_add(tid, tsum, tcnt, tlen, indptr, u, k2, a[p])
    return k2


@numba.njit(cache=True, nogil=True)
def reset_clusters(labels, csize, free, nfree, nclus):
    """Sizes, free stack (empty ids, smallest on top) and count from ``labels``."""
    n = labels.size
    csize[:] = 0
    for v in range(n):
        csize[labels[v]] += 1
    nf = 0
    for k in range(n - 1, -1, -1):
        if csize[k] == 0:
            free[nf] = k
            nf += 1
    nfree[0] = nf
    nclus[0] = n - nf


# -- cluster-merge neighbourhood ------------------------------------------------
@numba.njit(cache=True, nogil=True)
def members_by_cluster(lab, nc):
    """Vertices grouped by cluster (counting sort, vertex order inside a
    cluster): cluster c's members are ``members[start[c]:start[c + 1]]``."""
    n = lab.size
    start = np.zeros(nc + 1, dtype=np.int64)
    for v in range(n):
        start[lab[v] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    members = np.empty(n, dtype=np.int32)
    for v in range(n):
        members[fill[lab[v]]] = v
        fill[lab[v]] += 1
    return start, members


# -- segment tree over the vertices' best moves -------------------------------

@numba.njit(cache=True, inline="always")
def _pull_up(tree_d, tree_v, j):
    """Node ``j`` takes the better of its two children's moves."""
    l, r = 2 * j, 2 * j + 1
    if better(tree_d[r], tree_v[r], tree_d[l], tree_v[l]):
        tree_d[j] = tree_d[r]
        tree_v[j] = tree_v[r]
    else:
        tree_d[j] = tree_d[l]
        tree_v[j] = tree_v[l]


@numba.njit(cache=True, inline="always")
def tree_set(tree_d, tree_v, size, i, d):
    j = size + i
    tree_d[j] = d
    j >>= 1
    while j >= 1:
        _pull_up(tree_d, tree_v, j)
        j >>= 1


@numba.njit(cache=True, nogil=True)
def tree_build(tree_d, tree_v, size, bd, n):
    for i in range(size):
        tree_d[size + i] = bd[i] if i < n else 0.0
        tree_v[size + i] = i
    for j in range(size - 1, 0, -1):
        _pull_up(tree_d, tree_v, j)


@numba.njit(cache=True, inline="always")
def _refresh(u, indptr, labels, tid, tsum, tlen, allow_new, tol, cons, bd, bk,
             tree_d, tree_v, size):
    best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, False, cons, cons, bd, bk)
    tree_set(tree_d, tree_v, size, u, bd[u])


@numba.njit(cache=True, nogil=True)
def _refresh_all(indptr, labels, tid, tsum, tlen, allow_new, tol, cons, bd, bk,
                 tree_d, tree_v, size):
    for u in range(labels.size):
        best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, False, cons, cons, bd, bk)
    tree_build(tree_d, tree_v, size, bd, labels.size)
