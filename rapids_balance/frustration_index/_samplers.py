"""Spanning-tree samplers of graphB++ (Section V), seeded and reproducible.

Every sampler returns a batch in the shared tree contract (DESIGN.md): three
int32 arrays ``parent``, ``parent_edge``, ``order`` of shape ``(T, n)``.
Tree ``i`` of a run uses the seed ``seed + i``; every random draw is a pure
function of ``(seed + i, stream, counter)`` (``rapids_balance._random``), so a
tree does not depend on the batch it falls in, the thread count or the
backend.  (The reference C++ code seeds its randomised samplers from the
clock; these do not.)

Samplers:

* ``bfs`` / ``bfs-random-root``: the balancing engine's BFS trees with
  graphB+'s parent rule (``rapids_balance.balancing._trees``), degree-ranked or
  random roots.
* ``dfs``: depth-first search over the sorted adjacency.
* ``rdfs``: depth-first search over a per-vertex shuffled adjacency.
* ``hybrid``: per tree a coin picks ``bfs`` or ``rdfs`` (graphB++ Alg. 4).
* ``kruskal``: minimum spanning tree under random edge weights
  (:func:`mst_key`).  The weights are distinct, so the MST is unique: the
  CPU builds it with Kruskal's algorithm, the GPU with Borůvka's (all trees
  of a batch at once, integer atomics), and both give the same tree.
* ``uniform``: a uniformly random spanning tree by Wilson's loop-erased random
  walks (Aldous-Broder can take very long on some graphs; Wilson's expected
  time is the mean hitting time).

DFS, RDFS, Kruskal and Wilson are inherently sequential per tree; their CPU
kernels build the trees of a batch in parallel threads (one tree per thread).
"""

from __future__ import annotations

from typing import Any, Sequence

import numba
import numpy as np
from numba import prange

from .._random import randint
from ..balancing._trees import bfs_trees, cpu_chunks
from ..balancing._roots import tree_roots
from ._shared import KRUSKAL_STREAM, mst_key  # noqa: F401 (KRUSKAL_STREAM: one of the streams below)

__all__ = ["SAMPLERS", "sample_trees", "SAMPLER_CODES"]

SAMPLERS = ("bfs", "bfs-random-root", "dfs", "rdfs", "hybrid", "kruskal", "uniform")
#: integer code of the sampler that built a tree (hybrid trees report bfs or rdfs)
SAMPLER_CODES = {name: k for k, name in enumerate(SAMPLERS)}

# RNG streams (see _random.py): one per kind of draw
RDFS_STREAM = 0x52444653      # "RDFS": adjacency shuffles
HYBRID_STREAM = 0x48594252    # "HYBR": the BFS/RDFS coin
WILSON_STREAM = 0x57494C53    # "WILS": random-walk steps


# ---------------------------------------------------------------------------
# rooting a set of tree edges (Kruskal, Wilson)
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _start_tree(parent, parent_edge, order, root):
    """Every vertex unreached (-2), the root first in ``order``."""
    for v in range(parent.size):
        parent[v] = -2
    parent[root] = -1
    parent_edge[root] = -1
    order[0] = root


@numba.njit(cache=True)
def _root_tree_edges(n, edge_src, edge_dst, tree_edges, root, parent, parent_edge, order):
    """Orient ``n - 1`` tree edges away from ``root``: parent, parent_edge, order.

    ``order`` lists the vertices breadth-first over the tree (parents first).
    """
    deg = np.zeros(n + 1, np.int64)
    for k in range(tree_edges.size):
        e = tree_edges[k]
        deg[edge_src[e] + 1] += 1
        deg[edge_dst[e] + 1] += 1
    for v in range(n):
        deg[v + 1] += deg[v]
    fill = deg[:n].copy()
    nbr = np.empty(2 * tree_edges.size, np.int32)
    eid = np.empty(2 * tree_edges.size, np.int32)
    for k in range(tree_edges.size):
        e = tree_edges[k]
        a = edge_src[e]
        b = edge_dst[e]
        nbr[fill[a]] = b
        eid[fill[a]] = e
        fill[a] += 1
        nbr[fill[b]] = a
        eid[fill[b]] = e
        fill[b] += 1
    _start_tree(parent, parent_edge, order, root)
    tail = 1
    head = 0
    while head < tail:
        u = order[head]
        head += 1
        for j in range(deg[u], deg[u + 1]):
            v = nbr[j]
            if parent[v] == -2:
                parent[v] = u
                parent_edge[v] = eid[j]
                order[tail] = v
                tail += 1
    return tail


