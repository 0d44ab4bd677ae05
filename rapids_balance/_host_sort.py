"""Compiled host kernels of graph building: counting sorts, pair grouping, components, gathers.

The numpy branches of :mod:`rapids_balance._xp` hand large integer inputs
to these kernels (numba, imported only then: building a small graph does
not pay for numba's import).  Each returns exactly what the vectorised
numpy call it replaces returns, so the graph built is the same bit for bit:

* :func:`counting_order`: the stable argsort of non-negative integer keys
  below a bound not much larger than their count (a counting sort, in
  parallel over blocks of the input: per-block counts, then every block
  writes its own share of each key's range, so the result does not depend
  on the thread count);
* :func:`pair_order`: the stable argsort of ``a * nu + b`` (rows grouped by
  ``a`` with a counting sort, then each group sorted by ``b``, stably, in
  parallel over groups) without forming the 64-bit key;
* :func:`component_labels`: connected components by union-find, labelled by
  the smallest vertex of each component;
* :func:`gather`: ``values[index]`` in parallel, with an int32 index used as
  it is (numpy's ``take`` first widens it to int64);
* :func:`merge_sort`, :func:`merge_argsort`: a sort and a stable argsort
  inside other kernels, by a bottom-up merge sort, where numba's own sorts
  would cost a second or more of a first call's compiling.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["counting_order", "pair_order", "component_labels", "gather", "merge_sort", "merge_argsort"]


@numba.njit(cache=True, nogil=True)
def _block_bounds(size: int, n_blocks: int) -> np.ndarray:
    """Start of each of ``n_blocks`` contiguous blocks of ``range(size)``, and ``size``."""
    bounds = np.empty(n_blocks + 1, np.int64)
    for t in range(n_blocks + 1):
        bounds[t] = size * t // n_blocks
    return bounds


@numba.njit(parallel=True, cache=True, nogil=True)
def _counting_order(keys, n_keys, order, n_blocks):
    """Stable counting sort of ``keys`` (each in ``[0, n_keys)``) into ``order``; the start of
    each key's run in ``order`` (``n_keys + 1`` entries) is returned."""
    size = keys.size
    bounds = _block_bounds(size, n_blocks)
    counts = np.zeros((n_blocks, n_keys), order.dtype)
    for t in numba.prange(n_blocks):
        for i in range(bounds[t], bounds[t + 1]):
            counts[t, keys[i]] += 1
    # block t's share of key k starts after the keys below k and key k's share of blocks < t
    starts = np.empty(n_keys + 1, np.int64)
    starts[0] = 0
    for k in range(n_keys):
        starts[k + 1] = starts[k]
        for t in range(n_blocks):
            c = counts[t, k]
            counts[t, k] = starts[k + 1]
            starts[k + 1] += c
    for t in numba.prange(n_blocks):
        for i in range(bounds[t], bounds[t + 1]):
            k = keys[i]
            order[counts[t, k]] = i
            counts[t, k] += 1
    return starts


