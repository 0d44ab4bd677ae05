"""Weighted Brandes betweenness with each source over several thread blocks (numba-cuda).

The block-per-source kernel (:func:`._gpu._bc_kernel`) keeps a source in one
thread block: a level's counters sit in shared memory and block barriers
separate its steps.  That fills the GPU only when device memory holds a few
hundred sources' O(n) workspace rows.  On large graphs it holds far fewer
(at 10**8 edges on an 80 GiB H100: fewer than 4 x 132 above about
3.3 x 10**6 vertices, 71 at 2.4 x 10**7), so there each source of a launch
gets ``k`` blocks (:func:`._gpu.blocks_per_source`) and the steps of a
level are separate launches over every source's blocks, the kernel boundary
being the barrier between blocks:

1. :func:`_k_relax`: the newest level relaxes its out-edges, the source's
   ``k`` blocks striding over the level (virtual warps as in ``_bc_kernel``);
2. :func:`_k_bound`: each block's minimum of ``d[c] + minw[c]`` and of
   ``d[c]`` over its share of the candidates, folded with ``atomicMin``
   (exact, so the order does not matter);
3. :func:`_k_partition`: candidates below the bound settle, the others wait
   in the other queue (when none is below, block 0 alone settles the least
   ``(d, id)``, as ``_settle_heap_minimum`` does);
4. :func:`_k_pull`: the newly settled pull their path counts.

A source's counters live in device memory, in two slots by level parity:
each step reads what the step before wrote, and ``_k_bound``'s block 0
retires the level before (its settled vertices join the stack, its slots
are cleared), so no launch is spent advancing a level.  All sources of a
launch move level by level in lockstep: the host passes the level number,
and reads one record (sources still running, most levels) after 4, then 8,
... up to 64 levels at a time, so its synchronisations grow with
levels / 64 (a finished source's blocks return at once).  Phase 2 is one
launch a level, deepest first.

Every per-vertex sum is one virtual warp's lane-ordered sum over the same
CSR row as in ``_bc_kernel``, and the folds are shared, so the scores are
bit-identical to the block-per-source kernel's whatever ``k``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64, int32

from ..backend import gpu_kernel
from ._gpu import (MAX_THREADS, _block_min_of, _level_start, _pull_dependencies, _pull_path_counts,
                   _relax_level, _settle_heap_minimum)

# a source's int32 counters: the settled part of its stack, the newest level's settled
# count (two parity slots), the candidate queue's size (two slots), its levels once done,
# and whether it is done
C_END, C_NEW, C_CAND, C_LEVELS, C_DONE, N_COUNTERS = 0, 1, 3, 5, 6, 8
# its float64 minima (two parity slots each): the settling bound and the least candidate distance
F_BOUND, F_DMIN, N_MINIMA = 0, 2, 4
#: levels between the host's reads of the running count: doubling from the first to the most
LEVELS_FIRST, LEVELS_MOST = 4, 64


@cuda.jit(device=True)
def _block_source(k):
    """(source row, this block's rank among the source's ``k`` blocks)."""
    b = cuda.blockIdx.x
    si = b // k
    return si, b - si * k


@cuda.jit(device=True)
def _running(nsrc, si, ctr, flag):
    """Whether source row ``si`` still runs, read once for the whole block (a finished source's
    flag can change while the block starts, and every thread must take the same branch)."""
    if cuda.threadIdx.x == 0:
        flag[0] = 1 if si < nsrc and ctr[si, C_DONE] == 0 else 0
    cuda.syncthreads()
    return flag[0] != 0


@gpu_kernel(layout="block")
def _k_init(sources, k, n, dist, sigma, state, stack, ctr, minima, run):
    """Every source's row: unreached, but the source, settled as level 0; its counters cleared."""
    si, r = _block_source(k)
    nt = cuda.blockDim.x
    if si < sources.size:
        s = sources[si]
        d = dist[si]
        sg = sigma[si]
        st = state[si]
        for v in range(r * nt + cuda.threadIdx.x, n, k * nt):
            if v == s:
                d[v] = 0.0
                sg[v] = 1.0
                st[v] = 2
                stack[si, 0] = s
                for c in range(N_COUNTERS):
                    ctr[si, c] = 0
                ctr[si, C_NEW] = 1  # level 0 (parity 0) settled the source
                for f in range(N_MINIMA):
                    minima[si, f] = math.inf
                cuda.atomic.add(run, 0, 1)
            else:
                d[v] = math.inf
                sg[v] = 0.0
                st[v] = 0


