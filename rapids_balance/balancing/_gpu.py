"""numba-cuda kernels of the balancing engine (CuPy arrays; numpy under the simulator).

Level-synchronous as in graphB+ and ECL-SGB, but over a whole batch of trees
per launch: a frontier entry is a (tree, vertex) pair and each is served by
one warp whose lanes stride over the vertex's neighbours.  Every result is
an argmax, an integer sum, a pointer-jumping fixpoint or a level-by-level
pass whose per-vertex writes are ordered by the data (graphB+'s labeling),
so it does not depend on scheduling and equals the CPU path bit for bit.

Imported only when ``backend="gpu"``.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import cuda

from .._occupancy import MIN_BLOCKS_PER_SM
from ..backend import (array_module, device_array, gpu_kernel, host_read, kernel_view, launch_config,
                       to_device, to_host)
from . import _gpu_split
from ._gpu_split import settle
from ._tree_rules import parent_key

WARP = 32


# ---------------------------------------------------------------------------
# device helpers: scalar-only bodies are plain njit (shared with the CPU and
# callable under the simulator); helpers taking arrays are cuda device
# functions, because simulated kernels see wrapped arrays numba cannot unbox
# ---------------------------------------------------------------------------

@cuda.jit(device=True)
def _lower_bound(indices, lo, hi, x):
    """First slot in ``[lo, hi)`` of a sorted row whose neighbour is >= x."""
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------
# BFS trees
# ---------------------------------------------------------------------------

#: trees per group: one bit each in a uint64 word, as the CPU's blocks
GROUP = 64


@numba.njit(cache=True)
def _bit_index(bit):
    """Position of the single set bit of a uint64."""
    t = 0
    while bit > np.uint64(1):
        bit >>= np.uint64(1)
        t += 1
    return t


@gpu_kernel(layout="block")
def _k_bfs_groups(indptr, indices, slot_edge, sign, roots, s2s, n_trees, group, width, reached, mark,
                  cand, cand_bits, new, new_bits, counts, parent, parent_edge, depth, ps):
    """BFS of ``group`` trees (at most 64) per thread block, level by level inside the kernel (no
    host round trip).

    Block g builds trees ``group * g .. group * g + group - 1``.  ``reached[g, v]`` has bit t
    once v is reached in tree t (the block's padding bits set everywhere).
    A level's candidates are the neighbours of the vertices the last level
    reached (``new``) that are open in one of their trees, listed once
    (``mark``): work follows the frontier.  Each candidate v is served by a
    virtual warp of ``width`` lanes (sized by the mean degree on the host):
    one OR over v's row gives the trees in which some neighbour offers
    itself (a block of one tree skips it: v was listed because a neighbour
    offers in that tree), and lane l takes every ``width``-th of them, scanning the row
    for graphB+'s argmax (largest key, ties to the later slot, the larger
    u): the lanes read the same slots together, so a row is read once for
    the block's trees.  Parents, edges, depths and path signs are written
    per (tree, vertex) by the one lane that owns it; ``reached`` changes
    only between levels (``cand_bits``), so every lane of a level sees the
    same parents.  ``__syncthreads`` separates the phases; the loop ends
    when a level reaches nothing, read by every thread after a barrier.
    """
    g = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nth = cuda.blockDim.x
    n = indptr.size - 1
    t0 = g * group
    nl = min(group, n_trees - t0)
    real = np.uint64(0xFFFFFFFFFFFFFFFF) if nl >= GROUP else (np.uint64(1) << np.uint64(nl)) - np.uint64(1)
    for v in range(tid, n, nth):
        reached[g, v] = ~real
        mark[g, v] = 0
    cuda.syncthreads()
    if tid == 0:
        k = 0
        for t in range(nl):
            r = roots[t0 + t]
            reached[g, r] |= np.uint64(1) << np.uint64(t)
            parent[t0 + t, r] = -1
            parent_edge[t0 + t, r] = -1
            depth[t0 + t, r] = 0
            ps[t0 + t, r] = 1
            if mark[g, r] != 1:
                mark[g, r] = 1
                new[g, k] = r
                k += 1
        for i in range(k):
            new_bits[g, i] = reached[g, new[g, i]] & real
        counts[g, 1] = k
    level = 0  # depth of the vertices in ``new``
    while True:
        if tid == 0:
            counts[g, 0] = 0
        cuda.syncthreads()
        stamp = level + 2
        for i in range(tid, counts[g, 1], nth):  # the next level's candidates
            u = new[g, i]
            bits = new_bits[g, i]
            for j in range(indptr[u], indptr[u + 1]):
                w = indices[j]
                if (bits & ~reached[g, w]) != 0:
                    if cuda.atomic.max(mark, (g, w), stamp) < stamp:
                        k = cuda.atomic.add(counts, (g, 0), 1)
                        cand[g, k] = w
                        cand_bits[g, k] = 0
        cuda.syncthreads()
        nc = counts[g, 0]
        if nc == 0:
            break
        for idx in range(tid, nc * width, nth):  # the pull: virtual warp per candidate
            i = idx // width
            lane = idx - i * width
            v = cand[g, i]
            if nl == 1:  # the tree that listed v offers; no OR over the row needed
                offered = real
            else:
                offered = np.uint64(0)
                for j in range(indptr[v], indptr[v + 1]):
                    offered |= reached[g, indices[j]]
            bits = offered & ~reached[g, v]
            mine = np.uint64(0)
            rank = 0
            while bits != 0:
                bit = bits & (~bits + np.uint64(1))
                bits ^= bit
                if rank % width == lane:
                    t = _bit_index(bit)
                    s2 = s2s[t0 + t]
                    best = np.int64(-4294967296)
                    best_j = -1
                    for j in range(indptr[v], indptr[v + 1]):
                        u = indices[j]
                        if (reached[g, u] & bit) != 0:
                            key = parent_key(u, v, level, s2)
                            if key >= best:
                                best = key
                                best_j = j
                    settle(indices, slot_edge, sign, best_j, t0 + t, v, level, parent, parent_edge,
                           depth, ps)
                    mine |= bit
                rank += 1
            if mine != 0:
                cuda.atomic.or_(cand_bits, (g, i), mine)
        cuda.syncthreads()
        if tid == 0:
            counts[g, 1] = 0
        cuda.syncthreads()
        for i in range(tid, nc, nth):  # the level ends: its vertices become parents
            b = cand_bits[g, i]
            if b != 0:
                v = cand[g, i]
                reached[g, v] |= b
                k = cuda.atomic.add(counts, (g, 1), 1)
                new[g, k] = v
                new_bits[g, k] = b
        level += 1
        cuda.syncthreads()




def trees_per_block(trees: int, sm_count: int) -> int:
    """Trees one :func:`_k_bfs_groups` block builds for a batch of ``trees`` on ``sm_count`` SMs.

    A block's row reads serve all of its trees at once (one bit each of a
    word), so packing saves reads, but a batch of few trees in few blocks
    leaves SMs idle (64 trees a block: one block, one SM of 132).  So a
    block takes one tree until the batch has :data:`MIN_BLOCKS_PER_SM`
    blocks for every SM, and more only beyond (at most :data:`GROUP`).
    The trees do not depend on it: each tree's levels follow its own bits.

    >>> trees_per_block(64, 132), trees_per_block(1000, 132), trees_per_block(4096, 132)
    (1, 1, 7)
    """
    return int(max(1, min(GROUP, trees // (MIN_BLOCKS_PER_SM * max(sm_count, 1)))))


def bfs_threads() -> int:
    """Threads of a :func:`_k_bfs_groups` block: 256 on a GPU, 8 under the simulator (which runs
    each thread as a Python thread)."""
    from ..backend import simulator_enabled

    return 8 if simulator_enabled() else 256


def _lanes_per_vertex(graph) -> int:
    """Virtual warp width: the mean degree rounded up to a power of two, 1 to WARP."""
    mean = 2 * graph.m / max(graph.n, 1)
    w = 1
    while w < mean and w < WARP:
        w *= 2
    return w


def _levels_from_depth(depth):
    """Per depth, the (tree, vertex) pairs at that depth in (tree, vertex) order (two int32 arrays).

    One stable sort of the flat depths and one host read of the level sizes.
    """
    from .. import _xp

    flat = depth.ravel()
    pos = _xp.stable_argsort(flat)
    n = depth.shape[1]
    levels = []
    a = 0
    for size in host_read(_xp.bincount(flat, n)).tolist():  # depths are below n, and contiguous
        if size == 0:
            break
        idx = pos[a:a + size]
        levels.append(((idx // n).astype(np.int32), (idx % n).astype(np.int32)))
        a += size
    return levels


def bfs_trees_gpu(graph, roots, s2, *, with_order: bool = True, with_ps: bool = False,
                  with_levels: bool = False, group: int | None = None,
                  split: int | None = None):
    """GPU version of :func:`rapids_balance.balancing._trees.bfs_trees`.

    Returns ``(parent, parent_edge, order)``, with ``order`` None when
    ``with_order=False`` (it costs a sort), then the path signs when
    ``with_ps=True`` and the frontiers when ``with_levels=True``: a list
    whose entry l holds the (tree, vertex) pairs at depth l as two int32
    arrays (what graphB+'s level-by-level labeling walks).

    A batch with few trees for the device (:func:`._gpu_split.blocks_per_tree`
    above 1, or ``split``) gives each tree ``split`` blocks, two launches a
    level (:func:`._gpu_split.split_bfs`); otherwise one launch of
    :func:`_k_bfs_groups` builds the whole batch, ``group`` trees per thread
    block (default :func:`trees_per_block` for the device).  One host read
    (any vertex unreached) follows.  The trees are the same either way.
    """
    from ..backend import sm_count

    xp = array_module("gpu")
    d = graph.device_arrays()
    T, n = int(roots.size), graph.n
    if split is None:
        split = 1 if group else _gpu_split.blocks_per_tree(T, n, sm_count(), bfs_threads())
    if int(split) < 1:
        raise ValueError(f"split must be at least 1 block a tree, got {split}")
    group = 1 if split > 1 else int(group or trees_per_block(T, sm_count()))
    if not 1 <= group <= GROUP:
        raise ValueError(f"group must be 1..{GROUP} trees a block, got {group}")
    parent = xp.full((T, n), -1, dtype=np.int32)
    parent_edge = xp.full((T, n), -1, dtype=np.int32)
    ps = xp.ones((T, n), dtype=np.int8)
    sign = d["sign"] if "sign" in d else xp.ones(max(graph.m, 1), dtype=np.int8)  # unsigned: all +1
    if split > 1:
        depth = xp.full((T, n), _gpu_split.UNSEEN, dtype=np.int32)
        _gpu_split.split_bfs(d, sign, roots, s2, int(split), bfs_threads(), depth, parent,
                             parent_edge, ps)
    else:
        depth = xp.full((T, n), -1, dtype=np.int32)
        _bfs_grouped(graph, d, sign, roots, s2, group, depth, parent, parent_edge, ps)
    return _bfs_outputs(graph, depth, parent, parent_edge, ps, with_order, with_ps, with_levels)


def _bfs_grouped(graph, d, sign, roots, s2, group, depth, parent, parent_edge, ps):
    """One launch of :func:`_k_bfs_groups`, ``group`` trees a block, into the given arrays."""
    xp = array_module("gpu")
    T, n = depth.shape
    G = -(-T // group)
    roots_d = to_device(np.asarray(roots, np.int32), "gpu")
    s2_d = to_device(np.asarray(s2, np.int64), "gpu")
    scratch = dict(reached=xp.empty((G, n), np.uint64), mark=xp.empty((G, n), np.int32),
                   cand=xp.empty((G, n), np.int32), cand_bits=xp.empty((G, n), np.uint64),
                   new=xp.empty((G, n), np.int32), new_bits=xp.empty((G, n), np.uint64),
                   counts=xp.zeros((G, 2), np.int32))
    _k_bfs_groups[G, bfs_threads()](d["indptr"], d["indices"], d["slot_edge"], sign, roots_d, s2_d, T,
                                    group, _lanes_per_vertex(graph), scratch["reached"],
                                    scratch["mark"], scratch["cand"], scratch["cand_bits"],
                                    scratch["new"], scratch["new_bits"], scratch["counts"], parent,
                                    parent_edge, depth, ps)


def _bfs_outputs(graph, depth, parent, parent_edge, ps, with_order, with_ps, with_levels):
    """What :func:`bfs_trees_gpu` returns, from the trees' depths (negative: unreached)."""
    xp = array_module("gpu")
    n = graph.n
    if bool(host_read((depth < 0).any())):
        from ._tree_rules import _check_connected

        _check_connected(np.asarray((depth >= 0).sum(axis=1).tolist()), n)
    order = None
    if with_order:
        key = depth.astype(np.int64) * n + xp.arange(n, dtype=np.int64)[None, :]
        order = xp.argsort(key, axis=1).astype(np.int32)
    levels = _levels_from_depth(depth) if with_levels else None
    out = (parent, parent_edge, order) + ((ps,) if with_ps else ()) + ((levels,) if with_levels else ())
    return out


# ---------------------------------------------------------------------------
# path signs by pointer jumping
# ---------------------------------------------------------------------------

@gpu_kernel
def _k_ps_init(parent_edge, sign, ps):
    i = cuda.grid(1)
    n = ps.shape[1]
    if i < ps.shape[0] * n:
        t = i // n
        v = i - t * n
        e = parent_edge[t, v]
        ps[t, v] = 1 if e < 0 else sign[e]


@gpu_kernel
def _k_jump(anc, val, anc_out, val_out, add, active):
    """val[v] (*= or +=) val[anc[v]]; anc[v] = anc[anc[v]] (double-buffered)."""
    i = cuda.grid(1)
    n = val.shape[1]
    if i < val.shape[0] * n:
        t = i // n
        v = i - t * n
        a = anc[t, v]
        if a >= 0:
            if add:
                val_out[t, v] = val[t, v] + val[t, a]
            else:
                val_out[t, v] = val[t, v] * val[t, a]
            aa = anc[t, a]
            anc_out[t, v] = aa
            if aa >= 0:
                active[0] = 1
        else:
            val_out[t, v] = val[t, v]
            anc_out[t, v] = -1


def _pointer_jump(parent, val, add):
    """Fold ``val`` (product, or sum with ``add``) over each vertex's path to its root."""
    xp = array_module("gpu")
    T, n = parent.shape
    blocks, threads = launch_config(T * n)
    anc = parent.copy()
    val2 = xp.empty_like(val)
    anc2 = xp.empty_like(anc)
    active = xp.zeros(1, dtype=np.int32)
    views = [kernel_view(a) for a in (anc, val, anc2, val2, active)]  # once for the loop
    while True:
        active[0] = 0
        _k_jump[blocks, threads](*views[:4], add, views[4])
        views[0], views[2] = views[2], views[0]
        views[1], views[3] = views[3], views[1]
        val, val2 = val2, val
        if int(host_read(active)[0]) == 0:
            return val


def path_signs_gpu(order, parent, parent_edge, sign):
    """GPU version of :func:`rapids_balance.balancing._path_signs.path_signs`."""
    xp = array_module("gpu")
    parent = device_array(parent, np.int32)
    parent_edge = device_array(parent_edge, np.int32)
    if parent.ndim == 1:
        parent, parent_edge = parent[None, :], parent_edge[None, :]
    sign = device_array(sign, np.int8)
    T, n = parent.shape
    ps = xp.empty((T, n), dtype=np.int8)
    blocks, threads = launch_config(T * n)
    _k_ps_init[blocks, threads](parent_edge, sign, ps)
    return _pointer_jump(parent, ps, 0)


# ---------------------------------------------------------------------------
# graphB+ (method="cycle"): Alg. 4 labeling level by level, then Alg. 3's
# cycle traversal
#
# A batch level is the union of that depth's vertices over the batch's trees:
# one launch per level serves every tree (the BFS frontiers are exactly these
# lists).  The labels are the CPU's (_cycle.tree_labels_into): children in
# id order, so both paths walk the same cycles.  Per (tree, vertex) the batch
# keeps size, label, child_ptr (n + 1) and child_list: the range of tree edge
# (parent(c), c) is [label[c], label[c] + size[c] - 1], and child_list holds
# each vertex's children in label order for the binary search of the walk.
# ---------------------------------------------------------------------------

@gpu_kernel
def _k_sizes_up(front_t, front_v, parent, size, child_ptr):
    """Alg. 4 bottom-up pass over one level: add v's final count to its parent's.

    Also counts the parent's children (into ``child_ptr[t, p + 1]``, scanned
    afterwards).  Integer atomics: the sums do not depend on the order.
    """
    i = cuda.grid(1)
    if i < front_t.size:
        t = front_t[i]
        v = front_v[i]
        p = parent[t, v]
        cuda.atomic.add(size, (t, p), size[t, v])
        cuda.atomic.add(child_ptr, (t, p + 1), 1)


@gpu_kernel
def _k_labels_down(indptr, indices, front_t, front_v, parent, size, child_ptr, label, child_list):
    """Alg. 4 top-down pass over one level: v hands consecutive ids to its children.

    Child c gets ``label[v] + 1 + sizes of v's earlier children`` (its range
    begins there and ends ``size[c] - 1`` later); children are taken in id
    order (the CSR row is sorted) and listed in ``child_list``.
    """
    i = cuda.grid(1)
    if i < front_t.size:
        t = front_t[i]
        v = front_v[i]
        nxt = label[t, v] + 1
        k = child_ptr[t, v]
        for j in range(indptr[v], indptr[v + 1]):
            c = indices[j]
            if parent[t, c] == v:
                label[t, c] = nxt
                child_list[t, k] = c
                k += 1
                nxt += size[t, c]


@cuda.jit(device=True)
def _child_towards(t, curr, target, label, child_ptr, child_list):
    """The child of ``curr`` whose range holds label ``target``: the last child
    with ``label <= target`` (children's ranges are consecutive)."""
    lo = child_ptr[t, curr]
    hi = child_ptr[t, curr + 1] - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if label[t, child_list[t, mid]] <= target:
            lo = mid
        else:
            hi = mid - 1
    return child_list[t, lo]


@cuda.jit(device=True)
def _cycle_parity(t, w, u, sign, parent, parent_edge, size, label, child_ptr, child_list):
    """Alg. 3's traversal from w to u: 1 when the tree path holds an odd number
    of negative edges.  At each vertex the parent edge leads on unless u's
    label lies in the vertex's own range; then the child edge whose range
    holds it does.  Only vertices of the cycle are visited.  Returns -1 if
    the walk is longer than n - 1 edges (inconsistent labels: never for a
    tree), so that a bug cannot hang the kernel."""
    target = label[t, u]
    curr = w
    odd = 0
    steps = 0
    while curr != u:
        steps += 1
        if steps >= parent.shape[1]:
            return -1
        lo = label[t, curr]
        if lo < target < lo + size[t, curr]:
            nxt = _child_towards(t, curr, target, label, child_ptr, child_list)
            e = parent_edge[t, nxt]
        else:
            nxt = parent[t, curr]
            e = parent_edge[t, curr]
        if sign[e] < 0:
            odd ^= 1
        curr = nxt
    return odd


@gpu_kernel
def _k_cycles(indptr, indices, slot_edge, sign, parent, parent_edge, size, label, child_ptr,
              child_list, bal):
    """Warp per (tree, vertex) v, lanes over v's edges (v, w) with w > v (each
    edge once): a tree edge keeps its sign; a non-tree edge takes the sign
    that makes its fundamental cycle positive.  Tree data is only read and
    each edge written by one lane, so no synchronisation is needed."""
    tid = cuda.grid(1)
    wid = tid // WARP
    lane = tid % WARP
    n = parent.shape[1]
    if wid < parent.shape[0] * n:
        t = wid // n
        v = wid - t * n
        first = _lower_bound(indices, indptr[v], indptr[v + 1], v + 1)
        for j in range(first + lane, indptr[v + 1], WARP):
            w = indices[j]
            e = slot_edge[j]
            s = sign[e]
            if parent_edge[t, v] != e and parent_edge[t, w] != e:
                odd = _cycle_parity(t, w, v, sign, parent, parent_edge, size, label, child_ptr,
                                    child_list)
                if odd < 0:
                    s = 0  # reported by _k_edge_counters
                elif (s < 0) != (odd == 1):
                    s = -s  # the cycle is negative: switch the non-tree edge
            bal[t, e] = s


def tree_levels_gpu(parent):
    """Per depth, the batch's (tree, vertex) pairs at that depth, in (tree, vertex) order.

    For trees that did not come from :func:`bfs_trees_gpu` (which returns its
    frontiers): depths by pointer jumping, then the levels as the BFS makes
    them (:func:`_levels_from_depth`: one sort of the depths and one read of
    the level sizes, not a scan of the T x n depths per level).
    """
    return _levels_from_depth(_pointer_jump(parent, (parent >= 0).astype(np.int32), 1))


def tree_labels_gpu(d, parent, levels):
    """graphB+ Alg. 4 for a batch: ``(size, label, child_ptr, child_list)``, int32.

    ``levels[l]`` are the (tree, vertex) pairs at depth l (see
    :func:`tree_levels_gpu`); one launch per level and pass.
    """
    xp = array_module("gpu")
    T, n = parent.shape
    size = xp.ones((T, n), dtype=np.int32)
    child_ptr = xp.zeros((T, n + 1), dtype=np.int32)
    # numba's views, once for the batch: a launch per level converts nothing
    levels_v = [(kernel_view(ft), kernel_view(fv), ft.size) for ft, fv in levels]
    parent_v, size_v = kernel_view(parent), kernel_view(size)
    ptr_v = kernel_view(child_ptr)
    for ft, fv, k in reversed(levels_v[1:]):  # bottom-up; roots have no parent
        blocks, threads = launch_config(k)
        _k_sizes_up[blocks, threads](ft, fv, parent_v, size_v, ptr_v)
    child_ptr = xp.cumsum(child_ptr, axis=1, dtype=np.int32)
    label = xp.zeros((T, n), dtype=np.int32)  # root_id = 0; the rest are set top-down
    child_list = xp.zeros((T, n), dtype=np.int32)
    indptr_v, indices_v, ptr_v, label_v, list_v = map(kernel_view, (d["indptr"], d["indices"], child_ptr,
                                                                    label, child_list))
    for ft, fv, k in levels_v[:-1]:  # top-down; the deepest level has no children
        blocks, threads = launch_config(k)
        _k_labels_down[blocks, threads](indptr_v, indices_v, ft, fv, parent_v, size_v, ptr_v,
                                        label_v, list_v)
    return size, label, child_ptr, child_list


def cycle_balance_gpu(graph, d, parent, parent_edge, levels=None):
    """Balanced sign of every edge, per tree, by graphB+: int8 (T, m).

    Alg. 4's level-by-level labeling (``levels`` as returned by
    :func:`bfs_trees_gpu`, or computed from ``parent``), then Alg. 3's walk
    around every fundamental cycle.  Equals ``ps[u] * ps[w]`` of ECL-SGB.
    """
    xp = array_module("gpu")
    if levels is None:
        levels = tree_levels_gpu(parent)
    T, n = parent.shape
    size, label, child_ptr, child_list = tree_labels_gpu(d, parent, levels)
    bal = xp.empty((T, graph.m), dtype=np.int8)
    blocks, threads = launch_config(T * n * WARP, 128)
    _k_cycles[blocks, threads](d["indptr"], d["indices"], d["slot_edge"], d["sign"], parent,
                               parent_edge, size, label, child_ptr, child_list, bal)
    return bal


# ---------------------------------------------------------------------------
# majority: components of positive balanced edges (hook and compress)
# ---------------------------------------------------------------------------

@cuda.jit(device=True)
def _root(comp, t, x):
    while comp[t, x] != x:
        x = comp[t, x]
    return x


@gpu_kernel
def _k_cc_hook(edge_src, edge_dst, side, comp, changed):
    i = cuda.grid(1)
    m = edge_src.size
    if i < side.shape[0] * m:
        t = i // m
        e = i - t * m
        u = edge_src[e]
        w = edge_dst[e]
        if side[t, u] == side[t, w]:
            a = _root(comp, t, u)
            b = _root(comp, t, w)
            if a != b:
                # roots only ever point to smaller ids: the final root is the minimum
                cuda.atomic.min(comp, (t, max(a, b)), min(a, b))
                changed[0] = 1


@gpu_kernel
def _k_cc_jump(comp):
    """Pointer jumping: each vertex points to its grandparent.

    Without it one hook pass can chain a whole component (a path whose every
    edge hooks i+1 -> i), and later ``_root`` walks cost O(n) each, O(n^2)
    per pass.  Concurrent jumps are safe: every value a thread can read is
    an ancestor of its vertex in the same component.
    """
    i = cuda.grid(1)
    n = comp.shape[1]
    if i < comp.shape[0] * n:
        t = i // n
        v = i - t * n
        comp[t, v] = comp[t, comp[t, comp[t, v]]]


@gpu_kernel
def _k_cc_compress(comp, count):
    i = cuda.grid(1)
    n = comp.shape[1]
    if i < comp.shape[0] * n:
        t = i // n
        r = _root(comp, t, i - t * n)
        comp[t, i - t * n] = r
        cuda.atomic.add(count, (t, r), 1)


def agreeable_sides_gpu(d, side):
    """Per tree, the side of the largest positive component (ties: smallest id)."""
    xp = array_module("gpu")
    T, n = side.shape
    m = d["edge_src"].size
    comp = xp.tile(xp.arange(n, dtype=np.int32), (T, 1))
    changed = xp.zeros(1, dtype=np.int32)
    blocks_e, threads_e = launch_config(T * m)
    blocks, threads = launch_config(T * n)
    es, ed, sv, cv, ch = map(kernel_view, (d["edge_src"], d["edge_dst"], side, comp, changed))
    while True:
        changed[0] = 0
        _k_cc_hook[blocks_e, threads_e](es, ed, sv, cv, ch)
        if int(host_read(changed)[0]) == 0:
            break
        _k_cc_jump[blocks, threads](cv)
    count = xp.zeros((T, n), dtype=np.int32)
    _k_cc_compress[blocks, threads](comp, count)
    best = xp.argmax(count, axis=1)  # first maximum: the smallest root id
    return side[xp.arange(T), best].astype(np.int8)


# ---------------------------------------------------------------------------
# counters
# ---------------------------------------------------------------------------

#: threads of a counter kernel's block: warps of tree lanes, their sums folded in shared memory
COUNTER_THREADS = 256


@cuda.jit(device=True)
def _warp_sum(acc, tid, lane):
    """Sum of the 32 entries of ``acc`` of this thread's warp, read by its lane 0 (after a
    block barrier); integer, so the order does not matter."""
    total = 0
    if lane == 0:
        for i in range(WARP):
            total += acc[tid + i]
    return total


@gpu_kernel
def _k_edge_counters(edge_src, edge_dst, sign, side, pe, bal, use_cycle, maj, in_tree, negative,
                     switched, agree2, unbalanced):
    """Warp per edge, lanes over the batch's trees; lane 0 adds the warp's sums to the edge's
    counters (each edge owns them).

    ``side`` and ``pe`` are (n, T) and ``bal`` (m, T): the trees of one
    vertex (edge) are adjacent, so a warp reads its lanes' entries in one
    go rather than one scattered sector per tree.  With ``use_cycle`` the
    sides (path signs) are checked against the cycle walks' state, as the
    CPU path 2-colours it: ``unbalanced[0]`` is set on any disagreement
    (cannot happen for a correct walk).
    """
    acc_it = cuda.shared.array(COUNTER_THREADS, numba.int32)
    acc_ng = cuda.shared.array(COUNTER_THREADS, numba.int32)
    acc_ag = cuda.shared.array(COUNTER_THREADS, numba.int32)
    tid = cuda.threadIdx.x
    lane = tid % WARP
    e = cuda.grid(1) // WARP
    T = maj.size
    it = 0
    ng = 0
    ag = 0
    if e < edge_src.size:
        u = edge_src[e]
        w = edge_dst[e]
        for t in range(lane, T, WARP):
            if pe[u, t] == e or pe[w, t] == e:
                it += 1
            a = side[u, t]
            mt = maj[t]
            same = a == side[w, t]
            if use_cycle:
                b = bal[e, t]
                neg = b < 0
                if neg == same or b == 0:
                    unbalanced[0] = 1
            else:
                neg = not same
            if neg:
                ng += 1
            if same:
                if a == mt:
                    ag += 2
                elif mt == 2:
                    ag += 1
    acc_it[tid] = it
    acc_ng[tid] = ng
    acc_ag[tid] = ag
    cuda.syncthreads()
    if lane == 0 and e < edge_src.size:
        ng = _warp_sum(acc_ng, tid, lane)
        in_tree[e] += _warp_sum(acc_it, tid, lane)
        negative[e] += ng
        if sign[e] < 0:
            switched[e] += T - ng
        else:
            switched[e] += ng
        agree2[e] += _warp_sum(acc_ag, tid, lane)


@gpu_kernel
def _k_vertex_counters(indptr, indices, side, maj, status2, clean):
    """Warp per vertex, lanes over the batch's trees (``side`` is (n, T), as for
    :func:`_k_edge_counters`); lane 0 adds the warp's sums."""
    acc_st = cuda.shared.array(COUNTER_THREADS, numba.int32)
    acc_cl = cuda.shared.array(COUNTER_THREADS, numba.int32)
    tid = cuda.threadIdx.x
    lane = tid % WARP
    v = cuda.grid(1) // WARP
    st = 0
    cl = 0
    if v < indptr.size - 1:
        for t in range(lane, maj.size, WARP):
            sv = side[v, t]
            mt = maj[t]
            if sv == mt:
                st += 2
            elif mt == 2:
                st += 1
            ok = 1
            for j in range(indptr[v], indptr[v + 1]):
                if side[indices[j], t] != sv:
                    ok = 0
                    break
            cl += ok
    acc_st[tid] = st
    acc_cl[tid] = cl
    cuda.syncthreads()
    if lane == 0 and v < indptr.size - 1:
        status2[v] += _warp_sum(acc_st, tid, lane)
        clean[v] += _warp_sum(acc_cl, tid, lane)


def batch_counters_gpu(graph, roots, s2, params):
    """One batch of trees on the GPU -> (int64 counters, reached per tree on the host).

    Counters stay on the device for a graph kept there (``graph.on_device``),
    and are copied to the host otherwise.
    """
    from ._result import EDGE_COUNTERS, VERTEX_COUNTERS

    xp = array_module("gpu")
    d = graph.device_arrays()
    n, m, T = graph.n, graph.m, int(roots.size)
    use_cycle = params.method == "cycle"
    got = bfs_trees_gpu(graph, roots, s2, with_order=False, with_ps=True, with_levels=use_cycle)
    parent, parent_edge, _, ps = got[:4]
    side = (ps < 0).astype(np.int8)
    if use_cycle:
        bal = cycle_balance_gpu(graph, d, parent, parent_edge, got[4])
        del got
    else:
        bal = xp.zeros((T, 1), np.int8)
    if params.majority == "agreeable":
        maj = agreeable_sides_gpu(d, side)
    else:
        ones = side.sum(axis=1, dtype=np.int64)
        maj = xp.where(2 * ones < n, 0, xp.where(2 * ones > n, 1, 2)).astype(np.int8)
    c = {k: xp.zeros(m, dtype=np.int64) for k in EDGE_COUNTERS}
    c.update({k: xp.zeros(n, dtype=np.int64) for k in VERTEX_COUNTERS})
    unbalanced = xp.zeros(1, dtype=np.int32)
    # the counters read a vertex's (an edge's) trees side by side: (n, T) and (m, T) copies
    side_t = xp.ascontiguousarray(side.T)
    pe_t = xp.ascontiguousarray(parent_edge.T)
    bal_t = xp.ascontiguousarray(bal.T) if use_cycle else bal
    del parent_edge, bal
    blocks, threads = launch_config(m * WARP, COUNTER_THREADS)
    _k_edge_counters[blocks, threads](d["edge_src"], d["edge_dst"], d["sign"], side_t, pe_t, bal_t,
                                      use_cycle, maj, c["in_tree"], c["negative"], c["switched"],
                                      c["agree2"], unbalanced)
    blocks, threads = launch_config(n * WARP, COUNTER_THREADS)
    _k_vertex_counters[blocks, threads](d["indptr"], d["indices"], side_t, maj, c["status2"],
                                        c["clean"])
    if getattr(graph, "on_device", False):
        # a graph kept on the device: its counters stay there, and so do the result tables
        out = dict(c)
        out["trees"] = xp.full(1, T, dtype=np.int64)
        out["ties"] = xp.reshape((maj == 2).sum(dtype=np.int64), (1,))
    else:
        out = {k: to_host(v).astype(np.int64, copy=False) for k, v in c.items()}
        out["trees"] = np.array([T], np.int64)
        out["ties"] = np.array([int(to_host((maj == 2).sum()))], np.int64)
    # -1 makes the engine report an internal error, as the CPU path does
    return out, np.full(T, -1 if int(to_host(unbalanced)[0]) else n, np.int64)
