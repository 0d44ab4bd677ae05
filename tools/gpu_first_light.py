"""The steps of the GPU runbook's first light, each writing its evidence as soon as it exists.

``tools/gpu_session.sh first-light`` runs these one by one, each under its
own ``timeout -s INT``; every step appends one JSON line per result to its
file under ``--out`` and flushes it at once, so a step stopped at its limit
still leaves what it had finished.  Steps:

``probe``
    Environment (Python, numpy, numba, numba-cuda, CuPy, the GPU) and the
    package's GPU probe -> ``probe.json``.  Exits 3 unless a real,
    non-simulated GPU answered (``--allow-simulator`` accepts numba's
    simulator: the test suite's dry run).
``rapids``
    Where cuDF imports: a cuDF table with text ids, an undirected cuGraph
    graph whose edges come in both orders and a dask-cuDF frame, each read
    on the device and compared with the pandas graph of the same rows ->
    ``rapids.jsonl``; exits 1 when one differs.  Where cuDF does not import,
    one line says so and the step passes.
``equality``
    GPU against CPU, same seed, on one graph -> ``equality.jsonl``: balance
    (``--trees`` trees, each method, each majority rule), frustration
    (``--trees`` trees), betweenness (``--k`` sources, seeded lengths 1..10),
    VND clustering on ``--vnd-graph``, and last betweenness again with each
    source over 4 thread blocks (the kernels of graphs too large for a block
    per source; one source under the simulator).  Exits 1 when any pair differs.
``timings``
    First the kernels laid out to fill the device, on the first ``--graph``
    (GPU only, warm, each beside the layout it replaced in the same run):
    the BFS of ``--trees`` trees with one tree a block where the batch is
    small (``trees_per_block``), with 64 trees a block and with each tree
    over several blocks (``_gpu_split``, two launches a level); the Kruskal
    path signs of a frustration batch (64 trees) rooted a block a tree and a thread a tree; the
    balancing levels by one sort of the depths -> ``kernels`` rows.  Then
    ``balance`` with ``--trees`` trees on each ``--graph``, GPU and CPU in
    the same run (the GPU row first, warm: one small call compiles the
    kernels) -> ``timings.jsonl``.

Usage::

    python3 tools/gpu_first_light.py probe --out gpu-out
    python3 tools/gpu_first_light.py rapids --out gpu-out
    python3 tools/gpu_first_light.py equality --graph G.txt.gz --vnd-graph H.csv.gz --trees 64 --k 64 --out gpu-out
    python3 tools/gpu_first_light.py timings --graph A.txt.gz B.txt.gz --trees 1000 --out gpu-out

``--graph`` takes a file ``read_edgelist`` reads or ``example:NAME`` (a bundled graph).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

EXIT_NO_GPU = 3


def _emit(path: Path, row: dict) -> None:
    """Append one JSON line and flush it to disk now (a later kill loses nothing written)."""
    with path.open("a") as fh:
        fh.write(json.dumps(row, default=str) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    print(json.dumps(row, default=str), flush=True)


def _load(spec: str):
    import rapids_balance as rb

    if spec.startswith("example:"):
        return rb.load_example(spec.split(":", 1)[1])
    return rb.read_edgelist(spec)


def _version(module: str) -> str | None:
    try:
        mod = __import__(module)
    except Exception as exc:  # report, never stop: this is the environment report
        return f"not importable: {type(exc).__name__}: {exc}"
    return str(getattr(mod, "__version__", "?"))


def probe(args) -> int:
    """Environment and GPU probe; exit EXIT_NO_GPU unless a real GPU (or an allowed simulator) answered."""
    out = Path(args.out) / "probe.json"
    import rapids_balance as rb
    from rapids_balance.backend import gpu_status

    status = gpu_status()
    env = {"python": platform.python_version(), "machine": platform.machine(),
           "rapids_balance": str(Path(rb.__file__).parent),
           **{m: _version(m) for m in ("numpy", "numba", "numba_cuda", "cupy", "pandas", "scipy",
                                       "array_api_compat", "tqdm")},
           "NUMBA_ENABLE_CUDASIM": os.environ.get("NUMBA_ENABLE_CUDASIM", ""),
           "usable": status.usable, "simulated": status.simulated, "device": status.device,
           "reason": status.reason}
    if status.usable and not status.simulated:
        from numba import cuda

        dev = cuda.get_current_device()
        env.update(compute_capability=".".join(map(str, dev.compute_capability)),
                   multiprocessors=int(dev.MULTIPROCESSOR_COUNT))
    out.write_text(json.dumps(env, indent=1))
    print(json.dumps(env, indent=1), flush=True)
    if not status.usable:
        print(f"FIRST LIGHT STOPS: no usable GPU ({status.reason})", file=sys.stderr, flush=True)
        return EXIT_NO_GPU
    if status.simulated and not args.allow_simulator:
        print("FIRST LIGHT STOPS: the GPU kernels would run under numba's CUDA simulator "
              "(NUMBA_ENABLE_CUDASIM is set), not on a GPU", file=sys.stderr, flush=True)
        return EXIT_NO_GPU
    return 0


def _frames_equal(a, b) -> tuple[bool, float]:
    """Exact equality of integer columns, and the largest difference of float columns (1e-9 relative allowed)."""
    import pandas as pd

    if isinstance(a, pd.DataFrame):
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            return False, float("inf")
        ok, worst = True, 0.0
        for c in a.columns:
            x, y = a[c].to_numpy(), b[c].to_numpy()
            if x.dtype.kind == "f" or y.dtype.kind == "f":
                same, d = _floats_close(x, y)
                worst = max(worst, d)
                ok &= same
            else:
                ok &= bool(np.array_equal(x, y))
        return ok, worst
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype.kind == "f":
        return _floats_close(x, y)
    return bool(np.array_equal(x, y)), 0.0


def _floats_close(x, y) -> tuple[bool, float]:
    """(close to 1e-9 relative, largest difference): NaN where both have NaN counts as equal
    (the score of a lone sampled source is NaN by networkx's rescaling)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    same = bool(np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True))
    both = ~(np.isnan(x) & np.isnan(y))
    return same, float(np.max(np.abs(x[both] - y[both]), initial=0.0))


def _compare(name: str, run, fields, out: Path) -> bool:
    t0 = time.perf_counter()
    gpu = run("gpu")
    t_gpu = time.perf_counter() - t0
    t0 = time.perf_counter()
    cpu = run("cpu")
    t_cpu = time.perf_counter() - t0
    row = {"check": name, "gpu_s": round(t_gpu, 3), "cpu_s": round(t_cpu, 3), "fields": {}}
    ok = True
    for f in fields:
        same, worst = _frames_equal(getattr(cpu, f) if isinstance(f, str) else f(cpu),
                                    getattr(gpu, f) if isinstance(f, str) else f(gpu))
        row["fields"][f if isinstance(f, str) else f.__name__] = {"equal": same, "max_abs_diff": worst}
        ok &= same
    row["equal"] = ok
    _emit(out, row)
    return ok


@contextmanager
def _blocks_per_source(k: int):
    """GPU betweenness with each source over ``k`` thread blocks (``centrality._gpu_split``), as
    the library runs graphs too large for a block per source; the CPU path does not read it."""
    from rapids_balance.centrality import _gpu_fold

    chosen = _gpu_fold.blocks_per_source
    _gpu_fold.blocks_per_source = lambda *args, **kwargs: k
    try:
        yield
    finally:
        _gpu_fold.blocks_per_source = chosen


def equality(args) -> int:
    """GPU == CPU for the same seed, one JSON line per check; exit 1 when any differs."""
    import rapids_balance as rb
    from rapids_balance.balancing._engine import MAJORITIES, METHODS

    out = Path(args.out) / "equality.jsonl"
    g = _load(args.graph)
    _emit(out, {"graph": args.graph, "vertices": int(g.n), "edges": int(g.m)})

    def counters(r):
        return np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in r.counters.values()])

    ok = True
    for method in METHODS:
        for majority in MAJORITIES:
            ok &= _compare(f"balance method={method} majority={majority} trees={args.trees}",
                           lambda b: rb.balance(g, args.trees, method=method, majority=majority, seed=0,
                                                backend=b, progress=False),
                           ("vertices", "edges", counters), out)
    ok &= _compare(f"frustration trees={args.trees}",
                   lambda b: rb.frustration(g, args.trees, seed=0, refine=False, backend=b, progress=False),
                   ("tree_index", "index"), out)
    lengths = np.random.default_rng(0).integers(1, 11, g.m).astype(np.float64)
    ok &= _compare(f"betweenness k={args.k} weighted",
                   lambda b: rb.node_and_edge_betweenness(g, k=args.k, weight=lengths, seed=0, backend=b,
                                                          progress=False),
                   ("vertices", "edges"), out)
    h = _load(args.vnd_graph)
    ok &= _compare(f"vnd clustering on {args.vnd_graph}",
                   lambda b: rb.correlation_clustering(h, method="vnd", seed=0, backend=b, progress=False),
                   ("labels", "imbalance"), out)
    # last, so that a step stopped at its limit has the checks above
    from rapids_balance.backend import simulator_enabled

    k_split = 1 if simulator_enabled() else args.k  # the simulator runs a thread per thread
    with _blocks_per_source(4):
        ok &= _compare(f"betweenness k={k_split} weighted, 4 blocks a source",
                       lambda b: rb.node_and_edge_betweenness(g, k=k_split, weight=lengths, seed=0,
                                                              backend=b, progress=False),
                       ("vertices", "edges"), out)
    return 0 if ok else 1


