"""Generators: time and memory per edge, and planted partitions as a reference for the solvers.

Figures:

* ``powerlaw_signed_graph`` edge arrays (``src``, ``dst``, ``sign``) at 1M and
  50M edges (``--sizes``): wall seconds and peak memory per edge beyond the
  output arrays, each size in a fresh process (peak resident memory from
  ``/proc/self/status`` after a reset, so numba's own allocations count).
  Targets (issue): 1M edges <= 2 s; 50M <= 60 s and <= 40 bytes per edge
  beyond the output.  The full ``SignedGraph`` (CSR built by
  :class:`rapids_balance.graph.Graph`) is measured the same way.
* Peers measured in the same run, same edge count: a plain numpy Chung-Lu
  generator (draw both ends by inverse CDF, ``np.unique``, then
  :func:`rapids_balance.graph.build_graph`; the one the benchmarks used
  before this module), and networkx's ``expected_degree_graph`` (Miller-
  Hagberg, pure Python) with the same expected degrees at 1M edges only.
* Planted partitions (two groups; 10^5 and 10^6 edges; flip p <= 0.1):
  :func:`rapids_balance.frustration` and
  :func:`rapids_balance.correlation_clustering` against the planted value,
  an upper bound on the optimum (``ratio`` = found / planted: at most 1 is
  the target).

On a shared machine the timings include whatever else runs (the load
average is printed with each row).

Run: ``python benchmarks/bench_generators.py [--sizes 1000000 50000000] [--skip-peers]
[--skip-planted] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from _harness import Report, reset_peak_rss, rss_bytes

TARGET_S = {1_000_000: 2.0, 50_000_000: 60.0}
TARGET_BYTES_PER_EDGE = 40.0


# ---------------------------------------------------------------------------
# one measurement in a fresh process
# ---------------------------------------------------------------------------

def _graph_bytes(g) -> int:
    names = ("edge_src", "edge_dst", "sign", "weight", "labels", "indptr", "indices", "slot_edge",
             "edge_slots", "zero_sign")
    return sum(getattr(g, k).nbytes for k in names if getattr(g, k, None) is not None)


def _job(what: str, m: int):
    """A callable producing the output and a function measuring its bytes."""
    from rapids_balance.generators import _generate as G

    if what == "edges":
        def run():
            p = G._check_common("bench", m, 8.0, 2.5, 1, "largest", False, None, (1, 10))
            return G._generate("powerlaw", p, group=None, flip=0.2)
        return run, lambda e: e.src.nbytes + e.dst.nbytes + e.sign.nbytes + e.labels.nbytes
    if what == "graph":
        return (lambda: G.powerlaw_signed_graph(m, seed=1)), _graph_bytes
    if what == "numpy":
        return (lambda: numpy_chung_lu(m, seed=1)), _graph_bytes
    if what == "networkx":
        return (lambda: networkx_chung_lu(m, seed=1)), lambda G_: 0
    raise ValueError(what)


def child(what: str, m: int) -> None:
    run, nbytes = _job(what, m)
    if what != "networkx":
        _job(what, 2000)[0]()  # compile / warm caches
    base = rss_bytes() // 1024
    reset_peak_rss()
    t0 = time.perf_counter()
    out = run()
    seconds = time.perf_counter() - t0
    peak = rss_bytes(peak=True) // 1024
    edges = out.m if hasattr(out, "m") else (out.src.size if hasattr(out, "src") else out.number_of_edges())
    print(json.dumps({"seconds": seconds, "peak_kib": peak, "base_kib": base,
                      "output_bytes": int(nbytes(out)), "edges": int(edges)}))


def measure(what: str, m: int, timeout: float) -> dict | None:
    cmd = [sys.executable, __file__, "--child", what, str(m)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        print(f"  {what} {m:,}: no result within {timeout:.0f} s", flush=True)
        return None
    except subprocess.CalledProcessError as exc:
        print(f"  {what} {m:,}: failed: {exc.stderr.strip().splitlines()[-1:]}", flush=True)
        return None
    r = json.loads(done.stdout.strip().splitlines()[-1])
    beyond = max(0, (r["peak_kib"] - r["base_kib"]) * 1024 - r["output_bytes"])
    r["bytes_per_edge_beyond_output"] = beyond / max(r["edges"], 1)
    return r


# ---------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------

def numpy_chung_lu(n_edges: int, *, mean_degree: float = 8.0, gamma: float = 2.5, p_negative: float = 0.2,
                   seed: int = 0):
    """Plain numpy Chung-Lu: both ends by inverse CDF, duplicates removed, build_graph."""
    from rapids_balance.graph import build_graph

    rng = np.random.default_rng(seed)
    n = max(16, int(2 * n_edges / mean_degree))
    w = (np.arange(n, dtype=np.float64) + 1.0) ** (-1.0 / (gamma - 1.0))
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    keys = np.empty(0, np.int64)
    while keys.size < n_edges:
        k = int((n_edges - keys.size) * 1.2) + 16
        a = np.searchsorted(cdf, rng.random(k)).astype(np.int64)
        b = np.searchsorted(cdf, rng.random(k)).astype(np.int64)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys = np.unique(np.concatenate([keys, (lo * n + hi)[lo != hi]]))
    keys = rng.permutation(keys)[:n_edges]
    sign = np.where(rng.random(keys.size) < p_negative, -1, 1).astype(np.int8)
    return build_graph(keys // n, keys % n, sign=sign)


def networkx_chung_lu(n_edges: int, *, mean_degree: float = 8.0, gamma: float = 2.5, seed: int = 0):
    """networkx's expected_degree_graph (Miller-Hagberg) with our expected degrees."""
    import networkx as nx

    n = int(round(2 * n_edges / mean_degree))
    w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (gamma - 1.0))
    w *= 2.0 * n_edges / w.sum()
    return nx.expected_degree_graph(w.tolist(), seed=seed, selfloops=False)