# ---------------------------------------------------------------------------
# DFS and randomised DFS
# ---------------------------------------------------------------------------

@numba.njit(cache=True)
def _dfs_tree_into(indptr, indices, slot_edge, root, seed, shuffle, parent, parent_edge, order,
                   nbr, stack_v, stack_j):
    """One DFS tree (pre-order = ``order``); ``shuffle`` permutes each row first.

    A row is shuffled (Fisher-Yates, draws keyed by CSR slot) when its vertex
    is first entered, so the permutation of a row depends only on the seed.
    ``nbr`` (slots, 2m), ``stack_v``, ``stack_j`` (n) are scratch.
    """
    _start_tree(parent, parent_edge, order, root)
    count = 1
    top = 0
    stack_v[0] = root
    stack_j[0] = indptr[root]
    _prepare_row(indptr, root, seed, shuffle, nbr)
    while top >= 0:
        u = stack_v[top]
        j = stack_j[top]
        if j == indptr[u + 1]:
            top -= 1
            continue
        stack_j[top] = j + 1
        s = nbr[j]
        v = indices[s]
        if parent[v] != -2:
            continue
        parent[v] = u
        parent_edge[v] = slot_edge[s]
        order[count] = v
        count += 1
        _prepare_row(indptr, v, seed, shuffle, nbr)
        top += 1
        stack_v[top] = v
        stack_j[top] = indptr[v]
    return count


@numba.njit(cache=True, inline="always")
def _prepare_row(indptr, v, seed, shuffle, nbr):
    lo = indptr[v]
    hi = indptr[v + 1]
    for s in range(lo, hi):
        nbr[s] = s
    if shuffle:
        for j in range(hi - lo - 1, 0, -1):
            r = randint(seed, RDFS_STREAM, lo + j, j + 1)
            tmp = nbr[lo + j]
            nbr[lo + j] = nbr[lo + r]
            nbr[lo + r] = tmp


@numba.njit(parallel=True, cache=True)
def _dfs_batch(indptr, indices, slot_edge, roots, seeds, shuffle, parent, parent_edge, order,
               reached, n_chunks):
    T = roots.size
    n = indptr.size - 1
    for c in prange(n_chunks):
        nbr = np.empty(indices.size, np.int64)
        stack_v = np.empty(n, np.int64)
        stack_j = np.empty(n, np.int64)
        for t in range(c, T, n_chunks):
            reached[t] = _dfs_tree_into(indptr, indices, slot_edge, roots[t], seeds[t], shuffle[t],
                                        parent[t], parent_edge[t], order[t], nbr, stack_v, stack_j)


# ---------------------------------------------------------------------------
# random-weight minimum spanning tree (Kruskal)
# ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _find(uf, x):
    while uf[x] != x:
        uf[x] = uf[uf[x]]  # path halving
        x = uf[x]
    return x


def mst_shift(m: int) -> int:
    """Low bits of an MST key that hold the edge id."""
    return max(1, int(m).bit_length())


@numba.njit(cache=True)
def _kruskal_tree_into(edge_src, edge_dst, n, root, seed, parent, parent_edge, order, weight, uf,
                       tree_edges):
    m = edge_src.size
    shift = 1
    while (1 << shift) <= m:
        shift += 1
    for e in range(m):
        weight[e] = mst_key(seed, e, shift)
    by_weight = np.argsort(weight)
    for v in range(n):
        uf[v] = v
    k = 0
    for i in range(m):
        e = by_weight[i]
        a = _find(uf, edge_src[e])
        b = _find(uf, edge_dst[e])
        if a != b:
            uf[a] = b
            tree_edges[k] = e
            k += 1
            if k == n - 1:
                break
    if k != n - 1:
        return k + 1
    # by edge id, as the GPU's Borůvka lists them: the same rooted arrays on both backends
    return _root_tree_edges(n, edge_src, edge_dst, np.sort(tree_edges[:k]), root, parent,
                            parent_edge, order)


@numba.njit(parallel=True, cache=True)
def _kruskal_batch(edge_src, edge_dst, n, roots, seeds, parent, parent_edge, order, reached,
                   n_chunks):
    T = roots.size
    m = edge_src.size
    for c in prange(n_chunks):
        weight = np.empty(m, np.uint64)
        uf = np.empty(n, np.int64)
        tree_edges = np.empty(max(n - 1, 1), np.int64)
        for t in range(c, T, n_chunks):
            reached[t] = _kruskal_tree_into(edge_src, edge_dst, n, roots[t], seeds[t], parent[t],
                                            parent_edge[t], order[t], weight, uf, tree_edges)


