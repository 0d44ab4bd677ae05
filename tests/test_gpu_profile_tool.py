"""``tools/profile_gpu_kernels.py`` (the GPU runbook's profiling stage) sees every launch.

Run here under numba's CUDA simulator (tests/conftest.py), where no device
time exists: the checks are that every launch of a workload is counted under
its kernel's name, that the host times add up to no more than the wall time,
and that the launch hook is removed afterwards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the checks read the simulator's kernel class and its absence of device times
pytestmark = pytest.mark.simulator_only


@pytest.fixture(scope="module")
def tool():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import profile_gpu_kernels

        yield profile_gpu_kernels
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_profile_counts_every_kernel_launch(tool, tmp_path):
    from numba.cuda.simulator.kernel import FakeCUDAKernel

    from rapids_balance.balancing import _gpu as balancing_gpu
    from rapids_balance.clustering import _gpu as clustering_gpu

    before = FakeCUDAKernel.__getitem__
    out = tmp_path / "profile.json"
    assert tool.main(["--example", "highland", "--quick", "--only", "balance", "clustering",
                      "--out", str(out)]) == 0
    assert FakeCUDAKernel.__getitem__ is before  # the hook is gone
    report = json.loads(out.read_text())
    assert report["simulated"] is True and set(report["workloads"]) == {"balance", "clustering"}

    balance = {r["kernel"]: r for r in report["workloads"]["balance"]["kernels"]}
    # every name is a kernel of the balancing module, and the BFS builds a batch's trees in
    # one launch, its level loop inside the kernel
    assert set(balance) <= {n for n in dir(balancing_gpu) if n.startswith("_k_")}
    assert balance["_k_bfs_groups"]["launches"] >= 1
    assert not {"_k_expand", "_k_settle"} & set(balance)

    clustering = {r["kernel"]: r for r in report["workloads"]["clustering"]["kernels"]}
    # the GPU VND: one build and evaluation, then every move in one launch
    assert clustering["k_build"]["launches"] == 1
    assert clustering["k_vnd"]["launches"] == clustering["k_eval"]["launches"] == 1
    assert "k_argmin" not in clustering and "k_relabel" not in clustering
    assert set(clustering) <= {k.__name__ for k in clustering_gpu._KERNELS.values()}

    for w in report["workloads"].values():
        assert all(r["device_ms"] is None for r in w["kernels"])
        assert sum(r["host_ms"] for r in w["kernels"]) <= w["wall_ms"] + 1e-6
