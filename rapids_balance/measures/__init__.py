"""Balance measures of signed graphs: triangles, walks, signed degree, PN index, scores.

Public functions (also at the top level, ``rb.signed_triangles`` ...):

* :func:`signed_triangles` -> :class:`TriangleResult`: the four signed
  triangle types, the triangle balance ratio, per-vertex and per-edge
  balanced / unbalanced counts (numba on the CPU, numba-cuda on the GPU).
* :func:`walk_balance` -> :class:`WalkBalance`: Estrada and Benzi's
  ``tr exp(beta A) / tr exp(beta |A|)`` in log space, exact or by
  stochastic Lanczos quadrature with an error bar.
* :func:`signed_degree`, :func:`pn_index`: node tables.
* :func:`balance_scores` -> :class:`BalanceScores`: all of them and the
  frustration scores, each 1 when the graph is balanced (signnet's scale).

**Array-level functions for null models.**  A null model evaluates a statistic on thousands of randomised sign vectors
or edge sets; these take plain arrays (``src``, ``dst``: int edge
endpoints in ``[0, n)``, a simple undirected graph, e.g. ``graph.edge_src``
/ ``graph.edge_dst``; ``sign``: one value per edge, < 0 negative) and do
no checks and build no Graph:

* Signs shuffled over a fixed topology::

      tri = list_triangles(src, dst, n)            # once: (T, 3) edge ids, O(m^1.5)
      counts = census_of_triangles(tri, sign)      # per sample: O(T), 4 ints
      ratio = balance_ratio_of_counts(counts)      # share of balanced triangles

      u = log_trace_exp(src, dst, np.ones(m), n, [beta], method="slq", seed=s)  # once
      log_w, err = walk_log_ratio(src, dst, sign, n, beta, unsigned=(u[0][0], u[1][0]),
                                  method="slq", seed=s)  # per sample: signed trace only

* Edge swaps (the topology changes)::

      counts = triangle_census(src, dst, sign, n)  # one pass, no list kept
      log_w, err = walk_log_ratio(src, dst, sign, n, beta, method="slq", seed=s)

``backend="gpu"`` (resolved by the caller) lists triangles with the CUDA
kernels; every count is the CPU's.  ``method="exact"`` is the dense path
for graphs of at most :data:`EXACT_MAX_VERTICES` vertices.
"""

from ._degree import pn_index, signed_degree
from ._scores import BalanceScores, balance_scores, frustration_score
from ._triangles import (TRIANGLE_TYPES, TriangleResult, balance_ratio_of_counts, census_of_triangles,
                         list_triangles, signed_triangles, triangle_census)
from ._walk import (AUTO_EXACT_VERTICES, EXACT_MAX_VERTICES, WalkBalance, log_trace_exp, walk_balance,
                    walk_log_ratio)

__all__ = ["signed_triangles", "TriangleResult", "walk_balance", "WalkBalance", "signed_degree",
           "pn_index", "balance_scores", "BalanceScores", "frustration_score", "list_triangles",
           "census_of_triangles", "balance_ratio_of_counts", "triangle_census", "log_trace_exp",
           "walk_log_ratio", "TRIANGLE_TYPES", "EXACT_MAX_VERTICES", "AUTO_EXACT_VERTICES"]
