"""networkx alone vs networkx dispatching to rapids-balance vs rapids-balance directly.

Input: a seeded Barabasi-Albert graph (20,000 vertices, 5 edges per new
vertex, ~100,000 edges) with integer lengths 1..10 drawn with a seeded
generator; weighted node betweenness from ``--k`` sources (default 500).

* networkx: ``nx.betweenness_centrality(G, k=500, seed=42, weight="weight")``;
* dispatch: the same call with ``backend="rapids_balance"`` (networkx draws
  the sources from the seed; the backend draws the same ones; the conversion
  from the networkx graph is part of every call);
* direct: ``rapids_balance.betweenness_centrality(G, k=<those sources>,
  weight="weight")`` on the same networkx graph (conversion included);
* direct on a built graph: the same call on ``from_networkx(G)`` built once
  (the sampled-betweenness rows of ``bench_betweenness.py`` time this), and
  the conversion alone: together they account for the direct call.

All three run in the same process on the same graph and the same sources;
dispatch and direct are timed ``--repeat`` times, interleaved, after one
warm-up call (JIT compilation excluded); the median is reported.  networkx
runs once (minutes).  The values of the dispatch are compared with
networkx's (max relative difference).  A last row gives the direct call's
roofline (``benchmarks/_harness.py``): relaxations (k x 2m, each source's
Dijkstra relaxes every adjacency entry once) per second, as a share of the
machine's copy and gather rates over arrays of the graph's size.

Run: ``python benchmarks/bench_nx_backend.py [--k 500] [--repeat 5] [--skip-networkx]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from _harness import Report, machine_rates, roofline

import networkx as nx

import rapids_balance as rb
from rapids_balance.io import from_networkx

BACKEND = "rapids_balance"


def ba_graph(n: int, m: int, seed: int) -> nx.Graph:
    G = nx.barabasi_albert_graph(n, m, seed=seed)
    rng = np.random.default_rng(seed + 1)
    for (u, v), w in zip(G.edges(), rng.integers(1, 11, G.number_of_edges()).tolist()):
        G[u][v]["weight"] = w
    return G


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--k", type=int, default=500)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-networkx", action="store_true")
    ap.add_argument("--out", default=None, help="JSON folder (default: the harness's)")
    args = ap.parse_args()

    G = ba_graph(args.n, 5, seed=1)
    label = f"BA n={args.n:,} m={G.number_of_edges():,} lengths 1..10, k={args.k}"
    nx.config.backends[BACKEND].device = "cpu"
    sources = random.Random(args.seed).sample(list(G), args.k)  # networkx's draw for this seed

    def dispatch():
        return nx.betweenness_centrality(G, k=args.k, seed=args.seed, weight="weight", backend=BACKEND)

    def direct():
        return rb.betweenness_centrality(G, k=sources, weight="weight", backend="cpu", progress=False)

    def convert():
        return from_networkx(G, sign=None, weight="weight")

    built = convert()

    def prebuilt():
        return rb.betweenness_centrality(built, k=sources, weight="weight", backend="cpu", progress=False)

    dispatch(), direct(), prebuilt()  # compile the kernels once
    t_dispatch, t_direct, t_built, t_convert = [], [], [], []
    for _ in range(args.repeat):
        for fn, times in ((dispatch, t_dispatch), (direct, t_direct), (prebuilt, t_built),
                          (convert, t_convert)):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
    got = dispatch()
    d_med, r_med = statistics.median(t_dispatch), statistics.median(t_direct)
    b_med, c_med = statistics.median(t_built), statistics.median(t_convert)

    report = Report("nx_backend", description=__doc__.splitlines()[0],
                    params={"n": args.n, "edges": G.number_of_edges(), "k": args.k, "seed": args.seed,
                            "repeat": args.repeat, "device": "cpu",
                            "dispatch_times_s": t_dispatch, "direct_times_s": t_direct,
                            "built_times_s": t_built, "convert_times_s": t_convert,
                            "load_avg": os.getloadavg()})
    report.add(input=label, figure="networkx -> rapids_balance (dispatch)", value=d_med, unit="s",
               peer="rapids_balance direct", peer_value=r_med,
               overhead_pct=100 * (d_med / r_med - 1))
    report.add(input=label, figure="rapids_balance direct on a built graph", value=b_med, unit="s",
               peer="rapids_balance direct (networkx graph in)", peer_value=r_med)
    report.add(input=label, figure="conversion from the networkx graph alone", value=c_med, unit="s",
               peer="rapids_balance direct (networkx graph in)", peer_value=r_med)
    # roofline of the direct call: each source's Dijkstra relaxes every adjacency entry once
    entries = 2 * G.number_of_edges()
    report.add(input=label, figure="rapids_balance direct", value=r_med, unit="s",
               **roofline(args.k * entries, r_med, "relaxations (k x 2m)",
                          machine_rates(entries, G.number_of_nodes())))
    if not args.skip_networkx:
        t0 = time.perf_counter()
        ref = nx.betweenness_centrality(G, k=args.k, seed=args.seed, weight="weight")
        t_nx = time.perf_counter() - t0
        keys = list(ref)
        a = np.array([got[v] for v in keys])
        b = np.array([ref[v] for v in keys])
        big = np.abs(b) > 1e-9 * np.abs(b).max()
        rel = float(np.max(np.abs(a[big] - b[big]) / np.abs(b[big])))
        report.add(input=label, figure="networkx -> rapids_balance (dispatch)", value=d_med, unit="s",
                   peer="networkx alone", peer_value=t_nx, max_rel_diff=rel,
                   same_keys=list(got) == keys)
    report.finish(args.out)
    del out


if __name__ == "__main__":
    main()
