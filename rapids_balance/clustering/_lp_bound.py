"""The cycle LP of correlation clustering, by cutting planes, and its dual packing.

The LP relaxation of the multicut formulation has a variable ``y_e`` in
``[0, 1]`` per edge (1: the edge is cut), the cost ``w_e y_e`` of a positive
edge and ``w_e (1 - y_e)`` of a negative one, and the cycle inequalities
``y_e <= sum of y_f over C - e`` for every cycle ``C``.  In the variables
of disagreement, ``z_e = y_e`` on positive and ``1 - y_e`` on negative
edges, its optimum equals that of the covering LP solved here::

    min  sum_e w_e z_e   subject to  sum_{e in C} z_e >= 1   for every cycle C
                                     with exactly one negative edge,   z >= 0,

whose dual is the fractional packing of those cycles (``sum y_C`` subject to
``sum of y_C over the cycles through e <= w_e``).  Every feasible point of
the covering LP gives one of the multicut LP of the same cost (``y`` on a
negative edge: the shortest positive path between its ends under ``z``,
capped at 1), and the reverse map keeps the cost too.

Cutting planes: the LP starts from the cycles of a packing (so its first
optimum is at least the packing's value) and, after every solve, adds for
each negative edge ``(u, v)`` the shortest path of positive edges from
``u`` to ``v`` under the lengths ``z`` when it closes a violated cycle
(``z_uv + dist(u, v) < 1``): Dijkstra from every vertex with a negative
edge, cut off at length 1.  An LP over some of the cycles is a relaxation
of the full LP, so every intermediate optimum is a lower bound; the bound
reported is read from the dual (row prices ``y_C >= 0``, scaled down until
no edge is loaded past its weight), a fractional packing that is a valid
certificate whatever the solver's tolerances or status, also when a time
limit stops it mid-solve.
"""

from __future__ import annotations

import time

import numpy as np

from ..graph import Graph

__all__ = ["lp_packing", "layered_arcs", "LP_MAX_EDGES", "LP_MAX_VERTICES", "AUTO_MAX_EDGES",
           "AUTO_MAX_VERTICES"]

LP_MAX_EDGES = 40_000    # method="lp": each solve grows with the edges, each separation
LP_MAX_VERTICES = 2_000  # with the vertices (one Dijkstra tree per vertex and round)
AUTO_MAX_EDGES = 2_000   # method="auto" takes the LP up to here, where it converges in
AUTO_MAX_VERTICES = 1_000  # seconds (5,000 edges: a minute or more; 8,000: minutes)
MAX_ROUNDS = 500         # cut rounds (convergence takes tens on the random instances)
VIOLATION = 1e-6         # a cycle is cut when its length under z is below 1 - VIOLATION
TINY = 1e-12             # added to every length: scipy's Dijkstra drops explicit zeros


def layered_arcs(graph: Graph):
    """Arcs of the two-copy search graph: positive edges inside each copy, negative edges
    from copy 0 to copy 1 only, with their edge ids.  A path from ``u`` to copy 1 of
    ``v`` has exactly one negative edge; one from ``u`` to ``v`` (copy 0) has none."""
    n = graph.n
    src, dst = graph.edge_src.astype(np.int64), graph.edge_dst.astype(np.int64)
    eid = np.arange(graph.m, dtype=np.int64)
    pos = graph.sign > 0
    ps, pd, pe = src[pos], dst[pos], eid[pos]
    ns, nd, ne = src[~pos], dst[~pos], eid[~pos]
    a = np.concatenate([ps, pd, ps + n, pd + n, ns, nd])
    b = np.concatenate([pd, ps, pd + n, ps + n, nd + n, ns + n])
    e = np.concatenate([pe, pe, pe, pe, ne, ne])
    return a, b, e


def _separation_arcs(graph: Graph):
    """The layered arcs sorted by ``(tail, head)`` with their keys (path recovery)."""
    a, b, e = layered_arcs(graph)
    order = np.lexsort((b, a))
    a, b, e = a[order], b[order], e[order]
    return a, b, e, a * (2 * graph.n) + b


