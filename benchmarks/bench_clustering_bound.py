"""Correlation-clustering certificate: the certified gap of the default clustering.

For each graph: the default clustering (``correlation_clustering``, the
method ``auto`` picks, seed 0, a time limit), then
``clustering_lower_bound`` around it (packed cycles with one negative edge,
default parameters) and, on the graphs small enough for it, the cycle LP
by cutting planes (``method="lp"``, warm-started from the packing) around
the same clustering.  A row gives the certified gap ``(I(P) - bound) /
I(P)`` of one method with the bound's time beside the clustering's time,
all measured in the same run, and whether the LP's cut loop closed (its
bound is then the LP's optimum).  Graphs: full Slashdot (soc-sign-Slashdot090221) and Epinions
(target: gap <= 5 %), and Levorato et al.'s random instances (SBPO 2015,
Tables 2-3; target: gap <= 1 % where optima are near).  The random files
list every pair twice; they are read as undirected graphs, so I(P) here is
half the paper's, and the gap, a ratio, is the same.

Usage: python benchmarks/bench_clustering_bound.py [--quick] [--time-limit S]
       [--bound-time-limit S] [--methods packing,lp] [--only NAME,...] [--out DIR]
"""

from __future__ import annotations

import argparse
import time

from _harness import SHARED_DATA, Report

import rapids_balance as rb
from rapids_balance.clustering._lp_bound import LP_MAX_EDGES, LP_MAX_VERTICES

LARGE = {"slashdot": "soc-sign-Slashdot090221.txt.gz", "epinions": "soc-sign-epinions.txt.gz"}
RANDOM = [(400, 0.1, 0.2), (400, 0.1, 0.5), (400, 0.5, 0.5), (600, 0.1, 0.8), (600, 0.2, 0.5),
          (600, 0.8, 0.8), (400, 0.5, 0.2), (600, 0.2, 0.2), (600, 0.8, 0.2)]
QUICK_RANDOM = [(400, 0.1, 0.2), (400, 0.1, 0.5)]
TARGET = {"large": 0.05, "random": 0.01}


def _row(report, name, g, kind, args):
    t0 = time.perf_counter()
    cl = rb.correlation_clustering(g, seed=0, progress=False, time_limit=args.time_limit)
    t_cl = time.perf_counter() - t0
    for method in args.methods.split(","):
        if method == "lp" and (g.m > LP_MAX_EDGES or g.n > LP_MAX_VERTICES):
            continue  # refused before any work: the packing row stands alone
        lb = rb.clustering_lower_bound(g, cl.labels, method=method,
                                       time_limit=args.bound_time_limit)
        report.add(input=f"{name} ({g.n:,} v, {g.m:,} e)", figure=f"certified gap of the default "
                   f"clustering ({cl.method}, {args.time_limit:g} s), bound {method}",
                   value=round(lb.relative_gap, 5), unit="share of I(P)", method=method,
                   clustering_time_s=round(t_cl, 2), imbalance=lb.imbalance, bound=lb.bound,
                   gap=lb.gap, bound_time_s=round(lb.elapsed_s, 2), lp_converged=lb.lp_converged,
                   lp_upper=lb.lp_upper,
                   target=TARGET[kind], target_met=lb.relative_gap <= TARGET[kind])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="two random instances and the large graphs")
    ap.add_argument("--time-limit", type=float, default=10.0, help="clustering time limit (s)")
    ap.add_argument("--only", default=None, help="comma-separated names (slashdot, epinions, "
                    "random n=400 d=0.1 d-=0.5, ...)")
    ap.add_argument("--bound-time-limit", type=float, default=None,
                    help="seconds for each bound (default: none)")
    ap.add_argument("--methods", default="packing", help="comma-separated: packing, lp")
    ap.add_argument("--out", default=None, help="results folder (default: bench-results)")
    ap.add_argument("--name", default="clustering_bound")
    args = ap.parse_args()
    report = Report(args.name, __doc__.split("\n\n")[0],
                    params={"time_limit": args.time_limit, "quick": args.quick,
                            "bound_time_limit": args.bound_time_limit, "methods": args.methods,
                            "note": "2-core machine shared with other jobs: times inflated"})
    rb.clustering_lower_bound(rb.load_example("highland"), method="packing")  # compile outside
    if "lp" in args.methods:
        rb.clustering_lower_bound(rb.load_example("highland"), method="lp")
    wanted = None if args.only is None else {s.strip() for s in args.only.split(",")}
    for key, fname in LARGE.items():
        if wanted is None or key in wanted:
            _row(report, key, rb.read_edgelist(SHARED_DATA / fname), "large", args)
    tar = SHARED_DATA / "levorato_cc_random_sg_bigger.tar.gz"
    for n, d, dm in (QUICK_RANDOM if args.quick else RANDOM):
        name = f"random n={n} d={d} d-={dm}"
        if wanted is None or name in wanted:
            g = rb.read_edgelist(tar, format="mrel",
                                 member=f"levorato_cc_random_sg_bigger/file_{n}_{d}_{dm}.g")
            _row(report, name, g, "random", args)
    report.finish(args.out)


if __name__ == "__main__":
    main()
