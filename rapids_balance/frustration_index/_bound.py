"""Lower bounds on the frustration index: packings of edge-disjoint unbalanced cycles.

Every unbalanced cycle (an odd number of negative edges) holds at least one
switched edge in every balanced state, so ``k`` edge-disjoint unbalanced
cycles prove that the frustration index is at least ``k``.  The cycles are
easy to find around a good state ``x``: an edge ``(u, v)`` that ``x``
frustrates closes an unbalanced cycle with any path from ``u`` to ``v``
whose edges ``x`` satisfies (along a satisfied path the signs multiply to
``x[u] x[v]``, while the frustrated edge has sign ``-x[u] x[v]``).  The
packing is greedy, shortest cycles first: round ``L`` looks, for every
frustrated edge not yet in a cycle, for a breadth-first shortest path of at
most ``L`` unused satisfied edges.  Then one-for-two exchanges grow the
packing (:func:`_move`): a frustrated edge left out takes a path that
crosses one packed cycle, whose own frustrated edge is rerouted over free
edges.  Last, a plateau search (:func:`_improve`) keeps swapping a left-out
frustrated edge for the one of the cycle its path crosses when that cycle
cannot be rerouted: the packing keeps its size but changes, and new
exchanges open (wiki-Elec around a refined state of index 16,734: 16,639
cycles greedy, 16,663 with the exchanges, 16,730 after the search).  When
the bound meets the index of ``x``, ``x`` is optimal; otherwise
``index - bound`` bounds the optimality gap.
(This is the integral version of the dual of the cycle relaxation that
:func:`~._exact.frustration_index_exact` strengthens its LP with.)
"""

from __future__ import annotations

import time
from collections import namedtuple
from typing import Any

import numba
import numpy as np

from .._output import frames_like_input, is_cudf, label_column, make_table
from .._validation import check_int, check_seed, check_time_limit
from ..io._roles import check_roles
from ..errors import GraphInputError
from ..graph import graph_from_any
from ._result import FrustrationBound
from ._states import count_frustrated, side_vector

MAX_LENGTH = 2**31 - 1  # path lengths are int32 in the search
AUGMENT_PASSES = 2      # passes of one-for-two exchanges after the greedy packing
AUGMENT_LENGTH = 8      # longest path (edges) the exchanges look for
TENURE = 10             # plateau search: steps a cycle swapped in stays
CHAIN = 20              # plateau search: swaps in a row before a random restart
STALL = 20_000          # plateau search: steps without a gain before it stops
REACH = 5_000           # exchanges: vertices one path search may reach (hubs make them costly)
MAX_STEPS = 2**62       # steps are int64 in the search

__all__ = ["frustration_lower_bound"]


