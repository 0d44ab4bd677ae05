"""numba-cuda kernels of the null models: a batch of sign shuffles on the device.

One block a sample copies the signs into its row and runs the CPU's
Fisher-Yates body (:func:`._nulls.shuffle_in_place`, the same counter-based
draws) as a device function, so sample ``i``'s signs are the CPU's bit for
bit.  The triangle statistic then counts the four triangle types of every
sample in one launch (:func:`rapids_balance.measures._triangle_gpu.type_counts_gpu`,
integer atomics) over the triangle list made once for the topology.
Imported only when ``backend="gpu"``.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from ..backend import array_module, device_array, device_function, gpu_kernel, to_host
from . import _nulls

__all__ = ["shuffled_signs_gpu", "TriangleShuffles"]

_shuffle_row = device_function(_nulls.shuffle_in_place)


#: threads of a :func:`_k_shuffle` block: a warp copies the signs, its first lane shuffles them
SHUFFLE_THREADS = 32


@gpu_kernel(layout="block")
def _k_shuffle(sign, seeds, out):
    """Block per sample: its row of ``out`` is ``sign`` shuffled with its seed.

    The block's threads copy the signs into the row together (coalesced);
    the shuffle is a chain of swaps, each reading the row the swap before
    left, so its first thread runs it alone, with the CPU's draws.
    """
    b = cuda.blockIdx.x
    if b < seeds.size:
        row = out[b]
        for e in range(cuda.threadIdx.x, sign.size, cuda.blockDim.x):
            row[e] = sign[e]
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            _shuffle_row(row, seeds[b])


def shuffled_signs_gpu(sign, seeds):
    """``shuffled_signs(sign, s)`` for every ``s`` of ``seeds``: (B, m) int8 on the device."""
    xp = array_module("gpu")
    seeds = np.asarray(seeds, dtype=np.uint64)
    out = xp.empty((seeds.size, len(sign)), dtype=np.int8)
    if seeds.size and len(sign):
        _k_shuffle[seeds.size, SHUFFLE_THREADS](device_array(sign, np.int8), device_array(seeds), out)
    return out


class TriangleShuffles:
    """The triangle balance ratio of shuffle-null samples, a batch at a time on the device.

    The triangles are listed once (on the host, as the CPU path lists them)
    and uploaded with the signs; a batch is two launches (the shuffles, the
    type counts) and one copy of its (B, 4) counts back.  The ratios are
    made from the integer counts as the CPU makes them, so they are equal.
    """

    def __init__(self, graph, tri: np.ndarray):
        self.sign = device_array(np.ascontiguousarray(graph.sign, dtype=np.int8))
        self.tri = device_array(np.ascontiguousarray(tri, dtype=np.int64))

    def __call__(self, seeds) -> np.ndarray:
        from ..measures import balance_ratio_of_counts
        from ..measures._triangle_gpu import type_counts_gpu

        counts = to_host(type_counts_gpu(self.tri, shuffled_signs_gpu(self.sign, seeds)))
        return np.array([balance_ratio_of_counts(c) for c in counts], dtype=np.float64)
