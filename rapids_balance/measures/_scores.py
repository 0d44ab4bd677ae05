"""Balance scores in one call: triangles, walks, frustration and its bound, signnet's scale."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._display import Display
from .._validation import check_backend, check_bool, check_choice, check_number, check_seed
from .._validation import check_time_limit
from ..io._roles import check_roles
from ..errors import GraphInputError
from ._input import signed_input
from ._triangles import TriangleResult, signed_triangles
from ._walk import EXACT_MAX_VERTICES, WALK_METHODS, WalkBalance, _walk, AUTO_EXACT_VERTICES, DEFAULT_RTOL

__all__ = ["BalanceScores", "balance_scores", "frustration_score"]


@dataclass(frozen=True)
class BalanceScores(Display):
    """Balance of a signed graph by several measures, each 1 when the graph is balanced.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per measure: ``measure`` (``triangles``, ``walk``,
        ``frustration``, ``frustration_bound``), ``score`` (signnet's
        normalisation: 1 is perfectly balanced), ``raw`` (the figure the
        score is made of) and ``raw_is`` (what that figure is).
    triangles : TriangleResult
        :func:`~rapids_balance.signed_triangles` of the graph.
    walk : WalkBalance
        :func:`~rapids_balance.walk_balance` of the graph.
    frustration : FrustrationResult or None
        :func:`~rapids_balance.frustration` (None with ``frustration=False``).
    bound : FrustrationBound or None
        :func:`~rapids_balance.frustration_lower_bound` around its best state.
    """

    table: pd.DataFrame
    triangles: TriangleResult
    walk: WalkBalance
    frustration: Any
    bound: Any

    def _display(self):
        return ("BalanceScores", [(row.measure, row.score) for row in self.table.itertuples()],
                [("table", self.table)])

    def __repr__(self) -> str:
        return self.summary_line()

    def __getitem__(self, measure: str) -> float:
        """The score of one measure (``scores["walk"]``)."""
        row = self.table.loc[self.table["measure"] == measure, "score"]
        if row.empty:
            raise KeyError(f"no measure {measure!r}; available: {', '.join(self.table['measure'])}")
        return float(row.iloc[0])


def frustration_score(index: float, m: int) -> float:
    """signnet's normalised frustration: ``1 - index / (m / 2)``; 1 for a balanced graph.

    ``m / 2`` bounds the frustration index of any graph (one side of a
    bipartition or its flip frustrates at most half of the edges).

    Examples
    --------
    >>> frustration_score(7, 58)
    0.7586206896551724
    """
    return 1.0 - 2.0 * float(index) / m if m else 1.0


def balance_scores(graph: Any, *, beta: float = 1.0, walk_method: str = "auto", seed: int = 0,
                   frustration: bool = True, time_limit: float | None = None, backend: str = "auto",
                   progress: bool = False, source: Any = None, target: Any = None, sign: Any = None,
                   weight: Any = None) -> BalanceScores:
    """Triangle, walk and frustration balance of a signed graph in one call, on signnet's scale.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph (connected, for the frustration scores).
    beta : float, default 1.0
        Inverse temperature of the walk score (:func:`~rapids_balance.walk_balance`).
    walk_method : {"auto", "exact", "slq"}, default "auto"
        Method of the walk score.
    seed : int, default 0
        Seed of the walk score's probes and of the frustration search.
    frustration : bool, default True
        Compute the frustration scores (the costly part on large graphs).
    time_limit : float, optional
        Seconds for :func:`~rapids_balance.frustration` (a number >= 0;
        default: none); the bound's search is not limited.
    backend : {"auto", "cpu", "gpu"}, default "auto"
        Backend of the triangle listing, the walk score's products and the
        frustration search.
    progress : bool, default False
        Progress bar of the frustration search.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    BalanceScores
        ``table`` (measure, score, raw, raw_is) and the results behind it.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value.
    GraphInputError
        The graph is directed or unsigned; disconnected with
        ``frustration=True``; too large for ``walk_method="exact"``.  All
        checked before any work.

    Notes
    -----
    Scores, as signnet's ``balance_score``:

    * ``triangles``: the share of balanced triangles;
    * ``walk``: ``tr exp(beta A) / tr exp(beta |A|)``;
    * ``frustration``: ``1 - F / (m / 2)`` with ``F`` the refined
      frustration index of :func:`~rapids_balance.frustration`, an upper
      bound on the true index (signnet uses simulated annealing), so this
      score is a lower bound on the exact one;
    * ``frustration_bound``: the same with ``F`` replaced by
      :func:`~rapids_balance.frustration_lower_bound`, an upper bound on
      the exact score.  Where the two agree, the frustration score is exact.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> s = rb.balance_scores(rb.load_example("highland"), backend="cpu")
    >>> [round(x, 7) for x in s.table["score"]]
    [0.8676471, 0.3575761, 0.7586207, 0.7586207]
    """
    owner = "balance_scores"
    beta = check_number(beta, "beta", owner, low=0.0, low_open=True)
    walk_method = check_choice(walk_method, "walk_method", owner, WALK_METHODS)
    seed = check_seed(seed, owner)
    frustration = check_bool(frustration, "frustration", owner)
    time_limit = check_time_limit(time_limit, owner)
    check_backend(backend, owner)
    progress = check_bool(progress, "progress", owner)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    g = signed_input(graph, owner, roles)
    if walk_method == "exact" and g.n > EXACT_MAX_VERTICES:
        raise GraphInputError(f"balance_scores: walk_method='exact' takes graphs of at most "
                              f"{EXACT_MAX_VERTICES:,} vertices; this one has {g.n:,}: use 'slq' or 'auto'")
    if frustration and g.n and _components(g) > 1:
        raise GraphInputError("balance_scores: the frustration scores need a connected graph; this one "
                              "has several components (keep the largest when reading it, the default "
                              "rule, or pass frustration=False)")
    from ..backend import resolve_backend

    backend = resolve_backend(backend)
    tri = signed_triangles(g, backend=backend)
    method = walk_method if walk_method != "auto" else ("exact" if g.n <= AUTO_EXACT_VERTICES else "slq")
    walk = _walk(g, beta, method, dict(probes=64, steps=40, deflation=16, seed=seed, rtol=DEFAULT_RTOL),
                 False, backend)
    rows = [("triangles", tri.balance_ratio, float(tri.unbalanced),
             f"unbalanced triangles of {tri.n_triangles:,}"),
            ("walk", walk.score, walk.log_score,
             f"log of the score (beta {beta:g}, {walk.method}, standard error {walk.log_score_error:.2g})")]
    fr = bound = None
    if frustration:
        from ..frustration_index import frustration as run_frustration, frustration_lower_bound

        fr = run_frustration(g, seed=seed, time_limit=time_limit, backend=backend, progress=progress)
        bound = frustration_lower_bound(g, fr.best_state, seed=seed)
        rows.append(("frustration", frustration_score(fr.index, g.m), float(fr.index),
                     f"frustration index found (an upper bound) of {g.m:,} edges"))
        rows.append(("frustration_bound", frustration_score(bound.bound, g.m), float(bound.bound),
                     "lower bound on the frustration index (cycle packing): the score is an upper bound"))
    table = pd.DataFrame(rows, columns=["measure", "score", "raw", "raw_is"])
    return BalanceScores(table=table, triangles=tri, walk=walk, frustration=fr, bound=bound)


def _components(g) -> int:
    from scipy.sparse.csgraph import connected_components

    return int(connected_components(g._scipy_matrix(), directed=False)[0])
