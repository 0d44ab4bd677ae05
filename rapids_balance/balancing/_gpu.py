"""numba-cuda kernels of the balancing engine (CuPy arrays; numpy under the simulator).

Level-synchronous as in graphB+ and ECL-SGB, but over a whole batch of trees
per launch: a frontier entry is a (tree, vertex) pair and each is served by
one warp whose lanes stride over the vertex's neighbours.  Every result is
an argmax, an integer sum or a pointer-jumping fixpoint, so it does not
depend on scheduling and equals the CPU path bit for bit.

Imported only when ``backend="gpu"``.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import cuda

from ..backend import array_module, launch_config, simulator_enabled, to_device
from ._trees import parent_key

WARP = 32


def dev(a, dtype=None):
    """``a`` on the device; a writable array under the simulator (see graph_arrays)."""
    xp = array_module("gpu")
    out = xp.asarray(a, dtype=dtype)
    if simulator_enabled() and not out.flags.writeable:
        out = out.copy()
    return out


def graph_arrays(graph) -> dict:
    """The graph's device arrays.  Under the simulator, writable copies: the
    simulator copies every kernel argument back and rejects read-only arrays."""
    d = graph.device_arrays()
    if simulator_enabled():
        d = {k: np.array(v) for k, v in d.items()}
    return d


# ---------------------------------------------------------------------------
# device helpers: scalar-only bodies are plain njit (shared with the CPU and
# callable under the simulator); helpers taking arrays are cuda device
# functions, because simulated kernels see wrapped arrays numba cannot unbox
# ---------------------------------------------------------------------------

@numba.njit(cache=True)
def _candidate(u, v, level, s2):
    """uint64 ordering key of parent candidate u: (biased parent_key, u + 1)."""
    k = np.uint64(parent_key(u, v, level, s2) + 2147483648)
    return (k << np.uint64(32)) | np.uint64(u + 1)


@numba.njit(cache=True)
def _candidate_vertex(key):
    return np.int64(key & np.uint64(0xFFFFFFFF)) - 1


@cuda.jit(device=True)
def _find_slot(indptr, indices, u, v):
    """CSR slot of neighbour v in u's (sorted) row; -1 if absent."""
    lo = indptr[u]
    hi = indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    if lo < indptr[u + 1] and indices[lo] == v:
        return lo
    return -1


# ---------------------------------------------------------------------------
# BFS trees
# ---------------------------------------------------------------------------

@cuda.jit
def _k_expand(indptr, indices, front_t, front_v, level, s2s, depth, best):
    """Warp per frontier (tree, vertex): offer u as parent to unvisited neighbours."""
    tid = cuda.grid(1)
    w = tid // WARP
    lane = tid % WARP
    if w < front_t.size:
        t = front_t[w]
        u = front_v[w]
        s2 = s2s[t]
        for j in range(indptr[u] + lane, indptr[u + 1], WARP):
            v = indices[j]
            if depth[t, v] == -1:
                cuda.atomic.max(best, (t, v), _candidate(u, v, level, s2))


@cuda.jit
def _k_settle(indptr, indices, slot_edge, sign, level, depth, best, parent, parent_edge, ps, count):
    """Thread per (tree, vertex): a vertex offered a parent joins level + 1.

    Its path sign follows from its parent's, final one level up (ECL-SGB's
    level-by-level labeling, fused into the BFS).
    """
    i = cuda.grid(1)
    n = depth.shape[1]
    if i < depth.shape[0] * n:
        t = i // n
        v = i - t * n
        if depth[t, v] == -1 and best[t, v] != 0:
            u = _candidate_vertex(best[t, v])
            e = slot_edge[_find_slot(indptr, indices, v, u)]
            depth[t, v] = level + 1
            parent[t, v] = u
            parent_edge[t, v] = e
            ps[t, v] = ps[t, u] * sign[e]
            cuda.atomic.add(count, 0, 1)


