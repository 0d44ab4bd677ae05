"""One current device per call: CuPy and numba-cuda agree on it.

Under the simulator (tests/conftest.py turns it on) there is one device;
the selection on a machine with several GPUs is checked with recording
stand-ins of CuPy's and numba-cuda's device calls (``cupy.cuda.Device``,
``cupy.cuda.runtime.getDevice``, ``numba.cuda.gpus[i]``,
``get_current_device``, ``select_device``).
"""

from __future__ import annotations

import contextlib
import sys
import types

import numpy as np
import pytest
from numba import cuda

import rapids_balance as rb
from rapids_balance import backend


def test_simulator_scope_is_device_zero_and_kernels_run_inside():
    assert backend.simulator_enabled()

    def double(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = 2 * i

    kernel = backend.Kernel(cuda.jit(double), double)
    out = np.zeros(8, np.int64)
    with backend.device_scope(out) as dev:
        kernel[1, 8](out)
    assert dev == 0 and out.tolist() == [2 * i for i in range(8)]


class _Devices:
    """What CuPy and numba-cuda each take as the current device, changed only through their calls."""

    def __init__(self):
        self.cupy, self.numba, self.log = 0, 0, []

    def cupy_module(self):
        devices = self

        @contextlib.contextmanager
        def Device(i):  # cupy.cuda.Device(i) as a context manager: current inside, restored after
            before, devices.cupy = devices.cupy, i
            devices.log.append(("cupy", i))
            yield
            devices.cupy = before

        runtime = types.SimpleNamespace(getDevice=lambda: devices.cupy)
        cuda = types.SimpleNamespace(Device=Device, runtime=runtime)
        return types.SimpleNamespace(cuda=cuda, __name__="cupy")

    def numba_cuda(self):
        devices = self

        @contextlib.contextmanager
        def gpu(i):  # numba.cuda.gpus[i]: pushes device i's context, pops it after
            before, devices.numba = devices.numba, i
            devices.log.append(("numba", i))
            yield
            devices.numba = before

        def select_device(i):
            devices.numba = i
            devices.log.append(("numba select", i))

        return types.SimpleNamespace(
            gpus=_GpuList(gpu),
            get_current_device=lambda: types.SimpleNamespace(id=devices.numba),
            select_device=select_device)


class _GpuList:
    def __init__(self, gpu):
        self._gpu = gpu

    def __getitem__(self, i):
        return self._gpu(i)


class _CupyArray:
    """Stands for a CuPy array on device ``i`` (its type's module is ``cupy``)."""

    def __init__(self, i):
        self.device = types.SimpleNamespace(id=i)


_CupyArray.__module__ = "cupy._core.core"


@pytest.fixture
def devices(monkeypatch):
    d = _Devices()
    monkeypatch.setattr(backend, "simulator_enabled", lambda: False)
    monkeypatch.setitem(sys.modules, "cupy", d.cupy_module())
    monkeypatch.setattr(backend, "cuda", d.numba_cuda)
    return d


def test_scope_selects_the_arrays_device_in_cupy_and_numba_and_restores_both(devices):
    with backend.device_scope(np.zeros(2), _CupyArray(2)) as dev:
        assert dev == 2 and (devices.cupy, devices.numba) == (2, 2)
    assert (devices.cupy, devices.numba) == (0, 0)
    assert devices.log == [("cupy", 2), ("numba", 2)]


def test_scope_without_device_arrays_takes_cupys_current_device(devices):
    devices.cupy = 3
    with backend.device_scope(np.zeros(2)) as dev:
        assert dev == 3 and devices.numba == 3
    assert devices.numba == 0


def test_a_launch_makes_numba_follow_cupys_device(devices):
    devices.cupy, devices.numba = 1, 0
    assert backend._follow_cupy_device() == 1 and devices.numba == 1
    devices.log.clear()
    backend._follow_cupy_device()
    assert devices.log == []  # already agreeing: nothing selected


def test_public_call_on_a_device_graph_runs_in_one_device_scope(monkeypatch):
    """balance() on a graph kept on the device enters the scope once, with the graph's arrays."""
    import _standins as standins

    standins.install(monkeypatch)
    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(
        __import__("pandas").DataFrame({"s": [1, 2, 3], "d": [2, 3, 1], "v": [1, -1, 1]})), sign="v")
    entered = []
    real = backend.device_scope

    @contextlib.contextmanager
    def scope(*arrays):
        entered.append(len(arrays))
        with real(*arrays) as dev:
            yield dev

    monkeypatch.setattr(backend, "device_scope", scope)
    rb.balance(graph, n_trees=2, progress=False, backend="cpu")
    assert entered == [len(graph.device_arrays())]