# ---------------------------------------------------------------------------
# uniform spanning tree (Wilson)
# ---------------------------------------------------------------------------

@numba.njit(cache=True)
def _wilson_tree_into(indptr, indices, slot_edge, edge_src, edge_dst, root, seed, parent,
                      parent_edge, order, in_tree, nxt, tree_edges, max_steps):
    """Wilson's algorithm: loop-erased random walks into the growing tree.

    Walks start from the vertices in id order; the k-th step of the whole
    tree uses the counter k.  Returns n on success, -1 past ``max_steps``
    (a disconnected graph never finishes).
    """
    n = indptr.size - 1
    for v in range(n):
        in_tree[v] = False
    in_tree[root] = True
    counter = 0
    k = 0
    for start in range(n):
        u = start
        while not in_tree[u]:
            deg = indptr[u + 1] - indptr[u]
            if deg == 0:
                return -1
            s = indptr[u] + randint(seed, WILSON_STREAM, counter, deg)
            counter += 1
            if counter > max_steps:
                return -1
            nxt[u] = s  # overwriting erases the loop
            u = indices[s]
        u = start
        while not in_tree[u]:
            in_tree[u] = True
            tree_edges[k] = slot_edge[nxt[u]]
            k += 1
            u = indices[nxt[u]]
    return _root_tree_edges(n, edge_src, edge_dst, tree_edges[:k], root, parent, parent_edge, order)


@numba.njit(parallel=True, cache=True)
def _wilson_batch(indptr, indices, slot_edge, edge_src, edge_dst, roots, seeds, parent,
                  parent_edge, order, reached, max_steps, n_chunks):
    T = roots.size
    n = indptr.size - 1
    for c in prange(n_chunks):
        in_tree = np.empty(n, np.bool_)
        nxt = np.empty(n, np.int64)
        tree_edges = np.empty(max(n - 1, 1), np.int64)
        for t in range(c, T, n_chunks):
            reached[t] = _wilson_tree_into(indptr, indices, slot_edge, edge_src, edge_dst, roots[t],
                                           seeds[t], parent[t], parent_edge[t], order[t], in_tree,
                                           nxt, tree_edges, max_steps)


# ---------------------------------------------------------------------------
# the batch entry point
# ---------------------------------------------------------------------------

@numba.njit(cache=True)
def _hybrid_coins(seeds):
    out = np.empty(seeds.size, np.bool_)
    for t in range(seeds.size):
        out[t] = randint(seeds[t], HYBRID_STREAM, 0, 2) == 1
    return out


def _check_reached(reached, n, sampler):
    if (np.asarray(reached) != n).any():
        from ..errors import GraphInputError

        raise GraphInputError(f"sampler {sampler!r} could not span the graph (it reached "
                              f"{int(np.min(reached))} of {n} vertices); the graph must be "
                              "connected: build it with component='largest'")


def _seeds64(seeds) -> np.ndarray:
    return np.asarray([int(s) & 0x7FFFFFFFFFFFFFFF for s in seeds], dtype=np.int64)


def kruskal_path_signs_gpu(graph, tree_ids, *, seed: int = 0, roots: Sequence[Any] | None = None):
    """Path signs of the ``kruskal`` trees ``tree_ids`` (those of :func:`sample_trees`), made
    on the device with the trees and left there: ``(ps (T, n) int8, codes (T,) int8)``."""
    from ._gpu import boruvka_trees

    tree_ids = np.asarray(tree_ids, dtype=np.int64).reshape(-1)
    root_ids, seeds = tree_roots(graph, tree_ids, sampler="bfs", roots=roots, seed=seed)
    *_, ps, reached = boruvka_trees(graph, _seeds64(seeds), mst_shift(graph.m), root_ids,
                                    with_order=False)
    _check_reached(reached, graph.n, "kruskal")
    return ps, np.full(tree_ids.size, SAMPLER_CODES["kruskal"], np.int8)


