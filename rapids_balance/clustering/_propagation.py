"""Label propagation: first improvement in a random order (sparse and dense sweeps)."""

from __future__ import annotations

import numba
import numpy as np

from .._deadline import expired
from .._host_sort import merge_argsort
from .._random import hash64
from ._contract import _gather
from ._moves import move_vertex
from ._tables import NEW_CLUSTER, NO_MOVE, best_move, better, relabel

# -- label propagation: first improvement in a random order -------------------

RADIX_BITS = 11          # digit of the radix sort: 6 passes over 64-bit keys, 2048 buckets
RADIX_MIN = 4096         # below this many keys the merge sort is as fast


@numba.njit(cache=True, nogil=True)
def stable_argsort_u64(keys):
    """``np.argsort(keys, kind="stable")`` as int32, by an LSD radix sort for
    large arrays (numba's merge sort took 1.2 s on 2.4M keys, this 0.1 s)."""
    n = keys.size
    if n < RADIX_MIN:
        return merge_argsort(keys)
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
                # int64 vertex and cluster, as the other callers pass: one signature of move_vertex
                k2 = move_vertex(np.int64(v), np.int64(k2), indptr, indices, a, labels, csize, free,
                                 nfree, nclus, tid, tsum, tcnt, tlen)
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
