"""BFS trees with each tree over several thread blocks (numba-cuda; CuPy arrays, numpy under the simulator).

:func:`._gpu._k_bfs_groups` keeps a tree (or up to 64, one bit each of a
word) in one thread block and loops over its levels inside the kernel, block
barriers separating a level's steps.  That fills the device only when a
batch has a few hundred trees.  Memory caps a batch well below that on large
graphs (at 10**8 edges on 10**7 vertices an 80 GiB device holds 33 trees of
balancing state), and a frustration batch is 64 trees: 33 or 64 blocks, a
quarter or a half of the SMs, each walking a whole tree alone.  There each
tree gets ``k`` blocks (:func:`blocks_per_tree`) and a level is two launches
over every tree's blocks, the kernel boundary being the barrier between
blocks, as ``centrality._gpu_split`` does for a betweenness source:

1. :func:`_k_expand`: the level's vertices (``L``) list their unreached
   neighbours once each as the next level's candidates, the tree's ``k``
   blocks striding over the level: ``depth`` goes from -2 (unseen) to -1
   (listed) by ``atomicMax``, so the first lister alone appends it;
2. :func:`_k_pull`: each candidate takes graphB+'s parent among its
   neighbours at depth ``L`` (largest :func:`._tree_rules.parent_key`, ties
   to the later slot: an argmax over the row, so the tree does not depend on
   which thread lists or pulls what) and its depth, edge and path sign.

Every candidate has a neighbour at depth ``L`` (it was listed by one), so the
candidates are the next level: the two frontier slots swap by level parity
and the pull clears the slot the expansion just read.  The state is the
tree's own ``depth`` (int32) and two frontier slots (int32): 8 bytes a vertex
a tree besides the outputs, against the grouped kernel's 36 bytes a block (a
word of reached bits, its marks, candidates and frontier), which a block of
one tree pays in full.

All trees of a batch move level by level in lockstep: the host passes the
level and reads the frontier sizes (``2T`` int32) after 4, then 8, ... up to
64 levels at a time, so its synchronisations grow with depth / 64; a level
past a tree's last has nothing to list and costs its blocks one read.  The
trees are :func:`._gpu._k_bfs_groups`'s (and the CPU's) bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from .._occupancy import MIN_BLOCKS_PER_SM
from ..backend import array_module, gpu_kernel, host_read, kernel_view, to_device
from ._tree_rules import parent_key

#: depth of a vertex no level has listed yet, and of one listed as the next level's candidate
UNSEEN, LISTED = -2, -1
#: levels between the host's reads of the frontier sizes: doubling from the first to the most
LEVELS_FIRST, LEVELS_MOST = 4, 64
#: a tree's blocks each stride over at least this many vertices (of threads a block) on
#: average, so that a small graph is not cut into blocks with nothing to do
MIN_VERTICES_PER_THREAD = 16


def blocks_per_tree(trees: int, n: int, sm_count: int, threads: int) -> int:
    """Thread blocks each tree of a batch of ``trees`` gets (1: the grouped kernel).

    Enough to give the launch :data:`MIN_BLOCKS_PER_SM` blocks for every SM
    when one block a tree would not, but no more than a graph of ``n``
    vertices gives work for (:data:`MIN_VERTICES_PER_THREAD` vertices a
    thread of ``threads``).

    >>> blocks_per_tree(33, 10**7, 132, 256), blocks_per_tree(64, 82140, 132, 256)
    (16, 9)
    >>> blocks_per_tree(1000, 82140, 132, 256), blocks_per_tree(64, 500, 132, 256)
    (1, 1)
    """
    want = -(-MIN_BLOCKS_PER_SM * max(int(sm_count), 1) // max(int(trees), 1))
    room = int(n) // (MIN_VERTICES_PER_THREAD * max(int(threads), 1))
    return int(max(1, min(want, room)))


@cuda.jit(device=True)
def settle(indices, slot_edge, sign, best_j, row, v, level, parent, parent_edge, depth, ps):
    """Vertex ``v`` of tree ``row`` joins level ``level + 1`` through the CSR slot ``best_j``
    (its parent's): parent, edge, depth and path sign (shared with
    :func:`._gpu._k_bfs_groups`)."""
    u = indices[best_j]
    e = slot_edge[best_j]
    parent[row, v] = u
    parent_edge[row, v] = e
    depth[row, v] = level + 1
    ps[row, v] = ps[row, u] * sign[e]


@cuda.jit(device=True)
def _tree_block(k):
    """(tree, this block's rank among the tree's ``k`` blocks)."""
    b = cuda.blockIdx.x
    t = b // k
    return t, b - t * k


@gpu_kernel(layout="block")
def _k_expand(k, level, indptr, indices, depth, front, count):
    """Level ``level``, step 1: its vertices list their unseen neighbours as candidates."""
    t, r = _tree_block(k)
    if t >= depth.shape[0]:
        return
    p = level & 1
    q = 1 - p
    stride = k * cuda.blockDim.x
    for i in range(r * cuda.blockDim.x + cuda.threadIdx.x, count[t, p], stride):
        u = front[t, p, i]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if depth[t, w] == UNSEEN:
                if cuda.atomic.max(depth, (t, w), LISTED) == UNSEEN:
                    front[t, q, cuda.atomic.add(count, (t, q), 1)] = w


@gpu_kernel(layout="block")
def _k_pull(k, level, indptr, indices, slot_edge, sign, s2s, depth, front, count, parent,
            parent_edge, ps):
    """Level ``level``, step 2: every candidate takes its parent at depth ``level``; the slot of
    the level just expanded is cleared for the next level's candidates."""
    t, r = _tree_block(k)
    if t >= depth.shape[0]:
        return
    p = level & 1
    q = 1 - p
    s2 = s2s[t]
    stride = k * cuda.blockDim.x
    for i in range(r * cuda.blockDim.x + cuda.threadIdx.x, count[t, q], stride):
        v = front[t, q, i]
        best = np.int64(-4294967296)
        best_j = -1
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if depth[t, u] == level:  # a candidate's depth is -1 or level + 1: never this
                key = parent_key(u, v, level, s2)
                if key >= best:
                    best = key
                    best_j = j
        settle(indices, slot_edge, sign, best_j, t, v, level, parent, parent_edge, depth, ps)
    if r == 0 and cuda.threadIdx.x == 0:
        count[t, p] = 0  # read by this level's expansion, which has ended


