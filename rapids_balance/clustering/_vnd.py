"""Paper-faithful VND (best improving move first), its perturbation and undo log,
and the cluster-merge neighbourhood it also searches."""

from __future__ import annotations

import numba
import numpy as np

from .._deadline import expired
from .._random import hash64, randint
from ._moves import _refresh, _refresh_all, members_by_cluster, move_vertex, tree_set
from ._tables import NEW_CLUSTER, best_move, better, relabel, table_add, table_sub

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
    moves = np.int64(0)  # a literal 0 would compile expired once more for Literal[int](0)
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
    nd = np.int64(0)  # a literal 0 would compile _refresh_dirty once more for Literal[int](0)
    for i in range(nlog[0] - 1, -1, -1):
        # int64 like the other callers' vertex and cluster: one signature of move_vertex
        v = np.int64(log_v[i])
        move_vertex(v, np.int64(log_k[i]), indptr, indices, a, labels, csize, free, nfree, nclus,
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
    nd = np.int64(0)  # not a literal 0: see undo
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
    nd = np.int64(0)  # not a literal 0: see undo
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