def sample_trees(graph, tree_ids, *, sampler: str = "bfs", seed: int = 0,
                 roots: Sequence[Any] | None = None, backend: str = "cpu"):
    """Build spanning trees ``tree_ids`` of ``graph`` with one of graphB++'s samplers.

    Parameters
    ----------
    graph : SignedGraph
        Connected graph.
    tree_ids : array-like of int
        Global tree numbers; tree ``i`` uses the seed ``seed + i``.
    sampler : str
        One of :data:`SAMPLERS`.
    seed : int
        Base seed.
    roots : sequence of labels, optional
        Root labels, tree ``i`` using ``roots[i mod len(roots)]``; default: the
        balancing engine's rule (vertices by descending degree, or random
        roots for ``"bfs-random-root"``).
    backend : {"cpu", "gpu"}
        BFS trees run on the GPU kernels of the balancing engine and
        random-weight MSTs on Borůvka kernels (rooted on the device); DFS,
        RDFS and Wilson's walks always run on CPU threads.

    Returns
    -------
    parent, parent_edge, order : array (T, n) int32
        The tree batch: host arrays, except BFS and Kruskal trees built on
        a real GPU (CuPy arrays, left on the device).
    codes : numpy.ndarray (T,) int8
        Sampler code (:data:`SAMPLER_CODES`) of each tree; hybrid trees report
        ``bfs`` or ``rdfs``.
    """
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    tree_ids = np.asarray(tree_ids, dtype=np.int64).reshape(-1)
    n = graph.n
    T = tree_ids.size
    root_rule = "bfs-random-root" if sampler == "bfs-random-root" else "bfs"
    root_ids, seeds = tree_roots(graph, tree_ids, sampler=root_rule, roots=roots, seed=seed)
    seeds64 = _seeds64(seeds)
    codes = np.full(T, SAMPLER_CODES[sampler], np.int8)
    if sampler in ("bfs", "bfs-random-root"):
        p, pe, o = bfs_trees(graph, root_ids, seeds, backend=backend)
        return p, pe, o, codes  # CuPy arrays on a real GPU: they stay there for path signs
    parent = np.empty((T, n), np.int32)
    parent_edge = np.empty((T, n), np.int32)
    order = np.empty((T, n), np.int32)
    reached = np.empty(T, np.int64)
    chunks = cpu_chunks(T)
    if sampler in ("dfs", "rdfs", "hybrid"):
        shuffle = np.full(T, sampler != "dfs", np.bool_)
        if sampler == "hybrid":
            use_rdfs = _hybrid_coins(seeds64)
            codes[:] = np.where(use_rdfs, SAMPLER_CODES["rdfs"], SAMPLER_CODES["bfs"])
            bfs_rows = np.flatnonzero(~use_rdfs)
            if bfs_rows.size:
                p, pe, o = bfs_trees(graph, root_ids[bfs_rows], [seeds[k] for k in bfs_rows],
                                     backend="cpu")
                parent[bfs_rows], parent_edge[bfs_rows], order[bfs_rows] = p, pe, o
            rows = np.flatnonzero(use_rdfs)
        else:
            rows = np.arange(T)
        if rows.size:
            sub = [np.empty((rows.size, n), np.int32) for _ in range(3)]
            sub_reached = np.empty(rows.size, np.int64)
            _dfs_batch(graph.indptr, graph.indices, graph.slot_edge, root_ids[rows].astype(np.int64),
                       seeds64[rows], shuffle[rows], sub[0], sub[1], sub[2], sub_reached,
                       cpu_chunks(rows.size))
            parent[rows], parent_edge[rows], order[rows] = sub
            _check_reached(sub_reached, n, sampler)
        return parent, parent_edge, order, codes
    if sampler == "kruskal" and backend == "gpu":
        from ._gpu import boruvka_trees

        # built and rooted on the device; they stay there for the path signs
        parent, parent_edge, order, _, reached = boruvka_trees(graph, seeds64, mst_shift(graph.m),
                                                               root_ids)
        _check_reached(reached, n, sampler)
        return parent, parent_edge, order, codes
    if sampler == "kruskal":
        _kruskal_batch(graph.edge_src, graph.edge_dst, n, root_ids.astype(np.int64), seeds64,
                       parent, parent_edge, order, reached, chunks)
    else:  # uniform
        max_steps = np.int64(max(1_000_000, 2000 * (graph.m + n)))
        _wilson_batch(graph.indptr, graph.indices, graph.slot_edge, graph.edge_src, graph.edge_dst,
                      root_ids.astype(np.int64), seeds64, parent, parent_edge, order, reached,
                      max_steps, chunks)
    _check_reached(reached, n, sampler)
    return parent, parent_edge, order, codes
