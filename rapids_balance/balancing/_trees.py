"""Spanning trees shared by ``balancing/`` and ``frustration_index/``.

A batch of ``T`` spanning trees of a connected graph with ``n`` vertices is
three int32 arrays of shape ``(T, n)``:

* ``parent[t, v]``: parent vertex of ``v`` in tree ``t``, -1 at the root;
* ``parent_edge[t, v]``: edge id of ``(v, parent[t, v])``, -1 at the root;
* ``order[t, :]``: every vertex once, root first, each parent before its
  children.  BFS trees built here list vertices by ``(depth, internal id)``,
  so the order is the same on every backend and thread count.

:func:`path_signs` turns a batch into each vertex's path sign from the root
(ECL-SGB); the nearest balanced state of tree ``t`` is the bipartition
``path_sign < 0`` and its switched edges are those with
``sign[e] * ps[u] * ps[v] < 0``.

BFS trees follow graphB+'s parent rule (``graphBplus_02.cpp``): tree ``i``
gets the seed ``seed + i``; BFS goes level by level, and a vertex ``v`` first
reached at level ``L + 1`` takes as parent the level-``L`` neighbour ``u``
with the largest signed 32-bit :func:`parent_key` ``h(((u << 2) | b) ^ v ^
s2)``, ties to the larger ``u``, where ``b = (L & 1) | 2`` and ``s2 = seed *
seed + seed`` in 32-bit wrap-around arithmetic.  The winner is an argmax, so
the tree does not depend on the order in which the frontier is scanned: the
CPU path pulls it vertex by vertex for blocks of 64 trees at once
(:func:`bfs_block_into`; a batch's last tree, when it would sit alone in
a block, goes through :func:`bfs_tree_into`), the GPU path pushes it with
atomics.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .._chunks import cpu_chunks, run_chunks  # noqa: F401 (the samplers' and engine's too)
from .._host_sort import merge_sort
from .._random import hash32
from ._tree_rules import _check_connected, parent_key

__all__ = [
    "seed_mix",
    "parent_key",
    "bfs_trees",
    "bfs_tree_into",
    "BLOCK",
    "bfs_block_into",
    "block_lanes",
    "block_split",
    "block_scratch",
    "bfs_block_counts",
    "slot_negative",
]



# ---------------------------------------------------------------------------
# the graphB+ parent rule
# ---------------------------------------------------------------------------

def seed_mix(seeds) -> np.ndarray:
    """``s2 = seed * seed + seed`` in 32-bit wrap-around arithmetic, per tree.

    Parameters
    ----------
    seeds : array-like of int
        Per-tree seeds (``seed + i`` for tree ``i``); any Python integers.

    Returns
    -------
    numpy.ndarray
        int64 array with values in ``[0, 2**32)``.
    """
    s = np.asarray([int(x) & 0xFFFFFFFF for x in np.asarray(seeds).reshape(-1).tolist()],
                   dtype=np.uint64)
    return ((s * s + s) & np.uint64(0xFFFFFFFF)).astype(np.int64)


# best[v] of a vertex not reached yet, and of a vertex of a finished level: any packed
# offer beats the first and none beats the second, so one max() does the update
_UNSEEN = np.int64(-9223372036854775808)
_SETTLED = np.int64(9223372036854775807)


@numba.njit(cache=True, inline="always")
def _packed(u, v, level, s2, j):
    """(parent_key, u) in one int64 whose order is graphB+'s: key first, then larger u.

    The key is signed, so it goes in the high half as is.  The low half holds
    ``j + 2`` for the CSR slot ``j`` of ``v`` in ``u``'s row: rows are stored
    by increasing ``u``, so for a fixed ``v`` slots grow with ``u`` and order
    the offers like ``u`` does, and the winner's slot (hence its edge) comes
    for free.  Packing the slot rather than the edge id keeps ``slot_edge``
    out of the hot loop (one stream of 4 bytes per slot less per tree).
    ``+ 2`` keeps every packed value strictly between the two sentinels; it
    limits a graph to 2**32 - 3 adjacency slots.
    """
    return (np.int64(parent_key(u, v, level, s2)) << 32) | np.int64(j + 2)


@numba.njit(cache=True)
def bfs_tree_into(indptr, indices, slot_edge, edge_src, edge_dst, sign, root, s2, parent,
                  parent_edge, order, ps, depth, best, queue, level_count):
    """Build one BFS tree with graphB+'s parent rule into the given rows.

    ``parent``, ``parent_edge``, ``order`` (length n) are written, and the path signs into ``ps`` (int8, length n)
    when ``ps`` is not empty (``sign`` is then the edge signs).  ``depth``
    (int32), ``best`` (int64), ``queue`` (int32, all length n) and
    ``level_count`` (int64, length n + 2) are scratch.  Returns the number of
    vertices reached (n when the graph is connected).

    The hot loop touches one random array: ``best[v]`` holds the best packed
    offer (see :func:`_packed`) while v's level is being built, and a
    sentinel before (unseen, below every offer) and after (settled, above
    every offer), so a single ``max`` updates it.
    """
    n = indptr.size - 1
    with_ps = ps.size > 0
    for v in range(n):
        best[v] = _UNSEEN
    best[root] = _SETTLED
    depth[root] = 0
    parent[root] = -1
    parent_edge[root] = -1
    if with_ps:
        ps[root] = 1
    queue[0] = root
    level_count[0] = 0
    level_count[1] = 1
    tail = 1
    start = 0
    level = 0
    while start < tail:
        stop = tail
        for i in range(start, stop):
            u = queue[i]
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                b = best[v]
                if b == _UNSEEN:
                    queue[tail] = v
                    tail += 1
                if b != _SETTLED:
                    best[v] = max(b, _packed(u, v, level, s2, j))
        level += 1
        for i in range(stop, tail):  # settle the new level; parents are final one level up
            v = queue[i]
            e = slot_edge[(best[v] & 0xFFFFFFFF) - 2]
            p = edge_src[e] + edge_dst[e] - v
            parent[v] = p
            parent_edge[v] = e
            depth[v] = level
            best[v] = _SETTLED
            if with_ps:
                ps[v] = ps[p] * sign[e]
        level_count[level + 1] = tail - stop  # vertices at depth `level`
        start = stop
    # canonical order: by (depth, vertex id); level_count[d] becomes depth d's first position
    level_count[0] = 0
    for d in range(level):
        level_count[d + 1] += level_count[d]
    for v in range(n):
        if best[v] == _SETTLED:
            d = depth[v]
            order[level_count[d]] = v
            level_count[d] += 1
    return tail


@numba.njit(cache=True, nogil=True)
def _bfs_batch_chunk(c, indptr, indices, slot_edge, edge_src, edge_dst, roots, s2s, parent, parent_edge,
                     order, reached, n_chunks):
    """Chunk ``c`` of :func:`_bfs_batch_cpu`: trees c, c + n_chunks, ... (GIL released)."""
    T = roots.size
    n = indptr.size - 1
    # scratch per chunk, not per tree; trees are independent, so chunks share nothing
    depth = np.empty(n, np.int32)
    best = np.empty(n, np.int64)
    queue = np.empty(n, np.int32)
    level_count = np.empty(n + 2, np.int64)
    no_sign = np.empty(0, np.int8)
    no_ps = np.empty(0, np.int8)
    for t in range(c, T, n_chunks):
        reached[t] = bfs_tree_into(indptr, indices, slot_edge, edge_src, edge_dst, no_sign,
                                   roots[t], s2s[t], parent[t], parent_edge[t], order[t], no_ps,
                                   depth, best, queue, level_count)


def _bfs_batch_cpu(indptr, indices, slot_edge, edge_src, edge_dst, roots, s2s, parent, parent_edge,
                   order, reached, n_chunks):
    """Trees one by one, ``n_chunks`` chunks on threads (see :func:`run_chunks`)."""
    run_chunks(lambda c: _bfs_batch_chunk(c, indptr, indices, slot_edge, edge_src, edge_dst, roots, s2s,
                                          parent, parent_edge, order, reached, n_chunks), n_chunks)


# ---------------------------------------------------------------------------
# blocks of trees: one pull-BFS over BLOCK trees at once, bit-sliced
# ---------------------------------------------------------------------------
#
# The per-tree BFS above spends its time on one random read-modify-write of
# best[v] and one hash per adjacency slot, with unpredictable branches.  A
# block runs BLOCK trees level-synchronously, bit-sliced: ``state[v, 0]``
# has bit t set once v is reached in tree t, ``state[v, 1]`` bit t when
# v's path sign in tree t is negative (its Harary side).  At level d every
# vertex still unreached in some tree reads its row once; per neighbour u
# one 16-byte row ``state[u]`` says in which trees u offers itself as a
# parent (``reached[u] & ~reached[v]``: one AND for 64 trees, and the whole
# state is 16 bytes per vertex, near L2 for 10^5 vertices), and only then the trees' keys
# are hashed, in a branch-free loop over lanes that LLVM turns into SIMD
# code.  The parent of v is the argmax over the neighbours reached at level
# d - 1, the rule above, so the trees are identical.  Vertices reached at
# level d are marked reached only when the level ends (``newbits``), so a
# neighbour marked reached has depth d - 1 exactly: one less than any
# unreached vertex next to it could get.

#: trees per block: one bit each in a uint64 word
BLOCK = 64
_HALF = 32  # the hash runs on uint32 lanes, so a block is hashed in two halves
#: a block with fewer real trees than this runs tree by tree instead: on
#: Slashdot a block of 1 tree costs 1.4 trees by the tree-by-tree kernel, of
#: 2 trees 0.75 of them, of 64 trees 0.06 (per tree)
MIN_BLOCK_TREES = 2

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_LOW32 = np.uint64(0xFFFFFFFF)
_KEY_FLOOR = np.int32(-2147483648)
#: slots ahead whose state row is prefetched: rows are random reads; on
#: Slashdot and Epinions a distance of 16 saves 10-15 % of the block BFS
PREFETCH_SLOTS = 16


@intrinsic
def prefetch_row(typingctx, arr, i):
    """Ask the CPU to start loading row ``i`` of a 2-D C-contiguous array (a hint, no effect on results).

    numba has no prefetch; this emits LLVM's ``llvm.prefetch`` (read, keep in all cache levels).
    """
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary,
                                       [idx, context.get_constant(types.intp, 0)])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                          ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, i), codegen


@numba.njit(cache=True, inline="always")
def real_lanes(n_lanes):
    """uint64 mask of a block's first ``n_lanes`` trees (the rest is padding)."""
    if n_lanes >= BLOCK:
        return _ALL
    return (np.uint64(1) << np.uint64(n_lanes)) - np.uint64(1)


