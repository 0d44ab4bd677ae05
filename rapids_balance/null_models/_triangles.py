"""Triangles of a signed graph by degree ordering, for the triangle balance ratio.

A small private counter, meant to give way to the ``measures`` package's
census: every edge is oriented from the endpoint of lower (degree, id) rank
to the higher, so each triangle is found once, from its lowest vertex, with
work O(m^1.5) at worst.  The triangles are listed as triples of edge ids, so
a null model that only moves signs (the topology fixed) recounts them by a
gather instead of a search.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["triangle_edges", "balance_ratio", "sign_census"]


@numba.njit(cache=True, nogil=True)
def _oriented(indptr, indices, slot_edge, rank):
    """Forward CSR: each vertex keeps the neighbours of higher rank (with edge ids)."""
    n = indptr.size - 1
    fptr = np.zeros(n + 1, np.int64)
    for v in range(n):
        c = 0
        for k in range(indptr[v], indptr[v + 1]):
            if rank[indices[k]] > rank[v]:
                c += 1
        fptr[v + 1] = fptr[v] + c
    fidx = np.empty(fptr[n], np.int64)
    fedge = np.empty(fptr[n], np.int64)
    for v in range(n):
        p = fptr[v]
        for k in range(indptr[v], indptr[v + 1]):
            if rank[indices[k]] > rank[v]:
                fidx[p] = indices[k]
                fedge[p] = slot_edge[k]
                p += 1
    return fptr, fidx, fedge


@numba.njit(cache=True, nogil=True)
def _scan(fptr, fidx, fedge, n, out):
    """Count the triangles, writing their edge ids ``(uv, vw, uw)`` into ``out``
    (in the order of their lowest vertex) when it has room (a first pass
    passes 0 rows, to size the second)."""
    mark = np.full(n, -1, np.int64)
    t = 0
    for u in range(n):
        for k in range(fptr[u], fptr[u + 1]):
            mark[fidx[k]] = fedge[k]
        for k in range(fptr[u], fptr[u + 1]):
            v = fidx[k]
            for j in range(fptr[v], fptr[v + 1]):
                e = mark[fidx[j]]
                if e >= 0:
                    if t < out.shape[0]:
                        out[t, 0] = fedge[k]
                        out[t, 1] = fedge[j]
                        out[t, 2] = e
                    t += 1
        for k in range(fptr[u], fptr[u + 1]):
            mark[fidx[k]] = -1
    return t


@numba.njit(cache=True, nogil=True)
def _census(tri, sign):
    """Triangles by number of negative edges: (+++, ++-, +--, ---)."""
    out = np.zeros(4, np.int64)
    for t in range(tri.shape[0]):
        neg = (sign[tri[t, 0]] < 0) + (sign[tri[t, 1]] < 0) + (sign[tri[t, 2]] < 0)
        out[neg] += 1
    return out


def triangle_edges(graph) -> np.ndarray:
    """``(T, 3)`` int64 edge ids of the graph's triangles (undirected, simple)."""
    deg = np.diff(graph.indptr)
    rank = np.empty(graph.n, np.int64)
    rank[np.lexsort((np.arange(graph.n), deg))] = np.arange(graph.n)
    fptr, fidx, fedge = _oriented(graph.indptr, graph.indices.astype(np.int64),
                                  graph.slot_edge.astype(np.int64), rank)
    out = np.empty((_scan(fptr, fidx, fedge, graph.n, np.empty((0, 3), np.int64)), 3), np.int64)
    _scan(fptr, fidx, fedge, graph.n, out)
    return out


def sign_census(tri: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Counts of the triangle types +++, ++-, +--, --- for these signs."""
    return _census(tri, np.ascontiguousarray(sign))


def balance_ratio(tri: np.ndarray, sign: np.ndarray) -> float:
    """Share of balanced triangles (an even number of negative edges)."""
    c = sign_census(tri, sign)
    total = int(c.sum())
    return float(c[0] + c[2]) / total if total else float("nan")
