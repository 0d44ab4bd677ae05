"""The device work model's launch plan against the launches the GPU path really makes.

``benchmarks/bench_gpu_model.py`` reads every kernel's occupancy at sizes the
simulator cannot run (Slashdot with 1000 trees, 10**8 edges) from a launch
plan: blocks and threads per kernel, computed from the graph's size.  Here
each workload runs under the simulator on a small graph with every launch
recorded, and the plan for that graph must name the same kernels with the same
blocks and threads, so the model cannot drift from the code it describes.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.simulator

T = 3  # trees and betweenness sources


def _graph():
    """A connected signed graph of 9 vertices with triangles of every type."""
    from rapids_balance.graph import build_graph

    src = [0, 0, 0, 1, 1, 2, 3, 4, 4, 5, 6, 6, 7, 2]
    dst = [1, 2, 3, 2, 3, 3, 4, 5, 6, 6, 7, 8, 8, 8]
    sign = [1, -1, 1, -1, 1, 1, -1, 1, -1, 1, 1, -1, 1, -1]
    return build_graph(src, dst, sign=sign)


def _workloads(g):
    import rapids_balance as rb
    from rapids_balance.clustering._gpu import GPUState
    from rapids_balance.clustering._objective import slot_weights
    from rapids_balance.clustering._state import Level
    from rapids_balance.frustration_index._refine import parallel_descent
    from rapids_balance.null_models._significance import DEFAULT_BATCH

    lengths = np.arange(1, g.m + 1, dtype=np.float64)
    x = np.where(np.arange(g.n) % 3 == 0, -1, 1).astype(np.int8)
    level = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
    start = np.arange(g.n, dtype=np.int32)
    kw = dict(seed=0, backend="gpu", progress=False)
    return {
        "balance": lambda: rb.balance(g, T, **kw),
        "balance-cycle": lambda: rb.balance(g, T, method="cycle", **kw),
        "balance-agreeable": lambda: rb.balance(g, T, majority="agreeable", **kw),
        "frustration": lambda: rb.frustration(g, T, refine=False, **kw),
        "frustration-kruskal": lambda: rb.frustration(g, T, sampler="kruskal", refine=False, **kw),
        "frustration-refine": lambda: parallel_descent(g, x, seed=5, backend="gpu"),
        "vnd-best": lambda: GPUState(level, start, 0).vnd_best(),
        "vnd-parallel": lambda: GPUState(level, start, 0).parallel(),
        "triangles": lambda: rb.signed_triangles(g, backend="gpu"),
        "null-models": lambda: rb.significance(g, "triangles", n_samples=DEFAULT_BATCH, **kw),
        "betweenness": lambda: rb.node_and_edge_betweenness(g, k=T, weight=lengths, **kw),
    }


def _launches(runs: dict) -> dict:
    """{workload: {(kernel, blocks, threads)}} of the launches each of ``runs`` (name -> call)
    made under the simulator."""
    from numba.cuda.simulator.kernel import FakeCUDAKernel

    from benchmarks.bench_gpu_model import kernel_key

    seen: dict = {}
    current = [None]
    orig = FakeCUDAKernel.__getitem__

    def getitem(self, config):
        blocks, threads = (int(c) if np.ndim(c) == 0 else int(np.prod(c)) for c in config[:2])
        seen.setdefault(current[0], set()).add((kernel_key(self.fn), blocks, threads))
        return orig(self, config)

    FakeCUDAKernel.__getitem__ = getitem
    try:
        for name, run in runs.items():
            current[0] = name
            run()
    finally:
        FakeCUDAKernel.__getitem__ = orig
    return seen


@pytest.fixture(scope="module")
def recorded():
    """{workload: {(kernel, blocks, threads)}} of the launches each workload made."""
    g = _graph()
    return g, _launches(_workloads(g))




def test_plan_names_every_launch_with_its_blocks_and_threads(recorded):
    from benchmarks.bench_gpu_model import launch_plan

    g, seen = recorded
    plan = launch_plan(g.n, g.m, T, 1, gpu_threads=False)
    by_workload: dict = {}
    for r in plan:
        by_workload.setdefault(r["workload"], []).append(r)
    assert set(by_workload) == set(seen)
    wrong = []
    for workload, launches in seen.items():
        rows = by_workload[workload]
        planned = {(r["kernel"], r["threads"]) for r in rows}
        made = {(k, t) for k, _, t in launches}
        if made != planned:
            wrong.append((workload, "made, not planned", made - planned, "planned, not made", planned - made))
        for kernel, blocks, threads in launches:
            fixed = [r for r in rows if r["kernel"] == kernel and r["per"] != "level"
                     and not kernel.endswith(("k_tally", "k_type_counts"))]
            # per-level launches follow the level's size, the triangle ones the count
            if fixed and blocks not in {r["blocks"] for r in fixed}:
                wrong.append((workload, kernel, blocks, [r["blocks"] for r in fixed]))
    assert not wrong


def test_plan_names_the_split_bfs_launches(monkeypatch):
    # a batch too small for the device: each tree over several blocks, two launches a level;
    # the plan names the launches balance and frustration then make, with their blocks
    import rapids_balance as rb
    from benchmarks.bench_gpu_model import launch_plan
    from rapids_balance.balancing import _gpu_split

    monkeypatch.setattr(_gpu_split, "blocks_per_tree", lambda *a, **kw: 2)
    g = _graph()
    kw = dict(seed=0, backend="gpu", progress=False)
    made = _launches({"balance": lambda: rb.balance(g, T, **kw),
                      "frustration": lambda: rb.frustration(g, T, refine=False, **kw)})
    plan = launch_plan(g.n, g.m, T, 1, gpu_threads=False)
    for name, launches in made.items():
        planned = {(r["kernel"], r["blocks"], r["threads"]) for r in plan if r["workload"] == name
                   and "_gpu_split" in r["kernel"]}
        split = {x for x in launches if "_gpu_split" in x[0]}
        assert planned == split == {("balancing._gpu_split:_k_expand", 2 * T, 8),
                                    ("balancing._gpu_split:_k_pull", 2 * T, 8)}, name
        assert not any(k == "balancing._k_bfs_groups" for k, _, _ in launches)
