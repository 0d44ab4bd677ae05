"""Deep graphs: a copy of the CSR numbered in BFS order, and its trees built one by one.

A path, a grid or a road network has thousands of BFS levels, and each
level's few vertices sit anywhere in memory under the input's numbering.
Renumbering the graph in BFS order from one vertex puts a level's vertices,
and their rows, next to each other, so a BFS reads them from cache.  Keys,
ties and the agreeable majority keep using the graph's own ids (``ids``
maps back), so the trees are the same.

On such a graph the 64 trees of a block rarely share a frontier vertex
(each tree's levels run from its own root), so the block BFS of
:mod:`._trees` serves nearly every (vertex, tree) pair on its own and pays
its level bookkeeping thousands to a million times.
:func:`deep_tree_into` builds one tree with a plain queue instead
(O(n + m), no level barrier shared with other trees) and writes what the
block counters read: the tree's path-sign bit in its lane of a block's
sign words and its edges per CSR slot.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ._trees import _lane_key

__all__ = ["DEEP_LEVELS", "deep_layout", "deep_tree_into"]


#: BFS levels from vertex 0 above which :func:`deep_layout` relabels the graph
DEEP_LEVELS = 64


@numba.njit(cache=True)
def _bfs_order(indptr, indices, start):
    """Vertices in BFS order from ``start`` (all of them, components one after another) and the
    number of levels of the first component."""
    n = indptr.size - 1
    order = np.empty(n, np.int32)
    seen = np.zeros(n, np.uint8)
    tail = 0
    levels = 0
    for s in range(n):
        first = s == 0
        v0 = start if first else s
        if seen[v0]:
            continue
        seen[v0] = 1
        order[tail] = v0
        head = tail
        tail += 1
        level_end = tail
        while head < tail:
            u = order[head]
            head += 1
            for j in range(indptr[u], indptr[u + 1]):
                w = indices[j]
                if not seen[w]:
                    seen[w] = 1
                    order[tail] = w
                    tail += 1
            if head == level_end and head < tail:
                if first:
                    levels += 1
                level_end = tail
    return order, levels


@numba.njit(parallel=True, cache=True)
def _relabel(indptr, indices, slot_edge, slot_neg, m, ids):
    """The CSR arrays with vertex ``p`` being the graph's vertex ``ids[p]``; rows keep their order.

    Parallel over the new rows: each writes its own slots, and an edge's
    two slots go to the column of their row's end (0 at the smaller id, as
    in the graph), so no two rows write the same entry.
    """
    n = indptr.size - 1
    inv = np.empty(n, np.int32)
    indptr2 = np.empty(n + 1, indptr.dtype)
    indptr2[0] = 0
    for p in prange(n):
        v = ids[p]
        inv[v] = p
        indptr2[p + 1] = indptr[v + 1] - indptr[v]
    for p in range(n):
        indptr2[p + 1] += indptr2[p]
    indices2 = np.empty(indices.size, np.int32)
    slot_rec = np.empty(indices.size, np.uint64)
    slot_edge2 = np.empty(indices.size, np.int32)
    slot_neg2 = np.empty(indices.size, np.uint8)
    edge_slots2 = np.empty((m, 2), np.int32)
    for p in prange(n):
        v = ids[p]
        k = indptr2[p]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            indices2[k] = inv[w]
            slot_rec[k] = ((np.uint64(inv[w]) << np.uint64(33)) | (np.uint64(slot_neg[j]) << np.uint64(32))
                           | np.uint64(w))
            e = slot_edge[j]
            slot_edge2[k] = e
            slot_neg2[k] = slot_neg[j]
            edge_slots2[e, 0 if v < w else 1] = k
            k += 1
    return indptr2, indices2, slot_edge2, slot_neg2, edge_slots2, inv, slot_rec


def _deeper_than(indptr, indices, start, limit) -> bool:
    """Whether the BFS from ``start`` has more than ``limit`` levels below it (``levels`` of
    :func:`_bfs_order`), level by level in numpy, stopping once past ``limit``."""
    seen = np.zeros(indptr.size - 1, bool)
    seen[start] = True
    frontier = np.array([start], np.int64)
    for _ in range(limit + 1):
        lo, hi = indptr[frontier], indptr[frontier + 1]
        sizes = hi - lo
        # the slots of the frontier's rows, one arange per row, without a Python loop
        slots = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())
        nxt = np.unique(indices[slots])
        nxt = nxt[~seen[nxt]]
        if nxt.size == 0:
            return False
        seen[nxt] = True
        frontier = nxt
    return True


def deep_layout(graph, slot_neg):
    """A copy of the CSR arrays numbered in BFS order, for graphs with many levels; else None.

    The block BFS of a path or a mesh spends its time on random reads of
    per-vertex state: neighbours have unrelated ids.  Numbered in BFS order
    (from vertex 0), a vertex's neighbours sit a level's width away, so the
    reads stay in cache.  Keys and ties still use the graph's ids (rows keep
    the graph's neighbour order, and :func:`graph_id` maps back), so the
    trees are the same.  Graphs with at most :data:`DEEP_LEVELS` levels
    (power-law graphs have ten or twenty) keep their numbering.

    Returns
    -------
    dict or None
        ``indptr, indices, slot_edge, slot_neg, edge_slots`` of the copy,
        ``ids`` (the graph's id of each new vertex), ``inv`` (the new id
        of each vertex) and ``slot_rec`` (uint64 per slot: the neighbour's
        new id << 33 | the edge's negative bit << 32 | the neighbour's id
        in the graph, what :func:`deep_tree_into` reads of a slot).
    """
    if not _deeper_than(graph.indptr, graph.indices, 0, DEEP_LEVELS):
        return None  # decided by numpy: a shallow graph's first call compiles no BFS for it
    order, levels = _bfs_order(graph.indptr, graph.indices, 0)
    arrays = _relabel(graph.indptr, graph.indices, graph.slot_edge, slot_neg, graph.m, order)
    names = ("indptr", "indices", "slot_edge", "slot_neg", "edge_slots", "inv", "slot_rec")
    out = dict(zip(names, arrays))
    out["ids"] = order
    return out


# best[v] of a vertex not reached yet and of a settled one (as in _trees' per-tree kernel): every
# packed offer lies strictly between them, so one comparison updates best[v]
_UNSEEN = np.int64(-9223372036854775808)
_SETTLED = np.int64(9223372036854775807)


@numba.njit(cache=True)
def deep_tree_into(indptr, slot_rec, ids, root, s2, lane, neg_bits, tree_slots, rec, queue):
    """One BFS tree of a copy numbered by :func:`deep_layout`, with graphB+'s parent rule.

    Parameters
    ----------
    indptr, slot_rec : numpy.ndarray
        The copy's row pointers and, per slot, its neighbour packed with
        what the tree needs of it (see :func:`deep_layout`).
    ids : numpy.ndarray
        int32, the graph's id of each vertex of the copy: keys and ties use them.
    root : int
        The root, in the copy's numbering.
    s2 : int
        The tree's :func:`._trees.seed_mix` value (uint32).
    lane : int
        Bit of this tree in ``neg_bits``.
    neg_bits : numpy.ndarray
        uint64 per vertex, bit ``lane`` zero on entry; set where the path
        sign from the root is negative (the Harary side 1).
    tree_slots : numpy.ndarray
        int32 per CSR slot; one slot of each tree edge is incremented (the
        one in the parent's row), so sum both slots of an edge.
    rec, queue : numpy.ndarray
        Scratch: int64 of shape (n, 2), int32 of length n.

    Returns
    -------
    (int, int)
        Vertices reached (n when the graph is connected) and how many of
        them have a negative path sign.

    Notes
    -----
    While level L + 1 is being built, ``rec[v, 0]`` holds v's best offer so
    far as ``key << 32 | (u + 1)`` with the graph's id ``u`` of the parent
    candidate: the largest key wins, ties to the larger ``u``, which is the
    rule the block BFS applies; ``+ 1`` keeps every offer above the unseen
    sentinel.  ``rec[v, 1]`` holds the offer's slot and v's path-sign bit
    through it, next to the offer, so a neighbour costs one cache line, as
    a row does: one packed word per slot rather than three arrays.  A
    level's vertices are settled when it ends, so only vertices of level L
    offer to level L + 1, as in the rule.  The sign bits and edge counts
    are written by one sequential sweep at the end rather than scattered in
    BFS order.
    """
    n = indptr.size - 1
    for v in range(n):
        rec[v, 0] = _UNSEEN
    rec[root, 0] = _SETTLED
    rec[root, 1] = -2  # no slot, positive path sign
    queue[0] = root
    tail = 1
    start = 0
    level = 0
    while start < tail:
        stop = tail
        b = np.uint32((level & 1) | 2)
        for i in range(start, stop):
            u = queue[i]
            gu = ids[u]
            base = np.uint32(np.uint32(np.uint32(gu) << np.uint32(2)) | b)
            neg_u = rec[u, 1] & 1
            low = np.int64(gu) + 1
            for j in range(indptr[u], indptr[u + 1]):
                sr = slot_rec[j]
                v = np.int64(sr >> np.uint64(33))
                bv = rec[v, 0]
                if bv == _SETTLED:
                    continue
                if bv == _UNSEEN:
                    queue[tail] = v
                    tail += 1
                key = _lane_key(base ^ np.uint32(sr & np.uint64(0xFFFFFFFF)), s2)
                offer = (np.int64(key) << 32) | low
                if offer > bv:
                    rec[v, 0] = offer
                    rec[v, 1] = (np.int64(j) << 1) | (neg_u ^ np.int64((sr >> np.uint64(32)) & np.uint64(1)))
        for i in range(stop, tail):  # the level ends: its vertices become parents
            rec[queue[i], 0] = _SETTLED
        start = stop
        level += 1
    ones = 0
    for v in range(n):
        if rec[v, 0] == _SETTLED:
            bs = rec[v, 1]
            neg = bs & 1
            neg_bits[v] |= np.uint64(neg) << np.uint64(lane)
            ones += neg
            if bs >= 0:
                tree_slots[bs >> 1] += 1
    return tail, ones
