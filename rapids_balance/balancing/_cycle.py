"""graphB+ balancing: walk every fundamental cycle of a spanning tree.

``method="cycle"`` of :func:`rapids_balance.balance`.  For one tree:

1. subtree sizes, bottom up over ``order`` reversed (deepest level first);
2. pre-order relabeling, top down over ``order``: the root gets 0 and each
   vertex hands consecutive label ranges to its children, so the subtree of
   ``c`` is exactly the labels ``[label[c], label[c] + size[c])`` (the
   "tree-edge ranges" of graphB+).  For BFS trees ``order`` lists the
   vertices level by level (by id within a level), so steps 1-2 are the
   paper's Alg. 4 with its levels taken one after the other; the GPU path
   (``_gpu.tree_labels_gpu``) runs each level's vertices in parallel, for a
   whole batch of trees per launch, and gets the same integers;
3. for each non-tree edge ``(u, w)``, walk the tree path from ``w`` to ``u``:
   at ``curr``, if ``label[u]`` lies inside ``curr``'s range, step down into
   the child whose range holds it (binary search: children's ranges are
   consecutive), otherwise step up to the parent; count the negative tree
   edges on the way.  The cycle ``path + (u, w)`` is negative when that count
   and the edge's own sign disagree; then the non-tree edge is flipped.

The result (the balanced sign of every edge) equals ECL-SGB's
``ps[u] * ps[w]``; the tests check this tree by tree.

References
----------
.. [1] Alabandi, Tešić, Rusnak, Burtscher, "Discovering and Balancing
   Fundamental Cycles in Large Signed Graphs" (graphB+), SC'21, §4.
"""

from __future__ import annotations

import numba

__all__ = ["cycle_balance_into", "sides_from_balanced_into", "tree_labels_into"]


@numba.njit(cache=True)
def tree_labels_into(parent, order, size, label, child_ptr, child_list):
    """Subtree sizes, children lists (in ``order``) and pre-order labels of one tree."""
    n = order.size
    for v in range(n):
        size[v] = 1
        child_ptr[v] = 0
    child_ptr[n] = 0
    for i in range(n - 1, 0, -1):  # children before parents
        v = order[i]
        size[parent[v]] += size[v]
        child_ptr[parent[v] + 1] += 1
    for v in range(n):
        child_ptr[v + 1] += child_ptr[v]
    fill = child_ptr[:n].copy()
    for i in range(1, n):
        v = order[i]
        p = parent[v]
        child_list[fill[p]] = v
        fill[p] += 1
    label[order[0]] = 0
    for i in range(n):  # parents before children
        v = order[i]
        nxt = label[v] + 1
        for k in range(child_ptr[v], child_ptr[v + 1]):
            c = child_list[k]
            label[c] = nxt
            nxt += size[c]


@numba.njit(cache=True)
def _child_towards(target, curr, label, child_ptr, child_list):
    """The child of ``curr`` whose label range contains ``target``."""
    lo = child_ptr[curr]
    hi = child_ptr[curr + 1] - 1
    while lo < hi:  # last child with label <= target
        mid = (lo + hi + 1) // 2
        if label[child_list[mid]] <= target:
            lo = mid
        else:
            hi = mid - 1
    return child_list[lo]


@numba.njit(cache=True)
def cycle_balance_into(edge_src, edge_dst, sign, parent, parent_edge, order,
                       size, label, child_ptr, child_list, bal):
    """Balanced sign of every edge of one tree's nearest balanced state into ``bal``.

    Returns the number of non-tree edges flipped (the tree's frustration).
    """
    tree_labels_into(parent, order, size, label, child_ptr, child_list)
    flips = 0
    for e in range(edge_src.size):
        u = edge_src[e]
        w = edge_dst[e]
        if parent_edge[u] == e or parent_edge[w] == e:
            bal[e] = sign[e]
            continue
        target = label[u]
        curr = w
        odd = 0
        while curr != u:
            lo = label[curr]
            if lo < target < lo + size[curr]:
                c = _child_towards(target, curr, label, child_ptr, child_list)
                odd ^= sign[parent_edge[c]] < 0
                curr = c
            else:
                odd ^= sign[parent_edge[curr]] < 0
                curr = parent[curr]
        # cycle sign = sign[e] * (-1)**odd; flip the edge when negative
        if (sign[e] < 0) != (odd == 1):
            bal[e] = -sign[e]
            flips += 1
        else:
            bal[e] = sign[e]
    return flips


@numba.njit(cache=True)
def sides_from_balanced_into(indptr, indices, slot_edge, bal, root, side, queue):
    """Harary bipartition of a balanced state: 2-colour it from ``root``.

    ``side[v]`` is 0 on the root's side, 1 across; returns False when the
    state is not balanced (an edge contradicts the colouring).
    """
    n = indptr.size - 1
    for v in range(n):
        side[v] = -1
    side[root] = 0
    queue[0] = root
    head = 0
    tail = 1
    ok = True
    while head < tail:
        u = queue[head]
        head += 1
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            want = side[u] ^ (1 if bal[slot_edge[j]] < 0 else 0)
            if side[w] == -1:
                side[w] = want
                queue[tail] = w
                tail += 1
            elif side[w] != want:
                ok = False
    return ok
