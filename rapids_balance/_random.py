"""Counter-based random numbers shared by CPU and GPU kernels.

A kernel never keeps RNG state: the number for (seed, stream, counter) is a
pure hash, so the same seed gives the same draws on every backend and thread
count.  The functions are ``@numba.njit`` bodies, callable from CPU kernels,
from numba-cuda kernels (as device functions) and from plain Python.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["hash32", "hash64", "uniform01", "randint"]

_M32 = np.uint32(0xFFFFFFFF)


@numba.njit(cache=True, inline="always")
def hash32(x):
    """The 32-bit integer hash of graphB+ (``0x45d9f3b`` multiply-xorshift).

    Operates on the low 32 bits of ``x`` and returns a value in [0, 2**32).
    """
    x = np.uint32(np.uint64(x) & np.uint64(0xFFFFFFFF))
    x = np.uint32(((x >> np.uint32(16)) ^ x) * np.uint32(0x45D9F3B))
    x = np.uint32(((x >> np.uint32(16)) ^ x) * np.uint32(0x45D9F3B))
    x = np.uint32((x >> np.uint32(16)) ^ x)
    return x


@numba.njit(cache=True, inline="always")
def hash64(seed, stream, counter):
    """SplitMix64 finaliser of a (seed, stream, counter) triple -> uint64."""
    z = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
         + np.uint64(stream) * np.uint64(0xBF58476D1CE4E5B9)
         + np.uint64(counter) * np.uint64(0x94D049BB133111EB)
         + np.uint64(0x632BE59BD9B4E019))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def uniform01(seed, stream, counter):
    """A float64 in [0, 1) from the top 53 bits of :func:`hash64`."""
    return np.float64(hash64(seed, stream, counter) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True, inline="always")
def randint(seed, stream, counter, n):
    """An integer in [0, n) (n > 0), by multiply-shift on 32 random bits."""
    r = hash64(seed, stream, counter) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))
