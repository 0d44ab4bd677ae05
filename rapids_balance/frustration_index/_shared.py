"""What the CPU kernels and the GPU kernels (:mod:`._gpu`) of frustration share.

The seeded keys both backends compute the same way (Kruskal/Boruvka edge
keys, parallel-descent move priorities), the stream of the state hash and
the words per state.  The CPU modules (:mod:`._samplers`, :mod:`._refine`,
:mod:`._states`) and :mod:`._gpu` import them from here, so the GPU module
imports none of the CPU modules and they import it only to dispatch.
"""

from __future__ import annotations

import numba
import numpy as np

from .._random import hash64

KRUSKAL_STREAM = 0x4B52534B   # "KRSK": edge weights
MOVE_STREAM = 0x4D4F5645     # "MOVE": priorities in parallel descent
HASH_STREAM = 0x53544154  # "STAT"


@numba.njit(cache=True, inline="always")
def mst_key(seed, e, shift):
    """Random weight of edge ``e`` in tree ``seed``: hash bits above, the edge id below.

    Keys are distinct, so the minimum spanning tree is unique: Kruskal's (CPU)
    and Borůvka's (GPU) algorithms build the same tree.
    """
    h = hash64(seed, KRUSKAL_STREAM, e)
    return ((h >> np.uint64(shift)) << np.uint64(shift)) | np.uint64(e)


@numba.njit(cache=True, inline="always")
def _move_priority(d, v, seed):
    """Gain first, then a seeded random tie break (unique per vertex)."""
    return (np.int64(d) << 32) | np.int64(hash64(seed, MOVE_STREAM, v) >> np.uint64(33))


def n_words(n: int) -> int:
    """uint64 words holding one bit per vertex."""
    return (int(n) + 63) // 64
