"""Signed degree and Everett and Borgatti's PN centrality, as node tables."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._output import label_column, make_table
from .._validation import check_number
from ..io._roles import check_roles
from ..errors import GraphInputError
from ._input import signed_input

__all__ = ["signed_degree", "pn_index"]


def signed_degree(graph: Any, *, source: Any = None, target: Any = None, sign: Any = None,
                  weight: Any = None) -> Any:
    """Positive, negative, net and ratio degree of every vertex.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    DataFrame
        ``vertex`` (original label), ``positive`` and ``negative`` (edges of
        each sign), ``net`` (``positive - negative``), ``ratio``
        (``positive / (positive + negative)``, NaN for an isolated vertex),
        as signnet's ``degree_signed``.  A weighted graph adds
        ``positive_weight``, ``negative_weight``, ``net_weight`` and
        ``ratio_weight``: the same with the absolute weights summed.

    Raises
    ------
    GraphInputError
        The graph is directed or unsigned.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> d = rb.signed_degree(rb.load_example("graphb-test-1a"))
    >>> d.columns.tolist()
    ['vertex', 'positive', 'negative', 'net', 'ratio']
    """
    owner = "signed_degree"
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    g = signed_input(graph, owner, roles)
    neg = np.asarray(g.sign) < 0
    cols = {"vertex": label_column(g)}
    mags = [("", np.ones(g.m))]
    if g.weight is not None:
        mags.append(("_weight", np.abs(np.asarray(g.weight, dtype=np.float64))))
    for suffix, mag in mags:
        pos_v = _vertex_sums(g, np.where(neg, 0.0, mag))
        neg_v = _vertex_sums(g, np.where(neg, mag, 0.0))
        if suffix == "":
            pos_v, neg_v = pos_v.astype(np.int64), neg_v.astype(np.int64)
        total = pos_v + neg_v
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(total > 0, pos_v / np.where(total > 0, total, 1), np.nan)
        cols.update({f"positive{suffix}": pos_v, f"negative{suffix}": neg_v,
                     f"net{suffix}": pos_v - neg_v, f"ratio{suffix}": ratio})
    return make_table(cols, like=g)


def _vertex_sums(g, per_edge: np.ndarray) -> np.ndarray:
    return np.bincount(g.edge_src, per_edge, g.n) + np.bincount(g.edge_dst, per_edge, g.n)


def pn_index(graph: Any, *, tol: float = 1e-12, source: Any = None, target: Any = None,
             sign: Any = None, weight: Any = None) -> Any:
    """Everett and Borgatti's PN centrality of every vertex, by a sparse iterative solve.

    ``PN = (I - A / (2n - 2))^-1 1`` with ``A = P - 2N`` (``P``, ``N``: the
    0/1 adjacency matrices of the positive and negative edges): a
    vertex scores high with many positive ties to well-connected vertices
    and few negative ones.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph of at least 3 vertices (signs only;
        weights are not used, as in the definition).
    tol : float, default 1e-12
        Relative residual of the conjugate-gradient solve, in ``(0, 1e-3]``.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    DataFrame
        ``vertex`` (original label) and ``pn``.

    Raises
    ------
    InvalidParameterError
        ``tol`` out of range.
    GraphInputError
        The graph is directed, unsigned or has fewer than 3 vertices.

    Notes
    -----
    Every eigenvalue of ``A`` is below ``2(n - 1)`` when ``n >= 3`` (a
    row of ``|A|`` sums to at most ``2(n - 1)``, with equality on every row
    only for the all-negative complete graph, whose top eigenvalue is 2), so
    ``I - A / (2n - 2)`` is symmetric positive definite and conjugate
    gradients solve it with sparse products only, never a dense inverse;
    its eigenvalues lie in ``(0, 2]``, so a few dozen iterations suffice.
    The result equals signnet's ``pn_index(g)`` (a dense ``solve``).

    References
    ----------
    .. [1] M. G. Everett, S. P. Borgatti, "Networks containing negative
       ties", Social Networks 38 (2014).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> pn = rb.pn_index(rb.load_example("highland"))
    >>> len(pn), bool((pn["pn"] > 0).all())
    (16, True)
    """
    owner = "pn_index"
    tol = check_number(tol, "tol", owner, low=0.0, high=1e-3, low_open=True)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    g = signed_input(graph, owner, roles)
    if g.n < 3:
        raise GraphInputError(f"pn_index needs at least 3 vertices (the PN system is singular or "
                              f"undefined below); this graph has {g.n}")
    import scipy.sparse as sp
    from scipy.sparse.linalg import cg

    vals = np.where(np.asarray(g.sign) < 0, -2.0, 1.0) / (2.0 * g.n - 2.0)
    a = sp.csr_matrix((np.concatenate([vals, vals]), (np.concatenate([g.edge_src, g.edge_dst]),
                                                      np.concatenate([g.edge_dst, g.edge_src]))),
                      shape=(g.n, g.n))
    m = sp.identity(g.n, format="csr") - a
    x, info = cg(m, np.ones(g.n), rtol=tol, atol=0.0, maxiter=10 * g.n + 100)
    if info != 0:  # cannot happen for n >= 3 (positive definite); say so if it does
        raise RuntimeError(f"pn_index: conjugate gradients did not converge ({info} iterations)")
    return make_table({"vertex": label_column(g), "pn": x}, like=g)
