"""GPU kernels of weighted Brandes betweenness (numba-cuda).

Coarse grain: one thread block per source, as many sources in flight as
device memory holds (:func:`sources_in_flight`, the occupancy model), each
block with its own O(n) workspace row; where that leaves the SMs short on a
large graph, each source gets several blocks instead (:func:`blocks_per_source`,
``._gpu_split``, which shares this module's device functions).  Fine grain: inside a block the
paper's level-synchronous Dijkstra (PeerJ CS 2017, Algorithms 4-6) with
work-efficient queues and virtual warps:

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

After a launch, two fold kernels add each source's node and edge shares
(read back from its final workspace row) to one accumulator, a thread per
vertex or edge looping over the sources in order: no accumulator row per
block, and a left fold over the sources whatever the batch size.

Every floating-point sum has an order fixed by the data and the virtual
warp width, and the folds add sources in source order, so a run is
bit-reproducible and independent of how many sources a launch takes; it
agrees with the CPU kernel to rounding (the CPU sums a CSR row in one
sequence, a virtual warp in ``vw`` interleaved ones, and the CPU adds
chunks of 8 sources before folding them).  Distances are bit-identical to the CPU's (same
``d[u] + w`` additions, min is exact).
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64, int32

from .._occupancy import (MAX_BLOCKS_PER_SM, MAX_THREADS_PER_SM, MIN_BLOCKS_PER_SM,  # noqa: F401
                          REGISTERS_PER_SM, blocks_per_sm)
from ..backend import gpu_kernel
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
def _settle_heap_minimum(d, st, stk, start, lev, cur, nxt, ncand, count, at_new, at_kept, red,
                         tid, nthreads):
    """Settle the one candidate a heap would pop next: least (distance, id).

    Needed when no candidate clears the bound: ``d[c] + minw[c]`` rounds back
    to ``d[c]`` when an edge is shorter than the last bit of the distance
    (lengths spanning more than 2**53).  Without it the level would be empty,
    the loop would never end and ``ends`` would overflow.  Every thread of
    the block calls it; the candidates ``cur[:ncand]`` go to ``stk[start]``
    (the pick) and ``nxt`` (the others), counted in ``count[at_new]`` and
    ``count[at_kept]`` (shared counters, or a source's row in device memory).
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
        count[at_kept] = 0
    cuda.syncthreads()
    for i in range(tid, ncand, nthreads):
        c = cur[i]
        if c == pick:
            st[c] = 2 + lev
            stk[start] = c
        else:
            nxt[cuda.atomic.add(count, at_kept, 1)] = c
    cuda.syncthreads()
    if tid == 0:
        count[at_new] = 1
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


@cuda.jit(device=True)
def _dag_edge_share(v, s, sw, d, sg, de, st, rindptr, rindices, rwslot, tmask, subset, want_edges):
    """Dependency of source ``s`` that flows back over the DAG edge into ``v`` (``sw``: the
    path count of the edge's tail).  Phase 2 and the edge fold both call it, on the same
    final arrays, so they get the same bits."""
    is_t = (not subset) or (tmask[v] != 0 and v != s)
    if subset and want_edges and not is_t:
        # networkx's edge-subset rule: a non-target splits its dependency
        # evenly among its predecessors
        return de[v] / _dag_in_degree(v, d, st, rindptr, rindices, rwslot)
    return sw / sg[v] * ((1.0 if is_t else 0.0) + de[v])


@cuda.jit(device=True)
def _level_start(st, stk, hi, lev):
    """First stack index of level ``lev``: the stack holds the levels in order (``st`` is
    2 + level), so a binary search over ``stk[0:hi]`` finds it without a row of level ends."""
    lo = 0
    key = 2 + lev
    while lo < hi:
        mid = (lo + hi) // 2
        if st[stk[mid]] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cuda.jit(device=True)
def _store_lane_sum(red, acc, vw, valid, out, v):
    """``out[v]`` = the virtual warp's partials ``acc``, summed by lane 0 in lane order (when
    ``valid``): a fixed order, so the same bits whatever the block.  Every thread calls it."""
    tid = cuda.threadIdx.x
    red[tid] = acc
    cuda.syncthreads()
    if tid % vw == 0 and valid:
        t = 0.0
        for k in range(vw):
            t += red[tid + k]
        out[v] = t
    cuda.syncthreads()


@cuda.jit(device=True)
def _relax_level(first, hi, stride, d, st, stk, indptr, indices, wslot, vw, count, at, queue):
    """The level ``stk[i]``, ``i < hi``, relaxes its out-edges: the block's virtual warps take
    ``i = first``, then ``stride`` on; ``atomicMin`` on the tentative distances, and each first
    touch appended to ``queue`` at ``count[at]`` (a shared counter, or a source's row in device
    memory)."""
    lane = cuda.threadIdx.x % vw
    for i in range(first, hi, stride):
        v = stk[i]
        dv = d[v]
        for j in range(indptr[v] + lane, indptr[v + 1], vw):
            w = indices[j]
            if st[w] < 2:
                cuda.atomic.min(d, w, dv + wslot[j])
                if cuda.atomic.max(st, w, 1) == 0:
                    queue[cuda.atomic.add(count, at, 1)] = w


@cuda.jit(device=True)
def _pull_path_counts(first, end, stride, d, sg, st, stk, rindptr, rindices, rwslot, red, vw):
    """Path counts of the newly settled ``stk[i]``, ``i < end``, pulled from settled
    in-neighbours: the block's virtual warps take ``i = first + group``, then ``stride`` on
    (every thread of the block calls it: its barriers); lane 0 sums the lanes in order."""
    tid = cuda.threadIdx.x
    group = tid // vw
    lane = tid - group * vw
    for base in range(first, end, stride):
        i = base + group
        acc = 0.0
        if i < end:
            w = stk[i]
            dw = d[w]
            for j in range(rindptr[w] + lane, rindptr[w + 1], vw):
                u = rindices[j]
                if st[u] >= 2 and d[u] + rwslot[j] == dw:
                    acc += sg[u]
        _store_lane_sum(red, acc, vw, i < end, sg, stk[i] if i < end else 0)


@cuda.jit(device=True)
def _pull_dependencies(first, hi, stride, s, d, sg, de, st, stk, indptr, indices, wslot, rindptr,
                       rindices, rwslot, tmask, subset, want_edges, red, vw):
    """Phase 2 for the level's ``stk[i]``, ``i < hi`` (taken as in :func:`_pull_path_counts`):
    each vertex's dependency, pulled from its successors, which all sit in later levels."""
    tid = cuda.threadIdx.x
    group = tid // vw
    lane = tid - group * vw
    for base in range(first, hi, stride):
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
                    acc += _dag_edge_share(v, s, sw, d, sg, de, st, rindptr, rindices, rwslot,
                                           tmask, subset, want_edges)
        _store_lane_sum(red, acc, vw, i < hi, de, stk[i] if i < hi else 0)


@gpu_kernel(layout="block")
def _bc_kernel(sources, n, indptr, indices, wslot, rindptr, rindices, rwslot, minw,
               want_edges, tmask, vw, dist, sigma, delta, state, stack, settled):
    """Block per source: Brandes' two phases in the source's workspace row (see the module notes).

    The workspace is five rows of n: distances, path counts and dependencies
    (float64), state and the settled stack (int32).  Phase 1 never reads the
    dependencies, so their row holds phase 1's two candidate queues (its 8n
    bytes as 2n int32); phase 2 writes a vertex's dependency before any read
    of it (successors first), and the folds read settled vertices only.
    """
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nthreads = cuda.blockDim.x
    group = tid // vw
    ngroups = nthreads // vw
    # ctr: 0 settled count, 1 levels, 2 candidates, 3 newly settled, 4 kept, 5 the newest
    # level's first stack index; st[v]: 0 unreached, 1 candidate, 2 + level once settled
    ctr = cuda.shared.array(8, int32)
    red = cuda.shared.array(MAX_THREADS, float64)
    d = dist[b]
    sg = sigma[b]
    de = delta[b]
    st = state[b]
    stk = stack[b]
    queues = de.view(np.int32)  # phase 1's candidate queues live in the dependency row
    ca = queues[:n]
    cb = queues[n:]
    subset = tmask.size > 1  # a one-element mask stands for "every vertex is a target"
    if b < sources.size:
        s = sources[b]
        for v in range(tid, n, nthreads):
            d[v] = math.inf
            sg[v] = 0.0
            st[v] = 0
        cuda.syncthreads()
        if tid == 0:
            d[s] = 0.0
            sg[s] = 1.0
            st[s] = 2
            stk[0] = s
            ctr[0] = 1
            ctr[1] = 1
            ctr[2] = 0
            ctr[5] = 0
        cuda.syncthreads()
        parity = 0
        # ---- phase 1: level-synchronous Dijkstra ----
        while True:
            nlev = ctr[1]
            lo = ctr[5]
            hi = ctr[0]
            cur = ca if parity == 0 else cb
            nxt = cb if parity == 0 else ca
            _relax_level(lo + group, hi, ngroups, d, st, stk, indptr, indices, wslot, vw, ctr, 2,
                         cur)
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
                _settle_heap_minimum(d, st, stk, start, nlev, cur, nxt, ncand, ctr, 3, 4, red, tid,
                                     nthreads)
            end = start + ctr[3]
            _pull_path_counts(start, end, ngroups, d, sg, st, stk, rindptr, rindices, rwslot, red, vw)
            if tid == 0:
                ctr[5] = start
                ctr[0] = end
                ctr[1] = nlev + 1
                ctr[2] = ctr[4]
            parity = 1 - parity
            cuda.syncthreads()
        # ---- phase 2: dependencies, deepest level first ----
        nlev = ctr[1]
        hi = ctr[0]
        for lev in range(nlev - 1, -1, -1):
            lo = _level_start(st, stk, hi, lev)
            _pull_dependencies(lo, hi, ngroups, s, d, sg, de, st, stk, indptr, indices, wslot,
                               rindptr, rindices, rwslot, tmask, subset, want_edges, red, vw)
            hi = lo
        if tid == 0:
            settled[b] = ctr[0]


@gpu_kernel
def _k_fold_nodes(sources, delta, state, settled, endpoints, node):
    """``node[v]`` plus each source's share of ``v``, sources in batch order (thread per vertex).

    The share is what Brandes adds for ``v``: its dependency (plus one with
    ``endpoints``) when settled and not the source, the settled count less
    one for the source with ``endpoints``, else 0.
    """
    v = cuda.grid(1)
    if v < node.size:
        extra = 1.0 if endpoints else 0.0
        t = node[v]
        for b in range(sources.size):
            x = 0.0
            if v == sources[b]:
                if endpoints:
                    x = float64(settled[b] - 1)
            elif state[b, v] >= 2:
                x = delta[b, v] + extra
            t += x
        node[v] = t


@gpu_kernel
def _k_fold_edges(sources, eptr, eslots, slot_row, indices, wslot, rindptr, rindices, rwslot,
                  tmask, dist, sigma, delta, state, edge):
    """``edge[e]`` plus each source's share of ``e``, sources in batch order (thread per edge).

    The share is recomputed from the source's final distances, path counts
    and dependencies: the flow over whichever slot of ``e`` is a DAG edge
    (one direction at most, so at most one slot), else 0.
    """
    e = cuda.grid(1)
    if e < edge.size:
        subset = tmask.size > 1
        t = edge[e]
        for b in range(sources.size):
            d = dist[b]
            st = state[b]
            x = 0.0
            for k in range(eptr[e], eptr[e + 1]):
                j = eslots[k]
                w = slot_row[j]
                v = indices[j]
                if st[w] >= 2 and d[v] == d[w] + wslot[j] and st[v] > st[w]:
                    sg = sigma[b]
                    x = _dag_edge_share(v, sources[b], sg[w], d, sg, delta[b], st, rindptr,
                                        rindices, rwslot, tmask, subset, True)
            t += x
        edge[e] = t


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




# ---------------------------------------------------------------------------
# how many sources are in flight: the occupancy model
# ---------------------------------------------------------------------------

#: the device the model assumes where none is queried (the simulator; Dask's
#: batch boundaries): an 80 GiB H100 SXM with 132 SMs
REFERENCE_DEVICE = (80 * 2**30, 132)
#: fraction of device memory left to the caller, CuPy's pool and the CUDA context
MEMORY_RESERVE = 0.25
#: registers per thread of :func:`_bc_kernel` at sm_90 (``tools/check_gpu_compile.py``: 80,
#: allocated in steps of 8)
KERNEL_REGISTERS = 80
#: threads per block on a GPU: 128 x 80 registers leave room for 6 resident blocks per SM
#: (at 256 threads the registers allow 3)
BLOCK_THREADS = 128
#: sources of one launch at most: beyond this the fold's loop over a batch only grows
MAX_SOURCES = 4096
#: resident blocks per SM below which each source of a launch gets several blocks
#: (``MIN_BLOCKS_PER_SM``, from ``.._occupancy``, with the SM's limits) ...
#: ... on graphs of at least this many CSR slots (2**22: a level's work pays for its launches)
SPLIT_MIN_SLOTS = 2**22
#: registers per thread of the split kernels (``._gpu_split``) at sm_90: the most of the six,
#: ``_k_dependencies``'s 78, allocated in steps of 8 (``tools/check_gpu_compile.py``)
SPLIT_KERNEL_REGISTERS = 80


def source_bytes(n: int) -> int:
    """Device bytes one source in flight needs: its workspace row (see :func:`_bc_kernel`).

    Distances, path counts and dependencies (float64), state and stack
    (int32), and its settled count: 32 bytes a vertex.  The candidate
    queues share the dependency row and the level ends are found by binary
    search, where they took 12 bytes a vertex more (44: at 10**8 edges with
    edge scores, 4 resident blocks per SM on the reference H100 then ended
    near 2.7 x 10**6 vertices, now near 3.3 x 10**6).
    """
    return 3 * 8 * n + 2 * 4 * n + 4


def fixed_bytes(n: int, nnz: int, m_acc: int) -> int:
    """Device bytes of one computation whatever its batch: the graph's CSR both ways with
    lengths, the edge fold's tables, the two accumulators and the target mask."""
    csr = 2 * (8 * (n + 1) + (4 + 8) * nnz) + 4 * nnz + 8 * n  # + slot_edge, minw
    fold = (8 * (m_acc + 1) + 4 * nnz + 4 * nnz) if m_acc else 0  # eptr, eslots, slot_row
    return csr + fold + 8 * (n + m_acc) + n


def sources_in_flight(n: int, nnz: int, m_acc: int, device_bytes: int, sm_count: int) -> int:
    """Sources per launch (one thread block each) for a graph and a device.

    Parameters
    ----------
    n, nnz : int
        Vertices and CSR slots (twice the edges of an undirected graph).
    m_acc : int
        Edges with a score (``m`` for edge betweenness, else 0).
    device_bytes : int
        Device memory the computation may use (free memory on a GPU).
    sm_count : int
        Streaming multiprocessors.

    Returns
    -------
    int
        ``(1 - MEMORY_RESERVE) * device_bytes``, less :func:`fixed_bytes`,
        divided by :func:`source_bytes`, capped at :data:`MAX_SOURCES`, and
        at least 1.

    Notes
    -----
    Each source of a launch keeps an O(n) workspace row and nothing more:
    its scores are folded into one accumulator after the launch
    (:class:`BetweennessFold`), so no O(n + m) accumulator row per block
    limits how many sources are in flight (before, 16 GiB of rows allowed
    9-20 blocks at 10**8 edges).  Blocks of :data:`BLOCK_THREADS` threads
    leave room for 6 resident per SM (registers bound it), so a launch of
    at least ``4 * sm_count`` sources keeps at least 4 resident per SM
    (:func:`resident_blocks_per_sm`).  Results do not depend on the batch
    size: the fold adds sources in source order across batches.

    Examples
    --------
    >>> sources_in_flight(10**6, 2 * 10**8, 10**8, 80 * 2**30, 132) >= 4 * 132
    True
    """
    usable = int((1.0 - MEMORY_RESERVE) * device_bytes) - fixed_bytes(n, nnz, m_acc)
    fit = usable // source_bytes(n) if usable > 0 else 0
    return int(max(1, min(MAX_SOURCES, fit)))


def blocks_per_sm_limit(threads: int = BLOCK_THREADS, registers: int = KERNEL_REGISTERS) -> int:
    """Thread blocks of ``threads`` threads an SM holds at once: at most
    :data:`MAX_BLOCKS_PER_SM` blocks, :data:`MAX_THREADS_PER_SM` threads and
    :data:`REGISTERS_PER_SM` registers (``registers`` per thread); the
    kernels' 2 KiB of shared memory a block is far from limiting."""
    return blocks_per_sm(threads, registers)


def resident_blocks_per_sm(sources: int, sm_count: int, threads: int = BLOCK_THREADS,
                           registers: int = KERNEL_REGISTERS, blocks_each: int = 1) -> float:
    """Thread blocks resident per SM for a launch of ``sources`` sources of ``blocks_each``
    blocks of ``threads`` threads: the blocks spread over the SMs, up to what an SM holds
    (:func:`blocks_per_sm_limit`)."""
    per_sm = blocks_per_sm_limit(threads, registers)
    return min(float(per_sm), sources * max(blocks_each, 1) / max(sm_count, 1))


def blocks_per_source(n: int, nnz: int, sources: int, sm_count: int,
                      threads: int = BLOCK_THREADS) -> int:
    """Thread blocks each source of a launch gets.

    Parameters
    ----------
    n, nnz : int
        Vertices and CSR slots.
    sources : int
        Sources of this launch (at most what memory holds: :func:`sources_in_flight`).
    sm_count : int
        Streaming multiprocessors.
    threads : int
        Threads per block.

    Returns
    -------
    int
        1 (the block-per-source kernel, ``_bc_kernel``) when the launch has
        at least :data:`MIN_BLOCKS_PER_SM` sources per SM, or when the graph
        has fewer than :data:`SPLIT_MIN_SLOTS` CSR slots.  Otherwise enough
        blocks per source to fill every SM to what it holds
        (:data:`SPLIT_KERNEL_REGISTERS`), but at most one block per
        ``threads`` vertices; the sources then run in ``._gpu_split``, a
        launch per step of a level.

    Notes
    -----
    Large graphs reach the split kernels in two ways: memory holds too few
    sources (at 10**8 edges, above about 3.3 x 10**6 vertices), or the call
    asks for few sources (``k``, or the last batch).  On small graphs few
    sources keep the one-launch kernel, whose steps are block barriers:
    there a level is too little work to pay for four launches.  The scores
    do not depend on the choice (the two kernels make the same sums).

    Examples
    --------
    >>> blocks_per_source(10**6, 2 * 10**8, 1740, 132)   # 10**6 vertices, 10**8 edges
    1
    >>> blocks_per_source(24 * 10**6, 2 * 10**8, 71, 132)  # 2.4 x 10**7 vertices: 71 sources fit
    12
    >>> blocks_per_source(82_168, 1_097_862, 64, 132)      # 64 sources of Slashdot
    1
    """
    if sources >= MIN_BLOCKS_PER_SM * sm_count or nnz < SPLIT_MIN_SLOTS:
        return 1
    full = blocks_per_sm_limit(threads, SPLIT_KERNEL_REGISTERS) * sm_count
    k = -(-full // max(sources, 1))
    return int(max(1, min(k, -(-n // max(threads, 1)))))


def device_limits() -> tuple[int, int]:
    """(memory the computation may use, SM count) of the current GPU; the reference device under
    the simulator."""
    from ..backend import simulator_enabled

    if simulator_enabled():
        return REFERENCE_DEVICE
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    return int(free + pool.free_bytes()), int(sms)
