"""The statistics a significance test can take, by name or as a callable.

Each statistic knows its value on a signed graph and the side on which a
value means *more balanced than chance* (the default alternative):

* ``"frustration"``: the refined frustration index of
  :func:`~rapids_balance.frustration` with a small, fixed budget (``8``
  trees, a population of ``4`` states, one recombination round: six
  V-cycles), the same for the observed graph and every null sample; lower
  is more balanced.  A disconnected null sample is the sum over its
  components that hold a cycle.  On Bitcoin OTC this budget gives the
  index of the full default effort (1,000 trees, population 8, up to six
  rounds) on the observed graph (1,148) and on the first six shuffle
  samples, and the index of a population of 8 on 29 of 30 shuffle samples
  (2 edges more on the other), in half its time.
* ``"triangles"``: the triangle balance ratio, the share of triangles with
  an even number of negative edges; higher is more balanced.  Over a fixed
  topology (the shuffle null) the triangles are listed once and each sample
  is a gather over their edge ids.
* ``"walk"``: the logarithm of the walk balance score of Estrada and Benzi
  (:func:`~rapids_balance.walk_balance`, ``log_score``: the score itself
  underflows to 0 on large graphs, and a p-value is the same for any
  increasing transform); higher is more balanced.
* a callable ``f(graph) -> float`` on a
  :class:`~rapids_balance.graph.SignedGraph`; no side is implied (default:
  two-sided).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._validation import param_error
from ..errors import GraphInputError

__all__ = ["Statistic", "resolve_statistic", "STATISTICS", "FRUSTRATION_TREES",
           "FRUSTRATION_ROUNDS", "FRUSTRATION_POPULATION"]

STATISTICS = ("frustration", "triangles", "walk")
FRUSTRATION_TREES = 8   # per sample: the refinement, not the trees, finds the good states
FRUSTRATION_ROUNDS = 1  # recombination rounds per sample (the default effort is far more)
FRUSTRATION_POPULATION = 4  # states per sample: 4 starts and 2 children, 3 waves on 2 threads


@dataclass(frozen=True)
class Statistic:
    """A statistic: ``value(graph, seed, backend)``; ``on_topology(graph)``
    gives a faster ``f(sign, seed)`` for many sign vectors over one topology
    (or None); ``side`` is its default alternative."""

    name: str
    side: str
    value: Callable[[Any, int, str], float]
    on_topology: Callable[[Any], Callable[[np.ndarray, int], float]] | None = None

    def check(self, graph: Any) -> None:
        """Refuse a graph the statistic is undefined on, before any work."""
        if self.name == "triangles":
            if triangle_list(graph).shape[0] == 0:
                raise GraphInputError("significance(statistic='triangles'): the graph has no "
                                      "triangles, so its triangle balance ratio is undefined")


def _frustration(graph, seed: int, backend: str) -> float:
    from scipy.sparse.csgraph import connected_components

    from dataclasses import replace

    from ..frustration_index import frustration
    from ..frustration_index._frustration import default_refine

    def index(g) -> float:
        # the default effort's shape for the graph's size (a large graph keeps its scaled
        # settings), with this statistic's rounds and at most its population
        base = default_refine(g.m, FRUSTRATION_ROUNDS)
        effort = replace(base, population=min(base.population, FRUSTRATION_POPULATION))
        return float(frustration(g, FRUSTRATION_TREES, seed=seed, refine=effort, backend=backend,
                                 progress=False).index)

    k, comp = connected_components(graph._scipy_matrix(), directed=False)
    if k == 1:
        return index(graph)
    from ..graph import SignedGraph

    total = 0.0
    ecomp = comp[graph.edge_src]
    nv = np.bincount(comp, minlength=k)
    ne = np.bincount(ecomp, minlength=k)
    for c in np.flatnonzero(ne >= nv):  # a tree component is balanced
        verts = np.flatnonzero(comp == c)
        new = np.full(graph.n, -1, np.int64)
        new[verts] = np.arange(verts.size)
        es = np.flatnonzero(ecomp == c)
        sub = SignedGraph(edge_src=new[graph.edge_src[es]], edge_dst=new[graph.edge_dst[es]],
                          n_vertices=verts.size, labels=graph.labels[verts], directed=False,
                          sign=graph.sign[es])
        total += index(sub)
    return total


def triangle_list(graph) -> np.ndarray:
    from ..measures import list_triangles

    return list_triangles(graph.edge_src, graph.edge_dst, graph.n)


def _triangles(graph, seed: int, backend: str) -> float:
    from ..measures import balance_ratio_of_counts, census_of_triangles

    return balance_ratio_of_counts(census_of_triangles(triangle_list(graph), graph.sign))


def _triangles_on_topology(graph):
    from ..measures import balance_ratio_of_counts, census_of_triangles

    tri = triangle_list(graph)
    return lambda sign, seed: balance_ratio_of_counts(census_of_triangles(tri, sign))


def _walk(graph, seed: int, backend: str) -> float:
    from ..measures import walk_balance

    return float(walk_balance(graph, seed=seed, backend=backend).log_score)


def resolve_statistic(statistic: Any, owner: str) -> Statistic:
    """A statistic name or callable -> :class:`Statistic` (checked before any work)."""
    if callable(statistic):
        name = getattr(statistic, "__name__", type(statistic).__name__)
        return Statistic(name=name, side="two-sided",
                         value=lambda graph, seed, backend: float(statistic(graph)))
    if statistic not in STATISTICS:
        raise param_error("statistic", owner, "one of 'frustration', 'triangles', 'walk' or a "
                          "callable graph -> float", statistic)
    if statistic == "frustration":
        return Statistic("frustration", "less", _frustration)
    if statistic == "triangles":
        return Statistic("triangles", "greater", _triangles, _triangles_on_topology)
    return Statistic("walk", "greater", _walk)
