"""Leiden-style search kernels for the signed community objectives.

Every objective is maximised in one form (``_signed_objective.SearchForm``)::

    F = sum_{i<j same} [w_ij - alpha x_i x_j + beta y_i y_j]

so moving vertex v (taken out of its community) into community c gains
``A_v[c] - alpha x_v X_c + beta y_v Y_c`` where ``A_v[c]`` is the signed
weight from v to c and ``X_c``, ``Y_c`` are the community's totals, kept
up to date with each move: O(1) per candidate beyond the neighbours' sums.

With a negative null term (``beta > 0``) a community with no edge to v may
be its best move.  Scanning every community for every vertex (leidenalg's
``ALL_COMMS``) costs O(n c); here the candidates are v's neighbours'
communities, an empty community and the ``EXTRA`` communities with the
largest ``beta Y_c - alpha X_c``, listed once per sweep (the gains are
exact; only the list is a sweep old).  For the density and constant null
models (x = y = 1) that list holds the exact best non-neighbour community.

Leiden's refinement (Traag, Waltman and van Eck 2019), greedy: within each
community, vertices still alone merge into the sub-community with the best
gain among those they have a net positive weight to, so each sub-community
is connected by positive edges; the sub-communities are contracted
(``_contract.contract``) and the coarse level starts from the communities.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .._deadline import expired
from .._random import uniform01
from ._contract import _gather
from ._propagation import random_order

#: non-neighbour communities offered to each move when the null term rewards joining them
EXTRA = 4
#: a move must gain more than this (relative to the level's total absolute weight)
TOL = 1e-12


@numba.njit(cache=True, inline="always")
def _better(g, c, best_g, best_c):
    return g > best_g or (g == best_g and c < best_c)


@numba.njit(cache=True, nogil=True)
def _top_extra(X, Y, count, alpha, beta, extra, out):
    """The ``extra`` non-empty communities with the largest ``beta Y - alpha X``
    (ties to the smaller id); returns how many were found."""
    k = 0
    nc = X.size
    keys = np.empty(extra, np.float64)
    for c in range(nc):
        if count[c] == 0:
            continue
        key = beta * Y[c] - alpha * X[c]
        if k < extra:
            j = k
            k += 1
        elif key > keys[k - 1]:
            j = k - 1
        else:
            continue
        while j > 0 and key > keys[j - 1]:
            keys[j] = keys[j - 1]
            out[j] = out[j - 1]
            j -= 1
        keys[j] = key
        out[j] = c
    return k


@numba.njit(cache=True, nogil=True)
def local_moves(indptr, indices, a, x, y, alpha, beta, labels, seed, stream, max_visits, extra,
                tol, deadline, only):
    """Best moves until none improves, Leiden's fast local moving: a queue holds every
    vertex in a seeded random order, and a vertex that moves puts back its neighbours
    outside its new community that are not queued.  At most ``max_visits`` visits per
    vertex on average (a guard; the queue empties long before).

    ``labels`` (ids < n) are changed in place.  Returns (moves, gain, converged).
    """
    n = labels.size
    X = np.zeros(n, np.float64)
    Y = np.zeros(n, np.float64)
    count = np.zeros(n, np.int64)
    for v in range(n):
        c = labels[v]
        X[c] += x[v]
        Y[c] += y[v]
        count[c] += 1
    free = np.empty(n, np.int64)
    nfree = 0
    for c in range(n - 1, -1, -1):
        if count[c] == 0:
            free[nfree] = c
            nfree += 1
    acc = np.zeros(n, np.float64)
    seen = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    top = np.empty(max(extra, 1), np.int64)
    use_extra = beta > 0.0 and extra > 0
    order = random_order(n, seed, stream)
    queue = np.empty(n, np.int64)
    queued = np.zeros(n, np.bool_)
    size = 0
    for i in range(n):
        v = order[i]
        if only.size == 0 or only[v]:
            queue[size] = v
            queued[v] = True
            size += 1
    head = 0
    moves = 0
    gain = 0.0
    ntop = 0
    limit = max_visits * max(n, 1)
    step = 0
    while size > 0:
        if step % max(n, 1) == 0 and use_extra:  # the extra candidates, once per n visits
            ntop = _top_extra(X, Y, count, alpha, beta, extra, top)
        step += 1
        if step > limit or expired(deadline, step):
            return moves, gain, False
        v = queue[head]
        head = head + 1 if head + 1 < n else 0
        size -= 1
        queued[v] = False
        own = labels[v]
        nt = _gather(v, step, -1, indptr, indices, a, labels, acc, seen, touched, 0)
        xv = x[v]
        yv = y[v]
        X[own] -= xv
        Y[own] -= yv
        count[own] -= 1
        a_own = acc[own] if seen[own] == step else 0.0
        g_own = a_own - alpha * xv * X[own] + beta * yv * Y[own]
        best_g = g_own
        best_c = own
        for t in range(nt):
            k = touched[t]
            if k == own:
                continue
            g = acc[k] - alpha * xv * X[k] + beta * yv * Y[k]
            if _better(g, k, best_g, best_c) and g > g_own + tol:
                best_g = g
                best_c = k
        for t in range(ntop):
            k = top[t]
            if k == own or seen[k] == step or count[k] == 0:
                continue
            g = -alpha * xv * X[k] + beta * yv * Y[k]
            if _better(g, k, best_g, best_c) and g > g_own + tol:
                best_g = g
                best_c = k
        # an empty community gains 0 (only worth it when v's own community has others)
        if count[own] > 0 and 0.0 > g_own + tol and 0.0 > best_g:
            best_g = 0.0
            best_c = -1
        if best_c == -1:
            nfree -= 1
            best_c = free[nfree]
        if best_c != own:
            gain += best_g - g_own
            moves += 1
            if count[own] == 0:
                free[nfree] = own
                nfree += 1
            for p in range(indptr[v], indptr[v + 1]):
                u = indices[p]
                if not queued[u] and labels[u] != best_c:
                    queued[u] = True
                    tail = head + size
                    queue[tail - n if tail >= n else tail] = u
                    size += 1
        labels[v] = best_c
        X[best_c] += xv
        Y[best_c] += yv
        count[best_c] += 1
    return moves, gain, True


@numba.njit(cache=True, nogil=True)
def refine(indptr, indices, a, x, y, alpha, beta, labels, seed, stream, tol, deadline):
    """Leiden's refinement, greedy: sub-communities of ``labels``, each
    connected by positive edges.  Returns the sub-community of every vertex
    (ids < n, the id of one of its vertices)."""
    n = labels.size
    sub = np.arange(n).astype(np.int64)
    X = x.copy()
    Y = y.copy()
    size = np.ones(n, np.int64)
    acc = np.zeros(n, np.float64)
    seen = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    order = random_order(n, seed, stream)
    for i in range(n):
        if expired(deadline, i):
            break
        v = order[i]
        if size[sub[v]] != 1:
            continue  # no longer alone: it holds its sub-community together
        nt = 0
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            if labels[u] != labels[v]:
                continue
            k = sub[u]
            if seen[k] != i:
                seen[k] = i
                acc[k] = 0.0
                touched[nt] = k
                nt += 1
            acc[k] += a[p]
        xv = x[v]
        yv = y[v]
        own = sub[v]
        # a merge that loses nothing is taken (as Leiden's), so the levels shrink
        best_g = -tol
        best_c = own
        for t in range(nt):
            k = touched[t]
            if k == own or acc[k] <= 0.0:
                continue  # a net positive weight: at least one positive edge into k
            g = acc[k] - alpha * xv * X[k] + beta * yv * Y[k]
            if g > best_g or (g == best_g and best_c != own and k < best_c):
                best_g = g
                best_c = k
        if best_c != own:
            sub[v] = best_c
            size[own] = 0
            size[best_c] += 1
            X[best_c] += xv
            Y[best_c] += yv
    return sub


@numba.njit(cache=True, nogil=True)
def split_gain(indptr, indices, a, x, y, alpha, beta, labels, comp):
    """Per community of ``labels``: the change of F if it were split into the
    parts ``comp`` (finer than ``labels``).  Pairs across parts leave the
    sum: ``-(w - alpha x x + beta y y)`` over them."""
    n = labels.size
    cross = np.zeros(n, np.float64)
    for v in range(n):
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            if u > v and labels[u] == labels[v] and comp[u] != comp[v]:
                cross[labels[v]] -= a[p]
    xc = np.zeros(n, np.float64)
    yc = np.zeros(n, np.float64)
    xp = np.zeros(n, np.float64)
    yp = np.zeros(n, np.float64)
    for v in range(n):
        xc[labels[v]] += x[v]
        yc[labels[v]] += y[v]
        xp[comp[v]] += x[v]
        yp[comp[v]] += y[v]
    sx = xc * xc
    sy = yc * yc
    # a part's id is one of its vertices: its community is that vertex's
    px = np.zeros(n, np.float64)
    py = np.zeros(n, np.float64)
    done = np.zeros(n, np.bool_)
    for v in range(n):
        k = comp[v]
        if not done[k]:
            done[k] = True
            px[labels[v]] += xp[k] * xp[k]
            py[labels[v]] += yp[k] * yp[k]
    out = np.zeros(n, np.float64)
    for c in range(n):
        out[c] = cross[c] + alpha * 0.5 * (sx[c] - px[c]) - beta * 0.5 * (sy[c] - py[c])
    return out


@numba.njit(cache=True, nogil=True)
def positive_parts(indptr, indices, a, labels):
    """Connected components of each community's positive part (id: a member vertex)."""
    n = labels.size
    comp = np.full(n, -1, np.int64)
    stack = np.empty(n, np.int64)
    for r in range(n):
        if comp[r] >= 0:
            continue
        comp[r] = r
        top = 0
        stack[top] = r
        top += 1
        while top > 0:
            top -= 1
            v = stack[top]
            for p in range(indptr[v], indptr[v + 1]):
                u = indices[p]
                if a[p] > 0.0 and comp[u] < 0 and labels[u] == labels[v]:
                    comp[u] = r
                    stack[top] = u
                    top += 1
    return comp


