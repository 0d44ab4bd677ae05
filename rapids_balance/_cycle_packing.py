"""Packings of edge-disjoint cycles through given seed edges, grown and improved.

The search behind two certificates: unbalanced cycles for the frustration
index (:func:`~rapids_balance.frustration_lower_bound`) and cycles with
exactly one negative edge for correlation clustering
(:func:`~rapids_balance.clustering_lower_bound`).  Each asks the same thing:
seed edge ``fe[i]`` must be closed into a cycle by a path from ``fu[i]`` to
``fv[i]`` over edges that are not ``excluded`` and not used by another
cycle.  Only which paths count differs, and that lives in the search graph
the caller builds: its vertices may be copies of the graph's (layers), its
arcs carry the id of the graph edge behind them (``slot_edge``), and
``adj`` / ``radj`` are its out- and in-adjacency (the same CSR for an
undirected search).  Edges, exclusion and ownership are always those of the
graph, so cycles stay edge-disjoint in it whatever the layering.

The packing is greedy, shortest cycles first: round ``L`` looks, for every
seed not yet in a cycle, for a breadth-first shortest path of at most ``L``
unused edges.  Then one-for-two exchanges grow the packing (:func:`_move`):
a seed left out takes a path that crosses one packed cycle, whose own seed
is rerouted over free edges.  Last, a plateau search (:func:`_improve`)
keeps swapping a left-out seed for the one of the cycle its path crosses
when that cycle cannot be rerouted: the packing keeps its size but
changes, and new exchanges open; a cycle swapped in stays for ``tenure``
steps (``TENURE`` by default).  A long tenure keeps the search from
undoing its own swaps: the frustration bound's timed search keeps each
swap for ``LONG_TENURE`` steps (on Slashdot, 30,000 such steps pack about
700 more cycles than with a tenure of 10 steps, each step costing more: the
untimed default keeps the short tenure).  Path searches give up past
``reach`` vertices; a search that runs on (past step ``grow_after``: the
frustration bound's timed search, once past the untimed default's steps)
doubles the reach each time its step count doubles, so its later steps go
to the wider searches that still find cycles.  The search is one seeded
trajectory, so a longer search (more steps, or a later deadline) starts
from the packing of a shorter one and only adds to it.
"""

from __future__ import annotations

import time
from collections import namedtuple

import numba
import numpy as np

__all__ = ["pack_cycles", "csr_pair", "REACH", "TENURE", "LONG_TENURE", "STALL", "CHAIN", "NEVER"]

TENURE = 10             # plateau search: steps a cycle swapped in stays (default)
LONG_TENURE = 10_000    # plateau search of the frustration bound: steps a cycle swapped in stays
CHAIN = 20              # plateau search: swaps in a row before a random restart
NEVER = 2**62           # plateau search: the reach never grows
STALL = 20_000          # plateau search: steps without a gain before it stops
REACH = 5_000           # exchanges: vertices one path search may reach (hubs make them costly)
CHEAP_CAP = 4_096       # timed large searches: adjacency entries one search of the cheap pass may scan
CHEAP_HUB = 32          # the capped pass's searches: vertices of more edges are met, not expanded
CHEAP_RATE = 2e7        # adjacency entries per second the rounds are assumed to scan (a low estimate)


