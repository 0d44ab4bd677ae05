"""Load signed networks from files, DataFrames and networkx; inspect the cleaning.

Run: python examples/loading.py
"""

import pandas as pd

import rapids_balance as rb

# A bundled example (no download): the Bitcoin OTC trust network, sign = sign(rating).
g = rb.load_example("bitcoin-otc")
print(g)
summary = g.summary()
print({k: summary[k] for k in ("vertices", "edges", "cycles", "percent_positive", "max_degree")})
print(g.cleaning)  # self loops, repeated and conflicting pairs, component: all counted

# Any edge-list DataFrame works; string labels are kept as labels.
df = pd.DataFrame({"source": ["ann", "bob", "cy", "ann"],
                   "target": ["bob", "cy", "ann", "dee"],
                   "sign": [1, -1, -1, 1]})
small = rb.SignedGraph.from_edgelist(df, source="source", target="target", sign="sign")
print(small, small.labels.tolist())

# Round trip through networkx.
H = rb.to_networkx(small)
print(sorted(H.edges(data=True)))
