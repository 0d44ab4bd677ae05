"""Weighted betweenness centrality of vertices and edges (exact or sampled).

Brandes' algorithm with a parallel, level-building Dijkstra on the GPU
(PeerJ CS 2017) and a heap Dijkstra per source, sources in parallel, on the
CPU.  See :func:`betweenness_centrality` and
:func:`edge_betweenness_centrality`.
"""

from .betweenness import betweenness_centrality, edge_betweenness_centrality

__all__ = ["betweenness_centrality", "edge_betweenness_centrality"]
