"""Worker processes on one machine share one mapped copy of the graph.

Checked: the file round trip keeps every array (dtype, shape, values,
writeable flag, aliases) and copy-on-write keeps the file intact; on a real
2-process LocalCluster the workers' graph arrays are views of the one file,
results equal the single-process ones, the file goes with the graph object,
a killed worker maps it again, and sharing turned off (or impossible) falls
back to a plain scatter.
"""

from __future__ import annotations

import gc
import mmap
import os
import sys

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")
import dask  # noqa: E402

import rapids_balance as rb  # noqa: E402
from rapids_balance.balancing import balance  # noqa: E402
from rapids_balance.distributed import map_batches, map_reduce, scatter_graph, split_range, start_cluster  # noqa: E402
from rapids_balance.distributed import _shared  # noqa: E402
from rapids_balance.distributed._shared import SharedGraph  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])


class _Holder:
    """A graph-like object: arrays as attributes, plus a small one and a scalar."""

    def __init__(self, n):
        self.big = np.arange(n, dtype=np.int64)
        self.big.flags.writeable = False
        self.alias = self.big
        self.work = np.linspace(0.0, 1.0, n)  # writable
        self.small = np.arange(3)
        self.when = np.arange(n).astype("datetime64[s]")  # not plain numbers: pickled
        self.name = "holder"


def _root_base(a):
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a.obj if isinstance(a, memoryview) else a


def _describe(graph, batch, params):
    """What a worker sees: where each array lives, its flags and a checksum."""
    out = {"pid": os.getpid()}
    for k in ("big", "alias", "work", "small"):
        a = getattr(graph, k)
        out[k] = (type(_root_base(a)).__name__, bool(a.flags.writeable), float(a.sum()))
    out["alias_is_big"] = graph.alias is graph.big or np.shares_memory(graph.alias, graph.big)
    return out


def _sum_part(graph, batch, params):
    """Integer partials that read the shared array; dies once when told to."""
    if params and batch == params["kill_batch"] and not os.path.exists(params["marker"]):
        open(params["marker"], "w").close()
        os._exit(1)
    return np.array([int(graph.big[list(batch)].sum()), len(batch)], np.int64)


def _graph_files():
    d = "/dev/shm" if os.path.isdir("/dev/shm") else None
    return {f for f in os.listdir(d) if f.startswith("rapids-balance-")} if d else set()


@pytest.fixture(scope="module")
def client():
    c = start_cluster(2, gpu=False, processes=True)
    yield c
    c.close()


@pytest.fixture
def share_small(monkeypatch):
    """Share even the tiny test graphs (the client decides what to share)."""
    monkeypatch.setattr(_shared, "MIN_SHARED_BYTES", 0)
    monkeypatch.setattr(_shared, "_MIN_ARRAY_BYTES", 64)


# --- the file, without a cluster ---------------------------------------------

def test_file_round_trip_keeps_arrays_flags_and_aliases(share_small):
    h = _Holder(10_000)
    arrays = _shared._big_arrays(h)
    # 'small' is under the array threshold, 'when' is not a plain number array
    assert set(arrays) == {"big", "alias", "work"}
    path, layout = _shared._write_file(arrays, "tok")
    try:
        offsets = {k: off for k, off, *_ in layout}
        assert offsets["alias"] == offsets["big"] != offsets["work"]
        assert all(off % mmap.PAGESIZE == 0 for off in offsets.values())
        rest = _Holder(4)
        g = _shared._attach_arrays(path, "tok", layout, rest)
        for k in ("big", "alias", "work"):
            a, b = getattr(g, k), getattr(h, k)
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
            assert a.flags.writeable == b.flags.writeable
            assert isinstance(_root_base(a), mmap.mmap)
        assert g.small is rest.small and g.when is rest.when and g.name == "holder"
        # copy-on-write: a worker's write stays in that process, the file keeps the data
        g.work[:] = -1.0
        again = _shared._attach_arrays(path, "tok", layout, rest)
        assert np.array_equal(again.work, h.work)
        with pytest.raises(ValueError):
            g.big[0] = 5
    finally:
        _shared._remove(path)


