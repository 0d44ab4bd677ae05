"""Balance measures at scale: triangle census and walk score.

Rows (every figure beside a peer measured in the same run):

* Triangle census of Slashdot and Epinions on the CPU: ``signed_triangles``
  (four types, per-vertex and per-edge tables with labels) and the bare
  census (``triangle_census``), beside networkit's per-edge unsigned
  triangle count (``TriangleEdgeScore``) and igraph's local transitivity
  (which counts each vertex's triangles), best of ``--repeats`` each,
  interleaved.  Targets: <= 1 s and <= 1.5x the peer.
* Walk score of Epinions at beta = 1 and 0.1 by stochastic Lanczos
  quadrature with the defaults, beside a reference of several times the
  probes (``--reference-runs`` independent runs of 64 probes, default 8,
  with more Lanczos steps and deflated eigenvalues and other seeds),
  averaged in linear space.  Target: the log
  score within 1 % of the reference, in <= 30 s.

The machine may be shared: ratios within one run are the figures to read.
Every row also gives the CPU seconds of the process (``cpu_s``: all its
threads together, best of the repeats), which a busy machine inflates far
less than the wall time.  ``--baseline DIR`` (a checkout of an earlier
version of the package) times that version's walk score in a subprocess,
interleaved with this one, as the row's ``before_s``.
OpenBLAS is held to one thread (set before NumPy loads): on an
oversubscribed machine its spinning threads slowed the dense products of
the Lanczos runs ten-fold.

Run: ``python benchmarks/bench_measures.py [--quick] [--repeats 3]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from _harness import SHARED_DATA, Report  # noqa: E402

import rapids_balance as rb  # noqa: E402
from rapids_balance.measures import log_trace_exp, signed_triangles, triangle_census, walk_balance  # noqa: E402

INPUTS = [("Slashdot", "soc-sign-Slashdot090221.txt.gz"), ("Epinions", "soc-sign-epinions.txt.gz")]
REFERENCE_RUNS = 8  # --reference-runs


def _best(fn, repeats: int) -> tuple[float, float]:
    """Best wall seconds and best CPU seconds (all threads) of ``repeats`` calls."""
    best, cpu = math.inf, math.inf
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    return best, cpu


def _peers(g):
    """Timing functions of the unsigned peers that are installed (name -> callable)."""
    peers = {}
    try:
        import networkit as nk

        G = nk.GraphFromCoo((np.ones(g.m), (g.edge_src.astype(np.uint64), g.edge_dst.astype(np.uint64))),
                            n=g.n, weighted=False, directed=False)
        G.indexEdges()
        peers["networkit TriangleEdgeScore"] = lambda: nk.sparsification.TriangleEdgeScore(G).run()
    except ImportError:
        pass
    try:
        import igraph

        ig = igraph.Graph(n=g.n, edges=np.column_stack([g.edge_src, g.edge_dst]).tolist())
        peers["igraph transitivity_local_undirected"] = lambda: ig.transitivity_local_undirected()
    except ImportError:
        pass
    return peers


def bench_triangles(rep: Report, repeats: int, names) -> None:
    for name, fname in INPUTS:
        if name not in names:
            continue
        g = rb.read_edgelist(SHARED_DATA / fname)
        signed_triangles(g, backend="cpu")  # compile
        ours = {"signed_triangles (types + tables)": lambda: signed_triangles(g, backend="cpu"),
                "triangle_census (types only)": lambda: triangle_census(g.edge_src, g.edge_dst, g.sign, g.n)}
        peers = _peers(g)
        times = {k: math.inf for k in [*ours, *peers]}
        cpu = dict(times)
        for _ in range(repeats):  # interleaved, so load swings hit every contender
            for k, fn in [*ours.items(), *peers.items()]:
                wall, c = _best(fn, 1)
                times[k], cpu[k] = min(times[k], wall), min(cpu[k], c)
        t = signed_triangles(g, backend="cpu")
        peer_name = min(peers, key=times.get) if peers else None
        for k in ours:
            row = dict(input=name, figure=k, value=round(times[k], 4), unit="s", cpu_s=round(cpu[k], 4),
                       n=g.n, m=g.m,
                       triangles=t.n_triangles, counts=t.counts["count"].tolist(),
                       balance_ratio=round(t.balance_ratio, 6), target_s=1.0)
            if peer_name:  # ratio = peer / ours: >= 1/1.5 meets the target
                row.update(peer=peer_name, peer_value=round(times[peer_name], 4),
                           peer_cpu_s=round(cpu[peer_name], 4),
                           ours_over_peer=round(times[k] / times[peer_name], 3), target_ours_over_peer=1.5)
            rep.add(**row)
        for k in peers:
            rep.add(input=name, figure=f"peer: {k}", value=round(times[k], 4), unit="s", cpu_s=round(cpu[k], 4),
                    n=g.n, m=g.m)


def _reference(g, values, betas, seed0: int, runs: int):
    """log tr exp(beta A) from ``runs`` independent runs, averaged in linear space."""
    logs = np.array([log_trace_exp(g.edge_src, g.edge_dst, values, g.n, betas, method="slq", probes=64,
                                   steps=80, deflation=32, seed=seed0 + r)[0] for r in range(runs)])
    top = logs.max(axis=0)
    scaled = np.exp(logs - top)
    mean = scaled.mean(axis=0)
    return np.log(mean) + top, scaled.std(axis=0, ddof=1) / math.sqrt(runs) / mean


BASELINE_WALK = """
import os, sys, json, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, sys.argv[1])
import rapids_balance as rb
from rapids_balance.measures import walk_balance
assert rb.__file__.startswith(sys.argv[1]), rb.__file__
g = rb.read_edgelist(sys.argv[2])
t, c = time.perf_counter(), time.process_time()
w = walk_balance(g, float(sys.argv[3]), method="slq", seed=0, backend="cpu")
print(json.dumps(dict(seconds=time.perf_counter() - t, cpu_s=time.process_time() - c,
                      log_score=w.log_score, log_score_error=w.log_score_error)))
