"""Exact frustration index of small graphs by binary programming (HiGHS).

Model (the "ABS"/"XOR" linearisation of Aref, Mason and Wilson): a binary
side ``x_v`` per vertex and a frustration variable ``f_e`` per edge,

    minimise  sum_e f_e
    positive e = (u, v):  f_e >= x_u - x_v,      f_e >= x_v - x_u
    negative e = (u, v):  f_e >= x_u + x_v - 1,  f_e >= 1 - x_u - x_v

with ``x`` binary and ``f`` in [0, 1] (integral at every optimum once ``x``
is), and ``x_0 = 0`` to remove the mirror symmetry.

The LP relaxation of this model alone is very weak (``x = 1/2`` satisfies
every row with ``f = 0`` on positive edges), so before branching the root LP
is strengthened with *unbalanced cycle inequalities*: every cycle with an odd
number of negative edges must contain a frustrated edge, ``sum_{e in C} f_e
>= 1``.  Violated ones are separated exactly by shortest paths in the signed
double cover (vertex ``v`` becomes ``v+`` and ``v-``; a positive edge joins
equal signs, a negative edge opposite ones; a ``v+ -> v-`` path of length
below 1 under weights ``f`` is a violated closed walk, and the edges it uses
an odd number of times hold an unbalanced cycle).  This is the cycle
relaxation of the max-cut polytope (Barahona and Mahjoub) in signed form.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._highs import new_highs
from .._validation import check_bool, check_choice, check_int, check_time_limit
from ..io._roles import check_roles
from ..errors import GraphInputError
from ..graph import graph_from_any
from ._result import ExactResult, state_frame, switched_frame
from ._states import count_frustrated, side_vector

__all__ = ["frustration_index_exact"]

SOLVERS = ("highs",)
MAX_THREADS = 2**15


def _model(graph):
    import highspy

    n, m = graph.n, graph.m
    u = graph.edge_src.astype(np.int64)
    v = graph.edge_dst.astype(np.int64)
    neg = graph.sign < 0
    # two rows per edge; columns: x_0..x_{n-1}, f_0..f_{m-1}
    rows = np.repeat(np.arange(2 * m), 3)
    f_col = n + np.arange(m)
    cols = np.empty((2 * m, 3), np.int64)
    vals = np.empty((2 * m, 3), np.float64)
    cols[0::2] = np.stack([f_col, u, v], 1)
    cols[1::2] = np.stack([f_col, u, v], 1)
    # positive:  f - xu + xv >= 0 ;  f + xu - xv >= 0
    # negative:  f - xu - xv >= -1 ; f + xu + xv >= 1
    s = np.where(neg, -1.0, 1.0)
    vals[0::2] = np.stack([np.ones(m), -np.ones(m), s], 1)
    vals[1::2] = np.stack([np.ones(m), np.ones(m), -s], 1)
    lower = np.empty(2 * m)
    lower[0::2] = np.where(neg, -1.0, 0.0)
    lower[1::2] = np.where(neg, 1.0, 0.0)
    import scipy.sparse as sp

    A = sp.csc_matrix((vals.reshape(-1), (rows, cols.reshape(-1))), shape=(2 * m, n + m))
    lp = highspy.HighsLp()
    lp.num_col_ = n + m
    lp.num_row_ = 2 * m
    lp.col_cost_ = np.concatenate([np.zeros(n), np.ones(m)])
    lp.col_lower_ = np.zeros(n + m)
    upper = np.ones(n + m)
    upper[0] = 0.0  # x_0 = 0: a bipartition and its mirror are the same state
    lp.col_upper_ = upper
    lp.row_lower_ = lower
    lp.row_upper_ = np.full(2 * m, highspy.kHighsInf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n + [highspy.HighsVarType.kContinuous] * m
    return lp


def _cycle_cuts(graph, f: np.ndarray, max_cuts: int = 2000, batch: int = 256) -> list:
    """Unbalanced cycles (edge-id arrays) whose ``f`` weight is below 1, lightest first."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    n, m = graph.n, graph.m
    u = graph.edge_src.astype(np.int64)
    v = graph.edge_dst.astype(np.int64)
    neg = graph.sign < 0
    w = np.maximum(f, 0.0) + 1e-9  # csgraph drops explicit zeros
    a = np.concatenate([u, u + n])
    b = np.concatenate([np.where(neg, v + n, v), np.where(neg, v, v + n)])
    eid = np.concatenate([np.arange(m), np.arange(m)])
    A = sp.coo_matrix((np.concatenate([w, w]), (a, b)), shape=(2 * n, 2 * n)).tocsr()
    A = A + A.T
    edge_of = {}
    for k in range(a.size):
        edge_of[(int(a[k]), int(b[k]))] = int(eid[k])
        edge_of[(int(b[k]), int(a[k]))] = int(eid[k])
    found: list[tuple[float, tuple]] = []
    seen = set()
    for lo in range(0, n, batch):
        srcs = np.arange(lo, min(lo + batch, n))
        dist, pred = dijkstra(A, directed=False, indices=srcs, return_predecessors=True)
        for r, s in enumerate(srcs.tolist()):
            d = dist[r, s + n]
            if not d < 1.0 - 1e-6:
                continue
            odd: dict[int, int] = {}
            x = s + n
            while x != s:
                p = int(pred[r, x])
                e = edge_of[(p, x)]
                odd[e] = odd.get(e, 0) ^ 1
                x = p
            cyc = tuple(sorted(e for e, o in odd.items() if o))
            if cyc not in seen:
                seen.add(cyc)
                found.append((float(d), cyc))
    found.sort()
    return [np.asarray(c, dtype=np.int32) for _, c in found[:max_cuts]]


