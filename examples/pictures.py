"""
Pictures of results
===================

Draw results with :mod:`rapids_balance.plot`: the status of every Bitcoin OTC
user over 500 nearest balanced states, how the frustration estimate falls
with more trees and the refinement (with the lower bound that certifies it),
and the highland tribes split into their two camps.

Needs the ``plot`` extra (``pip install 'rapids-balance[plot]'``) and, for
the drawing of the tribes, the ``networkx`` extra (its spring layout).

Run: ``python examples/pictures.py`` (writes nothing; each picture opens in a window).
"""

from _extras import require

require("plot", "matplotlib")
require("networkx", "networkx")

import matplotlib.pyplot as plt  # noqa: E402  (imported first: the pictures become pyplot figures)

import rapids_balance as rb  # noqa: E402
from rapids_balance import plot  # noqa: E402

# %%
# Status: the share of balanced states in which each user sits in the majority.
otc = rb.load_example("bitcoin-otc")
res = rb.balance(otc, n_trees=500, seed=0, progress=False)
plot.status_histogram(res)

# %%
# The frustration estimate: best tree state after each batch, then the
# refinement rounds, above the lower bound from edge-disjoint unbalanced cycles.
fr = rb.frustration(otc, n_trees=200, seed=0, progress=False)
plot.frustration_convergence(fr, rb.frustration_lower_bound(otc, fr.best_state))

# %%
# The highland tribes in their two camps (the best balanced state); dashed
# edges are hostile, red edges disagree with the split.
tribes = rb.load_example("highland")
plot.signed_graph(tribes, rb.frustration(tribes, n_trees=100, progress=False))
plt.show()
