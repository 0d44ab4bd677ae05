"""A tiny run's side process fills numba's cache with a part of its kernels, which the main
process then loads instead of compiling (:func:`rapids_balance._ready.ready` with a ``Side``).

Every case runs in a fresh process on an empty ``NUMBA_CACHE_DIR`` and reads numba's own
per-signature counts in the main process (``dispatcher.stats``: cache hits, and cache misses,
which are compiles).  No timed assertions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rapids_balance import _ready

REPO = Path(__file__).resolve().parents[1]

# two cached kernels: ``a`` the main process's own part, ``b`` the side's
_MODULE = textwrap.dedent("""
    import numba

    @numba.njit(cache=True)
    def a(x):
        return x + 1

    @numba.njit(cache=True)
    def b(x):
        return x * 2 + 1

    def compile_b(value):
        b(value)

    def hang(value):
        import time
        time.sleep(600)

    def on_worker():
        import multiprocessing
        from rapids_balance import _ready
        side = _ready.Side("sidemod:compile_b", {"value": 3}, b, lambda: a(1))
        _ready.ready("key", lambda: (a(1), b(3)), side)
        return {"daemon": multiprocessing.current_process().daemon,
                "log": [entry[1] for entry in _ready.side_log],
                "b_hits": sum(b.stats.cache_hits.values()),
                "b_compiled": sum(b.stats.cache_misses.values())}
""")

_MAIN = textwrap.dedent("""
    import json, os, sys
    import sidemod
    from rapids_balance import _ready
    if sys.argv[2] == "one-cpu":
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    if sys.argv[2] == "impatient":
        _ready.SIDE_TIMEOUT_S = 0.5
    if sys.argv[2] == "busy":  # every CPU's run queue full
        os.getloadavg = lambda: (64.0, 64.0, 64.0)
    from numba.core import event
    from rapids_balance._compile_clock import SIDE_EVENT, CompileClock
    side = _ready.Side(sys.argv[1], {"value": 3}, sidemod.b, lambda: sidemod.a(1))
    own, wait = event.TimingListener(), event.TimingListener()
    event.register("numba:compile", own)
    event.register(SIDE_EVENT, wait)
    with CompileClock() as clock:
        _ready.ready("key", lambda: (sidemod.a(1), sidemod.b(3)), side)
    print(json.dumps({"log": [entry[1] for entry in _ready.side_log],
                      "own_compile_s": own.duration if own.done else 0.0,
                      "side_wait_s": wait.duration if wait.done else 0.0,
                      "clock_compile_s": clock.compile_s,
                      "b_hits": sum(sidemod.b.stats.cache_hits.values()),
                      "b_compiled": sum(sidemod.b.stats.cache_misses.values()),
                      "b": sidemod.b(3)}))
