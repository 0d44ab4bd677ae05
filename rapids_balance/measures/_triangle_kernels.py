"""Triangle listing by degree ordering: the CPU kernels and the bodies the GPU shares.

Every edge is oriented from its lower-ranked to its higher-ranked end, the
rank being the position in ``(degree, vertex id)`` order.  A vertex then has at most ``sqrt(2m)``
out-neighbours of higher rank, and a triangle ``u < v < w`` (by rank) is
found exactly once: at ``u``, as the common out-neighbour ``w`` of ``u`` and
its out-neighbour ``v``.  Rows are sorted by rank, so ``w`` is looked for
only after ``v`` in ``u``'s row; merging the sorted rows costs ``O(m^1.5)``
in all (Chiba and Nishizeki's bound).

The census on the CPU is one pass (:func:`census_all`): each triangle is
counted where it is found, into per-chunk integer counters, so no list is
written.  Listing (for the null models, which reuse one list for many sign
vectors, and for the GPU) is two passes over the vertices: count each
vertex's triangles, take the prefix sum, then write each vertex's triangles
at its offset, in the order of its out-row.  The list is a function of the
graph alone, whatever the thread count or backend.  A row of it holds the
edge ids ``(e_uv, e_uw, e_vw)``.

:func:`triangles_at` is a plain ``@numba.njit`` body: the
CPU drivers here call them in a ``prange``, the CUDA kernels in
:mod:`._triangle_gpu` call them as device functions (one thread a vertex).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

__all__ = ["oriented_csr", "triangles_at", "census_at", "count_all", "fill_all", "census_all",
           "weighted_types", "type_counts"]


@numba.njit(cache=True, nogil=True)
def oriented_csr(src, dst, n):
    """Out-rows of the degree-ordered orientation, in rank space.

    Vertices are renumbered by rank (``(degree, id)`` order), every edge
    points from its lower to its higher rank, and each row lists its heads
    in increasing rank.  Returns ``(optr, oind, oedge)``: int64 row pointers
    (n+1), int32 heads (ranks) and int64 edge ids, by counting sorts only
    (``O(n + m)``).
    """
    m = src.size
    deg = np.zeros(n, dtype=np.int64)
    for e in range(m):
        deg[src[e]] += 1
        deg[dst[e]] += 1
    # rank = position in (degree, id) order, by a counting sort on the degree
    dstart = np.zeros(m + 2, dtype=np.int64)
    for v in range(n):
        dstart[deg[v] + 1] += 1
    for d in range(m + 1):
        dstart[d + 1] += dstart[d]
    rank = np.empty(n, dtype=np.int64)
    for v in range(n):
        rank[v] = dstart[deg[v]]
        dstart[deg[v]] += 1
    tail = np.empty(m, dtype=np.int64)
    head = np.empty(m, dtype=np.int64)
    for e in range(m):
        a = rank[src[e]]
        b = rank[dst[e]]
        tail[e] = min(a, b)
        head[e] = max(a, b)
    # stable counting sort by head ...
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        start[head[e] + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    by_head = np.empty(m, dtype=np.int64)
    for e in range(m):
        by_head[start[head[e]]] = e
        start[head[e]] += 1
    # ... then by tail, so each row lists its heads in increasing id
    optr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        optr[tail[e] + 1] += 1
    for v in range(n):
        optr[v + 1] += optr[v]
    fill = optr[:-1].copy()
    oind = np.empty(m, dtype=np.int32)
    oedge = np.empty(m, dtype=np.int64)
    for k in range(m):
        e = by_head[k]
        t = tail[e]
        oind[fill[t]] = head[e]
        oedge[fill[t]] = e
        fill[t] += 1
    return optr, oind, oedge


@numba.njit(cache=True, nogil=True)
def triangles_at(u, optr, oind, oedge, pos, out, write):
    """The triangles whose lowest-ranked vertex is ``u``: counted, and with ``write`` stored.

    With ``write``, triangle ``t`` goes to ``out[pos + t]`` as its edge ids
    ``(e_uv, e_uw, e_vw)``.  Returns ``pos`` plus the number found.  One body
    for both passes of the listing (count, then fill), so they cannot
    disagree.
    """
    ue = optr[u + 1]
    for p in range(optr[u], ue):
        v = oind[p]
        i = p + 1  # a third vertex ranks above v, so it lies after v in u's row
        j = optr[v]
        je = optr[v + 1]
        while i < ue and j < je:
            a = oind[i]
            b = oind[j]
            if a < b:
                i += 1
            elif a > b:
                j += 1
            else:
                if write:
                    out[pos, 0] = oedge[p]
                    out[pos, 1] = oedge[i]
                    out[pos, 2] = oedge[j]
                pos += 1
                i += 1
                j += 1
    return pos


@numba.njit(parallel=True, cache=True)
def count_all(optr, oind, oedge):
    """Per-vertex triangle counts (int64, n), one vertex per iteration."""
    n = optr.size - 1
    counts = np.zeros(n, dtype=np.int64)
    none = np.zeros((0, 3), dtype=np.int64)
    for u in prange(n):
        counts[u] = triangles_at(u, optr, oind, oedge, 0, none, False)
    return counts


@numba.njit(parallel=True, cache=True)
def fill_all(optr, oind, oedge, offsets, out):
    """Each vertex's triangles at its offset (offsets: exclusive prefix sum of the counts)."""
    n = optr.size - 1
    for u in prange(n):
        triangles_at(u, optr, oind, oedge, offsets[u], out, True)


