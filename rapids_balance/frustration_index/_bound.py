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
packing: a frustrated edge left out takes a path that
crosses one packed cycle, whose own frustrated edge is rerouted over free
edges.  Last, a plateau search keeps swapping a left-out
frustrated edge for the one of the cycle its path crosses when that cycle
cannot be rerouted: the packing keeps its size but changes, and new
exchanges open (wiki-Elec around a refined state of index 16,734: 16,639
cycles greedy, 16,663 with the exchanges, 16,730 after the search).  When
the bound meets the index of ``x``, ``x`` is optimal; otherwise
``index - bound`` bounds the optimality gap.  The search itself is
shared with the correlation-clustering certificate
(:mod:`rapids_balance._cycle_packing`).
(This is the integral version of the dual of the cycle relaxation that
:func:`~._exact.frustration_index_exact` strengthens its LP with.)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._cycle_packing import LONG_TENURE, NEVER, STALL, pack_cycles
from .._output import frames_like_input, is_cudf, label_column, make_table
from .._validation import check_int, check_seed, check_time_limit
from ..io._roles import check_roles
from ..errors import GraphInputError
from ..graph import graph_from_any
from ._result import FrustrationBound
from ._states import side_vector

MAX_LENGTH = 2**31 - 1  # path lengths are int32 in the search
AUGMENT_PASSES = 2      # passes of one-for-two exchanges after the greedy packing
AUGMENT_LENGTH = 8      # longest path (edges) the exchanges look for
MAX_STEPS = 2**62       # steps are int64 in the search
DEFAULT_STEPS = 30_000  # plateau search steps without a time limit
BOUND_REACH = 15_000    # vertices one path search may reach (wider ones pack more per second)
#: a timed search stops this many times the seconds of its set-up (the frustrated edges and
#: the adjacency, a couple of passes over the edges) before its limit: the cycles' order,
#: table and the index fit in them (10^7 edges: about half)
RESERVE_SETUPS = 1.0

__all__ = ["frustration_lower_bound"]