@numba.njit(cache=True)
def _now():
    """``time.perf_counter()`` inside compiled code (deadlines)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True, inline="always")
def _grow(indptr, idx, slot_edge, blocked, q, lo, hi, qt, dist, par, pedge, level, odist):
    """Expand one BFS level ``q[lo:hi]`` over unblocked edges.

    Returns the new queue end and the best meeting with the other search
    (``odist``): (length, this side's vertex, other side's vertex, edge).
    """
    best = np.int64(1) << 40
    ma = -1
    mb = -1
    me = -1
    for j in range(lo, hi):
        a = q[j]
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


@numba.njit(cache=True, nogil=True)
def _pack_cycles(indptr, idx, slot_edge, J, x, m, max_length, deadline):
    """Greedy edge-disjoint unbalanced cycles around ``x`` (see the module notes).

    Paths are shortest paths found by bidirectional breadth-first search
    (the smaller frontier grows first), so searches near hubs stay cheap.
    Returns ``(ptr, edges)``: cycle ``i`` is ``edges[ptr[i]:ptr[i + 1]]``
    (edge ids, the frustrated edge first).  Sequential: the result depends
    only on the graph, ``x`` and ``max_length`` (the packing so far once
    ``perf_counter`` passes ``deadline``).
    """
    n = x.size
    blocked = np.zeros(m, np.bool_)  # frustrated, or already in a cycle
    fu = np.empty(m, np.int64)
    fv = np.empty(m, np.int64)
    fe = np.empty(m, np.int64)
    nf = 0
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            u = idx[k]
            if J[k] * x[v] * x[u] < 0:
                blocked[slot_edge[k]] = True
                if v < u:  # each edge once (graphs are simple: no self loops)
                    fu[nf] = v
                    fv[nf] = u
                    fe[nf] = slot_edge[k]
                    nf += 1
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
    for L in range(1, max_length + 1):  # shortest cycles first: they block the fewest others
        if nc == nf:
            break
        for i in range(nf):
            if done[i]:
                continue
            work += 1
            if (work & 255) == 0 and _now() > deadline:
                return ptr[:nc + 1].copy(), edges[:ne].copy()
            s = fu[i]
            t = fv[i]
            ds[s] = 0
            dt[t] = 0
            qs[0] = s
            qt[0] = t
            slo, shi, sn, ls = 0, 1, 1, 0
            tlo, thi, tn, lt = 0, 1, 1, 0
            best, a, b, e = np.int64(1) << 40, -1, -1, -1
            while slo < shi and tlo < thi and ls + lt < L and best > L:
                if shi - slo <= thi - tlo:
                    sn, best, a, b, e = _grow(indptr, idx, slot_edge, blocked, qs, slo, shi, sn,
                                              ds, ps, es, ls, dt)
                    slo, shi, ls = shi, sn, ls + 1
                else:
                    tn, best, b, a, e = _grow(indptr, idx, slot_edge, blocked, qt, tlo, thi, tn,
                                              dt, pt, et, lt, ds)
                    tlo, thi, lt = thi, tn, lt + 1
            if best <= L:  # a on the s side, b on the t side, joined by edge e
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
            elif slo == shi or tlo == thi:  # t is out of reach, and only more edges get blocked
                done[i] = True
            for j in range(sn):
                ds[qs[j]] = -1
            for j in range(tn):
                dt[qt[j]] = -1
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

    Returns the new queue end and the first meeting with the other side
    (this side's vertex, the other side's vertex, the edge, the cycle the
    joined path crosses), or vertex -1 when there is none yet."""
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
                    return qn, a, b, e, joined
            elif dist[b] < 0:
                dist[b] = dist[a] + 1
                par[b] = a
                pedge[b] = e
                via[b] = nv
                q[qn] = b
                qn += 1
    return qn, -1, -1, -1, -1