def bfs_trees_gpu(graph, roots, s2, *, with_order: bool = True, with_ps: bool = False):
    """GPU version of :func:`rapids_balance.balancing._trees.bfs_trees`.

    Returns ``(parent, parent_edge, order)``, with ``order`` None when
    ``with_order=False`` (it costs a sort) and the path signs appended when
    ``with_ps=True``.
    """
    xp = array_module("gpu")
    d = graph_arrays(graph)
    T, n = int(roots.size), graph.n
    rows = xp.arange(T)
    roots_d = to_device(roots, "gpu")
    s2_d = to_device(s2, "gpu")
    depth = xp.full((T, n), -1, dtype=np.int32)
    parent = xp.full((T, n), -1, dtype=np.int32)
    parent_edge = xp.full((T, n), -1, dtype=np.int32)
    ps = xp.ones((T, n), dtype=np.int8)
    best = xp.zeros((T, n), dtype=np.uint64)
    depth[rows, roots_d] = 0
    front_t, front_v = rows.astype(np.int32), roots_d.astype(np.int32)
    count = xp.zeros(1, dtype=np.int64)
    sign = d["sign"] if "sign" in d else xp.ones(max(graph.m, 1), dtype=np.int8)  # unsigned: all +1
    level = 0
    while front_t.size:
        blocks, threads = launch_config(front_t.size * WARP, 128)
        _k_expand[blocks, threads](d["indptr"], d["indices"], front_t, front_v, level, s2_d, depth, best)
        count[0] = 0
        blocks, threads = launch_config(T * n)
        _k_settle[blocks, threads](d["indptr"], d["indices"], d["slot_edge"], sign, level, depth,
                                   best, parent, parent_edge, ps, count)
        level += 1
        if int(count[0]) == 0:
            break
        # next frontier in (tree, vertex id) order
        ft, fv = xp.nonzero(depth == level)
        front_t, front_v = ft.astype(np.int32), fv.astype(np.int32)
    if bool((depth < 0).any()):
        from ._trees import _check_connected

        _check_connected(np.asarray((depth >= 0).sum(axis=1).tolist()), n)
    order = None
    if with_order:
        key = depth.astype(np.int64) * n + xp.arange(n, dtype=np.int64)[None, :]
        order = xp.argsort(key, axis=1).astype(np.int32)
    return (parent, parent_edge, order, ps) if with_ps else (parent, parent_edge, order)


# ---------------------------------------------------------------------------
# path signs by pointer jumping
# ---------------------------------------------------------------------------

@cuda.jit
def _k_ps_init(parent_edge, sign, ps):
    i = cuda.grid(1)
    n = ps.shape[1]
    if i < ps.shape[0] * n:
        t = i // n
        v = i - t * n
        e = parent_edge[t, v]
        ps[t, v] = 1 if e < 0 else sign[e]


@cuda.jit
def _k_ps_jump(anc, ps, anc_out, ps_out, active):
    """ps[v] *= ps[anc[v]]; anc[v] = anc[anc[v]] (double-buffered)."""
    i = cuda.grid(1)
    n = ps.shape[1]
    if i < ps.shape[0] * n:
        t = i // n
        v = i - t * n
        a = anc[t, v]
        if a >= 0:
            ps_out[t, v] = ps[t, v] * ps[t, a]
            aa = anc[t, a]
            anc_out[t, v] = aa
            if aa >= 0:
                active[0] = 1
        else:
            ps_out[t, v] = ps[t, v]
            anc_out[t, v] = -1


def path_signs_gpu(order, parent, parent_edge, sign):
    """GPU version of :func:`rapids_balance.balancing._trees.path_signs`."""
    xp = array_module("gpu")
    parent = dev(parent, np.int32)
    parent_edge = dev(parent_edge, np.int32)
    if parent.ndim == 1:
        parent, parent_edge = parent[None, :], parent_edge[None, :]
    sign = dev(sign, np.int8)
    T, n = parent.shape
    ps = xp.empty((T, n), dtype=np.int8)
    blocks, threads = launch_config(T * n)
    _k_ps_init[blocks, threads](parent_edge, sign, ps)
    anc = parent.copy()
    ps2 = xp.empty_like(ps)
    anc2 = xp.empty_like(anc)
    active = xp.zeros(1, dtype=np.int32)
    while True:
        active[0] = 0
        _k_ps_jump[blocks, threads](anc, ps, anc2, ps2, active)
        anc, anc2 = anc2, anc
        ps, ps2 = ps2, ps
        if int(active[0]) == 0:
            break
    return ps


