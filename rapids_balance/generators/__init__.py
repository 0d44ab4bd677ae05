"""Seeded synthetic graphs: power-law signed, planted partition, weighted.

* :func:`powerlaw_signed_graph` - Chung-Lu graph with a degree exponent and a
  share of negative edges;
* :func:`planted_partition_graph` - k groups, positive inside and negative
  across, signs flipped with probability p; returns the planted partition
  and its value (a known upper bound for frustration and clustering);
* :func:`weighted_graph` - weighted unsigned graph (betweenness);
* :func:`ssbm`, :func:`polarized_ssbm` - signed stochastic block models with
  planted labels (``_ssbm``).

Same seed, same graph, on any number of threads: every random number is a
counter-based hash (:mod:`rapids_balance._random`).  Modules: ``_kernels``
(numba), ``_generate`` (pipeline and public functions), ``_cli``
(``rapids-balance generate``).
"""

from ._generate import PlantedPartition, planted_partition_graph, powerlaw_signed_graph, weighted_graph
from ._ssbm import SignedBlockModel, polarized_ssbm, ssbm

__all__ = ["powerlaw_signed_graph", "planted_partition_graph", "weighted_graph", "PlantedPartition",
           "ssbm", "polarized_ssbm", "SignedBlockModel"]
