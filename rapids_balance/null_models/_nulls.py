"""Null models: signs shuffled over the topology, or sign-degree-preserving edge swaps.

Sample ``i`` of a run with seed ``s`` draws every random number from the
counter-based generator of :mod:`rapids_balance._random` under the sample
seed ``hash64(s, NULL_STREAM, i)``, so a sample is a pure function of
``(graph, s, i)``: the same whatever batch or worker computes it.

* ``"shuffle"``: the signs are permuted uniformly over the fixed edges
  (Fisher-Yates), keeping the topology and the number of negative edges.
* ``"swap"``: double-edge swaps within one sign: two edges ``(u, v)`` and
  ``(x, y)`` of the same sign become ``(u, y)`` and ``(x, v)`` when neither
  pair is already an edge (of either sign) and no self loop appears.  Every
  vertex keeps its positive and its negative degree, and the graph stays
  simple.  ``swaps_per_edge * m`` swaps are attempted (refused ones
  included); the literature's rule of thumb for mixing is a few to ten
  attempts per edge (Milo et al. 2003; Ray, Pinar, Seshadhri 2012), and the
  default is 10.  Edge weights travel with their edges.
"""

from __future__ import annotations

import numba
import numpy as np

from .._random import hash64, randint
from ..graph import SignedGraph

__all__ = ["NULLS", "sample_seed", "shuffled_signs", "swapped_graph", "with_signs"]

NULLS = ("shuffle", "swap")
NULL_STREAM = 0x5167  # the significance tests' stream of sample seeds
_EMPTY = -1


def sample_seed(seed: int, i: int) -> int:
    """The seed of null sample ``i`` (a uint64 as a Python int)."""
    return int(hash64(np.uint64(seed), np.uint64(NULL_STREAM), np.uint64(i)))


@numba.njit(cache=True, nogil=True)
def shuffle_in_place(out, s):
    """Fisher-Yates over ``out`` with sample seed ``s``: step ``j`` draws counter ``j``.

    The body the GPU runs too (one thread a sample), so a sample's signs are
    the same on either backend.
    """
    for j in range(out.size - 1, 0, -1):
        r = randint(s, 0, j, j + 1)
        out[j], out[r] = out[r], out[j]


@numba.njit(cache=True, nogil=True)
def _shuffle(sign, s):
    out = sign.copy()
    shuffle_in_place(out, s)
    return out


def shuffled_signs(sign: np.ndarray, s: int) -> np.ndarray:
    """The signs permuted uniformly at random with sample seed ``s``."""
    return _shuffle(np.ascontiguousarray(sign), np.uint64(s))


@numba.njit(cache=True, inline="always")
def _home(key, mask):
    # a full 64-bit finaliser: keys u * n + v of one vertex are consecutive, and a
    # plain multiplicative hash of them left long probe runs
    return np.int64(hash64(key, 0, 0) >> np.uint64(1)) & mask


@numba.njit(cache=True, inline="always")
def _slot(table, key):
    """Where ``key`` is in the linear-probing set, or the empty place that ends its probe."""
    mask = table.size - 1
    h = _home(key, mask)
    while table[h] != key and table[h] != _EMPTY:
        h = (h + 1) & mask
    return h


@numba.njit(cache=True, inline="always")
def _has(table, key):
    return table[_slot(table, key)] == key


@numba.njit(cache=True)
def _delete(table, key):
    """Remove ``key`` by backward shifting: no tombstones, so probes stay short
    however many swaps run."""
    mask = table.size - 1
    i = _slot(table, key)
    table[i] = _EMPTY
    j = i
    while True:
        j = (j + 1) & mask
        k = table[j]
        if k == _EMPTY:
            return
        h = _home(k, mask)
        if (h <= i or h > j) if i <= j else (h <= i and h > j):  # home not in (i, j]: move back
            table[i] = k
            table[j] = _EMPTY
            i = j


@numba.njit(cache=True, nogil=True)
def _swap(src, dst, sign, n, s, attempts):
    """Double-edge swaps within each sign (see the module notes); updates src/dst in place.

    Returns the number of swaps done."""
    m = src.size
    size = 1
    while size < 4 * m + 16:
        size *= 2
    table = np.full(size, _EMPTY, np.int64)
    for e in range(m):
        a, b = min(src[e], dst[e]), max(src[e], dst[e])
        table[_slot(table, a * n + b)] = a * n + b
    npos = 0
    for e in range(m):
        npos += sign[e] > 0
    byclass = np.empty(m, np.int64)  # positive edge ids first, then negative
    p, q = 0, npos
    for e in range(m):
        if sign[e] > 0:
            byclass[p] = e
            p += 1
        else:
            byclass[q] = e
            q += 1
    done = 0
    for t in range(attempts):
        e1 = randint(s, 1, t, m)
        lo, cnt = (0, npos) if sign[e1] > 0 else (npos, m - npos)
        e2 = byclass[lo + randint(s, 2, t, cnt)]
        if e1 == e2:
            continue
        u, v = src[e1], dst[e1]
        x, y = src[e2], dst[e2]
        if randint(s, 3, t, 2) == 1:
            x, y = y, x
        if u == y or x == v:
            continue
        k1 = min(u, y) * n + max(u, y)
        k2 = min(x, v) * n + max(x, v)
        if _has(table, k1) or _has(table, k2):
            continue
        _delete(table, min(u, v) * n + max(u, v))
        _delete(table, min(x, y) * n + max(x, y))
        table[_slot(table, k1)] = k1
        table[_slot(table, k2)] = k2
        dst[e1] = y
        src[e2], dst[e2] = x, v
        done += 1
    return done


def swapped_graph(graph, s: int, swaps_per_edge: int) -> SignedGraph:
    """A sample of the swap null (sample seed ``s``): same vertices, signed degrees and
    sign count, edges rewired."""
    src = graph.edge_src.astype(np.int64)
    dst = graph.edge_dst.astype(np.int64)
    _swap(src, dst, np.ascontiguousarray(graph.sign), np.int64(graph.n), np.uint64(s),
          np.int64(swaps_per_edge) * graph.m)
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    order = np.lexsort((hi, lo))
    weight = None if graph.weight is None else graph.weight[order]
    return SignedGraph(edge_src=lo[order], edge_dst=hi[order], n_vertices=graph.n,
                       labels=graph.labels, directed=False, sign=graph.sign[order], weight=weight,
                       name=graph.name)


def with_signs(graph, sign: np.ndarray) -> SignedGraph:
    """The graph with other signs on the same edges."""
    return SignedGraph(edge_src=graph.edge_src, edge_dst=graph.edge_dst, n_vertices=graph.n,
                       labels=graph.labels, directed=False, sign=sign, weight=graph.weight,
                       name=graph.name)
