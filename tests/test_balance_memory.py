"""Memory: balance() sizes its work from the memory actually available, and refuses up front."""

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