def split_bfs(d, sign, roots, s2, k: int, threads: int, depth, parent, parent_edge, ps) -> None:
    """Fill ``depth`` (T x n, int32, every entry :data:`UNSEEN`), ``parent``, ``parent_edge``
    (-1) and ``ps`` (1) with the BFS trees of ``roots`` and ``s2``, ``k`` blocks of ``threads``
    threads a tree.  Unreached vertices keep a negative depth."""
    xp = array_module("gpu")
    T, n = depth.shape
    rows = xp.arange(T)
    roots_d = to_device(np.asarray(roots, np.int32), "gpu")
    depth[rows, roots_d] = 0
    front = xp.empty((T, 2, n), np.int32)
    front[:, 0, 0] = roots_d
    count = xp.zeros((T, 2), np.int32)
    count[:, 0] = 1
    s2_d = to_device(np.asarray(s2, np.int64), "gpu")
    views = [kernel_view(a) for a in (d["indptr"], d["indices"], d["slot_edge"], sign, s2_d, depth,
                                      front, count, parent, parent_edge, ps)]
    indptr, indices, slot_edge, sign_v, s2_v, depth_v, front_v, count_v, parent_v, pe_v, ps_v = views
    blocks = T * k
    level, chunk = 0, LEVELS_FIRST
    while level < n:
        for _ in range(min(chunk, n - level)):
            _k_expand[blocks, threads](k, level, indptr, indices, depth_v, front_v, count_v)
            _k_pull[blocks, threads](k, level, indptr, indices, slot_edge, sign_v, s2_v, depth_v,
                                     front_v, count_v, parent_v, pe_v, ps_v)
            level += 1
        if not host_read(count[:, level & 1]).any():  # no tree has a vertex at depth `level`
            return
        chunk = min(2 * chunk, LEVELS_MOST)
