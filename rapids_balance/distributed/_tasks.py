"""What runs on a worker: one batch, and the fixed-order reductions.

All pure: a dead worker's task is run again elsewhere, and since no task
mutates its inputs, a retry can neither lose nor double-count work.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Sequence

from ._cluster import NUMBA_THREADS_ENV
from ._graphs import GraphRef, graph_on_worker, resolve_graph

__all__ = ["run_batch", "run_ready", "narrow", "sum_narrow", "fold", "fold_to_host", "sum_parts",
           "tree_groups", "ordered_reduce", "stream_reduce"]


def _set_numba_threads() -> None:
    """The worker's share of the cores (set by :func:`start_cluster`), in the thread that runs
    the task: ``numba.set_num_threads`` is per thread and may only lower the count."""
    want = os.environ.get(NUMBA_THREADS_ENV)
    if want:
        import numba

        numba.set_num_threads(max(1, min(int(want), numba.config.NUMBA_NUM_THREADS)))


def run_batch(fn: Callable, graph: Any, batch: Any, params: Any) -> Any:
    """``fn(graph, batch, params)`` with the worker's thread share; ``graph`` is a
    :class:`~._graphs.GraphRef` (the worker's own copy) or the value of a caller's future."""
    _set_numba_threads()
    graph = graph_on_worker(graph) if isinstance(graph, GraphRef) else resolve_graph(graph)
    return fn(graph, batch, params)


def run_ready(fn: Callable, *args: Any) -> tuple[float, float]:
    """``fn(*args)`` (a search's kernel warm-up, which returns its seconds) with the worker's
    thread share: its seconds and, of them, those numba spent compiling (not loading)."""
    from .._compile_clock import CompileClock

    _set_numba_threads()
    with CompileClock() as clock:
        seconds = float(fn(*args))
    return seconds, min(clock.compile_s, seconds)


def _walk(x: Any, leaf: Callable[[Any], Any]) -> Any:
    """``leaf`` on every leaf of a nested dict / tuple / list, in new containers."""
    if isinstance(x, dict):
        return {k: _walk(v, leaf) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_walk(v, leaf) for v in x)
    return leaf(x)


def _zip_parts(a: Any, b: Any, leaf: Callable[[Any, Any], Any]) -> Any:
    """``leaf(x, y)`` on the matching leaves of two nested dicts / tuples / lists."""
    if isinstance(a, dict):
        if a.keys() != b.keys():
            raise ValueError(f"cannot sum partial results with different keys: "
                             f"{sorted(a)} vs {sorted(b)}")
        return {k: _zip_parts(a[k], b[k], leaf) for k in a}
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            raise ValueError(f"cannot sum partial results of lengths {len(a)} and {len(b)}")
        return type(a)(_zip_parts(x, y, leaf) for x, y in zip(a, b))
    return None if a is None and b is None else leaf(a, b)


def sum_parts(a: Any, b: Any) -> Any:
    """``a + b`` for numbers, arrays and nested tuples / lists / dicts of them, always as new
    objects: a retried task must never see an input that an earlier attempt modified."""
    return _zip_parts(a, b, lambda x, y: x + y)


def _narrow_leaf(x: Any) -> Any:
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "iu" or not getattr(x, "size", 0):
        return x
    import numpy as np

    lo, hi = int(x.min()), int(x.max())
    for name in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(name)
        if info.min <= lo and hi <= info.max:
            return x if dtype == np.dtype(name) else x.astype(name)
    return x


def narrow(x: Any) -> Any:
    """Integer arrays anywhere in a nested result in the narrowest signed type that holds their
    values: a batch's counters (a few hundred at most per element) travel and wait for the
    reduction in one or two bytes per element instead of eight."""
    return _walk(x, _narrow_leaf)


def sum_narrow(a: Any, b: Any) -> Any:
    """:func:`sum_parts` of :func:`narrow` results: integers added in int64 (no overflow), the
    sum narrowed again."""
    def leaf(x: Any, y: Any) -> Any:
        if getattr(x, "dtype", None) is not None and x.dtype.kind in "iu":
            return _narrow_leaf(x.astype("int64") + y)
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
    """A fixed-order reduction of ``n`` items, level by level: the ``(start, stop)`` ranges of
    the previous level's items that one node folds (``split_every`` None: one left fold).  It
    depends on ``n`` and ``split_every`` only, so floating-point reductions repeat exactly."""
    if n < 1:
        raise ValueError("nothing to reduce: no batches")
    if split_every is None:
        return [[(0, n)]]
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    levels = []
    while n > 1:
        levels.append([(i, min(i + split_every, n)) for i in range(0, n, split_every)])
        n = len(levels[-1])
    return levels or [[(0, 1)]]


def ordered_reduce(parts: Sequence[Any], combine: Callable[[Any, Any], Any] = sum_parts,
                   split_every: int | None = None) -> Any:
    """Reduce ``parts`` here along the tree the cluster uses: bit for bit what
    :func:`rapids_balance.distributed.run_batches` gives with the same ``split_every``."""
    items = list(parts)
    for level in tree_groups(len(items), split_every):
        items = [fold(combine, *items[a:b]) for a, b in level]
    return items[0]


def stream_reduce(parts: Iterable[Any], combine: Callable[[Any, Any], Any] = sum_parts,
                  split_every: int = 8) -> Any:
    """:func:`ordered_reduce` of parts made one at a time, holding at most ``split_every``
    pending parts per level of the tree instead of all of them: the same tree, so the same
    result bit for bit."""
    if split_every is None or split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    levels: list[list[Any]] = []

    def push(depth: int, item: Any) -> None:
        if depth == len(levels):
            levels.append([])
        levels[depth].append(item)
        if len(levels[depth]) == split_every:
            full, levels[depth] = levels[depth], []
            push(depth + 1, fold(combine, *full))

    for part in parts:
        push(0, part)
    if not levels:
        raise ValueError("nothing to reduce: no batches")
    depth = 0  # each level's last, shorter group goes up in turn (a group of one is its item)
    while depth < len(levels) - 1 or len(levels[depth]) > 1:
        if levels[depth]:
            pending, levels[depth] = levels[depth], []
            push(depth + 1, fold(combine, *pending))
        depth += 1
    return levels[depth][0]


def fold_to_host(combine: Callable[[Any, Any], Any], *parts: Any) -> Any:
    """:func:`fold`, then CuPy arrays anywhere in the result moved to the host (a root)."""
    from ..backend import to_host

    return _walk(fold(combine, *parts),
                 lambda v: to_host(v) if type(v).__module__.startswith("cupy") else v)