# ---------------------------------------------------------------------------
# graphB+ cycle walks (method="cycle")
#
# The labels are graphB+'s (subtree sizes, pre-order ranges with children in
# id order, as on the CPU), computed per (tree, vertex) thread by walking up
# the ancestors rather than level by level: O(n * depth) work, no level
# bookkeeping, and the same integers.  The walk itself is one thread per
# (tree, edge).
# ---------------------------------------------------------------------------

@cuda.jit
def _k_subtree_sizes(parent, size):
    """Thread per (tree, vertex): add 1 to every ancestor (integer atomics)."""
    i = cuda.grid(1)
    n = parent.shape[1]
    if i < parent.shape[0] * n:
        t = i // n
        a = i - t * n
        while a >= 0:
            cuda.atomic.add(size, (t, a), 1)
            a = parent[t, a]


@cuda.jit
def _k_sibling_offsets(indptr, indices, parent, size, offset):
    """offset[v] = 1 + sizes of v's smaller-id siblings: v's label minus its parent's."""
    i = cuda.grid(1)
    n = parent.shape[1]
    if i < parent.shape[0] * n:
        t = i // n
        v = i - t * n
        p = parent[t, v]
        if p < 0:
            offset[t, v] = 0
        else:
            acc = 1
            for j in range(indptr[p], indptr[p + 1]):
                w = indices[j]
                if w >= v:
                    break
                if parent[t, w] == p:
                    acc += size[t, w]
            offset[t, v] = acc


@cuda.jit
def _k_labels(parent, offset, label):
    """Pre-order label = sum of offsets up to the root."""
    i = cuda.grid(1)
    n = parent.shape[1]
    if i < parent.shape[0] * n:
        t = i // n
        a = i - t * n
        acc = 0
        while a >= 0:
            acc += offset[t, a]
            a = parent[t, a]
        label[t, i - t * n] = acc


@cuda.jit
def _k_cycle_walk(indptr, indices, edge_src, edge_dst, sign, parent, parent_edge, size, label, bal):
    """Thread per (tree, edge): walk a fundamental cycle, flip the edge if negative."""
    i = cuda.grid(1)
    m = edge_src.size
    if i < parent.shape[0] * m:
        t = i // m
        e = i - t * m
        u = edge_src[e]
        w = edge_dst[e]
        if parent_edge[t, u] == e or parent_edge[t, w] == e:
            bal[t, e] = sign[e]
            return
        target = label[t, u]
        curr = w
        odd = 0
        while curr != u:
            lo = label[t, curr]
            if lo < target and target < lo + size[t, curr]:
                down = -1
                for j in range(indptr[curr], indptr[curr + 1]):
                    c = indices[j]
                    if parent[t, c] == curr and label[t, c] <= target < label[t, c] + size[t, c]:
                        down = c
                        break
                if sign[parent_edge[t, down]] < 0:
                    odd ^= 1
                curr = down
            else:
                if sign[parent_edge[t, curr]] < 0:
                    odd ^= 1
                curr = parent[t, curr]
        if (sign[e] < 0) != (odd == 1):
            bal[t, e] = -sign[e]
        else:
            bal[t, e] = sign[e]


def cycle_balance_gpu(graph, d, parent, parent_edge):
    """Balanced sign of every edge, per tree, by graphB+ cycle walks: int8 (T, m)."""
    xp = array_module("gpu")
    T, n = parent.shape
    size = xp.zeros((T, n), dtype=np.int32)
    offset = xp.empty((T, n), dtype=np.int32)
    label = xp.empty((T, n), dtype=np.int32)
    blocks, threads = launch_config(T * n)
    _k_subtree_sizes[blocks, threads](parent, size)
    _k_sibling_offsets[blocks, threads](d["indptr"], d["indices"], parent, size, offset)
    _k_labels[blocks, threads](parent, offset, label)
    bal = xp.empty((T, graph.m), dtype=np.int8)
    blocks, threads = launch_config(T * graph.m)
    _k_cycle_walk[blocks, threads](d["indptr"], d["indices"], d["edge_src"], d["edge_dst"], d["sign"],
                                   parent, parent_edge, size, label, bal)
    return bal


# ---------------------------------------------------------------------------
# majority: components of positive balanced edges (hook and compress)
# ---------------------------------------------------------------------------

@cuda.jit(device=True)
def _root(comp, t, x):
    while comp[t, x] != x:
        x = comp[t, x]
    return x


