"""What the CPU and the GPU tree builders share: graphB+'s parent rule, and the
check that every tree of a batch spans the graph.

:mod:`._trees` (CPU kernels and the backend dispatch) and :mod:`._gpu` (CUDA
kernels) both import from here, so neither imports the other's module to
get them.
"""

from __future__ import annotations

import numba
import numpy as np

from .._random import hash32


@numba.njit(cache=True, inline="always")
def parent_key(u, v, level, s2):
    """graphB+'s priority of parent candidate ``u`` for vertex ``v`` (int32).

    ``h(((u << 2) | b) ^ v ^ s2)`` with ``b = (level & 1) | 2`` read as a
    signed 32-bit integer; the candidate with the largest key wins, ties to
    the larger ``u``.  ``level`` is the depth of ``u``.
    """
    b = (np.int64(level) & 1) | 2
    x = ((np.int64(u) << 2) | b) ^ np.int64(v) ^ np.int64(s2)
    h = np.int64(hash32(x))
    if h >= 2147483648:
        h -= 4294967296
    return h


def _check_connected(reached, n):
    reached = np.asarray(reached)
    if (reached != n).any():
        from ..errors import GraphInputError

        raise GraphInputError(
            f"the graph is not connected (a BFS reached {int(reached.min())} of {n} vertices); "
            "build it with component='largest'")