@numba.njit(cache=True, nogil=True)
def draws(n, seed, stream):
    """``n`` uniform numbers in [0, 1), a pure function of (seed, stream)."""
    out = np.empty(n, np.float64)
    for i in range(n):
        out[i] = uniform01(seed, stream, i)
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def inside_slots(indptr, indices, a, labels, active):
    """The level without the edges between communities and without the vertices of
    communities c with ``active[c]`` false (CSR of the same vertices, slots in order).
    Returns (indptr, indices, weights)."""
    n = labels.size
    cnt = np.zeros(n + 1, np.int64)
    for v in prange(n):
        if not active[labels[v]]:
            continue
        c = 0
        for p in range(indptr[v], indptr[v + 1]):
            if labels[indices[p]] == labels[v]:
                c += 1
        cnt[v + 1] = c
    ptr = np.cumsum(cnt)
    idx = np.empty(ptr[n], indices.dtype)
    out = np.empty(ptr[n], np.float64)
    for v in prange(n):
        if not active[labels[v]]:
            continue
        q = ptr[v]
        for p in range(indptr[v], indptr[v + 1]):
            if labels[indices[p]] == labels[v]:
                idx[q] = indices[p]
                out[q] = a[p]
                q += 1
    return ptr, idx, out


@numba.njit(cache=True, nogil=True, parallel=True)
def bisect(indptr, indices, a, labels, active, seed, stream, iterations):
    """Each community cut in two by the sign of its leading eigenvector: power
    iteration on ``A_c`` (the signed weights inside community c) with the
    community's constant direction taken out at every step, every community at
    once, each normalised on its own.  In a union of groups that repel each
    other the constant direction is (close to) the eigenvector of the most
    negative eigenvalue, about as large as the leading one, whose eigenvector
    is positive on some groups and negative on the others; without it the
    iteration converges to the leading direction at the rate of the noise's
    eigenvalues to the groups' (a shift that made the block positive
    semi-definite instead, its largest absolute degree, left the leading
    direction a few per cent ahead a step: 30 steps cut a union of four groups
    of a signed block model across the groups).  The cut of any other
    direction is only taken where it scores (``split_gain``).  Only communities
    with ``active[c]`` are cut (the others cost nothing).  Returns the side
    (0 / 1) of every vertex."""
    n = labels.size
    # the slots inside active communities, once: each iteration then reads only them,
    # in their order (the same sums), not every slot with its neighbour's label
    ptr, idx, val = inside_slots(indptr, indices, a, labels, active)
    size = np.zeros(n, np.float64)
    for v in range(n):
        size[labels[v]] += 1.0
    vec = np.empty(n, np.float64)
    for v in range(n):
        vec[v] = uniform01(seed, stream, v) - 0.5
    nxt = np.empty(n, np.float64)
    mean = np.zeros(n, np.float64)
    norm = np.zeros(n, np.float64)
    for _ in range(iterations):
        for v in prange(n):  # each row on its own: the same sums on any thread count
            if not active[labels[v]]:
                nxt[v] = 0.0
                continue
            acc = 0.0
            for o in range(ptr[v], ptr[v + 1]):
                acc += val[o] * vec[idx[o]]
            nxt[v] = acc
        mean[:] = 0.0
        for v in range(n):
            mean[labels[v]] += nxt[v]
        norm[:] = 0.0
        for v in range(n):
            nxt[v] -= mean[labels[v]] / size[labels[v]]
            norm[labels[v]] += nxt[v] * nxt[v]
        for v in range(n):
            q = norm[labels[v]]
            vec[v] = nxt[v] / np.sqrt(q) if q > 0.0 else 0.0
    side = np.empty(n, np.int64)
    for v in range(n):
        side[v] = 1 if vec[v] > 0.0 else 0
    return side