def _strengthen(h, graph, deadline: float, max_rounds: int = 200) -> int:
    """Cut loop on the LP relaxation; returns (cycle rows added, last LP bound)."""
    import highspy

    n = graph.n
    added = 0
    lp_bound = 0.0
    for _ in range(max_rounds):
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        h.setOptionValue("time_limit", left)  # an LP solve may not overrun the cut budget
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        lp_bound = max(lp_bound, float(h.getInfo().objective_function_value))
        col = np.asarray(h.getSolution().col_value)
        cuts = _cycle_cuts(graph, col[n:])
        if not cuts:
            break
        for cyc in cuts:
            idx = (cyc + n).astype(np.int32)
            h.addRow(1.0, highspy.kHighsInf, idx.size, idx, np.ones(idx.size))
        added += len(cuts)
    return added, lp_bound


def frustration_index_exact(graph: Any, *, time_limit: float = 60.0, solver: str = "highs",
                            start: Any = None, threads: int | None = None, cuts: bool = True,
                            verbose: bool = False, source: Any = None, target: Any = None,
                            sign: Any = None, weight: Any = None) -> ExactResult:
    """Frustration index by integer programming, with a certificate.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        A connected signed graph; practical up to a few thousand edges.
    time_limit : float, default 60
        Seconds for the solver, a finite number >= 0 (HiGHS stops at it);
        on time-out the best bipartition found, the proven lower bound and
        the gap are returned.
    solver : {"highs"}
        The MIP solver (HiGHS through ``highspy``, the ``exact`` extra).
    start : DataFrame or array, optional
        A known bipartition (``best_state`` of :func:`frustration`, or a 0/1
        array by internal id) given to the solver as an incumbent.
    threads : int, optional
        Solver threads (None or 0: HiGHS's choice).
    cuts : bool, default True
        Strengthen the root LP with separated unbalanced-cycle inequalities
        (see the module notes) before branching, within half the time limit.
        Without them the solver rarely proves more than toy graphs.
    verbose : bool
        Show the solver log.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file (names or 0-based
        positions), as for :func:`~rapids_balance.frustration`.  Refused
        with a built :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    ExactResult
        ``index`` (optimum when ``optimal``), ``bound``, ``gap``,
        ``best_state`` and ``switched`` as in :class:`FrustrationResult`.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is read).
    ImportError
        highspy is not installed (checked before the graph is read).
    GraphInputError
        The graph is unsigned, or ``start`` does not fit it.

    Notes
    -----
    The frustration index is the fewest edges whose sign change makes the
    graph balanced, i.e. the minimum over bipartitions of the edges that are
    positive across or negative inside the two sides.  The model has
    ``n + m`` variables and ``2 m`` constraints; the vertex ``0`` side is
    fixed because a bipartition and its mirror image are the same state.

    References
    ----------
    .. [1] S. Aref, A. J. Mason, M. C. Wilson, "An exact method for computing
       the frustration index in signed networks using binary programming",
       arXiv:1611.09030, 2016.

    Examples
    --------
    >>> from rapids_balance.graph import build_graph
    >>> g = build_graph([0, 1, 2], [1, 2, 0], sign=[1, 1, -1])  # an unbalanced triangle
    >>> frustration_index_exact(g).index
    1
    """
    owner = "frustration_index_exact"
    time_limit = check_time_limit(time_limit, owner, allow_none=False)
    check_choice(solver, "solver", owner, SOLVERS)
    threads = check_int(threads, "threads", owner, low=0, high=MAX_THREADS, allow_none=True)
    check_bool(cuts, "cuts", owner)
    check_bool(verbose, "verbose", owner)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - highspy is in the dev extra
        from ..errors import missing_extra

        raise missing_extra("highspy", "frustration_index_exact") from exc
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None:
        raise GraphInputError("frustration_index_exact needs a signed graph")
    h = new_highs(highspy, verbose, threads or 0)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)  # integer objective: a gap below 1 is optimal
    t0 = time.perf_counter()
    lp = _model(graph)
    n_cuts, lp_bound = 0, 0.0
    if cuts:
        lp.integrality_ = []  # the cutting-plane rounds solve the LP relaxation
        h.passModel(lp)
        n_cuts, lp_bound = _strengthen(h, graph, t0 + 0.5 * float(time_limit))
        for j in range(graph.n):
            h.changeColIntegrality(j, highspy.HighsVarType.kInteger)
        h.setOptionValue("time_limit", max(0.01, float(time_limit) - (time.perf_counter() - t0)))
    else:
        h.passModel(lp)
    if start is not None:
        side = side_vector(graph, start, "start")
        f = ((graph.sign > 0) == (side[graph.edge_src] != side[graph.edge_dst])).astype(float)
        sol = highspy.HighsSolution()
        sol.col_value = np.concatenate([side.astype(float), f]).tolist()
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    seconds = time.perf_counter() - t0
    status = h.getModelStatus()
    info = h.getInfo()
    text = h.modelStatusToString(status)
    optimal = status == highspy.HighsModelStatus.kOptimal
    col = np.asarray(h.getSolution().col_value)
    if col.size >= graph.n and info.primal_solution_status >= 1:
        side = (col[:graph.n] > 0.5).astype(np.int8)
        index = count_frustrated(graph, side)
        best, switched = state_frame(graph, side), switched_frame(graph, side)
    else:
        index, best, switched = None, None, None
    bound = float(info.mip_dual_bound)
    bound = lp_bound if not np.isfinite(bound) else max(bound, lp_bound)
    if optimal and index is not None:
        bound = float(index)
    bound = float(np.ceil(bound - 1e-6))  # the index is an integer
    gap = 0.0 if optimal else (float("inf") if not index else max(0.0, (index - bound) / index))
    return ExactResult(index=index, bound=bound, gap=gap, optimal=bool(optimal), status=text,
                       best_state=best, switched=switched, seconds=seconds, solver=solver,
                       cuts=n_cuts)
