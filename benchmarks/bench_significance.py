"""Significance against null models: time per batch of null samples.

Rows: the issue's targets, 1000 null samples of the triangle balance ratio
on full Slashdot (shuffle null; target <= 60 s) and 100 null samples of the
refined frustration index on Bitcoin OTC (shuffle null; target <= 60 s), and
the swap null on the same graphs with fewer samples.  Each row's peer,
measured in the same run, is the cost of the statistic on the observed
graph alone (one triangle listing and census; one frustration call), so the
ratio says what a null sample costs beyond recomputing the statistic.

Usage: python benchmarks/bench_significance.py [--quick]
"""

from __future__ import annotations

import argparse
import time

from _harness import SHARED_DATA, Report

import rapids_balance as rb
from rapids_balance.null_models._statistics import resolve_statistic

CASES = [  # (graph file, statistic, null, samples, target seconds)
    ("soc-sign-Slashdot090221.txt.gz", "triangles", "shuffle", 1000, 60.0),
    ("soc-sign-Slashdot090221.txt.gz", "triangles", "swap", 20, None),
    ("soc-sign-bitcoinotc.csv.gz", "frustration", "shuffle", 100, 60.0),
    ("soc-sign-bitcoinotc.csv.gz", "frustration", "swap", 20, None),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the samples")
    ap.add_argument("--name", default="significance")
    args = ap.parse_args()
    report = Report(args.name, __doc__.split("\n\n")[0],
                    params={"quick": args.quick,
                            "note": "2-core machine shared with other jobs: times inflated"})
    rb.significance(rb.load_example("highland"), "triangles", "swap", n_samples=2, progress=False)
    rb.significance(rb.load_example("highland"), "frustration", n_samples=2, progress=False)
    for fname, stat, null, samples, target in CASES:
        g = rb.read_edgelist(SHARED_DATA / fname)
        if args.quick:
            samples = max(2, samples // 10)
        t0 = time.perf_counter()
        resolve_statistic(stat, "bench").value(g, 0, "cpu")
        one = time.perf_counter() - t0
        res = rb.significance(g, stat, null, n_samples=samples, seed=0, progress=False)
        report.add(input=f"{fname} ({g.n:,} v, {g.m:,} e)", figure=f"{samples} null samples, "
                   f"{stat}, {null}", value=round(res.elapsed_s, 2), unit="s",
                   peer="the statistic once on the graph (same run)", peer_value=round(one, 3),
                   per_sample_s=round(res.elapsed_s / samples, 4), z_score=res.z_score,
                   p_value=res.p_value, observed=res.observed, null_mean=res.null_mean,
                   target_s=target, target_met=None if target is None or args.quick
                   else res.elapsed_s <= target)
    report.finish()


if __name__ == "__main__":
    main()
