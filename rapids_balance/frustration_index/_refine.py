"""Refinement beyond the trees: searching bipartitions directly.

A balanced state is a bipartition ``x in {-1, +1}^n``; it switches the edges
it frustrates, ``sign[e] * x[u] * x[v] < 0``.  graphB++ only looks at the
bipartitions its spanning trees produce.  This module improves them with a
multilevel memetic local search (our design, not from the papers):

* **moves**: flipping vertex ``v`` lowers the frustration by its gain
  ``d[v] = -sum_{u ~ v} J[vu] x[v] x[u]``.  A tabu search (gain buckets, the
  best non-tabu move each step, recently moved vertices tabu, rolled back to
  the best state seen) moves single vertices.
* **clusters**: a V-cycle contracts satisfied edges into weighted "super
  vertices" (a coarse vertex fixes its members' sides relative to each other;
  a coarse edge carries the signed sum ``J`` of the edges it stands for),
  level after level, and runs the tabu search on every level on the way back
  up, so whole groups of vertices (positive components and the like) move
  together.
* **recombination**: a population of states is improved by V-cycles that
  only contract edges satisfied in *both* of two parents, so the coarse
  graphs contain both parents and the search starts from the better one;
  children never get worse than that parent.
* **restarts** (``RefineParams.restarts``, off by default): after the
  rounds, the best state and V-cycles from copies of it with a BFS ball
  moved across the cut, then rounds again.
* **large graphs**: ``RefineParams.grow`` lets clusters grow past pairs on
  every level (coarse levels shrink several times, not twice, so the levels
  hold a small multiple of the graph's edges); the signs (:func:`slot_signs`)
  and the contracted sums are int16, widened to int32 only on a level whose
  sums need it.

Every step is deterministic for a given seed (matching orders and tie breaks
come from ``_random.hash64``), and independent V-cycles run in threads (the
kernels release the GIL) without changing any result.

Finally :func:`parallel_descent` polishes the state with rounds of
simultaneous single-vertex moves (all gains evaluated at once; a vertex with
positive gain moves if it beats every neighbour with positive gain, so the
moved vertices are independent and every round lowers the frustration).
The GPU runs this step as numba-cuda kernels (``_gpu.py``) with the same
result.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from .._random import hash64
from .._chunks import run_chunks, slot_chunks
from ..clustering._moves import members_by_cluster
from .._host_sort import merge_argsort, merge_sort
from .._deadline import NO_DEADLINE, now, overdue, passed
from ._shared import MOVE_STREAM, _move_priority  # noqa: F401 (MOVE_STREAM: one of the streams below)

__all__ = ["RefineParams", "refine", "parallel_descent", "vertex_gains", "vcycle_job",
           "level0_of", "ThreadVCycles"]

MATCH_STREAM = 0x4D415443    # "MATC": visiting order of the matching
TIE_STREAM = 0x54494542      # "TIEB": tie breaks between equal edges
PAIR_STREAM = 0x50414952     # "PAIR": recombination partners
PERTURB_STREAM = 0x50455254  # "PERT": roots of the perturbed regions of restarts

#: :func:`_contract_into`'s answer when a contracted sum does not fit its type
OVERFLOW = -2
PAIR, JOIN, GROW = 0, 1, 2   # what _heaviest may contract u into (see there)


@dataclass(frozen=True)
class RefineParams:
    """Effort of the refinement (all counts, no clock: runs are reproducible)."""

    population: int = 8        # states kept and recombined
    rounds: int = 6            # recombination rounds (population // 2 children each)
    patience: int = 2          # stop after this many rounds without a new best
    tabu_factor: int = 10      # tabu steps per vertex on each level
    tenure_divisor: int = 10   # tabu tenure = vertices / tenure_divisor (at least 5)
    stall: int = 2000          # a tabu search stops after this many steps without a new best
    coarsest: int = 64         # stop coarsening below this many vertices
    cluster_divisor: int = 20  # a super vertex holds at most n / cluster_divisor vertices
    grow: int = 0              # 1: clusters grow past pairs on every level (see _match)
    restarts: int = 0          # then restarts (best + V-cycles from perturbed copies, rounds)
                               # until this many in a row find nothing better
    threads: int = 0           # 0: numba's thread count


# ---------------------------------------------------------------------------
# moves: gains and the tabu search
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _gain_of(indptr, idx, J, x, v):
    acc = 0
    for k in range(indptr[v], indptr[v + 1]):
        acc -= J[k] * x[v] * x[idx[k]]
    return acc


@numba.njit(cache=True, nogil=True)
def _gains_chunk(c, n_chunks, indptr, idx, J, x, d):
    """Chunk ``c`` of :func:`_gains_cpu`: a contiguous range of vertices (GIL released)."""
    n = x.size
    for v in range(n * c // n_chunks, n * (c + 1) // n_chunks):
        d[v] = _gain_of(indptr, idx, J, x, v)


def _gains_cpu(indptr, idx, J, x, d):
    """Every vertex's gain into ``d``, in chunks on threads (:mod:`rapids_balance._chunks`:
    a ``prange`` would compile numba's parfor passes, seconds of a first call)."""
    k = slot_chunks(idx.size)
    run_chunks(lambda c: _gains_chunk(c, k, indptr, idx, J, x, d), k)


