"""Frustration and correlation clustering at scale: time limits, defaults, peak memory.

Graphs are seeded planted-partition signed graphs with power-law degrees
(:func:`rapids_balance.generators.planted_partition_graph`): k groups,
positive inside, negative across, a share ``--flip`` of the signs flipped.
The planted partition's cost (its disagreeing edges) is an upper bound on
both optima, so each row reports the result against it (``vs_planted`` < 1:
better than the planted partition).

Rows (each run in its own Python process, so its peak memory is its own):

* ``read_edgelist`` of the k = 2 graph written as CSV (``src,dst,sign``, as
  ``rapids-balance generate`` writes it) at 10^6 (and 10^7) edges: seconds
  and peak bytes per edge (target at 10^7: <= 10 s, <= 100 bytes per edge
  above the process's baseline), with the parse / graph-build split;
* ``frustration(g, time_limit=60)`` on k = 2 graphs of 10^6 (and, with
  ``--large``, 10^7) edges: seconds, index, trees sampled, whether the limit
  stopped it, and peak resident memory per edge; with ``--large`` also
  ``frustration(g)`` untimed at 10^7 edges (its memory does not depend on
  how far a limit lets the search go);
* ``frustration(g)`` with its defaults on the 10^6-edge k = 2 graph
  (target: <= 60 s, at or below the planted cost);
* ``correlation_clustering(g, time_limit=30)`` on k = 5 graphs of 10^6 (and
  10^7) edges, and ``time_limit=10`` on 6 * 10^5 edges (target: at most the
  planted cost);
* ``balance(g, n_trees=64)`` (with its attribute tables) on the k = 2 graphs
  of 10^6 (and 10^7) edges: seconds and peak memory per edge, beside the
  call's own estimate (``memory_needed``, which sizes its batches).

Frustration rows carry a roofline (``benchmarks/_harness.py``): adjacency
entries of the sampled trees (trees x 2m) per second of the whole call, as a
share of the machine's copy and gather rates over arrays of the graph's
size, measured in the same run (the refinement's work is not counted, so
this is a lower bound).  Clustering rows carry one too: the adjacency
entries its kernels scanned (``ClusteringResult.work``: label propagation,
contraction, building the sums; the VND's moves not counted, a lower bound
again).  Load rows have none: parsing is not a graph kernel.

Peak memory is the process's ``VmHWM`` after the call (``ru_maxrss`` would
start at the parent's peak); the graph is
read from a pickle, so the peak is that of the graph plus the call (the
generator's own peak is not in it).  ``peak_bytes_per_edge`` divides the
whole process's peak by the edge count (the interpreter and numba's
compiled code, about 200 MB, included); ``call_bytes_per_edge`` only what
the call added to the peak (for loading: the peak above the resident size
just before the call, the high-water mark reset there).  Timings are of the
call alone, after a warm-up on a small graph (no compilation inside).

``--huge`` runs one seeded 10^8-edge k = 2 graph (generated in the parent,
its generation time printed) through loading, ``balance(g, n_trees=64)``,
``frustration(g, time_limit=300)``, ``correlation_clustering(g,
time_limit=300)`` and ``frustration_lower_bound`` (``time_limit=240``
around the state of a 60 s frustration search), each in a fresh process.

``--only load,balance`` runs only those rows (a comma-separated list);
``--file PATH`` reuses a k = 2 graph generated before (the CSV the loading
row reads; the pickle the other rows read and a ``.json`` of its size and
planted cost lie beside it, as ``--keep DIR`` writes them, owner-only);
only the rows of its size run, so the 10^8-edge rows can be run a few at
a time.
``--peer DIR`` runs the loading, balance and frustration rows also with
another checkout's code (its own ``benchmarks/bench_scale.py --row``), in
the same run on the same graph: ``peer_value`` (seconds; for frustration
its index, with ``peer_seconds``) and ``peer_peak_bytes_per_edge`` beside
ours.

Usage: python benchmarks/bench_scale.py [--large | --huge] [--only KIND[,KIND...]]
       [--file CSV | --keep DIR] [--peer DIR [--peer-name NAME]] [--flip F] [--exponent X] [--seed S] [--out DIR]
       (KIND: load, frustration, clustering, balance, bound)
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import REPO, Report, machine_rates, reset_peak_rss, roofline, rss_bytes

#: (function, groups k, edges, keyword arguments of the call)
ROWS = [
    ("load", 2, 10**6, {}),
    ("frustration", 2, 10**6, {"time_limit": 60}),
    ("frustration", 2, 10**6, {}),
    ("clustering", 5, 6 * 10**5, {"time_limit": 10}),
    ("clustering", 5, 10**6, {"time_limit": 30}),
    ("balance", 2, 10**6, {"n_trees": 64}),
]
LARGE_ROWS = [
    ("load", 2, 10**7, {}),
    ("frustration", 2, 10**7, {"time_limit": 60}),
    ("frustration", 2, 10**7, {}),  # no limit: the default search's memory on any machine
    ("clustering", 5, 10**7, {"time_limit": 30}),
    ("balance", 2, 10**7, {"n_trees": 64}),
]
#: --huge: one 10^8-edge k = 2 graph through every capability (the clustering's planted cost is
#: the k = 2 partition's; the bound's state comes from a 60 s frustration search in its process)
HUGE_ROWS = [
    ("load", 2, 10**8, {}),
    ("balance", 2, 10**8, {"n_trees": 64}),
    ("frustration", 2, 10**8, {"time_limit": 300}),
    ("clustering", 2, 10**8, {"time_limit": 300}),
    ("bound", 2, 10**8, {"time_limit": 240}),
]


def _maxrss_bytes() -> int:
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's peak (the generated graph)
    return rss_bytes(peak=True)


def _warm_up(kind: str) -> None:
    import rapids_balance as rb
    from rapids_balance.generators import planted_partition_graph

    g = planted_partition_graph(20_000, n_groups=2 if kind == "frustration" else 5,
                                exponent=2.5, seed=0).graph
    if kind == "load":
        with tempfile.TemporaryDirectory() as tmp:
            rb.read_edgelist(_write_csv(g, Path(tmp) / "warm.csv"))
    elif kind == "frustration":
        rb.frustration(g, 8, progress=False, time_limit=5)
    elif kind == "balance":
        rb.balance(g, n_trees=64, progress=False)
    elif kind == "bound":
        rb.frustration_lower_bound(g, rb.frustration(g, 8, progress=False, time_limit=5).best_state,
                                   time_limit=2)
    else:
        rb.correlation_clustering(g, progress=False, time_limit=2)


def run_row(kind: str, graph_path: str, kwargs: dict) -> dict:
    """One row, in this process: the call's result, time and peak memory."""
    import rapids_balance as rb

    _warm_up(kind)
    if kind == "load":
        return _load_row(graph_path)
    with open(graph_path, "rb") as fh:
        graph = pickle.load(fh)
    before = _maxrss_bytes()
    start = time.perf_counter()
    if kind == "frustration":
        res = rb.frustration(graph, progress=False, **kwargs)
        out = {"value": int(res.index), "trees": int(res.info["trees"]),
               "stopped": res.info.get("stopped"), "tree_index": res.tree_index,
               "refined_index": res.refined_index,
               "seconds_trees": round(res.info["seconds_cloud"], 2),
               "seconds_refine": round(res.info["seconds_refine"], 2),
               "refine": res.params.get("refine")}
    elif kind == "balance":
        out = _balance_row(graph, kwargs)
    elif kind == "bound":
        res = rb.frustration(graph, progress=False, time_limit=60)
        lb = rb.frustration_lower_bound(graph, res.best_state, **kwargs)
        out = {"value": int(lb.bound), "index": int(lb.index), "gap": int(lb.gap),
               "seconds_state": round(time.perf_counter() - start - lb.info["seconds_search"], 2),
               "seconds_bound": round(lb.info["seconds_search"], 2)}
    else:
        res = rb.correlation_clustering(graph, progress=False, **kwargs)
        out = {"value": float(res.imbalance), "method": res.method, "iterations": res.iterations,
               "clusters": int(res.n_clusters), "work": int(res.work)}
    seconds = time.perf_counter() - start
    peak = _maxrss_bytes()
    return {**out, "seconds": round(seconds, 2), "peak_bytes": peak,
            "peak_bytes_per_edge": round(peak / graph.m, 1),
            "call_bytes_per_edge": round(max(peak - before, 0) / graph.m, 1)}