@numba.njit(cache=True)
def _now():
    """``time.perf_counter()`` inside compiled code (deadlines)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True, inline="always")
def _grow(indptr, idx, slot_edge, blocked, q, lo, hi, qt, dist, par, pedge, level, odist, hub=0):
    """Expand one BFS level ``q[lo:hi]`` over unblocked edges; with ``hub`` > 0, past the
    first level, vertices of more than ``hub`` edges are left unexpanded (the other side
    may still meet them).

    Returns the new queue end and the best meeting with the other search
    (``odist``): (length, this side's vertex, other side's vertex, edge).
    """
    best = np.int64(1) << 40
    ma = -1
    mb = -1
    me = -1
    for j in range(lo, hi):
        a = q[j]
        if hub > 0 and level > 0 and indptr[a + 1] - indptr[a] > hub:
            continue
        for k in range(indptr[a], indptr[a + 1]):
            e = slot_edge[k]
            if blocked[e]:
                continue
            b = idx[k]
            if odist[b] >= 0:
                if level + 1 + odist[b] < best:
                    best = level + 1 + odist[b]
                    ma = a
                    mb = b
                    me = e
            elif dist[b] < 0:
                dist[b] = level + 1
                par[b] = a
                pedge[b] = e
                q[qt] = b
                qt += 1
    return qt, best, ma, mb, me


@numba.njit(cache=True, inline="always")
def _frontier_work(indptr, q, lo, hi, level, hub):
    """Adjacency entries that expanding ``q[lo:hi]`` would scan (see :func:`_grow` for
    ``hub``), and whether a vertex is left unexpanded."""
    w = 0
    skipped = False
    for j in range(lo, hi):
        d = indptr[q[j] + 1] - indptr[q[j]]
        if hub > 0 and level > 0 and d > hub:
            skipped = True
        else:
            w += d
    return w, skipped


@numba.njit(cache=True, inline="always")
def _close(adj, radj, blocked, s, t, L, cap, ds, dt, ps, pt, es, et, qs, qt, hub=0):
    """Shortest path ``s -> t`` of at most ``L`` unblocked edges (bidirectional BFS, the
    smaller frontier first); with ``cap`` > 0, given up before a level whose expansion
    would bring the adjacency entries scanned past ``cap`` (hubs are reached, not expanded);
    with ``hub`` > 0 vertices of more than ``hub`` edges past the ends are met but not
    expanded (a path, not always a shortest one; a side left with hubs alone ends the
    search, which stays cheap: at 10^7 edges around a tree state, twice the cycles of the
    same 10 s).

    Returns ``(best, a, b, e, sn, tn, exhausted)``: a path of ``best`` <= L edges joined
    by edge ``e`` from ``a`` (``s`` side) to ``b`` (``t`` side), or ``best`` > L;
    ``exhausted``: ``t`` is out of reach (only more edges get blocked later).  The
    queues hold ``sn`` / ``tn`` vertices whose marks the caller clears.
    """
    indptr, idx, slot_edge = adj
    rindptr, ridx, rslot = radj
    ds[s] = 0
    dt[t] = 0
    qs[0] = s
    qt[0] = t
    slo, shi, sn, ls = 0, 1, 1, 0
    tlo, thi, tn, lt = 0, 1, 1, 0
    best, a, b, e = np.int64(1) << 40, -1, -1, -1
    work = 0
    pruned = False  # a vertex was left unexpanded: an empty frontier no longer proves t out of reach
    while slo < shi and tlo < thi and ls + lt < L and best > L:
        # the smaller frontier first; skipping hubs, a tie goes to the side of fewer levels (a
        # spoke's one neighbour, a hub, is met from the other side rather than given up)
        s_side = shi - slo < thi - tlo or (shi - slo == thi - tlo and (hub == 0 or ls <= lt))
        if s_side:
            if cap > 0:
                w, skipped = _frontier_work(indptr, qs, slo, shi, ls, hub)
                work += w
                pruned = pruned or skipped
                if work > cap:
                    break
            sn, best, a, b, e = _grow(indptr, idx, slot_edge, blocked, qs, slo, shi, sn,
                                      ds, ps, es, ls, dt, hub)
            slo, shi, ls = shi, sn, ls + 1
        else:
            if cap > 0:
                w, skipped = _frontier_work(rindptr, qt, tlo, thi, lt, hub)
                work += w
                pruned = pruned or skipped
                if work > cap:
                    break
            tn, best, b, a, e = _grow(rindptr, ridx, rslot, blocked, qt, tlo, thi, tn,
                                      dt, pt, et, lt, ds, hub)
            tlo, thi, lt = thi, tn, lt + 1
    return best, a, b, e, sn, tn, best > L and (slo == shi or tlo == thi) and not pruned


@numba.njit(cache=True, nogil=True)
def _pack_cycles(adj, radj, excluded, fu, fv, fe, max_length, deadline, cheap=np.empty(0, np.int64),
                 cap=0, hub=0):
    """Greedy edge-disjoint cycles, one per seed edge, shortest first (see the module notes).

    Seed ``i`` is edge ``fe[i]``, closed by a path from ``fu[i]`` to
    ``fv[i]`` (vertices of the search graph) over edges not ``excluded``.
    Paths are shortest paths found by bidirectional breadth-first search
    (the smaller frontier grows first; the ``fu`` side follows ``adj``, the
    ``fv`` side ``radj``), so searches near hubs stay cheap.
    With ``cheap`` (seed indices, the cheapest first), one pass over those
    seeds comes first, each search given up past ``cap`` adjacency entries:
    on a large graph whose rounds take long, cycles are packed from the
    start (see :func:`pack_cycles`); with ``hub`` > 0, its searches leave
    vertices of more than ``hub`` edges unexpanded (:func:`_close`).
    Returns ``(ptr, edges)``: cycle ``i`` is ``edges[ptr[i]:ptr[i + 1]]``
    (edge ids, the seed edge first).  Sequential: the result depends
    only on the inputs (the packing so far once ``perf_counter`` passes
    ``deadline``).
    """
    n = adj[0].size - 1
    m = excluded.size
    blocked = excluded.copy()  # excluded, or already in a cycle
    nf = fe.size
    done = np.zeros(nf, np.bool_)
    ds = np.full(n, -1, np.int64)
    dt = np.full(n, -1, np.int64)
    ps = np.empty(n, np.int64)
    pt = np.empty(n, np.int64)
    es = np.empty(n, np.int64)
    et = np.empty(n, np.int64)
    qs = np.empty(n, np.int64)
    qt = np.empty(n, np.int64)
    ptr = np.zeros(nf + 1, np.int64)
    edges = np.empty(m, np.int64)
    nc = 0
    ne = 0
    work = 0
    # pass 0: the cheap seeds, capped; then rounds L = 1.. (shortest cycles first: they
    # block the fewest others)
    for L in range(0 if cheap.size > 0 else 1, max_length + 1):
        if nc == nf:
            break
        for j in range(cheap.size if L == 0 else nf):
            i = cheap[j] if L == 0 else j
            if done[i]:
                continue
            work += 1
            if (work & 255) == 0 and _now() > deadline:
                return ptr[:nc + 1].copy(), edges[:ne].copy()
            s = fu[i]
            t = fv[i]
            best, a, b, e, sn, tn, exhausted = _close(
                adj, radj, blocked, s, t, max_length if L == 0 else L, cap if L == 0 else 0,
                ds, dt, ps, pt, es, et, qs, qt, hub if L == 0 else 0)
            if best <= (max_length if L == 0 else L):  # a on the s side, b on the t side, by e
                done[i] = True
                edges[ne] = fe[i]
                edges[ne + 1] = e
                blocked[e] = True
                ne += 2
                while a != s:
                    blocked[es[a]] = True
                    edges[ne] = es[a]
                    ne += 1
                    a = ps[a]
                while b != t:
                    blocked[et[b]] = True
                    edges[ne] = et[b]
                    ne += 1
                    b = pt[b]
                nc += 1
                ptr[nc] = ne
            elif exhausted:  # t is out of reach, and only more edges get blocked
                done[i] = True
            for k in range(sn):
                ds[qs[k]] = -1
            for k in range(tn):
                dt[qt[k]] = -1
    return ptr[:nc + 1].copy(), edges[:ne].copy()


@numba.njit(cache=True, inline="always")
def _join(c1, c2):
    """The one packed cycle two path pieces cross together (-1 none), or -2
    when they cross two different ones."""
    if c1 < 0:
        return c2
    if c2 < 0 or c2 == c1:
        return c1
    return -2


@numba.njit(cache=True, nogil=True)
def _expand(indptr, idx, slot_edge, frustrated, owner, tabu, step, allow_one, q, lo, hi, qn,
            dist, par, pedge, via, odist, ovia):
    """Expand one level ``q[lo:hi]`` of one side of :func:`_path_search`.

    Returns the new queue end, the adjacency entries of the vertices it
    queued (the next level's work) and the first meeting with the other side
    (this side's vertex, the other side's vertex, the edge, the cycle the
    joined path crosses), or vertex -1 when there is none yet."""
    work = 0
    for j in range(lo, hi):
        a = q[j]
        for k in range(indptr[a], indptr[a + 1]):
            e = slot_edge[k]
            if frustrated[e]:
                continue
            c = owner[e]
            if c >= 0 and (not allow_one or tabu[c] > step):
                continue
            nv = _join(via[a], c)
            if nv == -2:
                continue
            b = idx[k]
            if odist[b] >= 0:
                joined = _join(nv, ovia[b])
                if joined != -2:
                    return qn, work, a, b, e, joined
            elif dist[b] < 0:
                dist[b] = dist[a] + 1
                par[b] = a
                pedge[b] = e
                via[b] = nv
                q[qn] = b
                qn += 1
                work += indptr[b + 1] - indptr[b]
            elif nv == -1 and via[b] >= 0 and dist[b] == dist[a] + 1:
                # b is in the level being built, reached over a packed cycle first: a free
                # path to it leaves every cycle open to the rest of the search
                par[b] = a
                pedge[b] = e
                via[b] = -1
    return qn, work, -1, -1, -1, -1


@numba.njit(cache=True, nogil=True)
def _path_search(adj, radj, frustrated, owner, tabu, step, s, t, max_length, allow_one, ws,
                 wt, reach):
    """Path ``s -> t`` of at most ``max_length`` satisfied edges that are free
    (``owner`` -1) or, with ``allow_one``, held by one single packed cycle
    along the whole path, one not tabu (``tabu[c] > step``); bidirectional
    breadth-first search, the frontier with fewer adjacency entries first
    (a vertex of the level being built that a free edge also reaches is
    marked free: free paths are preferred), given up once both
    sides reached more than ``reach`` vertices (``ws``/``wt``: per-side
    scratch, dist/par/pedge/via/queue rows, dist all -1 on entry and on return).

    Returns ``(c, a, b, e)``: the cycle crossed (-1 none; -2: no path), and
    the meeting edge ``e`` from ``a`` (reached from ``s``) to ``b`` (from ``t``).
    """
    indptr, idx, slot_edge = adj
    rindptr, ridx, rslot = radj
    ws[0, s] = 0
    ws[3, s] = -1
    ws[4, 0] = s
    wt[0, t] = 0
    wt[3, t] = -1
    wt[4, 0] = t
    slo, shi, sn, ls = 0, 1, 1, 0
    tlo, thi, tn, lt = 0, 1, 1, 0
    c, a, b, e = -2, -1, -1, -1
    sw = indptr[s + 1] - indptr[s]  # adjacency entries of each frontier
    tw = rindptr[t + 1] - rindptr[t]
    while slo < shi and tlo < thi and ls + lt < max_length and sn + tn <= reach:
        # the frontier with fewer adjacency entries grows (hubs make vertex counts mislead)
        if sw <= tw:
            sn, sw, a, b, e, c = _expand(indptr, idx, slot_edge, frustrated, owner, tabu, step,
                                         allow_one, ws[4], slo, shi, sn, ws[0], ws[1], ws[2],
                                         ws[3], wt[0], wt[3])
            slo, shi, ls = shi, sn, ls + 1
        else:
            tn, tw, b, a, e, c = _expand(rindptr, ridx, rslot, frustrated, owner, tabu, step,
                                         allow_one, wt[4], tlo, thi, tn, wt[0], wt[1], wt[2],
                                         wt[3], ws[0], ws[3])
            tlo, thi, lt = thi, tn, lt + 1
        if a >= 0:
            break
    for j in range(sn):
        ws[0, ws[4, j]] = -1
    for j in range(tn):
        wt[0, wt[4, j]] = -1
    return (c, a, b, e) if a >= 0 else (-2, -1, -1, -1)


@numba.njit(cache=True, nogil=True)
def _place(pk, i, meet, a, b, s, t, ws, wt):
    """Write cycle ``i`` (its seed edge, the meeting edge, both path
    halves) at the pool's end and give its path edges to it."""
    pool, cstart, clen, owner, top = pk.pool, pk.cstart, pk.clen, pk.owner, pk.top[0]
    cstart[i] = top
    pool[top] = pk.fe[i]
    pool[top + 1] = meet
    owner[meet] = i
    top += 2
    for w, v, end in ((ws, a, s), (wt, b, t)):
        while v != end:
            e = w[2, v]
            owner[e] = i
            pool[top] = e
            top += 1
            v = w[1, v]
    clen[i] = top - cstart[i]
    pk.top[0] = top


@numba.njit(cache=True, nogil=True)
def _own(pk, c, who):
    """Give the path edges of cycle ``c`` (as stored) to ``who`` (-1: free them)."""
    for p in range(pk.cstart[c] + 1, pk.cstart[c] + pk.clen[c]):
        pk.owner[pk.pool[p]] = who


@numba.njit(cache=True, nogil=True)
def _mark(pk, i, packed):
    """Move seed edge ``i`` into (``packed``) or out of the packing,
    keeping the list of those left out (``out[:n_out[0]]``, ``where`` in it)."""
    out, where = pk.out, pk.where
    pk.packed[i] = packed
    if packed:
        p, last = where[i], out[pk.n_out[0] - 1]
        out[p], where[last], where[i] = last, p, -1
        pk.n_out[0] -= 1
    else:
        out[pk.n_out[0]], where[i] = i, pk.n_out[0]
        pk.n_out[0] += 1


@numba.njit(cache=True, nogil=True)
def _compact(pk):
    """Move the packed cycles to the front of the pool (rerouted and dropped
    cycles leave their old copies behind)."""
    order = np.argsort(pk.cstart)
    top = 0
    for c in order:
        if pk.packed[c]:
            s0 = pk.cstart[c]
            for p in range(pk.clen[c]):
                pk.pool[top + p] = pk.pool[s0 + p]
            pk.cstart[c] = top
            top += pk.clen[c]
    pk.top[0] = top


@numba.njit(cache=True, nogil=True)
def _move(adj, radj, frustrated, pk, i, step, max_length, reach, tenure, plateau, ws, wt):
    """Try to pack the left-out seed edge ``i``.

    A path of satisfied edges free or held by one packed cycle ``C``; with
    ``C``, the new cycle takes its place and ``C``'s seed edge looks
    for a path of free edges.  Returns -1 when the packing grew (a free
    path, or ``C`` rerouted), ``C`` after a plateau swap (``plateau``: ``C``
    is left out instead, and the new cycle stays for ``tenure`` steps), -2
    when nothing changed."""
    fu, fv = pk.fu, pk.fv
    if pk.top[0] + 2 * (max_length + 2) > pk.pool.size:
        _compact(pk)
    c, a, b, meet = _path_search(adj, radj, frustrated, pk.owner, pk.tabu, step, fu[i], fv[i],
                                 max_length, True, ws, wt, reach)
    if c == -2:
        return -2
    if c >= 0:  # C's path edges are free while the exchange is tried
        _own(pk, c, -1)
    _place(pk, i, meet, a, b, fu[i], fv[i], ws, wt)
    c2 = -1
    if c >= 0:
        c2, a, b, meet = _path_search(adj, radj, frustrated, pk.owner, pk.tabu, step, fu[c],
                                      fv[c], max_length, False, ws, wt, reach)
        if c2 != -2:
            _place(pk, c, meet, a, b, fu[c], fv[c], ws, wt)
        elif not plateau:  # put everything back
            _own(pk, i, -1)
            _own(pk, c, c)
            return -2
    _mark(pk, i, True)
    if c2 != -2:
        return -1
    _mark(pk, c, False)
    pk.tabu[i] = step + tenure
    return c


@numba.njit(cache=True, nogil=True)
def _improve(adj, radj, frustrated, pk, max_length, reach, passes, steps, tenure, seed,
             deadline, stall=STALL, grow_after=NEVER):
    """Grow a packing by exchanges, then search its plateaus.

    First passes over the left-out seed edges (in their order) with
    one-for-two exchanges (:func:`_move` without plateau swaps), until one
    gains nothing or ``passes`` ran (their path searches reach at most
    ``REACH`` vertices: wider ones pay more in the plateau search).  Then
    ``steps`` steps of a plateau search: each takes a left-out edge (the
    one just swapped out, up to
    ``CHAIN`` in a row, else a random one) and tries :func:`_move` with
    plateau swaps, which move the packing to equally large ones where new
    exchanges open; a cycle swapped in is not swapped out again for
    ``tenure`` steps.  At step ``grow_after`` and each time the step count
    doubles after it, ``reach`` doubles (up to twice the vertices): a long
    search spends its later steps on the wider searches that still pay.
    The size never decreases.  Stops early after ``stall`` steps without a
    gain, or once ``perf_counter`` passes ``deadline``.
    Sequential: the result depends only on the inputs.
    """
    if _now() > deadline:  # not even the scratch: it is a pass over the vertices
        return
    nf = pk.fe.size
    nv = adj[0].size - 1
    ws = np.empty((5, nv), np.int64)  # dist, par, pedge, via, queue of each side
    wt = np.empty((5, nv), np.int64)
    ws[0, :] = -1
    wt[0, :] = -1
    work = 0
    for _ in range(passes):
        gained = 0
        for i in range(nf):
            if pk.packed[i]:
                continue
            work += 1
            # a path search may cost milliseconds near hubs: the clock is read every 16
            if (work & 15) == 0 and _now() > deadline:
                return
            if _move(adj, radj, frustrated, pk, i, 0, max_length, min(reach, REACH), 0, False,
                     ws, wt) == -1:
                gained += 1
        if gained == 0:
            break
    np.random.seed(seed)
    cur, chain, last_gain, grow_at = -1, 0, 0, grow_after
    for step in range(1, steps + 1):
        if (pk.n_out[0] == 0 or step - last_gain > stall
                or ((step & 15) == 0 and _now() > deadline)):
            return
        if step == grow_at:
            reach = min(2 * reach, 2 * nv)
            grow_at *= 2
        if cur >= 0 and chain < CHAIN:  # the cycle just swapped out goes next
            i = cur
            chain += 1
        else:  # a fresh start: long chains end up swapping the same few cycles around
            i = pk.out[np.random.randint(pk.n_out[0])]
            chain = 0
        cur = _move(adj, radj, frustrated, pk, i, step, max_length, reach, tenure, True, ws, wt)
        if cur == -1:
            last_gain = step


_Packing = namedtuple("_Packing", ["fe", "fu", "fv", "pool", "top", "cstart", "clen", "packed",
                                   "owner", "tabu", "out", "where", "n_out"])
_Packing.__doc__ = """A packing under improvement, in arrays :func:`_improve` updates in place.

Cycle ``i`` is the one through seed edge ``fe[i]`` (from ``fu[i]`` to
``fv[i]``): ``pool[cstart[i]:cstart[i] + clen[i]]`` while ``packed[i]``;
``owner[e]``: the cycle whose path holds edge ``e`` (-1 free); ``top[0]``:
the pool's end; ``out[:n_out[0]]``: the seed edges left out
(``where``: their places there); ``tabu``: the step until which a cycle
stays."""


def _packing(ptr, edges, fe, fu, fv, m, max_length):
    """The :class:`_Packing` of the cycles ``(ptr, edges)`` (seed edge first)."""
    nf = fe.size
    index_of = np.full(m, -1, np.int64)
    index_of[fe] = np.arange(nf)
    first = index_of[edges[ptr[:-1]]]
    lengths = np.diff(ptr)
    owner = np.full(m, -1, np.int64)
    path = np.ones(edges.size, bool)
    path[ptr[:-1]] = False
    owner[edges[path]] = np.repeat(first, lengths)[path]
    cstart = np.zeros(nf, np.int64)
    clen = np.zeros(nf, np.int64)
    cstart[first], clen[first] = ptr[:-1], lengths
    packed = np.zeros(nf, bool)
    packed[first] = True
    out = np.zeros(nf, np.int64)
    left = np.flatnonzero(~packed)
    out[:left.size] = left
    where = np.full(nf, -1, np.int64)
    where[left] = np.arange(left.size)
    # live cycles are edge-disjoint: m entries at most, the rest is room for reroutes
    pool = np.empty(2 * m + 4 * (max_length + 2), np.int64)
    pool[:edges.size] = edges
    return _Packing(fe, fu, fv, pool, np.array([edges.size], np.int64), cstart, clen, packed, owner,
                    np.zeros(nf, np.int64), out, where, np.array([left.size], np.int64))


def _cycles_of(pk):
    """``(ptr, edges)`` of the packed cycles, in the order of their seed edges."""
    ids = np.flatnonzero(pk.packed)
    lengths = pk.clen[ids]
    ptr = np.zeros(ids.size + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    pos = np.repeat(pk.cstart[ids] - ptr[:-1], lengths) + np.arange(ptr[-1])
    return ptr, pk.pool[pos]


def csr_pair(arc_src: np.ndarray, arc_dst: np.ndarray, arc_edge: np.ndarray, n: int):
    """Out- and in-adjacency ``(indptr, idx, slot_edge)`` (int64) of ``n`` vertices and the
    given arcs, each row sorted by neighbour then edge id (so the search order is fixed)."""
    def one(a, b):
        order = np.lexsort((arc_edge, b, a))
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
        return (indptr, np.ascontiguousarray(b[order], np.int64),
                np.ascontiguousarray(arc_edge[order], np.int64))
    return one(arc_src, arc_dst), one(arc_dst, arc_src)


def _cheap_order(adj, fu, fv, max_length: int, deadline: float) -> np.ndarray:
    """Seeds for the capped first pass (fewest edges at their ends first, ties by index), or
    none: without a deadline, or when the rounds' first levels (each seed's ends' edges,
    ``max_length`` times) fit in half the time left at ``CHEAP_RATE``."""
    left = deadline - time.perf_counter()
    if not np.isfinite(deadline):
        return np.empty(0, np.int64)
    deg = np.diff(adj[0])
    cost = deg[fu] + deg[fv]
    if float(cost.sum()) * max_length <= CHEAP_RATE * 0.5 * max(left, 0.0):
        return np.empty(0, np.int64)
    return np.argsort(cost, kind="stable").astype(np.int64)


def pack_cycles(adj, radj, excluded: np.ndarray, fe: np.ndarray, fu: np.ndarray, fv: np.ndarray,
                *, max_length: int, augment_length: int, passes: int, steps: int, seed: int,
                deadline: float, stall: int = STALL, tenure: int = TENURE, reach: int = REACH,
                grow_after: int = NEVER):
    """Edge-disjoint cycles through the seeds: greedy, then exchanges and plateau search.

    ``excluded`` (bool per graph edge) marks edges no path may use (the
    seeds among them); ``fe``, ``fu``, ``fv`` (int64) are the seeds and the
    search-graph vertices their paths join.  Greedy paths have at most
    ``max_length`` edges, exchange paths at most ``augment_length``;
    ``passes`` rounds of exchanges, ``steps`` plateau steps seeded with
    ``seed`` (ended by ``stall`` steps in a row without a gain), each swap
    kept for ``tenure`` steps; path searches give up past ``reach``
    vertices, and from step ``grow_after`` on the reach doubles each time
    the step count does (which suits a search that runs until a deadline);
    everything stops once ``perf_counter`` passes ``deadline``.  When the
    greedy rounds would not fit in half the time to ``deadline``
    (:func:`_cheap_order`), a pass over the seeds, those whose ends have the
    fewest edges first, packs the cycles it finds within ``CHEAP_CAP``
    adjacency entries each before the rounds: the bound grows from the start
    instead of waiting for rounds whose searches go through hubs.  Those
    capped searches meet vertices of more than ``CHEAP_HUB`` edges but do not
    expand them (a seed whose path needs a hub expanded is left to the
    rounds): the scans stay short, and many more seeds are tried per second.
    Returns ``(ptr, edges)``: the cycles in the order of their seeds, each
    ``edges[ptr[i]:ptr[i + 1]]`` (edge ids, the seed first).
    """
    m = excluded.size
    cheap = _cheap_order(adj, fu, fv, int(max_length), deadline)
    ptr, edges = _pack_cycles(adj, radj, excluded, fu, fv, fe, int(max_length), deadline, cheap,
                              CHEAP_CAP, CHEAP_HUB)
    pk = _packing(ptr, edges, fe, fu, fv, m, augment_length)
    walk_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])  # numba seeds take 32 bits
    _improve(adj, radj, excluded, pk, augment_length, int(reach), passes, int(steps), int(tenure),
             walk_seed, deadline, int(stall), int(grow_after))
    return _cycles_of(pk)