def _device_seconds(run, repeat: int = 3) -> float:
    """Best of ``repeat`` warm runs of ``run()``, the device drained before the clock stops."""
    from rapids_balance.backend import cuda, simulator_enabled

    run()  # compile and warm up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        if not simulator_enabled():
            cuda().synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def kernel_timings(spec: str, trees: int, out: Path) -> None:
    """The redesigned kernels beside the layouts they replaced, on one graph (see ``timings``)."""
    from rapids_balance.backend import sm_count
    from rapids_balance.balancing import _gpu as bal, _gpu_split as split
    from rapids_balance.balancing._roots import tree_roots
    from rapids_balance.balancing._trees import seed_mix
    from rapids_balance.frustration_index import _gpu as fr
    from rapids_balance.frustration_index._samplers import _seeds64, mst_shift

    g = _load(spec)
    base = {"graph": spec, "vertices": int(g.n), "edges": int(g.m), "step": "kernels", "backend": "gpu"}
    for T in sorted({min(64, trees), trees}):
        roots, seeds = tree_roots(g, np.arange(T), seed=0)
        s2 = seed_mix(seeds)
        for label, group in (("spread", bal.trees_per_block(T, sm_count())), ("packed", bal.GROUP)):
            s = _device_seconds(lambda: bal.bfs_trees_gpu(g, roots, s2, with_order=False,
                                                          with_ps=True, group=group))
            _emit(out, {**base, "kernel": "_k_bfs_groups", "layout": f"{label}: {group} trees a block",
                        "trees": T, "seconds": round(s, 5), "ms_per_tree": round(1e3 * s / T, 5)})
        # each tree over several blocks, two launches a level (what a batch too small for the
        # device gets; at least 2 blocks a tree here, so that the layout is timed on any graph)
        k = max(2, split.blocks_per_tree(T, g.n, sm_count(), 256))
        s = _device_seconds(lambda: bal.bfs_trees_gpu(g, roots, s2, with_order=False, with_ps=True,
                                                      split=k))
        _emit(out, {**base, "kernel": "_k_expand+_k_pull", "layout": f"split: {k} blocks a tree",
                    "trees": T, "seconds": round(s, 5), "ms_per_tree": round(1e3 * s / T, 5)})
    T = min(64, trees)  # a frustration batch
    roots, seeds = tree_roots(g, np.arange(T), seed=0)
    seeds64 = _seeds64(seeds)
    for label, with_order in (("block a tree", False), ("thread a tree", True)):
        s = _device_seconds(lambda: fr.boruvka_trees(g, seeds64, mst_shift(g.m), roots,
                                                     with_order=with_order))
        _emit(out, {**base, "kernel": "boruvka_trees", "layout": f"rooting: {label}", "trees": T,
                    "seconds": round(s, 5), "ms_per_tree": round(1e3 * s / T, 5)})
    parent = bal.bfs_trees_gpu(g, roots, seed_mix(seeds), with_order=False)[0]
    s = _device_seconds(lambda: bal.tree_levels_gpu(parent))
    _emit(out, {**base, "kernel": "tree_levels_gpu", "layout": "one sort of the depths", "trees": T,
                "seconds": round(s, 5), "ms_per_tree": round(1e3 * s / T, 5)})


