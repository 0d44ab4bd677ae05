"""The CPU (numba) kernels of the clustering search, named in one place.

Each concept has its own module; this one names their kernels for the
search drivers (:mod:`._state`, :mod:`._multilevel`, :mod:`._solve`):

* :mod:`._tables`: the sparse per-vertex cluster sums (shared with the GPU);
* :mod:`._moves`: building and evaluating the move tables, moving a vertex,
  cluster ids, members by cluster, the segment tree of best moves;
* :mod:`._vnd`: paper-faithful VND, perturbation, undo, cluster merges;
* :mod:`._propagation`: label propagation (sparse and dense sweeps);
* :mod:`._rounds`: parallel rounds of non-conflicting moves;
* :mod:`._contract`: contraction to a coarser level, and its imbalance;
* :mod:`._construct`: GRASP construction.
"""

from __future__ import annotations

from ._moves import (HUB_DEGREE, build_tables, eval_all, members_by_cluster, move_vertex, refresh_list,
                     reset_clusters, tree_build, tree_set)
from ._vnd import best_merge, logged_degree, merge_clusters, perturb, undo, vnd_best
from ._propagation import (RADIX_BITS, RADIX_MIN, SPARSE_SWEEP, random_order, stable_argsort_u64, sweeps,
                           sweeps_dense)
from ._rounds import apply_round, select_movers
from ._contract import contract, imbalance_slots
from ._construct import grasp_construct

__all__ = ["HUB_DEGREE", "build_tables", "eval_all", "members_by_cluster", "move_vertex", "refresh_list",
           "reset_clusters", "tree_build", "tree_set", "best_merge", "logged_degree", "merge_clusters",
           "perturb", "undo", "vnd_best", "RADIX_BITS", "RADIX_MIN", "SPARSE_SWEEP", "random_order",
           "stable_argsort_u64", "sweeps", "sweeps_dense", "apply_round", "select_movers", "contract",
           "imbalance_slots", "grasp_construct"]
