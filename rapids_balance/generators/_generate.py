"""Seeded synthetic graphs: power-law signed, planted partition, weighted.

Every generator runs the same pipeline on numba kernels (``_kernels``):

1. vertex weights ``a_i = (i + 1) ** (-1 / (exponent - 1))`` (all equal
   without an exponent: an Erdos-Renyi graph), scaled so that the expected
   edge count is a little above ``n_edges``;
2. the Chung-Lu edges, drawn row by row without duplicates or self loops;
3. trimming to exactly ``n_edges`` edges (those with the smallest random
   pair keys: a uniform random subset);
4. the component rule (the largest component, or every vertex with an edge),
   renumbering vertices in order so the edges stay sorted;
5. signs and weights, each a hash of the pair's original vertex ids.

The arrays come out in the :class:`~rapids_balance.graph.Graph` layout
(``src < dst``, sorted), so the graph is built directly, without the
cleaning pass of :func:`~rapids_balance.graph.build_graph`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_bool, check_choice, check_int, check_number, check_seed, param_error
from ..graph import CleaningReport, Graph, SignedGraph
from . import _kernels as K

__all__ = ["powerlaw_signed_graph", "planted_partition_graph", "weighted_graph",
           "PlantedPartition", "WEIGHT_KINDS", "COMPONENTS"]

WEIGHT_KINDS = (None, "integer", "uniform")
COMPONENTS = ("largest", "all")
# int32 edge ids and vertex ids throughout the package
MAX_EDGES = 2**31 - 1


@dataclass
class PlantedPartition:
    """A planted-partition signed graph and the partition it was drawn from.

    Attributes
    ----------
    graph : SignedGraph or pandas.DataFrame
        The graph (the edge table ``src``, ``dst``, ``sign`` [, ``weight``]
        when generated with ``as_frame=True``).
    partition : pandas.DataFrame
        ``vertex`` (label), ``group`` (0 .. n_groups-1) of every vertex.
    disagreements : int
        Edges whose sign disagrees with the partition (negative inside a
        group or positive across): the flipped edges that survived the
        component rule.
    imbalance : float
        Imbalance I(P) of the planted partition: ``disagreements`` weighted
        by the edge weights (equal to it when unweighted).  An upper bound
        on the optimum of :func:`rapids_balance.correlation_clustering`.
    frustration_bound : int or None
        With two groups, ``disagreements``: the planted bipartition's
        frustration, an upper bound on the frustration index.  None otherwise.
    params : dict
        The generator's arguments.
    """

    graph: Any
    partition: Any
    disagreements: int
    imbalance: float
    frustration_bound: int | None
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        g = self.graph
        size = f"{g.n} vertices, {g.m} edges" if isinstance(g, Graph) else f"{len(g)} edges"
        return (f"<PlantedPartition: {size}, {self.params.get('n_groups')} groups, "
                f"{self.disagreements} disagreeing edges>")


# ---------------------------------------------------------------------------
# parameter checks (all before any work)
# ---------------------------------------------------------------------------

def _check_common(owner: str, n_edges, mean_degree, exponent, seed, component, as_frame,
                  weights, weight_range) -> dict[str, Any]:
    n_edges = check_int(n_edges, "n_edges", owner, low=1, high=MAX_EDGES)
    mean_degree = check_number(mean_degree, "mean_degree", owner, low=1.0)
    exponent = check_number(exponent, "exponent", owner, low=2.0, high=10.0, low_open=True,
                            allow_none=True)
    seed = check_seed(seed, owner)
    check_choice(component, "component", owner, COMPONENTS)
    as_frame = check_bool(as_frame, "as_frame", owner)
    check_choice(weights, "weights", owner, WEIGHT_KINDS)
    low, high = _check_weight_range(weight_range, weights, owner)
    n = max(2, int(round(2.0 * n_edges / mean_degree)))
    if n_edges > n * (n - 1) // 4:
        raise param_error("mean_degree", owner, f"at most (n - 1) / 2 for {n_edges} edges "
                          f"({n} vertices): a denser graph is not sparse enough to draw", mean_degree)
    if n > MAX_EDGES:
        raise param_error("mean_degree", owner, f"large enough to keep the vertex count under 2**31",
                          mean_degree)
    return dict(n_edges=n_edges, mean_degree=mean_degree, exponent=exponent, seed=seed,
                component=component, as_frame=as_frame, weights=weights,
                weight_range=(low, high), n_vertices=n)


def _check_weight_range(weight_range, weights, owner: str) -> tuple[float, float]:
    must = ("a pair (low, high) of finite numbers with 0 < low <= high"
            + (", both integers less than 2**32 apart" if weights == "integer" else ""))
    try:
        low, high = weight_range
    except (TypeError, ValueError):
        raise param_error("weight_range", owner, must, weight_range) from None
    try:
        if weights == "integer":
            low = check_int(low, "weight_range", owner)
            high = check_int(high, "weight_range", owner)
        else:
            low = check_number(low, "weight_range", owner)
            high = check_number(high, "weight_range", owner)
    except ValueError:
        raise param_error("weight_range", owner, must, weight_range) from None
    # integer weights come from 32 random bits (kernels.edge_weights)
    if not 0 < low <= high or high - low >= (2**32 if weights == "integer" else 2**53):
        raise param_error("weight_range", owner, must, weight_range)
    return float(low), float(high)


# ---------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------

@dataclass
class _Edges:
    """Generated edges in Graph layout, with the vertex labels (original ids)."""

    src: np.ndarray
    dst: np.ndarray
    labels: np.ndarray
    n_total: int
    report: CleaningReport
    sign: np.ndarray | None = None
    weight: np.ndarray | None = None


def _alpha(exponent: float | None) -> float:
    """Weight exponent: vertex v has weight ``(v + 1) ** -alpha`` (0: all equal)."""
    return 0.0 if exponent is None else 1.0 / (exponent - 1.0)


def _vertex_weights(n: int, alpha: float) -> np.ndarray:
    # the kernels' formula (kernels.vertex_weight), so the scale fits the walks exactly
    return np.exp(-alpha * np.log(np.arange(1, n + 1, dtype=np.float64)))


def _scale_for(a: np.ndarray, target: float) -> float:
    """The scale c with ``expected_edges(a, c) == target`` (to a relative 1e-9).

    E(c) is increasing and nearly linear in c (only the few saturated pairs
    of hubs bend it), so ``c <- c * target / E(c)`` converges in a few steps;
    bisection takes over if it ever does not.
    """
    suffix = K.suffix_sums(a)
    s = float(suffix[0])
    c = 2.0 * target / (s * s - float(np.dot(a, a)))  # exact without saturation
    lo, hi = c, np.inf  # E(lo) <= target <= E(hi)
    for _ in range(200):
        e = K.expected_edges(a, suffix, c)
        if abs(e - target) <= 1e-9 * target:
            return c
        if e < target:
            lo = c
        else:
            hi = c
        step = c * target / e
        c = step if lo < step < hi else (0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * lo)
    return c


def _draw(n: int, n_edges: int, exponent: float | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Exactly ``n_edges`` distinct Chung-Lu edges ``(src < dst)``, sorted."""
    alpha = _alpha(exponent)
    a = _vertex_weights(n, alpha)
    # aim a few standard deviations above the target, so one draw almost always
    # suffices; a short draw retries with a larger aim (still a function of the seed)
    margin = 6.0 * math.sqrt(n_edges) + 16.0
    max_pairs = n * (n - 1) / 2.0
    for attempt in range(8):
        target = min(n_edges + margin * 2**attempt, 0.5 * (n_edges + max_pairs))
        c = _scale_for(a, target)
        counts = np.empty(n, np.int64)
        K.count_rows(n, alpha, c, seed, attempt, counts)
        total = int(counts.sum())
        if total >= n_edges:
            break
    else:  # pragma: no cover - needs a deviation of dozens of standard deviations
        raise RuntimeError("the generator drew too few edges eight times; report this seed")
    del a
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    del counts
    src = np.empty(total, np.int32)
    dst = np.empty(total, np.int32)
    K.fill_rows(n, alpha, c, seed, attempt, offsets, src, dst)
    del offsets
    if total > n_edges:
        keys = np.empty(total, np.uint64)
        K.trim_keys(src, dst, n, seed, keys)
        keys.partition(n_edges - 1)
        threshold = keys[n_edges - 1]
        del keys
        K.trim_compact(src, dst, n, seed, threshold, n_edges)
        # copies, so the over-allocation is given back
        src, dst = src[:n_edges].copy(), dst[:n_edges].copy()
    return src, dst


