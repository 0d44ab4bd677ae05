"""CPU kernels of weighted Brandes betweenness (numba, parallel over sources).

One source is handled by one thread, start to finish:

* phase 1, :func:`_sssp`: Dijkstra with an indexed binary heap, or with
  Dial's circular buckets when every length is a small integer (unweighted
  included: then it is a BFS).  Path counts are *pulled* when a vertex is
  settled: ``sigma[v]`` is the sum of ``sigma[u]`` over settled
  in-neighbours ``u`` with ``d[u] + w(u, v) == d[v]``, in CSR order.  With
  positive lengths every shortest-path predecessor of ``v`` is settled
  before ``v``, so the sum is complete; it has the same terms as the sum the
  GPU kernel forms level by level, and the pop order among equal distances
  cannot change it.
* phase 2, :func:`_accumulate`: dependencies from the last settled vertex
  back to the source, pushed along the predecessor edges recorded in
  phase 1 (the shortest-path DAG; no second scan of every CSR row).

A serial heap per source inside a parallel loop over sources is the fastest
layout on a CPU: the parallelism over sources is embarrassingly wide, and a
heap settles one vertex at a time with no synchronisation.  The GPU kernel
(``_gpu.py``) uses the level-synchronous Dijkstra of the paper instead; both
settle every vertex at the same distance with the same path count.

Determinism: sources are cut into fixed-size chunks; one thread processes a
chunk, in source order, into that chunk's own accumulator row; rows are
summed in chunk order.  The result depends on the data only, never on the
number of threads.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .._random import randint

_UNREACHED = np.int8(0)
_QUEUED = np.int8(1)
_SETTLED = np.int8(2)


# ---------------------------------------------------------------------------
# indexed binary heap keyed by dist[]: heap holds vertices, pos[v] its slot
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _less(dist, a, b):
    # ties by vertex id keep the pop order a function of the data alone
    da = dist[a]
    db = dist[b]
    return da < db or (da == db and a < b)


@numba.njit(cache=True)
def _sift_up(heap, pos, dist, i):
    v = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        u = heap[p]
        if not _less(dist, v, u):
            break
        heap[i] = u
        pos[u] = i
        i = p
    heap[i] = v
    pos[v] = i


@numba.njit(cache=True)
def _pop_min(heap, pos, dist, size):
    """Remove and return the minimum; ``size`` is the size before the pop."""
    top = heap[0]
    size -= 1
    if size > 0:
        v = heap[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and _less(dist, heap[c + 1], heap[c]):
                c += 1
            u = heap[c]
            if not _less(dist, u, v):
                break
            heap[i] = u
            pos[u] = i
            i = c
        heap[i] = v
        pos[v] = i
    pos[top] = -1
    return top


# ---------------------------------------------------------------------------
# phase 1 and phase 2 for one source
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Dial's bucket queue for integer lengths: bucket d % C holds the queued
# vertices at distance d (C > max length covers every queued distance; a
# power of two, so d % C is a mask),
# as doubly linked lists threaded through two per-vertex arrays
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _b_insert(v, b, head, nxt, prv):
    h = head[b]
    nxt[v] = h
    prv[v] = -1
    if h != -1:
        prv[h] = v
    head[b] = v


@numba.njit(cache=True, inline="always")
def _b_remove(v, b, head, nxt, prv):
    p = prv[v]
    q = nxt[v]
    if p != -1:
        nxt[p] = q
    else:
        head[b] = q
    if q != -1:
        prv[q] = p


# ---------------------------------------------------------------------------
# phase 1 and phase 2 for one source
# ---------------------------------------------------------------------------

@numba.njit(cache=True)
def _sssp(s, indptr, indices, wslot, slot_edge, rindptr, rindices, rwslot, rslot_edge,
          directed, nbuckets, dist, sigma, state, order, heap, pos, head, pstart, pvert, pedge):
    """Dijkstra from ``s``; fills dist/sigma and the shortest-path DAG.

    Returns the number of settled vertices; ``order[:count]`` lists them by
    non-decreasing distance.  The predecessors of ``order[i]`` (vertex,
    edge id) are ``pvert/pedge[pstart[i]:pstart[i + 1]]``.
    ``nbuckets == 0``: binary heap (``heap``/``pos``); otherwise Dial's
    buckets (``head`` of size ``nbuckets``, a power of two, lists threaded
    through ``heap``/``pos``), valid when every length is an integer below
    ``nbuckets``.  Undirected graphs pass the same arrays as in-CSR and
    out-CSR and pull path counts in the same scan that relaxes neighbours.
    """
    C = nbuckets
    mask = C - 1  # C is a power of two
    dist[s] = 0.0
    state[s] = _QUEUED
    if C:
        _b_insert(s, 0, head, heap, pos)
    else:
        heap[0] = s
        pos[s] = 0
    size = 1
    cur = 0  # bucket scan position (a distance)
    count = 0
    npred = 0
    while size > 0:
        if C:
            while head[cur & mask] == -1:
                cur += 1
            v = head[cur & mask]
            _b_remove(v, cur & mask, head, heap, pos)
        else:
            v = _pop_min(heap, pos, dist, size)
        size -= 1
        state[v] = _SETTLED
        pstart[count] = npred
        order[count] = v
        count += 1
        dv = dist[v]
        acc = 0.0
        if directed:
            for j in range(rindptr[v], rindptr[v + 1]):
                u = rindices[j]
                if state[u] == _SETTLED and dist[u] + rwslot[j] == dv:
                    acc += sigma[u]
                    pvert[npred] = u
                    pedge[npred] = rslot_edge[j]
                    npred += 1
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            st = state[w]
            if st == _SETTLED:
                if not directed and dist[w] + wslot[j] == dv:
                    acc += sigma[w]
                    pvert[npred] = w
                    pedge[npred] = slot_edge[j]
                    npred += 1
                continue
            nd = dv + wslot[j]
            if st == _UNREACHED:
                dist[w] = nd
                state[w] = _QUEUED
                if C:
                    _b_insert(w, np.int64(nd) & mask, head, heap, pos)
                else:
                    heap[size] = w
                    _sift_up(heap, pos, dist, size)
                size += 1
            elif nd < dist[w]:
                if C:
                    _b_remove(w, np.int64(dist[w]) & mask, head, heap, pos)
                    _b_insert(w, np.int64(nd) & mask, head, heap, pos)
                    dist[w] = nd
                else:
                    dist[w] = nd
                    _sift_up(heap, pos, dist, pos[w])
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
def _reset(count, order, dist, sigma, delta, state):
    # only the vertices this source reached were touched
    for i in range(count):
        v = order[i]
        dist[v] = np.inf
        sigma[v] = 0.0
        delta[v] = 0.0
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


def bc_batch_cpu(sources, chunk, n, indptr, indices, wslot, slot_edge,
                 rindptr, rindices, rwslot, rslot_edge, directed, nbuckets, endpoints, want_edges,
                 tmask, node_out, edge_out):
    """Add the (unnormalised) dependencies of ``sources`` to node_out/edge_out.

    ``sources`` is cut into chunks of ``chunk``; chunk ``c`` goes into row
    ``c`` of the accumulators, rows are summed in order at the end.
    ``nbuckets`` selects the queue of :func:`_sssp`; ``tmask`` (int8, empty
    for all) marks the targets (see :func:`_accumulate`).
    """
    # (numba.parallel_chunksize(1) would balance a busy machine better, but
    # it made the edge variant 4-5x slower in measurements: static split)
    node_rows, edge_rows = _chunk_rows(sources, chunk, n, indptr, indices, wslot, slot_edge,
                                       rindptr, rindices, rwslot, rslot_edge, directed, nbuckets,
                                       endpoints, want_edges, tmask, edge_out.size)
    _sum_rows(node_rows, node_out)
    if want_edges:
        _sum_rows(edge_rows, edge_out)


@numba.njit(cache=True, parallel=True)
def _chunk_rows(sources, chunk, n, indptr, indices, wslot, slot_edge, rindptr, rindices, rwslot,
                rslot_edge, directed, nbuckets, endpoints, want_edges, tmask, m):
    """Per-chunk accumulator rows (node, edge) of a batch of sources."""
    n_src = sources.size
    n_chunks = (n_src + chunk - 1) // chunk
    node_rows = np.zeros((n_chunks, n))
    edge_rows = np.zeros((n_chunks, m if want_edges else 0))
    for c in prange(n_chunks):
        dist = np.full(n, np.inf)
        sigma = np.zeros(n)
        delta = np.zeros(n)
        state = np.zeros(n, np.int8)
        order = np.empty(n, np.int32)
        heap = np.empty(n, np.int32)
        pos = np.full(n, -1, np.int32)
        head = np.full(max(nbuckets, 1), -1, np.int32)
        pstart = np.empty(n + 1, np.int64)
        pvert = np.empty(max(rindices.size, 1), np.int32)
        pedge = np.empty(max(rindices.size, 1), np.int32)
        node_acc = node_rows[c]
        edge_acc = edge_rows[c]
        for i in range(c * chunk, min((c + 1) * chunk, n_src)):
            s = sources[i]
            count = _sssp(s, indptr, indices, wslot, slot_edge, rindptr, rindices, rwslot,
                          rslot_edge, directed, nbuckets, dist, sigma, state, order, heap, pos,
                          head, pstart, pvert, pedge)
            _accumulate(s, count, order, pstart, pvert, pedge, sigma, delta, endpoints,
                        want_edges, tmask, node_acc, edge_acc)
            _reset(count, order, dist, sigma, delta, state)
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