@numba.njit(cache=True, nogil=True)
def _cost(indptr, idx, J, x):
    f = 0
    for v in range(x.size):
        for k in range(indptr[v], indptr[v + 1]):
            if J[k] * x[v] * x[idx[k]] < 0:
                f += abs(J[k])
    return f // 2


@numba.njit(cache=True, inline="always")
def _bucket_push(head, nxt, prv, v, b):
    nxt[v] = head[b]
    prv[v] = -1
    if head[b] >= 0:
        prv[head[b]] = v
    head[b] = v


@numba.njit(cache=True, inline="always")
def _bucket_unlink(head, nxt, prv, v, b):
    p = prv[v]
    q = nxt[v]
    if p >= 0:
        nxt[p] = q
    else:
        head[b] = q
    if q >= 0:
        prv[q] = p


@numba.njit(cache=True, nogil=True)
def _tabu(indptr, idx, J, x, iters, tenure, deadline, stall=2**62, hard=NO_DEADLINE):
    """Tabu search from ``x`` (modified in place, left at the best state seen).

    Stops after ``iters`` steps or ``stall`` steps in a row without a new
    best.  Past ``deadline`` (``perf_counter`` seconds) it only finishes the
    run of improving moves it is on (a greedy descent when called late): a
    V-cycle cut by the deadline still returns the gains of the levels it
    built, at the cost of one pass over each level's edges.  Past ``hard``
    it stops where it is (and does not start: its set-up is a pass over the
    level).  The clock is read every ``CHECK_WORK`` adjacency entries
    scanned, so a run of hub moves cannot overrun.
    Returns the drop in frustration (>= 0).
    """
    if hard != NO_DEADLINE and now() >= hard:
        return 0
    n = x.size
    d = np.empty(n, np.int64)
    D = 0
    for v in range(n):
        d[v] = _gain_of(indptr, idx, J, x, v)
        wd = 0
        for k in range(indptr[v], indptr[v + 1]):
            wd += abs(J[k])
        D = max(D, wd)
    # vertex ids fit int32 (as in the graph's CSR): the buckets and the log take half the memory
    head = np.full(2 * D + 1, -1, np.int32)
    nxt = np.empty(n, np.int32)
    prv = np.empty(n, np.int32)
    free = np.ones(n, np.bool_)  # not tabu: in the buckets
    for v in range(n):
        _bucket_push(head, nxt, prv, v, d[v] + D)
    top = 2 * D
    cur = 0
    best = 0
    best_it = 0
    log = np.empty(iters, np.int32)
    tenure = max(1, min(tenure, n - 1))
    queue = np.empty(tenure + 1, np.int32)
    qh = 0
    qn = 0
    it = 0
    # np.int64: a literal 0 passed on would compile the callee once more for Literal[int](0)
    work = np.int64(0)
    mark = np.int64(0)
    soft = deadline
    while it < iters and it - best_it <= stall:
        late, mark = overdue(soft, work, mark)
        if late:
            if soft == hard:  # past the hard deadline too: back to the best seen
                break
            stall = 0  # past the deadline: improving moves only, then back to the best seen
            soft = hard
        while top >= 0 and head[top] < 0:
            top -= 1
        if top < 0:
            break
        v = head[top]
        _bucket_unlink(head, nxt, prv, v, top)
        free[v] = False
        g = d[v]
        cur -= g
        x[v] = -x[v]
        d[v] = -g
        work += indptr[v + 1] - indptr[v] + 1
        for k in range(indptr[v], indptr[v + 1]):
            u = idx[k]
            delta = -2 * J[k] * x[v] * x[u]
            if free[u]:
                _bucket_unlink(head, nxt, prv, u, d[u] + D)
                d[u] += delta
                b = d[u] + D
                _bucket_push(head, nxt, prv, u, b)
                if b > top:
                    top = b
            else:
                d[u] += delta
        log[it] = v
        it += 1
        if cur < best:
            best = cur
            best_it = it
        queue[(qh + qn) % (tenure + 1)] = v
        qn += 1
        if qn > tenure:  # the oldest tabu vertex becomes free again
            w = queue[qh]
            qh = (qh + 1) % (tenure + 1)
            qn -= 1
            b = d[w] + D
            _bucket_push(head, nxt, prv, w, b)
            free[w] = True
            if b > top:
                top = b
    for j in range(it - 1, best_it - 1, -1):
        x[log[j]] = -x[log[j]]
    return -best