@gpu_kernel(layout="block")
def _k_relax(sources, k, lev, indptr, indices, wslot, vw, dist, state, stack, delta, ctr):
    """Level ``lev``, step 1: the level before relaxes its out-edges; first touches are queued."""
    flag = cuda.shared.array(1, int32)
    si, r = _block_source(k)
    if not _running(sources.size, si, ctr, flag):
        return
    tid = cuda.threadIdx.x
    group = tid // vw
    ngroups = cuda.blockDim.x // vw
    p = lev & 1
    d = dist[si]
    st = state[si]
    stk = stack[si]
    n = d.size
    q = delta[si].view(np.int32)[p * n:(p + 1) * n]
    lo = ctr[si, C_END]
    hi = lo + ctr[si, C_NEW + 1 - p]
    _relax_level(lo + r * ngroups + group, hi, k * ngroups, d, st, stk, indptr, indices, wslot, vw,
                 ctr, (si, C_CAND + p), q)


@gpu_kernel(layout="block")
def _k_bound(sources, k, lev, minw, dist, delta, ctr, minima, settled, run):
    """Level ``lev``, step 2: the bound and least distance of the candidates; block 0 retires the
    level before, and ends the source when no candidate is left."""
    flag = cuda.shared.array(1, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    si, r = _block_source(k)
    if not _running(sources.size, si, ctr, flag):
        return
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    p = lev & 1
    d = dist[si]
    n = d.size
    q = delta[si].view(np.int32)[p * n:(p + 1) * n]
    ncand = ctr[si, C_CAND + p]
    lb = math.inf
    ld = math.inf
    for i in range(r * nt + tid, ncand, k * nt):
        c = q[i]
        x = d[c]
        y = x + minw[c]
        if y < lb:
            lb = y
        if x < ld:
            ld = x
    lb = _block_min_of(red, lb, tid, nt)
    ld = _block_min_of(red, ld, tid, nt)
    if tid == 0:
        if lb < math.inf:
            cuda.atomic.min(minima, (si, F_BOUND + p), lb)
        if ld < math.inf:
            cuda.atomic.min(minima, (si, F_DMIN + p), ld)
        if r == 0:
            end = ctr[si, C_END] + ctr[si, C_NEW + 1 - p]
            ctr[si, C_END] = end
            ctr[si, C_NEW + 1 - p] = 0
            ctr[si, C_CAND + 1 - p] = 0
            minima[si, F_BOUND + 1 - p] = math.inf
            minima[si, F_DMIN + 1 - p] = math.inf
            if ncand == 0:
                ctr[si, C_LEVELS] = lev
                ctr[si, C_DONE] = 1
                settled[si] = end
                cuda.atomic.add(run, 0, -1)
                cuda.atomic.max(run, 1, int32(lev))


@gpu_kernel(layout="block")
def _k_partition(sources, k, lev, dist, state, stack, delta, ctr, minima):
    """Level ``lev``, step 3: candidates below the bound settle; the others wait in the other queue."""
    flag = cuda.shared.array(1, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    si, r = _block_source(k)
    if not _running(sources.size, si, ctr, flag):
        return
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    p = lev & 1
    d = dist[si]
    st = state[si]
    stk = stack[si]
    n = d.size
    queues = delta[si].view(np.int32)
    q = queues[p * n:(p + 1) * n]
    kept = queues[(1 - p) * n:(2 - p) * n]
    ncand = ctr[si, C_CAND + p]
    bound = minima[si, F_BOUND + p]
    dmin = minima[si, F_DMIN + p]
    end = ctr[si, C_END]
    if dmin < bound:
        for i in range(r * nt + tid, ncand, k * nt):
            c = q[i]
            if d[c] < bound:
                st[c] = 2 + lev
                x = cuda.atomic.add(ctr, (si, C_NEW + p), 1)
                stk[end + x] = c
            else:
                x = cuda.atomic.add(ctr, (si, C_CAND + 1 - p), 1)
                kept[x] = c
    elif r == 0:
        # no candidate clears the bound (lengths below the last bit of a distance): block 0
        # settles the one a heap would pop next, least (distance, id), alone
        _settle_heap_minimum(d, st, stk, end, lev, q, kept, ncand, ctr, (si, C_NEW + p),
                             (si, C_CAND + 1 - p), red, tid, nt)


@gpu_kernel(layout="block")
def _k_pull(sources, k, lev, rindptr, rindices, rwslot, vw, dist, sigma, state, stack, ctr):
    """Level ``lev``, step 4: each newly settled vertex pulls its path count from settled
    in-neighbours (one virtual warp a vertex, lanes summed in order as in ``_bc_kernel``)."""
    flag = cuda.shared.array(1, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    si, r = _block_source(k)
    if not _running(sources.size, si, ctr, flag):
        return
    ngroups = cuda.blockDim.x // vw
    start = ctr[si, C_END]
    end = start + ctr[si, C_NEW + (lev & 1)]
    _pull_path_counts(start + r * ngroups, end, k * ngroups, dist[si], sigma[si], state[si], stack[si],
                      rindptr, rindices, rwslot, red, vw)


@gpu_kernel(layout="block")
def _k_dependencies(sources, k, lev, indptr, indices, wslot, rindptr, rindices, rwslot, want_edges,
                    tmask, vw, dist, sigma, delta, state, stack, ctr, settled):
    """Phase 2 at level ``lev`` (deepest first): each vertex of the level pulls its dependency
    from its successors, as ``_bc_kernel``'s phase 2 does."""
    flag = cuda.shared.array(1, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    si, r = _block_source(k)
    if cuda.threadIdx.x == 0:
        flag[0] = 1 if si < sources.size and lev < ctr[si, C_LEVELS] else 0
    cuda.syncthreads()
    if flag[0] == 0:
        return
    ngroups = cuda.blockDim.x // vw
    st = state[si]
    stk = stack[si]
    total = settled[si]
    lo = _level_start(st, stk, total, lev)
    hi = _level_start(st, stk, total, lev + 1)
    _pull_dependencies(lo + r * ngroups, hi, k * ngroups, sources[si], dist[si], sigma[si], delta[si],
                       st, stk, indptr, indices, wslot, rindptr, rindices, rwslot, tmask,
                       tmask.size > 1, want_edges, red, vw)


def split_sources(v: dict, rows: dict, src, k: int, threads: int, vw: int, want_edges: bool,
                  scratch: dict) -> None:
    """Brandes' two phases for the sources ``src`` (a device view), ``k`` blocks each.

    ``v`` holds the graph's kernel views (``indptr`` ... ``minw``, ``tmask``),
    ``rows`` the batch's workspace rows as :func:`._gpu._bc_kernel` takes
    them, and ``scratch`` the per-source counters (``ctr``, ``minima``:
    at least as many rows as sources) and the two-int ``run`` record (an
    array of the device's array module, read with ``host_read``).
    On return the rows hold what ``_bc_kernel`` leaves in them (distances,
    path counts, dependencies, state, stack order within a level aside, and
    settled counts), ready for the folds.
    """
    from ..backend import host_read, kernel_view

    B = int(src.size)
    grid = (B * k, threads)
    ctr, minima, run = scratch["ctr"], scratch["minima"], scratch["run"]
    run.fill(0)
    run_v = kernel_view(run)
    d, sg, de, st, stk = rows["dist"], rows["sigma"], rows["delta"], rows["state"], rows["stack"]
    settled = rows["settled"]
    n = int(d.shape[1])
    _k_init[grid](src, k, n, d, sg, st, stk, ctr, minima, run_v)
    lev, chunk = 1, LEVELS_FIRST
    while True:
        for _ in range(chunk):
            _k_relax[grid](src, k, lev, v["indptr"], v["indices"], v["wslot"], vw, d, st, stk, de,
                           ctr)
            _k_bound[grid](src, k, lev, v["minw"], d, de, ctr, minima, settled, run_v)
            _k_partition[grid](src, k, lev, d, st, stk, de, ctr, minima)
            _k_pull[grid](src, k, lev, v["rindptr"], v["rindices"], v["rwslot"], vw, d, sg, st, stk,
                          ctr)
            lev += 1
        running, most = (int(x) for x in host_read(run))
        if running == 0:
            break
        chunk = min(2 * chunk, LEVELS_MOST)
    for level in range(most - 1, -1, -1):
        _k_dependencies[grid](src, k, level, v["indptr"], v["indices"], v["wslot"], v["rindptr"],
                              v["rindices"], v["rwslot"], want_edges, v["tmask"], vw, d, sg, de, st,
                              stk, ctr, settled)
