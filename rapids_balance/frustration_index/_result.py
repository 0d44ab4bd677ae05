"""Result objects of :func:`frustration` and :func:`frustration_index_exact`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._display import Display

__all__ = ["FrustrationResult", "ExactResult", "FrustrationBound", "state_frame", "switched_frame"]


def state_frame(graph, side: np.ndarray) -> pd.DataFrame:
    """``vertex`` (original label), ``side`` (0/1) of a bipartition (cuDF for a graph kept on the device)."""
    from .._output import label_column, make_table

    return make_table({"vertex": label_column(graph), "side": np.asarray(side, dtype=np.int8)}, like=graph)


def switched_frame(graph, side: np.ndarray) -> pd.DataFrame:
    """Edges whose sign the balanced state flips: ``src``, ``dst`` (labels), ``sign`` (input)."""
    from .._output import label_column, make_table

    side = np.asarray(side)
    across = side[graph.edge_src] != side[graph.edge_dst]
    frustrated = (graph.sign > 0) == across
    e = np.flatnonzero(frustrated)
    return make_table({"src": label_column(graph, graph.edge_src[e]),
                       "dst": label_column(graph, graph.edge_dst[e]),
                       "sign": graph.sign[e]}, like=graph)


@dataclass
class FrustrationResult(Display):
    """What :func:`rapids_balance.frustration` found.

    Attributes
    ----------
    index : int
        Fewest edge sign switches found (refined when ``refine`` was on).
    tree_index : int or None
        Fewest switches of any tree's nearest balanced state (graphB++'s
        estimate); None when no tree was sampled (``n_trees=0``, or a time
        limit too short for one).
    refined_index : int or None
        Frustration after the local-search refinement (None without it).
    best_state : pandas.DataFrame
        ``vertex`` (original label), ``side`` (0/1) of the best bipartition.
    switched : pandas.DataFrame
        ``src``, ``dst``, ``sign`` of the edges whose sign that state flips
        (``len(switched) == index``).
    cloud : pandas.DataFrame
        One row per distinct tree state kept: ``state`` (id, in order of
        discovery), ``count``, ``switches``, ``sampler``, ``first_tree``;
        sorted by ``switches`` then ``state``.
    history : pandas.DataFrame
        ``trees`` done and best tree ``index`` after each batch (past 4,096
        batches thinned: every improvement kept, plateaus thinned evenly, so
        a run of any length keeps a bounded history), then
        ``stage="refine"`` rows with the best index after each refinement round.
    params : dict
        The parameters of the run.
    info : dict
        Counts: trees (sampled), distinct states seen, states evicted by the
        cap, timings (``seconds_compile``: kernels compiled or loaded
        before the clock started, 0 once a process has them;
        ``seconds_search``: the rest of the call, which ``time_limit``
        bounds); ``start``: where the best state's search started
        (``"trees"``; ``"check-bfs"`` or ``"one-side"`` when the time limit
        left no room for a tree, see :func:`~rapids_balance.frustration`;
        None with ``n_trees=0``); ``stopped``: ``"time_limit"`` when the
        time limit cut the work short, else None; ``stopped_stages``: which
        stages it cut short (``"trees"``: the trees' share of the limit
        ended before ``n_trees`` trees; ``"refine"``: the limit ended during
        the refinement); ``refine_on``: where the refinement's V-cycles ran
        (``"threads"`` of the calling process, ``"workers"`` of the Dask
        cluster of ``client=``, None without a refinement), and on the
        workers ``refine_tasks`` (V-cycle tasks submitted) and
        ``refine_workers`` (V-cycles each worker ran, by address).
    """

    index: int
    tree_index: int | None
    refined_index: int | None
    best_state: pd.DataFrame
    switched: pd.DataFrame
    cloud: pd.DataFrame
    history: pd.DataFrame
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    _cloud_words: Any = field(default=None, repr=False)

    def cloud_states(self) -> np.ndarray:
        """Side vectors (0/1, int8, shape (states, n)) of the cloud's rows, in row order."""
        from ._states import words_to_sides

        n = len(self.best_state)
        return np.stack([words_to_sides(w, n) for w in self._cloud_words]) if len(self.cloud) \
            else np.zeros((0, n), np.int8)

    def _display(self):
        i = self.info
        facts = [("index", self.index), ("tree index", self.tree_index), ("refined index", self.refined_index),
                 ("trees sampled", i.get("trees")), ("states", len(self.cloud)), ("backend", i.get("backend"))]
        if i.get("stopped"):
            facts.append(("stopped", i["stopped"]))
        return ("FrustrationResult", facts, [("switched", self.switched), ("best_state", self.best_state),
                                             ("cloud", self.cloud), ("history", self.history)])

    def __repr__(self) -> str:
        ref = "" if self.refined_index is None else f", refined_index={self.refined_index}"
        return (f"FrustrationResult(index={self.index}, tree_index={self.tree_index}{ref}, "
                f"states={len(self.cloud)}, trees={self.info.get('trees')})")


@dataclass
class ExactResult(Display):
    """What :func:`rapids_balance.frustration_index_exact` proved.

    Attributes
    ----------
    index : int or None
        Frustration of the best bipartition found (the optimum when ``optimal``).
    bound : float
        Proven lower bound on the frustration index.
    gap : float
        ``(index - bound) / index`` (0 when optimal).
    optimal : bool
        True when the solver proved optimality.
    status : str
        Solver status text.
    best_state, switched : pandas.DataFrame
        As in :class:`FrustrationResult`.
    seconds : float
        Solver wall time (cut loop included).
    cuts : int
        Unbalanced-cycle inequalities added to the root LP.
    """

    index: int | None
    bound: float
    gap: float
    optimal: bool
    status: str
    best_state: pd.DataFrame | None
    switched: pd.DataFrame | None
    seconds: float
    solver: str = "highs"
    cuts: int = 0

    def _display(self):
        return ("ExactResult", [("index", self.index), ("bound", self.bound), ("gap", self.gap),
                                ("optimal", self.optimal), ("status", self.status), ("seconds", self.seconds),
                                ("solver", self.solver)], [("switched", self.switched)])

    def __repr__(self) -> str:
        return self.summary_line()


@dataclass
class FrustrationBound(Display):
    """What :func:`rapids_balance.frustration_index.frustration_lower_bound` proved.

    Attributes
    ----------
    bound : int
        Edge-disjoint unbalanced cycles found: a lower bound on the frustration index.
    index : int
        Frustration of the state the cycles were packed around (an upper bound).
    gap : int
        ``index - bound``: the state is at most this far from optimal (0: optimal).
    cycles : pandas.DataFrame
        ``cycle`` (0 .. bound-1), ``src``, ``dst`` (original labels) and
        ``sign`` of each edge of each cycle; the first edge of a cycle is the
        one the state frustrates, the others close the cycle.
    info : dict
        ``seconds_compile`` (the kernels compiled or loaded before the
        clock started; 0 once a process has them) and ``seconds_search``.
    """

    bound: int
    index: int
    gap: int
    cycles: pd.DataFrame
    info: dict = field(default_factory=dict)

    def _display(self):
        return ("FrustrationBound", [("bound", self.bound), ("index", self.index), ("gap", self.gap),
                                     ("optimal", self.gap == 0)], [("cycles", self.cycles)])

    def __repr__(self) -> str:
        return f"FrustrationBound(bound={self.bound}, index={self.index}, gap={self.gap})"
