"""Deep graphs: balancing a path, a 2-D grid and a road-like graph beside a power-law graph.

A BFS tree of a path or a mesh has thousands of levels where a power-law
graph's has ten or twenty.  The CPU builds the trees of a shallow graph
level-synchronously, 64 at once; a deep graph (numbered in BFS order) gets
one queue BFS per tree, the trees of a block spread over the threads, so
its work is O(n + m) per tree whatever the depth.
For each deep input, ``balance(g, n_trees=T)`` (tree build, balanced
states, majority, counters, attributes; compilation excluded by a warm-up
call on a small graph) is timed beside a seeded power-law signed graph
(:func:`rapids_balance.powerlaw_signed_graph`) with the same number of
edges, measured in the same run; ``deep_over_powerlaw`` in the JSON is deep / power-law time
(the target: at most 3, and at most 5 s for a path of 10^6 vertices and a
1000 x 1000 grid at 64 trees; the table's ratio column is its inverse).
Each figure is given as wall time and as the process's CPU time (all
threads), which a busy machine inflates less.

Inputs (all signed with a seeded 20 % of negative edges, vertices
numbered in a shuffled order so that ids say nothing about the geometry):

* ``path``: ``n`` vertices in a chain (depth up to n - 1);
* ``grid``: ``k x k`` 4-neighbour mesh (depth up to 2k);
* ``road``: a ``k x k`` mesh with 8 % of its edges removed, a few
  diagonals added and the largest component kept: irregular degrees 1 to 5,
  long detours, as in a road network.

On a shared machine the timings include whatever else runs: each row
carries the load average, and only the ratio to the peer measured in the
same run is meaningful.

Run: ``python benchmarks/bench_deep.py [--trees 64] [--path 1000000] [--grid 1000] [--quick]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _harness import Report

from rapids_balance.balancing import balance
from rapids_balance.generators import powerlaw_signed_graph
from rapids_balance.graph import build_graph


def _signed(src, dst, rng, n):
    """A signed graph from (src, dst), vertices relabelled by a random permutation."""
    perm = rng.permutation(n)
    sign = np.where(rng.random(src.size) < 0.2, -1, 1).astype(np.int8)
    return build_graph(perm[src], perm[dst], sign=sign, component="largest")


def path_graph(n: int, seed: int = 0):
    """A chain of ``n`` vertices."""
    rng = np.random.default_rng(seed)
    v = np.arange(n - 1)
    return _signed(v, v + 1, rng, n)


def grid_graph(k: int, seed: int = 0):
    """A ``k x k`` 4-neighbour mesh."""
    rng = np.random.default_rng(seed)
    ids = np.arange(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    return _signed(src, dst, rng, k * k)


def road_graph(k: int, seed: int = 0):
    """A ``k x k`` mesh, 8 % of its edges removed, 3 % of its cells given a diagonal."""
    rng = np.random.default_rng(seed)
    ids = np.arange(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    keep = rng.random(src.size) >= 0.08
    diag = rng.random((k - 1) * (k - 1)) < 0.03
    src = np.r_[src[keep], ids[:-1, :-1].ravel()[diag]]
    dst = np.r_[dst[keep], ids[1:, 1:].ravel()[diag]]
    return _signed(src, dst, rng, k * k)


def _best(g, trees: int, repeats: int) -> tuple[float, float]:
    """Best wall seconds and best process CPU seconds (all threads) of ``repeats`` calls."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        balance(g, n_trees=trees, backend="cpu", progress=False)
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", type=int, default=64)
    ap.add_argument("--path", type=int, default=1_000_000, help="vertices of the path")
    ap.add_argument("--grid", type=int, default=1000, help="side of the grid and of the road mesh")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="a 20,000-vertex path and 150 x 150 meshes")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.quick:
        args.path, args.grid = 20_000, 150
    rep = Report("bench_deep", "balance() on deep graphs beside a power-law graph of the same size",
                 params=vars(args))
    balance(grid_graph(8), n_trees=70, backend="cpu", progress=False)  # compile both block paths
    balance(path_graph(300), n_trees=70, backend="cpu", progress=False)  # and the deep-graph pass
    balance(powerlaw_signed_graph(2000, seed=1), n_trees=70, backend="cpu", progress=False)
    for name, make, size in (("path", path_graph, args.path), ("grid", grid_graph, args.grid),
                             ("road", road_graph, args.grid)):
        g = make(size)
        peer = powerlaw_signed_graph(g.m, seed=1)
        t_deep, c_deep = _best(g, args.trees, args.repeats)
        t_peer, c_peer = _best(peer, args.trees, args.repeats)
        rep.add(input=f"{name} ({g.n:,} v, {g.m:,} e)",
                figure=f"balance, {args.trees} trees, wall s (shared machine)", value=t_deep, unit="s",
                peer=f"power-law ({peer.n:,} v, {peer.m:,} e)", peer_value=t_peer,
                deep_over_powerlaw=t_deep / t_peer)
        rep.add(input=f"{name} ({g.n:,} v, {g.m:,} e)",
                figure=f"balance, {args.trees} trees, CPU s of all threads (shared machine)",
                value=c_deep, unit="s", peer=f"power-law ({peer.n:,} v, {peer.m:,} e)",
                peer_value=c_peer, deep_over_powerlaw=c_deep / c_peer)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