@frames_like_input(dask_fields=("cycles",))
def frustration_lower_bound(graph: Any, state: Any = None, *, max_length: int = 8,
                            seed: int = 0, steps: int | None = None,
                            time_limit: float | None = None,
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
    steps : int, optional
        Steps of the plateau search after the exchanges, in ``[0, 2**62]``
        (0: none); it also stops after 20,000 steps without a gain.  More
        steps can only add cycles.  Default: 30,000 without ``time_limit``;
        with one, no count and no stop without a gain: the search runs
        until the limit, so the certificate tightens with the time given.
    time_limit : float, optional
        Seconds for the packing (the default state's search not included):
        a number >= 0; the clock starts once the kernels are compiled or
        loaded (``info["seconds_compile"]``), the reading of ``state``
        included (``info["seconds_search"]`` counts it).  The timed search has its
        own schedule (see the notes), which packs more cycles for the time
        but never stops early, so a short limit may give fewer cycles than
        the untimed default (Slashdot on a shared 2-core machine: 72,871
        with 15 s, against 72,995 untimed in 20 s).  When it
        expires, the best packing so far is returned (a valid bound, not
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
    around the states of ``frustration(g, 16)``, default steps (quiet 2-core
    machine): Bitcoin OTC 1,148 of 1,148 (so that state is optimal),
    wiki-Elec 16,728 of 16,734 (0.04 %, 1.2 s), Epinions 52,444 of 52,487
    (0.08 %, 8.3 s), Slashdot 72,995 of 74,496 (2.0 %, 20.6 s); without the
    plateau search (an earlier measurement) 1,147, 16,663, 52,293 and 71,931.
    The search is sequential on the CPU: a few seconds for 100 k edges, 10 to
    20 s for Slashdot and Epinions; path searches
    give up past 5,000 vertices, which keeps hubs cheap.  A search run
    until ``time_limit`` keeps each cycle its plateau search swaps in for
    10,000 steps (swaps are not undone, and new exchanges open around
    them), lets its path searches reach 15,000 vertices, and doubles that
    reach at step 30,000 and each time the step count doubles again (the
    untimed default keeps swaps for 10 steps: on Epinions the long
    schedule's 30,000 steps take eleven times as long for 35 more cycles).
    Slashdot, around the state of ``frustration(g, 16)`` (index 74,496), on
    a 2-core machine shared with two other jobs: 72,871 / 73,685 / 73,806
    with ``time_limit`` 15 / 60 / 120 s (gaps 2.2 / 1.09 / 0.92 % against
    74,495; the previous schedule, same run: 71,857 / 73,466 / 73,558); on a
    quiet machine 73,716 with 60 s (1.05 %; the previous schedule 73,506).

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
    steps = check_int(steps, "steps", owner, low=0, high=MAX_STEPS, allow_none=True)
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
    begun = time.perf_counter()
    side = side_vector(graph, state, "state")
    side_s = time.perf_counter() - begun  # the state's conversion (0.1-0.3 s at 10^7 edges) counts
    compile_s = _ready()
    start = time.perf_counter()
    x = np.where(side > 0, -1, 1).astype(np.int8)
    frustrated = graph.sign * x[graph.edge_src] * x[graph.edge_dst] < 0
    fe = np.flatnonzero(frustrated).astype(np.int64)
    # the graph's own int32 arrays: widened copies would be 32 bytes per edge of the bound's peak
    adj = (graph.indptr, graph.indices, graph.slot_edge)
    setup = time.perf_counter() - start
    deadline = (np.inf if time_limit is None
                else max(start + setup, start - side_s + time_limit - RESERVE_SETUPS * setup))
    steps, stall = _effort(steps, time_limit)
    # a timed search takes the schedule that pays off with time (swaps kept long, wide path
    # searches widening further as it goes); the untimed one stays quick
    schedule = ({} if time_limit is None else
                dict(tenure=LONG_TENURE, reach=BOUND_REACH,
                     grow_after=DEFAULT_STEPS if stall == MAX_STEPS else NEVER))
    ptr, edges = pack_cycles(adj, adj, frustrated, fe, graph.edge_src[fe].astype(np.int64),
                             graph.edge_dst[fe].astype(np.int64), max_length=int(max_length),
                             augment_length=min(int(max_length), AUGMENT_LENGTH),
                             passes=AUGMENT_PASSES, steps=steps, seed=seed, deadline=deadline,
                             stall=stall, **schedule)
    lengths = np.diff(ptr)
    cyc = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    frame = make_table({"cycle": cyc, "src": label_column(graph, graph.edge_src[edges]),
                        "dst": label_column(graph, graph.edge_dst[edges]), "sign": graph.sign[edges]},
                       like=graph)
    index = fe.size  # the edges the state frustrates
    bound = int(lengths.size)
    return FrustrationBound(bound=bound, index=int(index), gap=int(index) - bound, cycles=frame,
                            info={"seconds_compile": compile_s,
                                  "seconds_search": time.perf_counter() - start + side_s})


def _effort(steps: int | None, time_limit: float | None) -> tuple[int, int]:
    """Plateau-search steps and the steps without a gain that end it.

    ``steps=None``: ``DEFAULT_STEPS`` (and ``STALL``) without a time limit;
    with one, the search runs until the limit (no step count, no stall), so
    the certificate tightens with the time given.  A given count keeps ``STALL``.
    """
    if steps is not None:
        return int(steps), STALL
    if time_limit is None:
        return DEFAULT_STEPS, STALL
    return MAX_STEPS, MAX_STEPS


def _ready() -> float:
    """Compile (or load) the packing's kernels once per process, before the clock starts
    (see :mod:`rapids_balance._ready`); returns the seconds it took (0.0 once ready)."""
    from .._ready import ready, tiny_signed_graph

    def job():
        tiny = tiny_signed_graph()
        frustration_lower_bound(tiny, np.zeros(tiny.n, np.int8), steps=100, time_limit=3600.0)

    return ready(("frustration_lower_bound",), job)
