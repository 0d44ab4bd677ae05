"""Signed community objectives: signed modularity and the signed Potts model.

* signed modularity (Gomez, Jensen and Arenas 2009)::

      Q = (2w+ Q+ - 2w- Q-) / (2w+ + 2w-)

  where ``Q+`` and ``Q-`` are the modularities of the positive and of the
  negative part (each against its own configuration null model, with the
  resolutions ``gamma+`` and ``gamma-``) and ``2w+`` / ``2w-`` their total
  strengths.  Summed over communities::

      Q = sum_c [2 P_c - gamma+ (K+_c)^2 / 2w+ - 2 N_c + gamma- (K-_c)^2 / 2w-] / (2w+ + 2w-)

  with ``P_c`` / ``N_c`` the positive / negative weight inside c and
  ``K+-_c`` the positive / negative strength of its vertices;

* the signed Potts model (Traag and Bruggeman 2009), as a quality to
  maximise (minus their Hamiltonian) over unordered pairs ``i < j``::

      F = sum_{i<j, c_i = c_j} [(A+_ij - gamma+ p+_ij) - (A-_ij - gamma- p-_ij)]

  with the null model ``p+-_ij``: ``"configuration"`` (``k_i k_j / 2m``),
  ``"erdos_renyi"`` (the density ``m / C(n, 2)``, their choice) or
  ``"constant"`` (1: the constant Potts model, CPM, whose resolutions are
  weights per pair).  At ``gamma+ = gamma- = 0`` F is ``m+ - I(P)``: the
  correlation-clustering objective.

The search works on one form shared by every objective (:class:`SearchForm`)::

      F = sum_{i<j, c_i = c_j} [w_ij - alpha x_i x_j + beta y_i y_j]

with non-negative vertex weights ``x``, ``y`` (strengths or vertex counts),
whose totals per community make every move's gain O(1) past the neighbours'
sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from .._validation import check_choice, check_number, param_error
from ..errors import GraphInputError
from ..graph import Graph, graph_from_any
from ..io._roles import check_roles
from ._objective import coerce_labels, edge_weights

__all__ = ["SignedModularityResult", "PottsResult", "signed_modularity", "signed_potts",
           "SearchForm", "search_form", "objective_value", "check_resolution", "NULL_MODELS",
           "OBJECTIVES", "strengths"]

OBJECTIVES = ("modularity", "potts", "imbalance")
NULL_MODELS = ("configuration", "erdos_renyi", "constant")
MAX_RESOLUTION = 1e12


@dataclass(frozen=True)
class SignedModularityResult:
    """Signed modularity of a partition and its parts.

    Attributes
    ----------
    modularity : float
        Q = (2w+ Q+ - 2w- Q-) / (2w+ + 2w-).
    positive, negative : float
        Q+ and Q-: the modularity of the positive part and of the negative
        part (0 for a part without edges).
    positive_strength, negative_strength : float
        2w+ and 2w-: twice the positive and the negative total weight.
    resolution : (float, float)
        (gamma+, gamma-).
    n_communities : int
    """

    modularity: float
    positive: float
    negative: float
    positive_strength: float
    negative_strength: float
    resolution: tuple[float, float]
    n_communities: int

    def __float__(self) -> float:
        return float(self.modularity)


@dataclass(frozen=True)
class PottsResult:
    """Signed Potts quality of a partition (minus Traag and Bruggeman's Hamiltonian).

    Attributes
    ----------
    quality : float
        F = (positive_inside - gamma+ positive_expected) - (negative_inside - gamma- negative_expected).
    positive_inside, negative_inside : float
        Positive / negative weight (absolute) inside communities.
    positive_expected, negative_expected : float
        Sum of the null model ``p+_ij`` / ``p-_ij`` over pairs inside communities.
    resolution : (float, float)
    null : str
    n_communities : int
    """

    quality: float
    positive_inside: float
    negative_inside: float
    positive_expected: float
    negative_expected: float
    resolution: tuple[float, float]
    null: str
    n_communities: int

    def __float__(self) -> float:
        return float(self.quality)


def check_resolution(value: Any, owner: str, name: str = "resolution") -> tuple[float, float]:
    """A resolution: one number for both signs or a pair (gamma+, gamma-), each in [0, 1e12]."""
    must = "a number or a pair (gamma+, gamma-) of numbers, each finite and in [0, 1e12]"
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise param_error(name, owner, must, value)
        pair = value
    elif isinstance(value, np.ndarray) and value.shape == (2,):
        pair = tuple(value.tolist())
    else:
        pair = (value, value)
    try:
        return tuple(check_number(v, name, owner, low=0.0, high=MAX_RESOLUTION) for v in pair)
    except (ValueError, TypeError):
        raise param_error(name, owner, must, value) from None


def _signed_graph(graph: Any, owner: str, roles: dict[str, Any]) -> Graph:
    graph = graph_from_any(graph, signed=True, **check_roles(graph, owner, roles))
    if graph.sign is None or graph.directed:
        raise GraphInputError(f"{owner} needs an undirected signed graph (a sign on every edge)")
    return graph


def strengths(graph: Graph, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative strength of every vertex (sums of |w| by sign)."""
    w = edge_weights(graph) if w is None else w
    pos = graph.sign > 0
    kp = np.bincount(graph.edge_src, weights=np.where(pos, w, 0.0), minlength=graph.n)
    kp += np.bincount(graph.edge_dst, weights=np.where(pos, w, 0.0), minlength=graph.n)
    kn = np.bincount(graph.edge_src, weights=np.where(pos, 0.0, w), minlength=graph.n)
    kn += np.bincount(graph.edge_dst, weights=np.where(pos, 0.0, w), minlength=graph.n)
    return kp, kn


@numba.njit(cache=True, nogil=True)
def _inside(edge_src, edge_dst, sign, w, labels):
    pin = 0.0
    nin = 0.0
    for e in range(edge_src.size):
        if labels[edge_src[e]] == labels[edge_dst[e]]:
            if sign[e] > 0:
                pin += w[e]
            else:
                nin += w[e]
    return pin, nin


def _sum_sq_by(labels: np.ndarray, x: np.ndarray, nc: int) -> float:
    """sum_c (sum_{i in c} x_i)^2."""
    tot = np.bincount(labels, weights=x, minlength=nc)
    return float(np.dot(tot, tot))


def _parts(graph: Graph, lab: np.ndarray, k: tuple[np.ndarray, np.ndarray] | None = None):
    w = edge_weights(graph)
    # the strengths do not depend on the labels: a search passes them once for all its calls
    kp, kn = strengths(graph, w) if k is None else k
    pin, nin = _inside(graph.edge_src, graph.edge_dst, graph.sign, w, lab.astype(np.int64))
    return w, kp, kn, pin, nin


def modularity_parts(graph: Graph, lab: np.ndarray, gp: float, gn: float,
                     k: tuple[np.ndarray, np.ndarray] | None = None) -> SignedModularityResult:
    nc = int(lab.max()) + 1 if lab.size else 0
    _, kp, kn, pin, nin = _parts(graph, lab, k)
    sp, sn = float(kp.sum()), float(kn.sum())
    qp = (2.0 * pin - gp * _sum_sq_by(lab, kp, nc) / sp) / sp if sp > 0 else 0.0
    qn = (2.0 * nin - gn * _sum_sq_by(lab, kn, nc) / sn) / sn if sn > 0 else 0.0
    q = (sp * qp - sn * qn) / (sp + sn) if sp + sn > 0 else 0.0
    return SignedModularityResult(modularity=float(q), positive=float(qp), negative=float(qn),
                                  positive_strength=sp, negative_strength=sn,
                                  resolution=(gp, gn), n_communities=nc)


def _expected(lab: np.ndarray, x: np.ndarray, nc: int) -> float:
    """sum over pairs i < j inside communities of x_i x_j."""
    return 0.5 * (_sum_sq_by(lab, x, nc) - float(np.dot(x, x)))


def potts_parts(graph: Graph, lab: np.ndarray, gp: float, gn: float, null: str,
                k: tuple[np.ndarray, np.ndarray] | None = None) -> PottsResult:
    nc = int(lab.max()) + 1 if lab.size else 0
    w, kp, kn, pin, nin = _parts(graph, lab, k)
    if null == "configuration":
        sp, sn = float(kp.sum()), float(kn.sum())
        ep = _expected(lab, kp, nc) / sp if sp > 0 else 0.0
        en = _expected(lab, kn, nc) / sn if sn > 0 else 0.0
    else:
        pairs_in = _expected(lab, np.ones(graph.n), nc)
        if null == "erdos_renyi":
            total_pairs = graph.n * (graph.n - 1) / 2.0
            mp = float(w[graph.sign > 0].sum())
            mn = float(w[graph.sign < 0].sum())
            ep, en = pairs_in * mp / total_pairs, pairs_in * mn / total_pairs
        else:
            ep = en = pairs_in
    q = (pin - gp * ep) - (nin - gn * en)
    return PottsResult(quality=float(q), positive_inside=float(pin), negative_inside=float(nin),
                       positive_expected=float(ep), negative_expected=float(en),
                       resolution=(gp, gn), null=null, n_communities=nc)


def signed_modularity(graph: Any, labels: Any, *, resolution: Any = 1.0, source: Any = None,
                      target: Any = None, sign: Any = None, weight: Any = None) -> SignedModularityResult:
    """Signed modularity (Gomez, Jensen and Arenas 2009) of a partition.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph; edge weights (their absolute value) are
        used when present.
    labels : DataFrame, Series, dict or array
        The partition, in any form :func:`rapids_balance.imbalance` takes (a
        result's ``labels`` table as it is).
    resolution : float or (float, float), default 1.0
        gamma for both null terms, or the pair (gamma+, gamma-), each in [0, 1e12].
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    SignedModularityResult
        ``modularity`` Q and its parts ``positive`` (Q+), ``negative`` (Q-),
        ``positive_strength`` (2w+), ``negative_strength`` (2w-).

    Notes
    -----
    ``Q = (2w+ Q+ - 2w- Q-) / (2w+ + 2w-)`` with ``Q+ = sum_c [2 P_c / 2w+
    - gamma+ (K+_c / 2w+)^2]`` (``P_c``: positive weight inside c, ``K+_c``:
    positive strength of c's vertices) and ``Q-`` the same over the negative
    weights.  A part without edges contributes 0.  Equivalently
    ``Q = 1/(2w+ + 2w-) sum_ij [w_ij - (gamma+ w+_i w+_j / 2w+ - gamma- w-_i w-_j / 2w-)] delta(c_i, c_j)``
    over all ordered pairs, the diagonal included.

    References
    ----------
    .. [1] S. Gomez, P. Jensen, A. Arenas, "Analysis of community structure in
       networks of correlated data", Phys. Rev. E 80, 016114 (2009).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.SignedGraph.from_edgelist({"source": [0, 1, 2], "target": [1, 2, 0],
    ...                                   "sign": [1, 1, -1]}, sign="sign")
    >>> round(rb.signed_modularity(g, {0: "a", 1: "a", 2: "b"}).modularity, 6)
    0.083333
    """
    owner = "signed_modularity"
    gp, gn = check_resolution(resolution, owner)
    if labels is None:
        raise param_error("labels", owner, "a DataFrame, Series, dict or array of communities", labels)
    graph = _signed_graph(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    return modularity_parts(graph, coerce_labels(graph, labels), gp, gn)


def signed_potts(graph: Any, labels: Any, *, resolution: Any = 1.0, null: str = "erdos_renyi",
                 source: Any = None, target: Any = None, sign: Any = None,
                 weight: Any = None) -> PottsResult:
    """Signed Potts quality (Traag and Bruggeman 2009) of a partition.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
    labels : DataFrame, Series, dict or array
        The partition (see :func:`signed_modularity`).
    resolution : float or (float, float), default 1.0
        gamma for both signs or (gamma+, gamma-), each in [0, 1e12].
    null : {"erdos_renyi", "configuration", "constant"}, default "erdos_renyi"
        The null model ``p_ij`` of each sign: the sign's density ``m+- / C(n, 2)``
        (Traag and Bruggeman's choice), ``k_i k_j / 2m`` of the sign's
        strengths, or 1 (the constant Potts model, CPM: a resolution is then
        a weight per pair, and only gamma+ - gamma- matters).
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    PottsResult
        ``quality`` F and its parts.

    Notes
    -----
    ``F = sum_{i<j, c_i = c_j} [(A+_ij - gamma+ p+_ij) - (A-_ij - gamma- p-_ij)]``
    over unordered pairs, ``A-`` the absolute weight of negative edges: minus
    the Hamiltonian of equation (4) of the paper.  At resolution 0,
    ``F = m+ - I(P)``, so maximising F is correlation clustering.

    References
    ----------
    .. [1] V. A. Traag, J. Bruggeman, "Community detection in networks with
       positive and negative links", Phys. Rev. E 80, 036115 (2009).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.SignedGraph.from_edgelist({"source": [0, 1, 2], "target": [1, 2, 0],
    ...                                   "sign": [1, 1, -1]}, sign="sign")
    >>> rb.signed_potts(g, {0: "a", 1: "a", 2: "b"}, resolution=0.0).quality
    1.0
    """
    owner = "signed_potts"
    gp, gn = check_resolution(resolution, owner)
    check_choice(null, "null", owner, NULL_MODELS)
    if labels is None:
        raise param_error("labels", owner, "a DataFrame, Series, dict or array of communities", labels)
    graph = _signed_graph(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    return potts_parts(graph, coerce_labels(graph, labels), gp, gn, null)


# -- the search's form -------------------------------------------------------------------------

@dataclass(frozen=True)
class SearchForm:
    """``F = sum_{i<j same} [w_ij - alpha x_i x_j + beta y_i y_j]`` for one objective."""

    x: np.ndarray
    y: np.ndarray
    alpha: float
    beta: float


def search_form(graph: Graph, objective: str, gp: float, gn: float, null: str) -> SearchForm:
    """The vertex weights and coefficients of ``objective`` at resolution (gp, gn).

    Modularity and the configuration Potts model share a form (Q is
    ``(2F - alpha sum x^2 + beta sum y^2) / (2w+ + 2w-)``); the density and
    constant null models weigh each vertex 1; imbalance has no null term
    (``F = m+ - I``).
    """
    n = graph.n
    if objective == "imbalance":
        one = np.ones(n)
        return SearchForm(one, one, 0.0, 0.0)
    if objective == "modularity" or null == "configuration":
        kp, kn = strengths(graph)
        sp, sn = float(kp.sum()), float(kn.sum())
        return SearchForm(kp, kn, gp / sp if sp > 0 else 0.0, gn / sn if sn > 0 else 0.0)
    one = np.ones(n)
    if null == "constant":
        return SearchForm(one, one, gp, gn)
    w = edge_weights(graph)
    pairs = n * (n - 1) / 2.0 if n > 1 else 1.0
    return SearchForm(one, one, gp * float(w[graph.sign > 0].sum()) / pairs,
                      gn * float(w[graph.sign < 0].sum()) / pairs)


def objective_value(graph: Graph, lab: np.ndarray, objective: str, gp: float, gn: float,
                    null: str, k: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> tuple[float, Any]:
    """(value, parts) of a partition: Q, F or I(P) (lower is better only for I).
    ``k``: the graph's ``strengths``, when the caller evaluates many partitions."""
    if objective == "modularity":
        r = modularity_parts(graph, lab, gp, gn, k)
        return r.modularity, r
    if objective == "potts":
        r = potts_parts(graph, lab, gp, gn, null, k)
        return r.quality, r
    from ._objective import imbalance

    r = imbalance(graph, lab)
    return r.imbalance, r