@cuda.jit
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


@cuda.jit
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
    while True:
        changed[0] = 0
        _k_cc_hook[blocks_e, threads_e](d["edge_src"], d["edge_dst"], side, comp, changed)
        if int(changed[0]) == 0:
            break
    count = xp.zeros((T, n), dtype=np.int32)
    blocks, threads = launch_config(T * n)
    _k_cc_compress[blocks, threads](comp, count)
    best = xp.argmax(count, axis=1)  # first maximum: the smallest root id
    return side[xp.arange(T), best].astype(np.int8)


# ---------------------------------------------------------------------------
# counters
# ---------------------------------------------------------------------------

@cuda.jit
def _k_edge_counters(edge_src, edge_dst, sign, side, parent_edge, bal, use_cycle, maj,
                     in_tree, negative, switched, agree2):
    """Thread per edge, looping over the batch's trees (each edge owns its counters)."""
    e = cuda.grid(1)
    if e < edge_src.size:
        u = edge_src[e]
        w = edge_dst[e]
        it = 0
        ng = 0
        ag = 0
        for t in range(maj.size):
            if parent_edge[t, u] == e or parent_edge[t, w] == e:
                it += 1
            a = side[t, u]
            mt = maj[t]
            same = a == side[t, w]
            if use_cycle:
                neg = bal[t, e] < 0
            else:
                neg = not same
            if neg:
                ng += 1
            if same:
                if a == mt:
                    ag += 2
                elif mt == 2:
                    ag += 1
        in_tree[e] += it
        negative[e] += ng
        if sign[e] < 0:
            switched[e] += maj.size - ng
        else:
            switched[e] += ng
        agree2[e] += ag


@cuda.jit
def _k_vertex_counters(indptr, indices, side, maj, status2, clean):
    """Thread per vertex, looping over the batch's trees."""
    v = cuda.grid(1)
    if v < indptr.size - 1:
        st = 0
        cl = 0
        for t in range(maj.size):
            sv = side[t, v]
            mt = maj[t]
            if sv == mt:
                st += 2
            elif mt == 2:
                st += 1
            ok = 1
            for j in range(indptr[v], indptr[v + 1]):
                if side[t, indices[j]] != sv:
                    ok = 0
                    break
            cl += ok
        status2[v] += st
        clean[v] += cl


def batch_counters_gpu(graph, roots, s2, params):
    """One batch of trees on the GPU -> (host int64 counters, reached per tree)."""
    from ._result import EDGE_COUNTERS, VERTEX_COUNTERS

    xp = array_module("gpu")
    d = graph_arrays(graph)
    n, m, T = graph.n, graph.m, int(roots.size)
    parent, parent_edge, _, ps = bfs_trees_gpu(graph, roots, s2, with_order=False, with_ps=True)
    side = (ps < 0).astype(np.int8)
    use_cycle = params.method == "cycle"
    bal = cycle_balance_gpu(graph, d, parent, parent_edge) if use_cycle else xp.zeros((T, 1), np.int8)
    if params.majority == "agreeable":
        maj = agreeable_sides_gpu(d, side)
    else:
        ones = side.sum(axis=1, dtype=np.int64)
        maj = xp.where(2 * ones < n, 0, xp.where(2 * ones > n, 1, 2)).astype(np.int8)
    c = {k: xp.zeros(m, dtype=np.int64) for k in EDGE_COUNTERS}
    c.update({k: xp.zeros(n, dtype=np.int64) for k in VERTEX_COUNTERS})
    blocks, threads = launch_config(m)
    _k_edge_counters[blocks, threads](d["edge_src"], d["edge_dst"], d["sign"], side, parent_edge, bal,
                                      use_cycle, maj, c["in_tree"], c["negative"], c["switched"],
                                      c["agree2"])
    blocks, threads = launch_config(n)
    _k_vertex_counters[blocks, threads](d["indptr"], d["indices"], side, maj, c["status2"], c["clean"])
    out = {k: np.asarray(v.get() if hasattr(v, "get") else v, dtype=np.int64) for k, v in c.items()}
    out["trees"] = np.array([T], np.int64)
    out["ties"] = np.array([int((maj == 2).sum())], np.int64)
    return out, np.full(T, n, np.int64)
