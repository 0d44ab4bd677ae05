"""A lower bound on the correlation-clustering optimum, and the certified gap of a clustering.

A cycle with exactly one negative edge holds a disagreement in every
clustering: if all its positive edges agree, their endpoints share one
cluster, so the negative edge lies inside it.  Hence, for any family of
such cycles ``C`` with values ``y_C >= 0`` that never load an edge past its
weight (``sum of y_C over the cycles through e <= |w_e|``), ``sum y_C`` is
at most the imbalance I(P) of every partition P: a fractional packing,
the dual of the LP relaxation min ``sum |w_e| z_e`` subject to ``sum of
z_e over C >= 1`` for every such cycle.  With unit weights it is a packing
of edge-disjoint cycles, and the bound is their number.

The cycles are found around a good clustering, with the search of
:func:`~rapids_balance.frustration_lower_bound` (shared in
:mod:`rapids_balance._cycle_packing`): every edge the clustering gets wrong
is a seed, closed by a path of edges it gets right.  A negative edge
inside a cluster needs a path of positive edges; a positive edge between
clusters a path with exactly one negative edge.  Both are paths in a
layered search graph: two copies of the vertices, positive edges inside
each copy, negative edges only from copy 0 to copy 1; a negative seed
``(u, v)`` joins ``u`` to ``v`` (copy 0 throughout), a positive seed
``(a, b)`` joins ``a`` to copy 1 of ``b`` (one negative edge on the way).
A second search needs no clustering: each such cycle is one negative edge
closed by a path of positive edges, so it packs shortest positive paths
between the ends of negative edges.  It wins where good clusterings
disagree everywhere (random graphs: on Levorato's instance n=600, d=0.2,
d-=0.5, 8,633 cycles against 5,795 around the clustering); the bound is the
better of the two.  On graphs above ``FREE_MAX_EDGES`` edges it is skipped:
there its searches from hubs cost minutes, and the search around a good
clustering is the tighter one (Slashdot, Epinions).  Weighted graphs take rounds: each cycle is worth the smallest residual
weight on it, which is taken from all its edges, and the next round packs
cycles over the edges left with weight.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._cycle_packing import csr_pair, pack_cycles
from .._display import Display
from .._output import frames_like_input, label_column, make_table
from .._validation import check_choice, check_int, check_seed, check_time_limit, param_error
from ..errors import GraphInputError
from ..graph import Graph, graph_from_any
from ..io._roles import check_roles
from ._lp_bound import (AUTO_MAX_EDGES, AUTO_MAX_VERTICES, LP_MAX_EDGES, LP_MAX_VERTICES,
                        layered_arcs, lp_packing)
from ._objective import coerce_labels, edge_weights, imbalance_value

__all__ = ["ClusteringBound", "clustering_lower_bound", "resolve_method", "method_for"]

METHODS = ("auto", "packing", "lp")
MAX_LENGTH = 2**31 - 1
MAX_STEPS = 2**62
AUGMENT_PASSES = 2      # passes of one-for-two exchanges after the greedy packing
AUGMENT_LENGTH = 8      # longest path (edges) the exchanges look for
FREE_MAX_EDGES = 200_000  # the search free of the clustering runs up to this many edges
MAX_ROUNDS = 64         # weighted graphs: packing rounds over the residual weights
INTEGRAL_SLACK = 1e-6   # integer weights: a bound within this of an integer is rounded up


@dataclass(frozen=True)
class ClusteringBound(Display):
    """A lower bound on the correlation-clustering optimum and a clustering's certified gap.

    Attributes
    ----------
    bound : float
        Lower bound on min I(P) over all partitions (the cycle values' sum).
    imbalance : float
        I(P) of the clustering the bound was built around (the ``labels``
        given, or the one computed when none were).
    gap : float
        ``imbalance - bound``: the clustering is within this of the optimum.
    relative_gap : float
        ``gap / imbalance`` (0 when the imbalance is 0).
    cycles : DataFrame
        One row per edge of every cycle: ``cycle``, ``src``, ``dst`` (original
        labels), ``sign`` and ``value`` (the cycle's share of the bound);
        empty for ``method="lp"``.
    labels : DataFrame
        ``vertex``, ``cluster`` of the clustering the gap is about.
    method : str
        ``"packing"`` or ``"lp"``.
    elapsed_s : float
        Seconds spent on the bound (the clustering's search not included).
    lp_converged : bool or None
        ``method="lp"``: whether the cut loop closed (no violated cycle left,
        so ``bound`` is the LP's optimum); None for ``"packing"``.
    lp_upper : float or None
        ``method="lp"``: an upper bound on the full LP's optimum (the last LP
        solution scaled until every cycle is covered; ``inf`` before one), so
        no bound from this LP exceeds it; None for ``"packing"``.
    """

    bound: float
    imbalance: float
    gap: float
    relative_gap: float
    cycles: Any
    labels: Any
    method: str
    elapsed_s: float
    lp_converged: bool | None = None
    lp_upper: float | None = None

    def _display(self):
        return ("ClusteringBound", [("bound", self.bound), ("imbalance", self.imbalance), ("gap", self.gap),
                                    ("relative gap", self.relative_gap), ("method", self.method),
                                    ("seconds", self.elapsed_s)], [("cycles", self.cycles)])

    def __repr__(self) -> str:
        return self.summary_line()

    def __float__(self) -> float:
        return float(self.bound)


def _guided_search(graph: Graph, labels: np.ndarray):
    """The search around a clustering: seeds are the edges it gets wrong, paths run over
    edges it gets right in the layered graph.  Returns ``(adj, radj, seeds)`` where
    ``seeds(alive)`` gives ``(excluded, fe, fu, fv)`` for the edges with weight left."""
    adj, radj = csr_pair(*layered_arcs(graph), 2 * graph.n)
    same = labels[graph.edge_src] == labels[graph.edge_dst]
    wrong = np.where(graph.sign < 0, same, ~same)
    shift = np.where(graph.sign > 0, graph.n, 0)

    def seeds(alive):
        fe = np.flatnonzero(wrong & alive).astype(np.int64)
        return (wrong | ~alive, fe, graph.edge_src[fe].astype(np.int64),
                graph.edge_dst[fe].astype(np.int64) + shift[fe])
    return adj, radj, seeds


def _free_search(graph: Graph):
    """The search with no clustering: every such cycle is one negative edge closed by a
    path of positive edges, so seeds are the negative edges and paths run over the
    positive ones."""
    pos = graph.sign > 0
    src, dst = graph.edge_src.astype(np.int64), graph.edge_dst.astype(np.int64)
    eid = np.flatnonzero(pos).astype(np.int64)
    adj, radj = csr_pair(np.concatenate([src[pos], dst[pos]]), np.concatenate([dst[pos], src[pos]]),
                         np.concatenate([eid, eid]), graph.n)

    def seeds(alive):
        fe = np.flatnonzero(~pos & alive).astype(np.int64)
        return ~pos | ~alive, fe, src[fe], dst[fe]
    return adj, radj, seeds


def _packing_bound(search, w: np.ndarray, max_length: int, steps: int, seed: int,
                   deadline: float):
    """Fractional packing by rounds over the residual weights; returns
    ``(bound, [(ptr, edges, values), ...])``."""
    adj, radj, seeds = search
    residual = w.copy()
    bound = 0.0
    rounds = []
    for r in range(MAX_ROUNDS):
        excluded, fe, fu, fv = seeds(residual > 0)
        if fe.size == 0 or time.perf_counter() > deadline:
            break
        ptr, edges = pack_cycles(adj, radj, excluded, fe, fu, fv, max_length=max_length,
                                 augment_length=min(max_length, AUGMENT_LENGTH),
                                 passes=AUGMENT_PASSES, steps=steps if r == 0 else 0,
                                 seed=seed, deadline=deadline)
        if ptr.size == 1:
            break
        values = np.minimum.reduceat(residual[edges], ptr[:-1])
        cyc = np.repeat(np.arange(values.size), np.diff(ptr))
        np.subtract.at(residual, edges, values[cyc])
        np.maximum(residual, 0.0, out=residual)
        bound += float(values.sum())
        rounds.append((ptr, edges, values))
    return bound, rounds


def resolve_method(method: str, owner: str, name: str = "method") -> str:
    """``method`` once highspy's presence is known (before the graph is read): ``"lp"``
    without it is refused with the install hint, ``"auto"`` without it is ``"packing"``."""
    if method == "packing":
        return method
    try:
        import highspy  # noqa: F401
    except ImportError as exc:
        if method == "lp":
            from ..errors import missing_extra

            raise missing_extra("highspy", f"{owner}({name}='lp')") from exc
        return "packing"
    return method


def method_for(graph: Graph, method: str, owner: str, name: str = "method") -> str:
    """The method for this graph: ``"auto"`` is ``"lp"`` up to its own, smaller size
    limit; ``"lp"`` above the LP's limit is refused (before any work)."""
    if method == "auto":
        small = graph.m <= AUTO_MAX_EDGES and graph.n <= AUTO_MAX_VERTICES
        return "lp" if small else "packing"
    if method == "lp" and (graph.m > LP_MAX_EDGES or graph.n > LP_MAX_VERTICES):
        raise GraphInputError(f"{owner}: {name}='lp' takes graphs of at most "
                              f"{LP_MAX_VERTICES:,} vertices and {LP_MAX_EDGES:,} edges (got "
                              f"{graph.n:,} and {graph.m:,}); use {name}='packing'")
    return method


def _joined(parts):
    """The cycles of several packing rounds as one ``(ptr, edges)``."""
    if not parts:
        return np.zeros(1, np.int64), np.zeros(0, np.int64)
    lengths = np.concatenate([np.diff(ptr) for ptr, _, _ in parts])
    return (np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            np.concatenate([edges for _, edges, _ in parts]).astype(np.int64))


def _subset(ptr, edges, keep):
    """The cycles ``keep`` selects, as ``(ptr, edges)``."""
    lengths = np.diff(ptr)
    return (np.concatenate([[0], np.cumsum(lengths[keep])]).astype(np.int64),
            edges[np.repeat(keep, lengths)])


@frames_like_input(dask_fields=("cycles",))
def clustering_lower_bound(graph: Any, labels: Any = None, *, method: str = "auto",
                           max_length: int = 8, steps: int = 30_000,
                           time_limit: float | None = None, seed: int = 0,
                           source: Any = None, target: Any = None, sign: Any = None,
                           weight: Any = None) -> ClusteringBound:
    """Lower bound on the correlation-clustering optimum, and the certified gap of a clustering.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph; edge weights are used when present (their
        absolute value, as :func:`~rapids_balance.imbalance` does).
    labels : DataFrame, Series, dict or array, optional
        The clustering whose gap is certified, in any form
        :func:`~rapids_balance.imbalance` takes; the packing is built around
        it (the better the clustering, the tighter the bound).  Default: the
        clustering of ``correlation_clustering(graph, seed=seed)``.
    method : {"auto", "packing", "lp"}, default "auto"
        ``"packing"``: cycles packed around the clustering (any size).
        ``"lp"``: the cycle LP by cutting planes (HiGHS, the ``exact``
        extra), started from the packing, so at least as tight; for graphs of
        at most 2,000 vertices and 40,000 edges (a larger one is refused
        before any work).  ``"auto"``: ``"lp"`` where highspy is installed
        and the graph has at most 1,000 vertices and 2,000 edges (where the
        LP converges in seconds), else ``"packing"``.
    max_length : int, default 8
        Longest path (in edges) that closes a cycle of the packing, in
        ``[1, 2**31 - 1]``.
    steps : int, default 30_000
        Steps of the packing's plateau search, in ``[0, 2**62]`` (0: none).
    time_limit : float, optional
        Seconds for the bound (the default clustering's search not
        included): a number >= 0.  When it expires, the bound so far is
        returned (valid, maybe lower, and then not reproducible): for
        ``"lp"``, the dual of the last LP solved (or cut short), never less
        than the packing's bound.
    seed : int, default 0
        Seed of the default clustering and of the plateau search: an int
        in ``[0, 2**63 - 1]``.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file (names or 0-based
        positions), as for :func:`~rapids_balance.correlation_clustering`.
        Refused with a built :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    ClusteringBound
        ``bound``, the clustering's ``imbalance``, ``gap`` and
        ``relative_gap``, the ``cycles`` (for ``"lp"``: the LP's dual, a
        fractional packing), the ``labels``, the ``method`` used and, for
        ``"lp"``, ``lp_converged`` (no violated cycle left: the bound is the
        LP's optimum).

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is read).
    GraphInputError
        The graph is unsigned or directed, ``labels`` does not fit it, or
        it is too large for ``method="lp"``.
    ImportError
        ``method="lp"`` without highspy (checked before the graph is read;
        ``"auto"`` then falls back to ``"packing"``).

    Notes
    -----
    Every cycle with exactly one negative edge holds a disagreement in every
    clustering (all its positive edges agreeing puts the negative edge inside
    a cluster), so cycles that share no edge bound I(P) from below, for the
    optimum too.  On a weighted graph each cycle is worth the smallest
    weight left on its edges, which it uses up on all of them (a fractional
    packing, the dual of the cycle LP; rounds repeat the packing on the
    weight left).  Two packings are made, one around the clustering (its
    wrong edges closed by paths of right ones) and one free of it (negative
    edges closed by shortest positive paths; graphs up to 200,000 edges),
    and the larger is kept.

    ``method="lp"`` solves the LP relaxation of the multicut formulation
    (``y_e`` in [0, 1], cost ``w_e y_e`` on positive and ``w_e (1 - y_e)`` on
    negative edges, cycle inequalities ``y_e <= sum of y_f over C - e``) in
    its equivalent covering form over the cycles with one negative edge, by
    cutting planes: the packing's cycles first, then after each solve the
    violated cycles found by Dijkstra with the solution as lengths.  An LP
    over a subset of the cycle inequalities has an optimum no larger than
    the full LP's, which is at most the optimum I(P), so every intermediate
    LP optimum is a lower bound; the bound returned is the LP's dual, a
    fractional packing scaled to be feasible, so it holds whatever the
    solver's tolerances.  With integer weights the optimum is an integer
    and the bound is rounded up.  On random graphs the LP itself stays far
    below the best clusterings known: its integrality gap there is large
    (many short cycles with one negative edge share few edges, and the LP
    pays a fraction of each), so no bound from it certifies them closely.
    On Levorato et al.'s random instances with half or more negative edges
    the certified gap is about 35 % or more (see the benchmark), while
    those with 20 % negative edges are certified optimal (gap 0).  The bound is the imbalance counted by
    :func:`~rapids_balance.imbalance`: ``|w|`` of negative edges inside
    clusters plus positive edges between them.  Cycles with more than one
    negative edge certify nothing here (three mutual enemies are happy in
    three clusters), so the bound can sit well below the frustration
    index's.  The packing is deterministic for a given graph, clustering,
    parameters and seed, unless ``time_limit`` cuts it short.  A gap does
    not mean the clustering is not optimal: the LP's own gap to the optimum
    can be positive (odd cycles of positive edges around negative ones).

    References
    ----------
    .. [1] E. D. Demaine, D. Emanuel, A. Fiat, N. Immorlica, "Correlation
       clustering in general weighted graphs", Theoretical Computer Science
       361 (2006) (the cycle LP and its relation to multicut).
    .. [2] S. Chopra, M. R. Rao, "The partition problem", Mathematical
       Programming 59 (1993) (cycle inequalities; on a complete graph the
       chordless cycles are the triangles, so the cycle LP is the triangle
       LP of M. Grötschel, Y. Wakabayashi, Mathematical Programming 45
       (1989)).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.SignedGraph.from_edgelist({"source": [0, 1, 2], "target": [1, 2, 0],
    ...                                   "sign": [1, 1, -1]}, sign="sign")
    >>> lb = rb.clustering_lower_bound(g, {0: "a", 1: "a", 2: "b"})
    >>> lb.bound, lb.imbalance, lb.gap
    (1.0, 1.0, 0.0)
    """
    owner = "clustering_lower_bound"
    method = check_choice(method, "method", owner, METHODS)
    max_length = check_int(max_length, "max_length", owner, low=1, high=MAX_LENGTH)
    steps = check_int(steps, "steps", owner, low=0, high=MAX_STEPS)
    time_limit = check_time_limit(time_limit, owner)
    seed = check_seed(seed, owner)
    if isinstance(labels, (str, bytes, int, float)):
        raise param_error("labels", owner, "a DataFrame, Series, dict or array of clusters", labels)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    method = resolve_method(method, owner)
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None or graph.directed:
        raise GraphInputError(f"{owner} needs an undirected signed graph (a sign on every edge)")
    method = method_for(graph, method, owner)
    if labels is None:
        from ._solve import correlation_clustering

        lab = coerce_labels(graph, correlation_clustering(graph, seed=seed,
                                                          progress=False).labels)
    else:
        lab = coerce_labels(graph, labels)
    w = edge_weights(graph)
    start = time.perf_counter()
    deadline = np.inf if time_limit is None else start + time_limit
    # both searches give valid packings: the one around the clustering follows its
    # structure (best on large social graphs), the free one packs the shortest cycles
    # anywhere (best on random graphs, where good clusterings disagree everywhere)
    # (on large social graphs its searches from hubs cost minutes and lose: skipped)
    searches = [_guided_search(graph, lab.astype(np.int64))]
    if graph.m <= FREE_MAX_EDGES:
        searches.append(_free_search(graph))
    bound, rounds = max((_packing_bound(search, w, int(max_length), int(steps), seed, deadline)
                         for search in searches), key=lambda r: r[0])
    parts = list(rounds)
    converged = lp_upper = None
    if method == "lp":
        start_ptr, start_edges = _joined(parts)
        value, ptr, edges, y, converged, lp_upper = lp_packing(graph, w, start_ptr, start_edges,
                                                               deadline)
        if value > bound:
            keep = y > 0
            bound, parts = value, [_subset(ptr, edges, keep) + (y[keep],)]
    if np.array_equal(w, np.round(w)):
        # the optimum is then an integer, at least the packing's value
        bound = max(bound, float(np.ceil(bound - INTEGRAL_SLACK)))
    cyc_rows = {"cycle": [], "edge": [], "value": []}
    first = 0
    for ptr, edges, values in parts:
        lengths = np.diff(ptr)
        cyc_rows["cycle"].append(first + np.repeat(np.arange(lengths.size), lengths))
        cyc_rows["edge"].append(edges)
        cyc_rows["value"].append(np.repeat(values, lengths))
        first += lengths.size
    elapsed = time.perf_counter() - start
    cat = {k: (np.concatenate(v) if v else np.zeros(0, np.float64 if k == "value" else np.int64))
           for k, v in cyc_rows.items()}
    edges = cat["edge"].astype(np.int64)
    cycles = make_table({"cycle": cat["cycle"].astype(np.int64),
                         "src": label_column(graph, graph.edge_src[edges]),
                         "dst": label_column(graph, graph.edge_dst[edges]),
                         "sign": graph.sign[edges], "value": cat["value"]}, like=graph)
    labels_frame = make_table({"vertex": label_column(graph, np.arange(graph.n)),
                               "cluster": lab.astype(np.int64)}, like=graph)
    value = float(imbalance_value(graph, lab, w))
    gap = value - bound
    return ClusteringBound(bound=float(bound), imbalance=value, gap=float(gap),
                           relative_gap=float(gap / value) if value > 0 else 0.0, cycles=cycles,
                           labels=labels_frame, method=method, elapsed_s=elapsed,
                           lp_converged=converged, lp_upper=lp_upper)
