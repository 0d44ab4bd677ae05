"""numba-cuda kernels of the triangle listing (CuPy arrays; numpy under the simulator).

One thread a vertex runs the same ``@numba.njit`` body as the CPU
(:func:`._triangle_kernels.triangles_at`, counting then filling) as a device
function, so the list is the CPU's, row for row.  The type and
per-edge counters are integer atomics: their sums do not depend on the
order the threads add them in.  Imported only when ``backend="gpu"``.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from ..backend import array_module, device_array, device_function, gpu_kernel, launch_config
from . import _triangle_kernels as _k

__all__ = ["list_triangles_gpu", "tally_gpu", "type_counts_gpu"]

triangles_at = device_function(_k.triangles_at)


@gpu_kernel
def k_count(optr, oind, oedge, none, counts):
    u = cuda.grid(1)
    if u < counts.size:
        counts[u] = triangles_at(u, optr, oind, oedge, 0, none, False)


@gpu_kernel
def k_fill(optr, oind, oedge, offsets, out):
    u = cuda.grid(1)
    if u < offsets.size:
        triangles_at(u, optr, oind, oedge, offsets[u], out, True)


@cuda.jit(device=True)
def _negatives(tri, t, sign):
    """Negative edges of triangle ``t`` (its type, 0..3)."""
    k = 0
    for c in range(3):
        if sign[tri[t, c]] < 0:
            k += 1
    return k


@gpu_kernel
def k_tally(tri, sign, types, edge_bal, edge_unb):
    t = cuda.grid(1)
    if t < tri.shape[0]:
        k = _negatives(tri, t, sign)
        cuda.atomic.add(types, k, 1)
        for c in range(3):
            if k % 2 == 0:
                cuda.atomic.add(edge_bal, tri[t, c], 1)
            else:
                cuda.atomic.add(edge_unb, tri[t, c], 1)


@gpu_kernel
def k_type_counts(tri, signs, counts):
    """Thread per (sample, triangle): its type under the sample's signs, an integer atomic."""
    i = cuda.grid(1)
    T = tri.shape[0]
    if i < signs.shape[0] * T:
        b = i // T
        cuda.atomic.add(counts, (b, _negatives(tri, i - b * T, signs[b])), 1)


def list_triangles_gpu(optr, oind, oedge):
    """The triangle list (int64, T x 3) on the device, from the oriented CSR."""
    xp = array_module("gpu")
    optr, oind, oedge = device_array(optr), device_array(oind), device_array(oedge)
    n = optr.shape[0] - 1
    counts = xp.zeros(max(n, 1), dtype=np.int64)[:n]
    blocks, threads = launch_config(n, 32)
    if n:
        k_count[blocks, threads](optr, oind, oedge, xp.zeros((1, 3), dtype=np.int64), counts)
    offsets = xp.zeros(n, dtype=np.int64)
    if n > 1:
        offsets[1:] = xp.cumsum(counts)[:-1]
    total = int(counts.sum()) if n else 0
    out = xp.zeros((max(total, 1), 3), dtype=np.int64)
    if total:
        k_fill[blocks, threads](optr, oind, oedge, offsets, out)
    return out[:total]


def tally_gpu(tri, sign, m):
    """:func:`._triangle_kernels.tally` on the device (integer atomics)."""
    xp = array_module("gpu")
    types = xp.zeros(4, dtype=np.int64)
    edge_bal = xp.zeros(max(m, 1), dtype=np.int64)
    edge_unb = xp.zeros(max(m, 1), dtype=np.int64)
    if tri.shape[0]:
        blocks, threads = launch_config(tri.shape[0], 64)
        k_tally[blocks, threads](tri, device_array(sign), types, edge_bal, edge_unb)
    return types, edge_bal[:m], edge_unb[:m]


def type_counts_gpu(tri, signs):
    """:func:`._triangle_kernels.type_counts` of every row of ``signs`` (B, m) at once:
    (B, 4) int64 on the device, one launch."""
    xp = array_module("gpu")
    counts = xp.zeros((signs.shape[0], 4), dtype=np.int64)
    if tri.shape[0] and signs.shape[0]:
        blocks, threads = launch_config(signs.shape[0] * tri.shape[0])
        k_type_counts[blocks, threads](tri, signs, counts)
    return counts