def timings(args) -> int:
    """The redesigned kernels on the first graph, then balance(trees) per graph, GPU then CPU,
    in the same run; one JSON line per row."""
    import rapids_balance as rb

    out = Path(args.out) / "timings.jsonl"
    kernel_timings(args.graph[0], args.trees, out)
    for spec in args.graph:
        g = _load(spec)
        for backend in ("gpu", "cpu"):
            rb.balance(g, 2, seed=0, backend=backend, progress=False)  # compile and warm up
            t0 = time.perf_counter()
            rb.balance(g, args.trees, seed=0, backend=backend, progress=False)
            s = time.perf_counter() - t0
            _emit(out, {"graph": spec, "vertices": int(g.n), "edges": int(g.m), "backend": backend,
                        "trees": args.trees, "seconds": round(s, 4),
                        "ms_per_tree": round(1e3 * s / args.trees, 4)})
    return 0


def rapids(args) -> int:
    """cuDF, cuGraph and dask-cuDF inputs on the device, each against the pandas graph of the same rows.

    A cuDF table with text ids, an undirected cuGraph graph whose edges come in both orders (one
    written (larger, smaller), one pair given both ways), and a dask-cuDF frame of two partitions;
    where cuDF does not import, one line says so and the step passes (the other steps run).
    """
    out = Path(args.out) / "rapids.jsonl"
    try:
        import cudf
    except Exception as exc:  # not installed, or no CUDA runtime for it
        _emit(out, {"check": "rapids inputs", "skipped": f"cuDF is not importable here ({type(exc).__name__}: "
                                                         f"{exc}); the cuDF, cuGraph and dask-cuDF checks did not run"})
        return 0
    import pandas as pd

    import rapids_balance as rb

    def same(got, want) -> bool:
        return (got.n, got.m) == (want.n, want.m) and all(
            np.array_equal(np.asarray(getattr(got, k)), np.asarray(getattr(want, k)))
            for k in ("edge_src", "edge_dst", "sign")) and list(got.labels) == list(want.labels)

    def table(df):  # a cuDF frame from host columns (text as Python str objects)
        return cudf.DataFrame({k: df[k].to_numpy(dtype=object if df[k].dtype.kind not in "iuf" else None)
                               for k in df.columns})

    rows = []
    text = pd.DataFrame({"a": ["zoe", "amy", "bob", "amy"], "b": ["amy", "bob", "zoe", "zoe"], "s": [1, -1, 1, 1]})
    want = rb.SignedGraph.from_edgelist(text, source="a", target="b", sign="s")
    got = rb.SignedGraph.from_edgelist(table(text), source="a", target="b", sign="s")
    rows.append({"check": "cuDF table with text ids", "equal": same(got, want), "on_device": got.on_device})
    _emit(out, rows[-1])
    res = rb.balance(table(text), n_trees=4, source="a", target="b", sign="s", progress=False)
    rows.append({"check": "balance of a cuDF table gives cuDF tables",
                 "equal": type(res.vertices).__module__.startswith("cudf")})
    _emit(out, rows[-1])
    ints = pd.DataFrame({"u": np.array([5, 3, 1, 2, 2**40], np.int64), "v": np.array([2, 1, 2, 1, 3], np.int64),
                         "w": np.array([1.0, -1.0, 1.0, -1.0, 1.0])})
    want = rb.SignedGraph.from_edgelist(ints, source="u", target="v", sign="w", component="all")
    try:
        import cugraph
    except Exception as exc:
        _emit(out, {"check": "cuGraph graph", "skipped": f"cuGraph is not importable ({type(exc).__name__})"})
    else:
        for renumber in (True, False):
            G = cugraph.Graph()
            G.from_cudf_edgelist(table(ints), source="u", destination="v", edge_attr="w", renumber=renumber)
            got = rb.io.from_cugraph(G, component="all")
            rows.append({"check": f"undirected cuGraph graph, edges in both orders, renumber={renumber}",
                         "equal": same(got, want)
                         and got.cleaning.conflicting_pairs == want.cleaning.conflicting_pairs})
            _emit(out, rows[-1])
    try:
        import dask_cudf
    except Exception as exc:
        _emit(out, {"check": "dask-cuDF input", "skipped": f"dask-cuDF is not importable ({type(exc).__name__})"})
    else:
        lazy = dask_cudf.from_cudf(table(ints), npartitions=2)
        got = rb.SignedGraph.from_edgelist(lazy, source="u", target="v", sign="w", component="all")
        rows.append({"check": "dask-cuDF frame of two partitions", "equal": same(got, want)})
        _emit(out, rows[-1])
    return 0 if all(r["equal"] for r in rows) else 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("probe")
    a.add_argument("--allow-simulator", action="store_true")
    a = sub.add_parser("equality")
    a.add_argument("--graph", required=True)
    a.add_argument("--vnd-graph", required=True)
    a.add_argument("--trees", type=int, default=64)
    a.add_argument("--k", type=int, default=64)
    sub.add_parser("rapids")
    a = sub.add_parser("timings")
    a.add_argument("--graph", nargs="+", required=True)
    a.add_argument("--trees", type=int, default=1000)
    for a in sub.choices.values():
        a.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    args = p.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    return {"probe": probe, "rapids": rapids, "equality": equality, "timings": timings}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
