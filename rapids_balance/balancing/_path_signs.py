"""Path signs of a batch of spanning trees (ECL-SGB's labeling).

The path sign of a vertex is the product of the signs on its tree path from
the root; the nearest balanced state of the tree is the bipartition
``path_sign < 0``.  Any tree batch (``order``, ``parent``, ``parent_edge``,
see :mod:`._trees`) will do, not only BFS trees.
"""

from __future__ import annotations

import numba
import numpy as np

from .._chunks import cpu_chunks, run_chunks

__all__ = ["path_signs", "path_signs_into"]


@numba.njit(cache=True)
def path_signs_into(order, parent, parent_edge, sign, ps):
    """Path signs of one tree (rows of length n) into ``ps`` (int8)."""
    root = order[0]
    ps[root] = 1
    for i in range(1, order.size):
        v = order[i]
        ps[v] = ps[parent[v]] * sign[parent_edge[v]]


@numba.njit(cache=True, nogil=True)
def _path_signs_chunk(c, n_chunks, order, parent, parent_edge, sign, ps):
    """Trees ``c, c + n_chunks, ...`` of a batch (GIL released: chunks run on threads, see
    :func:`rapids_balance._chunks.run_chunks`; numba's parfors would cost a second of a first call's
    compiling)."""
    for t in range(c, order.shape[0], n_chunks):
        path_signs_into(order[t], parent[t], parent_edge[t], sign, ps[t])


def path_signs(order, parent, parent_edge, sign, *, backend: str | None = None):
    """Path sign of every vertex from its tree's root (ECL-SGB labeling).

    Parameters
    ----------
    order, parent, parent_edge : arrays of shape (T, n), int32
        A tree batch (see the module docstring); any tree, not only BFS.
    sign : array of shape (m,), int8
        Edge signs (+1/-1).
    backend : {"cpu", "gpu"}, optional
        Default: ``"gpu"`` for CuPy inputs, ``"cpu"`` otherwise.

    Returns
    -------
    array of shape (T, n), int8
        ``ps[t, root] = +1`` and ``ps[t, v] = ps[t, parent] * sign[parent_edge]``.

    Notes
    -----
    The CPU path walks ``order`` (parents first) once per tree.  The GPU path
    uses pointer jumping, ``ceil(log2(depth))`` rounds of
    ``ps[v] *= ps[anc[v]]; anc[v] = anc[anc[v]]``, so it needs no level
    structure and works for any tree.

    References
    ----------
    .. [1] VanAusdal, Rusnak, Burtscher, "Signed Graph Balancing in Linear
       Time" (ECL-SGB), Alg. 2.
    """
    if backend is None:
        backend = "gpu" if type(order).__module__.startswith("cupy") else "cpu"
    if backend == "gpu":
        from . import _gpu

        return _gpu.path_signs_gpu(order, parent, parent_edge, sign)
    order = np.ascontiguousarray(order, dtype=np.int32)
    if order.ndim == 1:
        order = order[None, :]
        parent = np.asarray(parent)[None, :]
        parent_edge = np.asarray(parent_edge)[None, :]
    ps = np.empty(order.shape, np.int8)
    parent = np.ascontiguousarray(parent, dtype=np.int32)
    parent_edge = np.ascontiguousarray(parent_edge, dtype=np.int32)
    sign = np.ascontiguousarray(sign, dtype=np.int8)
    k = cpu_chunks(order.shape[0])
    run_chunks(lambda c: _path_signs_chunk(c, k, order, parent, parent_edge, sign, ps), k)
    return ps