""")


def _run(tmp_path: Path, script: str, *args: str, cache: Path | None = None, **env_extra) -> dict:
    cache = cache or tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    # "on": the side starts whatever the load of the machine running the tests
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), RAPIDS_BALANCE_COMPILE_SIDE="on",
               PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]))
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", script, *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def sidemod(tmp_path):
    (tmp_path / "sidemod.py").write_text(_MODULE)
    return tmp_path


def test_side_compiles_its_kernels_and_the_main_process_loads_them(sidemod):
    out = _run(sidemod, _MAIN, "sidemod:compile_b", "all")
    assert out["log"] == ["cold", 0]  # started on a cold cache, exited cleanly
    # the main process found b in the cache the side filled: loaded, never compiled
    assert (out["b_hits"], out["b_compiled"]) == (1, 0)
    assert out["b"] == 7
    # the wait for the side counts as compiling: a command's "compiling kernels" seconds are
    # this call's wall seconds spent compiling or waiting for the side's compiler
    assert out["side_wait_s"] > 0
    assert out["clock_compile_s"] == pytest.approx(out["own_compile_s"] + out["side_wait_s"], abs=1e-3)


def test_a_failing_side_changes_nothing_but_who_compiles(sidemod):
    out = _run(sidemod, _MAIN, "sidemod:no_such_function", "all")
    assert out["log"][0] == "cold" and out["log"][1] not in (0, "timeout")  # the side failed
    assert (out["b_hits"], out["b_compiled"]) == (0, 1)  # so the main process compiled b
    assert out["b"] == 7


def test_a_late_side_is_ended_and_the_main_process_compiles(sidemod):
    out = _run(sidemod, _MAIN, "sidemod:hang", "impatient")
    assert out["log"] == ["cold", "timeout"]
    assert (out["b_hits"], out["b_compiled"]) == (0, 1) and out["b"] == 7


def test_a_side_starts_from_a_daemonic_dask_worker(sidemod, monkeypatch):
    """A real ``dask worker`` (a daemonic process under its nanny, which multiprocessing
    refuses children) with two numba threads starts its side as a subprocess."""
    pytest.importorskip("distributed")
    import _real_cluster

    (sidemod / "cache").mkdir()
    monkeypatch.syspath_prepend(str(sidemod))  # the task's function pickles by reference
    env = _real_cluster.worker_env(NUMBA_NUM_THREADS="2", RAPIDS_BALANCE_NUMBA_THREADS="2",
                                   NUMBA_CACHE_DIR=str(sidemod / "cache"),
                                   RAPIDS_BALANCE_COMPILE_SIDE="on",
                                   PYTHONPATH=os.pathsep.join([str(REPO), str(sidemod)]))
    monkeypatch.setattr(_real_cluster, "worker_env", lambda **extra: env)
    cluster = _real_cluster.RealCluster(1)
    try:
        import sidemod as module

        out = cluster.client.submit(module.on_worker, pure=False).result(timeout=300)
    finally:
        cluster.close()
    assert out["daemon"] is True
    assert out["log"] == ["cold", 0] and (out["b_hits"], out["b_compiled"]) == (1, 0)


def test_no_side_on_a_warm_cache_or_one_cpu(sidemod):
    cache = sidemod / "cache"
    first = _run(sidemod, _MAIN, "sidemod:compile_b", "one-cpu", cache=cache)
    assert first["log"] == ["one cpu"] and first["b_compiled"] == 1  # compiled here, one process
    warm = _run(sidemod, _MAIN, "sidemod:compile_b", "all", cache=cache)
    assert warm["log"] == ["warm"] and (warm["b_hits"], warm["b_compiled"]) == (1, 0)


def test_no_side_on_a_busy_machine_unless_asked_and_none_when_off(sidemod):
    busy = _run(sidemod, _MAIN, "sidemod:compile_b", "busy", RAPIDS_BALANCE_COMPILE_SIDE="auto")
    assert busy["log"] == ["busy"] and busy["b_compiled"] == 1
    asked = _run(sidemod, _MAIN, "sidemod:compile_b", "busy", cache=sidemod / "c2")
    assert asked["log"] == ["cold", 0] and (asked["b_hits"], asked["b_compiled"]) == (1, 0)
    off = _run(sidemod, _MAIN, "sidemod:compile_b", "all", cache=sidemod / "c3",
               RAPIDS_BALANCE_COMPILE_SIDE="off")
    assert off["log"] == ["off"] and off["b_compiled"] == 1


def test_no_side_with_one_numba_thread(sidemod):
    """A process told to use one thread (a Dask worker's share, NUMBA_NUM_THREADS) starts none."""
    out = _run(sidemod, _MAIN, "sidemod:compile_b", "all", NUMBA_NUM_THREADS="1")
    assert out["log"] == ["one cpu"] and out["b_compiled"] == 1


def test_a_cache_that_cannot_be_read_starts_no_side():
    assert _ready._cold(object()) is None  # not a numba dispatcher: no cache to read

    def job():
        return None

    before = len(_ready.side_log)
    _ready.ready(("test-no-side", id(job)), job, _ready.Side("x:y", {}, object(), None))
    assert _ready.side_log[before:] == [(("test-no-side", id(job)), "unknown")]
    with _ready.no_sides():  # warmup's processes: nothing is even looked at
        _ready.ready(("test-no-sides", id(job)), job, _ready.Side("x:y", {}, object(), None))
    assert len(_ready.side_log) == before + 1 and not _ready._no_sides[0]


_SEARCH = textwrap.dedent("""
    import json, sys
    import numpy as np
    import rapids_balance as rb
    from rapids_balance import _ready
    from rapids_balance.clustering import _cpu
    from rapids_balance.frustration_index import _refine
    g = rb.load_example("bitcoin-otc")
    if sys.argv[2] == "no-side":
        _ready._no_sides[0] = True  # as in a side process: ready() starts none
    if sys.argv[1] == "frustration":
        res = rb.frustration(g, 64, seed=3, progress=False)
        out = {"index": res.index, "switched": res.switched.iloc[:, 0].astype(str).tolist()}
        kernel = _refine._match
    else:
        res = rb.correlation_clustering(g, max_iterations=2, seed=3, progress=False)
        out = {"imbalance": res.imbalance, "labels": res.labels["cluster"].tolist()}
        kernel = _cpu.grasp_construct
    print(json.dumps({"result": out, "log": [entry[1] for entry in _ready.side_log],
                      "hits": sum(kernel.stats.cache_hits.values()),
                      "compiled": sum(kernel.stats.cache_misses.values())}))
""")


@pytest.mark.slow
@pytest.mark.parametrize("capability", ["frustration", "cluster"])
def test_searches_with_a_side_load_its_kernels_and_return_the_same_result(tmp_path, capability):
    """frustration's refinement and clustering's constructions compiled by the side process;
    the results equal those of a process that compiled everything itself."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_side = _run(tmp_path, _SEARCH, capability, "side", cache=tmp_path / "a")
    alone = _run(tmp_path, _SEARCH, capability, "no-side", cache=tmp_path / "b")
    assert with_side["log"] == ["cold", 0]
    assert (with_side["hits"], with_side["compiled"]) == (1, 0)
    assert alone["log"] == [] and alone["compiled"] == 1
    assert with_side["result"] == alone["result"]