"""


def _baseline_walk(baseline: str, path, beta: float) -> dict:
    """The walk score of an earlier version of the package (a checkout at ``baseline``), timed
    in a subprocess."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", BASELINE_WALK, baseline, str(path), repr(beta)],
                         capture_output=True, text=True, check=True, cwd=baseline)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_walk(rep: Report, runs: int, baseline: str | None = None) -> None:
    path = SHARED_DATA / "soc-sign-epinions.txt.gz"
    g = rb.read_edgelist(path)
    betas = [1.0, 0.1]
    walk_balance(rb.load_example("highland"), 1.0, method="slq", deflation=2)  # compile the kernels
    t0 = time.perf_counter()
    ref_s, err_s = _reference(g, g.sign.astype(float), betas, 1000, runs)
    ref_u, err_u = _reference(g, np.ones(g.m), betas, 2000, runs)
    ref_seconds = time.perf_counter() - t0
    for b, beta in enumerate(betas):
        before = _baseline_walk(baseline, path, beta) if baseline else None
        t, c = time.perf_counter(), time.process_time()
        w = walk_balance(g, beta, method="slq", seed=0, backend="cpu")
        seconds, cpu_s = time.perf_counter() - t, time.process_time() - c
        ref = ref_s[b] - ref_u[b]
        row = dict(input="Epinions", figure=f"walk log score, beta {beta:g} (slq defaults)", value=round(seconds, 2),
                   unit="s", cpu_s=round(cpu_s, 2), probes_used=w.params["probes_used"],
                   steps_used=w.params["steps_used"], rtol=w.params["rtol"],
                   log_score=w.log_score, log_score_error=w.log_score_error, reference_log_score=ref,
                   reference_error=math.hypot(err_s[b], err_u[b]),
                   relative_difference=abs(w.log_score - ref) / abs(ref), target_relative=0.01, target_s=30.0,
                   reference=f"{runs} runs x 64 probes, 80 steps, 32 deflated, "
                             f"{ref_seconds:.0f} s for both betas")
        if before:
            row.update(before_s=round(before["seconds"], 2), before_cpu_s=round(before["cpu_s"], 2),
                       before_log_score=before["log_score"],
                       before="the baseline checkout's walk_balance with its defaults (64 probes, 40 steps, "
                              "16 deflated), in a subprocess just before")
        rep.add(**row)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="Slashdot triangles only, no walk score")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None, help="folder of the JSON (default bench-results/)")
    ap.add_argument("--reference-runs", type=int, default=REFERENCE_RUNS,
                    help=f"runs of 64 probes in the walk reference (default {REFERENCE_RUNS})")
    ap.add_argument("--only", choices=("triangles", "walk"), default=None, help="one part only")
    ap.add_argument("--baseline", default=None,
                    help="a checkout of an earlier version: its walk score is timed beside this one's")
    args = ap.parse_args()
    rep = Report("measures", description="signed triangle census and walk score; the machine may be "
                 "shared: read the ratios to the peers measured in the same run")
    if args.only != "walk":
        bench_triangles(rep, args.repeats, ["Slashdot"] if args.quick else [n for n, _ in INPUTS])
    if not args.quick and args.only != "triangles":
        bench_walk(rep, args.reference_runs, args.baseline)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
