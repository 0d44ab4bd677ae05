"""numba kernels of the generators: Chung-Lu rows, per-pair draws, trimming, components.

Edges come from the Chung-Lu model with Miller and Hagberg's skipping walk
(``O(n + m)``): row ``u`` visits the vertices ``v > u`` in order of
decreasing weight ``(v + 1) ** -alpha``, jumping ahead geometrically, so
each pair is drawn at most once (no duplicates, no self loops) and each
row's edges come out sorted.  Row ``u`` draws its random numbers from
stream ``ROW_STREAM + u`` only (``+ attempt * n`` on a rare second draw),
so a row's edges are a pure function of (seed, u): a count pass and a fill
pass give the same rows, on any thread count.  Everything drawn per edge
(sign, weight, the trimming key) is a hash of the pair's original ids, so
it does not depend on where the edge sits in the arrays either.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from .._random import hash64, randint, uniform01

__all__ = ["vertex_weight", "suffix_sums", "expected_edges", "count_rows", "fill_rows", "trim_keys", "trim_compact",
           "edge_signs", "edge_weights", "vertex_groups", "largest_component", "compact_edges"]

SIGN_STREAM = 1
WEIGHT_STREAM = 2
TRIM_STREAM = 3
GROUP_STREAM = 4
ROW_STREAM = 1 << 20  # row u uses ROW_STREAM + attempt * n + u
# rows are dealt to threads in this many interleaved blocks: heavy rows (the
# hubs, which come first) spread over all threads; the output never depends on it
ROW_BLOCKS = 1024


@numba.njit(cache=True)
def suffix_sums(a):
    """``out[i] = sum(a[i:])`` (length n + 1), summed from the end in a fixed order."""
    out = np.zeros(a.size + 1)
    for i in range(a.size - 1, -1, -1):
        out[i] = out[i + 1] + a[i]
    return out


@numba.njit(cache=True)
def expected_edges(a, suffix, c):
    """Expected edge count ``sum_{u<v} min(1, c a_u a_v)`` for ``a`` sorted decreasingly.

    The saturated partners of ``u`` (``c a_u a_v >= 1``) are a prefix of the
    vertices whose length only shrinks as ``u`` grows: one pointer sweep.
    ``suffix`` is :func:`suffix_sums` of ``a``.
    """
    n = a.size
    total = 0.0
    t = n
    for u in range(n):
        while t > 0 and c * a[u] * a[t - 1] < 1.0:
            t -= 1
        start = u + 1
        if t > start:
            total += t - start
            start = t
        total += c * a[u] * suffix[start]
    return total


@numba.njit(cache=True, inline="always")
def vertex_weight(v, alpha):
    """Weight ``(v + 1) ** -alpha`` of vertex ``v``; recomputed where needed (cheaper
    than a cache miss into an n-long table once rows skip far ahead)."""
    return math.exp(-alpha * math.log(v + 1.0))


@numba.njit(cache=True, inline="always")
def _row(u, n, alpha, c, seed, attempt, out, pos, fill):
    """Miller-Hagberg walk of row ``u``; writes neighbours to ``out[pos:]`` when ``fill``."""
    v = u + 1
    count = 0
    if v >= n:
        return 0
    cu = c * vertex_weight(u, alpha)
    p = min(1.0, cu * vertex_weight(v, alpha))
    stream = ROW_STREAM + attempt * n + u
    step = 0
    while v < n and p > 0.0:
        if p < 1.0:
            r = 1.0 - uniform01(seed, stream, 2 * step)  # in (0, 1]
            skip = math.floor(math.log(r) / math.log1p(-p))
            if skip >= n - v:
                break
            v += int(skip)
        q = min(1.0, cu * vertex_weight(v, alpha))
        if uniform01(seed, stream, 2 * step + 1) * p < q:  # accept with probability q / p
            if fill:
                out[pos + count] = v
            count += 1
        p = q
        v += 1
        step += 1
    return count


@numba.njit(parallel=True, cache=True)
def count_rows(n, alpha, c, seed, attempt, counts):
    """``counts[u]`` = edges of row ``u`` (pass 1)."""
    dummy = np.empty(0, np.int32)
    for b in prange(ROW_BLOCKS):
        for u in range(b, n, ROW_BLOCKS):
            counts[u] = _row(u, n, alpha, c, seed, attempt, dummy, 0, False)


@numba.njit(parallel=True, cache=True)
def fill_rows(n, alpha, c, seed, attempt, offsets, src, dst):
    """Write row ``u``'s edges at ``offsets[u]`` (pass 2: the same walks as pass 1)."""
    for b in prange(ROW_BLOCKS):
        for u in range(b, n, ROW_BLOCKS):
            start = offsets[u]
            k = _row(u, n, alpha, c, seed, attempt, dst, start, True)
            for j in range(k):
                src[start + j] = u