@numba.njit(cache=True, inline="always")
def _lane_key(base, s2):
    """parent_key of one tree: ``base = ((u << 2) | b) ^ v`` (uint32) is shared by the block."""
    return np.int32(hash32(np.uint32(base ^ s2)))


@numba.njit(cache=True, inline="always")
def _offer_half(bits, sign_bits, off, base, s2, neg, slot, bk, bs, bp):
    """Offer slot ``slot`` to the trees ``off .. off + 31`` whose bit is set in ``bits`` (uint32).

    Largest key wins, ties to the later slot, that is the larger u (rows are
    sorted): graphB+'s rule.  Branch-free over the lanes, so it vectorises.
    """
    for t in range(_HALF):
        a = (bits >> np.uint32(t)) & np.uint32(1)
        key = _lane_key(base, s2[off + t])
        take = (a != 0) & (key >= bk[off + t])
        bk[off + t] = key if take else bk[off + t]
        bs[off + t] = slot if take else bs[off + t]
        sb = np.uint8(((sign_bits >> np.uint32(t)) & np.uint32(1)) ^ neg)
        bp[off + t] = sb if take else bp[off + t]


@numba.njit(cache=True, inline="always")
def graph_id(ids, x):
    """The graph's id of vertex ``x`` of a relabelled copy (:func:`deep_layout`); ``x`` itself
    when ``ids`` is empty (no relabelling)."""
    return ids[x] if ids.size > 0 else x


