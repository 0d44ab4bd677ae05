"""
Weighted betweenness: who brokers the trust?
============================================

Weighted betweenness of a who-trusts-whom network.

Bitcoin Alpha (SNAP): 3,775 users, 14,120 rated relations, ratings -10..10.
A rating is a sign *and* a strength; betweenness needs lengths, so we state
the mapping: strong relations (large ``abs(rating)``) are *short*.  Then:

1. exact vertex betweenness with length ``1 / abs(rating)`` (strong ties are short),
2. the same with every edge of length 1 (unweighted, same code),
3. a 500-source sample, and how close it gets to the exact scores,
4. edge betweenness: the relations that carry the most shortest paths,
5. a check against networkx on a few sources (same sources, same estimator).

Needs nothing beyond a plain install; the networkx cross-check (step 5) runs
when the ``networkx`` extra is installed and is skipped otherwise.

Run: ``python examples/betweenness.py`` (add ``--gpu`` on a machine with a GPU).
"""

import sys

import numpy as np

import rapids_balance as rb


def main() -> None:
    backend = "gpu" if "--gpu" in sys.argv else "auto"
    # signed=False keeps the rating itself as the weight column
    g = rb.load_example("bitcoin-alpha", signed=False)
    print(g)

    # a signed rating is never a length: say what the length is
    strong_is_short = lambda e: 1.0 / np.abs(e["weight"])  # noqa: E731
    exact = rb.betweenness_centrality(g, weight=strong_is_short, backend=backend, progress=False)
    print("\nbrokers of strong trust (exact, length = 1/|rating|):")
    print(exact.sort_values("betweenness_centrality", ascending=False).head(5).to_string(index=False))

    hops = rb.betweenness_centrality(g, weight=None, backend=backend, progress=False)
    top_w = set(exact.nlargest(20, "betweenness_centrality")["vertex"])
    top_h = set(hops.nlargest(20, "betweenness_centrality")["vertex"])
    print(f"\nunweighted top 20 shares {len(top_w & top_h)} users with the weighted top 20")

    sampled = rb.betweenness_centrality(g, k=500, seed=7, weight=strong_is_short, backend=backend,
                                        progress=False)
    err = np.abs(sampled["betweenness_centrality"] - exact["betweenness_centrality"]).max()
    top_s = set(sampled.nlargest(20, "betweenness_centrality")["vertex"])
    print(f"500 sampled sources: max abs error {err:.2e}, top-20 overlap {len(top_s & top_w)}/20")

    edges = rb.edge_betweenness_centrality(g, weight=strong_is_short, backend=backend, progress=False)
    print("\nrelations on the most shortest paths:")
    print(edges.nlargest(5, "betweenness_centrality").to_string(index=False))

    try:
        import networkx as nx
        from networkx.algorithms.centrality import betweenness as nb
    except ImportError:
        return
    G = nx.Graph()
    G.add_nodes_from(g.labels.tolist())
    lab = g.labels
    for u, v, w in zip(lab[g.edge_src].tolist(), lab[g.edge_dst].tolist(), g.weight.tolist()):
        G.add_edge(u, v, length=1.0 / abs(w))
    sources = lab[:5].tolist()
    ours = rb.betweenness_centrality(g, k=sources, weight=strong_is_short, normalized=False,
                                     backend=backend, progress=False)
    bc = dict.fromkeys(G, 0.0)
    for s in sources:
        S, P, sigma, _ = nb._single_source_dijkstra_path_basic(G, s, "length")
        bc, _ = nb._accumulate_basic(bc, S, P, sigma, s)
    ref = nb._rescale(bc, len(G), normalized=False, directed=False, endpoints=False, sampled_nodes=sources)
    ref = np.array([ref[v] for v in ours["vertex"].tolist()])
    diff = np.abs(ours["betweenness_centrality"].to_numpy() - ref).max() / np.abs(ref).max()
    print(f"\nnetworkx on the same 5 sources: max difference {diff:.1e} of the largest score")


if __name__ == "__main__":
    main()
