"""CPU kernels of the balancing engine: one batch of trees to integer counters.

Three numba-parallel passes per batch, none with a data race:

1. *trees* (parallel over trees, fixed interleaved chunks): BFS tree,
   balanced state (path signs, or graphB+ cycle walks), Harary sides and
   majority; each tree writes only its own column of the batch arrays
   ``side_T`` (n x T) and, for the cycle method, ``bal_T`` (m x T), and
   each chunk counts its trees' edges in its own row of ``in_tree_c``
   (chunks x m), summed in pass 2: cheaper than storing every tree's
   parent edges (4n bytes per tree, written with a stride of T) and
   reading them back.  Column-major batches make passes 2 and 3 read one
   contiguous run of T bytes per vertex or edge.
2. *edges* (parallel over edges): each edge owns its counters.
3. *vertices* (parallel over blocks of vertices): each vertex owns its counters.

All counters are integers (status and agreement in half units, so a tied
tree adds 1 instead of 2), so any batching and any thread count give the
same sums.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ._cycle import cycle_balance_into, sides_from_balanced_into
from ._harary import TIE, agreeable_side, larger_side
from ._trees import bfs_tree_into

__all__ = ["trees_pass", "edge_pass", "vertex_pass", "VERTEX_BLOCK"]

VERTEX_BLOCK = 512


@numba.njit(parallel=True, cache=True)
def trees_pass(indptr, indices, slot_edge, edge_src, edge_dst, sign, roots, s2s,
               use_cycle, agreeable, n_chunks, side_T, in_tree_c, bal_T, maj, reached):
    """Pass 1: per tree, BFS + balanced state + sides + majority (see module doc)."""
    T = roots.size
    n = indptr.size - 1
    m = edge_src.size
    for c in prange(n_chunks):
        parent = np.empty(n, np.int32)
        pe = np.empty(n, np.int32)
        order = np.empty(n, np.int32)
        depth = np.empty(n, np.int32)
        best = np.empty(n, np.int64)
        queue = np.empty(n, np.int32)
        level_count = np.empty(n + 2, np.int64)
        ps = np.empty(0 if use_cycle else n, np.int8)
        side = np.empty(n, np.int8)
        uf = np.empty(n, np.int32)
        count = np.empty(n, np.int32)
        size = np.empty(n if use_cycle else 0, np.int32)
        label = np.empty(n if use_cycle else 0, np.int32)
        child_ptr = np.empty(n + 1 if use_cycle else 0, np.int32)
        child_list = np.empty(n if use_cycle else 0, np.int32)
        bal = np.empty(m if use_cycle else 0, np.int8)
        for t in range(c, T, n_chunks):
            got = bfs_tree_into(indptr, indices, slot_edge, edge_src, edge_dst, sign, roots[t], s2s[t],
                                parent, pe, order, ps, depth, best, queue, level_count)
            reached[t] = got
            if got != n:
                continue
            if use_cycle:
                cycle_balance_into(edge_src, edge_dst, sign, parent, pe, order,
                                   size, label, child_ptr, child_list, bal)
                if not sides_from_balanced_into(indptr, indices, slot_edge, bal, roots[t], side, queue):
                    reached[t] = -1  # cannot happen for a correct cycle walk; reported by the caller
                for e in range(m):
                    bal_T[e, t] = bal[e]
            else:
                for v in range(n):  # ECL-SGB: the path sign is the Harary side
                    side[v] = 1 if ps[v] < 0 else 0
            for v in range(n):
                side_T[v, t] = side[v]
                if pe[v] >= 0:
                    in_tree_c[c, pe[v]] += 1
            if agreeable:
                maj[t] = agreeable_side(edge_src, edge_dst, side, uf, count)
            else:
                maj[t] = larger_side(side)


@numba.njit(parallel=True, cache=True)
def edge_pass(edge_src, edge_dst, sign, side_T, in_tree_c, bal_T, use_cycle, maj,
              in_tree, negative, switched, agree2):
    """Pass 2: per edge, over the batch's trees.

    ``negative``: the balanced edge is negative (ends on different sides, or
    the cycle walk's sign); ``switched``: balanced sign != input sign;
    ``agree2``: both ends in the majority (2), or same side of a tied tree (1).
    """
    T = maj.size
    for e in prange(edge_src.size):
        u = edge_src[e]
        w = edge_dst[e]
        was_neg = sign[e] < 0
        su = side_T[u]
        sw = side_T[w]
        it = 0
        for c in range(in_tree_c.shape[0]):
            it += in_tree_c[c, e]
        ng = 0
        ag = 0
        for t in range(T):
            a = su[t]
            mt = maj[t]
            same = a == sw[t]
            ag += same * ((a == mt) * 2 + (mt == TIE))
        if use_cycle:
            be = bal_T[e]
            for t in range(T):
                ng += be[t] < 0
        else:
            for t in range(T):
                ng += su[t] != sw[t]
        in_tree[e] += it
        negative[e] += ng
        switched[e] += (T - ng) if was_neg else ng
        agree2[e] += ag


@numba.njit(parallel=True, cache=True)
def vertex_pass(indptr, indices, side_T, maj, status2, clean):
    """Pass 3: per vertex, over the batch's trees.

    ``status2``: 2 when in the majority, 1 in a tied tree; ``clean``: no
    negative balanced edge at the vertex (all neighbours on its side).
    """
    n = indptr.size - 1
    T = maj.size
    n_blocks = (n + VERTEX_BLOCK - 1) // VERTEX_BLOCK
    for blk in prange(n_blocks):
        dirty = np.empty(T, np.int8)
        for v in range(blk * VERTEX_BLOCK, min(n, (blk + 1) * VERTEX_BLOCK)):
            sv = side_T[v]
            st = 0
            for t in range(T):
                mt = maj[t]
                st += (sv[t] == mt) * 2 + (mt == TIE)
                dirty[t] = 0
            for j in range(indptr[v], indptr[v + 1]):
                sw = side_T[indices[j]]
                for t in range(T):
                    dirty[t] |= sv[t] ^ sw[t]
            cl = 0
            for t in range(T):
                cl += 1 - dirty[t]
            status2[v] += st
            clean[v] += cl