@numba.njit(cache=True, inline="always")
def _row_offers(indptr, indices, slot_neg, state, v, b, s2, bk, bs, bp, ids):
    """Best parent offer of every tree for ``v`` at one level (pull over v's row).

    ``bs[t]`` ends as the winning slot or -1, ``bp[t]`` as v's path sign bit
    through it.  Keys use the graph's own ids (:func:`graph_id`).
    """
    for t in range(BLOCK):
        bk[t] = _KEY_FLOOR
        bs[t] = -1
        bp[t] = 0
    open_v = ~state[v, 0]
    last = indices.size - 1
    for j in range(indptr[v], indptr[v + 1]):
        prefetch_row(state, indices[min(j + PREFETCH_SLOTS, last)])
        u = indices[j]
        act = state[u, 0] & open_v  # trees where u offers (reached before this level) and v takes
        if act == 0:
            continue
        ps_u = state[u, 1]
        base = (np.uint32(np.uint32(np.uint32(graph_id(ids, u)) << np.uint32(2)) | b)
                ^ np.uint32(graph_id(ids, v)))
        neg = np.uint32(slot_neg[j])
        slot = np.int32(j)
        lo = np.uint32(act & _LOW32)
        hi = np.uint32(act >> np.uint64(32))
        if lo != 0:
            _offer_half(lo, np.uint32(ps_u & _LOW32), 0, base, s2, neg, slot, bk, bs, bp)
        if hi != 0:
            _offer_half(hi, np.uint32(ps_u >> np.uint64(32)), _HALF, base, s2, neg, slot, bk, bs, bp)


