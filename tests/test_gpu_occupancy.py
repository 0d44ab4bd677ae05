"""Occupancy arithmetic and the launch-time block check of GPU kernels.

The figures are those of compute capability 9.0 (CUDA C++ Programming Guide,
"Technical Specifications per Compute Capability"): 65536 registers a block
and an SM, given to a warp in steps of 256; 2048 threads and 32 blocks an SM.
"""

from __future__ import annotations

import pytest

from rapids_balance import backend
from rapids_balance._occupancy import (blocks_per_sm, fit_block, max_block_threads, occupancy,
                                       warp_registers)
from rapids_balance.errors import BackendUnavailableError


@pytest.mark.parametrize("regs, threads", [(1, 1024), (32, 1024), (48, 1024), (64, 1024),
                                           (65, 896), (72, 896), (80, 800), (96, 672),
                                           (128, 512), (168, 384), (255, 256)])
def test_max_block_threads_from_registers(regs, threads):
    # whole warps of 32 threads whose registers, rounded up to 256 a warp, fit 65536
    per_warp = -(-regs * 32 // 256) * 256
    assert warp_registers(regs) == per_warp
    assert max_block_threads(regs) == threads == min(1024, (65536 // per_warp) * 32)


@pytest.mark.parametrize("threads, regs, blocks", [
    (128, 80, 6),     # registers bind: 65536 / (128 * 80)
    (256, 32, 8),     # threads bind: 2048 / 256
    (32, 16, 32),     # the 32-block cap binds
    (1024, 64, 1),    # a whole SM's registers in one block
    (1024, 72, 0),    # cannot launch at all
    (96, 40, 17),     # 3 warps of 1280 registers: 65536 // 3840 = 17; threads allow 21
])
def test_blocks_per_sm(threads, regs, blocks):
    assert blocks_per_sm(threads, regs) == blocks


def test_occupancy_of_a_launch():
    assert occupancy(1, 256, 40) == {"resident_per_sm": round(1 / 132, 3), "sms_busy": 1}
    assert occupancy(10_000, 256, 32) == {"resident_per_sm": 8.0, "sms_busy": 132}
    assert occupancy(264, 128, 80)["resident_per_sm"] == 2.0
    assert occupancy(5, 1024, 72) == {"resident_per_sm": 0.0, "sms_busy": 0}


def test_fit_block_keeps_the_work_covered():
    # per block: the blocks (units of work) stay, each gets fewer threads (whole warps)
    assert fit_block(64, 1024, 896, per_block=True) == (64, 896)
    assert fit_block(64, 1024, 900, per_block=True) == (64, 896)
    # one item a thread: at least as many threads as before, in smaller blocks
    for blocks, threads, limit in [(10, 256, 128), (3, 1024, 896), (1, 1024, 40), (7, 512, 300)]:
        b, t = fit_block(blocks, threads, limit, per_block=False)
        assert t <= limit and t % 32 == 0 and b * t >= blocks * threads
    assert fit_block(5, 256, 1024, per_block=False) == (5, 256)


def test_fit_launch_by_layout():
    limit = max_block_threads(72)  # 896: the 1024-thread Boruvka block over 64 registers
    assert backend.fit_launch(64, 1024, limit, "block") == (64, 512)  # power of two: reductions
    assert backend.fit_launch(3, 1024, limit, "grid") == (4, 896)
    assert backend.fit_launch(1, 256, 256, "fixed") == (1, 256)
    with pytest.raises(BackendUnavailableError, match="k_vnd needs 512 threads.*at most 256"):
        backend.fit_launch(1, 512, 256, "fixed", "k_vnd")


class _Overload:
    """numba-cuda's compiled kernel (``dispatcher._Kernel``) as the check reads it: its
    ``max_threads_per_block`` property (numba_cuda/numba/cuda/dispatcher.py, 0.x,
    ``_Kernel.max_threads_per_block``: ``cufunc.attrs.maxthreads``)."""

    def __init__(self, regs):
        self.max_threads_per_block = max_block_threads(regs)


class _Dispatcher:
    """The parts of numba-cuda's ``CUDADispatcher`` the launch uses: ``typeof_pyval``,
    ``compile(argtypes)`` (compiles or returns the overload of those types) and
    ``dispatcher[blocks, threads, stream](*args)``, which a real driver refuses
    (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) when the block is too large for the registers."""

    def __init__(self, regs):
        self.regs = regs
        self.compiled = []
        self.launched = []

    def typeof_pyval(self, a):
        return type(a).__name__

    def compile(self, argtypes):
        self.compiled.append(argtypes)
        return _Overload(self.regs)

    def __getitem__(self, config):
        blocks, threads, _stream = config

        def run(*args):
            if threads > max_block_threads(self.regs):
                raise RuntimeError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
            self.launched.append((blocks, threads, args))
        return run


@pytest.fixture
def real_launch(monkeypatch):
    """The non-simulator launch path of :class:`backend.Kernel`, on the stand-in dispatcher."""
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")
    monkeypatch.setattr(backend, "_current_stream", lambda: "stream")


def _fn(x, y):
    pass


@pytest.mark.parametrize("layout, expect", [("block", (64, 512)), ("grid", (74, 896))])
def test_kernel_launch_refits_an_oversized_block(real_launch, layout, expect):
    d = _Dispatcher(regs=72)
    k = backend.Kernel(d, _fn, layout)
    k[64, 1024](1, 2.0)
    k[64, 1024](3, 4.0)
    assert [c[:2] for c in d.launched] == [expect, expect]
    assert d.compiled == [("int", "float")]  # the limit is asked once per signature
    assert k.refits == 2


def test_kernel_launch_leaves_a_block_that_fits(real_launch):
    d = _Dispatcher(regs=48)
    k = backend.Kernel(d, _fn, "block")
    k[64, 1024](1, 2)
    assert d.launched == [(64, 1024, (1, 2))] and k.refits == 0


def test_kernel_launch_of_at_most_256_threads_asks_nothing(real_launch):
    # 255 registers a thread (the most) still launch 256 threads: no compile, no check
    assert max_block_threads(255) == 256
    d = _Dispatcher(regs=255)
    k = backend.Kernel(d, _fn, "fixed")
    k[3, 256](1, 2)
    assert d.launched == [(3, 256, (1, 2))] and d.compiled == [] and k.refits == 0


def test_kernel_launch_refuses_a_fixed_block_that_cannot_fit(real_launch):
    k = backend.Kernel(_Dispatcher(regs=200), _fn, "fixed")
    with pytest.raises(BackendUnavailableError, match="_fn needs 512 threads"):
        k[1, 512](1, 2)


def test_kernel_layout_is_checked():
    with pytest.raises(ValueError, match="layout"):
        backend.Kernel(_Dispatcher(32), _fn, "warp")