def test_file_is_owner_only_and_created_exclusively(share_small, monkeypatch):
    # a graph is private data: on a multi-user server no other account may read it,
    # whatever the umask (a permissive one must not widen the mode)
    old = os.umask(0)
    try:
        path, _ = _shared._write_file(_shared._big_arrays(_Holder(1000)), "tok")
    finally:
        os.umask(old)
    try:
        assert os.stat(path).st_mode & 0o777 == 0o600
        assert os.path.basename(path).startswith(f"rapids-balance-{os.getpid()}-")
    finally:
        _shared._remove(path)
    # two graphs written at once get two files (exclusive creation, no shared name)
    a, _ = _shared._write_file(_shared._big_arrays(_Holder(500)), "same")
    b, _ = _shared._write_file(_shared._big_arrays(_Holder(500)), "same")
    try:
        assert a != b
    finally:
        _shared._remove(a)
        _shared._remove(b)
    assert not os.path.exists(a) and not os.path.exists(b)


def test_attach_errors_are_clear(tmp_path, share_small):
    h = _Holder(1000)
    path, layout = _shared._write_file(_shared._big_arrays(h), "right")
    try:
        with pytest.raises(RuntimeError, match="not the shared graph"):
            _shared._attach_arrays(path, "wrong", layout, h)
    finally:
        _shared._remove(path)
    with pytest.raises(RuntimeError, match="another machine.*shared-graph"):
        SharedGraph(str(tmp_path / "gone.graph"), "t", layout, h)


# --- on a real 2-process cluster ---------------------------------------------

def _dask_copy(client, ref):
    """The future of what was sent for the graph ``ref`` names (the workers' own copies
    are made from it)."""
    from rapids_balance.distributed import _graphs

    return _graphs._HELD[client.id][ref.fingerprint]


def test_workers_map_one_file(client, share_small):
    h = _Holder(50_000)
    before = _graph_files()
    seen = map_batches(client, h, _describe, range(8))
    assert len({s["pid"] for s in seen}) == 2  # both worker processes answered
    for s in seen:
        assert s["big"] == ("mmap", False, float(h.big.sum()))
        assert s["work"] == ("mmap", True, float(h.work.sum()))
        assert s["small"][0] == "ndarray"  # small arrays travel in the pickle
        assert s["alias_is_big"]
    made = _graph_files() - before
    assert len(made) == 1
    del h, seen
    gc.collect()
    assert not (_graph_files() & made)  # the file went with the graph object


def test_sharing_off_or_impossible_scatters_the_graph(client, share_small, monkeypatch):
    before = _graph_files()
    with dask.config.set({_shared.CONFIG_KEY: False}):
        seen = map_batches(client, _Holder(20_000), _describe, range(4))
    assert all(s["big"][0] != "mmap" for s in seen)
    plain = _dask_copy(client, scatter_graph(client, _Holder(20_000), shared=False))
    assert client.submit(lambda x: type(x).__name__, plain).result() == "_Holder"
    # a worker that cannot open the file (another machine): plain scatter, no file left
    monkeypatch.setattr(_shared, "_workers_can_open", lambda client, path, token: False)
    seen = map_batches(client, _Holder(20_000), _describe, range(4))
    assert all(s["big"][0] != "mmap" for s in seen)
    assert _graph_files() == before
    # workers that are threads of this process share its memory already: no file
    monkeypatch.undo()
    monkeypatch.setattr(_shared, "MIN_SHARED_BYTES", 0)
    h = _Holder(20_000)
    with start_cluster(1, gpu=False, processes=False) as threads:
        assert map_batches(threads, h, _describe, range(2))[0]["big"][0] != "mmap"
        assert _graph_files() == before  # checked while the graph lives