@numba.njit(cache=True, inline="always")
def _found_bits(bs, bp):
    """(trees that found a parent, their negative path signs) as uint64 masks."""
    found = np.uint64(0)
    neg = np.uint64(0)
    for t in range(BLOCK):
        f = bs[t] >= 0
        found |= np.uint64(f) << np.uint64(t)
        neg |= (np.uint64(bp[t]) << np.uint64(t)) if f else np.uint64(0)
    return found, neg


@numba.njit(cache=True)
def _first_level(indptr, indices, slot_edge, slot_neg, roots, n_lanes, state, reached, ones,
                 tree_slots, parent, parent_edge, order, t0):
    """Roots and level 1 by push: the root is the only candidate of each of its neighbours.

    A pull would read every row of the graph to find the few slots that
    point at a root.  The root's row is sorted, so level 1 comes out by id.
    """
    with_tree = parent.shape[0] > 0
    with_count = tree_slots.size > 0
    for t in range(n_lanes):
        state[roots[t], 0] |= np.uint64(1) << np.uint64(t)
    for t in range(n_lanes):
        r = roots[t]
        bit = np.uint64(1) << np.uint64(t)
        for j in range(indptr[r], indptr[r + 1]):
            v = indices[j]
            neg = slot_neg[j]
            state[v, 0] |= bit
            state[v, 1] |= bit if neg else np.uint64(0)
            ones[t] += neg
            if with_count:
                tree_slots[j] += 1  # the root's slot of the edge: counts fold both ends
            if with_tree:
                parent[t0 + t, v] = r
                parent_edge[t0 + t, v] = slot_edge[j]
                order[t0 + t, reached[t]] = v
            reached[t] += 1