@numba.njit(cache=True, inline="always")
def _pair(seed, stream, u, v, n):
    return hash64(seed, stream, np.uint64(u) * np.uint64(n) + np.uint64(v))


@numba.njit(parallel=True, cache=True)
def trim_keys(src, dst, n, seed, keys):
    """A random key per pair: the edges kept when trimming are those with the smallest keys."""
    for e in prange(src.size):
        keys[e] = _pair(seed, TRIM_STREAM, src[e], dst[e], n)


@numba.njit(cache=True)
def trim_compact(src, dst, n, seed, threshold, keep):
    """Keep exactly ``keep`` edges: keys below ``threshold``, then ties in edge order.

    Compacts ``src``/``dst`` in place (order kept) and returns ``keep``.
    """
    below = 0
    for e in range(src.size):
        if _pair(seed, TRIM_STREAM, src[e], dst[e], n) < threshold:
            below += 1
    ties = keep - below
    w = 0
    for e in range(src.size):
        k = _pair(seed, TRIM_STREAM, src[e], dst[e], n)
        if k < threshold or (k == threshold and ties > 0):
            if k == threshold:
                ties -= 1
            src[w] = src[e]
            dst[w] = dst[e]
            w += 1
    return w


@numba.njit(parallel=True, cache=True)
def vertex_groups(n, k, seed, out):
    """Planted group of every vertex: uniform in ``[0, k)``, a hash of (seed, vertex)."""
    for v in prange(n):
        out[v] = randint(seed, GROUP_STREAM, v, k)


@numba.njit(parallel=True, cache=True)
def edge_signs(src, dst, labels, n, group, flip, seed, out):
    """Sign of each edge: +1, or by planted group (``group`` non-empty), flipped w.p. ``flip``.

    ``labels`` maps current vertex ids to the original ids the draws are keyed on.
    """
    grouped = group.size > 0
    for e in prange(src.size):
        u = labels[src[e]]
        v = labels[dst[e]]
        s = 1
        if grouped and group[u] != group[v]:
            s = -1
        if uniform01(seed, SIGN_STREAM, np.uint64(u) * np.uint64(n) + np.uint64(v)) < flip:
            s = -s
        out[e] = s


@numba.njit(parallel=True, cache=True)
def edge_weights(src, dst, labels, n, integer, low, high, seed, out):
    """Weight of each edge: uniform integers in [low, high] or reals in [low, high)."""
    span = int(high - low) + 1
    for e in prange(src.size):
        key = np.uint64(labels[src[e]]) * np.uint64(n) + np.uint64(labels[dst[e]])
        if integer:
            out[e] = low + randint(seed, WEIGHT_STREAM, key, span)
        else:
            out[e] = low + (high - low) * uniform01(seed, WEIGHT_STREAM, key)


@numba.njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@numba.njit(cache=True)
def largest_component(src, dst, n, largest, keep):
    """Mark the vertices to keep: the largest component (ties: the one holding the
    smallest vertex id) when ``largest``, else every vertex with an edge.

    Returns the number of components among vertices with an edge.
    """
    parent = np.arange(n, dtype=np.int32)
    has_edge = np.zeros(n, np.bool_)
    for e in range(src.size):
        has_edge[src[e]] = True
        has_edge[dst[e]] = True
        ru = _find(parent, src[e])
        rv = _find(parent, dst[e])
        if ru != rv:
            if ru < rv:
                parent[rv] = ru
            else:
                parent[ru] = rv
    size = np.zeros(n, np.int64)
    components = 0
    for v in range(n):
        if has_edge[v]:
            r = _find(parent, v)
            if size[r] == 0:
                components += 1
            size[r] += 1
    best = 0
    for v in range(n):
        if size[v] > size[best]:
            best = v
    for v in range(n):
        keep[v] = has_edge[v] and (not largest or _find(parent, v) == best)
    return components


@numba.njit(cache=True)
def compact_edges(src, dst, keep, new_id):
    """Drop edges outside the kept vertices and renumber in place (order kept); returns the count."""
    w = 0
    for e in range(src.size):
        if keep[src[e]]:
            src[w] = new_id[src[e]]
            dst[w] = new_id[dst[e]]
            w += 1
    return w
