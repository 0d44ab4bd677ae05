"""Quality against time: frustration and clustering at time limits of 1 to 60 s.

Rows, per input (Slashdot, Epinions), per search (``frustration`` refined
index, ``correlation_clustering`` imbalance) and per condition (both cores
free, or one core taken by a competing CPU-bound process started by this
script): the value reached at each ``time_limit``, beside the same search's
value at the longest limit of the same run (``ratio`` = that / this: 1.00 is
as good as the longest limit).  Each row also has ``seconds_search`` (the
result's own timing: the limit counts once the kernels are ready) and
``seconds_compile``.  The figure (``docs/images/anytime.png``) draws each
curve as per cent above the best value of its search in the run.

A time-limited result depends on how much work fits in the limit, hence on
the machine and its load: the same seed gives the same result for the same
work, not for the same seconds.  The machine may be shared with other jobs:
the load average is recorded with each row.

``--first-call`` adds the first-call rows: ``frustration(time_limit=10)``
and ``correlation_clustering(time_limit=10)`` on Slashdot in a child process
with an empty ``NUMBA_CACHE_DIR`` (cold), then again in a new child with
that cache (warm): values, compile and search seconds, wall time.

Run: ``python benchmarks/bench_anytime.py [--limits 1,2,5,10,20,60] [--first-call]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import REPO, SHARED_DATA, Report

import rapids_balance as rb

INPUTS = [("Slashdot", "soc-sign-Slashdot090221.txt.gz"), ("Epinions", "soc-sign-epinions.txt.gz")]
CONDITIONS = ("free", "one core taken")
IMAGE = REPO / "docs" / "images" / "anytime.png"

_FIRST_CALL = """
import json, sys, time
t0 = time.perf_counter()
import rapids_balance as rb
g = rb.read_edgelist(sys.argv[1])
t1 = time.perf_counter()
if sys.argv[2] == "frustration":
    res = rb.frustration(g, time_limit=10.0, progress=False)
    value, info = res.index, res.info
else:
    res = rb.correlation_clustering(g, time_limit=10.0, progress=False)
    value, info = res.imbalance, res.info
print(json.dumps({"value": value, "seconds_compile": info["seconds_compile"],
                  "seconds_search": info["seconds_search"], "seconds_call": time.perf_counter() - t1}))
"""


def _search(kind: str, g, limit: float) -> tuple[float, dict]:
    if kind == "frustration":
        res = rb.frustration(g, time_limit=limit, seed=0, progress=False)
        return res.index, res.info
    res = rb.correlation_clustering(g, time_limit=limit, seed=0, progress=False)
    return res.imbalance, res.info


def _competitor() -> subprocess.Popen:
    """A CPU-bound process on one core (pure Python: one thread)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def curves(rep: Report, limits: list[float]) -> list[dict]:
    rows = []
    for name, fname in INPUTS:
        g = rb.read_edgelist(SHARED_DATA / fname)
        for kind in ("frustration", "clustering"):
            _search(kind, g, 0.5)  # makes the kernels ready (not counted in any row)
        for cond in CONDITIONS:
            other = _competitor() if cond != "free" else None
            try:
                for kind in ("frustration", "clustering"):
                    found = [(limit, *_search(kind, g, limit)) for limit in limits]
                    ref = found[-1][1]
                    for limit, value, info in found:
                        rows.append(rep.add(
                            input=name, figure=f"{kind}, time_limit={limit:g} s, {cond}",
                            value=value, unit="edges" if kind == "frustration" else "imbalance",
                            peer=f"same, time_limit={limits[-1]:g} s", peer_value=ref,
                            search=kind, condition=cond, time_limit=limit,
                            seconds_search=round(info["seconds_search"], 3),
                            seconds_compile=round(info["seconds_compile"], 3)))
            finally:
                if other is not None:
                    other.kill()
                    other.wait()
    return rows


def picture(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n, _ in INPUTS]
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        for kind, color in (("frustration", "C0"), ("clustering", "C1")):
            mine = [r for r in rows if r["input"] == name and r["search"] == kind]
            if not mine:
                continue
            best = min(r["value"] for r in mine)
            for cond, style in zip(CONDITIONS, ("-", "--")):
                pts = sorted((r["time_limit"], 100.0 * (r["value"] / best - 1.0))
                             for r in mine if r["condition"] == cond)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", color=color,
                        label=f"{kind}, {cond}")
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=1.0)  # linear within 1 %, then logarithmic
        ax.set_ylim(bottom=0.0)
        ax.set_xlabel("time_limit (s)")
        ax.set_ylabel("% above the best value of its search in the run")
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Quality against time (2-core CPU, shared machine)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"written: {path}")


def first_call(rep: Report) -> None:
    path = str(SHARED_DATA / "soc-sign-Slashdot090221.txt.gz")
    for kind in ("clustering", "frustration"):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            runs = {}
            for state in ("cold", "warm"):
                t0 = time.perf_counter()
                out = subprocess.run([sys.executable, "-c", _FIRST_CALL, path, kind], cwd=REPO,
                                     env=env, capture_output=True, text=True, check=True)
                runs[state] = dict(json.loads(out.stdout.strip().splitlines()[-1]),
                                   wall=time.perf_counter() - t0)
            for state in ("cold", "warm"):
                r = runs[state]
                rep.add(input="Slashdot", figure=f"{kind}(time_limit=10), first call, {state} cache",
                        value=r["value"], unit="edges" if kind == "frustration" else "imbalance",
                        peer="same, warm cache (new process)", peer_value=runs["warm"]["value"],
                        seconds_compile=round(r["seconds_compile"], 2),
                        seconds_search=round(r["seconds_search"], 2),
                        seconds_call=round(r["seconds_call"], 2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limits", default="1,2,5,10,20,60", help="comma-separated seconds")
    ap.add_argument("--first-call", action="store_true", help="add the cold/warm first-call rows")
    ap.add_argument("--no-curves", action="store_true", help="first-call rows only")
    ap.add_argument("--out", default=None, help="directory of the JSON (default bench-results/)")
    ap.add_argument("--replot", default=None, metavar="JSON",
                    help="only redraw the figure from the rows of an earlier run")
    args = ap.parse_args()
    if args.replot:
        rows = [r for r in json.loads(Path(args.replot).read_text())["rows"] if "search" in r]
        picture(rows, IMAGE)
        return
    limits = [float(v) for v in args.limits.split(",")]
    rep = Report("anytime", description=__doc__.splitlines()[0],
                 params={"limits": limits, "first_call": args.first_call})
    if args.first_call:
        first_call(rep)
    if not args.no_curves:
        rows = curves(rep, limits)
        picture(rows, IMAGE)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
