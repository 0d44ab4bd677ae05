"""Time limits at scale: wall time over limit and quality, this code beside a previous one.

Rows, per search (``frustration``, ``correlation_clustering``,
``frustration_lower_bound`` around the planted bipartition, and around the
state of one BFS tree, whose frustrated edges are three times as many and
mostly at hubs) and per
``time_limit`` (10, 30, 60 s by default) on a seeded planted power-law graph
of 10^7 edges (k = 2 for frustration and the bound, k = 5 for clustering):
``value`` is the whole call's wall time divided by its limit (the target:
at most 1.05), ``peer_value`` the same for the code at ``--prev`` (a
checkout of an earlier commit, imported through ``PYTHONPATH``), both
measured in the same run, one after the other, each call in a fresh process
after a warm-up on a small graph (so compilation is not in the figures).
Each row also has both codes' ``quality`` (frustration index, imbalance or
bound), ``seconds_search`` (the result's own timing) and the planted cost.

The machine may be shared with other jobs: the load average is recorded
with each row, and only the ratios of rows measured in the same run compare.
``--compete`` runs every row with one core taken by a competing CPU-bound
process started by this script (as ``bench_anytime.py`` does; the rows say
so in ``condition``).

Run: ``python benchmarks/bench_limits.py --prev PATH [--edges 1e7] [--limits 10,30,60]
[--only frustration|clustering|bound|bound-tree] [--compete]``
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import REPO, Report, load_average

KINDS = ("frustration", "clustering", "bound", "bound-tree")
CALLS = {"frustration": "frustration(g, time_limit={})",
         "clustering": "correlation_clustering(g, time_limit={})",
         "bound": "frustration_lower_bound(g, planted state, time_limit={})",
         "bound-tree": "frustration_lower_bound(g, one BFS tree's state, time_limit={})"}


def _warm_up(kind: str) -> None:
    import numpy as np

    import rapids_balance as rb
    from rapids_balance.generators import planted_partition_graph

    g = planted_partition_graph(20_000, n_groups=5 if kind == "clustering" else 2,
                                exponent=2.5, seed=0).graph
    if kind == "frustration":
        rb.frustration(g, 8, progress=False, time_limit=2)
    elif kind == "clustering":
        rb.correlation_clustering(g, progress=False, time_limit=2)
    else:
        rb.frustration_lower_bound(g, np.zeros(g.n, np.int8), time_limit=1)


def run_row(kind: str, path: str, limit: float) -> dict:
    """One call in this process: wall time, the result's timings and its quality."""
    import rapids_balance as rb

    _warm_up("bound" if kind == "bound-tree" else kind)
    with open(path, "rb") as fh:
        graph, state = pickle.load(fh)
    if kind == "bound-tree":  # made before the clock, the same in both codes
        state = rb.frustration(graph, 1, refine=False, progress=False).best_state
    start = time.perf_counter()
    if kind == "frustration":
        res = rb.frustration(graph, progress=False, time_limit=limit)
        quality = int(res.index)
    elif kind == "clustering":
        res = rb.correlation_clustering(graph, progress=False, time_limit=limit)
        quality = float(res.imbalance)
    else:
        res = rb.frustration_lower_bound(graph, state, time_limit=limit)
        quality = int(res.bound)
    seconds = time.perf_counter() - start
    return {"seconds": round(seconds, 2), "quality": quality,
            "seconds_search": round(res.info.get("seconds_search", float("nan")), 2),
            "seconds_compile": round(res.info.get("seconds_compile", float("nan")), 2),
            "trees": res.info.get("trees"), "start": res.info.get("start"),
            "module": rb.__file__}


