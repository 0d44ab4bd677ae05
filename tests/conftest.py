"""Test configuration.

GPU kernels run under numba's CUDA simulator in this suite (the variable must
be set before numba is imported), so every kernel is exercised on machines
without a GPU.  Simulator tests use tiny graphs: the simulator runs each
thread as a Python thread.  Tests marked ``gpu`` need a real GPU and run when
``RAPIDS_BALANCE_REAL_GPU=1`` is set on a GPU machine (the simulator is then
left off); there a GPU probe that fails (or finds the simulator on) fails every
test that would have used the GPU, with the probe's reason, rather than skip
it.  Tests marked ``simulator_only`` check the simulator itself and skip on a
real GPU.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REAL_GPU = os.environ.get("RAPIDS_BALANCE_REAL_GPU", "") not in ("", "0")
if not REAL_GPU:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# the skip reason of every test that reads the public graphs in ../shared/data
NO_SHARED_DATA = (f"needs the public signed graphs in ../shared/data beside the checkout "
                  f"({SHARED_DATA}), which is absent")


def _real_gpu_failure() -> str | None:
    """Why the GPU this run was promised (``RAPIDS_BALANCE_REAL_GPU=1``) is not there; None when it is."""
    from rapids_balance.backend import gpu_status

    status = gpu_status()
    if not status.usable:
        return f"RAPIDS_BALANCE_REAL_GPU=1 but the GPU probe failed: {status.reason}"
    if status.simulated:
        return "RAPIDS_BALANCE_REAL_GPU=1 but NUMBA_ENABLE_CUDASIM is set: the kernels would run simulated"
    return None


def pytest_collection_modifyitems(config, items):
    if REAL_GPU:
        skip_sim = pytest.mark.skip(reason="checks numba's CUDA simulator itself (a real GPU is on)")
        for item in items:
            if "simulator_only" in item.keywords:
                item.add_marker(skip_sim)
        return
    skip_gpu = pytest.mark.skip(reason="needs a real GPU (set RAPIDS_BALANCE_REAL_GPU=1 on a GPU machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests that need it skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(NO_SHARED_DATA)
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _promised_gpu_answers(request):
    """On a run promised a real GPU, a ``gpu``-marked test fails when the probe did."""
    if REAL_GPU and request.node.get_closest_marker("gpu") is not None:
        why = _real_gpu_failure()
        if why:
            pytest.fail(why, pytrace=False)


@pytest.fixture(scope="session")
def gpu_backend() -> str:
    """The backend name that runs the GPU kernels here (simulator or real GPU)."""
    from rapids_balance.backend import gpu_status

    if REAL_GPU:
        why = _real_gpu_failure()
        if why:
            pytest.fail(why, pytrace=False)
    elif not gpu_status().usable:
        pytest.skip("no GPU and no simulator")
    return "gpu"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how many tests skipped because ../shared/data is absent, and where it belongs."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and NO_SHARED_DATA in str(r.longrepr[2])]
    if skipped:
        terminalreporter.write_sep("-", "shared data")
        terminalreporter.write_line(
            f"{len(skipped)} test(s) skipped: the public signed graphs they read belong in "
            f"{SHARED_DATA} (../shared/data beside the checkout), which is absent.")


@pytest.fixture(scope="session")
def real_clients():
    """``real_clients(n)``: a client of a real cluster of ``n`` worker processes.

    A ``dask scheduler`` and ``n`` ``dask worker`` OS processes on 127.0.0.1
    (tests/_real_cluster.py), started on first use, shared by the whole test run
    and stopped at its end.
    """
    pytest.importorskip("distributed")
    from _real_cluster import RealCluster

    clusters: dict[int, RealCluster] = {}

    def get(n: int):
        if n not in clusters:
            clusters[n] = RealCluster(n)
        return clusters[n].client

    get.clusters = clusters
    yield get
    for cluster in clusters.values():
        cluster.close()
