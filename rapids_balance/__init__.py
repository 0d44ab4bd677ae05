"""rapids-balance: signed and weighted graph analytics on GPU and CPU.

The public API is small and flat; heavy modules (numba kernels, CuPy) load
only when first used, so ``import rapids_balance`` is cheap and works with no
optional extra installed.

Graphs and data
    SignedGraph, Graph, read_edgelist, from_networkx, to_networkx,
    from_cugraph, load_example, list_examples
Balancing (graphB+, ECL-SGB)
    balance -> BalanceResult
Frustration (graphB++)
    frustration -> FrustrationResult, frustration_index_exact,
    frustration_lower_bound -> FrustrationBound
Weighted betweenness centrality
    node_and_edge_betweenness (both tables from one pass), betweenness_centrality,
    edge_betweenness_centrality and their ``_subset``
    forms (also served to networkx users: ``backend="rapids_balance"``)
Correlation clustering
    imbalance, correlation_clustering -> ClusteringResult,
    clustering_lower_bound -> ClusteringBound (certified gap)
Signed communities
    signed_communities -> CommunityResult, signed_modularity, signed_potts,
    adjusted_rand_index, sponge -> SpongeResult (SPONGE, SPONGE_sym),
    resolution_scan -> ResolutionScan
Significance against null models
    significance -> SignificanceResult (shuffled signs, sign-degree-preserving swaps),
    community_significance (a partition's signed community objective)
Balance measures
    signed_triangles -> TriangleResult, walk_balance -> WalkBalance,
    signed_degree, pn_index, balance_scores -> BalanceScores
Synthetic graphs and pictures
    powerlaw_signed_graph, planted_partition_graph -> PlantedPartition,
    weighted_graph, ssbm, polarized_ssbm -> SignedBlockModel; the ``plot`` module (matplotlib)
Scale-out
    start_cluster (balance, frustration, the two betweenness functions and
    correlation_clustering take ``client=``)
Backends
    gpu_status, resolve_backend, warmup (compile and cache every CPU kernel)
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()  # before any kernel is defined: a read-only install still imports

from .errors import BackendUnavailableError, GraphFormatError, GraphInputError, InvalidParameterError  # noqa: E402
from .graph import CleaningReport, Graph, SignedGraph  # noqa: E402
from .backend import gpu_status, resolve_backend  # noqa: E402

__version__ = "0.1.0"

# name -> module that defines it (imported on first access)
_LAZY = {
    "read_edgelist": "rapids_balance.io",
    "from_networkx": "rapids_balance.io",
    "to_networkx": "rapids_balance.io",
    "from_cugraph": "rapids_balance.io",
    "load_example": "rapids_balance.datasets",
    "list_examples": "rapids_balance.datasets",
    "balance": "rapids_balance.balancing",
    "BalanceResult": "rapids_balance.balancing",
    "frustration": "rapids_balance.frustration_index",
    "FrustrationResult": "rapids_balance.frustration_index",
    "frustration_index_exact": "rapids_balance.frustration_index",
    "frustration_lower_bound": "rapids_balance.frustration_index",
    "FrustrationBound": "rapids_balance.frustration_index",
    "node_and_edge_betweenness": "rapids_balance.centrality",
    "BetweennessResult": "rapids_balance.centrality",
    "betweenness_centrality": "rapids_balance.centrality",
    "edge_betweenness_centrality": "rapids_balance.centrality",
    "betweenness_centrality_subset": "rapids_balance.centrality",
    "edge_betweenness_centrality_subset": "rapids_balance.centrality",
    "imbalance": "rapids_balance.clustering",
    "correlation_clustering": "rapids_balance.clustering",
    "ClusteringResult": "rapids_balance.clustering",
    "clustering_lower_bound": "rapids_balance.clustering",
    "ClusteringBound": "rapids_balance.clustering",
    "signed_communities": "rapids_balance.clustering",
    "CommunityResult": "rapids_balance.clustering",
    "signed_modularity": "rapids_balance.clustering",
    "signed_potts": "rapids_balance.clustering",
    "adjusted_rand_index": "rapids_balance.clustering",
    "sponge": "rapids_balance.clustering",
    "SpongeResult": "rapids_balance.clustering",
    "resolution_scan": "rapids_balance.null_models",
    "ResolutionScan": "rapids_balance.null_models",
    "significance": "rapids_balance.null_models",
    "community_significance": "rapids_balance.null_models",
    "SignificanceResult": "rapids_balance.null_models",
    "start_cluster": "rapids_balance.distributed",
    "cluster_graph": "rapids_balance.distributed",
    "ClusterGraph": "rapids_balance.graph",
    "signed_triangles": "rapids_balance.measures",
    "TriangleResult": "rapids_balance.measures",
    "walk_balance": "rapids_balance.measures",
    "WalkBalance": "rapids_balance.measures",
    "signed_degree": "rapids_balance.measures",
    "pn_index": "rapids_balance.measures",
    "balance_scores": "rapids_balance.measures",
    "BalanceScores": "rapids_balance.measures",
    "warmup": "rapids_balance._warmup",
    "powerlaw_signed_graph": "rapids_balance.generators",
    "planted_partition_graph": "rapids_balance.generators",
    "weighted_graph": "rapids_balance.generators",
    "PlantedPartition": "rapids_balance.generators",
    "ssbm": "rapids_balance.generators",
    "polarized_ssbm": "rapids_balance.generators",
    "SignedBlockModel": "rapids_balance.generators",
}
# submodules reachable as attributes (rb.plot.status_histogram(...))
_SUBMODULES = ("plot", "generators")

__all__ = [
    "BackendUnavailableError", "GraphFormatError", "GraphInputError", "InvalidParameterError",
    "CleaningReport", "Graph", "SignedGraph", "gpu_status", "resolve_backend",
    *_LAZY, *_SUBMODULES,
]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return import_module(f"rapids_balance.{name}")
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'rapids_balance' has no attribute {name!r}") from None
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
