"""GPU kernels of weighted Brandes betweenness (numba-cuda).

Coarse grain: one thread block per chunk of sources, many blocks in flight,
each with its own O(n + m) workspace row and accumulator row.  Fine grain:
inside a block the paper's level-synchronous Dijkstra (PeerJ CS 2017,
Algorithms 4-6) with work-efficient queues and virtual warps:

1. relax the newest level (a queue): virtual warp per vertex, its lanes
   stride over the CSR row; ``atomicMin`` on the tentative distance and
   first-touch candidates appended to a queue;
2. ``bound`` = min over candidates ``c`` of ``d[c] + minw[c]`` (``minw`` =
   shortest out-edge of ``c``); every candidate with ``d[c] < bound`` (strictly)
   is final, and so are the path counts of its predecessors, which all sit
   in earlier levels (when rounding leaves no candidate below the bound,
   the least ``(d, id)`` alone is settled, as a heap would);
3. the settled candidates form the next level; their path counts are
   *pulled* from settled in-neighbours (no locks, no races: the paper's
   lock per vertex is not needed when counts are pulled rather than pushed);
4. phase 2 walks the levels from the deepest, each vertex pulling its
   dependency from its successors, lanes summing strided partials which lane
   0 adds in lane order.

Every floating-point sum has an order fixed by the data and the virtual
warp width, so a run is bit-reproducible; it agrees with the CPU kernel to
rounding (the CPU sums a CSR row in one sequence, a virtual warp in ``vw``
interleaved ones).  Distances are bit-identical to the CPU's (same
``d[u] + w`` additions, min is exact).
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64, int32

from ..backend import gpu_kernel
from ._cpu import sum_rows_column

# the CPU kernel's body compiled as a device function (the simulator cannot
# pass its arrays into an njit function, so share the Python source instead)
_sum_rows_column = cuda.jit(device=True)(sum_rows_column.py_func)

MAX_THREADS = 256  # size of the per-block shared reduction buffer


@cuda.jit(device=True)
def _block_min(red, tid, nthreads):
    # tree reduction over a power-of-two block; red[0] holds the minimum
    step = nthreads // 2
    while step > 0:
        if tid < step:
            o = red[tid + step]
            if o < red[tid]:
                red[tid] = o
        cuda.syncthreads()
        step //= 2


@cuda.jit(device=True)
def _block_min_of(red, value, tid, nthreads):
    """The minimum of every thread's ``value``; ``red`` is free again on return."""
    red[tid] = value
    cuda.syncthreads()
    _block_min(red, tid, nthreads)
    out = red[0]
    cuda.syncthreads()
    return out


@cuda.jit(device=True)
def _settle_heap_minimum(d, st, stk, start, lev, cur, nxt, ncand, ctr, red, tid, nthreads):
    """Settle the one candidate a heap would pop next: least (distance, id).

    Needed when no candidate clears the bound: ``d[c] + minw[c]`` rounds back
    to ``d[c]`` when an edge is shorter than the last bit of the distance
    (lengths spanning more than 2**53).  Without it the level would be empty,
    the loop would never end and ``ends`` would overflow.  The caller calls
    it with every thread (``ctr[3] == 0`` is read by all after a barrier).
    """
    lm = math.inf
    for i in range(tid, ncand, nthreads):
        x = d[cur[i]]
        if x < lm:
            lm = x
    dmin = _block_min_of(red, lm, tid, nthreads)
    lm = math.inf
    for i in range(tid, ncand, nthreads):
        c = cur[i]
        if d[c] == dmin and c < lm:
            lm = c
    pick = int32(_block_min_of(red, lm, tid, nthreads))
    if tid == 0:
        ctr[4] = 0
    cuda.syncthreads()
    for i in range(tid, ncand, nthreads):
        c = cur[i]
        if c == pick:
            st[c] = 2 + lev
            stk[start] = c
        else:
            q = cuda.atomic.add(ctr, 4, 1)
            nxt[q] = c
    cuda.syncthreads()
    if tid == 0:
        ctr[3] = 1
    cuda.syncthreads()


@cuda.jit(device=True)
def _dag_in_degree(v, d, st, rindptr, rindices, rwslot):
    """Number of shortest-path predecessors of ``v`` (settled in an earlier level)."""
    cnt = 0
    dv = d[v]
    for j in range(rindptr[v], rindptr[v + 1]):
        u = rindices[j]
        if st[u] >= 2 and st[u] < st[v] and d[u] + rwslot[j] == dv:
            cnt += 1
    return cnt


