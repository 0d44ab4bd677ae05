"""
Frustration index: tree cloud, refinement, certificates
=======================================================

The frustration index of a signed graph from a cloud of spanning-tree
states (graphB++), refined by local search, proved exactly on a small graph
and bounded from below on a larger one.

Needs the ``exact`` extra (``pip install 'rapids-balance[exact]'``) for the
exact index.

Run: ``python examples/frustration.py``
"""

from _extras import require

import rapids_balance as rb
from rapids_balance.frustration_index import frustration_lower_bound

require("exact", "highspy")

# %%
# Highland tribes: 16 tribes, 58 friendly/hostile relations; frustration index 7.
tribes = rb.load_example("highland")
res = rb.frustration(tribes, n_trees=200, sampler="hybrid", progress=False)
print(res)
print("distinct balanced states in the cloud:", len(res.cloud))
print(res.cloud.head())                        # state, count, switches, sampler, first_tree
print(res.best_state.groupby("side")["vertex"].apply(list))   # the two camps
print("relations to flip:\n", res.switched)

# %%
# The exact index (HiGHS) proves the heuristic optimal on this graph.
exact = rb.frustration_index_exact(tribes, time_limit=10)
print(f"exact index {exact.index} (optimal: {exact.optimal}); heuristic gap: "
      f"{res.index - exact.index}")

# %%
# Bitcoin OTC trust network: graphB++'s tree-only estimate vs the refined search.
otc = rb.load_example("bitcoin-otc")
trees_only = rb.frustration(otc, n_trees=100, refine=False, progress=False)
refined = rb.frustration(otc, n_trees=100, max_states=50, progress=False)
print(f"Bitcoin OTC: 100 BFS trees -> {trees_only.index} switches; refined -> {refined.index} "
      f"({len(refined.cloud)} states kept of {refined.info['states'] + refined.info['evicted']})")
print(refined.history.tail())

# %%
# How far from optimal can the refined state be?  Edge-disjoint unbalanced cycles each need
# a switched edge, so packing them proves a lower bound on any graph, large or small.
lb = frustration_lower_bound(otc, refined.best_state)
print(f"Bitcoin OTC: {lb.bound} <= frustration index <= {refined.index} (gap at most {lb.gap})")
print(lb.cycles.head(6))                        # cycle, src, dst, sign