def _generate(kind: str, p: dict[str, Any], *, group: np.ndarray | None, flip: float) -> _Edges:
    n, seed = p["n_vertices"], p["seed"]
    src, dst = _draw(n, p["n_edges"], p["exponent"], seed)
    report = CleaningReport(source=f"<generated {kind}>", input_rows=int(src.size),
                            vertices_in_input=n, component_rule=p["component"])
    keep = np.empty(n, np.bool_)
    report.components = int(K.largest_component(src, dst, n, p["component"] == "largest", keep))
    new_id = np.cumsum(keep, dtype=np.int64) - 1
    m = K.compact_edges(src, dst, keep, new_id)
    report.edges_outside_component = int(src.size - m)
    labels = np.flatnonzero(keep).astype(np.int64)
    # isolated vertices (never drawn into an edge) count as outside too
    report.vertices_outside_component = int(n - labels.size)
    if m < src.size:
        src, dst = src[:m].copy(), dst[:m].copy()
    if 0 < m < p["n_edges"]:
        # the edges left outside the largest component are drawn again inside it, so the graph
        # has the n_edges asked for (adding edges to a connected graph keeps it connected)
        src, dst = _top_up(src, dst, labels.size, p["n_edges"] - m, seed)
        report.notes.append(f"{src.size - m:,} edges drawn again inside the largest component "
                            f"for the {src.size - m:,} left outside it")
        m = src.size
    report.notes.append(f"generated by rapids_balance.generators ({kind}): "
                        + ", ".join(f"{k}={v}" for k, v in p.items() if k != "as_frame"))
    out = _Edges(src=src, dst=dst, labels=labels, n_total=n, report=report)
    if group is not None or kind != "weighted":
        out.sign = np.empty(m, np.int8)
        K.edge_signs(src, dst, labels, n, group if group is not None else np.empty(0, np.int64),
                     flip, seed, out.sign)
    if p["weights"] is not None:
        out.weight = np.empty(m, np.float64)
        low, high = p["weight_range"]
        K.edge_weights(src, dst, labels, n, p["weights"] == "integer", low, high, seed, out.weight)
    return out


