"""The networkx backend: graph conversion and the four betweenness functions.

Each function has networkx's signature and returns networkx's dict: node
scores keyed by node (``G``'s node order), edge scores keyed by the edges of
``G.edges()`` (multigraphs: ``(u, v, key)``, the score of a vertex pair
shared by its shortest parallel edges, as networkx's ``_add_edge_keys``).
Sampled sources are drawn exactly as networkx draws them
(``seed.sample(list(G), k)`` after networkx's ``py_random_state``), so the
same call returns the same numbers; ``k`` out of range, ``k=0`` and
unknown sources raise networkx's exceptions (``ValueError``,
``ZeroDivisionError``, ``KeyError``).
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
from networkx.utils import create_py_random_state

from ..backend import resolve_backend
from ..centrality._input import BCGraph, coerce_input
from ..centrality.betweenness import draw_like_networkx, edge_scores, node_scores, subset_scores
from ._info import BACKEND_NAME

__all__ = ["BackendInterface", "RapidsBalanceGraph"]


class RapidsBalanceGraph:
    """A networkx graph handed to this backend (read when a function runs).

    The conversion to CSR happens inside each call, from the graph as it is
    then: networkx's cache of converted graphs cannot notice changed edge
    attributes, so no converted lengths are kept between calls.
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, graph: nx.Graph):
        self.graph = graph

    def is_directed(self) -> bool:
        return self.graph.is_directed()

    def is_multigraph(self) -> bool:
        return self.graph.is_multigraph()

    def __len__(self) -> int:
        return len(self.graph)

    def __iter__(self):
        return iter(self.graph)


def _nx(G: Any) -> nx.Graph:
    """The networkx graph behind ``G``.

    networkx caches converted graphs on ``G`` and warns on each reuse that
    it cannot see changed attributes; the wrapper costs nothing to rebuild,
    so its cache entry is dropped and every call reads ``G`` as it is.
    """
    if not isinstance(G, RapidsBalanceGraph):
        return G
    cache = getattr(G.graph, "__networkx_cache__", None)
    if cache:
        cache.get("backends", {}).pop(BACKEND_NAME, None)
    return G.graph


def _device() -> str:
    cfg = nx.config.backends.get(BACKEND_NAME) if hasattr(nx.config.backends, "get") else None
    device = getattr(cfg, "device", "auto") if cfg is not None else "auto"
    return resolve_backend(device)


class _Prepared:
    """``G`` as the kernels read it, with its node order and an id per node."""

    def __init__(self, G: nx.Graph, weight: Any):
        self.nodes = list(G)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.graph, lengths = coerce_input(G, weight, None, for_edges=False)
        self.bc = BCGraph.from_graph(self.graph, lengths)

    def ids(self, nodes) -> np.ndarray:
        """Internal ids; an unknown node raises ``KeyError`` as in networkx."""
        index = self.index
        return np.fromiter((index[v] for v in nodes), dtype=np.int64)

    def node_dict(self, scores: np.ndarray) -> dict:
        return dict(zip(self.nodes, scores.tolist()))

    def edge_dict(self, G: nx.Graph, scores: np.ndarray, weight: Any) -> dict:
        """Scores keyed as networkx keys them (loops and hidden edges: 0)."""
        pairs = list(G.edges())
        if not pairs:
            return {} if not G.is_multigraph() else dict.fromkeys(G.edges, 0.0)
        index, g, n = self.index, self.graph, self.graph.n
        ab = np.fromiter((index[x] for e in pairs for x in e), dtype=np.int64,
                         count=2 * len(pairs)).reshape(-1, 2)
        a, b = ab[:, 0], ab[:, 1]
        if not G.is_directed():
            a, b = np.minimum(a, b), np.maximum(a, b)
        # our edges are sorted by (src, dst): one key per vertex pair
        keys = np.asarray(g.edge_src, np.int64) * n + np.asarray(g.edge_dst, np.int64)
        q = a * n + b
        pos = np.minimum(np.searchsorted(keys, q), max(keys.size - 1, 0))
        found = (keys[pos] == q) if keys.size else np.zeros(q.size, bool)
        vals = np.where(found, scores[pos] if keys.size else 0.0, 0.0).tolist()
        per_pair = dict(zip(pairs, vals))
        if G.is_multigraph():
            return _add_edge_keys(G, per_pair, weight)
        return per_pair


def _add_edge_keys(G: nx.Graph, per_pair: dict, weight: Any) -> dict:
    """networkx's ``_add_edge_keys``: a pair's score split among its shortest keys."""
    from networkx.algorithms.shortest_paths.weighted import _weight_function

    wfun = _weight_function(G, weight)
    out = dict.fromkeys(G.edges, 0.0)
    for (u, v), val in per_pair.items():
        d = G[u][v]
        wt = wfun(u, v, d)
        keys = [k for k in d if wfun(u, v, {k: d[k]}) == wt]
        for k in keys:
            out[(u, v, k)] = val / len(keys)
    return out


def _sample(G: nx.Graph, k: Any, seed: Any) -> np.ndarray:
    """networkx's ``seed.sample(list(G.nodes()), k)`` as positions in ``list(G)``."""
    return draw_like_networkx(create_py_random_state(seed), len(G), k)


class BackendInterface:
    """What networkx loads from the ``networkx.backends`` entry point."""

    @staticmethod
    def convert_from_nx(G: nx.Graph, *args: Any, **kwargs: Any) -> RapidsBalanceGraph:
        return RapidsBalanceGraph(G)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        return obj.graph if isinstance(obj, RapidsBalanceGraph) else obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool:
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool:
        return True

    @staticmethod
    def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
        if k == len(_nx(G)):  # as networkx: every vertex is the exact computation (no draw)
            k = None
        return _sampled(G, k, seed, weight, edges=False, normalized=normalized, endpoints=endpoints)

    @staticmethod
    def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
        return _sampled(G, k, seed, weight, edges=True, normalized=normalized, endpoints=False)

    @staticmethod
    def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
        return _subset(G, sources, targets, normalized, weight, edges=False)

    @staticmethod
    def edge_betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
        return _subset(G, sources, targets, normalized, weight, edges=True)


def _sampled(G, k, seed, weight: Any, *, edges: bool, normalized: bool, endpoints: bool) -> dict:
    """Both (edge_)betweenness_centrality: every source, or the ``k`` networkx draws."""
    G = _nx(G)
    sources = None if k is None else _sample(G, k, seed)  # first: networkx's errors for bad k
    if len(G) == 0:
        return {}
    p = _Prepared(G, weight)
    if sources is None:
        sources = np.arange(p.graph.n, dtype=np.int64)
    if edges:
        scores = edge_scores(p.bc, sources, sampled=k is not None, normalized=normalized,
                             backend=_device())
        return p.edge_dict(G, scores, weight)
    scores = node_scores(p.bc, sources, sampled=k is not None, normalized=normalized,
                         endpoints=endpoints, backend=_device())
    return p.node_dict(scores)


def _subset(G, sources, targets, normalized: bool, weight: Any, *, edges: bool) -> dict:
    """Both subset functions: unknown sources raise ``KeyError``, unknown targets end no path."""
    G = _nx(G)
    if len(G) == 0:
        return {}
    p = _Prepared(G, weight)
    src = p.ids(sources)
    tgt = p.ids(t for t in set(targets) if t in p.index)
    scores = subset_scores(p.bc, src, tgt, edges=edges, normalized=normalized, backend=_device())
    return p.edge_dict(G, scores, weight) if edges else p.node_dict(scores)


backend_interface = BackendInterface()
