"""Harary sides and the majority side of one tree's balanced state.

``side[v]`` is 0 for vertices on the root's side of the Harary bipartition
(path sign +1) and 1 across (path sign -1).  The majority of a tree is
coded as 0 or 1 (that side) or :data:`TIE` (equal sides: every vertex gets
one half).

* ``majority="larger"`` -- the larger side (graphB+ paper §2.3, ECL-SGB).
* ``majority="agreeable"`` -- the side holding the largest connected
  component of *positive* balanced edges, ties to the component with the
  smallest internal id.  This is what graphB+ v0.2's ``determineCCs``
  computes (its vertices "at an even hop count from the source CC").
"""

from __future__ import annotations

import numba

__all__ = ["TIE", "MAJORITIES", "larger_side", "agreeable_side"]

TIE = 2
MAJORITIES = ("larger", "agreeable")


@numba.njit(cache=True)
def larger_side(side):
    """0 or 1 for the larger side, :data:`TIE` when both have n/2 vertices."""
    ones = 0
    for v in range(side.size):
        ones += side[v]
    zeros = side.size - ones
    if zeros > ones:
        return 0
    if ones > zeros:
        return 1
    return TIE


@numba.njit(cache=True, inline="always")
def _find(uf, x):
    while uf[x] != x:
        uf[x] = uf[uf[x]]  # path halving keeps every root the minimum of its set
        x = uf[x]
    return x


@numba.njit(cache=True)
def agreeable_side(edge_src, edge_dst, side, uf, count):
    """Side of the largest component of positive balanced edges.

    A balanced edge is positive exactly when its ends share a side.  Union by
    smaller root makes each root the smallest id of its component, so the
    first maximum over ids is the tie rule of graphB+.  ``uf`` and ``count``
    are scratch of length n.
    """
    n = side.size
    for v in range(n):
        uf[v] = v
        count[v] = 0
    for e in range(edge_src.size):
        u = edge_src[e]
        w = edge_dst[e]
        if side[u] == side[w]:
            a = _find(uf, u)
            b = _find(uf, w)
            if a < b:
                uf[b] = a
            elif b < a:
                uf[a] = b
    for v in range(n):
        count[_find(uf, v)] += 1
    best = 0
    for v in range(1, n):
        if count[v] > count[best]:
            best = v
    return side[best]