def _top_up(src: np.ndarray, dst: np.ndarray, n: int, missing: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``missing`` new distinct edges among the ``n`` vertices, endpoints drawn in proportion to
    their degree (as Chung-Lu draws them), merged into the sorted ``src < dst`` layout.

    Seeded by ``seed`` alone, so the same seed gives the same graph.  Stops short only when the
    vertices cannot hold that many more edges.  Works on the draws alone: the graph's keys
    are searched in place (:func:`_key_positions`), never built, so the peak above the output
    stays a few bytes an edge at 10^8 edges.
    """
    rng = np.random.default_rng([seed, 0x70F0])
    m = src.size
    added = np.zeros(0, np.int64)
    capacity = n * (n - 1) // 2 - m
    missing = min(missing, capacity)
    for _ in range(1000):
        if added.size >= missing:
            break
        size = 2 * (missing - added.size) + 16
        u = _endpoint(src, dst, rng.integers(0, 2 * m, size))
        v = _endpoint(src, dst, rng.integers(0, 2 * m, size))
        keys = np.minimum(u, v) * n + np.maximum(u, v)
        keys = keys[u != v]
        keys = keys[np.sort(np.unique(keys, return_index=True)[1])]  # first draws first
        pos = _key_positions(src, dst, n, keys)
        inside = np.minimum(pos, m - 1)
        fresh = keys[(pos >= m) | (src[inside].astype(np.int64) * n + dst[inside] != keys)]
        fresh = fresh[~np.isin(fresh, added)]
        added = np.concatenate([added, fresh[:missing - added.size]])
    added.sort()
    at = _key_positions(src, dst, n, added)
    return np.insert(src, at, (added // n).astype(src.dtype)), np.insert(dst, at, (added % n).astype(dst.dtype))


def _endpoint(src: np.ndarray, dst: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Entry ``i`` of ``concatenate([src, dst])`` without the copy, as int64."""
    m = src.size
    out = src[np.minimum(i, m - 1)].astype(np.int64)
    far = i >= m
    out[far] = dst[i[far] - m]
    return out


def _key_positions(src: np.ndarray, dst: np.ndarray, n: int, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(src * n + dst, keys)`` (left) by a binary search over the sorted edge
    list itself: a few vectors the size of ``keys``, none the size of the graph."""
    lo = np.zeros(keys.size, np.int64)
    hi = np.full(keys.size, src.size, np.int64)
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        at = np.minimum(mid, src.size - 1)
        below = open_ & (src[at].astype(np.int64) * n + dst[at] < keys)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


def _finish(e: _Edges, as_frame: bool, name: str):
    """The edges as a Graph / SignedGraph, or as an edge table with original labels."""
    if as_frame:
        import pandas as pd

        cols = {"src": e.labels[e.src], "dst": e.labels[e.dst]}
        if e.sign is not None:
            cols["sign"] = e.sign
        if e.weight is not None:
            cols["weight"] = e.weight
        return pd.DataFrame(cols)
    cls = SignedGraph if e.sign is not None else Graph
    return cls(edge_src=e.src, edge_dst=e.dst, n_vertices=e.labels.size, labels=e.labels,
               directed=False, sign=e.sign, weight=e.weight, cleaning=e.report, name=name)


# ---------------------------------------------------------------------------
# public generators
# ---------------------------------------------------------------------------

_EDGES_DOC = """n_edges : int
        Edges drawn (exactly this many before the component rule), 1 .. 2**31 - 1."""

_COMMON_DOC = """mean_degree : float, default 8.0
        Sets the vertex count ``n = round(2 * n_edges / mean_degree)``.
    seed : int, default 0
        An int in ``[0, 2**63 - 1]``; the same seed gives the same graph on
        any thread count.
    weights : {None, "integer", "uniform"}
        Edge weights: none, uniform integers in ``weight_range`` (inclusive),
        or uniform reals in ``[low, high)``.
    weight_range : (low, high), default (1, 10)
        ``0 < low <= high``; integers less than 2**32 apart for ``weights="integer"``.
    component : {"largest", "all"}, default "largest"
        Keep the largest connected component (what the frustration and
        balancing functions need), or every vertex that has an edge.
        Dropped vertices and edges are counted in ``graph.cleaning``.
    as_frame : bool, default False
        Return the edge table (pandas: ``src``, ``dst``, ``sign`` and/or
        ``weight``, original vertex ids) instead of the graph; cheaper for
        very large graphs that go straight to a file."""


def powerlaw_signed_graph(n_edges: int, *, exponent: float | None = 2.5, negative_share: float = 0.2,
                          mean_degree: float = 8.0, seed: int = 0, weights: str | None = None,
                          weight_range: tuple[float, float] = (1, 10), component: str = "largest",
                          as_frame: bool = False) -> Any:
    """A seeded power-law (Chung-Lu) signed graph.

    Parameters
    ----------
    {edges}
    exponent : float or None, default 2.5
        Degree exponent gamma in (2, 10]: the degree distribution's tail
        falls as ``k ** -gamma``.  None draws an Erdos-Renyi graph instead.
    negative_share : float, default 0.2
        Probability that an edge is negative, in [0, 1].
    {common}

    Returns
    -------
    SignedGraph or pandas.DataFrame
        Vertex labels are the generator's vertex ids (0 is the highest
        expected degree); edges are in the package's sorted layout.

    Raises
    ------
    InvalidParameterError
        A parameter out of range, before any work.

    Notes
    -----
    Vertex ``i`` has weight ``(i + 1) ** (-1 / (gamma - 1))``; pair ``(u, v)``
    is an edge with probability ``min(1, c * a_u * a_v)``, ``c`` chosen so that
    slightly more than ``n_edges`` edges are expected, drawn in ``O(n + m)``
    by Miller and Hagberg's skipping walk; a uniform random subset of
    exactly ``n_edges`` is kept.  Hubs whose expected degree exceeds the
    structural cut-off ``sqrt(2 m)`` saturate, as in every Chung-Lu graph.
    Memory beyond the output: about 8 bytes per edge and 16 per vertex.

    References
    ----------
    .. [1] F. Chung, L. Lu, "Connected components in random graphs with given
       expected degree sequences", Annals of Combinatorics 6 (2002).
    .. [2] J. C. Miller, A. Hagberg, "Efficient generation of networks with
       given expected degrees", WAW 2011.

    Examples
    --------
    >>> from rapids_balance.generators import powerlaw_signed_graph
    >>> g = powerlaw_signed_graph(10_000, seed=1)
    >>> g.m <= 10_000 and abs(float((g.sign < 0).mean()) - 0.2) < 0.03
    True
    """
    owner = "powerlaw_signed_graph"
    p = _check_common(owner, n_edges, mean_degree, exponent, seed, component, as_frame, weights,
                      weight_range)
    p["negative_share"] = check_number(negative_share, "negative_share", owner, low=0.0, high=1.0)
    e = _generate("powerlaw", p, group=None, flip=p["negative_share"])
    return _finish(e, p["as_frame"], f"powerlaw-{p['n_edges']}-seed{p['seed']}")


def planted_partition_graph(n_edges: int, *, n_groups: int = 2, flip: float = 0.05,
                            exponent: float | None = None, mean_degree: float = 8.0, seed: int = 0,
                            weights: str | None = None, weight_range: tuple[float, float] = (1, 10),
                            component: str = "largest", as_frame: bool = False) -> PlantedPartition:
    """A signed graph with a planted partition: positive inside groups, negative across.

    Each vertex joins one of ``n_groups`` groups uniformly at random; each
    edge gets the sign its endpoints' groups call for, flipped with
    probability ``flip``.  The planted partition comes back with the graph,
    with its disagreeing edges counted, so it bounds the optimum of
    correlation clustering (any ``n_groups``) and, for two groups, the
    frustration index from above: a reference at any size.

    Parameters
    ----------
    {edges}
    n_groups : int, default 2
        Number of planted groups, 1 .. number of vertices.
    flip : float, default 0.05
        Probability that an edge's sign is flipped, in [0, 1].
    exponent : float or None, default None
        None: an Erdos-Renyi edge structure; a degree exponent in (2, 10]
        for power-law degrees (see :func:`powerlaw_signed_graph`).
    {common}

    Returns
    -------
    PlantedPartition
        ``graph``, ``partition`` (``vertex``, ``group``), ``disagreements``,
        ``imbalance``, ``frustration_bound``.

    Raises
    ------
    InvalidParameterError
        A parameter out of range, before any work.

    Notes
    -----
    For small ``flip`` the planted partition is usually optimal or close,
    so :func:`rapids_balance.frustration` and
    :func:`rapids_balance.correlation_clustering` should reach at most its
    value; a larger value is a defect of the search.

    Examples
    --------
    >>> from rapids_balance.generators import planted_partition_graph
    >>> pp = planted_partition_graph(2_000, flip=0.05, seed=3)
    >>> pp.frustration_bound == pp.disagreements
    True
    """
    owner = "planted_partition_graph"
    p = _check_common(owner, n_edges, mean_degree, exponent, seed, component, as_frame, weights,
                      weight_range)
    p["n_groups"] = check_int(n_groups, "n_groups", owner, low=1, high=p["n_vertices"])
    p["flip"] = check_number(flip, "flip", owner, low=0.0, high=1.0)
    group = np.empty(p["n_vertices"], np.int64)
    K.vertex_groups(p["n_vertices"], p["n_groups"], p["seed"], group)
    e = _generate("planted", p, group=group, flip=p["flip"])
    g_of = group[e.labels]
    inside = g_of[e.src] == g_of[e.dst]
    disagree = inside != (e.sign > 0)
    n_dis = int(np.count_nonzero(disagree))
    imb = float(n_dis) if e.weight is None else float(e.weight[disagree].sum())
    import pandas as pd

    partition = pd.DataFrame({"vertex": e.labels, "group": g_of})
    graph = _finish(e, p["as_frame"], f"planted-{p['n_groups']}x-{p['n_edges']}-seed{p['seed']}")
    return PlantedPartition(graph=graph, partition=partition, disagreements=n_dis, imbalance=imb,
                            frustration_bound=n_dis if p["n_groups"] == 2 else None,
                            params={k: v for k, v in p.items() if k != "as_frame"})


def weighted_graph(n_edges: int, *, exponent: float | None = 2.5, mean_degree: float = 8.0,
                   seed: int = 0, weights: str = "integer", weight_range: tuple[float, float] = (1, 10),
                   component: str = "largest", as_frame: bool = False) -> Any:
    """A seeded weighted (unsigned) graph, e.g. for betweenness centrality.

    Parameters
    ----------
    {edges}
    exponent : float or None, default 2.5
        Degree exponent in (2, 10], or None for an Erdos-Renyi graph.
    {common}

    Returns
    -------
    Graph or pandas.DataFrame
        An undirected graph with a ``weight`` on every edge (the edge table
        ``src``, ``dst``, ``weight`` with ``as_frame``).

    Raises
    ------
    InvalidParameterError
        A parameter out of range (``weights=None`` included), before any work.

    Examples
    --------
    >>> from rapids_balance.generators import weighted_graph
    >>> g = weighted_graph(5_000, weights="integer", weight_range=(1, 5), seed=2)
    >>> set(g.weight.tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    True
    """
    owner = "weighted_graph"
    check_choice(weights, "weights", owner, WEIGHT_KINDS[1:])
    p = _check_common(owner, n_edges, mean_degree, exponent, seed, component, as_frame, weights,
                      weight_range)
    e = _generate("weighted", p, group=None, flip=0.0)
    return _finish(e, p["as_frame"], f"weighted-{p['n_edges']}-seed{p['seed']}")


for _f in (powerlaw_signed_graph, planted_partition_graph, weighted_graph):
    _f.__doc__ = _f.__doc__.replace("{edges}", _EDGES_DOC).replace("{common}", _COMMON_DOC)
