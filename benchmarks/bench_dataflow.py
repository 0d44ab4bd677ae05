"""Dataflow: load -> graph -> 1000 balanced trees -> result table, split by stage, per input kind.

Inputs, each on the same edge list:

(a) ``file``: :func:`rapids_balance.read_edgelist` (``backend="gpu"`` on a GPU:
    cuDF's parser where cuDF is installed); loading and graph building are
    one call, reported as one stage;
(b) ``pandas``: a pandas DataFrame already in memory -> ``SignedGraph.from_edgelist``;
(c) ``device``: CuPy columns (what a cuDF frame hands over) -> a graph kept on
    the GPU; also a real cuDF DataFrame where cuDF is installed.  Skipped,
    with the reason, on machines without a GPU.

Then the trees (:func:`_balance_partial`, counters only) and the result
tables (:func:`compute_attributes`), timed apart.  Where cuGraph is
installed, ``cugraph.Graph.from_cudf_edgelist`` on the same cuDF edge list
is the same-run peer of the graph-building stage.

Graphs: Slashdot and Epinions (``../shared/data``) and a seeded power-law
graph of ``--edges`` rows (default 5e7 on a GPU, 1e6 on a CPU: the CPU
default keeps a 2-core run to minutes).

Run: ``python benchmarks/bench_dataflow.py [--trees 1000] [--edges N] [--graphs slashdot epinions synthetic]
[--out DIR]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np

from _harness import SHARED_DATA, Report

FILES = {"slashdot": "soc-sign-Slashdot090221.txt.gz", "epinions": "soc-sign-epinions.txt.gz"}
GPU_EDGES, CPU_EDGES = 50_000_000, 1_000_000


def _timed(fn: Callable[[], Any], sync: Callable[[], None]) -> tuple[Any, float]:
    sync()
    t = time.perf_counter()
    out = fn()
    sync()
    return out, time.perf_counter() - t


def _gpu() -> tuple[bool, str]:
    from rapids_balance.backend import gpu_status

    st = gpu_status()
    if st.usable and not st.simulated:
        return True, st.device
    return False, f"no usable GPU ({st.reason})"


def _sync(on_gpu: bool) -> Callable[[], None]:
    if not on_gpu:
        return lambda: None
    import cupy

    return cupy.cuda.Device().synchronize


def _trees_and_table(graph, trees: int, backend: str, sync) -> dict[str, float]:
    from rapids_balance.balancing._engine import BalanceParams, _balance_partial
    from rapids_balance.balancing._result import compute_attributes

    params = BalanceParams(n_trees=trees, backend=backend)
    counters, t_trees = _timed(lambda: _balance_partial(graph, range(trees), params), sync)
    _, t_table = _timed(lambda: compute_attributes(graph, counters), sync)
    return {"trees": t_trees, "table": t_table}


def _edge_frame(name: str, edges: int):
    """The raw rows of a graph as a pandas frame (src, dst, sign), made outside any timing."""
    if name == "synthetic":
        from rapids_balance.generators import powerlaw_signed_graph

        return powerlaw_signed_graph(edges, seed=1, as_frame=True), None
    path = SHARED_DATA / FILES[name]
    if not path.exists():
        return None, None
    import pandas as pd

    # the file's rows as they are (SNAP: tab separated, '#' comments), repeats included
    frame = pd.read_csv(path, sep="\t", comment="#", header=None, names=["src", "dst", "sign"])
    return frame, path


def run_graph(rep: Report, name: str, args, on_gpu: bool, why_no_gpu: str) -> None:
    from rapids_balance import SignedGraph
    from rapids_balance.io import read_edgelist

    frame, path = _edge_frame(name, args.edges)
    if frame is None:
        print(f"skipped {name}: {FILES[name]} is not in {SHARED_DATA}")
        return
    backend = "gpu" if on_gpu else "cpu"
    sync = _sync(on_gpu)
    label = f"{name} ({len(frame):,} rows)"
    inputs: dict[str, Callable[[], Any]] = {}
    if path is not None:
        inputs["file"] = lambda: read_edgelist(path, backend=backend)
    inputs["pandas"] = lambda: SignedGraph.from_edgelist(frame, source="src", target="dst", sign="sign")
    if on_gpu:
        import cupy

        cols = tuple(cupy.asarray(frame[c].to_numpy()) for c in ("src", "dst", "sign"))
        inputs["device (CuPy)"] = lambda: SignedGraph.from_edgelist(cols)
        try:
            import cudf

            cdf = cudf.DataFrame({"src": cols[0], "dst": cols[1], "sign": cols[2]})
            inputs["device (cuDF)"] = lambda: SignedGraph.from_edgelist(cdf, source="src", target="dst",
                                                                        sign="sign")
        except ImportError:
            print("  device (cuDF) skipped: cuDF is not installed")
    else:
        rep.add(input=label, figure="device (CuPy / cuDF) input: skipped", value=None, unit="s",
                skipped=why_no_gpu)
    peer = _cugraph_peer(frame, sync)
    for kind, build in inputs.items():
        build()  # warm: imports, compiled kernels, page cache
        graph, t_graph = _timed(build, sync)
        stages = {"load+graph" if kind == "file" else "graph": t_graph}
        stages.update(_trees_and_table(graph, args.trees, backend, sync))
        for stage, seconds in stages.items():
            extra = {}
            if stage == "graph" and kind.startswith("device") and peer is not None:
                extra = dict(peer="cugraph.Graph.from_cudf_edgelist (same run)", peer_value=peer)
            rep.add(input=label, figure=f"{kind}: {stage}", value=seconds, unit="s", n=graph.n, m=graph.m,
                    trees=args.trees, backend=backend, **extra)
        rep.add(input=label, figure=f"{kind}: total", value=sum(stages.values()), unit="s")


def _cugraph_peer(frame, sync) -> float | None:
    try:
        import cudf
        import cugraph
    except ImportError:
        return None
    cdf = cudf.DataFrame({c: frame[c].to_numpy() for c in ("src", "dst", "sign")})
    cdf["sign"] = cdf["sign"].astype(np.float32)

    def build():
        G = cugraph.Graph()
        G.from_cudf_edgelist(cdf, source="src", destination="dst", edge_attr="sign")
        return G

    build()
    return _timed(build, sync)[1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=1000)
    ap.add_argument("--edges", type=int, default=None,
                    help=f"rows of the synthetic graph (default {GPU_EDGES:.0e} on a GPU, {CPU_EDGES:.0e} on a CPU)")
    ap.add_argument("--graphs", nargs="+", default=["slashdot", "epinions", "synthetic"],
                    choices=["slashdot", "epinions", "synthetic"])
    ap.add_argument("--out", default=None)
    ap.add_argument("--note", default="", help="a remark stored with the results (e.g. a shared machine)")
    args = ap.parse_args(argv)
    on_gpu, why = _gpu()
    if args.edges is None:
        args.edges = GPU_EDGES if on_gpu else CPU_EDGES
    rep = Report("dataflow", "load -> graph -> balanced trees -> result table, split by stage, per input kind "
                             "(file, pandas, device columns); cuGraph's from_cudf_edgelist as the graph-building "
                             "peer where installed")
    rep.params = {"trees": args.trees, "edges": args.edges, "graphs": args.graphs, "gpu": on_gpu,
                  "note": args.note}
    for name in args.graphs:
        run_graph(rep, name, args, on_gpu, why)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
