"""Memory: balance() sizes its work from the memory actually available, and refuses up front."""

import json
import subprocess
import sys

import numba
import numpy as np
import pytest

from rapids_balance.balancing import _engine
from rapids_balance.balancing import balance
from rapids_balance.balancing._engine import BalanceParams, available_memory, memory_needed
from rapids_balance.generators import powerlaw_signed_graph


@pytest.fixture(scope="module")
def graph():
    return powerlaw_signed_graph(2000, seed=4)


def test_too_little_memory_is_refused_before_any_tree(graph, monkeypatch):
    built = []
    monkeypatch.setattr(_engine, "available_memory", lambda: 1000)
    monkeypatch.setattr(_engine, "_batch_cpu", lambda *a, **k: built.append(1))
    need = memory_needed(graph, BalanceParams(n_trees=64))
    with pytest.raises(MemoryError, match=r"needs about .* GiB .* only 0\.00 GiB is available"):
        balance(graph, n_trees=64, progress=False, backend="cpu")
    assert not built
    assert need > 32 * graph.m  # the counters alone


@pytest.mark.parametrize("method", ["path-sign", "cycle"])
def test_chunks_follow_available_memory_without_changing_the_result(graph, monkeypatch, method):
    """Room for one chunk only: one thread's worth of scratch, the same counters."""
    want = balance(graph, n_trees=130, seed=2, method=method, progress=False, backend="cpu")
    p = BalanceParams(n_trees=130, method=method)
    assert memory_needed(graph, p, 1, 130) <= memory_needed(graph, p, 2, 130)
    asked = []

    def needed(g, params, n_chunks=1, batch=1):
        asked.append(n_chunks)
        return 1000 * n_chunks

    monkeypatch.setattr(_engine, "memory_needed", needed)
    monkeypatch.setattr(_engine, "available_memory", lambda: 1500)
    assert _engine.chunks_that_fit(graph, p, 2, 130) == 1
    got = balance(graph, n_trees=130, seed=2, method=method, progress=False, backend="cpu")
    assert 2 in asked or numba.get_num_threads() < 2  # two chunks were considered and refused
    for k, v in want.counters.items():
        assert np.array_equal(v, got.counters[k]), k


def test_path_sign_trees_run_in_one_batch_whatever_the_free_memory(graph, monkeypatch):
    """Block state does not grow with the batch, and a second batch would run its per-thread
    state on top of counters the first one wrote: memory sets the thread chunks, not the batch
    (the cycle walk, whose sides grow with the batch, is still cut by memory)."""
    monkeypatch.setattr(_engine, "available_memory", lambda: 1 << 16)
    assert _engine.batch_size_for(graph, BalanceParams(n_trees=64)) == 64
    assert _engine.batch_size_for(graph, BalanceParams(n_trees=10**6)) == _engine.MAX_CPU_BLOCK_BATCH
    assert _engine.batch_size_for(graph, BalanceParams(n_trees=64, method="cycle")) < 64
    assert _engine.batch_size_for(graph, BalanceParams(n_trees=64, batch_size=7)) == 7


def test_available_memory_honours_the_cgroup_and_address_space(monkeypatch):
    monkeypatch.setattr(_engine, "_available_ram", lambda: 10 << 30)
    monkeypatch.setattr(_engine, "_cgroup_room", lambda: 3 << 30)
    monkeypatch.setattr(_engine, "_address_space_room", lambda: None)
    assert available_memory() == 3 << 30
    monkeypatch.setattr(_engine, "_address_space_room", lambda: 1 << 30)
    assert available_memory() == 1 << 30
    monkeypatch.setattr(_engine, "_cgroup_room", lambda: None)
    monkeypatch.setattr(_engine, "_address_space_room", lambda: None)
    assert available_memory() == 10 << 30


def test_cgroup_files_are_read(monkeypatch, tmp_path):
    limit, usage = tmp_path / "memory.max", tmp_path / "memory.current"
    limit.write_text("1073741824\n")
    usage.write_text("268435456\n")
    monkeypatch.setattr(_engine, "_CGROUP_FILES", ((str(limit), str(usage)),))
    assert _engine._cgroup_room() == (1 << 30) - (1 << 28)
    limit.write_text("max\n")
    assert _engine._cgroup_room() is None


_PEAK_CHILD = r"""
import json, sys
import numba
from rapids_balance.balancing import _engine, balance
from rapids_balance.generators import powerlaw_signed_graph

def rss(key):
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith(key))

balance(powerlaw_signed_graph(3000, seed=1), n_trees=64, progress=False, backend="cpu")  # compile, import
g = powerlaw_signed_graph(int(sys.argv[1]), seed=5)
g.edge_slots  # a graph array, not the call's
chunks = []
real = _engine.chunks_that_fit
_engine.chunks_that_fit = lambda *a: chunks.append(real(*a)) or chunks[-1]
before = rss("VmRSS:")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # the high-water mark restarts here
res = balance(g, n_trees=64, progress=False, backend="cpu")
params = _engine.BalanceParams(n_trees=64)
print(json.dumps({"peak": rss("VmHWM:") - before, "m": g.m, "threads": numba.get_num_threads(),
                  "need": _engine.memory_needed(g, params, max(chunks), _engine.batch_size_for(g, params))}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self (Linux)")
def test_the_estimate_covers_a_whole_call_with_its_attribute_tables():
    """A child process's high-water mark over a 64-tree call with the attribute tables (the
    call's peak: counters, per-thread chunks, the tables) stays within :func:`memory_needed`,
    which sizes the batches and refuses runs that cannot fit."""
    done = subprocess.run([sys.executable, "-c", _PEAK_CHILD, "200000"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert 0 < got["peak"] <= got["need"], got
