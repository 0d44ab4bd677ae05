"""Moves the best-move VND makes per call in the multilevel clustering solver (CPU path).

The device work model (``bench_gpu_model.py``) prices one move of the
one-block best-move search (``clustering._gpu.k_vnd``) and one round of the
device-wide parallel search; which one a V-cycle level should run depends on
how many moves the level's search makes.  This counts them: every call of
``CPUState.vnd_best`` during ``correlation_clustering(method="multilevel")``,
with the level's size, the moves made and the seconds it took.

Run::

    python benchmarks/bench_vnd_moves.py ../shared/data/soc-sign-Slashdot090221.txt.gz --time-limit 30
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("graph", help="edge-list file")
    p.add_argument("--time-limit", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="JSON file to write (default: print)")
    args = p.parse_args(argv)

    import rapids_balance as rb
    from rapids_balance.clustering import _state

    calls = []
    vnd_best = _state.CPUState.vnd_best

    def counted(self, *a, **kw):
        t = time.perf_counter()
        moves, gain = vnd_best(self, *a, **kw)
        calls.append({"n": int(self.level.n), "moves": int(moves),
                      "seconds": round(time.perf_counter() - t, 4)})
        return moves, gain

    _state.CPUState.vnd_best = counted
    g = rb.read_edgelist(args.graph)
    t = time.perf_counter()
    r = rb.correlation_clustering(g, method="multilevel", time_limit=args.time_limit, seed=args.seed,
                                  backend="cpu", progress=False)
    report = {"graph": Path(args.graph).name, "vertices": int(g.n), "edges": int(g.m),
              "time_limit": args.time_limit, "seconds": round(time.perf_counter() - t, 2),
              "imbalance": float(r.imbalance), "vnd_calls": calls,
              "vnd_moves": sum(c["moves"] for c in calls)}
    text = json.dumps(report, indent=1)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