# ---------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------

def size_rows(rep: Report, sizes: list[int], peers: bool) -> None:
    for m in sizes:
        big = m > 5_000_000
        ours = measure("edges", m, 1200)
        if ours is None:
            continue
        peer = measure("numpy", m, 1200) if peers else None
        rep.add(input=f"power-law {m:,} edges (gamma 2.5, mean degree 8)",
                figure="powerlaw_signed_graph edge arrays: seconds", value=round(ours["seconds"], 3),
                unit="s", peer=None if peer is None else "numpy Chung-Lu + build_graph",
                peer_value=None if peer is None else round(peer["seconds"], 3),
                published="issue target (<=)", published_value=TARGET_S.get(m),
                edges=ours["edges"])
        rep.add(input=f"power-law {m:,} edges", figure="edge arrays: peak bytes per edge beyond output",
                value=round(ours["bytes_per_edge_beyond_output"], 1), unit="B/edge",
                peer=None if peer is None else "numpy Chung-Lu + build_graph (beyond its graph)",
                peer_value=None if peer is None else round(peer["bytes_per_edge_beyond_output"], 1),
                published="issue target (<=)", published_value=TARGET_BYTES_PER_EDGE,
                output_bytes_per_edge=round(ours["output_bytes"] / ours["edges"], 1))
        graph = measure("graph", m, 1200)
        if graph is not None:
            rep.add(input=f"power-law {m:,} edges", figure="SignedGraph (arrays + CSR): seconds",
                    value=round(graph["seconds"], 3), unit="s",
                    bytes_per_edge_beyond_output=round(graph["bytes_per_edge_beyond_output"], 1),
                    output_bytes_per_edge=round(graph["output_bytes"] / graph["edges"], 1))
        if peers and not big:
            nxr = measure("networkx", m, 900)
            if nxr is not None:
                rep.add(input=f"power-law {m:,} edges", figure="edge arrays: seconds (vs networkx)",
                        value=round(ours["seconds"], 3), unit="s",
                        peer="networkx expected_degree_graph", peer_value=round(nxr["seconds"], 3),
                        peer_edges=nxr["edges"])


def planted_rows(rep: Report, sizes: list[int]) -> None:
    import rapids_balance as rb
    from rapids_balance.generators import planted_partition_graph

    for m, flip in [(s, f) for s in sizes for f in ((0.05, 0.1) if s <= 100_000 else (0.05,))]:
        pp = planted_partition_graph(m, n_groups=2, flip=flip, seed=1)
        g = pp.graph
        name = f"planted 2 groups, {g.m:,} edges, flip {flip}"
        t0 = time.perf_counter()
        fr = rb.frustration(g, 64, seed=1, progress=False)
        rep.add(input=name, figure="frustration index (64 BFS trees + refine) / planted",
                value=fr.index, unit="edges", lower_is_better=False,
                published="planted bipartition (upper bound)", published_value=pp.frustration_bound,
                tree_index=fr.tree_index, seconds=round(time.perf_counter() - t0, 2))
        for method in ("multilevel",) + (("ils",) if m <= 100_000 else ()):
            t0 = time.perf_counter()
            cc = rb.correlation_clustering(g, method=method, seed=1, progress=False,
                                           max_iterations=2 if method == "ils" else None)
            rep.add(input=name, figure=f"correlation_clustering {method} imbalance / planted",
                    value=cc.imbalance, unit="edges", lower_is_better=False,
                    published="planted partition (upper bound)", published_value=pp.imbalance,
                    clusters=cc.n_clusters, seconds=round(time.perf_counter() - t0, 2))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 50_000_000])
    ap.add_argument("--planted", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--skip-planted", action="store_true")
    ap.add_argument("--out", default=None, help="JSON folder (default bench-results/)")
    args = ap.parse_args()
    rep = Report("generators", description=__doc__.split("\n\n")[0],
                 params={"sizes": args.sizes, "planted": args.planted, "peers": not args.skip_peers})
    size_rows(rep, args.sizes, not args.skip_peers)
    if not args.skip_planted:
        planted_rows(rep, args.planted)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
