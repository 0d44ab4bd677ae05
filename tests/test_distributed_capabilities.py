"""Each capability on a real cluster gives exactly the single-process answer.

The cluster is started as operators start one: ``dask scheduler`` and
``dask worker`` OS processes on 127.0.0.1 (the ``real_clients`` fixture).

Same seed, 1 and 2 worker processes: the distributed result must equal the
local one bit for bit (floating-point betweenness included), because both
use the same batches and the same reduction order.  The capabilities'
per-batch functions are also run through ``distributed.run_batches`` directly
and checked against the local loop.  On a GPU machine (``RAPIDS_BALANCE_REAL_GPU=1``, dask-cuda installed)
the ``gpu`` tests repeat the equality checks on a ``LocalCUDACluster``.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

import rapids_balance as rb  # noqa: E402
from rapids_balance.distributed import start_cluster  # noqa: E402

# the worker plugin below is defined here, where workers cannot import it from
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def clients(real_clients):
    """{1: one-worker client, 2: two-worker client} of real clusters of worker processes."""
    return {1: real_clients(1), 2: real_clients(2)}


@pytest.fixture(scope="module")
def slashdot():
    return rb.load_example("slashdot-1000")


# --- betweenness -------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_bc_batches_folded_on_cluster_bit_identical_to_local_loop(clients, slashdot, workers):
    from rapids_balance.centrality.betweenness import _bc_partial, _check_params, _setup
    from rapids_balance.distributed import run_batches

    owner = "edge_betweenness_centrality"
    p = _check_params(owner, dict(k=300, weight=None, seed=7, directed=None, backend="cpu",
                                  progress=False, client=None, source=None, target=None, sign=None))
    _, g, bg, sources, _ = _setup(owner, slashdot, p, for_edges=True)
    params = {"backend": "cpu", "endpoints": False, "edges": True, "chunk": 8}
    batches = [sources[i:i + 40] for i in range(0, sources.size, 40)]
    node = np.zeros(g.n)
    edge = np.zeros(g.m)
    for b in batches:  # the local loop's order
        nb, eb = _bc_partial(bg, b, params)
        node += nb
        edge += eb
    got_node, got_edge = run_batches(clients[workers], bg, _bc_partial, batches, params,
                                     split_every=None)
    assert np.array_equal(got_node, node)
    assert np.array_equal(got_edge, edge)
    assert node.sum() > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_betweenness_client_equals_local(clients, slashdot, workers):
    local = rb.betweenness_centrality(slashdot, k=None, weight=None, backend="cpu")
    dist = rb.betweenness_centrality(slashdot, k=None, weight=None, backend="cpu",
                                     client=clients[workers])
    pd.testing.assert_frame_equal(dist, local, check_exact=True)
    local_e = rb.edge_betweenness_centrality(slashdot, k=600, seed=3, weight=None, backend="cpu")
    dist_e = rb.edge_betweenness_centrality(slashdot, k=600, seed=3, weight=None, backend="cpu",
                                            client=clients[workers])
    pd.testing.assert_frame_equal(dist_e, local_e, check_exact=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_weighted_betweenness_subtree_tasks_equal_local(clients, slashdot, workers, monkeypatch):
    import rapids_balance.distributed._run as drun
    from rapids_balance.centrality.betweenness import SPLIT_EVERY

    lengths = np.random.default_rng(5).integers(1, 11, slashdot.m).astype(float)
    kw = dict(k=500, seed=9, weight=lengths, backend="cpu")
    local = rb.node_and_edge_betweenness(slashdot, **kw)
    # 16 leaves: one worker gets two tasks of 8 leaves, two workers a task per leaf
    assert drun.tree_task_span(clients[workers], 16, SPLIT_EVERY) == (8 if workers == 1 else 1)
    spans = []
    real_span = drun.tree_task_span
    for forced in (None, 1, SPLIT_EVERY, SPLIT_EVERY ** 2):
        monkeypatch.setattr(drun, "tree_task_span", lambda c, n, s, *a, f=forced: (
            spans.append(real_span(c, n, s)) or (spans[-1] if f is None else f)))
        dist = rb.node_and_edge_betweenness(slashdot, client=clients[workers], **kw)
        pd.testing.assert_frame_equal(dist.vertices, local.vertices, check_exact=True)
        pd.testing.assert_frame_equal(dist.edges, local.edges, check_exact=True)
    assert local.vertices["betweenness_centrality"].sum() > 0 and len(spans) == 4


def _kernel_signatures():
    """numba's signatures of the CPU betweenness kernels in this process (a worker's with
    ``client.run``): compiled or loaded so far."""
    import numba

    from rapids_balance.centrality import _cpu

    return {k: sorted(map(str, f.signatures)) for k, f in vars(_cpu).items()
            if isinstance(f, numba.core.registry.CPUDispatcher)}


def test_betweenness_readies_every_workers_kernels_and_says_so(clients, slashdot):
    from rapids_balance.centrality import betweenness as B
    from rapids_balance.distributed._run import ready_on_workers

    client = clients[2]
    workers = set(client.scheduler_info()["workers"])
    lengths = np.random.default_rng(5).uniform(0.5, 2.0, slashdot.m)  # the heap's kernels
    labels = np.asarray(rb.betweenness_centrality(slashdot, k=2, seed=1, backend="cpu")["vertex"])
    sub = (labels[:7].tolist(), labels[5:19].tolist())
    calls = [(rb.betweenness_centrality, (), dict(k=60, seed=2, weight=None)),
             (rb.edge_betweenness_centrality, (), dict(k=60, seed=2, weight=lengths)),
             (rb.centrality.betweenness_centrality_subset, sub, dict(weight=lengths)),
             (rb.centrality.edge_betweenness_centrality_subset, sub, dict(weight=None))]
    for fn, args, kw in calls:
        local = fn(slashdot, *args, backend="cpu", progress=False, **kw)
        dist = fn(slashdot, *args, backend="cpu", progress=False, client=client, **kw)
        pd.testing.assert_frame_equal(dist, local, check_exact=True)
        info, here = dist.attrs["info"], local.attrs["info"]
        assert set(info["seconds_compile_workers"]) == workers, fn.__name__
        assert all(isinstance(s, float) and s >= 0 for s in info["seconds_compile_workers"].values())
        assert "seconds_compile_workers" not in here
        assert {k: v for k, v in info.items() if not k.startswith("seconds")} == \
            {k: v for k, v in here.items() if not k.startswith("seconds")}
    res = rb.node_and_edge_betweenness(slashdot, k=30, seed=4, backend="cpu", progress=False,
                                       client=client)
    assert set(res.vertices.attrs["info"]["seconds_compile_workers"]) == workers
    assert res.edges.attrs == res.vertices.attrs
    # a table left on the workers (as_dask): the Dask DataFrame has no attrs, its tables do
    frame = rb.betweenness_centrality(slashdot, k=30, seed=4, backend="cpu", progress=False,
                                      client=client, as_dask=True)
    assert set(frame.compute().attrs["info"]["seconds_compile_workers"]) == workers
    # once readied, the batches compile nothing on any worker (the call's own warm-up is then
    # a no-op: each worker readies each kind of batch once)
    for weight in (None, lengths):
        p = B._check_params("edge_betweenness_centrality", dict(
            k=40, weight=weight, seed=3, directed=None, backend="cpu", progress=False, client=None,
            source=None, target=None, sign=None))
        _, _, bg, _, _ = B._setup("edge_betweenness_centrality", slashdot, p, for_edges=True)
        ready_on_workers(client, B._ready_betweenness,
                         B._kernel_kind(bg, B._params(bg, "cpu", endpoints=False, edges=True)))
        before = client.run(_kernel_signatures)
        rb.edge_betweenness_centrality(slashdot, k=40, seed=3, weight=weight, backend="cpu",
                                       progress=False, client=client)
        assert client.run(_kernel_signatures) == before


# --- correlation clustering -------------------------------------------------------------

@pytest.mark.parametrize("method,iterations", [("grasp", 8), ("ils", 3)])
def test_restart_driver_equals_sequential_loop(clients, slashdot, method, iterations):
    from rapids_balance.clustering._solve import _restart
    from rapids_balance.clustering._scale_out import run_restarts

    params = dict(method=method, seed=5, max_clusters=0, alpha=1.0, local_search="auto",
                  construction="auto", perturbation_max=30, ils_max=5, backend="cpu",
                  deadline=None)
    seq = [_restart(slashdot, r, params) for r in range(iterations)]
    vals = [v for _, v in seq]
    best = int(np.argmin(vals))  # first minimum = smallest restart id among ties
    improvements = []
    for workers in (1, 2):
        rec = []
        lab, val, done = run_restarts(clients[workers], slashdot, params, iterations,
                                      record=lambda r, v: rec.append((r, v)),
                                      restarts_per_batch=2 if workers == 2 else None)
        assert done == iterations
        assert val == vals[best]
        assert np.array_equal(lab, seq[best][0])
        improvements.append(rec)
    want = []
    for r, v in enumerate(vals):
        if not want or v < want[-1][1]:
            want.append((r, v))
    assert improvements == [want, want]


@pytest.mark.parametrize("workers", [1, 2])
def test_correlation_clustering_client_equals_local(clients, slashdot, workers):
    cc = rb.correlation_clustering
    local = cc(slashdot, method="grasp", max_iterations=6, seed=11, backend="cpu", progress=False)
    dist = cc(slashdot, method="grasp", max_iterations=6, seed=11, backend="cpu",
              progress=False, client=clients[workers])
    assert dist.imbalance == local.imbalance
    pd.testing.assert_frame_equal(dist.labels, local.labels, check_exact=True)
    assert dist.iterations == local.iterations


# --- balance -----------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("method", ["path-sign", "cycle"])
def test_balance_client_equals_local(clients, slashdot, workers, method):
    bal = rb.balance
    kw = dict(n_trees=48, seed=17, method=method, backend="cpu", progress=False, batch_size=8)
    local = bal(slashdot, **kw)
    dist = bal(slashdot, client=clients[workers], **kw)
    assert dist.n_trees == local.n_trees == 48
    # every worker readied its kernels before the trees ran, and said how long it took
    assert set(dist.info["seconds_compile_workers"]) == set(
        clients[workers].scheduler_info()["workers"])
    assert local.counters.keys() == dist.counters.keys()
    for k in local.counters:
        assert np.array_equal(dist.counters[k], local.counters[k]), k
    pd.testing.assert_frame_equal(dist.vertices, local.vertices, check_exact=True)
    pd.testing.assert_frame_equal(dist.edges, local.edges, check_exact=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_balance_cluster_cut_counters_equal_one_local_batch(clients, slashdot, workers):
    # the cluster cuts the 30 trees into its own batches (two per worker);
    # the counters must equal those of all 30 trees in one local batch
    from rapids_balance.balancing._engine import BalanceParams, batch_size_for
    from rapids_balance.distributed import WorkerBatches

    kw = dict(n_trees=30, seed=5, backend="cpu", sampler="bfs-random-root", progress=False)
    params = BalanceParams(n_trees=30, seed=5, backend="cpu", sampler="bfs-random-root")
    cut = WorkerBatches(30, max_size=batch_size_for(slashdot, params), per_worker=2)
    assert len(cut.for_workers(workers)) == 2 * workers  # not the local run's single batch
    local = rb.balance(slashdot, batch_size=30, **kw)
    got = rb.balance(slashdot, client=clients[workers], **kw)
    assert got.counters.keys() == local.counters.keys()
    for k in local.counters:
        assert np.array_equal(got.counters[k], local.counters[k]), k
    assert int(got.counters["trees"][0]) == 30


# --- frustration ---------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("max_states", [None, 5])
def test_frustration_client_equals_local(clients, slashdot, workers, max_states):
    fr = rb.frustration
    # a randomised sampler (hybrid mixes several) and a state cap that evicts:
    # there the merge order matters
    kw = dict(n_trees=40, seed=9, sampler="hybrid", max_states=max_states, backend="cpu",
              progress=False, batch_size=8, refine=False)
    local = fr(slashdot, **kw)
    dist = fr(slashdot, client=clients[workers], **kw)
    assert dist.index == local.index and dist.tree_index == local.tree_index
    pd.testing.assert_frame_equal(dist.cloud, local.cloud, check_exact=True)
    pd.testing.assert_frame_equal(dist.best_state, local.best_state, check_exact=True)
    pd.testing.assert_frame_equal(dist.history, local.history, check_exact=True)
    assert dist.info["states"] == local.info["states"]
    assert dist.info["evicted"] == local.info["evicted"]
    if max_states is not None:
        assert len(local.cloud) <= max_states and local.info["evicted"] > 0


def test_frustration_with_refinement_client_equals_local(clients, slashdot):
    fr = rb.frustration
    kw = dict(n_trees=24, seed=2, backend="cpu", progress=False, batch_size=8)
    local = fr(slashdot, **kw)
    dist = fr(slashdot, client=clients[2], **kw)
    assert dist.index == local.index and dist.refined_index == local.refined_index
    pd.testing.assert_frame_equal(dist.switched, local.switched, check_exact=True)
    # 6,000 edges: a V-cycle costs no more than a task, the client's threads run them
    assert slashdot.m < 50_000 and dist.info["refine_on"] == local.info["refine_on"] == "threads"


@pytest.mark.parametrize("workers", [1, 2])
def test_frustration_refinement_vcycles_on_workers_equal_local(clients, slashdot, workers,
                                                               monkeypatch):
    # the cluster's runner on the small example (the size rule moved below it): the same
    # generations, restarts and rounds as the threads, hence the same state
    from rapids_balance.frustration_index import _refine_cluster

    monkeypatch.setattr(_refine_cluster, "CLUSTER_REFINE_EDGES", 0)
    client = clients[workers]
    kw = dict(n_trees=24, seed=2, backend="cpu", progress=False, batch_size=8,
              refine={"rounds": 3, "restarts": 1})
    local = rb.frustration(slashdot, **kw)
    with distributed.get_task_stream(client) as stream:
        dist = rb.frustration(slashdot, client=client, **kw)
    assert local.info["refine_on"] == "threads" and dist.info["refine_on"] == "workers"
    assert dist.index == local.index and dist.refined_index == local.refined_index
    pd.testing.assert_frame_equal(dist.switched, local.switched, check_exact=True)
    pd.testing.assert_frame_equal(dist.history, local.history, check_exact=True)
    # every V-cycle was a task the scheduler saw, run by the workers the result names
    ran = [t for t in stream.data if str(t["key"]).startswith("refine-vcycle-")]
    population = 8  # RefineParams' default: the first generation alone is 8 V-cycles
    assert dist.info["refine_tasks"] == len(ran) >= population
    assert sum(dist.info["refine_workers"].values()) == len(ran)
    by_worker = {}
    for t in ran:
        by_worker[t["worker"]] = by_worker.get(t["worker"], 0) + 1
    assert by_worker == dist.info["refine_workers"]
    assert set(by_worker) == set(client.nthreads())  # spread over every worker


def test_vcycle_task_keeps_the_deadline_it_is_given(slashdot):
    # what a worker runs: a V-cycle whose (wall-clock) deadline passed before it started
    # is skipped, but the one a search makes late; without a deadline the answer is the
    # thread runner's, with no worker to name outside a task
    import math
    import time

    from rapids_balance.frustration_index._refine import (RefineParams, level0_of,
                                                          vcycle_job)
    from rapids_balance.frustration_index._refine_cluster import _vcycle_task

    p = RefineParams()
    x0 = np.ones(slashdot.n, np.int8)
    past = time.time() - 1.0
    assert _vcycle_task(slashdot, (x0, 5, False, None, False), (p, past, past)) is None
    cost, x, where = _vcycle_task(slashdot, (x0, 5, False, None, True), (p, past, past))
    assert where is None and x.shape == (slashdot.n,)
    from rapids_balance.frustration_index._states import count_frustrated

    assert cost == count_frustrated(slashdot, (x < 0).astype(np.int8))
    cost, x, _ = _vcycle_task(slashdot, (x0, 5, False, None, False), (p, math.inf, math.inf))
    want = vcycle_job(level0_of(slashdot), (x0, 5, False, None, False), p)
    assert cost == want[0] and np.array_equal(x, want[1])


# --- a worker killed in the middle of a real computation -----------------------------------

class _KillFirstBatch(distributed.WorkerPlugin):
    """Kill the worker process when the first batch task of a job starts executing
    (``only``: the first task whose key starts so)."""

    def __init__(self, marker: str, skip: str = "reduce", only: str = ""):
        self.marker = marker
        self.skip = skip
        self.only = only

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or self.skip in str(key) or os.path.exists(self.marker) \
                or not str(key).startswith(self.only):
            return
        with open(self.marker, "w") as fh:
            fh.write(f"{key} {os.getpid()}")
        os._exit(1)  # the worker dies in the middle of the job


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("job", ["balance", "betweenness"])
def test_worker_killed_during_capability_run(request, slashdot, tmp_path, job, backend):
    # gpu: the same on a LocalCUDACluster (with one GPU, its only worker dies and the
    # graph is scattered again)
    client = (request.getfixturevalue("clients")[2] if backend == "cpu"
              else request.getfixturevalue("cuda_client"))
    if job == "balance":
        bal = rb.balance
        run = lambda **kw: bal(slashdot, n_trees=40, seed=4, backend=backend, progress=False,
                               batch_size=5, **kw)
        same = lambda a, b: all(np.array_equal(a.counters[k], b.counters[k]) for k in a.counters)
    else:
        run = lambda **kw: rb.edge_betweenness_centrality(slashdot, k=None, weight=None,
                                                          backend=backend, **kw)
        same = lambda a, b: a.equals(b)  # bit-identical floats
    local = run()
    marker = str(tmp_path / "killed")
    pids = set(client.run(os.getpid).values())
    client.register_plugin(_KillFirstBatch(marker), name="kill-first-batch")
    try:
        dist = run(client=client)
    finally:
        client.unregister_worker_plugin("kill-first-batch")
        client.wait_for_workers(len(pids), timeout=60)  # the nanny restarts the dead worker
    killed_key, killed_pid = open(marker).read().rsplit(maxsplit=1)  # keys may hold spaces
    assert int(killed_pid) in pids  # a worker really died, at a batch of this job
    assert set(client.run(os.getpid).values()) != pids
    assert same(dist, local)


def test_worker_killed_during_the_refinement(clients, slashdot, tmp_path, monkeypatch):
    # the worker running the first V-cycle dies: Dask runs the task again elsewhere (a
    # V-cycle is a pure job), and the search ends where the single process's does
    from rapids_balance.frustration_index import _refine_cluster

    monkeypatch.setattr(_refine_cluster, "CLUSTER_REFINE_EDGES", 0)
    client = clients[2]
    kw = dict(n_trees=16, seed=3, backend="cpu", progress=False, batch_size=8,
              refine={"rounds": 2})
    local = rb.frustration(slashdot, **kw)
    marker = str(tmp_path / "killed")
    pids = set(client.run(os.getpid).values())
    client.register_plugin(_KillFirstBatch(marker, only="refine-vcycle-"), name="kill-vcycle")
    try:
        dist = rb.frustration(slashdot, client=client, **kw)
    finally:
        client.unregister_worker_plugin("kill-vcycle")
        client.wait_for_workers(len(pids), timeout=60)
    killed_key, killed_pid = open(marker).read().rsplit(maxsplit=1)
    assert killed_key.startswith("refine-vcycle-") and int(killed_pid) in pids
    assert dist.info["refine_on"] == "workers"
    assert dist.index == local.index and dist.refined_index == local.refined_index
    pd.testing.assert_frame_equal(dist.switched, local.switched, check_exact=True)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("copy", [0, 1])
def test_worker_killed_while_the_workers_copy_the_graph(clients, tmp_path, copy):
    # the worker running the copy task of worker `copy` dies: when it held the only copy
    # and its peer was fetching it, the scheduler once kept listing the peer as a holder
    # while the peer's copy task never ran, and the call waited for ever; the graph is
    # sent again instead (a graph of its own: no earlier test has sent it)
    g = rb.generators.ssbm(800, 4, 0.02, seed=4100 + copy).graph
    client = clients[2]
    run = lambda **kw: rb.edge_betweenness_centrality(g, k=None, weight=None, backend="cpu", **kw)
    local = run()
    marker = str(tmp_path / "killed")
    pids = set(client.run(os.getpid).values())
    client.register_plugin(_KillFirstBatch(marker, only=f"keep-graph-{copy}-"), name="kill-copy")
    try:
        dist = run(client=client)
    finally:
        client.unregister_worker_plugin("kill-copy")
        client.wait_for_workers(len(pids), timeout=60)
    assert open(marker).read().startswith(f"keep-graph-{copy}-")  # it died copying the graph
    assert dist.equals(local)


# --- the same on GPU workers (a GPU machine with dask-cuda) --------------------------------

@pytest.fixture(scope="module")
def cuda_client():
    pytest.importorskip("dask_cuda")
    from rapids_balance.distributed import gpu_cluster_available

    usable, why = gpu_cluster_available()
    if not usable:
        pytest.skip(f"no LocalCUDACluster here: {why}")
    client = start_cluster(gpu=True)
    yield client
    client.close()


@pytest.mark.gpu
def test_gpu_workers_equal_local_gpu_runs(cuda_client, slashdot):
    kw = dict(n_trees=64, seed=17, backend="gpu", progress=False)
    local, dist = rb.balance(slashdot, **kw), rb.balance(slashdot, client=cuda_client, **kw)
    for k in local.counters:
        assert np.array_equal(dist.counters[k], local.counters[k]), k
    bkw = dict(k=256, seed=3, weight=None, backend="gpu")
    pd.testing.assert_frame_equal(
        rb.edge_betweenness_centrality(slashdot, client=cuda_client, **bkw),
        rb.edge_betweenness_centrality(slashdot, **bkw), check_exact=True)
    ckw = dict(method="grasp", max_iterations=4, seed=11, backend="gpu", progress=False)
    a = rb.correlation_clustering(slashdot, **ckw)
    b = rb.correlation_clustering(slashdot, client=cuda_client, **ckw)
    assert a.imbalance == b.imbalance
    fkw = dict(n_trees=32, seed=9, backend="gpu", progress=False)
    assert rb.frustration(slashdot, **fkw).index == rb.frustration(slashdot, client=cuda_client,
                                                                   **fkw).index


# --- deadlines and methods that stay local ---------------------------------------------------

def test_frustration_keeps_its_time_limit_on_the_cluster(clients, slashdot):
    from test_frustration_exact import recount

    res = rb.frustration(slashdot, n_trees=10**6, time_limit=2, seed=3, backend="cpu",
                         progress=False, client=clients[2])
    assert res.info["stopped"] == "time_limit"
    assert 1 <= res.info["trees"] < 10**6
    assert res.cloud["count"].sum() == res.info["trees"]  # only trees that ran were merged
    # every worker readied its kernels before the clock started, and said how long it took
    assert set(res.info["seconds_compile_workers"]) == set(clients[2].scheduler_info()["workers"])
    assert recount(slashdot, res.best_state) == res.index <= res.tree_index


def test_frustration_counts_the_clusters_preparation_but_not_its_compiling(clients, slashdot,
                                                                          monkeypatch):
    # the workers' readiness takes 1 s, 0.2 s of it compiling: the search's clock must
    # start before it, less the compiling (a fresh worker imports the package and loads its
    # cached kernels there, which a call's time limit includes)
    import time

    import rapids_balance.distributed._run as drun
    import rapids_balance.frustration_index._frustration as F

    real_ready, real_deadline = drun.ready_on_workers, F.deadline_of
    seen = {}

    def slow_ready(*args):
        seen["ready_start"] = time.perf_counter()
        out = real_ready(*args)
        time.sleep(1.0)
        out.compile_s = 0.2
        out.loading_s = time.perf_counter() - seen["ready_start"] - out.compile_s
        return out

    def deadline_of(start, limit):
        seen.setdefault("starts", []).append(start)
        return real_deadline(start, limit)

    monkeypatch.setattr(drun, "ready_on_workers", slow_ready)
    monkeypatch.setattr(F, "deadline_of", deadline_of)
    res = rb.frustration(slashdot, n_trees=10**6, time_limit=2, seed=3, backend="cpu",
                         progress=False, client=clients[2])
    assert res.info["seconds_cluster"] >= 0.8  # the second of readiness less its compiling
    assert seen["starts"][-1] <= seen["ready_start"] + 0.2  # the clock ran from before it
    local = rb.frustration(slashdot, n_trees=64, time_limit=2, seed=3, backend="cpu",
                           progress=False)
    assert "seconds_cluster" not in local.info


def test_multilevel_searches_spread_over_workers_best_of_independent_local_runs(clients,
                                                                               slashdot):
    from distributed import get_task_stream

    from rapids_balance.clustering._scale_out import SEARCHES, search_seed

    kw = dict(method="multilevel", backend="cpu", progress=False, max_iterations=2)
    # the reference: each search as its own single-process call, with the seed it gets
    local = [rb.correlation_clustering(slashdot, seed=search_seed(4, i), **kw)
             for i in range(SEARCHES)]
    assert len({r.imbalance for r in local}) > 1  # the searches do differ
    vals = [r.imbalance for r in local]
    best = local[int(np.argmin(vals))]  # first minimum: the smallest search id among ties
    assert local[0].imbalance == rb.correlation_clustering(slashdot, seed=4, **kw).imbalance
    for workers in (1, 2):
        with get_task_stream(clients[workers]) as ts:
            dist = rb.correlation_clustering(slashdot, seed=4, client=clients[workers], **kw)
        assert dist.imbalance == min(vals) <= local[0].imbalance
        pd.testing.assert_frame_equal(dist.labels, best.labels, check_exact=True)
        assert dist.iterations == sum(r.iterations for r in local)
        ran = {t["worker"] for t in ts.data if "multilevel" in str(t["key"])}
        assert len(ran) == workers  # every search ran on a worker, spread over all of them
        assert set(dist.info["seconds_compile_workers"]) == set(
            clients[workers].scheduler_info()["workers"])


def test_multilevel_on_cluster_keeps_its_time_limit(clients):
    from rapids_balance.generators import powerlaw_signed_graph

    g = powerlaw_signed_graph(20_000, seed=3)
    res = rb.correlation_clustering(g, method="multilevel", time_limit=1.0, seed=1,
                                    backend="cpu", progress=False, max_iterations=10**6,
                                    client=clients[2])
    # searches of patience 10^6 end only at their deadline, which every worker keeps: the
    # call returns, with a valid clustering of the whole graph
    assert 1 <= res.iterations
    assert len(res.labels) == g.n
    assert res.imbalance == rb.imbalance(g, res.labels).imbalance


@pytest.mark.parametrize("method", ["vnd"])
def test_clustering_method_that_cannot_use_the_client_says_so(clients, slashdot, method):
    kw = dict(method=method, seed=2, backend="cpu", progress=False, max_iterations=2)
    with pytest.warns(RuntimeWarning, match="runs in this process, not on the Dask workers"):
        dist = rb.correlation_clustering(slashdot, client=clients[2], **kw)
    assert dist.imbalance == rb.correlation_clustering(slashdot, **kw).imbalance
    # the check of the workers took its seconds, and they count although the search runs here
    assert dist.info["seconds_cluster"] > 0


# --- the graph once per cluster ------------------------------------------------------------------

def test_second_call_sends_nothing_graph_sized(clients):
    # the client sends the graph to one worker, the workers copy it between them; the
    # scheduler never carries it, and a second call (betweenness builds its own arrays per
    # call: same content, same fingerprint) sends nothing of it
    import pickle

    from _real_cluster import wire_bytes

    client = clients[2]
    from rapids_balance.generators import powerlaw_signed_graph

    g = powerlaw_signed_graph(100_000, seed=1)
    size = len(pickle.dumps(g))
    assert size > 1_000_000
    kw = dict(k=8, seed=1, weight=None, backend="cpu")
    sent = []
    for call in (lambda: rb.betweenness_centrality(g, client=client, **kw),
                 lambda: rb.betweenness_centrality(g, client=client, **kw),
                 lambda: rb.balance(g, n_trees=4, seed=1, backend="cpu", progress=False,
                                    client=client),
                 lambda: rb.balance(g, n_trees=4, seed=1, backend="cpu", progress=False,
                                    client=client)):
        before = wire_bytes(client)
        call()
        after = wire_bytes(client)
        sent.append({k: after[k] - before[k] for k in ("client", "scheduler")})
    first_bc, second_bc, first_bal, second_bal = sent
    assert first_bc["client"] > size / 2 and first_bal["client"] > size / 2  # sent once each
    for s in sent:
        assert s["scheduler"] < size / 4, sent  # never through the scheduler
    assert second_bc["client"] < size / 20 and second_bal["client"] < size / 20, sent


# --- edge lists the workers read: Parquet datasets and Dask DataFrames ---------------------------

def _edge_table(graph, extra=True):
    """The graph's edges as a table in a scrambled row order (so the parts' order matters)."""
    lab = graph.labels
    df = pd.DataFrame({"src": lab[graph.edge_src], "dst": lab[graph.edge_dst],
                       "sign": graph.sign.astype(np.int64)})
    if extra:
        df["time"] = np.arange(graph.m)
    return df.sample(frac=1.0, random_state=3).reset_index(drop=True)


def _write_dataset(df, folder, rows=700):
    folder.mkdir()
    for i, a in enumerate(range(0, len(df), rows)):
        df.iloc[a:a + rows].to_parquet(folder / f"part-{i:03d}.parquet")
    (folder / "_SUCCESS").write_text("")  # a writer's marker, not data: skipped
    return folder


@pytest.fixture(scope="module")
def dataset(slashdot, tmp_path_factory):
    pytest.importorskip("pyarrow")
    df = _edge_table(slashdot)
    return df, _write_dataset(df, tmp_path_factory.mktemp("edges") / "slashdot")


def test_parquet_dataset_read_in_one_process_equals_one_table(dataset, tmp_path):
    df, folder = dataset
    whole = tmp_path / "all.parquet"
    df.to_parquet(whole)
    want = rb.read_edgelist(whole)
    for given in (folder, str(folder / "part-*.parquet")):
        got = rb.read_edgelist(given)
        for k in ("edge_src", "edge_dst", "sign", "labels"):
            assert np.array_equal(getattr(got, k), getattr(want, k)), k
        assert got.cleaning.input_rows == len(df)
        assert "9 file(s)" in got.cleaning.notes[0]


def test_bad_dataset_files_named_before_any_read(clients, dataset, tmp_path):
    from distributed import get_task_stream

    df, _ = dataset
    client = clients[2]
    cases = []
    no_sign = _write_dataset(df, tmp_path / "no_sign")
    df.drop(columns="sign").iloc[:50].to_parquet(no_sign / "part-999.parquet")
    cases.append((no_sign, ["part-999.parquet", "'sign'"]))
    text_sign = _write_dataset(df, tmp_path / "text_sign")
    df.assign(sign=df["sign"].astype(str)).iloc[:50].to_parquet(text_sign / "part-500.parquet")
    cases.append((text_sign, ["part-500.parquet", "sign column 'sign'", "text"]))
    ids = _write_dataset(df, tmp_path / "ids")
    df.assign(src=df["src"].astype(str)).iloc[:50].to_parquet(ids / "part-001b.parquet")
    cases.append((ids, ["part-001b.parquet", "'src'", "text", "part-000.parquet"]))
    junk = _write_dataset(df, tmp_path / "junk")
    (junk / "part-002b.parquet").write_text("src,dst,sign\n1,2,1\n")
    cases.append((junk, ["part-002b.parquet", "not a Parquet file"]))
    nulls = _write_dataset(df, tmp_path / "nulls")
    df.assign(sign=df["sign"].astype("float64").where(df.index % 7 != 3)).iloc[:50].to_parquet(
        nulls / "part-004b.parquet")
    cases.append((nulls, ["part-004b.parquet", "sign column 'sign'", "missing"]))
    for folder, words in cases:
        with get_task_stream(client) as ts:
            with pytest.raises(ValueError) as err:
                rb.balance(folder, n_trees=4, backend="cpu", progress=False, client=client)
        for w in words:
            assert w in str(err.value), (w, str(err.value))
        assert not [t for t in ts.data if "read-edges" in str(t["key"])]  # nothing was read
        with pytest.raises(ValueError, match="part-"):  # the same check in one process
            rb.read_edgelist(folder)


@pytest.mark.parametrize("workers", [1, 2])
def test_parquet_dataset_on_cluster_equals_single_process(clients, slashdot, dataset, workers):
    from distributed import get_task_stream

    _, folder = dataset
    client = clients[workers]
    here = rb.read_edgelist(folder)
    bkw = dict(n_trees=40, seed=7, backend="cpu", progress=False)
    local = rb.balance(here, **bkw)
    with get_task_stream(client) as ts:
        dist = rb.balance(folder, client=client, **bkw)
    for k in local.counters:
        assert np.array_equal(dist.counters[k], local.counters[k]), k
    pd.testing.assert_frame_equal(dist.vertices, local.vertices, check_exact=True)
    pd.testing.assert_frame_equal(dist.edges, local.edges, check_exact=True)
    # the result names the graph by its handle: the graph itself stayed on the workers
    assert isinstance(dist.graph, rb.ClusterGraph)
    assert (dist.graph.n, dist.graph.m, dist.graph.parts) == (here.n, here.m, 9)
    keys = [str(t["key"]) for t in ts.data]
    reads = {t["worker"] for t in ts.data if "read-edges" in str(t["key"])}
    assert sum("read-edges" in k for k in keys) == 9 and len(reads) == workers
    assert any("balance-on-workers" in k for k in keys) and any("balance-" in k for k in keys)
    fkw = dict(n_trees=24, seed=2, backend="cpu", progress=False, batch_size=8)
    lf, df_ = rb.frustration(here, **fkw), rb.frustration(folder, client=client, **fkw)
    assert (df_.index, df_.tree_index, df_.refined_index) == (lf.index, lf.tree_index,
                                                             lf.refined_index)
    pd.testing.assert_frame_equal(df_.switched, lf.switched, check_exact=True)
    pd.testing.assert_frame_equal(df_.best_state, lf.best_state, check_exact=True)


def test_significance_of_a_dataset_on_cluster_equals_single_process(clients, dataset):
    _, folder = dataset
    kw = dict(n_samples=6, seed=4, progress=False)
    local = rb.significance(rb.read_edgelist(folder), "triangles", "shuffle", **kw)
    dist = rb.significance(folder, "triangles", "shuffle", client=clients[2], **kw)
    assert np.array_equal(dist.null_distribution["value"], local.null_distribution["value"])
    assert (dist.observed, dist.p_value) == (local.observed, local.p_value)


def test_dask_dataframe_read_on_workers_equals_pandas_table(clients, dataset):
    dd = pytest.importorskip("dask.dataframe")
    from distributed import get_task_stream

    df, folder = dataset
    client = clients[2]
    frame = dd.read_parquet(str(folder / "part-*.parquet"))
    assert frame.npartitions == 9
    local_table = pd.concat([pd.read_parquet(f) for f in sorted(folder.glob("part-*.parquet"))],
                            ignore_index=True)
    ckw = dict(method="grasp", max_iterations=4, seed=11, backend="cpu", progress=False)
    local = rb.correlation_clustering(local_table, sign="sign", **ckw)
    with get_task_stream(client) as ts:
        dist = rb.correlation_clustering(frame, sign="sign", client=client, **ckw)
    assert dist.imbalance == local.imbalance
    pd.testing.assert_frame_equal(dist.labels, local.labels, check_exact=True)
    assert any("read_parquet" in str(t["key"]) or "readparquet" in str(t["key"]).replace("-", "")
               for t in ts.data)  # the partitions were read by the workers
    # a Dask DataFrame without roles it can resolve is refused before any work, naming columns
    with pytest.raises(ValueError, match="time"):
        rb.balance(frame.rename(columns={"sign": "trust"}), n_trees=4, backend="cpu",
                   progress=False, client=client)


def test_cluster_graph_kept_and_second_call_reads_nothing(clients, dataset):
    from distributed import get_task_stream

    from rapids_balance.distributed import cluster_graph

    _, folder = dataset
    client = clients[2]
    handle = cluster_graph(client, folder)
    assert cluster_graph(client, folder) is handle  # same files, same options: same graph
    with get_task_stream(client) as ts:
        res = rb.balance(handle, n_trees=8, seed=1, backend="cpu", progress=False, client=client)
        rb.balance(folder, n_trees=8, seed=1, backend="cpu", progress=False, client=client)
    assert not [t for t in ts.data if "read-edges" in str(t["key"]) or "keep-graph" in str(t["key"])]
    assert res.graph == handle and res.graph.cleaning.input_rows == handle.cleaning.input_rows
    with pytest.raises(ValueError, match="sign="):  # roles belong to an edge list, not a graph
        rb.balance(handle, sign="sign", n_trees=8, client=client)
    with pytest.raises(ValueError, match="'source' parameter of cluster_graph"):
        cluster_graph(client, rb.load_example("highland"))  # a graph the client holds already


def test_as_dask_tables_made_on_the_workers(clients, slashdot, dataset):
    dd = pytest.importorskip("dask.dataframe")
    from distributed import get_task_stream

    _, folder = dataset
    client = clients[2]
    here = rb.read_edgelist(folder)
    kw = dict(n_trees=16, seed=3, backend="cpu", progress=False)
    local = rb.balance(here, **kw)
    got = rb.balance(folder, client=client, as_dask=True, **kw)
    assert isinstance(got.edges, dd.DataFrame)
    pd.testing.assert_frame_equal(got.vertices, local.vertices, check_exact=True)
    with get_task_stream(client) as ts:
        edges = got.edges.compute()
    pd.testing.assert_frame_equal(edges, local.edges, check_exact=True)
    assert any("_rows" in str(t["key"]) for t in ts.data)  # slices cut on the workers
    # the counters the edge table holds are read from it, where it lies
    for k in local.counters:
        assert np.array_equal(got.counters[k], local.counters[k]), k


@pytest.mark.parametrize("held", ["graph", "table"])
def test_as_dask_tables_of_an_input_the_client_holds_made_on_the_workers(clients, slashdot,
                                                                         lengths_dataset, held):
    # a built graph or a pandas edge list of the client's, tables asked as Dask DataFrames: the
    # graph built here as always, sent once, called on a worker, the tables made and cut there
    # (a table made here would be embedded, rows and all, in the Dask DataFrame's task graph);
    # the result names the caller's own graph
    import pickle

    dd = pytest.importorskip("dask.dataframe")
    from distributed import get_task_stream

    client = clients[2]
    given = slashdot if held == "graph" else lengths_dataset[0]
    kw = dict(n_trees=16, seed=3, backend="cpu", progress=False)
    local = rb.balance(given, **kw)
    with get_task_stream(client) as ts:
        got = rb.balance(given, client=client, as_dask=True, **kw)
    assert any("balance-on-workers" in str(t["key"]) for t in ts.data)
    assert isinstance(got.edges, dd.DataFrame)
    assert len(pickle.dumps(dict(got.edges.dask))) < 0.1 * len(pickle.dumps(local.edges))
    if held == "graph":
        assert got.graph is slashdot
    else:
        assert got.graph.m == local.graph.m and got.graph.cleaning == local.graph.cleaning
    pd.testing.assert_frame_equal(got.vertices, local.vertices, check_exact=True)
    pd.testing.assert_frame_equal(got.edges.compute(), local.edges, check_exact=True)
    # a table's lengths column travels inside the graph sent, not in the call
    ekw = dict(k=30, seed=2, weight=None if held == "graph" else "length", backend="cpu")
    with get_task_stream(client) as ts:
        frame = rb.edge_betweenness_centrality(given, client=client, as_dask=True, **ekw)
    assert any("on-workers" in str(t["key"]) for t in ts.data)
    assert isinstance(frame, dd.DataFrame)
    expected = rb.edge_betweenness_centrality(given, **ekw)
    assert len(pickle.dumps(dict(frame.dask))) < 0.1 * len(pickle.dumps(expected))
    pd.testing.assert_frame_equal(frame.compute(), expected, check_exact=True)
    with pytest.raises(ValueError, match="n_trees"):  # checked before anything is sent
        rb.balance(given, client=client, as_dask=True, n_trees=-1)
    if held == "table":
        with pytest.raises(ValueError, match="no column 'nope'"):  # read here, before any send
            rb.edge_betweenness_centrality(given, client=client, as_dask=True, weight="nope")


def test_as_dask_result_leaves_the_edge_table_on_the_workers(clients):
    # what the client receives with as_dask=True is the rest of the result (the vertex table,
    # the counts), not the edge table nor the edge counters, which without it come back once
    import pickle

    from _real_cluster import wire_bytes

    from rapids_balance.distributed import cluster_graph
    from rapids_balance.generators import powerlaw_signed_graph

    dd = pytest.importorskip("dask.dataframe")
    g = powerlaw_signed_graph(50_000, seed=2)
    lab = g.labels
    frame = dd.from_dict({"src": lab[g.edge_src], "dst": lab[g.edge_dst],
                          "sign": g.sign.astype(np.int64)}, npartitions=4)
    client = clients[2]
    handle = cluster_graph(client, client.persist(frame))  # the partitions live on the workers
    kw = dict(n_trees=4, seed=1, backend="cpu", progress=False, client=client)
    got = {}
    for as_dask in (False, True):
        before = wire_bytes(client)
        got[as_dask] = rb.balance(handle, as_dask=as_dask, **kw)
        after = wire_bytes(client)
        got[as_dask, "bytes"] = sum(after[w] - before[w] for w in after
                                    if w not in ("client", "scheduler"))
    edge_table = len(pickle.dumps(got[False].edges))
    # the same trees and reductions ran both times: what differs is what came back (a pickled
    # result carries its edge counters in the edge table's columns, test_balance_engine.py)
    assert got[False, "bytes"] - got[True, "bytes"] > 0.8 * edge_table
    pd.testing.assert_frame_equal(got[True].edges.compute(), got[False].edges, check_exact=True)


def test_cluster_vcycles_submit_nothing_after_the_deadline(clients, slashdot):
    # past the search's deadline the runner submits one task (the first always goes), which
    # skips its V-cycle on the worker; the one V-cycle a late search asks for still runs
    import time

    from rapids_balance.frustration_index._refine import RefineParams
    from rapids_balance.frustration_index._refine_cluster import ClusterVCycles

    past = time.perf_counter() - 1.0
    runner = ClusterVCycles(clients[2], slashdot, RefineParams(), past, past)
    x0 = np.ones(slashdot.n, np.int8)
    jobs = [(x0, k, False, None, False) for k in range(4)]
    assert runner.map(jobs) == [None] * 4 and runner.tasks == 1 and not runner.workers
    (late,) = runner.map([(x0, 0, False, None, True)])
    assert late is not None and late[1].shape == (slashdot.n,) and runner.tasks == 2
    assert sum(runner.workers.values()) == 1


def test_frustration_of_a_cluster_graph_refines_on_every_worker(clients):
    # the whole call runs as one task on a worker (its graph never on the client); its
    # V-cycles go from there to every worker, through that worker's client, and give the
    # single process's state
    from rapids_balance.distributed import cluster_graph
    from rapids_balance.generators import powerlaw_signed_graph

    dd = pytest.importorskip("dask.dataframe")
    g = powerlaw_signed_graph(60_000, seed=2)  # connected, at the size the cluster takes V-cycles
    assert g.m >= 50_000
    lab = g.labels
    frame = dd.from_dict({"src": lab[g.edge_src], "dst": lab[g.edge_dst],
                          "sign": g.sign.astype(np.int64)}, npartitions=2)
    client = clients[2]
    handle = cluster_graph(client, client.persist(frame))
    kw = dict(n_trees=8, seed=1, backend="cpu", progress=False,
              refine={"population": 4, "rounds": 1})
    local = rb.frustration(frame.compute(), **kw)
    dist = rb.frustration(handle, client=client, **kw)
    assert local.info["refine_on"] == "threads" and dist.info["refine_on"] == "workers"
    assert dist.index == local.index and dist.refined_index == local.refined_index
    pd.testing.assert_frame_equal(dist.switched, local.switched, check_exact=True)
    assert set(dist.info["refine_workers"]) == set(client.nthreads())
    assert sum(dist.info["refine_workers"].values()) == dist.info["refine_tasks"] >= 4


# --- betweenness of edge lists the workers read -----------------------------------------------

@pytest.fixture(scope="module")
def lengths_dataset(dataset, tmp_path_factory):
    """The dataset's rows with a length column: halves from 0.5 to 4 (ties, and not integers,
    so the CPU's heap runs, not Dial's buckets)."""
    df, _ = dataset
    table = df.assign(length=np.random.default_rng(5).integers(1, 9, len(df)) * 0.5)
    return table, _write_dataset(table, tmp_path_factory.mktemp("lengths") / "slashdot")


def test_weighted_betweenness_of_a_dataset_on_cluster_equals_single_process(clients,
                                                                            lengths_dataset):
    from distributed import get_task_stream

    table, folder = lengths_dataset
    client = clients[2]
    kw = dict(k=40, seed=3, weight="length", backend="cpu", progress=False)
    here = rb.betweenness_centrality(folder, **kw)  # one process reads the files itself
    with get_task_stream(client) as ts:
        dist = rb.betweenness_centrality(folder, client=client, **kw)
    pd.testing.assert_frame_equal(dist, here, check_exact=True)
    keys = [str(t["key"]) for t in ts.data]
    assert sum("read-edges" in k for k in keys) == 9  # the workers read the parts
    assert any("betweenness_centrality-on-workers" in k for k in keys)
    # the same rows as one table, read in one process: lengths from its column, bit for bit
    one = rb.read_edgelist(_as_parquet(table, folder.parent / "one.parquet"),
                           signed=False, weight="length")
    ref = rb.betweenness_centrality(one, k=40, seed=3, weight="weight", backend="cpu",
                                    progress=False)
    pd.testing.assert_frame_equal(dist, ref, check_exact=True)
    assert float(dist["betweenness_centrality"].max()) > 0
    # directed edges, node and edge scores from one pass, on the graph's handle
    dkw = dict(k=30, seed=8, directed=True, backend="cpu", progress=False)
    local = rb.node_and_edge_betweenness(folder, weight="length", **dkw)
    res = rb.node_and_edge_betweenness(folder, weight="length", client=client, **dkw)
    pd.testing.assert_frame_equal(res.vertices, local.vertices, check_exact=True)
    pd.testing.assert_frame_equal(res.edges, local.edges, check_exact=True)
    handle = rb.cluster_graph(client, folder, signed=False, weight="length")
    ekw = dict(k=30, seed=8, weight="weight", backend="cpu", progress=False)
    pd.testing.assert_frame_equal(
        rb.edge_betweenness_centrality(handle, client=client, **ekw),
        rb.edge_betweenness_centrality(rb.read_edgelist(folder, signed=False, weight="length"),
                                       **ekw), check_exact=True)


def test_subset_betweenness_of_a_dataset_on_cluster_equals_single_process(clients,
                                                                          lengths_dataset):
    from distributed import get_task_stream

    _, folder = lengths_dataset
    client = clients[2]
    g = rb.read_edgelist(folder, signed=False, weight="length")
    labels = np.asarray(rb.betweenness_centrality(g, k=2, seed=1, backend="cpu")["vertex"])
    sources, targets = labels[:7].tolist(), labels[5:19].tolist()
    kw = dict(weight="length", backend="cpu", progress=False)
    for fn in (rb.centrality.betweenness_centrality_subset,
               rb.centrality.edge_betweenness_centrality_subset):
        here = fn(folder, sources, targets, **kw)
        with get_task_stream(client) as ts:
            dist = fn(folder, sources, targets, client=client, **kw)
        pd.testing.assert_frame_equal(dist, here, check_exact=True)
        assert any(f"{fn.__name__}-on-workers" in str(t["key"]) for t in ts.data)
        assert float(dist["betweenness_centrality"].max()) > 0
    with pytest.raises(ValueError, match="targets"):  # checked on the worker, raised here
        rb.centrality.betweenness_centrality_subset(folder, sources, [-12345], client=client, **kw)


def _as_parquet(df, path):
    df.to_parquet(path)
    return path


def test_weighted_betweenness_of_a_dask_dataframe_on_workers_equals_pandas_table(clients,
                                                                                 lengths_dataset):
    dd = pytest.importorskip("dask.dataframe")
    table, folder = lengths_dataset
    frame = dd.read_parquet(str(folder / "part-*.parquet"))
    local_table = pd.concat([pd.read_parquet(f) for f in sorted(folder.glob("part-*.parquet"))],
                            ignore_index=True)
    kw = dict(k=40, seed=3, weight="length", backend="cpu", progress=False)
    pd.testing.assert_frame_equal(rb.edge_betweenness_centrality(frame, client=clients[2], **kw),
                                  rb.edge_betweenness_centrality(local_table, **kw),
                                  check_exact=True)


def test_betweenness_options_the_cluster_cannot_honour_refused_by_name(clients, lengths_dataset):
    from distributed import get_task_stream

    dd = pytest.importorskip("dask.dataframe")
    _, folder = lengths_dataset
    client = clients[2]
    frame = dd.read_parquet(str(folder / "part-*.parquet"))
    handle = rb.cluster_graph(client, folder, signed=False, weight="length")
    kw = dict(k=5, backend="cpu", progress=False, client=client)
    with get_task_stream(client) as ts:
        with pytest.raises(ValueError, match="weight=<function.*Dask DataFrame"):
            rb.betweenness_centrality(frame, weight=lambda e: e["length"], **kw)
        with pytest.raises(ValueError, match="weight='abs'.*Parquet dataset"):
            rb.betweenness_centrality(folder, weight="abs", sign="sign", **kw)
        with pytest.raises(ValueError, match="directed=True but the graph is undirected"):
            rb.edge_betweenness_centrality(handle, directed=True, **kw)
        with pytest.raises(ValueError, match="sign="):
            rb.node_and_edge_betweenness(handle, sign="sign", **kw)
        with pytest.raises(ValueError, match="'length'"):
            rb.betweenness_centrality(handle, weight="length", **kw)
    assert not ts.data  # refused on the client, before any task


# --- signed communities --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def planted():
    return rb.ssbm(600, 6, 0.05, flip=0.2, seed=3).graph


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("objective", ["modularity", "imbalance"])
def test_signed_communities_on_cluster_is_the_best_of_the_seeded_searches(clients, planted,
                                                                          workers, objective):
    from rapids_balance.clustering._scale_out import SEARCHES, search_seed

    kw = dict(objective=objective, restarts=2, max_passes=4)
    dist = rb.signed_communities(planted, seed=5, client=clients[workers], **kw)
    # each search is the call without a client at its own seed; search 0 is the caller's call
    calls = [rb.signed_communities(planted, seed=search_seed(5, i), **kw) for i in range(SEARCHES)]
    lower = objective == "imbalance"
    best = 0
    for i in range(1, SEARCHES):  # strictly better only: ties go to the smaller search
        if (calls[i].value < calls[best].value) if lower else (calls[i].value > calls[best].value):
            best = i
    assert best != 0  # the seeds really differ: the test sees which search won
    assert (dist.info["best_search"], dist.info["searches"]) == (best, SEARCHES)
    assert dist.value == calls[best].value
    pd.testing.assert_frame_equal(dist.labels, calls[best].labels, check_exact=True)
    assert dist.info["restarts_all_searches"] == SEARCHES * 2
    assert set(dist.info["seconds_compile_workers"]) == set(
        clients[workers].scheduler_info()["workers"])


def test_signed_communities_of_a_dask_frame_read_on_the_workers(clients, planted):
    dd = pytest.importorskip("dask.dataframe")
    from distributed import get_task_stream

    table = planted.edges_frame()
    kw = dict(seed=1, restarts=1, max_passes=3)
    here = rb.signed_communities(table, client=clients[2], **kw)
    with get_task_stream(clients[2]) as ts:
        dist = rb.signed_communities(dd.from_pandas(table, npartitions=3), client=clients[2], **kw)
    assert dist.value == here.value
    pd.testing.assert_frame_equal(dist.labels, here.labels, check_exact=True)
    assert any("signed_communities-on-workers" in str(t["key"]) for t in ts.data)


def test_significance_keeps_its_time_limit_on_the_cluster(clients):
    from rapids_balance.null_models import significance

    g = rb.ssbm(60, 3, 0.3, seed=2).graph
    kw = dict(statistic="triangles", null="swap", n_samples=40, seed=3, batch_size=4,
              progress=False)
    whole = significance(g, **kw)
    cut = significance(g, time_limit=0, client=clients[2], **kw)  # past it at once: one batch
    assert cut.stopped == "time_limit" and cut.n_samples == 4
    assert np.array_equal(cut.null_distribution.iloc[:, -1].to_numpy(),
                          whole.null_distribution.iloc[:4, -1].to_numpy())
    free = significance(g, time_limit=3600, client=clients[2], **kw)
    assert free.stopped is None and free.n_samples == 40
