"""Signed triangle census: the four types, the balance ratio, per-vertex and per-edge tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._output import label_column, make_table
from .._validation import check_backend, check_bool
from ..io._roles import check_roles
from ..backend import resolve_backend, to_host
from . import _triangle_kernels as _k
from ._input import signed_input

__all__ = ["TriangleResult", "signed_triangles", "list_triangles", "triangle_census",
           "census_of_triangles", "balance_ratio_of_counts", "TRIANGLE_TYPES"]

#: the four undirected signed triangle types, by number of negative edges
TRIANGLE_TYPES = ("+++", "++-", "+--", "---")


@dataclass(frozen=True)
class TriangleResult:
    """Signed triangles of a graph.

    Attributes
    ----------
    counts : pandas.DataFrame
        One row per type (``type`` +++, ++-, +--, ---; ``negative_edges``
        0..3; ``balanced``: an even number of negative edges; ``count``;
        and ``weight``, the sum over its triangles of the product of their
        three edge weights, when the graph is weighted).
    n_triangles : int
        All triangles.
    balanced, unbalanced : int
        Triangles of types +++ and +-- / of types ++- and ---.
    balance_ratio : float
        ``balanced / n_triangles`` (signnet's ``balance_score(g, "triangles")``);
        NaN for a graph with no triangle.
    weighted_balance_ratio : float or None
        The same ratio with each triangle counted by the product of its
        weights; None for an unweighted graph.
    vertices : DataFrame
        ``vertex`` (original label), ``triangles``, ``balanced``,
        ``unbalanced``: the triangles through each vertex.
    edges : DataFrame
        ``src``, ``dst``, ``sign``, ``triangles``, ``balanced``,
        ``unbalanced``: the triangles through each edge.
    backend : str
        ``"cpu"`` or ``"gpu"``.
    """

    counts: Any
    n_triangles: int
    balanced: int
    unbalanced: int
    balance_ratio: float
    weighted_balance_ratio: float | None
    vertices: Any
    edges: Any
    backend: str

    def __float__(self) -> float:
        return float(self.balance_ratio)


# ---------------------------------------------------------------------------
# array-level functions (no Graph needed: the null models call these)
# ---------------------------------------------------------------------------

def list_triangles(src: Any, dst: Any, n: int, *, backend: str = "cpu") -> Any:
    """Every triangle of a simple undirected graph, as a (T, 3) array of edge ids.

    Parameters
    ----------
    src, dst : array of int
        Endpoints of the ``m`` edges, internal ids in ``[0, n)``: a simple
        graph (no self-loop, each pair once, either orientation), such as
        ``graph.edge_src`` and ``graph.edge_dst`` of a built graph.  Not
        checked: this is the fast path.
    n : int
        Number of vertices.
    backend : {"cpu", "gpu"}, default "cpu"
        Already resolved (:func:`rapids_balance.resolve_backend`); on
        ``"gpu"`` the list is a CuPy array (numpy under the simulator).

    Returns
    -------
    array of int64, shape (T, 3)
        Row ``t`` holds the ids (positions in ``src``/``dst``) of the three
        edges of triangle ``t``.  The rows and their order depend only on the
        graph: the same on every backend and thread count.

    Notes
    -----
    Degree ordering (:mod:`rapids_balance.measures._triangle_kernels`):
    ``O(m^1.5)`` work at worst, ``O(n + m + T)`` memory.

    Examples
    --------
    >>> import numpy as np
    >>> list_triangles(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3]), 4).tolist()
    [[0, 1, 2]]
    """
    src = np.ascontiguousarray(to_host(src), dtype=np.int64)
    dst = np.ascontiguousarray(to_host(dst), dtype=np.int64)
    optr, oind, oedge = _k.oriented_csr(src, dst, int(n))
    if backend == "gpu":
        from ._triangle_gpu import list_triangles_gpu

        return list_triangles_gpu(optr, oind, oedge)
    counts = _k.count_all(optr, oind, oedge)
    offsets = np.zeros(int(n), dtype=np.int64)
    if n > 1:
        np.cumsum(counts[:-1], out=offsets[1:])
    tri = np.empty((int(counts.sum()), 3), dtype=np.int64)
    _k.fill_all(optr, oind, oedge, offsets, tri)
    return tri


def census_of_triangles(tri: Any, sign: Any) -> np.ndarray:
    """Counts of the four types (+++, ++-, +--, ---) for a triangle list and edge signs.

    The cheap step of a sign-shuffle null model: list the triangles once
    (:func:`list_triangles`), then call this for every shuffled ``sign``
    (``O(T)``, parallel, exact integers).

    Parameters
    ----------
    tri : array of int, shape (T, 3)
        From :func:`list_triangles` (host or device; device lists are copied).
    sign : array
        One sign per edge (< 0 is negative), in the edge order of ``tri``.

    Returns
    -------
    numpy.ndarray of int64, shape (4,)

    Examples
    --------
    >>> import numpy as np
    >>> census_of_triangles(np.array([[0, 1, 2]]), np.array([1, -1, -1])).tolist()
    [0, 0, 1, 0]
    """
    tri = np.ascontiguousarray(to_host(tri), dtype=np.int64).reshape(-1, 3)
    return _k.type_counts(tri, np.ascontiguousarray(to_host(sign)))


def balance_ratio_of_counts(counts: Any) -> float:
    """Share of balanced triangles (+++ and +--) in four type counts; NaN when there is none.

    Examples
    --------
    >>> balance_ratio_of_counts([3, 1, 0, 0])
    0.75
    """
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum()
    return float((c[0] + c[2]) / total) if total > 0 else float("nan")


def triangle_census(src: Any, dst: Any, sign: Any, n: int, *, backend: str = "cpu") -> np.ndarray:
    """Four type counts of a graph given as arrays: :func:`list_triangles` then :func:`census_of_triangles`.

    For null models that change the topology (edge swaps), where the list
    cannot be reused.

    Examples
    --------
    >>> import numpy as np
    >>> triangle_census(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([1, 1, -1]), 3).tolist()
    [0, 1, 0, 0]
    """
    if backend == "gpu":
        return census_of_triangles(list_triangles(src, dst, n, backend=backend), sign)
    return _census_cpu(to_host(src), to_host(dst), to_host(sign), None, n)[0]


# ---------------------------------------------------------------------------
# the public function
# ---------------------------------------------------------------------------

def signed_triangles(graph: Any, *, weighted: bool = True, backend: str = "auto",
                     source: Any = None, target: Any = None, sign: Any = None,
                     weight: Any = None) -> TriangleResult:
    """Signed triangle census: the four types, the balance ratio, per-vertex and per-edge counts.

    A triangle is balanced when it has an even number of negative edges
    (+++: "the friend of my friend is my friend", +--: "the enemy of my
    enemy is my friend") and unbalanced otherwise (++-, ---).

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph (every component is counted).
    weighted : bool, default True
        When the graph has edge weights, also weigh each triangle by the
        product of the absolute weights of its three edges (the ``weight``
        column of ``counts`` and ``weighted_balance_ratio``).  Counts are
        never weighted.
    backend : {"auto", "cpu", "gpu"}, default "auto"
        Where the triangles are listed; the counts are the same on both.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file (names or 0-based
        positions).  Refused with a built graph.

    Returns
    -------
    TriangleResult
        ``counts`` (one row per type), ``balance_ratio``, ``vertices`` and
        ``edges`` tables with original labels.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before any work).
    GraphInputError
        The graph is directed or unsigned.
    BackendUnavailableError
        ``backend="gpu"`` without a usable GPU.

    Notes
    -----
    Triangles are listed by degree ordering over the CSR (``O(m^1.5)`` at
    worst; :func:`list_triangles`), numba on the CPU (parallel over
    vertices) and numba-cuda on the GPU (a thread a vertex), both writing
    the same list; the counts are then exact integer sums.  The weighted
    sums are added in list order, so they repeat bit for bit.  With ``k``
    negative edges, ``(-1)^k`` is the sign of the triangle's cycle: the
    balance ratio is the share of positive 3-cycles (Cartwright and
    Harary), signnet's ``balance_score(g, method = "triangles")``.

    References
    ----------
    .. [1] D. Cartwright, F. Harary, "Structural balance: a generalization of
       Heider's theory", Psychological Review 63 (1956).
    .. [2] N. Chiba, T. Nishizeki, "Arboricity and subgraph listing
       algorithms", SIAM J. Computing 14 (1985).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> t = rb.signed_triangles(rb.load_example("highland"), backend="cpu")
    >>> t.n_triangles, t.balanced, round(t.balance_ratio, 7)
    (68, 59, 0.8676471)
    """
    owner = "signed_triangles"
    weighted = check_bool(weighted, "weighted", owner)
    check_backend(backend, owner)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    g = signed_input(graph, owner, roles)
    backend = resolve_backend(backend)
    w = np.abs(np.asarray(g.weight, dtype=np.float64)) if weighted and g.weight is not None else None
    if backend == "gpu":
        from ._triangle_gpu import tally_gpu

        tri = list_triangles(g.edge_src, g.edge_dst, g.n, backend=backend)
        types, edge_bal, edge_unb = (to_host(a) for a in tally_gpu(tri, g.sign, g.m))
        wsum = None if w is None else _k.weighted_types(to_host(tri), np.ascontiguousarray(g.sign), w)
    else:
        types, edge_bal, edge_unb, wsum = _census_cpu(g.edge_src, g.edge_dst, g.sign, w, g.n)
    return _result(g, types, edge_bal, edge_unb, wsum, backend)


def _census_cpu(src, dst, sign, weight, n):
    """One pass of :func:`._triangle_kernels.census_all` (no list written)."""
    import numba

    src = np.ascontiguousarray(src, dtype=np.int64)
    optr, oind, oedge = _k.oriented_csr(src, np.ascontiguousarray(dst, dtype=np.int64), int(n))
    oneg = (np.asarray(sign)[oedge] < 0).astype(np.int8)
    ow = np.empty(0) if weight is None else np.ascontiguousarray(weight[oedge])
    types, ebal, eunb, wsum = _k.census_all(optr, oind, oedge, oneg, ow, src.size,
                                            max(1, numba.get_num_threads()))
    return types, ebal, eunb, (None if weight is None else wsum)


def _result(g, types, edge_bal, edge_unb, wsum, backend) -> TriangleResult:
    cols = {"type": np.array(TRIANGLE_TYPES), "negative_edges": np.arange(4),
            "balanced": np.array([True, False, True, False]), "count": types.astype(np.int64)}
    if wsum is not None:
        cols["weight"] = wsum
    counts = pd.DataFrame(cols)
    # a triangle through v is counted by both of its edges at v
    v_bal = (np.bincount(g.edge_src, edge_bal, g.n) + np.bincount(g.edge_dst, edge_bal, g.n)) // 2
    v_unb = (np.bincount(g.edge_src, edge_unb, g.n) + np.bincount(g.edge_dst, edge_unb, g.n)) // 2
    v_bal, v_unb = v_bal.astype(np.int64), v_unb.astype(np.int64)
    vertices = make_table({"vertex": label_column(g), "triangles": v_bal + v_unb, "balanced": v_bal,
                           "unbalanced": v_unb}, like=g)
    edges = make_table({"src": label_column(g, g.edge_src), "dst": label_column(g, g.edge_dst),
                        "sign": np.asarray(g.sign), "triangles": edge_bal + edge_unb,
                        "balanced": edge_bal, "unbalanced": edge_unb}, like=g)
    bal = int(types[0] + types[2])
    total = int(types.sum())
    wratio = None
    if wsum is not None:
        wtotal = float(wsum.sum())
        wratio = float((wsum[0] + wsum[2]) / wtotal) if wtotal > 0 else float("nan")
    return TriangleResult(counts=counts, n_triangles=total, balanced=bal, unbalanced=total - bal,
                          balance_ratio=balance_ratio_of_counts(types), weighted_balance_ratio=wratio,
                          vertices=vertices, edges=edges, backend=backend)