def _balance_row(graph, kwargs: dict) -> dict:
    """``balance``: the estimate it sizes its batches by, beside the measured peak."""
    import rapids_balance as rb
    from rapids_balance.balancing import _engine

    chunks = []
    real = _engine.chunks_that_fit

    def spy(*args, **kw):
        chunks.append(real(*args, **kw))
        return chunks[-1]

    _engine.chunks_that_fit = spy
    try:
        res = rb.balance(graph, progress=False, **kwargs)
    finally:
        _engine.chunks_that_fit = real
    params = _engine.BalanceParams(**kwargs)
    need = _engine.memory_needed(graph, params, max(chunks), _engine.batch_size_for(graph, params))
    return {"value": None, "trees": int(res.n_trees), "chunks": max(chunks),
            "estimate_bytes_per_edge": round(need / graph.m, 1)}


def _write_csv(graph, path: Path) -> str:
    from rapids_balance.generators._cli import write_edges

    write_edges(graph.edges_frame(), str(path))
    return str(path)


def _load_row(csv_path: str) -> dict:
    """``read_edgelist`` of a CSV: time and peak memory, with the graph build timed apart."""
    import rapids_balance as rb
    from rapids_balance.io import _reader

    build = {}
    hook = "build_from_columns" if hasattr(_reader, "build_from_columns") else "build_graph"
    real_build = getattr(_reader, hook)

    def timed_build(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real_build(*args, **kwargs)
        finally:
            build["seconds"] = time.perf_counter() - start

    setattr(_reader, hook, timed_build)
    gc.collect()
    before = rss_bytes()
    reset_peak_rss()
    start = time.perf_counter()
    graph = rb.read_edgelist(csv_path)
    seconds = time.perf_counter() - start
    peak = rss_bytes(peak=True)
    setattr(_reader, hook, real_build)
    return {"value": round(seconds, 2), "seconds": round(seconds, 2),
            "build_graph_seconds": round(build["seconds"], 2),
            "parse_seconds": round(seconds - build["seconds"], 2), "peak_bytes": peak,
            "peak_bytes_per_edge": round(peak / graph.m, 1),
            "call_bytes_per_edge": round(max(peak - before, 0) / graph.m, 1),
            "file_bytes_per_edge": round(Path(csv_path).stat().st_size / graph.m, 1)}


def _given_graph(csv_path: str) -> tuple[str, int, int, int]:
    """A graph written before by ``--keep``: (pickle path, n, m, planted cost)."""
    path = Path(csv_path).with_suffix(".pkl")
    with open(path.with_suffix(".json")) as fh:
        meta = json.load(fh)
    return str(path), meta["n"], meta["m"], meta["planted"]


def _graph_file(tmp: Path, k: int, m: int, args) -> tuple[str, int, int, int]:
    """Generate (once) and pickle the planted graph; (path, n, m, planted cost)."""
    from rapids_balance.generators import planted_partition_graph

    path = tmp / f"planted-k{k}-m{m}.pkl"
    start = time.perf_counter()
    pp = planted_partition_graph(m, n_groups=k, flip=args.flip, exponent=args.exponent,
                                 seed=args.seed)
    print(f"generated the planted k={k} graph of {pp.graph.m:,} edges in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    with open(path, "wb") as fh:
        pickle.dump(pp.graph, fh, protocol=pickle.HIGHEST_PROTOCOL)
    _write_csv(pp.graph, path.with_suffix(".csv"))
    meta = {"n": pp.graph.n, "m": pp.graph.m, "planted": int(pp.disagreements)}
    with open(path.with_suffix(".json"), "w") as fh:
        json.dump(meta, fh)
    return str(path), meta["n"], meta["m"], meta["planted"]


def _subprocess_row(kind: str, path: str, kwargs: dict, checkout: Path = REPO) -> dict:
    """One row in a fresh process, with the code of ``checkout`` (this one, or ``--peer``'s)."""
    script = checkout / "benchmarks" / Path(__file__).name
    cmd = [sys.executable, str(script), "--row", kind, "--graph", path, "--kwargs", json.dumps(kwargs)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=checkout)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout)[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in kinds if t not in ("load", "frustration", "clustering", "balance", "bound")]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown row kind(s) {bad}: use load, frustration, clustering, "
                                         "balance, bound")
    return kinds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--large", action="store_true", help="also the 10^7-edge rows")
    ap.add_argument("--huge", action="store_true", help="only the 10^8-edge rows (about 25 minutes, "
                    "up to about 20 GB)")
    ap.add_argument("--flip", type=float, default=0.03, help="share of flipped signs (0.03)")
    ap.add_argument("--exponent", type=float, default=2.5, help="degree exponent (2.5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="JSON folder (default bench-results/)")
    ap.add_argument("--only", type=_kinds, help="only these rows (comma-separated: load, frustration, "
                    "clustering, balance, bound)")
    ap.add_argument("--file", help="reuse this generated CSV (and the .pkl and .json beside it, as --keep "
                    "writes them) instead of generating the graph")
    ap.add_argument("--peer", help="another checkout (e.g. a git worktree of an earlier commit): its "
                    "loading and balance rows run in the same run, on the same graph, beside ours")
    ap.add_argument("--peer-name", default="the peer checkout", help="how rows name the --peer code")
    ap.add_argument("--keep", help="write the generated graph into this folder (owner-only) and keep it")
    ap.add_argument("--row", help=argparse.SUPPRESS)
    ap.add_argument("--graph", help=argparse.SUPPRESS)
    ap.add_argument("--kwargs", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.row:  # a child process: one row, one JSON line
        print(json.dumps(run_row(args.row, args.graph, json.loads(args.kwargs)), default=str))
        return
    only = None if args.only is None else ",".join(args.only)
    rep = Report("scale" if only is None else f"scale-{only.replace(',', '-')}",
                 description=__doc__.split("\n\n")[0],
                 params={"flip": args.flip, "exponent": args.exponent, "seed": args.seed,
                         "large": args.large, "huge": args.huge, "only": only, "file": args.file,
                         "peer": args.peer_name if args.peer else None})
    rows = HUGE_ROWS if args.huge else ROWS + (LARGE_ROWS if args.large else [])
    rows = [r for r in rows if args.only is None or r[0] in args.only]
    if args.file:  # the rows of the file's graph: k = 2, its edge count within 1 % of theirs
        given_m = _given_graph(args.file)[2]
        rows = [r for r in rows if r[1] == 2 and abs(r[2] - given_m) <= 0.01 * r[2]]
        if not rows:
            ap.error(f"no selected row is for a k = 2 graph of about {given_m:,} edges (the --file graph)")
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            Path(args.keep).mkdir(mode=0o700, parents=True, exist_ok=True)
        graphs: dict[tuple[int, int], tuple[str, int, int, int]] = {}
        for kind, k, m, kwargs in rows:
            if (k, m) not in graphs:
                graphs[(k, m)] = (_given_graph(args.file) if args.file
                                  else _graph_file(Path(args.keep or tmp), k, m, args))
            path, n, m_real, planted = graphs[(k, m)]
            given = str(Path(path).with_suffix(".csv")) if kind == "load" else path
            if args.peer and kind in ("load", "balance", "frustration"):
                peer = _subprocess_row(kind, given, kwargs, Path(args.peer).resolve())
                peer_fields = {"peer": f"the same call, code of {args.peer_name}",
                               "peer_value": peer.get("seconds"),
                               "peer_peak_bytes_per_edge": peer.get("peak_bytes_per_edge"),
                               "peer_error": peer.get("error")}
                if kind == "frustration":  # the peer's index beside ours, its seconds apart
                    peer_fields.update(peer_value=peer.get("value"),
                                       peer_seconds=peer.get("seconds"))
            else:
                peer_fields = {}
            r = _subprocess_row(kind, given, kwargs)
            call = ({"frustration": "frustration(g", "clustering": "correlation_clustering(g",
                     "load": "read_edgelist(csv", "balance": "balance(g",
                     "bound": "frustration_lower_bound(g, frustration(g, time_limit=60).best_state"}[kind]
                    + "".join(f", {a}={v}" for a, v in kwargs.items()) + ")")
            name = f"planted k={k}, {n:,} v, {m_real:,} e"
            if "error" in r:
                rep.add(input=name, figure=call, value=None, error=r["error"])
                continue
            if kind in ("load", "balance"):
                r.pop("value")
                rep.add(input=name, figure=call, value=r.pop("seconds"), unit="s", **peer_fields, **r)
                continue
            limit = kwargs.get("time_limit")
            value = r.pop("value")
            if kind == "frustration":  # the tree sampling's share of the machine's limits
                r.update(roofline(r["trees"] * 2 * m_real, r["seconds"],
                                  "adjacency entries (trees x 2m; refine not counted)",
                                  machine_rates(2 * m_real, n)))
            if kind == "clustering":  # the kernels' scans (VND moves not counted)
                r.update(roofline(r.pop("work"), r["seconds"],
                                  "adjacency entries scanned (VND moves not counted)",
                                  machine_rates(2 * m_real, n)))
            if kind == "bound":
                rep.add(input=name, figure=call, value=value, unit="edges", lower_is_better=False,
                        published="planted partition's cost", published_value=planted, **r)
                continue
            rep.add(input=name, figure=call, value=value, unit="edges" if kind == "frustration"
                    else "I(P)", published="planted partition's cost", published_value=planted,
                    vs_planted=round(value / planted, 4) if planted else None,
                    within_limit=None if limit is None else r["seconds"] <= 1.1 * limit,
                    **peer_fields, **r)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
