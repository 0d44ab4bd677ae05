"""How many thread blocks of a kernel an SM holds, and the block a launch can really take.

A block launches only when the SM can hold all of its threads' registers:
at compute capability 9.0 an SM (and one block) has 65536 registers, given
out per warp in steps of 256, so a kernel's registers per thread (what
ptxas allocates, ``tools/check_gpu_compile.py``) cap its threads per block
below CUDA's 1024 (at most 64 registers a thread for 1024 threads).  The
same numbers give the resident blocks per SM the device work model counts
(``benchmarks/bench_gpu_model.py``).

The reference device is the H100 SXM the models assume (132 SMs, 2048
threads, 32 blocks and 65536 registers an SM: CUDA C++ Programming Guide,
"Technical Specifications per Compute Capability", 9.0).
"""

from __future__ import annotations

WARP = 32
#: SMs of the reference H100 SXM
SM_COUNT = 132
#: per SM at compute capability 9.0: resident blocks, resident threads, registers
MAX_BLOCKS_PER_SM = 32
MAX_THREADS_PER_SM = 2048
REGISTERS_PER_SM = 65536
#: per block at compute capability 9.0: threads, registers
MAX_THREADS_PER_BLOCK = 1024
REGISTERS_PER_BLOCK = 65536
#: registers are given to a warp in steps of this many; a thread has at most 255
REGISTER_UNIT = 256
MAX_REGISTERS_PER_THREAD = 255
#: the fill target of a launch carrying O(m) work: this many resident blocks per SM, or
#: this many blocks per SM in the launch
MIN_BLOCKS_PER_SM = 4


def warp_registers(registers: int) -> int:
    """Registers one warp takes for ``registers`` a thread (rounded up to the allocation unit)."""
    per_warp = max(int(registers), 1) * WARP
    return -(-per_warp // REGISTER_UNIT) * REGISTER_UNIT


def max_block_threads(registers: int) -> int:
    """Most threads a block of a kernel of ``registers`` registers a thread can launch with:
    whole warps whose registers fit one block's, at most :data:`MAX_THREADS_PER_BLOCK`.

    >>> max_block_threads(64), max_block_threads(72), max_block_threads(255)
    (1024, 896, 256)
    """
    warps = REGISTERS_PER_BLOCK // warp_registers(registers)
    return int(min(MAX_THREADS_PER_BLOCK, warps * WARP))


def blocks_per_sm(threads: int, registers: int) -> int:
    """Blocks of ``threads`` threads (``registers`` a thread) one SM keeps resident at once:
    bound by :data:`MAX_BLOCKS_PER_SM`, :data:`MAX_THREADS_PER_SM` and the SM's registers
    (0 when such a block cannot launch at all).  Shared memory is not counted: the
    library's kernels use at most a few KiB a block, far below an SM's 228 KiB.

    >>> blocks_per_sm(128, 80), blocks_per_sm(1024, 64), blocks_per_sm(1024, 72)
    (6, 1, 0)
    """
    threads = max(int(threads), 1)
    if threads > max_block_threads(registers):
        return 0
    warps = -(-threads // WARP)
    return int(min(MAX_BLOCKS_PER_SM, MAX_THREADS_PER_SM // (warps * WARP),
                   REGISTERS_PER_SM // (warps * warp_registers(registers))))


def occupancy(blocks: int, threads: int, registers: int, sm_count: int = SM_COUNT) -> dict:
    """A launch of ``blocks`` blocks read against the device: ``resident_per_sm`` (blocks an SM
    holds at once in this launch: what it can hold, or fewer when the launch has fewer
    blocks than that over every SM) and ``sms_busy`` (SMs given at least one block)."""
    per_sm = blocks_per_sm(threads, registers)
    blocks = max(int(blocks), 0)
    return {"resident_per_sm": round(min(float(per_sm), blocks / max(sm_count, 1)), 3),
            "sms_busy": int(min(sm_count, blocks)) if per_sm else 0}


def fit_block(blocks: int, threads: int, limit: int, *, per_block: bool) -> tuple[int, int]:
    """The launch ``(blocks, threads)`` when a block may have at most ``limit`` threads.

    Parameters
    ----------
    blocks, threads : int
        The launch the caller asked for.
    limit : int
        Most threads a block of the compiled kernel launches with
        (:func:`max_block_threads` of its registers, or the driver's figure).
    per_block : bool
        True for a kernel whose block is a unit of work (a tree, a source)
        and whose threads stride over it by ``blockDim``: the blocks stay
        and each gets fewer threads.  False for a kernel of one item a
        thread (``cuda.grid(1)`` against a bound): the threads stay covered
        by more, smaller blocks.

    Returns
    -------
    (int, int)
        The launch unchanged when ``threads <= limit``; else a block of
        ``limit`` threads rounded down to whole warps (at least one warp).

    >>> fit_block(64, 1024, 896, per_block=True)
    (64, 896)
    >>> fit_block(10, 256, 128, per_block=False)
    (20, 128)
    """
    if threads <= limit:
        return blocks, threads
    smaller = max(WARP, (int(limit) // WARP) * WARP)
    if per_block:
        return blocks, smaller
    return -(-blocks * threads // smaller), smaller
