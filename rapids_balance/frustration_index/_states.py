"""Balanced states of a tree batch: canonical bit vectors, hashes, switch counts.

The nearest balanced state of a tree is the Harary bipartition
``side = path_sign < 0`` (DESIGN.md, spanning trees).  A bipartition and its
mirror image are the same state, so a state is stored *canonically*: vertex 0
on side 0, i.e. ``bit[v] = path_sign[v] != path_sign[0]``, packed 64 vertices
to a ``uint64`` word.  Its key is a 64-bit hash of the words (only a hint:
the cloud confirms equal keys by comparing the words), and its number of
switches is the number of edges with ``sign[e] * ps[u] * ps[v] < 0``.

The CPU kernel handles the trees of a batch in parallel (chunks of trees on threads); the GPU kernels do
the same with one thread per (tree, word) and per (tree, edge).  Both call
the same ``@njit`` bodies, so states, hashes and counts are identical.
"""

from __future__ import annotations

import numba
import numpy as np

from .._random import hash64
from .._chunks import cpu_chunks, run_chunks
from ..errors import GraphInputError
from ._shared import HASH_STREAM, n_words

__all__ = ["n_words", "tree_states", "state_words", "words_to_sides", "count_frustrated",
           "side_vector", "bfs_sides"]


@numba.njit(cache=True, inline="always")
def _word_of(ps, w, n):
    """Word ``w`` of the canonical bit vector of path signs ``ps``."""
    ref = ps[0]
    out = np.uint64(0)
    lo = w * 64
    hi = min(lo + 64, n)
    for v in range(lo, hi):
        if ps[v] != ref:
            out |= np.uint64(1) << np.uint64(v - lo)
    return out


@numba.njit(cache=True, inline="always")
def _hash_words(words):
    h = np.uint64(0x243F6A8885A308D3)
    for k in range(words.size):
        h = hash64(h ^ words[k], HASH_STREAM, k)
    return h


@numba.njit(cache=True, inline="always")
def _switches_of(ps, edge_src, edge_dst, sign):
    s = 0
    for e in range(edge_src.size):
        if sign[e] * ps[edge_src[e]] * ps[edge_dst[e]] < 0:
            s += 1
    return s


@numba.njit(cache=True, nogil=True)
def _tree_states_chunk(c, n_chunks, ps, edge_src, edge_dst, sign, words, hashes, switches):
    """Trees ``c, c + n_chunks, ...`` of a batch (GIL released: chunks run on threads, see
    :func:`rapids_balance._chunks.run_chunks`)."""
    T, n = ps.shape
    W = words.shape[1]
    for t in range(c, T, n_chunks):
        for w in range(W):
            words[t, w] = _word_of(ps[t], w, n)
        hashes[t] = _hash_words(words[t])
        switches[t] = _switches_of(ps[t], edge_src, edge_dst, sign)


def tree_states(ps, graph, *, backend: str = "cpu"):
    """Canonical words, hashes and switch counts of a batch of path signs.

    Parameters
    ----------
    ps : array (T, n) int8
        Path signs (``balancing._path_signs.path_signs``); CuPy on the GPU.
    graph : SignedGraph
    backend : {"cpu", "gpu"}

    Returns
    -------
    words : numpy.ndarray (T, W) uint64
    hashes : numpy.ndarray (T,) uint64
    switches : numpy.ndarray (T,) int64
    """
    if backend == "gpu":
        from ._gpu import tree_states_gpu

        return tree_states_gpu(ps, graph)
    ps = np.ascontiguousarray(ps, dtype=np.int8)
    T, n = ps.shape
    words = np.empty((T, n_words(n)), np.uint64)
    hashes = np.empty(T, np.uint64)
    switches = np.empty(T, np.int64)
    k = cpu_chunks(T)
    run_chunks(lambda c: _tree_states_chunk(c, k, ps, graph.edge_src, graph.edge_dst, graph.sign,
                                            words, hashes, switches), k)
    return words, hashes, switches


def state_words(side: np.ndarray) -> np.ndarray:
    """Canonical words of one side vector (0/1 or -1/+1 per vertex)."""
    side = np.asarray(side)
    bits = np.zeros(n_words(side.size) * 64, np.uint8)
    bits[:side.size] = side != side[0]
    return np.packbits(bits, bitorder="little").view("<u8").astype(np.uint64)


