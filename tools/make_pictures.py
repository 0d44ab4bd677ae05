"""Re-create the pictures in docs/images from bundled examples and generated graphs.

Every input is bundled or generated from a fixed seed, so the pictures come
out the same on every run (timing axes aside: the clustering history shows
seconds).  Each file is written as PNG; the script fails if one is larger
than --max-kb.

Run: ``python tools/make_pictures.py [--out docs/images] [--max-kb 150]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import rapids_balance as rb  # noqa: E402
from rapids_balance import plot  # noqa: E402
from rapids_balance.generators import (planted_partition_graph, powerlaw_signed_graph,  # noqa: E402
                                       weighted_graph)


def pictures():
    """(file name, dpi, a function drawing the picture and returning its Axes)."""
    otc = rb.load_example("bitcoin-otc")
    highland = rb.load_example("highland")
    bal = rb.balance(otc, 200, progress=False)
    fr = rb.frustration(otc, 500, batch_size=16, progress=False)
    bound = rb.frustration_lower_bound(otc, fr.best_state)
    small_fr = rb.frustration(highland, 400, batch_size=16, progress=False)
    weighted = weighted_graph(50_000, weights="integer", weight_range=(1, 10), seed=1)
    bc = rb.betweenness_centrality(weighted, k=400, seed=1, progress=False)
    ebc = rb.edge_betweenness_centrality(weighted, k=400, seed=1, progress=False)
    planted = planted_partition_graph(20_000, n_groups=4, flip=0.05, seed=1)
    cc = rb.correlation_clustering(planted.graph, method="ils", seed=1, max_iterations=6,
                                   progress=False)
    tiny = planted_partition_graph(160, n_groups=3, flip=0.06, mean_degree=4.0, seed=2)
    power = powerlaw_signed_graph(1_000_000, exponent=2.5, seed=1)
    return [
        ("balance_status_histogram.png", 90, lambda: plot.status_histogram(bal)),
        ("balance_status_influence.png", 90, lambda: plot.status_scatter(bal, top=8)),
        ("balance_edge_shares.png", 90, lambda: plot.edge_shares(bal)),
        ("frustration_convergence.png", 90, lambda: plot.frustration_convergence(fr, bound)),
        ("frustration_cloud_highland.png", 90, lambda: plot.cloud_growth(small_fr)),
        ("betweenness_ccdf.png", 90, lambda: plot.betweenness_ccdf(bc)),
        ("betweenness_top_edges.png", 90, lambda: plot.betweenness_top(ebc, k=15)),
        ("clustering_history.png", 90, lambda: plot.imbalance_history(cc)),
        ("clustering_sizes.png", 90, lambda: plot.cluster_sizes(cc)),
        ("graph_highland_bipartition.png", 80, lambda: plot.signed_graph(highland, small_fr)),
        ("graph_planted_groups.png", 80, lambda: plot.signed_graph(tiny.graph, tiny)),
        ("generated_degree_ccdf.png", 90, lambda: plot.degree_ccdf(power)),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(REPO / "docs" / "images"), help="folder (default docs/images)")
    ap.add_argument("--max-kb", type=float, default=150.0, help="fail when a file is larger")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    too_big = []
    for name, dpi, draw in pictures():
        path = os.path.join(args.out, name)
        plot.save(draw(), path, dpi=dpi)
        kb = os.path.getsize(path) / 1024
        print(f"{path}: {kb:.0f} KB")
        if kb > args.max_kb:
            too_big.append(name)
    if too_big:
        print(f"larger than {args.max_kb:g} KB: {', '.join(too_big)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
