"""GPU kernels (numba's CUDA simulator in CI) give exactly the CPU results."""

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.backend import to_host
from rapids_balance.clustering._objective import slot_weights
from rapids_balance.clustering._state import CPUState, Level


def _graph(seed, n=18, m=40, weighted=False):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    data = {"source": src, "target": dst, "sign": rng.choice([-1, 1], m)}
    if weighted:
        data["weight"] = rng.uniform(0.5, 2.0, m)
        return rb.SignedGraph.from_edgelist(data, sign="sign", weight="weight")
    return rb.SignedGraph.from_edgelist(data, sign="sign")


@pytest.mark.parametrize("mode", ["best", "parallel"])
@pytest.mark.parametrize("seed,weighted,cap", [(0, False, 0), (1, True, 0), (2, False, 3)])
def test_device_local_search_equals_cpu(gpu_backend, mode, seed, weighted, cap):
    from rapids_balance.clustering._gpu import GPUState

    g = _graph(seed, weighted=weighted)
    lv = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
    start = np.zeros(g.n, np.int32) if cap else np.arange(g.n, dtype=np.int32)
    cpu, dev = CPUState(lv, start, cap), GPUState(lv, start, cap)
    if mode == "best":
        c_moves, _ = cpu.vnd_best()
        d_moves, _ = dev.vnd_best()
    else:
        c_moves, _ = cpu.parallel()
        d_moves, _ = dev.parallel()
    assert c_moves == d_moves > 0
    np.testing.assert_array_equal(cpu.labels, dev.host_labels())
    # the device tables hold the same sums as the CPU ones, entry for entry
    np.testing.assert_array_equal(cpu.tlen, to_host(dev.tlen))


@pytest.mark.parametrize("seed,weighted,cap", [(3, False, 0), (4, True, 0), (6, False, 3), (7, False, 5)])
def test_one_launch_vnd_equals_the_stepwise_vnd(gpu_backend, seed, weighted, cap):
    """All moves in one launch (no host read per move) make the moves of one launch per step."""
    from rapids_balance.clustering._gpu import GPUState

    g = _graph(seed, weighted=weighted)
    lv = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
    start = np.zeros(g.n, np.int32) if cap else np.arange(g.n, dtype=np.int32)
    one, steps = GPUState(lv, start, cap), GPUState(lv, start, cap)
    assert one.vnd_best() == steps.vnd_best_stepwise()
    np.testing.assert_array_equal(one.host_labels(), steps.host_labels())
    np.testing.assert_array_equal(to_host(one.tlen), to_host(steps.tlen))
    # a move budget stops both after the same moves
    one, steps = GPUState(lv, start, cap), GPUState(lv, start, cap)
    assert one.vnd_best(max_moves=2) == steps.vnd_best_stepwise(max_moves=2)
    np.testing.assert_array_equal(one.host_labels(), steps.host_labels())


def test_public_api_gpu_equals_cpu(gpu_backend):
    g = _graph(5, n=24, m=60)
    kw = dict(method="grasp", seed=2, max_iterations=2, progress=False)
    a = rb.correlation_clustering(g, backend="cpu", **kw)
    b = rb.correlation_clustering(g, backend=gpu_backend, **kw)
    assert a.imbalance == b.imbalance
    pd.testing.assert_frame_equal(a.labels, b.labels)
    assert b.backend == "gpu"
