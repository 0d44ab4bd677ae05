"""The Dask machinery with toy batch functions, on a real 2-process LocalCluster.

What is checked: results come back in batch order; on-cluster reductions
equal the same-shaped local reduction bit for bit; the graph is deserialised
once per worker, not once per task (with a control that shows the counter
would see per-task transfers); a worker killed mid-run loses and
double-counts nothing; a graph whose every holder died is sent again.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from rapids_balance._output import convert_result_frames  # noqa: E402
from rapids_balance.distributed import (  # noqa: E402
    RangeBatches, WorkerBatches, ordered_reduce, run_batches, start_cluster, to_dask_frame)
from rapids_balance.distributed._graphs import GraphRef, scatter_graph  # noqa: E402
from rapids_balance.distributed._preflight import check_client  # noqa: E402
from rapids_balance.distributed._tasks import sum_parts, tree_groups  # noqa: E402
from rapids_balance.errors import BackendUnavailableError  # noqa: E402

# the toy batch functions below live in this test module, which the worker
# processes cannot import: ship them by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


# --- toy batch functions ------------------------------------------------------

def _float_part(graph, batch, params):
    """Float partials whose sum depends on the summation order."""
    x = np.asarray(graph, dtype=np.float64)
    ids = np.asarray(batch, dtype=np.float64)
    return np.sin(np.outer(ids, x)).sum(axis=0) * params["scale"] + 1e-9 * ids.sum()


def _counter_part(graph, batch, params):
    """Integer counters (node counts, edge counts) as a pure function of the batch."""
    x = np.asarray(graph)
    node = np.zeros(x.size, np.int64)
    edge = np.zeros(x.size, np.int64)
    for i in batch:
        node[(i * 7) % x.size] += 1
        edge[i % x.size] += int(i)
    return node, edge


def _raising_part(graph, batch, params):
    if batch == 3:
        raise ValueError("batch 3 is bad")
    return batch


def _kill_once_part(graph, batch, params):
    """Kill this worker process the first time ``params['kill_batch']`` runs."""
    log = params["log"]
    with open(log, "a") as fh:
        fh.write(f"{batch} {os.getpid()}\n")
    if batch == params["kill_batch"] and not os.path.exists(params["marker"]):
        open(params["marker"], "w").close()
        os._exit(1)  # the worker dies at once, like a crash
    time.sleep(0.02)  # keep both workers busy so the kill lands mid-run
    return _counter_part(graph, [batch], params)


def _kill_always_first_part(graph, batch, params):
    if not os.path.exists(params["marker"]):
        open(params["marker"], "w").close()
        os._exit(1)
    return _counter_part(graph, batch, params)


def _restored(payload, log_dir):
    with open(os.path.join(log_dir, f"load-{os.getpid()}"), "a") as fh:
        fh.write("x\n")
    return _Counted(payload, log_dir)


class _Counted:
    """A payload that logs, per process, each time it is unpickled."""

    def __init__(self, payload, log_dir):
        self.payload = payload
        self.log_dir = log_dir

    def __reduce__(self):
        return (_restored, (self.payload, self.log_dir))


def _payload_size(graph, batch, params):
    return int(graph.payload.size) + batch


def _load_counts(log_dir, pids):
    out = {}
    for pid in pids:
        f = os.path.join(log_dir, f"load-{pid}")
        out[pid] = len(open(f).read().split()) if os.path.exists(f) else 0
    return out


def _settled_counts(log_dir, pids, quiet=0.3, most=5.0):
    """:func:`_load_counts` once no worker has loaded anything for ``quiet`` seconds (a copy
    Dask is still delivering counts before the caller compares)."""
    end = time.monotonic() + most
    counts = _load_counts(log_dir, pids)
    while time.monotonic() < end:
        time.sleep(quiet)
        now = _load_counts(log_dir, pids)
        if now == counts:
            break
        counts = now
    return counts


# --- fixtures ------------------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    c = start_cluster(2, gpu=False, processes=True)
    yield c
    c.close()


GRAPH = np.arange(50, dtype=np.int64)


# --- pure helpers (no cluster) -------------------------------------------------

def test_tree_groups_cover_every_item_once():
    for n in (1, 2, 7, 8, 9, 64, 65):
        for k in (None, 2, 3, 8):
            levels = tree_groups(n, k)
            width = n
            for level in levels:
                flat = [i for a, b in level for i in range(a, b)]
                assert flat == list(range(width))
                if k is not None:
                    assert all(b - a <= k for a, b in level)
                width = len(level)
            assert width == 1
    with pytest.raises(ValueError):
        tree_groups(0, None)
    with pytest.raises(ValueError):
        tree_groups(5, 1)


def test_ordered_reduce_shapes():
    parts = [np.float64(v) for v in (1e16, 1.0, -1e16, 1.0)]
    # a left fold loses the first 1.0 to rounding; pairs keep the same order
    assert ordered_reduce(parts, split_every=None) == ((1e16 + 1.0) - 1e16) + 1.0
    assert ordered_reduce(parts, split_every=2) == (1e16 + 1.0) + (-1e16 + 1.0)
    assert sum_parts({"a": (1, 2)}, {"a": (3, 4)}) == {"a": (4, 6)}
    with pytest.raises(ValueError):
        sum_parts((1, 2), (1, 2, 3))


@pytest.mark.parametrize("split_every", [2, 3, 8])
def test_stream_reduce_is_the_same_tree_holding_a_few_parts_per_level(split_every):
    from rapids_balance.distributed._run import stream_reduce

    rng = np.random.default_rng(3)
    for n in (1, 2, split_every, split_every + 1, split_every ** 3 + 5, 200):
        parts = [rng.standard_normal(4) * 10.0 ** rng.integers(-8, 8) for _ in range(n)]
        got = stream_reduce(iter(parts), split_every=split_every)
        # floating point in the tree's order, bit for bit (a left fold differs)
        assert np.array_equal(got, ordered_reduce(parts, split_every=split_every)), n
    with pytest.raises(ValueError):
        stream_reduce(iter([]), split_every=split_every)
    with pytest.raises(ValueError):
        stream_reduce(iter([1.0]), split_every=1)


@pytest.mark.parametrize("split_every", [2, 3, 8])
def test_aligned_subtree_folds_are_nodes_of_the_whole_tree(split_every):
    # what a task of tree_task_span leaves returns, folded along the upper levels with the
    # same split_every, is the fold of every leaf, bit for bit
    from rapids_balance.distributed._run import stream_reduce

    rng = np.random.default_rng(11)
    for n in (1, split_every - 1, split_every ** 2, split_every ** 2 + 3, 70):
        leaves = [rng.standard_normal(5) * 10.0 ** rng.integers(-9, 9) for _ in range(max(n, 1))]
        whole = ordered_reduce(leaves, split_every=split_every)
        for span in (1, split_every, split_every ** 2, split_every ** 3):
            tasks = [stream_reduce(iter(leaves[a:a + span]), split_every=split_every)
                     for a in range(0, len(leaves), span)]
            assert np.array_equal(ordered_reduce(tasks, split_every=split_every), whole), (n, span)
    # a span that is not a power of split_every regroups the sums: other bits
    leaves = [np.array([1.0]), np.array([1e16]), np.array([-1e16]), np.array([1.0])]
    tasks = [stream_reduce(iter(leaves[a:a + 3]), split_every=2) for a in (0, 3)]
    assert not np.array_equal(ordered_reduce(tasks, split_every=2),
                              ordered_reduce(leaves, split_every=2))


def test_stream_reduce_keeps_parts_per_level_not_per_batch():
    import weakref

    from rapids_balance.distributed._run import stream_reduce

    class Part(float):
        pass

    refs = []

    def produced():
        for i in range(1000):
            p = Part(i)
            refs.append(weakref.ref(p))
            alive = sum(r() is not None for r in refs)
            assert alive <= 8 * 4 + 1  # split_every parts in each of log_8(1000) < 4 levels
            yield p

    assert stream_reduce(produced(), combine=lambda a, b: Part(a + b),
                         split_every=8) == sum(range(1000))


def test_range_batches():
    assert list(RangeBatches(10, 4)) == [range(0, 4), range(4, 8), range(8, 10)]
    assert [i for r in RangeBatches(1000, 37) for i in r] == list(range(1000))
    with pytest.raises(ValueError):
        RangeBatches(10, 0)


def test_worker_batches_cut_for_the_cluster_cover_every_id_once():
    for n, max_size, per_worker, workers in [(30, None, 2, 2), (30, 4, 4, 1), (7, None, 4, 3),
                                             (0, None, 4, 2), (10**12, 256, 2, 4)]:
        cut = WorkerBatches(n, max_size, per_worker).for_workers(workers)
        assert cut.n == n
        if n and n < 10**6:
            assert [i for r in cut for i in r] == list(range(n))
        if max_size is not None and n < 256 * 200_000:
            assert cut.size <= max_size
    assert len(WorkerBatches(30, per_worker=2).for_workers(2)) == 4  # two per worker
    assert len(WorkerBatches(10**12, 256, 2).for_workers(4)) <= 200_000  # the task cap wins


def test_start_cluster_rejects_bad_arguments():
    with pytest.raises(ValueError):
        start_cluster(gpu="yes")
    with pytest.raises(ValueError):
        start_cluster(0, gpu=False)


@pytest.mark.simulator_only
def test_start_cluster_never_starts_gpu_workers_on_the_simulator():
    with pytest.raises(BackendUnavailableError):
        start_cluster(1, gpu=True)


def test_package_imports_without_dask_and_says_what_to_install():
    import subprocess
    import textwrap

    code = textwrap.dedent("""
        import sys
        for mod in ("dask", "distributed", "dask_cuda", "cudf"):
            sys.modules[mod] = None
        import rapids_balance as rb
        from rapids_balance.distributed import run_batches  # importable without dask
        try:
            rb.start_cluster(1, gpu=False)
        except ImportError as e:
            print("IMPORT-ERROR", e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "IMPORT-ERROR" in r.stdout and "rapids-balance[dask]" in r.stdout


def test_check_client_rejects_non_clients():
    with pytest.raises(TypeError, match="distributed.Client"):
        check_client("tcp://127.0.0.1:8786")


def test_frames():
    df = pd.DataFrame({"u": np.arange(10), "v": np.arange(10) * 2.0})
    ddf = to_dask_frame(df, npartitions=3)
    assert ddf.npartitions == 3
    pd.testing.assert_frame_equal(ddf.compute(), df)

    from dataclasses import dataclass

    @dataclass
    class R:
        edges: pd.DataFrame
        vertices: pd.DataFrame
        value: int

    r = convert_result_frames(R(df, df.copy(), 3), like=df, as_dask=True, dask_fields=("edges",))
    assert hasattr(r.edges, "npartitions") and isinstance(r.vertices, pd.DataFrame)
    pd.testing.assert_frame_equal(r.edges.compute(), df)


def test_cudf_tables_go_to_dask_cudf(monkeypatch):
    # no cuDF here: stand-in modules check the dispatch (type-based, lazy import)
    import types
    from dataclasses import dataclass

    class FakeCudfFrame:
        def __init__(self, df):
            self.df = df

        def __len__(self):
            return len(self.df)

    FakeCudfFrame.__module__ = "cudf.core.dataframe"
    fake = types.ModuleType("dask_cudf")
    fake.from_cudf = lambda frame, npartitions, sort: ("dask-cudf", frame, npartitions)
    monkeypatch.setitem(sys.modules, "dask_cudf", fake)

    @dataclass
    class R:
        edges: object
        vertices: object

    edges, vertices = FakeCudfFrame(pd.DataFrame({"a": [1, 2]})), FakeCudfFrame(pd.DataFrame({"v": [0]}))
    r = convert_result_frames(R(edges, vertices), as_dask=True, dask_fields=("edges",))
    assert r.edges == ("dask-cudf", edges, 1) and r.vertices is vertices  # made by the capability
    assert convert_result_frames(R(edges, vertices), as_dask=False, dask_fields=("edges",)).edges is edges


# --- on the cluster --------------------------------------------------------------

def _numba_threads(graph, batch, params):
    import numba

    return numba.get_num_threads()


def test_cluster_workers_share_the_cores(client):
    assert len(client.scheduler_info()["workers"]) == 2
    # 2 workers share the machine's cores: each batch runs with its share
    want = max(1, (os.cpu_count() or 1) // 2)
    env = client.run(lambda: os.environ.get("NUMBA_NUM_THREADS"))
    assert set(env.values()) == {str(want)}
    assert set(run_batches(client, GRAPH, _numba_threads, range(6), fold=list)) == {want}


def test_fold_gets_the_parts_in_batch_order(client):
    batches = RangeBatches(100, 7)
    got = run_batches(client, GRAPH, _float_part, batches, {"scale": 0.5}, fold=list)
    want = [_float_part(GRAPH, b, {"scale": 0.5}) for b in batches]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    # streamed results (completion order) with a progress bar: same list, each batch once
    streamed = run_batches(client, GRAPH, _float_part, batches, {"scale": 0.5}, progress=True,
                           fold=list)
    assert all(np.array_equal(g, w) for g, w in zip(streamed, want))


@pytest.mark.parametrize("split_every", [None, 2, 8])
def test_cluster_reduction_bit_identical_to_local(client, split_every):
    batches = RangeBatches(300, 11)
    params = {"scale": 1.0 / 3.0}
    local_parts = [_float_part(GRAPH, b, params) for b in batches]
    want = ordered_reduce(local_parts, split_every=split_every)
    got = run_batches(client, GRAPH, _float_part, batches, params, split_every=split_every)
    assert got.dtype == np.float64
    assert np.array_equal(got, want)  # bit for bit, not approximately
    # and the shape matters: the other shape would not match exactly everywhere
    other = ordered_reduce(local_parts, split_every=3 if split_every != 3 else 2)
    assert not np.array_equal(other, want)


def test_cluster_reduction_one_worker_equals_two(client):
    batches = RangeBatches(200, 9)
    params = {"scale": 2.0}
    two = run_batches(client, GRAPH, _float_part, batches, params)
    with start_cluster(1, gpu=False, processes=False) as one_client:
        one = run_batches(one_client, GRAPH, _float_part, batches, params)
    assert np.array_equal(one, two)


def test_run_batches_reduces_on_the_cluster_or_folds_on_the_client(client):
    batches = RangeBatches(120, 13)
    params = {"scale": 0.25}
    local_parts = [_float_part(GRAPH, b, params) for b in batches]
    # combine on the cluster: the shape of ordered_reduce, bit for bit
    got = run_batches(client, GRAPH, _float_part, batches, params, split_every=None)
    assert np.array_equal(got, ordered_reduce(local_parts, split_every=None))
    # fold on the client: it receives the parts in batch order
    seen = run_batches(client, GRAPH, _float_part, batches, params, fold=list)
    assert len(seen) == len(local_parts)
    assert all(np.array_equal(g, w) for g, w in zip(seen, local_parts))
    # a cut left to the cluster, with an integer reduction: the counters of one local batch
    node, edge = run_batches(client, GRAPH, _counter_part, WorkerBatches(40, per_worker=2), None)
    want_node, want_edge = _counter_part(GRAPH, range(40), None)
    assert np.array_equal(node, want_node) and np.array_equal(edge, want_edge)
    with pytest.raises(TypeError, match="not both"):
        run_batches(client, GRAPH, _float_part, batches, params, combine=sum_parts, fold=list)


def test_batch_errors_reach_the_caller(client):
    with pytest.raises(ValueError, match="batch 3 is bad"):
        run_batches(client, GRAPH, _raising_part, range(6), None, retries=0, fold=list)


def test_graph_is_transferred_once_per_worker(client, tmp_path):
    _check_transferred_once(client, tmp_path)


@pytest.mark.gpu
def test_graph_is_transferred_once_per_gpu_worker(tmp_path):
    pytest.importorskip("dask_cuda")
    with start_cluster(gpu=True) as cuda_client:
        _check_transferred_once(cuda_client, tmp_path)


def _check_transferred_once(client, tmp_path):
    pids = set(client.run(os.getpid).values())
    payload = _Counted(np.arange(1000), str(tmp_path))
    n_tasks = 24
    got = run_batches(client, payload, _payload_size, range(n_tasks), fold=list)
    assert got == [1000 + i for i in range(n_tasks)]
    loads = _settled_counts(str(tmp_path), pids)
    # sent to one worker, copied to the others: each worker unpickles it once, not once per task
    assert all(k == 1 for k in loads.values()), loads
    # Dask's active memory manager (on by default) now drops all of Dask's copies but one;
    # the workers keep their own, so a second call sends nothing and unpickles nothing
    client.amm.run_once()
    time.sleep(1.0)
    run_batches(client, payload, _payload_size, range(n_tasks), fold=list)
    assert _settled_counts(str(tmp_path), pids) == loads
    assert isinstance(scatter_graph(client, payload), GraphRef)

    # control: the same object passed as a plain task argument is unpickled
    # per task, which the counter sees
    control = tmp_path / "control"
    control.mkdir()
    plain = _Counted(np.arange(1000), str(control))
    futs = [client.submit(_payload_size, plain, i, None, pure=False) for i in range(n_tasks)]
    client.gather(futs)
    assert sum(_load_counts(str(control), pids).values()) > len(pids)

    # control: a plain broadcast scatter loses its extra copies to the memory manager
    other = client.scatter(np.arange(10), broadcast=True, hash=False)
    assert len(client.who_has([other])[other.key]) == len(pids)
    client.amm.run_once()
    end = time.monotonic() + 2.0
    while len(client.who_has([other])[other.key]) > 1 and time.monotonic() < end:
        time.sleep(0.1)
    assert len(client.who_has([other])[other.key]) == 1


def test_lost_scattered_graph_is_sent_again(tmp_path):
    # one worker: killing it destroys the only copy of the scattered graph
    params = {"marker": str(tmp_path / "killed")}
    batches = RangeBatches(40, 10)
    with start_cluster(1, gpu=False) as c:
        got = run_batches(c, GRAPH, _kill_always_first_part, batches, params)
    assert os.path.exists(params["marker"])
    want = ordered_reduce([_counter_part(GRAPH, b, None) for b in batches], split_every=8)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_worker_that_joins_later_fetches_the_graph_by_name():
    # the workers present when the graph is sent copy it; one that joins (or is restarted by
    # its nanny) fetches it from a peer the first time a task needs it
    from _real_cluster import RealCluster

    from rapids_balance.distributed._graphs import graph_on_worker

    cluster = RealCluster(1)
    try:
        c = cluster.client
        ref = scatter_graph(c, GRAPH)
        cluster.add_worker("late")
        c.wait_for_workers(2, timeout=120)
        late = [a for a, w in c.scheduler_info()["workers"].items() if w["name"] == "late"]
        got = c.submit(graph_on_worker, ref, workers=late, pure=False).result(timeout=120)
        assert np.array_equal(got, GRAPH)
        assert c.list_datasets() == (ref.key,)  # published under its key while the client holds it
    finally:
        cluster.close()


def test_worker_killed_mid_run_loses_and_double_counts_nothing(client, tmp_path):
    params = {"log": str(tmp_path / "runs.log"), "marker": str(tmp_path / "killed"),
              "kill_batch": 5}
    pids_before = set(client.run(os.getpid).values())
    batches = list(range(40))
    got_node, got_edge = run_batches(client, GRAPH, _kill_once_part, batches, params,
                                    split_every=4)
    # the kill really happened, mid-run, and the nanny replaced the worker
    assert os.path.exists(params["marker"])
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != pids_before
    runs = [line.split() for line in open(params["log"]).read().splitlines()]
    ran = [int(b) for b, _ in runs]
    assert ran.count(5) >= 2                # the killed batch was run again...
    assert set(ran) == set(batches)         # ...and every batch ran
    # ...yet each batch is counted exactly once
    want_node, want_edge = ordered_reduce([_counter_part(GRAPH, [b], None) for b in batches],
                                          split_every=4)
    assert np.array_equal(got_node, want_node)
    assert np.array_equal(got_edge, want_edge)
    assert int(got_node.sum()) == len(batches)


def test_cluster_without_workers_fails_before_scattering(monkeypatch):
    import rapids_balance as rb

    cluster = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None)
    empty = distributed.Client(cluster)
    # Dask's scatter would wait 30 s for a worker, then fail with "No valid workers found"
    monkeypatch.setattr(empty, "scatter", lambda *a, **k: pytest.fail("scattered to a cluster with no workers"))
    try:
        g = rb.load_example("highland")
        for owner, call in (
                ("correlation_clustering",
                 lambda: rb.correlation_clustering(g, time_limit=5, client=empty, progress=False)),
                ("balance", lambda: rb.balance(g, 10, client=empty, progress=False)),
                ("frustration", lambda: rb.frustration(g, 10, client=empty, progress=False))):
            with pytest.raises(RuntimeError, match=rf"{owner}\(client=...\): the Dask cluster has no workers"):
                call()
    finally:
        empty.close()
        cluster.close()


def test_start_cluster_listens_on_loopback_only(client):
    # the scheduler (its HTTP endpoints included), the nannies and the workers
    psutil = pytest.importorskip("psutil")
    pids = set(client.run(os.getpid).values())
    ours = [psutil.Process(), *(psutil.Process(p) for p in pids),
            *(psutil.Process(p).parent() for p in pids)]  # this process, workers, nannies
    listening = [(p.pid, c.laddr.ip) for p in ours
                 for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert pids <= {pid for pid, _ in listening}  # the workers were seen
    assert {ip for _, ip in listening} == {"127.0.0.1"}, listening


def test_narrow_counters_sum_exactly_in_fewer_bytes():
    from rapids_balance.distributed._tasks import narrow, sum_narrow

    rng = np.random.default_rng(0)
    a = {"edges": rng.integers(0, 100, 1000), "signed": rng.integers(-100, 100, 1000),
         "trees": np.array([100])}
    b = {"edges": rng.integers(0, 100, 1000), "signed": rng.integers(-30_000, 30_000, 1000),
         "trees": np.array([100])}
    na, nb = narrow(a), narrow(b)
    assert [na[k].dtype for k in a] == [np.int8] * 3
    assert nb["signed"].dtype == np.int16
    total = sum_narrow(na, nb)
    for k in a:  # 100 + 100 overflows int8: the sum is done wide and narrowed after
        assert np.array_equal(total[k].astype(np.int64), a[k] + b[k]), k
    assert total["edges"].dtype == np.int16 and total["edges"].nbytes * 4 == a["edges"].nbytes
    assert narrow((np.zeros(0, np.int64), np.ones(3)))[0].dtype == np.int64  # empty, floats kept


def test_every_worker_counts_where_scheduler_info_lists_five(monkeypatch):
    """distributed 2025.x's ``Client.scheduler_info()`` listed the first five workers only
    (dask/distributed#9045, undone by #9308): on such a release the workers' check, the batch
    cut and the graph's copies must still reach all of them."""
    from distributed import get_task_stream

    from rapids_balance.distributed import _preflight
    from rapids_balance.distributed._run import n_workers

    with start_cluster(6, gpu=False, processes=False) as c:
        real = c.scheduler_info

        def first_five(*args, **kwargs):
            info = dict(real(*args, **kwargs))
            info["workers"] = dict(sorted(info["workers"].items())[:5])
            return info

        monkeypatch.setattr(c, "scheduler_info", first_five)
        asked = []
        ask = _preflight._ask
        monkeypatch.setattr(_preflight, "_ask", lambda cl, w, *a: asked.extend(w) or ask(cl, w, *a))
        assert n_workers(c) == 6
        with get_task_stream(c) as ts:
            got = run_batches(c, np.arange(7), _float_part, RangeBatches(12, 1), {"scale": 1.0},
                              fold=list)
        assert len(got) == 12 and len(set(asked)) == 6
        keeps = {t["worker"] for t in ts.data if t["key"].startswith("keep-graph-")}
        assert len(keeps) == 6  # one copy kept per worker, the sixth included


def test_a_closed_start_cluster_client_lost_no_graph_and_release_graphs_lets_go():
    """The graphs stay published for late workers; the client of ``start_cluster`` lets them go
    before its workers stop (else the scheduler logs that scattered data was lost), and
    ``release_graphs`` does so for any client."""
    import logging

    import rapids_balance as rb
    from rapids_balance.distributed import release_graphs

    records = []
    handler = logging.Handler(level=logging.ERROR)
    handler.emit = records.append
    logger = logging.getLogger("distributed.scheduler")
    logger.addHandler(handler)
    try:
        with start_cluster(2, gpu=False) as c:
            g = rb.load_example("highland")
            rb.balance(g, n_trees=8, seed=1, progress=False, client=c)
            ours = [n for n in c.list_datasets() if str(n).startswith("rapids-balance-graph-")]
            assert len(ours) == 1
            release_graphs(c)
            assert not [n for n in c.list_datasets() if str(n).startswith("rapids-balance-graph-")]
            again = rb.balance(g, n_trees=8, seed=1, progress=False, client=c)  # sent again
            assert again.counters["in_tree"].sum() > 0
    finally:
        logger.removeHandler(handler)
    assert not [r for r in records if "lose scattered data" in r.getMessage()], records


def test_futures_are_tracked_on_the_calling_clients_loop(monkeypatch):
    """``as_completed`` tracks futures on the default client's loop unless told which: in a
    process with two clients (a CPU and a GPU cluster, say) that is the other client's, and a
    10 s clustering on the first came back after 11-14 s (two clusters of separate processes)."""
    import distributed

    seen = []
    real = distributed.as_completed

    def spy(*args, loop=None, **kwargs):
        seen.append(loop)
        return real(*args, loop=loop, **kwargs)

    monkeypatch.setattr(distributed, "as_completed", spy)
    params = {"scale": 0.5}
    with start_cluster(1, gpu=False, processes=False) as a, \
            start_cluster(1, gpu=False, processes=False) as b:
        assert distributed.default_client() is b
        folded = run_batches(a, GRAPH, _float_part, RangeBatches(6, 2), params, fold=list,
                             until=time.time() + 600)
        reduced = run_batches(a, GRAPH, _float_part, RangeBatches(6, 2), params, split_every=2)
    assert len(folded) == 3 and np.array_equal(reduced, ordered_reduce(folded, split_every=2))
    assert len(seen) == 2 and all(loop is a.loop for loop in seen)
