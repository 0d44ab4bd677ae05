"""Roots of the spanning trees: graphB+'s degree order, seeded random roots, or the user's.

Tree ``i`` of a batch gets a root and the seed ``seed + i``.  The default
(``sampler="bfs"``) takes the vertices by descending degree, as graphB+
does; ``"bfs-random-root"`` draws the root from the seed with the
counter-based generator, so every backend and thread count picks the same
one; ``roots=`` names them.  :func:`graphbplus_roots` replays graphB+ v0.2's
own (unstable) heap order, for conformance.
"""

from __future__ import annotations

from typing import Any, Sequence

import numba
import numpy as np

from .._random import randint

__all__ = ["ROOT_STREAM", "SAMPLERS", "tree_roots", "check_roots_arg", "check_root_labels",
           "graphbplus_roots"]

#: RNG stream of ``sampler="bfs-random-root"`` root draws (see _random.py).
ROOT_STREAM = 0x726F6F74

SAMPLERS = ("bfs", "bfs-random-root")


@numba.njit(cache=True)
def _random_roots(seed, tree_ids, n):
    out = np.empty(tree_ids.size, np.int64)
    for k in range(tree_ids.size):
        out[k] = randint(seed, ROOT_STREAM, tree_ids[k], n)
    return out


def check_roots_arg(roots: Any, owner: str) -> tuple | None:
    """``roots=`` before the graph is read: None or a non-empty sequence of labels (as a tuple)."""
    if roots is None:
        return None
    if isinstance(roots, (str, bytes)) or not hasattr(roots, "__len__") or len(roots) == 0:
        from .._validation import param_error

        raise param_error("roots", owner, "a non-empty sequence of vertex labels or None", roots)
    if hasattr(roots, "tolist"):  # an array: plain Python labels
        return tuple(roots.tolist())
    return tuple(x.item() if isinstance(x, np.generic) else x for x in roots)


def check_root_labels(graph, roots: Sequence[Any], owner: str) -> np.ndarray:
    """Internal ids of the ``roots=`` labels; an unknown label is an InvalidParameterError.

    Called once the graph is built and before any tree is.
    """
    try:
        return graph.vertex_ids(list(roots))
    except KeyError as exc:
        from .._validation import param_error

        raise param_error("roots", owner, f"labels of vertices of the graph ({exc.args[0]})",
                          roots) from None


def tree_roots(graph, tree_ids, *, sampler: str = "bfs", roots: Sequence[Any] | None = None,
               seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Root vertex and seed of each requested tree.

    Parameters
    ----------
    graph : Graph
        The graph the trees span.
    tree_ids : array-like of int
        Global tree numbers ``i`` (tree ``i`` has the seed ``seed + i``).
    sampler : {"bfs", "bfs-random-root"}
        ``"bfs"``: with ``roots=None`` the vertices ordered by descending
        degree (ties to the smaller internal id), tree ``i`` using entry
        ``i mod n``.  ``"bfs-random-root"``: a root drawn uniformly from the
        seed (counter-based, so the same on every backend).
    roots : sequence of vertex labels, optional
        Original labels; tree ``i`` uses ``roots[i mod len(roots)]``.
    seed : int
        Base seed.

    Returns
    -------
    (roots, seeds) : (numpy.ndarray, numpy.ndarray)
        int32 internal root ids, and the per-tree seeds ``seed + i`` as Python
        integers (object array: any size; :func:`seed_mix` reduces them).
    """
    tree_ids = np.asarray(tree_ids, dtype=np.int64).reshape(-1)
    n = graph.n
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if roots is not None:
        ids = graph.vertex_ids(list(roots))
        if ids.size == 0:
            raise ValueError("roots is empty; pass None or at least one vertex label")
        out = ids[tree_ids % ids.size]
    elif sampler == "bfs-random-root":
        out = _random_roots(np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF), tree_ids, np.int64(n))
    else:
        out = _by_degree(graph, tree_ids % n)
    seeds = np.asarray([int(seed) + int(i) for i in tree_ids.tolist()], dtype=object)
    return out.astype(np.int32), seeds


def _by_degree(graph, ranks: np.ndarray) -> np.ndarray:
    """The vertices of the given ranks by descending degree (ties to the smaller id).

    A graph kept on the device ranks there: only the chosen roots reach the host.
    """
    if getattr(graph, "on_device", False):
        from .. import _xp

        indptr = graph.device_arrays()["indptr"]
        xp = _xp.namespace(indptr)
        ranked = _xp.stable_argsort(-(indptr[1:] - indptr[:-1]))  # stable: ties to the smaller id
        return _xp.to_host(xp.take(ranked, xp.asarray(ranks)))
    deg = graph.degrees()
    return np.lexsort((np.arange(graph.n), -deg))[ranks]


def graphbplus_roots(graph, n_trees: int) -> list:
    """The roots graphB+ v0.2 uses, as original labels (conformance helper).

    ``graphBplus_02.cpp`` orders the vertices by descending degree with
    libstdc++'s ``std::partial_sort`` (a heap select, not stable), so equal
    degrees come out in heap order rather than by id.  This replays that
    algorithm exactly; pass the result as ``roots=`` together with
    ``seed=17`` on a graph built with ``numbering="graphbplus"``.

    Parameters
    ----------
    graph : Graph
        A graph numbered as graphB+ numbers it.
    n_trees : int
        The reference code's iteration count, in ``[1, 2**63 - 1]``; only
        the first ``min(n_trees, n)`` roots are made.

    Returns
    -------
    list
        ``min(n_trees, n)`` original labels; tree ``i`` uses entry ``i mod n``.
    """
    from .._validation import check_count

    n_trees = check_count(n_trees, "n_trees", "graphbplus_roots")
    deg = graph.degrees().tolist()
    n = graph.n
    a = list(range(n))

    def comp(x, y):
        return deg[x] > deg[y]

    def push_heap(first, hole, top, value):
        par = (hole - 1) // 2
        while hole > top and comp(a[first + par], value):
            a[first + hole] = a[first + par]
            hole = par
            par = (hole - 1) // 2
        a[first + hole] = value

    def adjust_heap(first, hole, length, value):
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if comp(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if (length & 1) == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        push_heap(first, hole, top, value)

    def pop_heap(first, last, result):
        value = a[result]
        a[result] = a[first]
        adjust_heap(first, 0, last - first, value)

    middle = min(int(n_trees), n)
    if middle >= 2:  # make_heap
        par = (middle - 2) // 2
        while True:
            adjust_heap(0, par, middle, a[par])
            if par == 0:
                break
            par -= 1
    for i in range(middle, n):  # heap select
        if comp(a[i], a[0]):
            pop_heap(0, middle, i)
    last = middle
    while last > 1:  # sort_heap
        last -= 1
        pop_heap(0, last, last)
    return graph.labels[np.asarray(a[:middle], dtype=np.int64)].tolist()
