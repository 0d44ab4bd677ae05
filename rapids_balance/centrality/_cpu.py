"""CPU kernels of Brandes betweenness (numba, parallel over sources).

With lengths, one source is handled by one thread, start to finish:

* phase 1, :func:`_sssp_dial` when every length is a small integer
  (Dial's buckets; unweighted included, then it is a BFS), else
  :func:`_sssp_radix` (Dijkstra with a radix heap).  Path counts are
  *pulled* when a vertex is settled: ``sigma[v]`` is the sum of ``sigma[u]``
  over settled in-neighbours ``u`` with ``d[u] + w(u, v) == d[v]``, in CSR
  order.  With positive lengths every shortest-path predecessor of ``v`` is
  settled before ``v``, so the sum is complete; it has the same terms as the
  sum the GPU kernel forms level by level, and the pop order among equal
  distances cannot change it.
* phase 2, :func:`_accumulate`: dependencies from the last settled vertex
  back to the source, pushed along the predecessor edges recorded in
  phase 1 (the shortest-path DAG; no second scan of every CSR row).  The
  order of these sums is the settle order, which both queues fix by the data
  alone (Dial: newest entry first within a distance; radix heap: distance,
  then vertex id).

A serial queue per source inside a parallel loop over sources is the
fastest layout on a CPU: the parallelism over sources is embarrassingly
wide, and the queue settles one vertex at a time with no synchronisation.
A thread runs a chunk of sources one after another with the same
workspace, so the graph and the per-vertex arrays stay in its cache.
Where the time goes (BA graph, 20,000 vertices, lengths 1..10, per source):
phase 1 about 85 % (scanning 200,000 CSR slots in settle order with
random reads of ``dist``; pulling path counts is a third of it), phase 2
the rest.  The GPU
kernel (``_gpu.py``) uses the level-synchronous Dijkstra of the paper
instead; both settle every vertex at the same distance with the same path
count.

Unit lengths (no target subset) take another layout, :func:`_bfs_block`:
a chunk of up to 64 sources is one bit-parallel BFS, each vertex holding a
64-bit word with a bit per source, so an adjacency row is read once per
level at which the block reaches its vertex instead of once per source.
Path counts and dependencies stay per (vertex, source) and follow each
source's DAG edges (the set bits of ``frontier[u] & new[v]``).  BA graph,
20,000 vertices, 64 sources: 0.6 million adjacency reads instead of 12.8
million, 3.4 million DAG (edge, source) pairs per phase; the pairs, random
reads of 512-byte rows, are now the cost (1.3 to 1.8 times as fast as one
BFS per source on BA, wiki-Elec and Slashdot).  A direction-optimising BFS would only cut the
adjacency scans of phase 1: a bottom-up step must still find every
predecessor of a vertex to count its paths.

Determinism: sources are cut into fixed-size chunks; one thread processes a
chunk, in source order, into that chunk's own accumulator row; rows are
summed in chunk order.  The result depends on the data only, never on the
number of threads.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import prange
from numba.core import types
from numba.extending import intrinsic

from .._random import randint

_UNREACHED = np.int8(0)
_QUEUED = np.int8(1)
_SETTLED = np.int8(2)
_NO_STATE = np.zeros(0, np.int8)


# ---------------------------------------------------------------------------
# both queues keep their buckets as singly linked lists of entries
# (``evert[e]``: the vertex, ``enext[e]``: the next entry, ``head[b]``: the
# newest entry of bucket b), in a pool filled from entry 0 for each source
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _push_entry(v, b, head, enext, evert, ne):
    """Put ``v`` on bucket ``b`` as entry ``ne``; returns the next free entry."""
    evert[ne] = v
    enext[ne] = head[b]
    head[b] = ne
    return ne + 1


# ---------------------------------------------------------------------------
# radix heap for general lengths (Ahuja, Mehlhorn, Orlin, Tarjan 1990), keyed
# by the bits of float64 distances (for non-negative doubles the bit pattern
# orders as the value).  Bucket b >= 1 holds the queued entries whose key
# first differs from the last popped key at bit b - 1; an entry moves only
# to lower buckets, so each is touched a few times instead of log(n) heap
# levels per push.  Entries are pushed, never moved by a decrease-key: a
# vertex's newest entry is ``live[v]``, older ones are stale and dropped
# when met.  The queued vertices at exactly the last popped key wait in
# ``tie``, a small binary heap by vertex id, so vertices leave the queue in
# (distance, id) order, that of a binary heap with ties by id and of the
# GPU kernel (with general lengths ties are rare: the tie heap stays small).
# ---------------------------------------------------------------------------

@intrinsic
def _clz64(typingctx, x):
    """Count of leading zero bits of a uint64 (LLVM's ctlz, one instruction)."""
    def codegen(context, builder, sig, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.uint64(types.uint64), codegen


@numba.njit(cache=True, inline="always")
def _r_bucket(key, last):
    return 64 - np.int64(_clz64(key ^ last))


@numba.njit(cache=True)
def _tie_push(tie, size, v):
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if tie[p] <= v:
            break
        tie[i] = tie[p]
        i = p
    tie[i] = v
    return size + 1


@numba.njit(cache=True)
def _tie_pop(tie, size):
    """Smallest vertex id of the tie heap; ``size`` is the size before the pop."""
    top = tie[0]
    size -= 1
    v = tie[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and tie[c + 1] < tie[c]:
            c += 1
        if tie[c] >= v:
            break
        tie[i] = tie[c]
        i = c
    if size > 0:
        tie[i] = v
    return top


@numba.njit(cache=True)
def _r_push(v, key, last, head, enext, evert, live, ne, tie, tsize):
    """Queue ``v`` at ``key``; returns (entries used, tie heap size)."""
    if key == last:
        live[v] = -1  # entries of v in the buckets are stale now
        return ne, _tie_push(tie, tsize, v)
    live[v] = ne
    return _push_entry(v, _r_bucket(key, last), head, enext, evert, ne), tsize


@numba.njit(cache=True)
def _r_refill(head, enext, evert, live, dbits, tie):
    """Move the least queued key into ``tie``: returns (that key, tie size).

    The lowest bucket holding a live entry is emptied; its least key becomes
    the last popped key and its entries go to lower buckets (or ``tie``).
    """
    for i in range(1, 65):
        least = np.uint64(0xFFFFFFFFFFFFFFFF)
        e = head[i]
        while e != -1:
            v = evert[e]
            if live[v] == e and dbits[v] < least:
                least = dbits[v]
            e = enext[e]
        if least == np.uint64(0xFFFFFFFFFFFFFFFF):
            head[i] = -1  # only stale entries
            continue
        e = head[i]
        head[i] = -1
        tsize = 0
        while e != -1:
            nxt = enext[e]
            v = evert[e]
            if live[v] == e:
                k = dbits[v]
                if k == least:
                    live[v] = -1
                    tsize = _tie_push(tie, tsize, v)
                else:
                    b = _r_bucket(k, least)
                    enext[e] = head[b]
                    head[b] = e
            e = nxt
        return least, tsize
    return np.uint64(0), 0


# ---------------------------------------------------------------------------
# Dial's bucket queue for integer lengths: bucket d % C holds the entries at
# distance d (C, a power of two above the longest edge, covers every queued
# distance, so d % C is a mask).  Entries are pushed, never moved: a
# decrease-key pushes a new entry and leaves the old one stale, recognised on
# pop by dist[v] != d.  That is one store triple per push and no unlinking;
# within a distance the newest entry pops first, a settle order fixed by the
# data alone.
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _pull_in_edges(v, dv, rindptr, rindices, rlen, rslot_edge, dist, sigma, state, want_edges,
                   pvert, pedge, npred):
    """Directed graphs: path count of ``v`` (settled at ``dv``) from its in-edges.

    Records the predecessors from ``npred`` on; returns (count, next free
    slot).  ``state`` empty: integer lengths >= 1, where ``dist[u] + w ==
    dv`` implies ``u`` is settled; otherwise a length can vanish below the
    last bit of ``dv`` and ``u`` must be settled already.
    """
    acc = 0.0
    check = state.size > 0
    for j in range(rindptr[v], rindptr[v + 1]):
        u = rindices[j]
        if (not check or state[u] == _SETTLED) and dist[u] + rlen[j] == dv:
            acc += sigma[u]
            pvert[npred] = u
            if want_edges:
                pedge[npred] = rslot_edge[j]
            npred += 1
    return acc, npred


@numba.njit(cache=True)
def _sssp_dial(s, indptr, indices, wint, slot_edge, rindptr, rindices, rwint, rslot_edge,
               directed, want_edges, mask, inf, dist, sigma, order, head, enext, evert,
               pstart, pvert, pedge):
    """Dial's Dijkstra from ``s`` over integer lengths ``wint`` (< ``mask + 1``).

    Same contract as :func:`_sssp_radix`, with integer distances (``inf``:
    unreached, chosen so that ``inf + length`` does not overflow).  Lengths
    are >= 1, so when ``v`` is settled at distance ``d`` every vertex at a
    distance below ``d`` is settled and every other one is at ``d`` or more:
    ``dist[u] + w == d`` alone identifies a settled predecessor, and no
    per-vertex state array is read in the inner loop.  ``pedge`` is written
    only with ``want_edges`` (node scores need predecessor vertices only).
    """
    head[:] = -1
    dist[s] = 0
    ne = _push_entry(s, 0, head, enext, evert, 0)
    queued = 1  # vertices in the buckets (stale entries not counted)
    cur = 0  # the distance being settled
    count = 0
    npred = 0
    while queued > 0:
        e = head[cur & mask]
        if e == -1:
            cur += 1
            continue
        head[cur & mask] = enext[e]
        v = evert[e]
        if dist[v] != cur:
            continue  # stale: v was pushed again at a shorter distance
        queued -= 1
        pstart[count] = npred
        order[count] = v
        count += 1
        acc = 0.0
        if directed:
            acc, npred = _pull_in_edges(v, cur, rindptr, rindices, rwint, rslot_edge, dist, sigma,
                                        _NO_STATE, want_edges, pvert, pedge, npred)
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                nd = cur + wint[j]
                dw = dist[w]
                if nd < dw:
                    queued += dw == inf
                    dist[w] = nd
                    ne = _push_entry(w, nd & mask, head, enext, evert, ne)
        else:
            # one scan pulls from settled neighbours and relaxes the others
            # (branchy on purpose: branch-free variants measured slower, the
            # float sum over every slot becomes a latency chain)
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                wt = wint[j]
                dw = dist[w]
                if dw + wt == cur:
                    acc += sigma[w]
                    pvert[npred] = w
                    if want_edges:
                        pedge[npred] = slot_edge[j]
                    npred += 1
                elif cur + wt < dw:
                    queued += dw == inf
                    dist[w] = cur + wt
                    ne = _push_entry(w, (cur + wt) & mask, head, enext, evert, ne)
        sigma[v] = 1.0 if v == s else acc
    pstart[count] = npred
    return count


@numba.njit(cache=True)
def _sssp_radix(s, indptr, indices, wslot, slot_edge, rindptr, rindices, rwslot, rslot_edge,
                directed, want_edges, dist, sigma, state, order, head, enext, evert, live, tie,
                pstart, pvert, pedge):
    """Dijkstra from ``s`` with the radix heap; fills dist/sigma and the shortest-path DAG.

    Returns the number of settled vertices; ``order[:count]`` lists them as
    settled, each time the least (distance, id) queued.  The predecessors of ``order[i]`` (vertex, edge id) are
    ``pvert/pedge[pstart[i]:pstart[i + 1]]`` (``pedge`` only with
    ``want_edges``).  Undirected graphs pass the same arrays as in-CSR and
    out-CSR and pull path counts in the same scan that relaxes neighbours.
    """
    dbits = dist.view(np.uint64)
    head[:] = -1
    dist[s] = 0.0
    state[s] = _QUEUED
    last = dbits[s]
    tie[0] = s
    tsize = 1
    ne = 0
    count = 0
    npred = 0
    while True:
        if tsize == 0:
            last, tsize = _r_refill(head, enext, evert, live, dbits, tie)
            if tsize == 0:
                break
        v = _tie_pop(tie, tsize)
        tsize -= 1
        state[v] = _SETTLED
        pstart[count] = npred
        order[count] = v
        count += 1
        dv = dist[v]
        acc = 0.0
        if directed:
            acc, npred = _pull_in_edges(v, dv, rindptr, rindices, rwslot, rslot_edge, dist, sigma,
                                        state, want_edges, pvert, pedge, npred)
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            st = state[w]
            if st == _SETTLED:
                if not directed and dist[w] + wslot[j] == dv:
                    acc += sigma[w]
                    pvert[npred] = w
                    if want_edges:
                        pedge[npred] = slot_edge[j]
                    npred += 1
                continue
            nd = dv + wslot[j]
            if st == _UNREACHED or nd < dist[w]:
                dist[w] = nd
                state[w] = _QUEUED
                ne, tsize = _r_push(w, dbits[w], last, head, enext, evert, live, ne, tie, tsize)
        sigma[v] = 1.0 if v == s else acc
    pstart[count] = npred
    return count


@numba.njit(cache=True)
def _accumulate(s, count, order, pstart, pvert, pedge, sigma, delta, endpoints, want_edges,
                tmask, node_acc, edge_acc):
    """Brandes' dependency accumulation for source ``s`` into the accumulators.

    Walks the recorded DAG from the last settled vertex back, pushing each
    vertex's dependency to its predecessors (networkx's
    ``_accumulate_basic``/``_accumulate_edges`` in one pass): only DAG edges
    are touched, not every CSR slot again.

    ``tmask`` empty: every vertex is a target.  Otherwise only vertices with
    ``tmask[v] != 0`` end paths (networkx's ``_accumulate_subset``); with
    ``want_edges`` a non-target vertex then splits its dependency evenly
    among its predecessors, as networkx's ``_accumulate_edges_subset`` does.
    """
    extra = 1.0 if endpoints else 0.0
    subset = tmask.size > 0
    for i in range(count - 1, -1, -1):
        w = order[i]
        is_t = (not subset) or (tmask[w] != 0 and w != s)
        coeff = ((1.0 if is_t else 0.0) + delta[w]) / sigma[w]
        even = subset and want_edges and not is_t
        npw = pstart[i + 1] - pstart[i]
        for p in range(pstart[i], pstart[i + 1]):
            u = pvert[p]
            c = delta[w] / npw if even else sigma[u] * coeff
            delta[u] += c
            if want_edges:
                edge_acc[pedge[p]] += c
        if w != s:
            node_acc[w] += delta[w] + extra
    if endpoints:
        node_acc[s] += count - 1


@numba.njit(cache=True)
def _reset(count, order, dist, far, sigma, delta, state):
    # only the vertices this source reached were touched (``state`` is empty
    # on the Dial path, which reads none)
    for i in range(count):
        v = order[i]
        dist[v] = far
        sigma[v] = 0.0
        delta[v] = 0.0
        if state.size:
            state[v] = _UNREACHED


@numba.njit(cache=True, inline="always")
def sum_rows_column(rows, out, j):
    """``out[j] += rows[0, j] + rows[1, j] + ...`` in row order (CPU and GPU)."""
    t = out[j]
    for r in range(rows.shape[0]):
        t += rows[r, j]
    out[j] = t


@numba.njit(cache=True, parallel=True)
def _sum_rows(rows, out):
    for j in prange(out.size):
        sum_rows_column(rows, out, j)


def wide_distances(n: int, nbuckets: int) -> bool:
    """Whether Dial's integer distances over ``n`` vertices need 64 bits (every distance is
    below ``n * nbuckets``; 32 bits read less memory per vertex)."""
    return int(n) * int(nbuckets) >= 1 << 30


def bc_batch_cpu(sources, chunk, n, indptr, indices, wslot, slot_edge,
                 rindptr, rindices, rwslot, rslot_edge, directed, nbuckets, endpoints, want_edges,
                 tmask, node_out, edge_out, bitset=False):
    """Add the (unnormalised) dependencies of ``sources`` to node_out/edge_out.

    The rows of :func:`bc_rows_cpu`, summed in row order.
    """
    node_rows, edge_rows = bc_rows_cpu(sources, chunk, n, indptr, indices, wslot, slot_edge,
                                       rindptr, rindices, rwslot, rslot_edge, directed, nbuckets,
                                       endpoints, want_edges, tmask, edge_out.size, bitset=bitset)
    _sum_rows(node_rows, node_out)
    if want_edges:
        _sum_rows(edge_rows, edge_out)


def bc_rows_cpu(sources, chunk, n, indptr, indices, wslot, slot_edge,
                rindptr, rindices, rwslot, rslot_edge, directed, nbuckets, endpoints, want_edges,
                tmask, m, bitset=False, wide=None):
    """Per-chunk (unnormalised) dependencies of ``sources``: (node rows, edge rows).

    ``sources`` is cut into chunks of ``chunk``; chunk ``c`` goes into row
    ``c`` of the accumulators (``n`` and ``m`` columns, ``m`` unused without
    ``want_edges``); a row depends on its chunk's sources only, never on the
    other chunks of the call or on the thread count.
    ``bitset``: every length is 1 and every vertex a target; a chunk (at
    most 64 sources) is one bit-parallel BFS (:func:`_bfs_block`).  Else
    ``nbuckets`` > 0 selects :func:`_sssp_dial` (every length an integer
    below it), 0 :func:`_sssp_radix`; ``tmask`` (int8, empty for all) marks
    the targets (see :func:`_accumulate`).  ``wide``: Dial's distances in
    int64 (``None``: :func:`wide_distances`; a kernel warm-up on a small
    graph asks for the variant a large one will run).
    """
    # (numba.parallel_chunksize(1) would balance a busy machine better, but
    # it made the edge variant 4-5x slower in measurements: static split)
    args = (sources, chunk, n, indptr, indices, slot_edge, rindptr, rindices, rslot_edge, directed)
    m = m if want_edges else 0
    tail = (endpoints, want_edges, tmask, m)
    if bitset:
        if not 1 <= chunk <= 64 or tmask.size:
            raise ValueError("the bit-parallel BFS takes 1 to 64 sources per chunk and no target mask")
        return _block_rows_bitset(sources, chunk, n, indptr, indices, slot_edge, endpoints,
                                  want_edges, m, numba.get_num_threads())
    elif nbuckets:
        # 16-bit lengths and 32-bit distances where they fit (every distance
        # is below n * nbuckets): fewer bytes per slot and per vertex read
        ldt = np.uint16 if nbuckets <= 1 << 16 else np.int64
        wide = wide_distances(n, nbuckets) if wide is None else wide
        far = 1 << 62 if wide else 1 << 30
        ddt = np.int64 if wide else np.int32
        wint = wslot.astype(ldt)
        rwint = wint if rwslot is wslot else rwslot.astype(ldt)
        return _chunk_rows_dial(*args, wint, rwint, nbuckets, ddt(far), *tail)
    return _chunk_rows_radix(*args, wslot, rwslot, *tail)


@numba.njit(cache=True, parallel=True)
def sum_row_groups(rows, per_group):
    """Row ``g`` of the result: rows ``g * per_group ...`` of ``rows`` summed in row order
    from 0.0, the additions of :func:`_sum_rows` into a zero array, bit for bit (the last
    group may be shorter)."""
    n_groups = (rows.shape[0] + per_group - 1) // per_group
    out = np.zeros((n_groups, rows.shape[1]))
    for j in prange(rows.shape[1]):
        for g in range(n_groups):
            t = out[g, j]
            for r in range(g * per_group, min((g + 1) * per_group, rows.shape[0])):
                t += rows[r, j]
            out[g, j] = t
    return out


@numba.njit(cache=True)
def _accumulators(sources, chunk, n, m, want_edges):
    n_chunks = (sources.size + chunk - 1) // chunk
    return np.zeros((n_chunks, n)), np.zeros((n_chunks, m if want_edges else 0))


@numba.njit(cache=True, parallel=True)
def _chunk_rows_dial(sources, chunk, n, indptr, indices, slot_edge, rindptr, rindices, rslot_edge,
                     directed, wint, rwint, nbuckets, far, endpoints, want_edges, tmask, m):
    """Per-chunk accumulator rows (node, edge) of a batch of sources, Dial's queue."""
    node_rows, edge_rows = _accumulators(sources, chunk, n, m, want_edges)
    for c in prange(node_rows.shape[0]):
        dist = np.full(n, far)
        sigma = np.zeros(n)
        delta = np.zeros(n)
        order = np.empty(n, np.int32)
        head = np.empty(nbuckets, np.int32)
        # pushes: the source plus at most one per out-slot
        enext = np.empty(indices.size + 1, np.int32)
        evert = np.empty(indices.size + 1, np.int32)
        pstart = np.empty(n + 1, np.int64)
        pvert = np.empty(max(rindices.size, 1), np.int32)
        pedge = np.empty(max(rindices.size, 1) if want_edges else 0, np.int32)
        none = np.zeros(0, np.int8)
        for i in range(c * chunk, min((c + 1) * chunk, sources.size)):
            s = sources[i]
            count = _sssp_dial(s, indptr, indices, wint, slot_edge, rindptr, rindices, rwint,
                               rslot_edge, directed, want_edges, nbuckets - 1, far, dist, sigma,
                               order, head, enext, evert, pstart, pvert, pedge)
            _accumulate(s, count, order, pstart, pvert, pedge, sigma, delta, endpoints,
                        want_edges, tmask, node_rows[c], edge_rows[c])
            _reset(count, order, dist, far, sigma, delta, none)
    return node_rows, edge_rows


@numba.njit(cache=True, parallel=True)
def _chunk_rows_radix(sources, chunk, n, indptr, indices, slot_edge, rindptr, rindices, rslot_edge,
                      directed, wslot, rwslot, endpoints, want_edges, tmask, m):
    """Per-chunk accumulator rows (node, edge) of a batch of sources, radix heap."""
    node_rows, edge_rows = _accumulators(sources, chunk, n, m, want_edges)
    for c in prange(node_rows.shape[0]):
        dist = np.full(n, np.inf)
        sigma = np.zeros(n)
        delta = np.zeros(n)
        state = np.zeros(n, np.int8)
        order = np.empty(n, np.int32)
        head = np.empty(65, np.int32)
        enext = np.empty(indices.size + 1, np.int32)
        evert = np.empty(indices.size + 1, np.int32)
        live = np.full(n, -1, np.int32)
        tie = np.empty(n, np.int32)
        pstart = np.empty(n + 1, np.int64)
        pvert = np.empty(max(rindices.size, 1), np.int32)
        pedge = np.empty(max(rindices.size, 1) if want_edges else 0, np.int32)
        for i in range(c * chunk, min((c + 1) * chunk, sources.size)):
            s = sources[i]
            count = _sssp_radix(s, indptr, indices, wslot, slot_edge, rindptr, rindices, rwslot,
                                rslot_edge, directed, want_edges, dist, sigma, state, order, head,
                                enext, evert, live, tie, pstart, pvert, pedge)
            _accumulate(s, count, order, pstart, pvert, pedge, sigma, delta, endpoints,
                        want_edges, tmask, node_rows[c], edge_rows[c])
            _reset(count, order, dist, np.inf, sigma, delta, state)
    return node_rows, edge_rows


# ---------------------------------------------------------------------------
# unit lengths: a block of up to 64 sources as one bit-parallel BFS.  Bit i of
# a vertex's word stands for source i of the block; a level's frontier is a
# list of (vertex, word) entries, so each adjacency row is read once per
# level at which some source of the block reaches its vertex (BA graph,
# 20,000 vertices: about 3 times per block of 64 instead of 64 times).  Path
# counts and dependencies stay per source (``sigma``/``delta``: ``n x width``
# float64, row-major by vertex) and are touched only along the edges of each
# source's shortest-path DAG, the set bits of ``frontier[u] & new[v]``.
# ---------------------------------------------------------------------------

@intrinsic
def _ctz64(typingctx, x):
    """Index of the lowest set bit of a uint64 (LLVM's cttz), as an int64 for indexing."""
    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.uint64), codegen


@numba.njit(cache=True)
def _room(a, need):
    """``a``, or a copy of it with room for at least ``need`` entries (doubling)."""
    if need <= a.size:
        return a
    b = np.empty(max(need, 2 * a.size), a.dtype)
    b[:a.size] = a
    return b


@numba.njit(cache=True)
def _bfs_block(srcs, width, indptr, indices, visited, word, sigma, lv, lb, lstart):
    """Bit-parallel BFS of the sources ``srcs`` (at most ``width``) over the out-CSR.

    Level ``d`` is ``lv/lb[lstart[d]:lstart[d + 1]]``: each vertex some
    source reaches at distance ``d`` once, with the word of those sources.
    ``sigma[v * width + i]`` gets the path count from source ``i``, pushed
    along every DAG edge ``u -> v`` of that source (integer sums: their
    order cannot change them below 2**53).  ``visited`` and ``word`` are
    zero on entry; ``word`` is zero again on return.  Returns (levels,
    entries, lv, lb, lstart), the arrays grown where needed.
    """
    one = np.uint64(1)
    ne = 0
    for i in range(srcs.size):
        v = srcs[i]
        if word[v] == 0:
            lv[ne] = v
            ne += 1
        word[v] |= one << np.uint64(i)
        sigma[v * width + i] = 1.0
    lstart[0] = 0
    nl = 0
    lo = 0
    while lo < ne:
        hi = ne
        for e in range(lo, hi):
            v = lv[e]
            lb[e] = word[v]
            visited[v] |= word[v]
            word[v] = 0
        nl += 1
        lstart = _room(lstart, nl + 1)
        lstart[nl] = hi
        for e in range(lo, hi):
            u = lv[e]
            bits = lb[e]
            ub = u * width
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                new = bits & ~visited[v]
                if new:
                    if word[v] == 0:
                        if ne >= lv.size:
                            lv = _room(lv, ne + 1)
                            lb = _room(lb, ne + 1)
                        lv[ne] = v
                        ne += 1
                    word[v] |= new
                    vb = v * width
                    while new:
                        s = _ctz64(new)
                        new &= new - one
                        sigma[vb + s] += sigma[ub + s]
        lo = hi
    return nl, ne, lv, lb, lstart


@numba.njit(cache=True)
def _accumulate_block(srcs, nl, width, indptr, indices, slot_edge, lv, lb, lstart, word, sigma,
                      delta, count, endpoints, want_edges, node_acc, edge_acc):
    """Brandes' accumulation of a :func:`_bfs_block`, deepest level first.

    When level ``d`` is final, its vertices add their dependency to
    ``node_acc`` and ``delta`` becomes networkx's coefficient ``(1 +
    delta) / sigma``; each vertex of level ``d - 1`` then pulls ``sigma *
    coefficient`` over its out-slots into level ``d`` (one division per
    (vertex, source), none per edge).  Sums run in CSR order and source
    order within a word: fixed by the data.
    """
    one = np.uint64(1)
    extra = 1.0 if endpoints else 0.0
    for d in range(nl - 1, 0, -1):
        for e in range(lstart[d], lstart[d + 1]):
            v = lv[e]
            bits = lb[e]
            word[v] = bits
            vb = v * width
            t = 0.0
            while bits:
                s = _ctz64(bits)
                bits &= bits - one
                t += delta[vb + s] + extra
                count[s] += 1
                delta[vb + s] = (1.0 + delta[vb + s]) / sigma[vb + s]
            node_acc[v] += t
        for e in range(lstart[d - 1], lstart[d]):
            u = lv[e]
            bits = lb[e]
            ub = u * width
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                dag = bits & word[v]
                if dag:
                    vb = v * width
                    esum = 0.0
                    while dag:
                        s = _ctz64(dag)
                        dag &= dag - one
                        c = sigma[ub + s] * delta[vb + s]
                        delta[ub + s] += c
                        esum += c
                    if want_edges:
                        edge_acc[slot_edge[j]] += esum
        for e in range(lstart[d], lstart[d + 1]):
            word[lv[e]] = 0
    if endpoints:
        for i in range(srcs.size):
            node_acc[srcs[i]] += count[i]
    count[:] = 0


@numba.njit(cache=True)
def _reset_block(ne, width, lv, lb, visited, sigma, delta):
    one = np.uint64(1)
    for e in range(ne):
        v = lv[e]
        bits = lb[e]
        vb = v * width
        while bits:
            s = _ctz64(bits)
            bits &= bits - one
            sigma[vb + s] = 0.0
            delta[vb + s] = 0.0
        visited[v] = 0


@numba.njit(cache=True, parallel=True)
def _block_rows_bitset(sources, width, n, indptr, indices, slot_edge, endpoints, want_edges, m,
                       threads):
    """Per-block accumulator rows (node, edge): ``width`` sources per block and row.

    Of ``T = min(threads, blocks)`` workers, worker ``t`` runs blocks ``t, t +
    T, ...`` with one workspace; a block's row depends on its sources only,
    so the rows (summed in block order) are the same for any thread count.
    """
    node_rows, edge_rows = _accumulators(sources, width, n, m, want_edges)
    nb = node_rows.shape[0]
    nt = max(1, min(threads, nb))
    for t in prange(nt):
        visited = np.zeros(n, np.uint64)
        word = np.zeros(n, np.uint64)
        sigma = np.zeros(n * width)
        delta = np.zeros(n * width)
        lv = np.empty(max(n, 1), np.int32)
        lb = np.empty(max(n, 1), np.uint64)
        lstart = np.empty(64, np.int64)
        count = np.zeros(width, np.int64)
        for c in range(t, nb, nt):
            srcs = sources[c * width:min((c + 1) * width, sources.size)]
            nl, ne, lv, lb, lstart = _bfs_block(srcs, width, indptr, indices, visited, word, sigma,
                                                lv, lb, lstart)
            _accumulate_block(srcs, nl, width, indptr, indices, slot_edge, lv, lb, lstart, word,
                              sigma, delta, count, endpoints, want_edges, node_rows[c], edge_rows[c])
            _reset_block(ne, width, lv, lb, visited, sigma, delta)
    return node_rows, edge_rows


@numba.njit(cache=True)
def sample_sources(n, k, seed, stream):
    """``k`` distinct vertices of ``0..n-1``, sorted, by a seeded partial
    Fisher-Yates shuffle driven by the counter-based RNG."""
    perm = np.arange(n, dtype=np.int64)
    for i in range(k):
        j = i + randint(seed, stream, i, n - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    return np.sort(perm[:k])