# ---------------------------------------------------------------------------
# clusters: matching, contraction, V-cycles
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _edge_key(J, k, seed, level):
    """Heavier |J| first; equal weights in a seeded random order."""
    return np.uint64(abs(J[k])) * np.uint64(4294967296) + (hash64(seed, TIE_STREAM + level, k)
                                                          >> np.uint64(32))


@numba.njit(cache=True, inline="always")
def _contractible(J, k, x, x2, u, v, respect):
    return not respect or (J[k] * x[u] * x[v] > 0 and J[k] * x2[u] * x2[v] > 0)


@numba.njit(cache=True, inline="always")
def _heaviest(indptr, idx, J, x, x2, u, cmap, csize, vw, limit, seed, level, respect, mode):
    """CSR slot of u's heaviest contractible edge (-1 if none).

    ``mode`` 0 (PAIR): to an unclustered neighbour; 1 (JOIN): into a
    neighbour's cluster; 2 (GROW): either.  Clusters stay within ``limit``
    vertices.
    """
    bw = np.uint64(0)
    bk = -1
    for k in range(indptr[u], indptr[u + 1]):
        v = idx[k]
        if cmap[v] >= 0:
            if mode == PAIR or csize[cmap[v]] + vw[u] > limit:
                continue
        elif mode == JOIN or vw[u] + vw[v] > limit:
            continue
        if not _contractible(J, k, x, x2, u, v, respect):
            continue
        a = _edge_key(J, k, seed, level)
        if a > bw:
            bw = a
            bk = k
    return bk


@numba.njit(cache=True, nogil=True)
def _match(indptr, idx, J, x, x2, vw, limit, seed, level, respect, grow, deadline=NO_DEADLINE):
    """Cluster the vertices of one level: heavy-edge pairs, then leftovers join a neighbour.

    With ``respect`` only edges satisfied by both ``x`` and ``x2`` are
    contracted, so both states survive on the coarse level.  With ``grow``
    the first pass already lets a vertex join a neighbour's cluster, so
    clusters grow up to ``limit`` and a level shrinks several times instead
    of about twice (fewer levels: less time and memory on large graphs).
    Returns (cmap, orient, n_coarse, coarse vertex weights): fine vertex
    ``v`` sits in coarse vertex ``cmap[v]`` with ``x[v] = orient[v] * X[cmap[v]]``;
    once ``deadline`` passes, n_coarse = n (no level: the caller stops coarsening).
    """
    n = indptr.size - 1
    key = np.empty(n, np.uint64)
    for v in range(n):
        key[v] = hash64(seed, MATCH_STREAM + level, v)
    # distinct keys (hash64 is a bijection of v), so any sort gives this order
    perm = merge_argsort(key).astype(np.int64)
    cmap = np.full(n, -1, np.int32)  # held for the whole V-cycle: half the memory of int64
    orient = np.ones(n, np.int8)
    csize = np.zeros(n, np.int32)  # vertex counts
    nc = 0
    first = GROW if grow else PAIR
    work = np.int64(0)  # not a literal 0: see _tabu
    mark = np.int64(0)
    for i in range(n):  # heavy-edge matching
        u = perm[i]
        work += indptr[u + 1] - indptr[u] + 1
        late, mark = overdue(deadline, work, mark)
        if late:
            return cmap, orient, n, csize
        if cmap[u] >= 0:
            continue
        bk = _heaviest(indptr, idx, J, x, x2, u, cmap, csize, vw, limit, seed, level, respect, first)
        if bk >= 0 and cmap[idx[bk]] >= 0:
            v = idx[bk]
            c = cmap[v]
            cmap[u] = c
            orient[u] = orient[v] if J[bk] > 0 else -orient[v]
            csize[c] += vw[u]
        elif bk >= 0:
            v = idx[bk]
            cmap[u] = nc
            cmap[v] = nc
            orient[v] = 1 if J[bk] > 0 else -1
            csize[nc] = vw[u] + vw[v]
            nc += 1
    for i in range(n):  # hubs leave many unmatched leaves: let them join a neighbour's cluster
        u = perm[i]
        if cmap[u] >= 0:
            continue
        work += indptr[u + 1] - indptr[u] + 1
        late, mark = overdue(deadline, work, mark)
        if late:
            return cmap, orient, n, csize
        bk = _heaviest(indptr, idx, J, x, x2, u, cmap, csize, vw, limit, seed, level, respect, JOIN)
        if bk >= 0:
            v = idx[bk]
            c = cmap[v]
            cmap[u] = c
            orient[u] = orient[v] if J[bk] > 0 else -orient[v]
            csize[c] += vw[u]
        else:
            cmap[u] = nc
            csize[nc] = vw[u]
            nc += 1
    return cmap, orient, nc, csize[:nc].copy()


