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

For ``method="path-sign"`` the three passes are fused in :func:`block_pass`:
trees go through the BFS in blocks of ``_trees.BLOCK`` = 64, bit-sliced
(one bit per tree in a uint64 per vertex; one row read per block and
level, the hash SIMD over the block's trees); the path signs come out of
the same pull as the parents and the tree edges are counted there, and one
more pass over the rows turns the block's sign bits into the edge and
vertex counters with popcounts.  Same trees, same counters as the three
passes below, which remain for ``method="cycle"`` and for a batch's last
tree when it would sit alone in a block.

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
from ._layout import deep_tree_into
from ._trees import (BLOCK, PREFETCH_SLOTS, bfs_block_counts, bfs_tree_into, block_lanes, block_scratch,
                     prefetch_row, real_lanes, run_chunks)
from ._trees import graph_id
from ._trees import popcount as _popcount

__all__ = ["trees_pass", "block_pass", "block_chunk", "deep_pass", "edge_pass", "vertex_pass", "VERTEX_BLOCK"]

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


@numba.njit(cache=True)
def lane_larger(n, ones_t):
    """``"larger"`` majority of a tree with ``ones_t`` of its ``n`` vertices on side 1."""
    zeros = n - ones_t
    return 0 if zeros > ones_t else (1 if ones_t > zeros else TIE)


@numba.njit(cache=True)
def lane_agreeable(edge_src, edge_dst, words, t, side, uf, count, ids):
    """``"agreeable"`` majority of the tree in lane ``t``: the union-find of
    :func:`agreeable_side` on the side column read out of the lane (see :func:`lane_majority`)."""
    for v in range(words.size):
        side[graph_id(ids, v)] = (words[v] >> np.uint64(t)) & np.uint64(1)
    return agreeable_side(edge_src, edge_dst, side, uf, count)


@numba.njit(cache=True)
def lane_majority(edge_src, edge_dst, words, t, ones_t, agreeable, side, uf, count, ids):
    """Majority side of the tree in lane ``t`` of the sign words ``words`` (uint64 per vertex).

    ``"larger"`` reads the count of side-1 vertices the BFS kept (``ones_t``);
    ``"agreeable"`` runs the union-find of :func:`agreeable_side` on the side
    column read out of the lane, in the graph's numbering (``ids``, when the
    words are of a relabelled copy: ties go to the smallest id of the
    graph); ``edge_src``/``edge_dst`` are the graph's.
    """
    if agreeable:
        return lane_agreeable(edge_src, edge_dst, words, t, side, uf, count, ids)
    return lane_larger(words.size, ones_t)


@numba.njit(cache=True, nogil=True)
def _block_counters(indptr, indices, slot_edge, state, maj, n_lanes, negative, agree2, status2, clean):
    """Edge and vertex counters of one block, fused in one pass over the rows, 64 trees per word.

    Vertex v reads its row once: each neighbour's sign bits give the
    negative balanced edges at v (``clean``) and, for ``u > v``, the edge's
    ``negative`` and ``agree2``; ``status2`` needs only v's own bits.  The
    majority masks turn the definitions of :func:`edge_pass` and
    :func:`vertex_pass` into popcounts.
    """
    n = indptr.size - 1
    real = real_lanes(n_lanes)
    maj0 = np.uint64(0)
    maj1 = np.uint64(0)
    tie = np.uint64(0)
    for t in range(n_lanes):
        bit = np.uint64(1) << np.uint64(t)
        if maj[t] == 0:
            maj0 |= bit
        elif maj[t] == 1:
            maj1 |= bit
        else:
            tie |= bit
    n_ties = _popcount(tie)
    last = indices.size - 1
    for v in range(n):
        ps_v = state[v, 1]
        in_maj = (ps_v & maj1) | (~ps_v & maj0)  # delta_t(v) = 1
        dirty = np.uint64(0)
        for j in range(indptr[v], indptr[v + 1]):
            prefetch_row(state, indices[min(j + PREFETCH_SLOTS, last)])
            u = indices[j]
            across = (ps_v ^ state[u, 1]) & real  # trees where the balanced edge is negative
            dirty |= across
            if u > v:
                e = slot_edge[j]
                same = ~across & real
                negative[e] += _popcount(across)
                agree2[e] += 2 * _popcount(same & in_maj) + _popcount(same & tie)
        status2[v] += 2 * _popcount(in_maj) + n_ties
        clean[v] += _popcount(~dirty & real)


@numba.njit(cache=True, nogil=True)
def agreeable_lanes(edge_src, edge_dst, words, n_lanes, side, uf, count, ids, maj):
    """``maj[t]``, the ``"agreeable"`` majority of each of a block's first ``n_lanes`` trees (see
    :func:`lane_agreeable`; GIL released)."""
    for t in range(n_lanes):
        maj[t] = lane_agreeable(edge_src, edge_dst, words, t, side, uf, count, ids)


def larger_lanes(n, ones):
    """The ``"larger"`` majority of each tree of a block from its count of side-1 vertices
    (:func:`lane_larger` for all lanes at once)."""
    zeros = n - ones
    return np.where(zeros > ones, 0, np.where(ones > zeros, 1, TIE)).astype(np.uint8)


def block_chunk(c, indptr, indices, slot_edge, slot_neg, edge_src, edge_dst, roots, s2s, n_chunks,
                agreeable, maj_all, reached, ep, vp, ids):
    """Chunk ``c`` of :func:`block_pass`: blocks c, c + n_chunks, ... of the batch, into the
    chunk's own int32 counters ``ep`` (3 x m: in_tree per edge, negative, agree2) and ``vp``
    (2 x n: status2, clean), zero on entry.

    A Python loop over compiled steps that release the GIL, so chunks run on
    threads: the block BFS, the majority rule asked for (the other is not
    compiled) and :func:`_block_counters`.  A compiled loop would compile
    the block BFS a second time, inside itself, on a fresh install's first
    call, to save a few calls per block of 64 trees.  No shared write but
    ``maj_all`` and ``reached`` at the chunk's own trees.
    """
    T = roots.size
    n = indptr.size - 1
    n_blocks = (T + BLOCK - 1) // BLOCK
    no_tree = np.empty((0, 0), np.int32)
    state, newbits, pending, got, ones = block_scratch(n)
    tree_slots = np.zeros(indices.size, np.int32)  # trees holding the edge, per slot
    side = np.empty(n if agreeable else 0, np.int8)
    uf = np.empty(n if agreeable else 0, np.int32)
    count = np.empty(n if agreeable else 0, np.int32)
    maj = np.zeros(BLOCK, np.uint8)
    for blk in range(c, n_blocks, n_chunks):
        r, s, nl = block_lanes(roots, s2s, blk, T)
        t0 = blk * BLOCK
        bfs_block_counts(indptr, indices, slot_edge, slot_neg, r, s, nl, state, newbits, pending,
                         got, ones, tree_slots, no_tree, no_tree, no_tree, t0, ids)
        reached[t0:t0 + nl] = got[:nl]
        if agreeable:
            agreeable_lanes(edge_src, edge_dst, state[:, 1], nl, side, uf, count, ids, maj)
        else:
            maj[:nl] = larger_lanes(n, ones[:nl])
        maj_all[t0:t0 + nl] = maj[:nl]
        _block_counters(indptr, indices, slot_edge, state, maj, nl, ep[1], ep[2], vp[0], vp[1])
    # both slots of an edge; exact in float64 (counts below 2**31)
    ep[0] += np.bincount(slot_edge, weights=tree_slots, minlength=ep.shape[1]).astype(np.int32)


def block_pass(indptr, indices, slot_edge, slot_neg, edge_src, edge_dst, sign, roots,
               s2s, agreeable, n_chunks, maj_all, reached, in_tree, negative, switched, agree2,
               status2, clean, ids):
    """``method="path-sign"`` for a batch, by blocks of ``_trees.BLOCK`` trees (see module doc).

    Chunk c (:func:`block_chunk`, one thread each) takes blocks c,
    c + n_chunks, ... with its own scratch and its own int32 counters (a
    chunk holds at most a batch of trees, far below 2**30), which are then
    added, as int64, to the counters.  ``maj_all`` gets each tree's
    majority.  Per chunk only the counts that need the trees are kept: the
    tree edges per CSR slot (both slots of an edge are summed at the end),
    ``negative`` and ``agree2``; ``switched`` follows from ``negative`` over
    the batch (an edge is switched in every tree where its balanced sign
    differs from its input sign: ``negative`` for a positive edge,
    ``T - negative`` for a negative one).  Scratch per chunk: 44 bytes per
    vertex and 20 per edge.  With ``ids`` (see :func:`._layout.deep_layout`)
    the CSR arrays and roots are a relabelled copy's,
    ``edge_src``/``edge_dst`` the graph's, and ``status2``/``clean`` are
    indexed by the copy's vertices.

    Threads over a compiled chunk rather than a numba ``prange``: the same
    work, without compiling a parallel loop (numba's parfor passes over this
    body cost seconds on a fresh install's first call), and the integer sums
    do not depend on the chunk count.
    """
    T = roots.size
    n = indptr.size - 1
    m = edge_src.size
    e_part = np.zeros((n_chunks, 3, m), np.int32)  # in_tree, negative, agree2
    v_part = np.zeros((n_chunks, 2, n), np.int32)  # status2, clean

    def chunk(c: int) -> None:
        block_chunk(c, indptr, indices, slot_edge, slot_neg, edge_src, edge_dst, roots, s2s, n_chunks,
                    bool(agreeable), maj_all, reached, e_part[c], v_part[c], ids)

    run_chunks(chunk, n_chunks)
    _add_chunks(e_part, v_part, sign, T, in_tree, negative, switched, agree2, status2, clean)


def _add_chunks(e_part, v_part, sign, T, in_tree, negative, switched, agree2, status2, clean):
    """The chunks' int32 counters of :func:`block_pass` added, as int64, to the counters (integer
    sums: the chunk order does not matter)."""
    ep = e_part.sum(axis=0, dtype=np.int64)
    vp = v_part.sum(axis=0, dtype=np.int64)
    in_tree += ep[0]
    negative += ep[1]
    switched += np.where(sign < 0, T - ep[1], ep[1])
    agree2 += ep[2]
    status2 += vp[0]
    clean += vp[1]


@numba.njit(parallel=True, cache=True)
def deep_pass(indptr, indices, slot_edge, slot_neg, edge_slots, edge_src, edge_dst, sign, roots,
              s2s, agreeable, n_chunks, maj_all, reached, in_tree, negative, switched, agree2,
              status2, clean, ids, slot_rec):
    """:func:`block_pass` for a graph numbered by :func:`._layout.deep_layout`: same arguments
    and ``slot_rec`` (the copy's packed slots), same counters, the trees of each
    block built one by one in parallel.

    Blocks go one after another; within a block, chunk c builds trees
    c, c + n_chunks, ... with :func:`._layout.deep_tree_into` (a queue BFS,
    no level barrier, no 64-lane bookkeeping per level) into its own sign
    words and per-slot tree-edge counts, and takes each tree's majority.
    The words of the chunks hold disjoint lanes, so their OR is the block's
    state, from which :func:`_block_counters` makes the edge and vertex
    counters as in :func:`block_pass`.  All integer or bitwise, so any
    chunk count gives the same sums.  Scratch: per chunk ``28 n + 4 nnz``
    bytes (``+ 9 n`` with ``agreeable``), once ``16 n + 12 m + 8 n``.
    """
    T = roots.size
    n = indptr.size - 1
    m = edge_src.size
    n_blocks = (T + BLOCK - 1) // BLOCK
    state = np.zeros((n, 2), np.uint64)  # column 1: the block's sign words (column 0 unused)
    words = np.empty((n_chunks, n), np.uint64)
    slots = np.zeros((n_chunks, indices.size), np.int32)
    ones = np.empty(BLOCK, np.int32)
    maj = np.empty(BLOCK, np.uint8)
    e_part = np.zeros((3, m), np.int32)  # (unused), negative, agree2 of the batch
    v_part = np.zeros((2, n), np.int32)  # status2, clean
    for blk in range(n_blocks):
        t0 = blk * BLOCK
        nl = min(BLOCK, T - t0)
        for c in prange(n_chunks):
            rec = np.empty((n, 2), np.int64)
            queue = np.empty(n, np.int32)
            side = np.empty(n if agreeable else 0, np.int8)
            uf = np.empty(n if agreeable else 0, np.int32)
            count = np.empty(n if agreeable else 0, np.int32)
            w = words[c]
            for v in range(n):
                w[v] = 0
            for t in range(c, nl, n_chunks):
                got, k = deep_tree_into(indptr, slot_rec, ids, roots[t0 + t],
                                        np.uint32(s2s[t0 + t]), t, w, slots[c], rec, queue)
                reached[t0 + t] = got
                ones[t] = k
                maj[t] = lane_majority(edge_src, edge_dst, w, t, k, agreeable, side, uf, count, ids)
        for v in prange(n):
            acc = np.uint64(0)
            for c in range(n_chunks):
                acc |= words[c, v]
            state[v, 1] = acc
        for t in range(nl):
            maj_all[t0 + t] = maj[t]
        _block_counters(indptr, indices, slot_edge, state, maj, nl, e_part[1], e_part[2], v_part[0],
                        v_part[1])
    for e in prange(m):
        it = 0
        for c in range(n_chunks):
            it += slots[c, edge_slots[e, 0]] + slots[c, edge_slots[e, 1]]
        ng = e_part[1, e]
        in_tree[e] += it
        negative[e] += ng
        switched[e] += T - ng if sign[e] < 0 else ng
        agree2[e] += e_part[2, e]
    for v in prange(n):
        status2[v] += v_part[0, v]
        clean[v] += v_part[1, v]


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
