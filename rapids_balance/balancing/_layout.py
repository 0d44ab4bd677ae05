"""Deep graphs laid out for the block BFS: a copy of the CSR numbered in BFS order.

A path, a grid or a road network has thousands of BFS levels, and each
level's few vertices sit anywhere in memory under the input's numbering.
Renumbering the graph in BFS order from one vertex puts a level's vertices,
and their rows, next to each other, so the block BFS (:mod:`._trees`) reads
them from cache.  Keys, ties and the agreeable majority keep using the
graph's own ids (``ids`` maps back), so the trees are the same.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["DEEP_LEVELS", "deep_layout"]


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


@numba.njit(cache=True)
def _relabel(indptr, indices, slot_edge, slot_neg, ids):
    """The CSR arrays with vertex ``p`` being the graph's vertex ``ids[p]``; rows keep their order."""
    n = indptr.size - 1
    inv = np.empty(n, np.int32)
    for p in range(n):
        inv[ids[p]] = p
    indptr2 = np.empty(n + 1, indptr.dtype)
    indices2 = np.empty(indices.size, np.int32)
    slot_edge2 = np.empty(indices.size, np.int32)
    slot_neg2 = np.empty(indices.size, np.uint8)
    k = 0
    indptr2[0] = 0
    for p in range(n):
        v = ids[p]
        for j in range(indptr[v], indptr[v + 1]):
            indices2[k] = inv[indices[j]]
            slot_edge2[k] = slot_edge[j]
            slot_neg2[k] = slot_neg[j]
            k += 1
        indptr2[p + 1] = k
    return indptr2, indices2, slot_edge2, slot_neg2, inv


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
        ``indptr, indices, slot_edge, slot_neg`` of the copy,
        ``ids`` (the graph's id of each new vertex) and ``inv`` (the new id
        of each vertex).
    """
    order, levels = _bfs_order(graph.indptr, graph.indices, 0)
    if levels <= DEEP_LEVELS:
        return None
    arrays = _relabel(graph.indptr, graph.indices, graph.slot_edge, slot_neg, order)
    names = ("indptr", "indices", "slot_edge", "slot_neg", "inv")
    out = dict(zip(names, arrays))
    out["ids"] = order
    return out