@numba.njit(parallel=True, cache=True, nogil=True)
def _sort_groups(order, starts, b):
    """Each run ``order[starts[g]:starts[g + 1]]`` sorted by ``b``, stably (runs already in
    order, as those of a sorted input, are left as they are)."""
    for g in numba.prange(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        ordered = True
        for j in range(lo + 1, hi):
            if b[order[j]] < b[order[j - 1]]:
                ordered = False
                break
        if ordered:
            continue
        run = order[lo:hi].copy()
        keys = np.empty(hi - lo, b.dtype)
        for j in range(hi - lo):
            keys[j] = b[run[j]]
        step = np.argsort(keys, kind="mergesort")
        for j in range(hi - lo):
            order[lo + j] = run[step[j]]


def _index_dtype(size: int):
    return np.int32 if size < 2**31 else np.int64


def _blocks(size: int) -> int:
    # one block per thread, none smaller than 2**16 keys: small inputs are not split
    return int(max(1, min(numba.get_num_threads(), size >> 16)))


def counting_order(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """``numpy.argsort(keys, kind="stable")`` for integer keys in ``[0, n_keys)`` (int32 where the
    input has fewer than 2**31 entries, else int64)."""
    order = np.empty(keys.size, _index_dtype(keys.size))
    _counting_order(keys, int(n_keys), order, _blocks(keys.size))
    return order


def pair_order(a: np.ndarray, b: np.ndarray, nu: int) -> np.ndarray:
    """``numpy.argsort(a * nu + b, kind="stable")`` for integer codes ``a``, ``b`` in ``[0, nu)``."""
    order = np.empty(a.size, _index_dtype(a.size))
    starts = _counting_order(a, int(nu), order, _blocks(a.size))
    _sort_groups(order, starts, b)
    return order


@numba.njit(cache=True, nogil=True)
def _root(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]  # path halving
        v = parent[v]
    return v


@numba.njit(cache=True, nogil=True)
def _union_find(a, b, parent):
    n = parent.size
    for i in range(a.size):
        ra, rb = _root(parent, a[i]), _root(parent, b[i])
        if ra < rb:
            parent[rb] = ra
        elif rb < ra:
            parent[ra] = rb
    # every vertex's parent is not above it: one pass in vertex order reaches the roots
    for v in range(n):
        parent[v] = parent[parent[v]]
    return parent


def component_labels(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Component of each vertex ``0..n-1`` of the undirected edges ``(a[i], b[i])``: the
    smallest vertex of its component."""
    parent = np.arange(n, dtype=_index_dtype(n))
    return _union_find(a, b, parent)


@numba.njit(parallel=True, cache=True, nogil=True)
def _gather(values, index, out):
    for i in numba.prange(index.size):
        out[i] = values[index[i]]


def gather(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` for a 1-D array and an integer index."""
    out = np.empty(index.size, values.dtype)
    _gather(values, index, out)
    return out


@numba.njit(cache=True, nogil=True)
def _pairs_sorted(src, dst, strict_src_below_dst):
    """Edges sorted by (src, dst), repeats allowed; with the flag also src < dst everywhere."""
    for e in range(src.size):
        if strict_src_below_dst and src[e] >= dst[e]:
            return False
        if e and (src[e] < src[e - 1] or (src[e] == src[e - 1] and dst[e] < dst[e - 1])):
            return False
    return True


def pairs_sorted(src: np.ndarray, dst: np.ndarray, directed: bool) -> bool:
    """Are the edges sorted by ``(src, dst)`` (undirected: also ``src < dst``)?"""
    return bool(_pairs_sorted(src, dst, not directed))


@numba.njit(parallel=True, cache=True, nogil=True)
def _fill_undirected_csr(src, dst, indptr, n_as_dst, indices, slot_edge, cursor):
    """Row r: the edges whose dst is r in edge order, then those whose src is r (see
    :func:`rapids_balance._csr.csr_arrays`); edges sorted by (src, dst) with src < dst."""
    m, n = src.size, n_as_dst.size
    # src part: edge e sits after its row's dst edges, at e - (edges with smaller src) within the rest,
    # i.e. at slot e + (dst edges of rows <= src[e])
    dst_upto = np.empty(n, np.int64)
    acc = 0
    for r in range(n):
        acc += n_as_dst[r]
        dst_upto[r] = acc
    for e in numba.prange(m):
        s = e + dst_upto[src[e]]
        indices[s] = dst[e]
        slot_edge[s] = e
    # dst part: a stable counting scatter, each block of edges owning its share of every row
    n_blocks = cursor.shape[0]
    bounds = _block_bounds(m, n_blocks)
    for t in numba.prange(n_blocks):
        for e in range(bounds[t], bounds[t + 1]):
            cursor[t, dst[e]] += 1
    for r in numba.prange(n):
        at = indptr[r]
        for t in range(n_blocks):
            c = cursor[t, r]
            cursor[t, r] = at
            at += c
    for t in numba.prange(n_blocks):
        for e in range(bounds[t], bounds[t + 1]):
            v = dst[e]
            s = cursor[t, v]
            cursor[t, v] = s + 1
            indices[s] = src[e]
            slot_edge[s] = e


def undirected_csr(src: np.ndarray, dst: np.ndarray, n: int) -> dict:
    """``indptr`` (int64), ``indices`` and ``slot_edge`` (int32) of undirected edges sorted by
    ``(src, dst)`` with ``src < dst``."""
    m = src.size
    n_as_dst = np.bincount(dst, minlength=n)
    counts = n_as_dst + np.bincount(src, minlength=n)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    del counts
    indices, slot_edge = np.empty(2 * m, np.int32), np.empty(2 * m, np.int32)
    cursor = np.zeros((_blocks(m), n), _index_dtype(2 * m))  # per block, its next slot in each row
    _fill_undirected_csr(src, dst, indptr, n_as_dst, indices, slot_edge, cursor)
    return {"indptr": indptr, "indices": indices, "slot_edge": slot_edge}


@numba.njit(cache=True, nogil=True)
def _merge_sort_pairs(keys, vals, k):
    """Sort ``keys[:k]`` in place, stably, moving ``vals[:k]`` along (unless ``vals`` is empty):
    insertion for short runs (nothing allocated), else a bottom-up merge sort."""
    with_vals = vals.size > 0
    if k <= 16:
        for i in range(1, k):
            x = keys[i]
            y = vals[i] if with_vals else 0
            j = i - 1
            while j >= 0 and keys[j] > x:
                keys[j + 1] = keys[j]
                if with_vals:
                    vals[j + 1] = vals[j]
                j -= 1
            keys[j + 1] = x
            if with_vals:
                vals[j + 1] = y
        return
    nv = k if with_vals else 0
    sk, dk = np.empty(k, keys.dtype), np.empty(k, keys.dtype)
    sv, dv = np.empty(nv, vals.dtype), np.empty(nv, vals.dtype)
    for i in range(k):  # loops, not slice copies: those compile numba's shape-error messages
        sk[i] = keys[i]
    for i in range(nv):
        sv[i] = vals[i]
    width = 1
    while width < k:
        for lo in range(0, k, 2 * width):
            mid = min(lo + width, k)
            hi = min(lo + 2 * width, k)
            i, j = lo, mid
            for o in range(lo, hi):
                # the left run's on ties (stable)
                if j >= hi or (i < mid and not sk[j] < sk[i]):
                    dk[o] = sk[i]
                    if with_vals:
                        dv[o] = sv[i]
                    i += 1
                else:
                    dk[o] = sk[j]
                    if with_vals:
                        dv[o] = sv[j]
                    j += 1
        sk, dk = dk, sk
        sv, dv = dv, sv
        width *= 2
    for i in range(k):
        keys[i] = sk[i]
    for i in range(nv):
        vals[i] = sv[i]


@numba.njit(cache=True, nogil=True)
def merge_sort(a, k):
    """Sort ``a[:k]`` in place: a few loops that compile in a fraction of the time of numba's
    own sort (its quicksort is a second of a first call's compiling).  The kernels pass
    uint64 keys, as :func:`merge_argsort`'s callers do, so that one signature of the sort
    serves them all."""
    _merge_sort_pairs(a, np.empty(0, np.int32), k)


@numba.njit(cache=True, nogil=True)
def merge_argsort(keys):
    """``np.argsort(keys, kind="stable")`` as int32, in a fraction of the compiling of numba's
    own merge sort (a second and a half of a first call); the same order (a stable order is
    unique)."""
    n = keys.size
    k = np.empty(n, keys.dtype)
    idx = np.empty(n, np.int32)
    for i in range(n):
        k[i] = keys[i]
        idx[i] = i
    _merge_sort_pairs(k, idx, n)
    return idx
