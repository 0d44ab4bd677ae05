"""Faults on a real cluster are named, never hung.

A ``dask worker`` process started from an environment where rapids-balance
cannot be imported (or is another version) joins a real scheduler beside a
good worker: every capability called with ``client=`` must refuse before any
work, within seconds, naming that worker and what it lacks.  Without the
check the call hangs (the worker can never unpickle the graph or a task).
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

pytest.importorskip("distributed")

import rapids_balance as rb  # noqa: E402
from rapids_balance.distributed._preflight import WorkerEnvironmentError, check_workers  # noqa: E402

from _real_cluster import RealCluster, worker_env  # noqa: E402

SHADOWS = {
    # an environment whose rapids_balance cannot be imported
    "missing": 'raise ImportError("No module named \'rapids_balance\'")\n',
    # another release of it
    "other-version": '__version__ = "0.0.1.dev0"\n',
}


@pytest.fixture(scope="module", params=sorted(SHADOWS))
def mixed(request, tmp_path_factory):
    """A real cluster: one good worker and one from an environment with ``request.param``."""
    shadow = tmp_path_factory.mktemp(request.param)
    (shadow / "rapids_balance").mkdir()
    (shadow / "rapids_balance" / "__init__.py").write_text(SHADOWS[request.param])
    cluster = RealCluster(1)
    try:
        env = worker_env()
        env["PYTHONPATH"] = f"{shadow}:{env['PYTHONPATH']}"  # found before the real package
        cluster.add_worker("bad", env)
        cluster.client.wait_for_workers(2, timeout=120)
        bad = [a for a, w in cluster.client.scheduler_info()["workers"].items() if w["name"] == "bad"]
        yield cluster.client, bad[0], request.param
    finally:
        cluster.close()


@pytest.mark.parametrize("call", ["balance", "frustration", "betweenness", "clustering"])
def test_worker_without_the_package_is_named_before_any_work(mixed, call):
    client, bad, kind = mixed
    g = rb.load_example("slashdot-1000")
    run = {
        "balance": lambda: rb.balance(g, n_trees=8, seed=1, backend="cpu", progress=False,
                                      client=client),
        "frustration": lambda: rb.frustration(g, n_trees=8, seed=1, backend="cpu", progress=False,
                                              client=client),
        "betweenness": lambda: rb.betweenness_centrality(g, k=16, seed=1, backend="cpu",
                                                         client=client),
        "clustering": lambda: rb.correlation_clustering(g, method="grasp", max_iterations=2,
                                                        seed=1, backend="cpu", progress=False,
                                                        client=client),
    }[call]
    t0 = time.monotonic()
    with pytest.raises(WorkerEnvironmentError) as err:
        run()
    assert time.monotonic() - t0 < 30  # not a hang: the check answers within seconds
    msg = str(err.value)
    assert bad in msg and "1 Dask worker(s)" in msg  # the bad worker, and only it
    if kind == "missing":
        assert "cannot import rapids_balance" in msg
    else:
        assert "rapids_balance 0.0.1.dev0, the client has " + rb.__version__ in msg
    # nothing was submitted: the scheduler knows no task of the call
    assert not client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks))


def test_a_worker_that_does_not_answer_is_named_within_the_timeout():
    """A frozen worker (stopped by a signal) keeps its connections open but answers nothing:
    the check gives up after its timeout and names it."""
    cluster = RealCluster(1)
    try:
        (address, pid), = cluster.client.run(os.getpid).items()
        os.kill(pid, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            with pytest.raises(WorkerEnvironmentError,
                               match=re.escape(address) + " did not say within 2 s"):
                check_workers(cluster.client, "balance", timeout=2.0)
            assert time.monotonic() - t0 < 10
        finally:
            os.kill(pid, signal.SIGCONT)
    finally:
        cluster.close()
