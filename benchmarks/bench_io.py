"""Loading speed: read_edgelist on Slashdot and Epinions, this tree against a baseline commit.

The baseline is the package at a git commit (default ``HEAD``), checked out
in a temporary ``git worktree`` (removed at the end) and imported in its own
process.  Rounds are interleaved (baseline, current, baseline, current, ...),
each round a fresh process that loads the file once to warm the caches and
then times one more load; the figure is the best round.  The issue's target:
the current code within 5 % of the baseline (``ratio`` = baseline / current
time: above 0.95 meets it).

Run: ``python benchmarks/bench_io.py [--rounds 5] [--baseline HEAD] [--files ...] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _harness import REPO, SHARED_DATA, Report

FILES = ("soc-sign-Slashdot090221.txt.gz", "soc-sign-epinions.txt.gz")
TARGET_SLOWDOWN = 0.05

# run in a fresh interpreter with the package root first on sys.path
_WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import rapids_balance
assert rapids_balance.__file__.startswith(sys.argv[1]), rapids_balance.__file__
from rapids_balance.io import read_edgelist
read_edgelist(sys.argv[2])                       # warm: imports, page cache, allocator
t = time.perf_counter()
g = read_edgelist(sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - t, "n": g.n, "m": g.m}))
"""


def _load_once(root: Path, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _WORKER, str(root), str(path)], check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


class Baseline:
    """A detached worktree of ``commit`` under the temp directory, removed on exit."""

    def __init__(self, commit: str):
        self.commit = commit
        self.path = Path(tempfile.mkdtemp(prefix="rb-before-")) / "tree"

    def __enter__(self) -> Path:
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(self.path), self.commit],
                       check=True, capture_output=True)
        return self.path

    def __exit__(self, *exc) -> None:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(self.path)],
                       check=False, capture_output=True)
        subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], check=False, capture_output=True)
        shutil.rmtree(self.path.parent, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", default="HEAD", help="git commit of the baseline (default HEAD)")
    ap.add_argument("--files", nargs="+", default=list(FILES))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    rep = Report("io", "read_edgelist load time, current tree vs a baseline commit (same run, "
                       "interleaved rounds, best of each)")
    rep.params = {"rounds": args.rounds, "baseline": args.baseline, "files": args.files}
    with Baseline(args.baseline) as before:
        for fname in args.files:
            path = SHARED_DATA / fname
            if not path.exists():
                print(f"skipped {fname}: not in {SHARED_DATA}")
                continue
            times = {"baseline": [], "current": []}
            sizes = {}
            for _ in range(args.rounds):
                for side, root in (("baseline", before), ("current", REPO)):
                    r = _load_once(root, path)
                    times[side].append(r["seconds"])
                    sizes[side] = (r["n"], r["m"])
            assert sizes["baseline"] == sizes["current"], sizes
            best_b, best_c = min(times["baseline"]), min(times["current"])
            rep.add(input=fname, figure="read_edgelist best", value=best_c, unit="s",
                    peer=f"baseline {args.baseline}", peer_value=best_b, n=sizes["current"][0],
                    m=sizes["current"][1], rounds=times, slowdown=best_c / best_b - 1.0,
                    meets_target=best_c <= best_b * (1 + TARGET_SLOWDOWN))
    rep.finish(args.out)


if __name__ == "__main__":
    main()