@numba.njit(cache=True, inline="always")
def popcount(x):
    """Set bits of a uint64 (the SWAR sum, which LLVM turns into one popcnt where it can)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int32((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


#: a level vertex offered a parent by at most this many of its block's trees is served tree
#: by tree (one hash per offering slot and tree) instead of by the 64-lane SIMD pull: on deep
#: graphs (paths, grids, roads) the trees' frontiers rarely meet, and the lane loops would
#: cost 64 lanes for one tree
SPARSE_LANES = 2


@numba.njit(cache=True, inline="always")
def _offering_trees(indptr, indices, state, v):
    """Trees in which some neighbour of ``v`` offers itself as a parent and ``v`` is open."""
    offered = np.uint64(0)
    for j in range(indptr[v], indptr[v + 1]):
        offered |= state[indices[j], 0]
    return offered & ~state[v, 0]


# The two ways of serving a level vertex are written out in bfs_block_into's loop rather
# than called: a call per vertex passes some twenty arrays (and their reference counts),
# measured 1.5x slower on a power-law graph.
#
# * sparse (few trees offer, see SPARSE_LANES): per offering tree t, the argmax of t's
#   keys over the row's offering slots; largest key wins, ties to the later slot, that is
#   the larger u (rows are sorted): graphB+'s rule, as _row_offers applies it to 64 lanes.
# * dense: _row_offers over all 64 lanes, then per lane the same bookkeeping.


@numba.njit(cache=True)
def _next_candidates(indptr, indices, state, new, new_bits, n_new, mark, stamp, cand):
    """The neighbours of the vertices reached at the last level that are open in one of their trees.

    ``new[i]`` was reached in the trees of ``new_bits[i]``; its neighbour
    ``w`` goes into ``cand`` when it is open in one of them.  Only those can
    be reached at the next level (in a tree, a vertex's parent is one level
    up), so a level's work follows its frontier rather than the vertices
    still open.  ``mark[w] == stamp`` dedups them.  They come in any
    order (:func:`_candidates_by_id` sorts them where each tree's ``order``
    needs increasing ids): the parents, path signs and counters of a level
    do not depend on the order its vertices are served in.  Returns their
    count and whether the level is dense (then they come by id).

    A dense level (the rows of the new vertices hold over an eighth of the
    slots: the middle levels of a power-law graph) lists every vertex still
    open in some tree instead, by id, without reading those rows: the pull
    reads each candidate's row anyway, and finds nothing where no
    neighbour offers, so the level's result is the same.
    """
    n = indptr.size - 1
    work = 0
    for i in range(n_new):
        u = new[i]
        work += indptr[u + 1] - indptr[u]
    if work > (indices.size >> 5):
        k = 0
        for w in range(n):
            if state[w, 0] != _ALL:
                cand[k] = w
                k += 1
        return k, True
    k = 0
    for i in range(n_new):
        u = new[i]
        bits = new_bits[i]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if mark[w] != stamp and (bits & ~state[w, 0]) != 0:
                mark[w] = stamp
                cand[k] = w
                k += 1
    return k, False


@numba.njit(cache=True)
def _candidates_by_id(cand, k, mark, stamp):
    """``cand[:k]`` (the vertices ``w`` with ``mark[w] == stamp``) in increasing id, which each
    tree's ``order`` needs: a long list out of one scan of ``mark`` (O(n)), a short one sorted
    (O(k log k)).  Only the kernels that write trees call it, so the counting kernels do not
    compile a sort."""
    n = mark.size
    if k > (n >> 4):
        k = 0
        for w in range(n):
            if mark[w] == stamp:
                cand[k] = w
                k += 1
    else:
        # sorted as uint64 keys, the one key type of the package's merge sort (each key type
        # compiles the sort again: a second of a first call); short ones by insertion
        keys = np.empty(k, np.uint64)
        for i in range(k):
            keys[i] = cand[i]
        merge_sort(keys, k)
        for i in range(k):
            cand[i] = keys[i]


def _bfs_block_for(with_tree: bool):
    """:func:`bfs_block_into` writing the trees (``with_tree``) or not: the kernel that only counts
    compiles neither the writes nor the sort of each level's vertices by id (the flag is a
    constant of the closure, and numba drops the branches it rules out before typing; numba's
    cache keys a closure's kernels by its constants too)."""

    @numba.njit(cache=True, nogil=True)
    def bfs_block_into(indptr, indices, slot_edge, slot_neg, roots, s2, n_lanes, state, newbits,
                       pending, reached, ones, tree_slots, parent, parent_edge, order, t0, ids):
        """Build up to BLOCK BFS trees with graphB+'s parent rule at once.

        ``roots`` (int32) and ``s2`` (uint32, :func:`seed_mix`) have BLOCK
        entries, the first ``n_lanes`` real.  On return bit t of ``state[v, 1]``
        is v's path sign bit in tree t (1: negative, the Harary side) and
        ``reached[t]`` the number of vertices tree t reached; ``ones[t]``
        counts its negative path signs (both int32, BLOCK entries).  Optional
        outputs, skipped when given empty: ``tree_slots[j]`` (int32, length
        nnz) is incremented once per tree holding the edge of slot j, counted
        at one of the edge's two slots (so sum both slots of an edge; counting
        in the row just read keeps the increments local); ``parent``,
        ``parent_edge``, ``order``
        (shape (T, n)) get the tree in row ``t0 + t``, ``order`` by (depth, id):
        each level is settled in increasing vertex id.  ``state`` (uint64,
        n x 2), ``newbits`` (uint64, n) and ``pending`` (int32, 3n: the level's
        candidates, the vertices it reached, a dedup mark) are scratch.
        ``ids`` (int32): empty, or the graph's id of each vertex when the CSR
        arrays are a relabelled copy (:func:`deep_layout`), whose rows keep the
        graph's neighbour order; ``parent``/``order`` need the graph's own
        numbering (``ids`` empty).  Returns the number of levels.

        Work follows the frontier: a level visits only the open neighbours of
        the vertices the previous level reached (in any of the block's trees),
        so a path or a grid costs about one row read per (vertex, tree) rather
        than one per (vertex, level).  A vertex that few trees reach at this
        level is served tree by tree, one that many reach by the 64-lane pull
        (:func:`_row_offers`); both apply the same rule.
        """
        n = indptr.size - 1
        with_count = tree_slots.size > 0
        bk = np.empty(BLOCK, np.int32)
        bs = np.empty(BLOCK, np.int32)
        bp = np.empty(BLOCK, np.uint8)
        cand = pending[:n]
        new = pending[n:2 * n]
        mark = pending[2 * n:3 * n]
        padding = ~real_lanes(n_lanes)  # reached everywhere: never offers, never takes
        for v in range(n):
            state[v, 0] = padding
            state[v, 1] = 0
            mark[v] = 0
        for t in range(BLOCK):
            reached[t] = 1 if t < n_lanes else 0
            ones[t] = 0
        if with_tree:
            for t in range(n_lanes):
                r = roots[t]
                parent[t0 + t, r] = -1
                parent_edge[t0 + t, r] = -1
                order[t0 + t, 0] = r
        _first_level(indptr, indices, slot_edge, slot_neg, roots, n_lanes, state, reached, ones,
                     tree_slots, parent, parent_edge, order, t0)
        n_new = 0  # level 1: the roots' neighbours
        for t in range(n_lanes):
            r = roots[t]
            for j in range(indptr[r], indptr[r + 1]):
                v = indices[j]
                if mark[v] != 1:
                    mark[v] = 1
                    new[n_new] = v
                    newbits[n_new] = state[v, 0] & ~padding  # a superset of its level-1 trees: enough
                    n_new += 1
        d = 2
        # int64() on the counts: a constant argument would be typed as a literal and compile
        # _next_candidates once more per literal
        n_cand, dense = _next_candidates(indptr, indices, state, new, newbits, np.int64(n_new), mark,
                                         np.int64(d), cand)
        if with_tree and not dense:
            _candidates_by_id(cand, n_cand, mark, np.int64(d))
        while n_cand > 0:
            b = np.uint32(((d - 1) & 1) | 2)  # the parity bit of the parents' depth in the key
            for i in range(n_cand):  # increasing v, so each tree's level comes out by id
                v = cand[i]
                offered = _ALL if dense else _offering_trees(indptr, indices, state, v)
                found = np.uint64(0)
                if offered == 0:
                    pass
                elif popcount(offered) <= SPARSE_LANES:  # tree by tree
                    neg = np.uint64(0)
                    bits = offered
                    gv = np.uint32(graph_id(ids, v))
                    while bits != 0:
                        bit = bits & (~bits + np.uint64(1))
                        bits ^= bit
                        t = popcount(bit - np.uint64(1))
                        best_key = _KEY_FLOOR
                        best_j = -1
                        for j in range(indptr[v], indptr[v + 1]):
                            u = indices[j]
                            if state[u, 0] & bit:
                                base = np.uint32(np.uint32(np.uint32(graph_id(ids, u)) << np.uint32(2)) | b) ^ gv
                                key = _lane_key(base, s2[t])
                                if key >= best_key:
                                    best_key = key
                                    best_j = j
                        u = indices[best_j]
                        sb = np.uint64(((state[u, 1] >> np.uint64(t)) & np.uint64(1))
                                       ^ np.uint64(slot_neg[best_j]))
                        neg |= sb << np.uint64(t)
                        reached[t] += 1
                        ones[t] += np.int32(sb)
                        if with_count:
                            tree_slots[best_j] += 1
                        if with_tree:
                            parent[t0 + t, v] = u
                            parent_edge[t0 + t, v] = slot_edge[best_j]
                            order[t0 + t, reached[t] - 1] = v
                    found = offered
                    state[v, 1] |= neg  # bits of trees where v is not reached yet: no reader sees them
                else:  # all 64 lanes at once
                    _row_offers(indptr, indices, slot_neg, state, v, b, s2, bk, bs, bp, ids)
                    found, neg = _found_bits(bs, bp)
                    if found != 0:
                        state[v, 1] |= neg
                        for t in range(BLOCK):
                            f = bs[t] >= 0
                            reached[t] += f
                            ones[t] += bp[t] if f else 0
                        if with_count:  # per slot of v's row, the trees that chose it: a scatter of
                            # 64 increments, most to one dummy slot, measured 10-15 % slower in all
                            for j in range(indptr[v], indptr[v + 1]):
                                chosen = 0
                                for t in range(BLOCK):
                                    chosen += bs[t] == j
                                tree_slots[j] += chosen
                        if with_tree:
                            for t in range(n_lanes):
                                j = bs[t]
                                if j >= 0:
                                    parent[t0 + t, v] = indices[j]
                                    parent_edge[t0 + t, v] = slot_edge[j]
                                    order[t0 + t, reached[t] - 1] = v
                newbits[i] = found
            n_new = 0
            for i in range(n_cand):  # the level ends: its vertices become parents
                if newbits[i] != 0:
                    v = cand[i]
                    state[v, 0] |= newbits[i]
                    new[n_new] = v
                    newbits[n_new] = newbits[i]  # n_new <= i: compacted in place
                    n_new += 1
            d += 1
            n_cand, dense = _next_candidates(indptr, indices, state, new, newbits, np.int64(n_new),
                                             mark, np.int64(d), cand)
            if with_tree and not dense:
                _candidates_by_id(cand, n_cand, mark, np.int64(d))
        return d - 1

    return bfs_block_into


