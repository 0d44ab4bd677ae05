"""Test configuration.

GPU kernels run under numba's CUDA simulator in this suite (the variable must
be set before numba is imported), so every kernel is exercised on machines
without a GPU.  Simulator tests use tiny graphs: the simulator runs each
thread as a Python thread.  Tests marked ``gpu`` need a real GPU and run when
``RAPIDS_BALANCE_REAL_GPU=1`` is set on a GPU machine (the simulator is then
left off).
"""

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


def pytest_collection_modifyitems(config, items):
    if REAL_GPU:
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


@pytest.fixture(scope="session")
def gpu_backend() -> str:
    """The backend name that runs the GPU kernels here (simulator or real GPU)."""
    from rapids_balance.backend import gpu_status

    if not gpu_status().usable:
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