def test_shared_balance_equals_single_process(client, share_small):
    g = rb.load_example("bitcoin-alpha")
    fut = _dask_copy(client, scatter_graph(client, g))
    assert client.submit(lambda x: type(x).__name__, fut).result() == "SharedGraph"
    local = balance(g, n_trees=24, seed=3, backend="cpu", progress=False)
    dist = balance(g, n_trees=24, seed=3, backend="cpu", progress=False, client=client)
    assert all(np.array_equal(local.counters[k], dist.counters[k]) for k in local.counters)


def test_killed_worker_maps_the_file_again(client, share_small, tmp_path):
    h = _Holder(30_000)
    params = {"kill_batch": range(5 * 100, 6 * 100), "marker": str(tmp_path / "killed")}
    batches = split_range(3000, 100)
    got = map_reduce(client, h, _sum_part, batches, params)
    assert os.path.exists(params["marker"])
    assert got.tolist() == [int(h.big[:3000].sum()), 3000]
    client.wait_for_workers(2, timeout=60)
    seen = map_batches(client, h, _describe, range(4))
    assert all(s["big"][0] == "mmap" for s in seen)


def test_every_capability_on_a_shared_graph_equals_local(client, share_small):
    g = rb.load_example("slashdot-1000")
    bkw = dict(k=200, seed=3, weight=None, backend="cpu")
    pd.testing.assert_frame_equal(rb.edge_betweenness_centrality(g, client=client, **bkw),
                                  rb.edge_betweenness_centrality(g, **bkw), check_exact=True)
    ckw = dict(method="grasp", max_iterations=4, seed=11, backend="cpu", progress=False)
    a = rb.correlation_clustering(g, **ckw)
    b = rb.correlation_clustering(g, client=client, **ckw)
    assert a.imbalance == b.imbalance
    pd.testing.assert_frame_equal(a.labels, b.labels)
    fkw = dict(n_trees=24, seed=9, backend="cpu", progress=False)
    fa, fb = rb.frustration(g, **fkw), rb.frustration(g, client=client, **fkw)
    assert fa.index == fb.index
    assert np.array_equal(fa.cloud_states(), fb.cloud_states())


# --- leftovers: the owner removes its file at exit; a killed owner's file goes at the next use ---

_OWNER = """
import sys, time, numpy as np
from rapids_balance.distributed import _shared
_shared.MIN_SHARED_BYTES = 0

class Client:
    class cluster:
        processes = True
    def run(self, fn, *args):
        return {"worker": fn(*args)}

class G:
    def __init__(self):
        self.big = np.arange(100_000)

g = G()
shared = _shared.share_graph(Client(), g, g)
print(shared.path, flush=True)
if sys.argv[1] == "wait":
    time.sleep(600)
"""


def _owner(mode: str):
    import subprocess

    return subprocess.Popen([sys.executable, "-c", _OWNER, mode], stdout=subprocess.PIPE, text=True)


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm")
def test_owner_removes_its_file_at_exit():
    proc = _owner("exit")
    path = proc.stdout.readline().strip()
    assert proc.wait(timeout=120) == 0
    proc.stdout.close()
    assert path.startswith("/dev/shm/rapids-balance-") and not os.path.exists(path)


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm")
def test_file_of_a_killed_owner_is_removed_at_the_next_use(share_small):
    import signal

    proc = _owner("wait")
    path = proc.stdout.readline().strip()
    try:
        assert os.path.exists(path)
        # while its owner runs, the file is left alone
        mine, _ = _shared._write_file(_shared._big_arrays(_Holder(1000)), "tok")
        assert os.path.exists(path)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
    assert os.path.exists(path)  # SIGKILL: nothing of the owner ran
    again = None
    try:
        again, _ = _shared._write_file(_shared._big_arrays(_Holder(1000)), "tok")
        assert not os.path.exists(path)
        assert os.path.exists(mine) and os.path.exists(again)  # this process's files stay
    finally:
        for p in (mine, again):
            if p:
                _shared._remove(p)