#: the block BFS writing each tree's ``parent``, ``parent_edge`` and ``order`` (see above)
bfs_block_into = _bfs_block_for(True)
#: the same BFS for callers that pass empty tree outputs (the counters of ``balance``)
bfs_block_counts = _bfs_block_for(False)


def slot_negative(graph) -> np.ndarray:
    """uint8 per CSR slot: 1 where the slot's edge is negative (read in the block BFS's hot loop)."""
    return np.less(np.asarray(graph.sign)[graph.slot_edge], 0).view(np.uint8)  # a view: no copy


def block_lanes(roots, s2s, blk, n_trees):
    """Roots (int32) and s2 (uint32) of block ``blk`` padded to BLOCK, and its real tree count."""
    t0 = blk * BLOCK
    nl = min(BLOCK, n_trees - t0)
    r = np.zeros(BLOCK, np.int32)
    s = np.zeros(BLOCK, np.uint32)
    r[:nl] = roots[t0:t0 + nl]
    s[:nl] = s2s[t0:t0 + nl]
    return r, s, nl


def block_scratch(n):
    """A thread's scratch for :func:`bfs_block_into`: state, newbits, pending, reached, ones."""
    return (np.empty((n, 2), np.uint64), np.empty(n, np.uint64), np.empty(3 * n, np.int32),
            np.empty(BLOCK, np.int32), np.empty(BLOCK, np.int32))