@numba.njit(cache=True, nogil=True)
def _project_down(x, cmap, orient, nc):
    """Coarse state from a fine one (exact when only satisfied edges were contracted)."""
    X = np.ones(nc, np.int8)
    for v in range(x.size):
        X[cmap[v]] = orient[v] * x[v]
    return X


@numba.njit(cache=True, nogil=True)
def _project_up(X, cmap, orient):
    x = np.empty(cmap.size, np.int8)
    for v in range(cmap.size):
        x[v] = orient[v] * X[cmap[v]]
    return x


def _coarsen(indptr, idx, J, cmap, orient, nc, deadline=NO_DEADLINE, wide=np.int32):
    """Contract clusters: coarse edges carry the signed sums of their fine edges.

    Row by row (the members of each coarse vertex), columns ascending;
    opposite edges that cancel are dropped (such a pair no longer cares
    about sides).  Memory: the output plus O(n) scratch: the edge arrays
    are sized for the fine level's entries, written only as far as the
    coarse level needs, then shrunk in place (no copy: a level of a large
    graph is the search's largest allocation, held by every V-cycle in
    flight).  The sums are int16 (on large sparse graphs most coarse edges
    carry one or a few fine edges), as the finest level's signs are, unless
    the fine level's are already wider or one sum does not fit int16: then
    the level is built again in ``wide`` (int32 holds any sum below 2**31
    edges).  No level is narrower than int16, although most sums would fit
    int8: every kernel over levels compiles once per sum type (seconds of a
    first call each), and one byte less per CSR slot saves little (see
    :func:`slot_signs`).  Once ``deadline`` passes it gives up: the returned
    row pointer has one entry, not ``nc + 1``.
    """
    out_ptr = np.zeros(nc + 1, np.int64)
    out_idx = np.empty(idx.size, np.int32)  # vertex ids fit (as in the graph's CSR)
    for dtype in ((np.int16, wide) if J.dtype.itemsize <= 2 else (wide,)):
        out_J = np.empty(idx.size, dtype)
        pos, big = _contract_into(indptr, idx, J, cmap, orient, nc, out_ptr, out_idx, out_J,
                                  np.iinfo(dtype).max, deadline)
        if pos != OVERFLOW:
            break
    if pos < 0:
        return _read_only(out_ptr[:1].copy(), out_idx[:0].copy()) + (out_J[:0].copy(),)
    # arrays made here own their memory: realloc returns the unwritten tail without moving
    out_idx.resize(pos, refcheck=False)
    out_J.resize(pos, refcheck=False)
    return _read_only(out_ptr, out_idx) + (out_J,)


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays, no longer writable: a coarse level's CSR then has the numba type of the
    graph's own (read-only), so the kernels over levels compile once, not once per flag."""
    for arr in arrays:
        arr.flags.writeable = False
    return arrays


@numba.njit(cache=True, nogil=True)
def _contract_into(indptr, idx, J, cmap, orient, nc, out_ptr, out_idx, out_J, jmax, deadline):
    """:func:`_coarsen`'s kernel: writes the coarse CSR into the ``out_`` arrays;
    returns its number of entries (-1 once ``deadline`` passed, ``OVERFLOW``
    when a sum is beyond ``±jmax``) and the largest absolute sum written."""
    start, members = members_by_cluster(cmap, nc)
    acc = np.zeros(nc, np.int64)
    seen = np.full(nc, -1, np.int32)
    # uint64: the key type of every merge sort of the package (one compiled sort, not one per type)
    touched = np.empty(nc, np.uint64)
    pos = 0
    big = 0
    work = np.int64(0)  # not literal 0s: see _tabu
    mark = np.int64(0)
    for c in range(nc):
        # clusters hold very different numbers of edges: the clock follows the edges scanned
        late, mark = overdue(deadline, work, mark)
        if late:
            return -1, big
        nt = np.int64(0)
        for q in range(start[c], start[c + 1]):
            u = members[q]
            work += indptr[u + 1] - indptr[u] + 1
            for k in range(indptr[u], indptr[u + 1]):
                w = idx[k]
                cw = cmap[w]
                if cw == c:
                    continue
                if seen[cw] != c:
                    seen[cw] = c
                    acc[cw] = 0
                    touched[nt] = cw
                    nt += 1
                acc[cw] += J[k] * orient[u] * orient[w]
        merge_sort(touched, nt)  # distinct columns: the order np.sort gives
        cols = touched
        for t in range(nt):
            a = acc[cols[t]]
            if a > jmax or a < -jmax:
                return OVERFLOW, big
            if a != 0:
                big = max(big, abs(a))
                out_idx[pos] = cols[t]
                out_J[pos] = acc[cols[t]]
                pos += 1
        out_ptr[c + 1] = pos
    return pos, big