@gpu_kernel
def _bc_kernel(sources, chunk, n, indptr, indices, wslot, slot_edge,
               rindptr, rindices, rwslot, minw, endpoints, want_edges, tmask, vw,
               dist, sigma, delta, state, stack, ends, cand0, cand1,
               node_rows, edge_rows):
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nthreads = cuda.blockDim.x
    group = tid // vw
    lane = tid - group * vw
    ngroups = nthreads // vw
    # ctr: 0 settled count, 1 levels, 2 candidates, 3 newly settled, 4 kept
    # st[v]: 0 unreached, 1 candidate, 2 + level once settled
    ctr = cuda.shared.array(8, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    d = dist[b]
    sg = sigma[b]
    de = delta[b]
    st = state[b]
    stk = stack[b]
    eb = ends[b]
    ca = cand0[b]
    cb = cand1[b]
    nacc = node_rows[b]
    eacc = edge_rows[b]
    extra = 1.0 if endpoints else 0.0
    subset = tmask.size > 1  # a one-element mask stands for "every vertex is a target"
    n_src = sources.size
    for si in range(b * chunk, min((b + 1) * chunk, n_src)):
        s = sources[si]
        for v in range(tid, n, nthreads):
            d[v] = math.inf
            sg[v] = 0.0
            de[v] = 0.0
            st[v] = 0
        cuda.syncthreads()
        if tid == 0:
            d[s] = 0.0
            sg[s] = 1.0
            st[s] = 2
            stk[0] = s
            eb[0] = 0
            eb[1] = 1
            ctr[0] = 1
            ctr[1] = 1
            ctr[2] = 0
        cuda.syncthreads()
        parity = 0
        # ---- phase 1: level-synchronous Dijkstra ----
        while True:
            nlev = ctr[1]
            lo = eb[nlev - 1]
            hi = eb[nlev]
            cur = ca if parity == 0 else cb
            nxt = cb if parity == 0 else ca
            for i in range(lo + group, hi, ngroups):
                v = stk[i]
                dv = d[v]
                for j in range(indptr[v] + lane, indptr[v + 1], vw):
                    w = indices[j]
                    if st[w] < 2:
                        cuda.atomic.min(d, w, dv + wslot[j])
                        if cuda.atomic.max(st, w, 1) == 0:
                            p = cuda.atomic.add(ctr, 2, 1)
                            cur[p] = w
            cuda.syncthreads()
            ncand = ctr[2]
            if ncand == 0:
                break
            lm = math.inf
            for i in range(tid, ncand, nthreads):
                c = cur[i]
                x = d[c] + minw[c]
                if x < lm:
                    lm = x
            bound = _block_min_of(red, lm, tid, nthreads)
            start = ctr[0]
            if tid == 0:
                ctr[3] = 0
                ctr[4] = 0
            cuda.syncthreads()
            for i in range(tid, ncand, nthreads):
                c = cur[i]
                if d[c] < bound:
                    st[c] = 2 + nlev
                    p = cuda.atomic.add(ctr, 3, 1)
                    stk[start + p] = c
                else:
                    q = cuda.atomic.add(ctr, 4, 1)
                    nxt[q] = c
            cuda.syncthreads()
            if ctr[3] == 0:
                _settle_heap_minimum(d, st, stk, start, nlev, cur, nxt, ncand, ctr, red, tid,
                                     nthreads)
            end = start + ctr[3]
            for base in range(start, end, ngroups):
                i = base + group
                acc = 0.0
                if i < end:
                    w = stk[i]
                    dw = d[w]
                    for j in range(rindptr[w] + lane, rindptr[w + 1], vw):
                        u = rindices[j]
                        if st[u] >= 2 and d[u] + rwslot[j] == dw:
                            acc += sg[u]
                red[tid] = acc
                cuda.syncthreads()
                if lane == 0 and i < end:
                    t = 0.0
                    for k in range(vw):
                        t += red[tid + k]
                    sg[stk[i]] = t
                cuda.syncthreads()
            if tid == 0:
                ctr[0] = end
                ctr[1] = nlev + 1
                eb[nlev + 1] = end
                ctr[2] = ctr[4]
            parity = 1 - parity
            cuda.syncthreads()
        # ---- phase 2: dependencies, deepest level first ----
        nlev = ctr[1]
        for lev in range(nlev - 1, -1, -1):
            lo = eb[lev]
            hi = eb[lev + 1]
            for base in range(lo, hi, ngroups):
                i = base + group
                acc = 0.0
                if i < hi:
                    w = stk[i]
                    dw = d[w]
                    sw = sg[w]
                    for j in range(indptr[w] + lane, indptr[w + 1], vw):
                        v = indices[j]
                        # v settled in a later level: with rounding (see
                        # _settle_heap_minimum) d[v] == d[w] + w can hold both
                        # ways, and only the edge into the later one is a DAG edge
                        if d[v] == dw + wslot[j] and st[v] > st[w]:
                            is_t = (not subset) or (tmask[v] != 0 and v != s)
                            if subset and want_edges and not is_t:
                                # networkx's edge-subset rule: a non-target
                                # splits its dependency evenly among its
                                # predecessors
                                c = de[v] / _dag_in_degree(v, d, st, rindptr, rindices, rwslot)
                            else:
                                c = sw / sg[v] * ((1.0 if is_t else 0.0) + de[v])
                            acc += c
                            if want_edges:
                                # each edge is a tree edge of one direction
                                # at most, so no two lanes share a slot
                                eacc[slot_edge[j]] += c
                red[tid] = acc
                cuda.syncthreads()
                if lane == 0 and i < hi:
                    t = 0.0
                    for k in range(vw):
                        t += red[tid + k]
                    w = stk[i]
                    de[w] = t
                    if w != s:
                        nacc[w] += t + extra
                cuda.syncthreads()
        if tid == 0 and endpoints:
            nacc[s] += ctr[0] - 1
        cuda.syncthreads()


@gpu_kernel
def _sum_rows_kernel(rows, out):
    j = cuda.grid(1)
    if j < out.size:
        _sum_rows_column(rows, out, j)


def virtual_warp_width(n: int, n_slots: int) -> int:
    """Virtual warp width from the degree distribution.

    Half the mean degree rounded up to a power of two, clipped to [4, 32]:
    on Table 2 of the paper this picks the best or within 3 % of the best
    width on every network (warp4 for the degree-3 Twitter graphs, 16-32 for
    the dense gene networks), and wider warps only idle lanes on sparse rows.
    """
    mean = n_slots / max(n, 1)
    target = max(1, math.ceil(mean / 2))
    w = 1 << (target - 1).bit_length()
    return int(min(32, max(4, w)))


def bc_batch_gpu(g, sources: np.ndarray, chunk: int, endpoints: bool, want_edges: bool,
                 vw: int, threads: int, tmask: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalised node/edge dependencies of ``sources`` on the GPU.

    ``tmask`` (int8 per vertex, or ``None`` for all) marks the targets, as
    in the CPU kernel's ``_accumulate``.

    ``g`` is a prepared :class:`~rapids_balance.centrality._prepare.BCGraph`.
    Chunk ``c`` of ``chunk`` sources runs in block ``c``; rows are summed
    in block order on the device.
    """
    from ..backend import array_module, launch_config, to_device, to_host

    if threads > MAX_THREADS or threads & (threads - 1) or threads % vw:
        raise ValueError(f"threads={threads} must be a power of two <= {MAX_THREADS} "
                         f"and a multiple of the virtual warp width {vw}")
    dev = g.device()
    n, m = g.n, g.m
    n_chunks = (sources.size + chunk - 1) // chunk
    src = to_device(np.ascontiguousarray(sources, dtype=np.int32), "gpu")
    mask = np.zeros(1, np.int8) if tmask is None or tmask.size == 0 else tmask
    dmask = to_device(np.ascontiguousarray(mask, dtype=np.int8), "gpu")
    xp = array_module("gpu")
    f64 = lambda cols: xp.zeros((n_chunks, cols), dtype=np.float64)  # noqa: E731
    i32 = lambda cols: xp.zeros((n_chunks, cols), dtype=np.int32)  # noqa: E731
    node_rows = f64(n)
    edge_rows = f64(m if want_edges else 1)
    _bc_kernel[n_chunks, threads](
        src, chunk, n, dev["indptr"], dev["indices"], dev["wslot"], dev["slot_edge"],
        dev["rindptr"], dev["rindices"], dev["rwslot"], dev["minw"],
        bool(endpoints), bool(want_edges), dmask, vw,
        f64(n), f64(n), f64(n), i32(n), i32(n), i32(n + 1), i32(n), i32(n),
        node_rows, edge_rows)
    node = xp.zeros(n, dtype=np.float64)
    _sum_rows_kernel[launch_config(n)](node_rows, node)
    edge = xp.zeros(m if want_edges else 0, dtype=np.float64)
    if want_edges:
        _sum_rows_kernel[launch_config(m)](edge_rows, edge)
    cuda.synchronize()
    return to_host(node), to_host(edge)