def _bfs_blocks_chunk(c, indptr, indices, slot_edge, slot_neg, roots, s2s, n_blocks, parent, parent_edge,
                      order, reached, n_chunks):
    """Chunk ``c`` of :func:`_bfs_blocks_cpu`: blocks c, c + n_chunks, ...

    A Python loop over compiled blocks (the kernel releases the GIL): a
    compiled loop would compile the block BFS a second time, inside itself,
    on a fresh install's first call, to save a dozen calls per chunk.
    """
    T = roots.size
    state, newbits, pending, got, ones = block_scratch(indptr.size - 1)
    no_count = np.empty(0, np.int32)
    no_ids = np.empty(0, np.int32)
    for blk in range(c, n_blocks, n_chunks):
        r, s, nl = block_lanes(roots, s2s, blk, T)
        bfs_block_into(indptr, indices, slot_edge, slot_neg, r, s, nl, state, newbits, pending,
                       got, ones, no_count, parent, parent_edge, order, blk * BLOCK, no_ids)
        reached[blk * BLOCK:blk * BLOCK + nl] = got[:nl]


def _bfs_blocks_cpu(indptr, indices, slot_edge, slot_neg, roots, s2s, n_blocks, parent, parent_edge,
                    order, reached, n_chunks):
    """Blocks of trees, ``n_chunks`` chunks on threads (see :func:`run_chunks`)."""
    run_chunks(lambda c: _bfs_blocks_chunk(c, indptr, indices, slot_edge, slot_neg, roots, s2s, n_blocks,
                                           parent, parent_edge, order, reached, n_chunks), n_chunks)


