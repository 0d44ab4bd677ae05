"""What runs on a worker: one batch, and the fixed-order reductions.

These functions are shipped to workers by reference (the package is
installed there), so they must stay importable at module level and pure: a
task that a dead worker had started is simply run again elsewhere, and since
no task mutates its inputs, a retry can neither lose nor double-count work.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Sequence

from ._cluster import NUMBA_THREADS_ENV
from ._graphs import GraphRef, graph_on_worker, resolve_graph

__all__ = ["run_batch", "run_ready", "narrow", "sum_narrow", "fold", "fold_to_host", "sum_parts", "to_host_tree", "tree_groups",
           "ordered_reduce"]


def _set_numba_threads() -> None:
    """Use the worker's share of the cores (set by :func:`start_cluster`).

    ``numba.set_num_threads`` is per calling thread and may only lower the
    count, so it is applied on every task, in the thread that runs it.
    """
    want = os.environ.get(NUMBA_THREADS_ENV)
    if not want:
        return
    import numba

    numba.set_num_threads(max(1, min(int(want), numba.config.NUMBA_NUM_THREADS)))


def run_batch(fn: Callable, graph: Any, batch: Any, params: Any) -> Any:
    """Run one batch: ``fn(graph, batch, params)`` with the worker's thread share.

    ``graph`` is a :class:`~._graphs.GraphRef` (the worker's own copy, fetched
    from a peer the first time) or the graph's value (a caller's own future).
    """
    _set_numba_threads()
    if isinstance(graph, GraphRef):
        return fn(graph_on_worker(graph), batch, params)
    return fn(resolve_graph(graph), batch, params)


def run_ready(fn: Callable, *args: Any) -> tuple[float, float]:
    """``fn(*args)`` (a search's kernel warm-up, returning its seconds) with the worker's
    thread share; its seconds and, of them, those numba spent compiling (not loading from
    its cache: :class:`~rapids_balance._compile_clock.CompileClock`)."""
    from .._compile_clock import CompileClock

    _set_numba_threads()
    with CompileClock() as clock:
        seconds = float(fn(*args))
    return seconds, min(clock.compile_s, seconds)


def _zip_parts(a: Any, b: Any, leaf: Callable[[Any, Any], Any]) -> Any:
    """``leaf(x, y)`` on the matching leaves of two (nested) dicts/tuples/lists, as new objects."""
    if isinstance(a, dict):
        if a.keys() != b.keys():
            raise ValueError(f"cannot sum partial results with different keys: "
                             f"{sorted(a)} vs {sorted(b)}")
        return {k: _zip_parts(a[k], b[k], leaf) for k in a}
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            raise ValueError(f"cannot sum partial results of lengths {len(a)} and {len(b)}")
        return type(a)(_zip_parts(x, y, leaf) for x, y in zip(a, b))
    if a is None and b is None:
        return None
    return leaf(a, b)


def sum_parts(a: Any, b: Any) -> Any:
    """``a + b`` for numbers, arrays and (nested) tuples/lists/dicts of them.

    Always returns new objects: a retried task must never see an input that
    an earlier attempt modified.
    """
    return _zip_parts(a, b, lambda x, y: x + y)


_NARROW_TYPES = ("int8", "int16", "int32", "int64")


def narrow(x: Any) -> Any:
    """Integer arrays anywhere in a (nested) result, in the narrowest signed type that holds
    their values (others unchanged).

    A batch's counters count its own trees or sources: a few hundred at
    most per element, so they travel and wait for the reduction in one or
    two bytes per element instead of eight (a dense int64 counter of every
    edge is 8m bytes).  Exact: only the storage changes.
    """
    if isinstance(x, dict):
        return {k: narrow(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(narrow(v) for v in x)
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "iu" or not getattr(x, "size", 0):
        return x
    import numpy as np

    lo, hi = int(x.min()), int(x.max())
    for name in _NARROW_TYPES:
        info = np.iinfo(name)
        if info.min <= lo and hi <= info.max:
            return x if dtype == np.dtype(name) else x.astype(name)
    return x


def sum_narrow(a: Any, b: Any) -> Any:
    """:func:`sum_parts` of :func:`narrow` results: integer arrays added in int64 (no
    overflow), the sum narrowed again; a new object, as every combine returns."""
    def leaf(x: Any, y: Any) -> Any:
        if getattr(x, "dtype", None) is not None and x.dtype.kind in "iu":
            return narrow(x.astype("int64") + y)
        return x + y

    return _zip_parts(a, b, leaf)


def fold(combine: Callable[[Any, Any], Any], *parts: Any) -> Any:
    """Left fold ``combine(combine(p0, p1), p2) ...`` in the given order."""
    if not parts:
        raise ValueError("nothing to reduce: no batches")
    acc = parts[0]
    for p in parts[1:]:
        acc = combine(acc, p)
    return acc


def tree_groups(n: int, split_every: int | None) -> list[list[tuple[int, int]]]:
    """The shape of a fixed-order reduction of ``n`` items, level by level.

    Each level lists ``(start, stop)`` ranges of the previous level's items
    that one node folds left to right.  ``split_every=None`` is a single
    left fold over everything.  The shape depends only on ``n`` and
    ``split_every``, never on where or when the items were computed, which
    is what makes floating-point reductions repeatable.
    """
    if n < 1:
        raise ValueError("nothing to reduce: no batches")
    if split_every is None:
        return [[(0, n)]]
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    levels = []
    while n > 1:
        level = [(i, min(i + split_every, n)) for i in range(0, n, split_every)]
        levels.append(level)
        n = len(level)
    return levels or [[(0, 1)]]


def ordered_reduce(parts: Sequence[Any], combine: Callable[[Any, Any], Any] = sum_parts,
                   split_every: int | None = None) -> Any:
    """Reduce ``parts`` locally with exactly the shape the cluster uses.

    A single-process code path that reduces its batches with this function
    gets bit-identical floating-point results to
    :func:`rapids_balance.distributed.run_batches` with the same
    ``split_every``.
    """
    items = list(parts)
    for level in tree_groups(len(items), split_every):
        items = [fold(combine, *items[a:b]) for a, b in level]
    return items[0]


def stream_reduce(parts: Iterable[Any], combine: Callable[[Any, Any], Any] = sum_parts,
                  split_every: int = 8) -> Any:
    """:func:`ordered_reduce` over parts produced one at a time, holding at most
    ``split_every`` pending parts per tree level (``split_every * log(n)`` in all)
    instead of all ``n``: the same tree, so the same result bit for bit.

    A level folds its ``split_every`` pending parts as soon as it has them and
    passes the result up; at the end each level's last, shorter group is
    folded and passed up in turn (a group of one is the part itself, as in
    :func:`tree_groups`).
    """
    if split_every is None or split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    levels: list[list[Any]] = [[]]
    for part in parts:
        levels[0].append(part)
        depth = 0
        while len(levels[depth]) == split_every:
            folded = fold(combine, *levels[depth])
            levels[depth] = []
            if depth + 1 == len(levels):
                levels.append([])
            levels[depth + 1].append(folded)
            depth += 1
    if not levels[0] and len(levels) == 1:
        raise ValueError("nothing to reduce: no batches")
    depth = -1
    while True:  # levels grows as the last groups are passed up
        depth += 1
        pending = levels[depth]
        if depth == len(levels) - 1 and len(pending) == 1:
            return pending[0]
        if pending:
            if depth + 1 == len(levels):
                levels.append([])
            levels[depth + 1].append(fold(combine, *pending))


def to_host_tree(x: Any) -> Any:
    """CuPy arrays anywhere in a (nested) result, as numpy (others unchanged)."""
    if isinstance(x, dict):
        return {k: to_host_tree(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(to_host_tree(v) for v in x)
    if type(x).__module__.startswith("cupy"):
        from ..backend import to_host

        return to_host(x)
    return x


def fold_to_host(combine: Callable[[Any, Any], Any], *parts: Any) -> Any:
    """:func:`fold`, then the result moved to the host (the root of a reduction)."""
    return to_host_tree(fold(combine, *parts))
