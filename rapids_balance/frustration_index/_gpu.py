"""numba-cuda kernels of the frustration cloud and its refinement.

* cloud: canonical state words (thread per (tree, word)), their hashes
  (thread per tree) and switch counts (thread per (tree, edge), integer
  atomics) of a whole tree batch;
* refinement: the gains of all vertex moves at once (thread per vertex) and
  rounds of simultaneous independent improving moves.

Scalar bodies (``hash64``, ``_move_priority``) are the ``@njit`` functions of
the CPU path; bodies reading arrays are written out here, because simulated
kernels see wrapped arrays that njit code cannot take.  Every result is an
integer sum or a fixed rule, so it equals the CPU path bit for bit.
Imported only when ``backend="gpu"``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, int32

from .._random import hash64
from ..backend import (array_module, device_array, gpu_kernel, host_read, kernel_view, launch_config,
                       to_host)
from ._shared import HASH_STREAM, _move_priority, mst_key, n_words


# ---------------------------------------------------------------------------
# cloud
# ---------------------------------------------------------------------------

# the three write one (T, W + 2) uint64 array: words in columns 0..W-1, the hash in
# column W, the switch count in column W + 1 (one copy to the host a batch)

@gpu_kernel
def _k_words(ps, words, W):
    i = cuda.grid(1)
    T, n = ps.shape
    if i < T * W:
        t = i // W
        w = i % W
        ref = ps[t, 0]
        out = np.uint64(0)
        lo = w * 64
        hi = min(lo + 64, n)
        for v in range(lo, hi):
            if ps[t, v] != ref:
                out |= np.uint64(1) << np.uint64(v - lo)
        words[t, w] = out


@gpu_kernel
def _k_hash(words, W):
    t = cuda.grid(1)
    if t < words.shape[0]:
        h = np.uint64(0x243F6A8885A308D3)
        for k in range(W):
            h = hash64(h ^ words[t, k], HASH_STREAM, k)
        words[t, W] = h


@gpu_kernel
def _k_switches(ps, edge_src, edge_dst, sign, words, col):
    i = cuda.grid(1)
    m = edge_src.size
    if i < ps.shape[0] * m:
        t = i // m
        e = i % m
        if sign[e] * ps[t, edge_src[e]] * ps[t, edge_dst[e]] < 0:
            cuda.atomic.add(words, (t, col), np.uint64(1))


def tree_states_gpu(ps, graph):
    """GPU twin of :func:`._states.tree_states` (host arrays out).

    Words, hashes and switch counts share one (T, W + 2) array, so they
    come back in one copy (one synchronisation a batch, not three).
    """
    g = graph.device_arrays()
    ps = device_array(ps, np.int8)
    T, n = ps.shape
    xp = array_module("gpu")
    W = n_words(n)
    packed = xp.zeros((T, W + 2), dtype=np.uint64)
    b, t = launch_config(T * W)
    _k_words[b, t](ps, packed, W)
    b, t = launch_config(T)
    _k_hash[b, t](packed, W)
    b, t = launch_config(T * graph.m)
    _k_switches[b, t](ps, g["edge_src"], g["edge_dst"], g["sign"], packed, W + 1)
    out = to_host(packed)
    return (np.ascontiguousarray(out[:, :W]), np.ascontiguousarray(out[:, W]),
            np.ascontiguousarray(out.view(np.int64)[:, W + 1]))


# ---------------------------------------------------------------------------
# random-weight minimum spanning trees: Borůvka, a batch of trees at once
# ---------------------------------------------------------------------------

_NO_EDGE = np.uint64(0xFFFFFFFFFFFFFFFF)


# threads of the block that builds one tree: a batch is one block a tree (64 by default), so
# the blocks are few and each is made as wide as CUDA allows (48 registers a thread at sm_90)
_BV_THREADS = 1024


@gpu_kernel(layout="block")
def _k_boruvka(edge_src, edge_dst, seeds, shift, mask, comp, ptr, best, in_tree):
    """Block per tree: every Borůvka round of its tree in one launch, no host read.

    A round is four phases split by ``__syncthreads``, the threads of the
    block striding over the tree's vertices or edges:

    1. every vertex's lightest-edge slot is cleared;
    2. each edge joining two components offers its key to both (integer
       ``atomic.min``; keys are distinct, so the minimum is the unique MST's);
    3. each component root takes its lightest edge and points at the
       component across it (of a mutual pair, the smaller root stays);
    4. each vertex follows the pointers to its root (no root moves and
       other threads' writes store roots, so every read is an ancestor) and
       takes it as its component.

    The round in which no edge joins two components ends the loop; the
    block decides it from a shared flag, so the decision is the block's own
    (uniform across its threads) and never goes to the host.  The unique
    MST is what any order of these steps reaches, so the tree is the CPU's
    Kruskal tree bit for bit.
    """
    t = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    n = comp.shape[1]
    m = edge_src.size
    joined = cuda.shared.array(1, int32)
    if t >= comp.shape[0]:
        return
    for v in range(tid, n, step):
        comp[t, v] = v
    while True:
        for v in range(tid, n, step):
            best[t, v] = _NO_EDGE
        if tid == 0:
            joined[0] = 0
        cuda.syncthreads()
        for e in range(tid, m, step):
            a = comp[t, edge_src[e]]
            b = comp[t, edge_dst[e]]
            if a != b:
                key = mst_key(seeds[t], e, shift)
                cuda.atomic.min(best, (t, a), key)
                cuda.atomic.min(best, (t, b), key)
                joined[0] = 1  # only tested against zero: a plain store
        cuda.syncthreads()
        if joined[0] == 0:
            break
        for c in range(tid, n, step):
            ptr[t, c] = comp[t, c]
            if comp[t, c] == c and best[t, c] != _NO_EDGE:
                e = np.int64(best[t, c] & mask)
                in_tree[t, e] = 1
                other = comp[t, edge_src[e]]
                if other == c:
                    other = comp[t, edge_dst[e]]
                if not (best[t, other] == best[t, c] and c < other):
                    ptr[t, c] = other
        cuda.syncthreads()
        for v in range(tid, n, step):
            r = ptr[t, v]
            while ptr[t, r] != r:
                r = ptr[t, r]
            ptr[t, v] = r
            comp[t, v] = r
        cuda.syncthreads()


@gpu_kernel
def _k_root_trees(in_tree, edge_src, edge_dst, sign, roots, start, nbr, eid, parent, parent_edge,
                  order, ps, reached):
    """Thread per tree: orient its tree edges away from its root, on the device.

    The statements of the CPU's ``_root_tree_edges`` (tree edges by
    ascending id into per-vertex lists, then a breadth-first walk from the
    root), so parent, parent_edge and order are the CPU's, bit for bit; the
    path signs come with the walk (``ps[v] = ps[parent] * sign[parent_edge]``,
    the product ``path_signs`` takes by pointer jumping).  ``start`` (n + 1
    per tree), ``nbr`` and ``eid`` (2n per tree) are scratch.
    """
    t = cuda.grid(1)
    if t < in_tree.shape[0]:
        n = parent.shape[1]
        st = start[t]
        for v in range(n + 1):
            st[v] = 0
        for e in range(in_tree.shape[1]):
            if in_tree[t, e]:
                st[edge_src[e] + 1] += 1
                st[edge_dst[e] + 1] += 1
        for v in range(n):
            st[v + 1] += st[v]
        # fill with st[v] as v's cursor: afterwards st[v] is v's end, which is v + 1's start
        for e in range(in_tree.shape[1]):
            if in_tree[t, e]:
                a = edge_src[e]
                b = edge_dst[e]
                nbr[t, st[a]] = b
                eid[t, st[a]] = e
                st[a] += 1
                nbr[t, st[b]] = a
                eid[t, st[b]] = e
                st[b] += 1
        for v in range(n):
            parent[t, v] = -2
        root = roots[t]
        parent[t, root] = -1
        parent_edge[t, root] = -1
        ps[t, root] = 1
        order[t, 0] = root
        tail = 1
        head = 0
        while head < tail:
            u = order[t, head]
            head += 1
            lo = 0 if u == 0 else st[u - 1]
            for j in range(lo, st[u]):
                v = nbr[t, j]
                if parent[t, v] == -2:
                    parent[t, v] = u
                    parent_edge[t, v] = eid[t, j]
                    ps[t, v] = ps[t, u] * sign[eid[t, j]]
                    order[t, tail] = v
                    tail += 1
        reached[t] = tail


@gpu_kernel(layout="block")
def _k_root_signs(indptr, indices, slot_edge, in_tree, sign, roots, parent, parent_edge, queue, ps,
                  reached):
    """Block per tree: its tree rooted level by level, the threads over a level's vertices.

    A level's vertices scan their CSR rows for tree edges to vertices not
    yet reached: in a tree each such vertex has exactly one neighbour in
    the level (its parent), so one thread writes its parent, edge and
    path sign (``ps[v] = ps[parent] * sign[edge]``) and no two race.  The
    level's slots in ``queue`` are taken with an atomic counter, so the
    queue's order within a level is the scheduler's; parent, edge and sign
    are the tree's alone (the CPU's, bit for bit).  ``reached`` gets the
    count of vertices the tree reached.
    """
    t = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    n = parent.shape[1]
    ctr = cuda.shared.array(3, int32)  # level start, level end, next level's count
    if t >= parent.shape[0]:
        return
    for v in range(tid, n, step):
        parent[t, v] = -2
    cuda.syncthreads()
    if tid == 0:
        r = roots[t]
        parent[t, r] = -1
        parent_edge[t, r] = -1
        ps[t, r] = 1
        queue[t, 0] = r
        ctr[0] = 0
        ctr[1] = 1
        ctr[2] = 0
    cuda.syncthreads()
    while True:
        lo = ctr[0]
        hi = ctr[1]
        if lo == hi:
            break
        for i in range(lo + tid, hi, step):
            u = queue[t, i]
            for j in range(indptr[u], indptr[u + 1]):
                e = slot_edge[j]
                if in_tree[t, e]:
                    v = indices[j]
                    if parent[t, v] == -2:
                        parent[t, v] = u
                        parent_edge[t, v] = e
                        ps[t, v] = ps[t, u] * sign[e]
                        queue[t, hi + cuda.atomic.add(ctr, 2, 1)] = v
        cuda.syncthreads()
        if tid == 0:
            ctr[0] = hi
            ctr[1] = hi + ctr[2]
            ctr[2] = 0
        cuda.syncthreads()
    if tid == 0:
        reached[t] = hi


#: threads of a :func:`_k_root_signs` block: a level's vertices, one a thread
ROOT_THREADS = 256


def boruvka_trees(graph, seeds, shift, roots, *, with_order: bool = True):
    """Each tree's random-weight MST, rooted at ``roots``, built and rooted on the device.

    Returns ``(parent, parent_edge, order)`` (device arrays of shape (T, n),
    int32, as ``_samplers._root_tree_edges`` makes them; ``order`` None when
    ``with_order=False``), the path signs (device, int8, as ``path_signs``
    makes them) and the number of vertices each tree reached (host).  Two
    launches a batch (every Borůvka round in one, the rooting in the other)
    and one host read, of the reached counts.  The rooting is a thread per
    tree when the CPU's visiting order is wanted (it is a sequential walk),
    else a block per tree, level by level (:func:`_k_root_signs`).
    """
    g = graph.device_arrays()
    xp = array_module("gpu")
    T, n, m = len(seeds), graph.n, graph.m
    seeds_d = device_array(np.asarray(seeds, dtype=np.int64))
    comp = xp.empty((T, n), dtype=np.int64)
    ptr = xp.empty_like(comp)
    best = xp.empty((T, n), dtype=np.uint64)
    in_tree = xp.zeros((T, m), dtype=np.int8)
    # numba's views, once for the batch: the launches below convert nothing
    es, ed, it = map(kernel_view, (g["edge_src"], g["edge_dst"], in_tree))
    _k_boruvka[max(T, 1), boruvka_threads(m)](es, ed, seeds_d, np.uint64(shift),
                                               np.uint64((1 << shift) - 1), comp, ptr, best, it)
    del comp, ptr, best
    parent = xp.empty((T, n), dtype=np.int32)
    parent_edge = xp.empty((T, n), dtype=np.int32)
    order = xp.empty((T, n), dtype=np.int32)
    reached = xp.zeros(T, dtype=np.int64)
    ps = xp.empty((T, n), dtype=np.int8)
    roots_d = device_array(np.asarray(roots, np.int64))
    if with_order:
        start = xp.empty((T, n + 1), dtype=np.int32)
        nbr = xp.empty((T, max(2 * n, 1)), dtype=np.int32)
        eid = xp.empty((T, max(2 * n, 1)), dtype=np.int32)
        b, t = launch_config(T, 64)
        _k_root_trees[b, t](it, es, ed, g["sign"], roots_d, start, nbr, eid, parent, parent_edge,
                            order, ps, reached)
    else:
        _k_root_signs[max(T, 1), root_threads()](g["indptr"], g["indices"], g["slot_edge"], it,
                                                  g["sign"], roots_d, parent, parent_edge, order,
                                                  ps, reached)
        order = None
    return parent, parent_edge, order, ps, host_read(reached)


def boruvka_threads(m: int) -> int:
    """Threads of a :func:`_k_boruvka` block: a warp multiple covering the edges, up to
    ``_BV_THREADS`` (tiny graphs leave no thread idle)."""
    return min(_BV_THREADS, 32 * max(1, -(-m // 32)))


def root_threads() -> int:
    """Threads of a :func:`_k_root_signs` block: :data:`ROOT_THREADS` on a GPU, 8 under the
    simulator (which runs each thread as a Python thread)."""
    from ..backend import simulator_enabled

    return 8 if simulator_enabled() else ROOT_THREADS


# ---------------------------------------------------------------------------
# refinement: all moves at once
# ---------------------------------------------------------------------------

@gpu_kernel
def _k_gains(indptr, idx, J, x, d):
    v = cuda.grid(1)
    if v < x.size:
        acc = 0
        for k in range(indptr[v], indptr[v + 1]):
            acc -= J[k] * x[v] * x[idx[k]]
        d[v] = acc


@gpu_kernel
def _k_select(indptr, idx, d, seed, flip, moved):
    v = cuda.grid(1)
    if v < d.size:
        win = d[v] > 0
        if win:
            pv = _move_priority(d[v], v, seed)
            for k in range(indptr[v], indptr[v + 1]):
                u = idx[k]
                if d[u] > 0:
                    pu = _move_priority(d[u], u, seed)
                    if pu > pv or (pu == pv and u > v):
                        win = False
                        break
        flip[v] = 1 if win else 0
        if win:
            moved[0] = 1  # only tested against zero: a plain store, not a contended atomic


@gpu_kernel
def _k_apply(x, flip):
    v = cuda.grid(1)
    if v < x.size and flip[v]:
        x[v] = -x[v]


def vertex_gains_gpu(graph, x, J):
    g = graph.device_arrays()
    xp = array_module("gpu")
    xd = device_array(x, np.int8)
    d = xp.zeros(graph.n, dtype=np.int64)
    b, t = launch_config(graph.n)
    _k_gains[b, t](g["indptr"], g["indices"], device_array(J, np.int64), xd, d)
    return to_host(d)


def parallel_descent_gpu(graph, x, seed, max_rounds, deadline=math.inf):
    """GPU twin of :func:`._refine.parallel_descent` (rounds end at ``deadline`` too)."""
    from .._deadline import passed

    g = graph.device_arrays()
    xp = array_module("gpu")
    J = device_array(graph.sign[graph.slot_edge].astype(np.int64))
    xd = device_array(x, np.int8)
    d = xp.zeros(graph.n, dtype=np.int64)
    flip = xp.zeros(graph.n, dtype=np.int8)
    moved = xp.zeros(1, dtype=np.int64)
    # numba's views, once for all rounds: a round's launches convert nothing
    ip, ix, Jv, xv, dv, fv, mv = map(kernel_view, (g["indptr"], g["indices"], J, xd, d, flip, moved))
    b, t = launch_config(graph.n)
    rounds = 0
    while rounds < max_rounds and not passed(deadline):
        moved[:] = 0
        _k_gains[b, t](ip, ix, Jv, xv, dv)
        _k_select[b, t](ip, ix, dv, np.uint64(seed), fv, mv)
        if int(host_read(moved)[0]) == 0:
            break
        _k_apply[b, t](xv, fv)
        rounds += 1
    return to_host(xd).astype(np.int8), rounds
