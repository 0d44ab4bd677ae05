"""Weighted betweenness centrality of vertices and edges (exact, sampled or subset).

Brandes' algorithm with a parallel, level-building Dijkstra on the GPU
(PeerJ CS 2017) and a heap Dijkstra per source, sources in parallel, on the
CPU.  See :func:`node_and_edge_betweenness` (both tables from one pass), :func:`betweenness_centrality`,
:func:`edge_betweenness_centrality`
and their ``_subset`` variants (paths between given sources and targets).
"""

from .betweenness import (
    BetweennessResult,
    node_and_edge_betweenness,
    betweenness_centrality,
    betweenness_centrality_subset,
    edge_betweenness_centrality,
    edge_betweenness_centrality_subset,
)

__all__ = ["node_and_edge_betweenness", "BetweennessResult", "betweenness_centrality", "edge_betweenness_centrality", "betweenness_centrality_subset",
           "edge_betweenness_centrality_subset"]
