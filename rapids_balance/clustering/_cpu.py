"""CPU (numba) kernels of the 1-opt local search, label propagation and contraction.

All state is a handful of flat arrays (see :mod:`._state`):

* ``labels`` (int32, n): cluster of each vertex, ids in ``0..n-1``;
* ``csize`` (int32, n): cluster sizes; ``free`` (int32, n) + ``nfree``: a
  stack of unused ids (top = ``free[nfree-1]``); ``nclus``: clusters in use;
* ``tid``/``tsum``/``tcnt`` (one per CSR slot) + ``tlen`` (n): the sparse
  per-vertex cluster sums of :mod:`._tables`;
* ``bd``/``bk`` (n): each vertex's best move (gain, target).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .._random import hash64, randint
from .._deadline import expired
from ._tables import (
    NEW_CLUSTER,
    NO_MOVE,
    best_move,
    better,
    is_mover,
    rebuild_table,
    relabel,
    table_add,
    table_sub,
)

# -- tables -----------------------------------------------------------------

@numba.njit(parallel=True, cache=True, nogil=True)
def build_tables(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark):
    """(Re)build the tables of every vertex, or of the vertices with ``mark``.

    Each vertex fills its own slot range in CSR order: no races, and the same
    summation order as the GPU kernel.
    """
    n = labels.size
    use_mark = mark.size > 0
    for u in prange(n):
        if (use_mark and not mark[u]) or indptr[u + 1] - indptr[u] > HUB_DEGREE:
            continue
        rebuild_table(u, indptr, indices, a, labels, tid, tsum, tcnt, tlen)
    _build_hub_tables(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark)


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


@numba.njit(parallel=True, cache=True, nogil=True)
def eval_all(indptr, labels, tid, tsum, tlen, allow_new, tol, constrained, cons, ccons, bd, bk):
    for u in prange(labels.size):
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


# -- segment tree over the vertices' best moves -------------------------------

@numba.njit(cache=True, inline="always")
def tree_set(tree_d, tree_v, size, i, d):
    j = size + i
    tree_d[j] = d
    j >>= 1
    while j >= 1:
        l, r = 2 * j, 2 * j + 1
        if better(tree_d[r], tree_v[r], tree_d[l], tree_v[l]):
            tree_d[j] = tree_d[r]
            tree_v[j] = tree_v[r]
        else:
            tree_d[j] = tree_d[l]
            tree_v[j] = tree_v[l]
        j >>= 1


@numba.njit(cache=True, nogil=True)
def tree_build(tree_d, tree_v, size, bd, n):
    for i in range(size):
        tree_d[size + i] = bd[i] if i < n else 0.0
        tree_v[size + i] = i
    for j in range(size - 1, 0, -1):
        l, r = 2 * j, 2 * j + 1
        if better(tree_d[r], tree_v[r], tree_d[l], tree_v[l]):
            tree_d[j] = tree_d[r]
            tree_v[j] = tree_v[r]
        else:
            tree_d[j] = tree_d[l]
            tree_v[j] = tree_v[l]


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


# -- paper-faithful VND: best improving move first ----------------------------

@numba.njit(cache=True, nogil=True)
def vnd_best(indptr, indices, a, labels, csize, free, nfree, nclus, maxc,
             tid, tsum, tcnt, tlen, bd, bk, tree_d, tree_v, size, tol, max_moves,
             log_v, log_k, nlog, deadline):
    """Apply the globally best improving move until none is left (or ``deadline``).

    The best move of every vertex sits in a segment tree (ties: smaller
    vertex); after a move only the moved vertex and its neighbours change
    their sums, so only they are re-evaluated (a neighbour incrementally,
    :func:`_update_neighbour`).  Moves are logged into
    ``log_v/log_k`` (vertex, old cluster) for undo while there is room;
    ``nlog[0] > log_v.size`` marks an overflow.  Returns (moves, gain).
    """
    cons = labels[:0]
    allow = maxc <= 0 or nclus[0] < maxc
    moves = 0
    gain = 0.0
    while moves < max_moves:
        d = tree_d[1]
        if not d < -tol or expired(deadline, moves):
            break
        v = tree_v[1]
        k1 = labels[v]
        k2 = relabel(v, bk[v], labels, csize, free, nfree, nclus)
        _log(v, k1, log_v, log_k, nlog)
        moves += 1
        gain += d
        now = maxc <= 0 or nclus[0] < maxc
        if now != allow:
            for p in range(indptr[v], indptr[v + 1]):
                u = indices[p]
                table_sub(tid, tsum, tcnt, tlen, indptr, u, k1, a[p])
                table_add(tid, tsum, tcnt, tlen, indptr, u, k2, a[p])
            allow = now
            _refresh_all(indptr, labels, tid, tsum, tlen, allow, tol, cons, bd, bk,
                         tree_d, tree_v, size)
            continue
        for p in range(indptr[v], indptr[v + 1]):
            _update_neighbour(indices[p], k1, k2, a[p], indptr, labels, tid, tsum, tcnt, tlen,
                              allow, tol, cons, bd, bk, tree_d, tree_v, size)
        _refresh(v, indptr, labels, tid, tsum, tlen, allow, tol, cons, bd, bk, tree_d, tree_v, size)
    return moves, gain


@numba.njit(cache=True, inline="always")
def _update_neighbour(u, k1, k2, w, indptr, labels, tid, tsum, tcnt, tlen, allow, tol, cons,
                      bd, bk, tree_d, tree_v, size):
    """A neighbour's sums and best move after a vertex moved from ``k1`` to ``k2``
    over an edge of signed weight ``w``.

    One scan of the table finds the entries of k1, k2 and the own cluster;
    the update leaves the table exactly as ``table_sub`` then ``table_add``
    would.  When neither the own cluster nor the best target is k1 or k2,
    only those two entries changed, so the best move is the better of the
    old one and theirs (the same gains, compared in the same order, as a
    full :func:`best_move`); otherwise the table is re-scanned.
    """
    s = indptr[u]
    ne = tlen[u]
    own = labels[u]
    p1 = -1
    p2 = -1
    po = -1
    for p in range(s, s + ne):
        k = tid[p]
        if k == k1:
            p1 = p
        elif k == k2:
            p2 = p
        if k == own:
            po = p
    # table_sub(k1)
    c = tcnt[p1] - 1
    if c == 0:
        last = s + ne - 1
        tid[p1] = tid[last]
        tsum[p1] = tsum[last]
        tcnt[p1] = tcnt[last]
        ne -= 1
        if p2 == last:
            p2 = p1
        if po == last:
            po = p1
        elif po == p1:
            po = -1
        p1 = -1
    else:
        tsum[p1] -= w
        tcnt[p1] = c
    # table_add(k2)
    if p2 >= 0:
        tsum[p2] += w
        tcnt[p2] += 1
    else:
        p2 = s + ne
        tid[p2] = k2
        tsum[p2] = w
        tcnt[p2] = 1
        ne += 1
        if own == k2:
            po = p2
    tlen[u] = ne
    kb = bk[u]
    if own == k1 or own == k2 or kb < 0 or kb == k1 or kb == k2:
        old = bd[u]
        best_move(u, own, indptr, tid, tsum, tlen, allow, tol, False, cons, cons, bd, bk)
        if bd[u] != old:
            tree_set(tree_d, tree_v, size, u, bd[u])
        return
    a_own = tsum[po] if po >= 0 else 0.0
    best_d = bd[u]
    best_k = kb
    if p1 >= 0:
        d = a_own - tsum[p1]
        if better(d, k1, best_d, best_k):
            best_d = d
            best_k = k1
    d = a_own - tsum[p2]
    if better(d, k2, best_d, best_k):
        best_d = d
        best_k = k2
    if best_k != kb:
        bk[u] = best_k
        if best_d != bd[u]:
            bd[u] = best_d
            tree_set(tree_d, tree_v, size, u, best_d)


@numba.njit(cache=True, inline="always")
def _log(v, k1, log_v, log_k, nlog):
    i = nlog[0]
    if i < log_v.size:
        log_v[i] = v
        log_k[i] = k1
        nlog[0] = i + 1
    else:
        nlog[0] = log_v.size + 1


@numba.njit(cache=True, nogil=True)
def undo(indptr, indices, a, labels, csize, free, nfree, nclus, maxc, tid, tsum, tcnt, tlen,
         bd, bk, tree_d, tree_v, size, tol, log_v, log_k, nlog, dirty, dlist):
    """Undo the logged moves in reverse order (exact with the LIFO id stack),
    then re-evaluate the best moves of the vertices whose sums changed."""
    allow0 = maxc <= 0 or nclus[0] < maxc
    nd = 0
    for i in range(nlog[0] - 1, -1, -1):
        v = log_v[i]
        move_vertex(v, log_k[i], indptr, indices, a, labels, csize, free, nfree, nclus,
                    tid, tsum, tcnt, tlen)
        nd = _mark_around(v, indptr, indices, dirty, dlist, nd)
    nlog[0] = 0
    _refresh_dirty(indptr, labels, tid, tsum, tlen, maxc, nclus, allow0, tol, bd, bk,
                   tree_d, tree_v, size, dirty, dlist, nd)


@numba.njit(cache=True, nogil=True)
def _refresh_dirty(indptr, labels, tid, tsum, tlen, maxc, nclus, allow0, tol, bd, bk,
                   tree_d, tree_v, size, dirty, dlist, nd):
    """Re-evaluate the best moves of ``dlist[:nd]`` (all of them when the
    new-cluster rule changed or many are dirty) and clear their marks."""
    cons = labels[:0]
    n = labels.size
    allow = maxc <= 0 or nclus[0] < maxc
    if allow != allow0 or 4 * nd > n:
        _refresh_all(indptr, labels, tid, tsum, tlen, allow, tol, cons, bd, bk, tree_d, tree_v, size)
    else:
        for i in range(nd):
            _refresh(dlist[i], indptr, labels, tid, tsum, tlen, allow, tol, cons, bd, bk,
                     tree_d, tree_v, size)
    for i in range(nd):
        dirty[dlist[i]] = False


@numba.njit(cache=True, nogil=True)
def perturb(level, kinds, seed, stream, counter, indptr, indices, a, labels, csize, free, nfree, nclus,
            maxc, tid, tsum, tcnt, tlen, bd, bk, tree_d, tree_v, size, tol, log_v, log_k, nlog,
            dirty, dlist):
    """``level`` random perturbation steps; returns the imbalance change.

    Each step picks a random vertex v and another random vertex r and moves
    v to r's cluster (a new cluster when that is v's own).  The first step
    may instead (``kinds`` = 3) merge v's cluster into r's, or split v's
    cluster, sending a random half of it to a new cluster.  Single-vertex
    kicks are mostly undone by the next VND (the vertex moves straight
    back); merges and splits are not, which is what lets the ILS leave a
    local optimum on dense random graphs (file_400_0.1_0.5: 5,656 vs 5,756
    with single kicks only, 10 restarts).

    The best moves of the vertices whose sums changed are re-evaluated once,
    after the last kick (``dirty``/``dlist`` are scratch, all False on entry):
    a best move depends only on the final sums, so this equals refreshing
    after every kick, at a fraction of the cost when a cluster moves.
    """
    n = labels.size
    allow0 = maxc <= 0 or nclus[0] < maxc
    allow = allow0
    change = 0.0
    nd = 0
    for t in range(level):
        c0 = counter + 4 * t
        v = randint(seed, stream, c0, n)
        r = randint(seed, stream, c0 + 1, n)
        # at most one cluster-level kick per perturbation keeps its cost bounded
        op = randint(seed, stream, c0 + 2, kinds) if t == 0 else 0
        k1 = labels[v]
        k2 = labels[r]
        if op == 0 or (op == 1 and k1 == k2) or (op == 2 and (csize[k1] < 2 or not allow)):
            if k2 == k1:
                if not allow or csize[k1] == 1:
                    continue
                k2 = NEW_CLUSTER
            change += _kick(v, k2, indptr, indices, a, labels, csize, free, nfree, nclus,
                            tid, tsum, tcnt, tlen, log_v, log_k, nlog)
            nd = _mark_around(v, indptr, indices, dirty, dlist, nd)
            allow = maxc <= 0 or nclus[0] < maxc
            continue
        new_id = -1
        for u in range(n):
            if labels[u] != k1:
                continue
            if op == 1:
                dest = k2
            else:
                if hash64(seed, stream * 7 + 3, c0 + u) & np.uint64(1):
                    continue
                dest = new_id if new_id >= 0 else NEW_CLUSTER
                if u == v and new_id < 0:
                    continue  # keep v behind so the old cluster survives
            change += _kick(u, dest, indptr, indices, a, labels, csize, free, nfree, nclus,
                            tid, tsum, tcnt, tlen, log_v, log_k, nlog)
            nd = _mark_around(u, indptr, indices, dirty, dlist, nd)
            if op == 2 and new_id < 0:
                new_id = labels[u]
        allow = maxc <= 0 or nclus[0] < maxc
    _refresh_dirty(indptr, labels, tid, tsum, tlen, maxc, nclus, allow0, tol, bd, bk,
                   tree_d, tree_v, size, dirty, dlist, nd)
    return change


@numba.njit(cache=True, inline="always")
def _mark_around(v, indptr, indices, dirty, dlist, nd):
    if not dirty[v]:
        dirty[v] = True
        dlist[nd] = v
        nd += 1
    for p in range(indptr[v], indptr[v + 1]):
        u = indices[p]
        if not dirty[u]:
            dirty[u] = True
            dlist[nd] = u
            nd += 1
    return nd


@numba.njit(cache=True, nogil=True)
def _kick(v, k2, indptr, indices, a, labels, csize, free, nfree, nclus, tid, tsum, tcnt, tlen,
          log_v, log_k, nlog):
    """One logged perturbation move (best moves not refreshed); returns its imbalance change."""
    k1 = labels[v]
    ch = _move_gain(v, k1, k2, indptr, tid, tsum, tlen)
    move_vertex(v, k2, indptr, indices, a, labels, csize, free, nfree, nclus, tid, tsum, tcnt, tlen)
    _log(v, k1, log_v, log_k, nlog)
    return ch


@numba.njit(cache=True, nogil=True)
def logged_degree(indptr, log_v, nlog):
    """Slots touched by undoing the logged moves (their total degree)."""
    tot = 0
    for i in range(min(nlog[0], log_v.size)):
        v = log_v[i]
        tot += indptr[v + 1] - indptr[v]
    return tot


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



@numba.njit(cache=True, nogil=True)
def best_merge(indptr, labels, tid, tsum, tlen, csize, tol):
    """The pair of clusters whose merge lowers the imbalance most.

    Merging clusters A and B changes I(P) by ``-S(A, B)``, S being the signed
    weight between them (positive edges become internal, negative ones too),
    so the best merge is the pair with the largest S.  Each cluster's S
    towards the higher cluster ids is summed from its members' tables
    (O(n + table entries), any number of clusters).  Ties: smallest pair.
    Returns (S, A, B) with A < B, or (0, -1, -1) when no S exceeds ``tol``.
    """
    n = labels.size
    start, members = members_by_cluster(labels, n)
    acc = np.zeros(n, dtype=np.float64)
    seen = np.full(n, -1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    best_s = tol
    best_a = -1
    best_b = -1
    for k1 in range(n):
        if csize[k1] == 0:
            continue
        nt = 0
        for q in range(start[k1], start[k1 + 1]):
            u = members[q]
            for p in range(indptr[u], indptr[u] + tlen[u]):
                k = tid[p]
                if k <= k1:
                    continue
                if seen[k] != k1:
                    seen[k] = k1
                    acc[k] = 0.0
                    touched[nt] = k
                    nt += 1
                acc[k] += tsum[p]
        for t in range(nt):
            k = touched[t]
            sv = acc[k]
            # k1 ascends, so a tie with an earlier pair keeps the earlier one
            if sv > best_s or (sv == best_s and k1 == best_a and k < best_b):
                best_s = sv
                best_a = k1
                best_b = k
    if best_a < 0:
        return 0.0, -1, -1
    return best_s, best_a, best_b


@numba.njit(cache=True, nogil=True)
def merge_clusters(ka, kb, indptr, indices, a, labels, csize, free, nfree, nclus, maxc, tid, tsum,
                   tcnt, tlen, bd, bk, tree_d, tree_v, size, tol, log_v, log_k, nlog, dirty, dlist):
    """Move every member of the smaller of ``ka``/``kb`` (ties: ``kb``) into the
    other, logged for undo; refresh the best moves once at the end."""
    if csize[kb] > csize[ka]:
        ka, kb = kb, ka
    allow0 = maxc <= 0 or nclus[0] < maxc
    nd = 0
    for v in range(labels.size):
        if labels[v] == kb:
            move_vertex(v, ka, indptr, indices, a, labels, csize, free, nfree, nclus,
                        tid, tsum, tcnt, tlen)
            _log(v, kb, log_v, log_k, nlog)
            nd = _mark_around(v, indptr, indices, dirty, dlist, nd)
    _refresh_dirty(indptr, labels, tid, tsum, tlen, maxc, nclus, allow0, tol, bd, bk,
                   tree_d, tree_v, size, dirty, dlist, nd)


@numba.njit(cache=True, inline="always")
def _move_gain(v, k1, k2, indptr, tid, tsum, tlen):
    a1 = 0.0
    a2 = 0.0
    for p in range(indptr[v], indptr[v] + tlen[v]):
        if tid[p] == k1:
            a1 = tsum[p]
        elif tid[p] == k2:
            a2 = tsum[p]
    return a1 - a2


# -- label propagation: first improvement in a random order -------------------

RADIX_BITS = 11          # digit of the radix sort: 6 passes over 64-bit keys, 2048 buckets
RADIX_MIN = 4096         # below this many keys the merge sort is as fast


@numba.njit(cache=True, nogil=True)
def stable_argsort_u64(keys):
    """``np.argsort(keys, kind="stable")`` as int32, by an LSD radix sort for
    large arrays (numba's merge sort took 1.2 s on 2.4M keys, this 0.1 s)."""
    n = keys.size
    if n < RADIX_MIN:
        return np.argsort(keys, kind="mergesort").astype(np.int32)
    mask = np.uint64((1 << RADIX_BITS) - 1)
    key = keys.copy()
    key2 = np.empty_like(key)
    idx = np.arange(n).astype(np.int32)
    idx2 = np.empty_like(idx)
    count = np.empty(1 << RADIX_BITS, np.int64)
    for shift in range(0, 64, RADIX_BITS):
        sh = np.uint64(shift)
        count[:] = 0
        for j in range(n):
            count[(key[j] >> sh) & mask] += 1
        total = 0
        for d in range(count.size):
            c = count[d]
            count[d] = total
            total += c
        for j in range(n):  # in order: equal digits keep their order (stable)
            d = (key[j] >> sh) & mask
            q = count[d]
            count[d] = q + 1
            key2[q] = key[j]
            idx2[q] = idx[j]
        key, key2 = key2, key
        idx, idx2 = idx2, idx
    return idx


@numba.njit(cache=True, nogil=True)
def random_order(n, seed, stream):
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        keys[i] = hash64(seed, stream, i)
    return stable_argsort_u64(keys)


@numba.njit(cache=True, nogil=True)
def sweeps(max_sweeps, seed, stream, indptr, indices, a, labels, csize, free, nfree, nclus, maxc,
           tid, tsum, tcnt, tlen, tol, constrained, cons, ccons, bd, bk, min_moves, deadline):
    """Sweeps of first-improvement moves (label propagation with the exact
    1-opt gain) over a seeded random vertex order, until a sweep moves fewer
    than ``min_moves`` vertices (or ``deadline``).  Returns (moves, gain)."""
    n = labels.size
    total = 0
    gain = 0.0
    for s in range(max_sweeps):
        order = random_order(n, seed, stream * 1000003 + s)
        moved = 0
        for i in range(n):
            if expired(deadline, i):
                return total + moved, gain
            v = order[i]
            allow = (maxc <= 0 or nclus[0] < maxc) and not constrained
            best_move(v, labels[v], indptr, tid, tsum, tlen, allow, tol, constrained, cons, ccons,
                      bd, bk)
            k2 = bk[v]
            if k2 != NO_MOVE:
                gain += bd[v]
                k2 = move_vertex(v, k2, indptr, indices, a, labels, csize, free, nfree, nclus,
                                 tid, tsum, tcnt, tlen)
                if constrained:
                    ccons[k2] = cons[v]
                moved += 1
        total += moved
        if moved < min_moves or moved == 0:
            break
    return total, gain


@numba.njit(cache=True, inline="always")
def _dense_best(v, own, stamp, indptr, indices, a, labels, acc, seen, touched, allow_new, tol,
                constrained, cons, ccons, vw, cw, cap):
    """``best_move`` of ``v`` from its neighbours' labels (no tables): the sums
    are gathered into the scratch ``acc`` in CSR order, the same candidates and
    tie rules as :func:`._tables.best_move` (``stamp``: unique per call); with
    ``cap`` > 0, clusters whose weight ``cw`` would pass ``cap`` with ``v``'s
    weight ``vw[v]`` are no candidates.
    Returns (gain, target)."""
    nt = _gather(v, stamp, -1, indptr, indices, a, labels, acc, seen, touched, 0)
    a_own = acc[own] if seen[own] == stamp else 0.0
    best_d = -tol
    best_k = NO_MOVE
    for t in range(nt):
        k = touched[t]
        if k == own or (constrained and ccons[k] != cons[v]):
            continue
        if cap > 0 and cw[k] + vw[v] > cap:
            continue
        d = a_own - acc[k]
        if better(d, k, best_d, best_k):
            best_d = d
            best_k = k
    if allow_new and a_own < best_d:
        best_d = a_own
        best_k = NEW_CLUSTER
    return best_d, best_k


#: a sweep visits its active vertices through a heap when fewer than n / SPARSE_SWEEP are
#: active (else it walks the whole random order and skips the inactive ones)
SPARSE_SWEEP = 16


@numba.njit(cache=True, inline="always")
def _before(k1, v1, k2, v2):
    """(key, vertex) order of a sweep: :func:`random_order` sorts stably by key."""
    return k1 < k2 or (k1 == k2 and v1 < v2)


@numba.njit(cache=True, inline="always")
def _heap_push(hk, hv, nh, key, v):
    i = nh
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(key, v, hk[parent], hv[parent]):
            break
        hk[i] = hk[parent]
        hv[i] = hv[parent]
        i = parent
    hk[i] = key
    hv[i] = v
    return nh + 1


@numba.njit(cache=True, inline="always")
def _heap_pop(hk, hv, nh):
    """Remove the first (key, vertex) of the heap; returns the new size (the
    popped pair is read from ``hk[0], hv[0]`` before the call)."""
    nh -= 1
    key = hk[nh]
    v = hv[nh]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= nh:
            break
        if c + 1 < nh and _before(hk[c + 1], hv[c + 1], hk[c], hv[c]):
            c += 1
        if not _before(hk[c], hv[c], key, v):
            break
        hk[i] = hk[c]
        hv[i] = hv[c]
        i = c
    hk[i] = key
    hv[i] = v
    return nh


@numba.njit(cache=True, inline="always")
def _activate(v, cur_key, indptr, indices, active, hk, hv, nh, seed, sweep_stream, heap):
    """After ``v`` moved: its neighbours are active again; in a heap sweep
    those still ahead of the current position join the heap.  Returns
    (heap size, newly active count)."""
    added = 0
    for p in range(indptr[v], indptr[v + 1]):
        u = indices[p]
        if active[u]:
            continue
        active[u] = True
        added += 1
        if heap:
            ku = hash64(seed, sweep_stream, u)
            if _before(cur_key, v, ku, u):
                nh = _heap_push(hk, hv, nh, ku, u)
    return nh, added


@numba.njit(cache=True, nogil=True)
def sweeps_dense(max_sweeps, seed, stream, indptr, indices, a, labels, csize, free, nfree, nclus,
                 maxc, tol, constrained, cons, ccons, min_moves, deadline, vw, cap):
    """:func:`sweeps` without the per-vertex tables: each visited vertex sums
    its neighbours' clusters afresh (O(degree)), and a move only relabels.
    The same moves as :func:`sweeps` whenever the sums are exact (integer
    weights); a sweep costs one pass over the adjacency, where the table
    updates of :func:`sweeps` cost a scan of every neighbour's table per move
    (quadratic around hubs).  With ``cap`` > 0 no cluster's total vertex
    weight ``vw`` may pass ``cap`` (size-constrained label propagation, for
    coarsening).  Returns (moves, gain, adjacency entries scanned,
    converged): converged when a sweep found no move, a 1-opt local optimum.

    Without ``cap`` and ``maxc`` a vertex whose neighbours kept their labels
    since its last visit has no move (its sums are the same, and a vertex
    that moved went to its best cluster), so only *active* vertices are
    visited: those with a neighbour that moved since.  A sweep with few of
    them takes them from a heap in the sweep's random order, so the moves are
    those of full sweeps at a cost proportional to the moves' neighbourhoods.
    """
    n = labels.size
    cw = np.zeros(n if cap > 0 else 0, np.int64)
    if cap > 0:
        for v in range(n):
            cw[labels[v]] += vw[v]
    acc = np.zeros(n, np.float64)
    seen = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    # with a cap or a cluster bound a vertex's options change without its neighbours moving
    skip = cap <= 0 and maxc <= 0
    active = np.ones(n, np.bool_)
    nactive = n
    hk = np.empty(0, np.uint64)
    hv = np.empty(0, np.int32)
    total = 0
    gain = 0.0
    scanned = 0
    for s in range(max_sweeps):
        if skip and nactive == 0:
            return total, gain, scanned, True
        sweep_stream = stream * 1000003 + s
        heap = skip and SPARSE_SWEEP * nactive < n
        nh = 0
        order = hv
        if heap:
            if hk.size == 0:
                hk = np.empty(n, np.uint64)
                hv = np.empty(n, np.int32)
            for v in range(n):
                if active[v]:
                    nh = _heap_push(hk, hv, nh, hash64(seed, sweep_stream, v), v)
        else:
            order = random_order(n, seed, sweep_stream)
        moved = 0
        i = -1
        while True:
            i += 1
            if heap:
                if nh == 0:
                    break
                cur_key = hk[0]
                v = hv[0]
                nh = _heap_pop(hk, hv, nh)
            else:
                if i >= n:
                    break
                if expired(deadline, i):
                    return total + moved, gain, scanned, False
                v = order[i]
                cur_key = np.uint64(0)
                if skip and not active[v]:
                    continue
            if heap and expired(deadline, i):
                return total + moved, gain, scanned, False
            active[v] = False
            nactive -= 1
            allow = (maxc <= 0 or nclus[0] < maxc) and not constrained
            k1 = labels[v]
            scanned += indptr[v + 1] - indptr[v]
            d, k2 = _dense_best(v, k1, s * n + i, indptr, indices, a, labels, acc, seen,
                                touched, allow, tol, constrained, cons, ccons, vw, cw, cap)
            if k2 != NO_MOVE:
                gain += d
                k2 = relabel(v, k2, labels, csize, free, nfree, nclus)
                if cap > 0:
                    cw[k1] -= vw[v]
                    cw[k2] += vw[v]
                if constrained:
                    ccons[k2] = cons[v]
                moved += 1
                if skip:
                    nh, added = _activate(v, cur_key, indptr, indices, active, hk, hv, nh, seed,
                                          sweep_stream, heap)
                    nactive += added
        if not skip:
            active[:] = True
            nactive = n
        total += moved
        if moved == 0:
            return total, gain, scanned, True
        if moved < min_moves:
            break
    return total, gain, scanned, False


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


# -- contraction ----------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _gather(v, stamp, skip, indptr, indices, a, lab, acc, seen, touched, nt):
    """Add v's signed weights per neighbour cluster into ``acc`` (scratch
    stamped with ``stamp``), listing new clusters in ``touched``; cluster
    ``skip`` and unassigned (< 0) neighbours are ignored.  Returns the count."""
    for p in range(indptr[v], indptr[v + 1]):
        k = lab[indices[p]]
        if k == skip or k < 0:
            continue
        if seen[k] != stamp:
            seen[k] = stamp
            acc[k] = 0.0
            touched[nt] = k
            nt += 1
        acc[k] += a[p]
    return nt


@numba.njit(cache=True, nogil=True)
def _contract_range(c0, c1, indptr, indices, a, lab, nc, mstart, members, bound, tmp_idx, tmp_a,
                    count):
    """The coarse rows ``c0..c1-1`` of :func:`contract`, each written from
    ``bound[c]`` (the sum of its members' degrees: room enough) with its
    length in ``count[c]``."""
    acc = np.zeros(nc, dtype=np.float64)
    seen = np.full(nc, -1, dtype=np.int64)
    touched = np.empty(nc, dtype=np.int64)
    for c in range(c0, c1):
        nt = 0
        for q in range(mstart[c], mstart[c + 1]):
            nt = _gather(members[q], c, c, indptr, indices, a, lab, acc, seen, touched, nt)
        pos = bound[c]
        for t in range(nt):  # first-encounter order: sorting the rows cost 3x the gathering
            cu = touched[t]
            if acc[cu] != 0.0:
                tmp_idx[pos] = cu
                tmp_a[pos] = acc[cu]
                pos += 1
        count[c] = pos - bound[c]


@numba.njit(parallel=True, cache=True, nogil=True)
def _contract_parts(cut, indptr, indices, a, lab, nc, mstart, members, bound, tmp_idx, tmp_a,
                    count):
    for t in prange(cut.size - 1):
        _contract_range(cut[t], cut[t + 1], indptr, indices, a, lab, nc, mstart, members, bound,
                        tmp_idx, tmp_a, count)


@numba.njit(cache=True, nogil=True)
def contract(indptr, indices, a, lab, nc, parts):
    """Coarse graph with one vertex per cluster of ``lab`` (ids 0..nc-1).

    Coarse edge weight = sum of the signed weights between the two clusters
    (only that net weight matters for the moves of the coarse vertices);
    edges inside a cluster and zero-sum edges are dropped.  A row lists its
    neighbours in the order its members' rows meet them (no kernel needs
    sorted rows: every choice among clusters breaks ties by id).  Coarse rows
    are built independently (with ``parts`` > 1 in that many ranges of equal
    slot counts, in parallel, each row in its own place), so the result does
    not depend on ``parts`` or the threads.
    """
    mstart, members = members_by_cluster(lab, nc)
    bound = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        deg = 0
        for q in range(mstart[c], mstart[c + 1]):
            v = members[q]
            deg += indptr[v + 1] - indptr[v]
        bound[c + 1] = bound[c] + deg
    tmp_idx = np.empty(indices.size, dtype=np.int32)
    tmp_a = np.empty(indices.size, dtype=np.float64)
    count = np.zeros(nc, dtype=np.int64)
    parts = max(1, min(parts, nc))
    cut = np.searchsorted(bound, np.arange(parts + 1) * (bound[nc] / parts))
    cut[0] = 0
    cut[parts] = nc
    if parts == 1:
        _contract_range(0, nc, indptr, indices, a, lab, nc, mstart, members, bound, tmp_idx,
                        tmp_a, count)
    else:
        _contract_parts(cut, indptr, indices, a, lab, nc, mstart, members, bound, tmp_idx, tmp_a,
                        count)
    out_ptr = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        out_ptr[c + 1] = out_ptr[c] + count[c]
    out_idx = np.empty(out_ptr[nc], dtype=np.int32)
    out_a = np.empty(out_ptr[nc], dtype=np.float64)
    for c in range(nc):
        out_idx[out_ptr[c]:out_ptr[c + 1]] = tmp_idx[bound[c]:bound[c] + count[c]]
        out_a[out_ptr[c]:out_ptr[c + 1]] = tmp_a[bound[c]:bound[c] + count[c]]
    return out_ptr, out_idx, out_a


@numba.njit(cache=True, nogil=True)
def imbalance_slots(indptr, indices, a, labels):
    """I(P) up to the constant of contracted edges: half the sum over slots of
    positive cut and negative uncut weight (each edge has two slots)."""
    tot = 0.0
    for u in range(labels.size):
        for p in range(indptr[u], indptr[u + 1]):
            same = labels[u] == labels[indices[p]]
            w = a[p]
            if w < 0.0 and same:
                tot -= w
            elif w > 0.0 and not same:
                tot += w
    return 0.5 * tot


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
    nclus = 0
    for i in range(n):
        v = order[i]
        nt = _gather(v, v, -1, indptr, indices, a, labels, acc, seen, cand, 0)
        srt = np.sort(cand[:nt])
        for t in range(nt):
            cand[t] = srt[t]
            cost[t] = -acc[srt[t]]
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