def _graph_file(tmp: Path, k: int, m: int) -> tuple[str, int, int, int]:
    """Generate and pickle the planted graph with its planted bipartition (k = 2)."""
    import numpy as np
    import pandas as pd

    from rapids_balance.generators import planted_partition_graph

    start = time.perf_counter()
    pp = planted_partition_graph(m, n_groups=k, flip=0.03, exponent=2.5, seed=1)
    print(f"generated the planted k={k} graph of {pp.graph.m:,} edges in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    state = None
    if k == 2:
        state = pd.DataFrame({"vertex": pp.partition["vertex"].to_numpy(),
                              "side": pp.partition["group"].to_numpy().astype(np.int8)})
    path = tmp / f"planted-k{k}.pkl"
    with open(path, "wb") as fh:
        pickle.dump((pp.graph, state), fh, protocol=pickle.HIGHEST_PROTOCOL)
    return str(path), pp.graph.n, pp.graph.m, int(pp.disagreements)


def _child(kind: str, path: str, limit: float, code: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, os.path.abspath(__file__), "--row", kind, "--graph", path, "--limit", str(limit),
           "--code", str(code)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=code, env=env)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout)[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _competitor() -> subprocess.Popen:
    """A CPU-bound process on one core (pure Python: one thread)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prev", help="checkout of the previous code (its repository root)")
    ap.add_argument("--edges", type=float, default=1e7)
    ap.add_argument("--limits", default="10,30,60")
    ap.add_argument("--only", choices=KINDS)
    ap.add_argument("--out", default=None, help="JSON folder (default bench-results/)")
    ap.add_argument("--compete", action="store_true",
                    help="one core taken by a competing CPU-bound process during every call")
    ap.add_argument("--row", help=argparse.SUPPRESS)
    ap.add_argument("--graph", help=argparse.SUPPRESS)
    ap.add_argument("--limit", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--code", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.row:  # a child process: one call, one JSON line
        # the checkout asked for, ahead of this one (which _harness put first on the path)
        sys.path.insert(0, args.code or str(REPO))
        print(json.dumps(run_row(args.row, args.graph, args.limit), default=str))
        return
    if not args.prev:
        ap.error("--prev is required (a checkout of the code to compare with)")
    limits = [float(x) for x in args.limits.split(",")]
    kinds = [k for k in KINDS if args.only in (None, k)]
    prev = Path(args.prev).resolve()
    prev_rev = subprocess.run(["git", "-C", str(prev), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    rep = Report("limits", description=__doc__.split("\n\n")[0],
                 params={"edges": args.edges, "limits": limits, "prev": prev_rev,
                         "load_avg_at_start": load_average(), "compete": args.compete})
    condition = "one core taken" if args.compete else "no competitor of ours"
    with tempfile.TemporaryDirectory() as tmp:
        graphs = {}
        for kind in kinds:
            k = 5 if kind == "clustering" else 2
            if k not in graphs:
                graphs[k] = _graph_file(Path(tmp), k, int(args.edges))
            path, n, m, planted = graphs[k]
            for limit in limits:
                other = _competitor() if args.compete else None
                try:
                    ours = _child(kind, path, limit, REPO)
                    theirs = _child(kind, path, limit, prev)
                finally:
                    if other is not None:
                        other.kill()
                        other.wait()
                name = f"planted k={k}, {n:,} v, {m:,} e"
                call = CALLS[kind].format(f"{limit:g}")
                if "error" in ours or "error" in theirs:
                    rep.add(input=name, figure=call, value=None,
                            error=ours.get("error") or theirs.get("error"))
                    continue
                if Path(theirs["module"]).resolve().parents[1] != prev:
                    raise RuntimeError(f"the previous code's row imported {theirs['module']}")
                rep.add(input=name, figure=call, value=round(ours["seconds"] / limit, 3),
                        unit="wall/limit", peer=f"previous code ({prev_rev})", condition=condition,
                        peer_value=round(theirs["seconds"] / limit, 3),
                        quality=ours["quality"], peer_quality=theirs["quality"],
                        quality_unit={"frustration": "frustrated edges (lower is better)",
                                      "clustering": "imbalance I(P) (lower is better)",
                                      "bound": "cycles packed (higher is better)",
                                      "bound-tree": "cycles packed (higher is better)"}[kind],
                        planted_cost=planted, seconds=ours["seconds"],
                        peer_seconds=theirs["seconds"], seconds_search=ours["seconds_search"],
                        peer_seconds_search=theirs["seconds_search"],
                        module=ours["module"], peer_module=theirs["module"],
                        **({"trees": ours["trees"], "peer_trees": theirs["trees"],
                            "start": ours["start"]} if kind == "frustration" else {}))
    rep.finish(args.out)


if __name__ == "__main__":
    main()