@numba.njit(cache=True, nogil=True)
def _path_search(indptr, idx, slot_edge, frustrated, owner, tabu, step, s, t, max_length,
                 allow_one, ws, wt, reach):
    """Path ``s -> t`` of at most ``max_length`` satisfied edges that are free
    (``owner`` -1) or, with ``allow_one``, held by one single packed cycle
    along the whole path, one not tabu (``tabu[c] > step``); bidirectional
    breadth-first search, the smaller frontier first, given up once both
    sides reached more than ``reach`` vertices (``ws``/``wt``: per-side
    scratch, dist/par/pedge/via/queue rows, dist all -1 on entry and on return).

    Returns ``(c, a, b, e)``: the cycle crossed (-1 none; -2: no path), and
    the meeting edge ``e`` from ``a`` (reached from ``s``) to ``b`` (from ``t``).
    """
    ws[0, s] = 0
    ws[3, s] = -1
    ws[4, 0] = s
    wt[0, t] = 0
    wt[3, t] = -1
    wt[4, 0] = t
    slo, shi, sn, ls = 0, 1, 1, 0
    tlo, thi, tn, lt = 0, 1, 1, 0
    c, a, b, e = -2, -1, -1, -1
    while slo < shi and tlo < thi and ls + lt < max_length and sn + tn <= reach:
        if shi - slo <= thi - tlo:
            sn, a, b, e, c = _expand(indptr, idx, slot_edge, frustrated, owner, tabu, step,
                                     allow_one, ws[4], slo, shi, sn, ws[0], ws[1], ws[2], ws[3],
                                     wt[0], wt[3])
            slo, shi, ls = shi, sn, ls + 1
        else:
            tn, b, a, e, c = _expand(indptr, idx, slot_edge, frustrated, owner, tabu, step,
                                     allow_one, wt[4], tlo, thi, tn, wt[0], wt[1], wt[2], wt[3],
                                     ws[0], ws[3])
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
    """Write cycle ``i`` (its frustrated edge, the meeting edge, both path
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
    """Move frustrated edge ``i`` into (``packed``) or out of the packing,
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
def _move(indptr, idx, slot_edge, frustrated, pk, i, step, max_length, reach, tenure, plateau,
          ws, wt):
    """Try to pack the left-out frustrated edge ``i``.

    A path of satisfied edges free or held by one packed cycle ``C``; with
    ``C``, the new cycle takes its place and ``C``'s frustrated edge looks
    for a path of free edges.  Returns -1 when the packing grew (a free
    path, or ``C`` rerouted), ``C`` after a plateau swap (``plateau``: ``C``
    is left out instead, and the new cycle stays for ``tenure`` steps), -2
    when nothing changed."""
    fu, fv = pk.fu, pk.fv
    if pk.top[0] + 2 * (max_length + 2) > pk.pool.size:
        _compact(pk)
    c, a, b, meet = _path_search(indptr, idx, slot_edge, frustrated, pk.owner, pk.tabu, step,
                                 fu[i], fv[i], max_length, True, ws, wt, reach)
    if c == -2:
        return -2
    if c >= 0:  # C's path edges are free while the exchange is tried
        _own(pk, c, -1)
    _place(pk, i, meet, a, b, fu[i], fv[i], ws, wt)
    c2 = -1
    if c >= 0:
        c2, a, b, meet = _path_search(indptr, idx, slot_edge, frustrated, pk.owner, pk.tabu,
                                      step, fu[c], fv[c], max_length, False, ws, wt, reach)
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
def _improve(indptr, idx, slot_edge, frustrated, pk, max_length, reach, passes, steps, tenure,
             seed, deadline):
    """Grow a packing by exchanges, then search its plateaus.

    First passes over the left-out frustrated edges (in their order) with
    one-for-two exchanges (:func:`_move` without plateau swaps), until one
    gains nothing or ``passes`` ran.  Then ``steps`` steps of a plateau
    search: each takes a left-out edge (the one just swapped out, up to
    ``CHAIN`` in a row, else one at random) and tries :func:`_move` with
    plateau swaps, which move the packing to equally large ones where new
    exchanges open; a cycle swapped in is not swapped out again for
    ``tenure`` steps.  The size never decreases.  Stops early after
    ``STALL`` steps without a gain, or once ``perf_counter`` passes
    ``deadline``.
    Sequential: the result depends only on the inputs.
    """
    nf = pk.fe.size
    ws = np.empty((5, indptr.size - 1), np.int64)  # dist, par, pedge, via, queue of each side
    wt = np.empty((5, indptr.size - 1), np.int64)
    ws[0, :] = -1
    wt[0, :] = -1
    work = 0
    for _ in range(passes):
        gained = 0
        for i in range(nf):
            if pk.packed[i]:
                continue
            work += 1
            if (work & 255) == 0 and _now() > deadline:
                return
            if _move(indptr, idx, slot_edge, frustrated, pk, i, 0, max_length, reach, 0, False,
                     ws, wt) == -1:
                gained += 1
        if gained == 0:
            break
    np.random.seed(seed)
    cur, chain, last_gain = -1, 0, 0
    for step in range(1, steps + 1):
        if (pk.n_out[0] == 0 or step - last_gain > STALL
                or ((step & 255) == 0 and _now() > deadline)):
            return
        if cur >= 0 and chain < CHAIN:  # the cycle just swapped out goes next
            i = cur
            chain += 1
        else:  # a fresh start: long chains end up swapping the same few cycles around
            i = pk.out[np.random.randint(pk.n_out[0])]
            chain = 0
        cur = _move(indptr, idx, slot_edge, frustrated, pk, i, step, max_length, reach, tenure,
                    True, ws, wt)
        if cur == -1:
            last_gain = step