def slot_signs(graph) -> np.ndarray:
    """Sign (±1) of the edge of every CSR slot: the finest level's ``J``, int16.

    The kernels compute in int64 whatever ``J``'s type; the contracted
    levels hold their sums in int16, or int32 where a sum needs it
    (:func:`_coarsen`).  The signs are int16, not int8, so that the finest
    level and the coarse ones share one compiled kernel per stage (the
    matching, the contraction, the tabu search: about 5 s of a first call's
    compiling for a second width): 2 bytes more per edge (two slots), 0.2 GB
    at 10^8 edges, next to the graph's own 25 bytes per edge (both ends,
    sign, CSR columns and slot edges).
    """
    return graph.sign[graph.slot_edge].astype(np.int16)


def _u64(seed: int) -> np.uint64:
    """A derived seed (``seed * 7919 + k`` may pass 2**64) as the kernels' uint64, modulo 2**64."""
    return np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)


def _vcycle(level0, x, seed, respect, x2=None, p: RefineParams = RefineParams(),
            deadline: float = NO_DEADLINE, hard: float = NO_DEADLINE):
    """One V-cycle; returns the refined copy of ``x``.

    At ``deadline`` the coarsening stops and the tabu searches end (a greedy
    descent on each level on the way up, none past ``hard``), but the
    state is still projected back up: a valid state, never worse than the
    start when ``respect`` holds.
    """
    indptr, idx, J = level0
    # a coarse edge carries the signed sum of at most m fine edges
    wide = np.int32 if idx.size < 2**32 else np.int64
    x = x.copy()
    x2 = x if x2 is None else x2
    levels = []
    vw = np.ones(indptr.size - 1, np.int32)
    limit = max(2, (indptr.size - 1) // p.cluster_divisor)
    lev = 0
    while indptr.size - 1 > p.coarsest and not passed(deadline):
        cmap, orient, nc, cw = _match(indptr, idx, J, x, x2, vw, limit, _u64(seed), lev, respect,
                                      p.grow > 0, deadline)
        if nc > 0.95 * (indptr.size - 1):
            break
        coarse = _coarsen(indptr, idx, J, cmap, orient, nc, deadline, wide)
        if coarse[0].size != nc + 1:  # the deadline passed while contracting: no such level
            break
        levels.append((indptr, idx, J, cmap, orient))
        x, x2 = _project_down(x, cmap, orient, nc), _project_down(x2, cmap, orient, nc)
        indptr, idx, J = coarse
        coarse = None
        vw = cw
        lev += 1
    n = indptr.size - 1
    _tabu(indptr, idx, J, x, 20 * n + 1000, max(5, n // 20), deadline, p.stall, hard)
    del indptr, idx, J
    while levels:
        # the coarser levels go as the state climbs: the finest level's tabu search,
        # the largest, does not share the memory with the whole hierarchy
        fp, fi, fj, cmap, orient = levels.pop()
        x = _project_up(x, cmap, orient)
        del cmap, orient
        nn = fp.size - 1
        _tabu(fp, fi, fj, x, max(p.tabu_factor * nn, 10_000), max(5, nn // p.tenure_divisor),
              deadline, p.stall, hard)
    return x


def compile_wide_levels(graph, max_sum: int | None = None) -> None:
    """Compile the kernels of levels whose sums are wider than int16, on ``graph`` (tiny).

    A small graph's sums always fit int16 (the finest level's signs and
    every contracted sum, see :func:`_coarsen`), so a warm-up run on one
    never builds a wider level; a large graph's deeper levels may, and their
    kernels (the contraction into int32 from int16 and int32 levels, the
    matching and the tabu search on int32 sums) would otherwise compile
    inside a timed search.  ``max_sum``: a bound on every coarse sum of the
    graph to be searched (its edge count: a coarse edge sums fine ones); a
    graph of fewer than 32768 edges never needs int32 sums, and nothing is
    compiled for it.  None: every width.
    """
    big = np.iinfo(np.int64).max if max_sum is None else int(max_sum)
    if big <= np.iinfo(np.int16).max:
        return
    # every level's CSR is read-only (the graph's, and _coarsen's), so one CSR type serves
    # all; int16 sums may need int32 on the next level, int32 sums stay int32
    ptr, ix = _read_only(graph.indptr.copy(), graph.indices.astype(np.int32))  # copies
    cmap = np.zeros(graph.n, np.int32)
    orient = np.ones(graph.n, np.int8)
    for fine in (np.int16, np.int32):
        _contract_into(ptr, ix, np.ones(ix.size, fine), cmap, orient, 1, np.zeros(2, np.int64),
                       np.empty(ix.size, np.int32), np.empty(ix.size, np.int32),
                       np.iinfo(np.int32).max, NO_DEADLINE)
    _vcycle((ptr, ix, slot_signs(graph).astype(np.int32)), np.ones(graph.n, np.int8), 0, True,
            p=RefineParams(coarsest=8, grow=1), deadline=time.perf_counter() + 3600.0)


# ---------------------------------------------------------------------------
# the population search
# ---------------------------------------------------------------------------

def _canonical(x):
    return x if x[0] > 0 else -x


def level0_of(graph, signs=None) -> tuple:
    """The finest level of every V-cycle: the graph's CSR (int32 columns) and slot signs."""
    return (graph.indptr, np.ascontiguousarray(graph.indices, dtype=np.int32),
            slot_signs(graph) if signs is None else signs)


def vcycle_job(level0, job, params: RefineParams, deadline: float = NO_DEADLINE,
               hard: float = NO_DEADLINE):
    """One job of the population search: ``job = (x, seed, respect, x2, late)``.

    A V-cycle from ``x`` (with ``x2`` the second parent of a recombination,
    None for a fresh or perturbed start); ``(cost, state)``, or None when
    ``deadline`` passed before it started (unless ``late``: the one V-cycle a
    search that got no other makes, a greedy descent on each level).  Pure:
    the same job gives the same answer in any thread or process.
    """
    x0, s, respect, x2, late = job
    if passed(deadline) and not late:  # a V-cycle started after the limit only costs time
        return None
    x = _vcycle(level0, x0, s, respect, x2, params, deadline, hard)
    return int(_cost(level0[0], level0[1], level0[2], x)), x


class ThreadVCycles:
    """The population's V-cycles on this process's threads (the kernels release the GIL).

    The interface of every runner of :func:`refine`'s jobs: ``slots`` (V-cycles
    run side by side) and ``map(jobs)`` (their answers in job order, None for
    a job the deadline skipped).
    """

    where = "threads"

    def __init__(self, level0, params: RefineParams, deadline: float, hard: float):
        self.slots = params.threads or numba.get_num_threads()
        self._run = lambda job: vcycle_job(level0, job, params, deadline, hard)
        self._pool = ThreadPoolExecutor(max_workers=self.slots)

    def map(self, jobs: list) -> list:
        return list(self._pool.map(self._run, jobs))

    def close(self) -> None:
        self._pool.shutdown()


def refine(graph, starts, *, seed: int = 0, params: RefineParams = RefineParams(),
           progress=None, deadline: float = NO_DEADLINE, hard: float = NO_DEADLINE,
           signs=None, runner=None):
    """Improve the bipartitions ``starts`` (list of ±1 int8 vectors) by multilevel memetic search.

    Half the population grows from the given states (cluster V-cycles that
    never make a state worse), the other half from fresh V-cycles; then
    ``params.rounds`` rounds of recombination (fewer after
    ``params.patience`` rounds without a new best), then
    ``params.restarts`` restarts, each followed by rounds, until that many
    in a row bring no new best.  At ``deadline`` (``time.perf_counter()``
    seconds) the running V-cycles end early and no new round or restart
    starts; the V-cycles it cut make only improving moves on their way up,
    and none past ``hard`` (so that a caller can budget for what follows).
    ``signs``: :func:`slot_signs` of the graph when the caller has them.
    ``runner``: what runs the V-cycles of a generation (:class:`ThreadVCycles`
    by default; the frustration index hands a cluster's); each generation's
    V-cycles are independent jobs (:func:`vcycle_job`) and their answers are
    taken in job order, so the runner changes no result while no deadline
    cuts the search.
    Returns ``(x, history)``: the best state (int8 ±1) and the best
    frustration after each round and restart.
    """
    P = max(2, int(params.population))
    jobs = []
    for k in range(P):
        if k < (P + 1) // 2 and starts:
            jobs.append((np.asarray(starts[k % len(starts)], np.int8), seed * 7919 + k, True,
                         None, False))
        else:
            jobs.append((np.ones(graph.n, np.int8), seed * 7919 + k, False, None, False))
    own = runner is None
    if own:
        runner = ThreadVCycles(level0_of(graph, signs), params, deadline, hard)
    history = []
    try:
        if deadline == NO_DEADLINE:
            pop = runner.map(jobs)
        else:
            pop = _timed_generation(jobs, runner, deadline)
        history.append(min(c for c, _ in pop))
        if progress is not None:
            progress(history[-1])
        # r: rounds so far over all restarts (their seeds stay apart)
        r = _rounds(pop, runner, seed, 0, params, history, progress, deadline)
        restart = stale_restarts = 0
        while stale_restarts < params.restarts and not passed(deadline):
            restart += 1
            best_before = history[-1]
            # the perturbed regions are BFS balls grown here, on the graph's own CSR
            pop = _restart(pop, runner, (graph.indptr, graph.indices), seed, restart, len(pop))
            history.append(min(c for c, _ in pop))
            if progress is not None:
                progress(history[-1])
            r = _rounds(pop, runner, seed, r, params, history, progress, deadline)
            stale_restarts = stale_restarts + 1 if history[-1] >= best_before else 0
    finally:
        if own:
            runner.close()
    i = min(range(len(pop)), key=lambda i: (pop[i][0], i))
    return pop[i][1], history


def _timed_generation(jobs, runner, deadline):
    """The first generation under a deadline, sized by the time its first wave took.

    The first wave (one V-cycle per slot of ``runner``: a thread, or a task
    thread of a cluster's worker; the best tree states first)
    gives a good state early; its wall time, measured on the machine as it
    is (a busy machine makes it longer), says how many more V-cycles fit:
    the population grows only as far as its first generation and
    ``ROUNDS_AHEAD`` rounds of recombination fit in the time left
    (:func:`_affordable`), so a short limit or a loaded machine still gets
    to recombine instead of spending its time on starts.  V-cycles that
    would start after the deadline are skipped, but for the first (then a
    greedy descent on each level: :func:`_tabu`).  Every member is a
    ``(cost, x)`` pair.
    """
    slots = runner.slots
    t = time.perf_counter()
    pop = [r for r in runner.map(jobs[:slots]) if r is not None]
    if not pop:  # the limit passed before the refinement: a greedy V-cycle from the best start
        pop = [runner.map([jobs[0][:4] + (True,)])[0]]
    now = time.perf_counter()
    size = _affordable(len(jobs), slots, now - t, deadline - now)
    if size > slots:
        pop += [r for r in runner.map(jobs[slots:size]) if r is not None]
    return pop


#: rounds of recombination that a timed first generation leaves room for
ROUNDS_AHEAD = 2


def _affordable(population: int, threads: int, wave: float, left: float) -> int:
    """The largest population (``threads`` .. ``population``, at least 2) whose
    remaining starts and ``ROUNDS_AHEAD`` rounds take at most ``left`` seconds,
    at ``wave`` seconds per wave of ``threads`` V-cycles side by side."""
    if wave <= 0.0:
        return population
    budget = left / wave
    best = min(population, max(2, threads))
    for size in range(best, population + 1):
        waves = (math.ceil(max(size - threads, 0) / threads)
                 + ROUNDS_AHEAD * math.ceil((size // 2) / threads))
        if waves <= budget:
            best = size
    return best


def _restart(pop, runner, csr, seed, restart, P):
    """The best state and ``P - 1`` V-cycles from perturbed copies of it: new material to
    recombine.  Copy ``k`` has a BFS ball of ``n / 2**(3 + k % 4)`` vertices around a
    seeded random root moved across the cut (a region, so that the search must move it
    as a block or repair its border, unlike scattered single flips that one tabu pass
    undoes)."""
    keep = min(range(P), key=lambda i: (pop[i][0], i))
    best = pop[keep][1]
    n = best.size
    jobs = []
    for k in range(P - 1):
        root = int(hash64(_u64(seed), PERTURB_STREAM, restart * P + k) % np.uint64(n))
        ball = bfs_ball(csr[0], csr[1], root, max(2, n >> (3 + k % 4)))
        x = best.copy()
        x[ball] = -x[ball]
        jobs.append((x, seed * 7919 + 1_000_003 * restart + k, True, None, False))
    return [pop[keep]] + [r for r in runner.map(jobs) if r is not None]


@numba.njit(cache=True, nogil=True)
def bfs_ball(indptr, idx, root, limit):
    """The first ``limit`` vertices a BFS from ``root`` reaches (all it reaches if fewer)."""
    n = indptr.size - 1
    seen = np.zeros(n, np.bool_)
    queue = np.empty(max(1, min(limit, n)), np.int32)
    seen[root] = True
    queue[0] = root
    head, tail = 0, 1
    while head < tail and tail < queue.size:
        u = queue[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = idx[k]
            if not seen[v]:
                seen[v] = True
                queue[tail] = v
                tail += 1
                if tail == queue.size:
                    break
    return queue[:tail]


def _rounds(pop, runner, seed, r, params, history, progress, deadline):
    """Recombination rounds (in place on ``pop``) until ``params.patience`` bring nothing
    new or ``params.rounds`` are done; returns the round counter ``r`` after them."""
    P = len(pop)
    stale = 0
    for _ in range(int(params.rounds)):
        if passed(deadline) or P < 2:  # a timed population may hold a single state
            break
        ranked = sorted(range(P), key=lambda i: (pop[i][0], i))
        jobs = []
        for k in range(P // 2):
            a = ranked[k]
            b = ranked[(k + 1 + int(hash64(_u64(seed), PAIR_STREAM, r * P + k)
                                    % np.uint64(P - 1))) % P]
            if pop[b][0] < pop[a][0]:
                a, b = b, a
            # the child grows from the better parent a, keeping what both parents agree on
            jobs.append((pop[a][1], seed * 7919 + 1000 * (r + 1) + k, True, pop[b][1], False))
        children = [c for c in runner.map(jobs) if c is not None]
        for c, x in children:  # in pair order: deterministic
            cx = _canonical(x)
            if any(np.array_equal(cx, _canonical(y)) for _, y in pop):
                continue
            worst = max(range(P), key=lambda i: (pop[i][0], i))
            if c <= pop[worst][0]:
                pop[worst] = (c, x)
        best = min(c for c, _ in pop)
        stale = stale + 1 if best >= history[-1] else 0
        history.append(best)
        r += 1
        if progress is not None:
            progress(best)
        if stale >= params.patience:
            break
    return r


# ---------------------------------------------------------------------------
# polish: all moves evaluated at once (CPU here, GPU in _gpu.py)
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _wins(indptr, idx, d, v, seed):
    """True when v has a positive gain and beats every neighbour with a positive gain."""
    if d[v] <= 0:
        return False
    pv = _move_priority(d[v], v, seed)
    for k in range(indptr[v], indptr[v + 1]):
        u = idx[k]
        if d[u] > 0 and (_move_priority(d[u], u, seed) > pv
                         or (_move_priority(d[u], u, seed) == pv and u > v)):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _wins_chunk(c, n_chunks, indptr, idx, d, seed, flip):
    """Chunk ``c`` of :func:`_descent_round_cpu`'s choice: a contiguous range of vertices."""
    n = flip.size
    for v in range(n * c // n_chunks, n * (c + 1) // n_chunks):
        flip[v] = _wins(indptr, idx, d, v, seed)


def _descent_round_cpu(indptr, idx, J, x, d, seed, flip):
    """One round of simultaneous moves (the gains ``d`` of ``x`` given); returns the number moved."""
    k = slot_chunks(idx.size)
    run_chunks(lambda c: _wins_chunk(c, k, indptr, idx, d, seed, flip), k)
    x[flip] = -x[flip]
    return int(np.count_nonzero(flip))


def vertex_gains(graph, x, *, backend: str = "cpu") -> np.ndarray:
    """Drop in frustration from moving each vertex across the cut, all at once (int64)."""
    x = np.ascontiguousarray(x, dtype=np.int8)
    J = slot_signs(graph)
    if backend == "gpu":
        from ._gpu import vertex_gains_gpu

        return vertex_gains_gpu(graph, x, J)
    d = np.empty(graph.n, np.int64)
    _gains_cpu(graph.indptr, graph.indices, J, x, d)
    return d


def parallel_descent(graph, x, *, seed: int = 0, backend: str = "cpu", max_rounds: int = 10_000,
                     deadline: float = NO_DEADLINE, signs=None):
    """Simultaneous improving moves until no vertex move lowers the frustration.

    Returns ``(x, rounds)``; ``x`` is a 1-opt local minimum unless
    ``deadline`` (``time.perf_counter()`` seconds) passed first: no round
    starts that would end past it, at the pace of the rounds before it.
    CPU and GPU give the same state.  ``signs``: :func:`slot_signs` of
    the graph when the caller has them.
    """
    x = np.array(x, dtype=np.int8, copy=True)
    if backend == "gpu":
        from ._gpu import parallel_descent_gpu

        return parallel_descent_gpu(graph, x, seed, max_rounds, deadline)
    J = slot_signs(graph) if signs is None else signs
    d = np.empty(graph.n, np.int64)
    flip = np.empty(graph.n, np.bool_)
    rounds = 0
    pace = 0.0  # seconds of the slowest round so far
    while rounds < max_rounds and not passed(deadline - pace):
        t = time.perf_counter()
        _gains_cpu(graph.indptr, graph.indices, J, x, d)
        if _descent_round_cpu(graph.indptr, graph.indices, J, x, d, _u64(seed), flip) == 0:
            break
        rounds += 1
        pace = max(pace, time.perf_counter() - t)
    return x, rounds