@numba.njit(cache=True, nogil=True)
def census_at(u, optr, oind, oneg, ow, ecount, slot_of, stamp):
    """Count the triangles found at ``u``: per out-slot into ``ecount``, per type returned.

    ``oneg`` (int8) marks the negative out-slots (0/1) and ``ow`` holds their
    weights (empty: unweighted).  ``ecount[2 s]`` / ``ecount[2 s + 1]``
    count the balanced / unbalanced triangles through the edge of out-slot
    ``s``.  ``slot_of`` / ``stamp`` (n each, per thread) mark ``u``'s
    out-neighbours, so each row of a neighbour ``v`` is scanned once with
    no merge (fewer mispredicted branches than the merge of
    :func:`triangles_at`).  Returns the four type counts and the four sums of
    weight products of ``u``'s triangles (added in row order).
    """
    weighted = ow.size > 0
    c0 = c1 = c2 = c3 = 0
    w0 = w1 = w2 = w3 = 0.0
    ub = optr[u]
    ue = optr[u + 1]
    for i in range(ub, ue):
        slot_of[oind[i]] = i - ub
        stamp[oind[i]] = u
    for p in range(ub, ue):
        v = oind[p]
        neg_p = oneg[p]
        bal_p = 0
        unb_p = 0
        for j in range(optr[v], optr[v + 1]):
            x = oind[j]
            if stamp[x] != u:
                continue
            i = ub + slot_of[x]
            k = neg_p + oneg[i] + oneg[j]
            odd = k & 1
            # counters by out-slot, not edge id: i lies in u's row and j walks
            # v's row, so the writes stay within two cached rows
            ecount[2 * i + odd] += 1
            ecount[2 * j + odd] += 1
            unb_p += odd
            bal_p += 1 - odd
            w = ow[p] * ow[i] * ow[j] if weighted else 0.0
            if k == 0:
                c0 += 1
                w0 += w
            elif k == 1:
                c1 += 1
                w1 += w
            elif k == 2:
                c2 += 1
                w2 += w
            else:
                c3 += 1
                w3 += w
        ecount[2 * p] += bal_p
        ecount[2 * p + 1] += unb_p
    return c0, c1, c2, c3, w0, w1, w2, w3


@numba.njit(parallel=True, cache=True)
def census_all(optr, oind, oedge, oneg, ow, m, chunks):
    """Type counts, per-edge balanced / unbalanced counts and weighted type sums, in one pass.

    Vertex ``u`` goes to chunk ``u % chunks`` (ranks interleave hubs and
    leaves); each chunk counts into its own int32 slot counters, summed
    afterwards (exact integers, so the result does not depend on
    ``chunks``).  Weighted sums are kept per vertex and added in vertex
    order, so they do not depend on it either.
    """
    n = optr.size - 1
    types_c = np.zeros((chunks, 4), dtype=np.int64)
    ecount_c = np.zeros((chunks, 2 * m), dtype=np.int32)
    wv = np.zeros((n if ow.size > 0 else 0, 4), dtype=np.float64)
    for c in prange(chunks):
        ecount = ecount_c[c]
        slot_of = np.empty(n, dtype=np.int32)  # int32: half the cache lines of the marks
        stamp = np.full(n, -1, dtype=np.int32)
        t0 = t1 = t2 = t3 = 0
        for u in range(c, n, chunks):
            c0, c1, c2, c3, w0, w1, w2, w3 = census_at(u, optr, oind, oneg, ow, ecount, slot_of, stamp)
            t0 += c0
            t1 += c1
            t2 += c2
            t3 += c3
            if ow.size > 0:
                wv[u, 0] = w0
                wv[u, 1] = w1
                wv[u, 2] = w2
                wv[u, 3] = w3
        types_c[c, 0] = t0
        types_c[c, 1] = t1
        types_c[c, 2] = t2
        types_c[c, 3] = t3
    types = np.zeros(4, dtype=np.int64)
    for c in range(chunks):
        for k in range(4):
            types[k] += types_c[c, k]
    ebal = np.zeros(m, dtype=np.int64)
    eunb = np.zeros(m, dtype=np.int64)
    for s in prange(m):
        sb = 0
        su = 0
        for c in range(chunks):
            sb += ecount_c[c, 2 * s]
            su += ecount_c[c, 2 * s + 1]
        ebal[oedge[s]] = sb
        eunb[oedge[s]] = su
    wsum = np.zeros(4, dtype=np.float64)
    for u in range(wv.shape[0]):
        for k in range(4):
            wsum[k] += wv[u, k]
    return types, ebal, eunb, wsum


@numba.njit(cache=True, nogil=True)
def weighted_types(tri, sign, weight):
    """Sum over the triangles of each type of the product of their three weights (list order)."""
    out = np.zeros(4, dtype=np.float64)
    for t in range(tri.shape[0]):
        k = 0
        w = 1.0
        for c in range(3):
            e = tri[t, c]
            if sign[e] < 0:
                k += 1
            w *= weight[e]
        out[k] += w
    return out


@numba.njit(parallel=True, cache=True)
def type_counts(tri, sign):
    """Triangles with 0, 1, 2, 3 negative edges (int64, 4): the cheap pass for sign shuffles."""
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    for t in prange(tri.shape[0]):
        k = 0
        if sign[tri[t, 0]] < 0:
            k += 1
        if sign[tri[t, 1]] < 0:
            k += 1
        if sign[tri[t, 2]] < 0:
            k += 1
        if k == 0:
            c0 += 1
        elif k == 1:
            c1 += 1
        elif k == 2:
            c2 += 1
        else:
            c3 += 1
    out = np.empty(4, dtype=np.int64)
    out[0] = c0
    out[1] = c1
    out[2] = c2
    out[3] = c3
    return out