def _violated_cycles(graph: Graph, arcs, z: np.ndarray):
    """For every edge, the shortest cycle through it with exactly one negative edge
    under the lengths ``z``, when that cycle is violated (length below 1).

    A negative edge ``(u, v)`` is closed by a path of positive edges (``u`` to ``v``
    in copy 0), a positive one ``(a, b)`` by a path with one negative edge (``a`` to
    copy 1 of ``b``).  Returns ``(ptr, edges, shortest)``, each cycle once, and the
    length of the shortest such cycle under ``z`` (capped at 1, rounded down)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    n = graph.n
    tail, head, eid, key = arcs
    src = graph.edge_src.astype(np.int64)
    dst = graph.edge_dst.astype(np.int64)
    target = np.where(graph.sign > 0, dst + n, dst)
    slack = 1.0 - VIOLATION - z
    live = slack > 0
    if not live.any() or tail.size == 0:
        return np.zeros(1, np.int64), np.zeros(0, np.int64), 1.0
    sources = np.unique(src[live])
    mat = csr_matrix((z[eid] + TINY, (tail, head)), shape=(2 * n, 2 * n))
    dist, pred = dijkstra(mat, indices=sources, limit=1.0, return_predecessors=True)
    row = np.minimum(np.searchsorted(sources, src), sources.size - 1)
    length = z + dist[row, target]
    cut = np.flatnonzero(live & (dist[row, target] < slack))
    # every length carries up to 2n arcs' TINY: rounded down, the shortest stays a bound
    shortest = max(min(float(length[live].min()), 1.0) - 2 * n * TINY, 0.0)
    ptr, edges, seen = [0], [], set()
    for f in cut:
        r, x = row[f], target[f]
        cycle = [f]
        while x != src[f]:
            p = pred[r, x]
            cycle.append(eid[np.searchsorted(key, p * (2 * n) + x)])
            x = p
        sig = frozenset(cycle)
        # a walk that uses an edge twice (once in each copy) is no cycle: its seed
        # is left to a later round, under other lengths
        if len(sig) == len(cycle) and sig not in seen:
            seen.add(sig)
            edges.extend(cycle)
            ptr.append(len(edges))
    return np.asarray(ptr, np.int64), np.asarray(edges, np.int64), shortest


def _packing_value(ptr: np.ndarray, edges: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Dual prices ``y`` made a feasible packing: cycles through an edge of weight 0
    dropped, then all scaled down by the worst overload.  Returns ``(value, y)``."""
    y = np.maximum(y, 0.0)
    cyc = np.repeat(np.arange(y.size), np.diff(ptr))
    y[np.unique(cyc[w[edges] <= 0])] = 0.0
    load = np.zeros(w.size)
    np.add.at(load, edges, y[cyc])
    over = np.max(np.divide(load, w, out=np.zeros_like(load), where=w > 0), initial=0.0)
    if over > 1.0:
        y = y / over
    return float(y.sum()), y


def lp_packing(graph: Graph, w: np.ndarray, start_ptr: np.ndarray, start_edges: np.ndarray,
               deadline: float):
    """The cycle LP by cutting planes, from the cycles ``start_ptr`` / ``start_edges``.

    Returns ``(value, ptr, edges, y, converged)``: the best dual packing (its
    cycles and their values ``y``) and whether the cut loop closed (no violated
    cycle left: ``value`` is then the LP's optimum, up to the solver's tolerance)."""
    import highspy

    from .._highs import new_highs

    m = graph.m
    arcs = _separation_arcs(graph)
    h = new_highs(highspy, verbose=False, threads=1)
    # the LP is very degenerate: the interior point method solves it in a fraction of
    # the dual simplex's time, and its duals need no vertex (they are scaled feasible)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    h.addVars(m, np.zeros(m), np.full(m, highspy.kHighsInf))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), w.astype(np.float64))
    h.changeObjectiveSense(highspy.ObjSense.kMinimize)
    pool_ptr, pool_edges = np.zeros(1, np.int64), np.zeros(0, np.int64)
    best = (0.0, pool_ptr, pool_edges, np.zeros(0))
    z = np.zeros(m)
    cuts = (np.asarray(start_ptr, np.int64), np.asarray(start_edges, np.int64))
    converged = False
    upper = float("inf")
    for rounds in range(MAX_ROUNDS):
        if rounds > 0 or cuts[0].size == 1:
            ptr, edges, shortest = _violated_cycles(graph, arcs, z)
            if rounds > 0 and shortest > 0:
                upper = min(upper, float(w @ z) / shortest)
        else:
            ptr, edges = cuts
        converged = ptr.size == 1
        if converged or time.perf_counter() > deadline:
            break
        k = ptr.size - 1
        h.addRows(k, np.ones(k), np.full(k, highspy.kHighsInf), edges.size,
                  ptr[:-1].astype(np.int32), edges.astype(np.int32), np.ones(edges.size))
        pool_ptr = np.concatenate([pool_ptr, ptr[1:] + pool_edges.size])
        pool_edges = np.concatenate([pool_edges, edges])
        # HiGHS checks its limit against its run time summed over all runs
        h.setOptionValue("time_limit", h.getRunTime() + max(deadline - time.perf_counter(), 1e-3))
        h.run()
        duals = np.asarray(h.getSolution().row_dual)
        if duals.size == pool_ptr.size - 1:
            value, y = _packing_value(pool_ptr, pool_edges, duals, w)
            if value > best[0]:
                best = (value, pool_ptr, pool_edges, y)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        z = np.maximum(np.asarray(h.getSolution().col_value), 0.0)
    return (*best, converged, upper)
