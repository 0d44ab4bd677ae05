"""
Load signed networks and inspect the cleaning
=============================================

Load signed networks from the bundled files, from DataFrames and from
networkx, and read the cleaning report that counts every input row.

Needs the ``networkx`` extra (``pip install 'rapids-balance[networkx]'``)
for the round trip at the end.

Run: ``python examples/loading.py``
"""

import pandas as pd
from _extras import require

import rapids_balance as rb

require("networkx", "networkx")

# %%
# A bundled example (no download): the Bitcoin OTC trust network, sign = sign(rating).
g = rb.load_example("bitcoin-otc")
print(g)
summary = g.summary()
print({k: summary[k] for k in ("vertices", "edges", "cycles", "percent_positive", "max_degree")})
print(g.cleaning)  # self loops, repeated and conflicting pairs, component: all counted

# %%
# Any edge-list DataFrame works; string labels are kept as labels.
df = pd.DataFrame({"source": ["ann", "bob", "cy", "ann"],
                   "target": ["bob", "cy", "ann", "dee"],
                   "sign": [1, -1, -1, 1]})
small = rb.SignedGraph.from_edgelist(df, source="source", target="target", sign="sign")
print(small, small.labels.tolist())

# %%
# Round trip through networkx.
H = rb.to_networkx(small)
print(sorted(H.edges(data=True)))
