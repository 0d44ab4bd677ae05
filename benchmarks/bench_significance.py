"""Significance against null models: time per batch of null samples.

Rows: the issue's targets, 1000 null samples of the triangle balance ratio
on full Slashdot (shuffle null; target <= 60 s) and 100 null samples of the
refined frustration index on Bitcoin OTC (shuffle null; target <= 60 s), and
the swap null on the same graphs with fewer samples.  Each row's peer,
measured in the same run, is the cost of the statistic on the observed
graph alone (one triangle listing and census; one frustration call), so the
ratio says what a null sample costs beyond recomputing the statistic.

``--only STATISTIC`` runs that statistic's rows; ``--baseline DIR`` (a
checkout of an earlier version of the package) also times that version on
each row, in a subprocess just before, as ``before_s``.

Usage: python benchmarks/bench_significance.py [--quick] [--only frustration] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
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


BASELINE = """
import sys, json
sys.path.insert(0, sys.argv[1])
import rapids_balance as rb
assert rb.__file__.startswith(sys.argv[1]), rb.__file__
g = rb.read_edgelist(sys.argv[2])
rb.significance(rb.load_example("highland"), sys.argv[3], n_samples=2, progress=False)
res = rb.significance(g, sys.argv[3], sys.argv[4], n_samples=int(sys.argv[5]), seed=0, progress=False)
print(json.dumps(dict(seconds=res.elapsed_s, observed=res.observed, null_mean=res.null_mean,
                      z_score=res.z_score)))
"""


def _baseline(baseline: str, fname: str, stat: str, null: str, samples: int) -> dict:
    """One row's run by an earlier version of the package (a checkout at ``baseline``)."""
    out = subprocess.run([sys.executable, "-c", BASELINE, baseline, str(SHARED_DATA / fname), stat, null,
                          str(samples)], capture_output=True, text=True, check=True, cwd=baseline)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the samples")
    ap.add_argument("--name", default="significance")
    ap.add_argument("--only", choices=("triangles", "frustration"), default=None, help="one statistic's rows")
    ap.add_argument("--null", choices=("shuffle", "swap"), default=None, help="one null model's rows")
    ap.add_argument("--baseline", default=None, help="a checkout of an earlier version, timed beside")
    args = ap.parse_args()
    report = Report(args.name, __doc__.split("\n\n")[0],
                    params={"quick": args.quick,
                            "note": "2-core machine shared with other jobs: times inflated"})
    rb.significance(rb.load_example("highland"), "triangles", "swap", n_samples=2, progress=False)
    rb.significance(rb.load_example("highland"), "frustration", n_samples=2, progress=False)
    for fname, stat, null, samples, target in CASES:
        if args.only not in (None, stat) or args.null not in (None, null):
            continue
        g = rb.read_edgelist(SHARED_DATA / fname)
        if args.quick:
            samples = max(2, samples // 10)
        before = _baseline(args.baseline, fname, stat, null, samples) if args.baseline else {}
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
                   else res.elapsed_s <= target,
                   **({"before_s": round(before["seconds"], 2), "before_observed": before["observed"],
                       "before_null_mean": before["null_mean"], "before_z_score": before["z_score"],
                       "before": "the baseline checkout, same row, in a subprocess just before"}
                      if before else {}))
    report.finish()


if __name__ == "__main__":
    main()