def block_split(n_trees: int) -> int:
    """How many leading trees of a batch go through full-enough blocks (the rest: tree by tree)."""
    full, rest = divmod(int(n_trees), BLOCK)
    return n_trees if rest >= MIN_BLOCK_TREES else full * BLOCK


# ---------------------------------------------------------------------------
# public batch builders
# ---------------------------------------------------------------------------

def bfs_path_signs_gpu(graph, roots, seeds):
    """Path signs (device array (T, n) int8) of the BFS trees of ``roots`` and ``seeds`` on the GPU.

    The trees of :func:`bfs_trees`; the BFS kernels settle
    ``ps[v] = ps[parent] * sign[edge]`` as they go, so neither the visiting
    order (a sort per tree) nor :func:`path_signs`'s pointer jumping is
    needed (the frustration index wants the signs alone).
    """
    from . import _gpu

    roots = np.asarray(roots, dtype=np.int64).reshape(-1)
    return _gpu.bfs_trees_gpu(graph, roots, seed_mix(seeds), with_order=False, with_ps=True)[3]


def bfs_trees(graph, roots, seeds, *, backend: str = "cpu"):
    """Batched BFS spanning trees with graphB+'s parent rule.

    Parameters
    ----------
    graph : Graph
        Connected undirected graph.
    roots : array-like of int
        Internal root id of each tree.
    seeds : array-like of int
        Seed of each tree (``seed + i`` for tree ``i``), same length.
    backend : {"cpu", "gpu"}
        ``"gpu"`` runs the level-synchronous kernels (CuPy arrays in and out;
        numpy under the CUDA simulator).

    Returns
    -------
    parent, parent_edge, order : arrays of shape (T, n), int32
        See the module docstring.  Identical on every backend.

    Examples
    --------
    >>> import numpy as np
    >>> from rapids_balance.graph import build_graph
    >>> g = build_graph([0, 1, 2, 0], [1, 2, 3, 3], sign=[1, -1, 1, 1])
    >>> parent, pe, order = bfs_trees(g, [0], [17])
    >>> int(order[0, 0]), int(parent[0, 0])
    (0, -1)
    """
    roots = np.asarray(roots, dtype=np.int64).reshape(-1)
    s2 = seed_mix(seeds)
    if s2.size != roots.size:
        raise ValueError(f"roots ({roots.size}) and seeds ({s2.size}) differ in length")
    n = graph.n
    if roots.size and (roots.min() < 0 or roots.max() >= n):
        raise ValueError("a root is not a vertex of the graph")
    if backend == "gpu":
        from . import _gpu

        return _gpu.bfs_trees_gpu(graph, roots, s2)
    T = roots.size
    parent = np.empty((T, n), np.int32)
    parent_edge = np.empty((T, n), np.int32)
    order = np.empty((T, n), np.int32)
    reached = np.empty(T, np.int64)
    nb = block_split(T)  # whole blocks first, a short tail tree by tree: the same trees either way
    if nb:
        blocks = -(-nb // BLOCK)
        _bfs_blocks_cpu(graph.indptr, graph.indices, graph.slot_edge, slot_negative(graph),
                        roots[:nb].astype(np.int32), s2[:nb], blocks, parent, parent_edge, order,
                        reached, max(1, min(blocks, numba.get_num_threads())))
    if nb < T:
        _bfs_batch_cpu(graph.indptr, graph.indices, graph.slot_edge, graph.edge_src, graph.edge_dst,
                       roots[nb:], s2[nb:], parent[nb:], parent_edge[nb:], order[nb:], reached[nb:],
                       cpu_chunks(T - nb))
    _check_connected(reached, n)
    return parent, parent_edge, order
