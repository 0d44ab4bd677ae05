"""Correlation clustering of signed graphs.

* :func:`imbalance` - I(P), its two parts and B(P) of a given partition;
* :func:`clustering_lower_bound` - a lower bound on the optimum (packed cycles
  with one negative edge, or their LP) and the certified gap of a clustering;
* :func:`correlation_clustering` - VND, GRASP and ILS of Levorato et al.
  (SBPO 2015) with sparse per-vertex cluster sums (plus plateau walks and a
  cluster-merge neighbourhood in the ILS), a parallel-round local
  search, and a multilevel (label propagation + contraction + refinement)
  solver for graphs with 10^5 - 10^6 vertices.

* :func:`signed_modularity`, :func:`signed_potts` - the signed community
  objectives of any partition (Gomez-Jensen-Arenas, Traag-Bruggeman);
* :func:`signed_communities` - a Leiden-style search for either of them or
  the imbalance, with a resolution.

Modules: ``_objective`` (objective, label coercion), ``_bound`` (lower bound), ``_tables`` (sparse sums,
shared CPU/GPU bodies), ``_cpu`` / ``_gpu`` (kernels), ``_state`` (local-search
state), ``_multilevel`` (V-cycles), ``_solve`` (drivers), ``_signed_objective`` (community
objectives), ``_louvain`` (their search kernels), ``_communities`` (their driver), ``_cli``.
"""

from ._bound import ClusteringBound, clustering_lower_bound
from ._objective import ImbalanceResult, imbalance
from ._agreement import adjusted_rand_index
from ._communities import CommunityResult, signed_communities
from ._signed_objective import PottsResult, SignedModularityResult, signed_modularity, signed_potts
from ._sponge import SpongeResult, bethe_hessian_k, sponge
from ._solve import ClusteringResult, correlation_clustering

__all__ = ["imbalance", "ImbalanceResult", "correlation_clustering", "ClusteringResult",
           "clustering_lower_bound", "ClusteringBound", "signed_communities", "CommunityResult",
           "signed_modularity", "SignedModularityResult", "signed_potts", "PottsResult",
           "adjusted_rand_index", "sponge", "SpongeResult", "bethe_hessian_k"]