def words_to_sides(words: np.ndarray, n: int) -> np.ndarray:
    """Unpack canonical words into a 0/1 side vector (int8, vertex 0 on side 0)."""
    bits = np.unpackbits(np.ascontiguousarray(words, dtype="<u8").view(np.uint8), bitorder="little")
    return bits[:n].astype(np.int8)


@numba.njit(cache=True, nogil=True)
def bfs_sides(indptr, indices, slot_edge, sign):
    """One BFS from vertex 0 (each vertex's parent: the first to reach it): the number of
    vertices reached and the Harary sides (int8 0/1) of that tree's path signs.

    A pass over the graph, the cost of a connectivity check, that also yields a
    spanning tree's nearest balanced state (unreached vertices stay on side 0).
    """
    n = indptr.size - 1
    side = np.zeros(n, np.int8)
    if n == 0:
        return 0, side
    seen = np.zeros(n, np.bool_)
    queue = np.empty(n, np.int32)
    seen[0] = True
    queue[0] = 0
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if not seen[v]:
                seen[v] = True
                side[v] = side[u] ^ np.int8(sign[slot_edge[k]] < 0)
                queue[tail] = v
                tail += 1
    return tail, side


@numba.njit(cache=True)
def _count_frustrated(side, edge_src, edge_dst, sign):
    s = 0
    for e in range(edge_src.size):
        across = side[edge_src[e]] != side[edge_dst[e]]
        if (sign[e] > 0) == across:
            s += 1
    return s


def count_frustrated(graph, side) -> int:
    """Edges frustrated by a bipartition: positive across the cut or negative inside a side."""
    side = np.ascontiguousarray(side, dtype=np.int8)
    return int(_count_frustrated(side, graph.edge_src, graph.edge_dst, graph.sign))


def _ids_of(graph, vertex) -> np.ndarray | None:
    """Internal ids of a column of labels, or None when it lists the graph's labels in
    their own order (a ``best_state``): recognised in one vectorised pass instead of a
    lookup per label and a sort (seconds at 10^7 vertices)."""
    labels = getattr(graph, "labels", None)
    col = vertex.to_numpy()
    if (isinstance(labels, np.ndarray) and col.shape == labels.shape
            and col.dtype.kind == labels.dtype.kind and np.array_equal(col, labels)):
        return None
    return np.asarray(graph.vertex_ids(vertex.tolist()), np.int64)


def side_vector(graph, state, what: str = "state") -> np.ndarray:
    """A user's bipartition as an int8 0/1 vector over internal ids, vertex 0 on side 0.

    ``state`` is a DataFrame with columns ``vertex`` (original labels, every
    vertex once) and ``side`` (0/1), such as ``FrustrationResult.best_state``,
    or an array of n sides in internal-id order.  Sides are normalised so
    that internal vertex 0 is on side 0 (a bipartition and its mirror image
    are the same state).
    """
    import pandas as pd

    from .._output import is_cudf

    if is_cudf(state):
        from ..io._device import host_frame

        state = host_frame(state)  # a few columns of n values; the search runs on the host
    if isinstance(state, pd.DataFrame):
        if not {"vertex", "side"} <= set(state.columns):
            raise GraphInputError(f"{what} needs columns 'vertex' and 'side', got {list(state.columns)}")
        ids = _ids_of(graph, state["vertex"])
        if ids is None:
            ids = np.arange(graph.n, dtype=np.int64)
        elif ids.size != graph.n or np.unique(ids).size != graph.n:
            raise GraphInputError(f"{what} must list every one of the graph's {graph.n} vertices once "
                                  f"(it has {ids.size} rows, {np.unique(ids).size} distinct vertices)")
        raw = state["side"].to_numpy()
        if raw.dtype.kind not in "biuf":
            raise GraphInputError(f"{what}: sides must be 0 or 1, got column 'side' of dtype {raw.dtype}")
        side = np.empty(graph.n, np.int64)
        side[ids] = raw
    else:
        side = np.asarray(state).reshape(-1)
        if side.size != graph.n:
            raise GraphInputError(f"{what} has {side.size} entries, the graph {graph.n} vertices")
    if not np.isin(side, (0, 1)).all():
        raise GraphInputError(f"{what}: sides must be 0 or 1")
    side = side.astype(np.int8)
    return (side != side[0]).astype(np.int8)