_Packing = namedtuple("_Packing", ["fe", "fu", "fv", "pool", "top", "cstart", "clen", "packed",
                                   "owner", "tabu", "out", "where", "n_out"])
_Packing.__doc__ = """A packing under improvement, in arrays :func:`_improve` updates in place.

Cycle ``i`` is the one through frustrated edge ``fe[i]`` (from ``fu[i]`` to
``fv[i]``): ``pool[cstart[i]:cstart[i] + clen[i]]`` while ``packed[i]``;
``owner[e]``: the cycle whose path holds edge ``e`` (-1 free); ``top[0]``:
the pool's end; ``out[:n_out[0]]``: the frustrated edges left out
(``where``: their places there); ``tabu``: the step until which a cycle
stays."""


def _packing(ptr, edges, fe, fu, fv, m, max_length):
    """The :class:`_Packing` of the cycles ``(ptr, edges)`` (frustrated edge first)."""
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
    """``(ptr, edges)`` of the packed cycles, in the order of their frustrated edges."""
    ids = np.flatnonzero(pk.packed)
    lengths = pk.clen[ids]
    ptr = np.zeros(ids.size + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    pos = np.repeat(pk.cstart[ids] - ptr[:-1], lengths) + np.arange(ptr[-1])
    return ptr, pk.pool[pos]



@frames_like_input(dask_fields=("cycles",))
def frustration_lower_bound(graph: Any, state: Any = None, *, max_length: int = 8,
                            seed: int = 0, steps: int = 30_000, time_limit: float | None = None,
                            source: Any = None, target: Any = None, sign: Any = None,
                            weight: Any = None) -> FrustrationBound:
    """Lower bound on the frustration index from edge-disjoint unbalanced cycles.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        A signed graph.
    state : DataFrame or array, optional
        The bipartition to pack the cycles around: ``best_state`` of
        :func:`~rapids_balance.frustration` (``vertex``, ``side``) or a 0/1
        array by internal vertex id.  The better the state, the tighter the
        bound.  Default: the state of ``frustration(graph, 16, seed=seed)``
        (trees plus refinement).
    max_length : int, default 8
        Longest path (in edges) that closes a cycle, in ``[1, 2**31 - 1]``;
        longer cycles rarely add to the packing and cost more to search for.
    seed : int, default 0
        Seed of the default state's search and of the plateau search: an int
        in ``[0, 2**63 - 1]`` (the rule of every seeded function).
    steps : int, default 30_000
        Steps of the plateau search after the exchanges, in ``[0, 2**62]``
        (0: none); it also stops after 20,000 steps without a gain.  More
        steps can only add cycles.
    time_limit : float, optional
        Seconds for the packing (the default state's search not included):
        a number >= 0.  When it expires, the best packing so far is returned
        (a valid bound, maybe lower than without the limit, and then not
        reproducible).  Default: no limit.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file (names or 0-based
        positions), as for :func:`~rapids_balance.frustration`.  Refused
        with a built :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    FrustrationBound
        ``bound`` (cycles packed), ``index`` (frustration of ``state``),
        ``gap`` and the ``cycles`` themselves.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is read).
    GraphInputError
        The graph is unsigned or directed, or ``state`` does not fit it.

    Notes
    -----
    Every balanced state switches at least one edge of every unbalanced
    cycle, so disjoint unbalanced cycles bound the frustration index from
    below, whatever heuristic found the state.  The cycles are built from
    one edge the state frustrates and a shortest path of edges it satisfies;
    the packing is greedy, shortest cycles first, then grown by exchanges
    (a left-out frustrated edge takes the path of one packed cycle, which is
    rerouted), then by a seeded plateau search (a left-out frustrated edge
    takes the place of one whose cycle cannot be rerouted, which opens new
    exchanges).  The result depends only on the graph, the state, the
    parameters and the seed (not on the thread count), unless
    ``time_limit`` cuts the search short.  The bound is only as good as
    the packing: a gap does not mean the state is not optimal.  Measured
    around the states of ``frustration(g, time_limit=60)``, default steps:
    Bitcoin OTC 1,148 of 1,148 (so that state is optimal), wiki-Elec 16,730
    of 16,734 (0.02 %), Epinions 52,433 of 52,487 (0.10 %), Slashdot 73,016
    of 74,495 (2.0 %); without the plateau search 1,147, 16,663, 52,293 and
    71,931.  The search is sequential on the CPU: a few seconds for 100 k
    edges, 10 to 20 s for Slashdot and Epinions (2 shared cores); path
    searches give up past 5,000 vertices, which keeps hubs cheap.  More
    ``steps`` buy a tighter certificate slowly: Slashdot 73,551 (gap 1.3 %)
    after 300,000 steps in 112 s, and about 73,660 from 400,000 on.

    References
    ----------
    .. [1] F. Barahona, A. R. Mahjoub, "On the cut polytope", Mathematical
       Programming 36 (1986) (the cycle inequalities whose integral dual this is).

    Examples
    --------
    >>> from rapids_balance.graph import build_graph
    >>> g = build_graph([0, 1, 2, 2, 3], [1, 2, 0, 3, 0], sign=[1, 1, -1, 1, 1])
    >>> lb = frustration_lower_bound(g, [0, 0, 0, 0])
    >>> lb.bound, lb.index, lb.gap
    (1, 1, 0)
    """
    owner = "frustration_lower_bound"
    max_length = check_int(max_length, "max_length", owner, low=1, high=MAX_LENGTH)
    seed = check_seed(seed, owner)
    steps = check_int(steps, "steps", owner, low=0, high=MAX_STEPS)
    time_limit = check_time_limit(time_limit, owner)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None:
        raise GraphInputError("frustration_lower_bound needs a signed graph")
    if graph.directed:
        raise GraphInputError("frustration_lower_bound needs an undirected signed graph")
    if state is None:
        from ._frustration import frustration

        state = frustration(graph, 16, seed=seed, progress=False).best_state
    if is_cudf(state):  # a device table (best_state of a graph kept on the device): the search runs here
        from ..io._device import host_frame

        state = host_frame(state)
    side = side_vector(graph, state, "state")
    deadline = np.inf if time_limit is None else time.perf_counter() + time_limit
    x = np.where(side > 0, -1, 1).astype(np.int8)
    J = graph.sign[graph.slot_edge].astype(np.int64)
    idx, slot_edge = graph.indices.astype(np.int64), graph.slot_edge.astype(np.int64)
    ptr, edges = _pack_cycles(graph.indptr, idx, slot_edge, J, x, graph.m, int(max_length),
                              deadline)
    frustrated = graph.sign * x[graph.edge_src] * x[graph.edge_dst] < 0
    fe = np.flatnonzero(frustrated).astype(np.int64)
    length = min(int(max_length), AUGMENT_LENGTH)
    pk = _packing(ptr, edges, fe, graph.edge_src[fe].astype(np.int64),
                  graph.edge_dst[fe].astype(np.int64), graph.m, length)
    walk_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])  # numba seeds take 32 bits
    _improve(graph.indptr, idx, slot_edge, frustrated, pk, length, REACH, AUGMENT_PASSES,
             int(steps), TENURE, walk_seed, deadline)
    ptr, edges = _cycles_of(pk)
    lengths = np.diff(ptr)
    cyc = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    frame = make_table({"cycle": cyc, "src": label_column(graph, graph.edge_src[edges]),
                        "dst": label_column(graph, graph.edge_dst[edges]), "sign": graph.sign[edges]},
                       like=graph)
    index = count_frustrated(graph, side)
    bound = int(lengths.size)
    return FrustrationBound(bound=bound, index=int(index), gap=int(index) - bound, cycles=frame)
