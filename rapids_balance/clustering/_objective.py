"""The correlation-clustering objective: imbalance I(P) and balance B(P).

Also the coercion of user labels (DataFrame, Series, dict or array) to
internal cluster ids, and the per-slot signed weights every local-search
kernel works with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from .._validation import param_error
from ..io._roles import check_roles
from ..errors import GraphInputError
from ..graph import Graph, graph_from_any

__all__ = ["ImbalanceResult", "imbalance"]


@dataclass(frozen=True)
class ImbalanceResult:
    """Imbalance of a partition and its parts.

    Attributes
    ----------
    imbalance : float
        I(P) = ``negative_inside + positive_between``.
    negative_inside : float
        Total weight of negative edges whose endpoints share a cluster.
    positive_between : float
        Total weight of positive edges whose endpoints are in different clusters.
    balance : float
        B(P) = total weight - I(P): positive edges inside plus negative edges between.
    total_weight : float
        Sum of all edge weights (the number of edges when the graph is unweighted).
    n_clusters : int
        Number of non-empty clusters.
    """

    imbalance: float
    negative_inside: float
    positive_between: float
    balance: float
    total_weight: float
    n_clusters: int

    def __float__(self) -> float:
        return float(self.imbalance)


def edge_weights(graph: Graph) -> np.ndarray:
    """Non-negative weight of every edge (ones when the graph has none)."""
    if graph.weight is None:
        return np.ones(graph.m, dtype=np.float64)
    w = np.abs(np.asarray(graph.weight, dtype=np.float64))
    return w


def slot_weights(graph: Graph) -> np.ndarray:
    """Signed weight ``sign * |w|`` of every CSR slot (float64).

    A single signed number per pair is all the 1-opt gains need: moving i from
    k1 to k2 changes I(P) by ``A_i[k1] - A_i[k2]`` where ``A_i[k]`` is the
    signed weight from i to cluster k.
    """
    sw = edge_weights(graph) * graph.sign.astype(np.float64)
    return np.ascontiguousarray(sw[graph.slot_edge])


@numba.njit(cache=True, nogil=True)
def _imbalance_parts(edge_src, edge_dst, sign, weight, labels):
    neg_in = 0.0
    pos_out = 0.0
    total = 0.0
    for e in range(edge_src.size):
        w = weight[e]
        total += w
        same = labels[edge_src[e]] == labels[edge_dst[e]]
        if sign[e] < 0:
            if same:
                neg_in += w
        elif not same:
            pos_out += w
    return neg_in, pos_out, total


def imbalance_value(graph: Graph, labels: np.ndarray, weights: np.ndarray | None = None) -> float:
    """I(P) of internal labels (int array, one per vertex), no checks."""
    w = edge_weights(graph) if weights is None else weights
    ni, po, _ = _imbalance_parts(graph.edge_src, graph.edge_dst, graph.sign, w,
                                 np.ascontiguousarray(labels, dtype=np.int64))
    return ni + po


#: what this package's tables name a vertex's part: a clustering's ``cluster``, a community
#: search's ``community``, a generator's planted ``group``
PART_COLUMNS = ("cluster", "community", "group")


def coerce_labels(graph: Graph, labels: Any, what: str = "labels") -> np.ndarray:
    """User labels -> compact cluster ids (int32, internal vertex order).

    Accepted: a DataFrame (pandas or cuDF) with columns ``vertex`` (original vertex
    labels; every vertex exactly once) and one of :data:`PART_COLUMNS`, a pandas Series indexed by
    vertex label, a dict ``{vertex label: cluster}``, or an array of length n
    in internal vertex order.  Cluster values may be any hashable values;
    they are renumbered 0..c-1 in order of first appearance.
    """
    import pandas as pd

    from .._output import is_cudf

    n = graph.n
    if is_cudf(labels) and hasattr(labels, "columns"):
        from ..io._device import host_frame

        labels = host_frame(labels)  # n labels; the search runs on the host
    if isinstance(labels, pd.DataFrame):
        found = [c for c in PART_COLUMNS if c in labels.columns]
        if "vertex" not in labels.columns or len(found) != 1:
            raise GraphInputError(
                f"{what}: a DataFrame needs a 'vertex' column and one of "
                f"{', '.join(repr(c) for c in PART_COLUMNS)} (columns: {list(labels.columns)})")
        keys, vals = labels["vertex"].to_numpy(), labels[found[0]].to_numpy()
        return _from_pairs(graph, keys, vals, what)
    if isinstance(labels, pd.Series):
        return _from_pairs(graph, labels.index.to_numpy(), labels.to_numpy(), what)
    if isinstance(labels, dict):
        return _from_pairs(graph, np.array(list(labels.keys()), dtype=object),
                           np.array(list(labels.values()), dtype=object), what)
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size != n:
        raise GraphInputError(f"{what}: an array must have one entry per vertex "
                              f"(expected length {n}, got shape {arr.shape})")
    return _compact(arr, what)


def _from_pairs(graph: Graph, keys, vals, what: str) -> np.ndarray:
    if len(keys) != graph.n:
        raise GraphInputError(f"{what}: expected a cluster for each of the {graph.n} vertices, "
                              f"got {len(keys)} entries")
    try:
        ids = graph.vertex_ids(keys)
    except KeyError as exc:
        raise GraphInputError(f"{what}: {exc.args[0]}") from None
    if np.unique(ids).size != graph.n:
        raise GraphInputError(f"{what}: some vertices are listed more than once")
    vals = np.asarray(vals)
    out = np.empty(graph.n, dtype=vals.dtype)
    out[ids] = vals
    return _compact(out, what)


@numba.njit(cache=True, nogil=True)
def _first_appearance(arr, n_ids):
    """Ids ``0..n_ids-1`` renumbered by first appearance (one pass, no sort)."""
    rank = np.full(n_ids, -1, np.int32)
    out = np.empty(arr.size, np.int32)
    nxt = 0
    for i in range(arr.size):
        a = arr[i]
        if rank[a] < 0:
            rank[a] = nxt
            nxt += 1
        out[i] = rank[a]
    return out


def _compact(arr: np.ndarray, what: str) -> np.ndarray:
    if arr.dtype.kind in "iu" and arr.ndim == 1 and arr.size:
        # a search's labels: small ids, renumbered in a pass (a sort of 10^6 labels costs
        # a second, taken out of a time limit when a search ends)
        lo, hi = int(arr.min()), int(arr.max())
        if lo >= 0 and hi < 2 * arr.size + 1024:
            return _first_appearance(arr, hi + 1)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise GraphInputError(f"{what}: cluster ids contain NaN or infinity")
    try:
        _, first, inv = np.unique(arr, return_index=True, return_inverse=True)
    except TypeError:
        arr = arr.astype(str)
        _, first, inv = np.unique(arr, return_index=True, return_inverse=True)
    # number clusters by first appearance so the result does not depend on the ids' values
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.reshape(-1)].astype(np.int32)


def canonical(labels: np.ndarray) -> np.ndarray:
    """Renumber cluster ids 0..c-1 by first appearance in vertex order."""
    return _compact(np.asarray(labels), "labels")


def imbalance(graph: Any, labels: Any, *, source: Any = None, target: Any = None, sign: Any = None,
              weight: Any = None) -> ImbalanceResult:
    """Imbalance I(P) and balance B(P) of a partition of a signed graph.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph (an edge-list DataFrame is read as
        :func:`~rapids_balance.correlation_clustering` reads it); edge
        weights are used when present (their absolute value), otherwise
        every edge weighs 1.
    labels : DataFrame, Series, dict or array
        The partition: a DataFrame with columns ``vertex`` (original vertex
        labels) and one of ``cluster``, ``community`` or ``group`` (the
        tables of :func:`correlation_clustering`, :func:`signed_communities`
        and the generators' planted partitions); a Series indexed by vertex label; a dict
        ``{vertex label: cluster}``; or an array with one cluster per vertex
        in the graph's internal order (``graph.labels[i]`` is vertex i).
        Cluster values may be any hashable values.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file: a column name or a
        0-based position (networkx: an edge attribute).  ``None``: taken from
        the format or a recognised header.  Refused with a built
        :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    ImbalanceResult
        ``imbalance`` (I(P)), its parts ``negative_inside`` and
        ``positive_between``, ``balance`` (B(P)), ``total_weight`` and
        ``n_clusters``.

    Raises
    ------
    InvalidParameterError
        A column role has a wrong type, or is given with a built graph.
    GraphInputError
        The graph has no signs, or ``labels`` misses, repeats or invents a vertex.

    Notes
    -----
    I(P) is the total weight of negative edges inside clusters plus the
    total weight of positive edges between clusters (equation (1) of
    Levorato et al.); B(P) = sum of weights - I(P).  Two clusters give the
    frustration of a bipartition; the minimum of I(P) over all partitions is
    the correlation-clustering optimum.

    References
    ----------
    .. [1] M. Levorato, L. Drummond, Y. Frota, R. Figueiredo, "A GPU-accelerated
       local search algorithm for the Correlation Clustering problem", SBPO 2015.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.SignedGraph.from_edgelist({"source": [0, 1, 2], "target": [1, 2, 0],
    ...                                   "sign": [1, 1, -1]}, sign="sign")
    >>> rb.imbalance(g, {0: "a", 1: "a", 2: "b"}).imbalance
    1.0
    """
    roles = check_roles(graph, "imbalance", dict(source=source, target=target, sign=sign, weight=weight))
    if labels is None:
        raise param_error("labels", "imbalance", "a DataFrame, Series, dict or array of clusters", labels)
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None or graph.directed:
        raise GraphInputError("imbalance needs an undirected signed graph (a sign on every edge)")
    lab = coerce_labels(graph, labels)
    w = edge_weights(graph)
    ni, po, total = _imbalance_parts(graph.edge_src, graph.edge_dst, graph.sign, w,
                                     lab.astype(np.int64))
    return ImbalanceResult(imbalance=float(ni + po), negative_inside=float(ni),
                           positive_between=float(po), balance=float(total - ni - po),
                           total_weight=float(total), n_clusters=int(lab.max()) + 1 if lab.size else 0)
