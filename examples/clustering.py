"""
Correlation clustering: who belongs with whom?
==============================================

Correlation clustering of a signed network.

Runs on the bundled Slashdot first-1000 instance (Levorato et al.'s
benchmark) and on the Gahuku-Gama highland tribes, with the paper's ILS
(exactly as published, and with our default plateau walks), the multilevel
solver, and a 2-cluster (balanced-state) bound.

Needs nothing beyond a plain install.

Run: ``python examples/clustering.py``
"""

import rapids_balance as rb


def main() -> None:
    tribes = rb.load_example("highland")
    res = rb.correlation_clustering(tribes, method="ils", seed=0, progress=False)
    print(f"highland tribes: I(P) = {res.imbalance:g} with {res.n_clusters} clusters")
    print(res.labels.groupby("cluster")["vertex"].apply(list).to_string())

    g = rb.load_example("slashdot-1000")
    print(f"\n{g}")
    for method in ("vnd", "ils", "multilevel"):
        res = rb.correlation_clustering(g, method=method, seed=0, progress=False)
        print(f"  {method:10s} I(P) = {res.imbalance:8g}  clusters {res.n_clusters:4d}  "
              f"{res.elapsed_s:6.2f} s")
    paper = rb.correlation_clustering(g, method="ils", construction="grasp", perturbation="vertex",
                                      plateau=False, merge_moves=False, seed=0, progress=False)
    print(f"  ils, as in the paper: I(P) = {paper.imbalance:g}  {paper.elapsed_s:.2f} s")
    two = rb.correlation_clustering(g, method="ils", n_clusters=2, seed=0, progress=False)
    parts = rb.imbalance(g, two.labels)
    print(f"  two clusters: I(P) = {parts.imbalance:g} (negative inside {parts.negative_inside:g}, "
          f"positive between {parts.positive_between:g})")
    print("  (published average for this instance, Levorato et al. 2015 Table 4: 600.0)")


if __name__ == "__main__":
    main()
