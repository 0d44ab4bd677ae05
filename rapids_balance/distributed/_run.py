"""The one door from a capability to the cluster: run its batches, reduce them.

A capability hands :func:`run_batches` its pure per-batch function
``batch_fn(graph, batch, params)``, its batches and its reduction; nothing in
``distributed/`` knows what a tree, a source or a restart is.

1. The graph goes to the cluster once (:mod:`._graphs`); tasks carry a small
   reference to it, so a later call sends nothing graph-sized.
2. One pure task per batch, with Dask's retries: a dead worker's batches are
   rerun elsewhere and, since no task mutates its inputs, counted once.
3. ``combine(a, b)`` on the cluster along a tree fixed by the number of
   batches and ``split_every`` (:func:`~._tasks.tree_groups`), so the root
   equals :func:`~._tasks.ordered_reduce` run locally, bit for bit, for any
   number of workers; or ``fold(parts)`` on the client, the parts in batch
   order, for state that belongs to the call (the frustration cloud).

Capability packages import this module and no other private module of
``distributed/`` (a test holds both sides to it).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import CancelledError
from typing import Any, Callable

from .._progress import progress_bar
from .._validation import check_int, check_progress
from ._batches import MAX_TASKS, RangeBatches, WorkerBatches, check_task_count
from ._graphs import GraphLostError, GraphRef, _is_future, forget_graph, scatter_graph
from ._preflight import check_client, check_client_arg, check_workers
from ._remote import on_workers
from ._tasks import fold_to_host, fold as fold_parts, narrow, run_batch, run_ready, stream_reduce, \
    sum_narrow, sum_parts, tree_groups

__all__ = ["run_batches", "tree_task_span", "ready_on_workers", "ReadyTimes", "on_workers", "task_slots",
           "worker_address", "wall_deadline", "local_deadline", "stream_reduce", "narrow",
           "sum_narrow", "RangeBatches", "WorkerBatches", "check_client", "check_client_arg",
           "check_task_count", "n_workers"]

#: times a job is resubmitted after every copy of its graph was lost
_MAX_RESENDS = 2


def run_batches(client: Any, graph: Any, batch_fn: Callable[[Any, Any, Any], Any],
                batches: Iterable[Any] | WorkerBatches, params: Any = None, *,
                combine: Callable[[Any, Any], Any] | None = None,
                split_every: int | None = 8, fold: Callable[[list], Any] | None = None,
                progress: bool = False, desc: str | None = None, retries: int = 3,
                until: float | None = None, spread: bool = False) -> Any:
    """Run ``batch_fn(graph, batch, params)`` for every batch on the cluster and reduce.

    Parameters
    ----------
    client : distributed.Client
    graph : Graph, SignedGraph or distributed.Future
        What every batch reads, sent once (a future is used as it is; a graph
        kept on the device travels as its device arrays).
    batch_fn : callable
        Module-level (importable by the workers) and pure.
    batches : iterable or WorkerBatches
        One task per item, in this order (a :class:`WorkerBatches` is cut for
        the workers the scheduler knows now).
    params : object
        Passed to every call (small: it travels with each task).
    combine : callable, optional
        ``combine(a, b) -> new object``, folded on the cluster in batch order
        along the tree fixed by ``split_every`` (``None``: one left fold);
        default elementwise sum.  Only the root comes back, on the host (for a
        graph kept on the device, where the workers made it).
    fold : callable, optional
        Instead of ``combine``: ``fold(parts)`` on the client, the parts in
        batch order, each straight from its worker.
    progress, desc, retries
        Progress bar; label and task-name prefix (default ``batch_fn``'s name);
        reruns of a batch that raised (a dead worker's batch is rerun anyway).
    until : float, optional
        With ``fold``: a ``time.time()`` deadline.  Batches are submitted in
        order, two per worker in flight, none after it (the first always), and
        ``fold`` gets the prefix that was submitted.
    spread : bool
        With ``fold``: batch ``i`` on worker ``i mod W``, loosely (a few long
        tasks the scheduler may otherwise give to one worker).

    Raises
    ------
    TypeError
        Both ``combine`` and ``fold``, or ``client`` is not a ``distributed.Client``.
    InvalidParameterError
        More batches than ``MAX_TASKS``, or a bad ``retries`` / ``progress`` / ``split_every``.
    ValueError
        No batches.

    Examples
    --------
    >>> from rapids_balance.distributed import RangeBatches, run_batches
    >>> def degree_sum(graph, ids, params):  # module-level in real code
    ...     return int(graph.degrees()[ids.start:ids.stop].sum())
    >>> total = run_batches(client, g, degree_sum, RangeBatches(g.n, 1000))  # doctest: +SKIP
    """
    if combine is not None and fold is not None:
        raise TypeError("run_batches takes combine= (reduce on the cluster) or fold= (merge on "
                        "the client), not both")
    check_client(client)
    check_int(retries, "retries", "run_batches", low=0, high=1000)
    check_progress(progress, "run_batches")
    check_int(split_every, "split_every", "run_batches", low=2, high=MAX_TASKS, allow_none=True)
    if isinstance(batches, WorkerBatches):
        batches = batches.for_workers(n_workers(client))
    elif not isinstance(batches, Sequence):
        batches = list(batches)
    name = desc or getattr(batch_fn, "__name__", "batch").lstrip("_")
    check_task_count(len(batches), name)
    if not len(batches):
        raise ValueError("no batches to run")
    check_workers(client, name)  # a worker that cannot import us would hang the call
    if fold is not None:
        return fold(_run_job(client, graph, name,
                             _gather_job(batch_fn, batches, params, retries, progress, until, spread)))
    return _run_job(client, graph, name, _reduce_job(
        batch_fn, batches, params, retries, progress, sum_parts if combine is None else combine,
        split_every, not getattr(graph, "on_device", False)))


def _run_job(client: Any, graph: Any, name: str, job: Callable) -> Any:
    """Send the graph, run ``job(client, ref, name, token, made)``, release its futures.  If
    every worker that held the graph died before another fetched it
    (:class:`~._graphs.GraphLostError`), the graph is sent again and the job resubmitted:
    safe, because every task is pure."""
    for attempt in range(_MAX_RESENDS + 1):
        ref = None
        made: list[Any] = []
        try:
            ref = scatter_graph(client, graph)
            return job(client, ref, name, uuid.uuid4().hex[:10], made)
        except (CancelledError, GraphLostError):  # lost while sent, or after
            if _is_future(graph) or attempt == _MAX_RESENDS:
                raise
            if isinstance(ref, GraphRef):
                forget_graph(client, ref)
        finally:
            for f in made:
                f.release()
    raise AssertionError("unreachable")  # pragma: no cover


def _gather_job(fn, batches, params, retries, progress, until, spread):
    """Every batch's result on the client, in batch order (see ``until`` in :func:`run_batches`)."""
    def job(client, ref, name, token, made):
        from distributed import as_completed

        place = _placement(client, spread)
        pending = as_completed()
        index: dict[Any, int] = {}
        got: dict[int, Any] = {}

        def submit(i: int) -> None:
            fut = client.submit(run_batch, fn, ref, batches[i], params, key=f"{name}-{i}-{token}",
                                retries=retries, pure=False, **place(i))
            made.append(fut)
            index[fut.key] = i
            pending.add(fut)

        deadline = float("inf") if until is None else until
        width = len(batches) if until is None else min(2 * n_workers(client), len(batches))
        while len(index) < width and (not index or time.time() < deadline):
            submit(len(index))
        with progress_bar(len(batches), name, enabled=progress, unit="batch") as bar:
            for fut in pending:
                got[index[fut.key]] = _result(fut)
                bar.update(1)
                if len(index) < len(batches) and time.time() < deadline:
                    submit(len(index))
        return [got[i] for i in range(len(index))]

    return job


def _reduce_job(fn, batches, params, retries, progress, combine, split_every, to_host_root):
    """The batches folded on the cluster along :func:`~._tasks.tree_groups`; the root comes back."""
    def job(client, ref, name, token, made):
        from distributed import as_completed

        leaves = items = [client.submit(run_batch, fn, ref, b, params, key=f"{name}-{i}-{token}",
                                        retries=retries, pure=False) for i, b in enumerate(batches)]
        made += items
        levels = tree_groups(len(items), split_every)
        for depth, level in enumerate(levels):
            task = fold_to_host if depth == len(levels) - 1 and to_host_root else fold_parts
            items = [client.submit(task, combine, *items[a:b], key=f"{name}-reduce{depth}-{j}-{token}",
                                   retries=retries, pure=False) for j, (a, b) in enumerate(level)]
            made += items
        with progress_bar(len(leaves), name, enabled=progress, unit="batch") as bar:
            for _ in as_completed(leaves):
                bar.update(1)
        return _result(items[0])

    return job


def _placement(client: Any, spread: bool) -> Callable[[int], dict]:
    """Task ``i``'s placement: none, or (``spread``) worker ``i mod W`` of the sorted
    addresses, loosely, so that a lost worker's task runs elsewhere.  The scheduler places root
    tasks by load, and the worker that frees its thread first may take a few long searches all
    while its peer idles for the whole call."""
    addrs = sorted(client.scheduler_info().get("workers", {})) if spread else []
    if not addrs:
        return lambda i: {}
    return lambda i: {"workers": [addrs[i % len(addrs)]], "allow_other_workers": True}


def _result(fut: Any) -> Any:
    """A finished task's value straight from its worker (the scheduler relays no result bytes)."""
    return fut.client.gather(fut, direct=True)


def n_workers(client: Any) -> int:
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def tree_task_span(client: Any, n_leaves: int, split_every: int, per_worker: int = 2) -> int:
    """Leaves per task for a reduction over ``n_leaves`` fixed leaves: the largest power of
    ``split_every`` that still gives the cluster ``per_worker`` tasks per worker (1 when there
    are too few leaves).

    A task that folds ``span = split_every ** j`` consecutive leaves from a multiple of
    ``span`` with :func:`stream_reduce` returns exactly the node of the whole tree that covers
    them, so :func:`run_batches` over such tasks with the same ``split_every`` gives the
    single-process fold bit for bit, on any number of workers: fewer, larger tasks on a small
    cluster (a task runs its leaves in one parallel region), a task per leaf on a large one.
    """
    check_client(client)
    tasks = int(per_worker) * n_workers(client)
    span = 1
    while -(-int(n_leaves) // (span * split_every)) >= tasks:
        span *= split_every
    return span


class ReadyTimes(dict):
    """``{worker: seconds}``; ``compile_s``: the longest any worker spent compiling;
    ``loading_s``: the seconds that were not compiling (what a search's time limit counts)."""

    compile_s: float = 0.0
    loading_s: float = 0.0


def ready_on_workers(client: Any, ready: Callable[..., float], *args: Any) -> ReadyTimes:
    """Run ``ready(*args)`` (a search's kernel warm-up, returning its seconds) on every worker
    at once, in a task thread, before the search's clock starts.  A cold worker would otherwise
    compile inside its first batch, on the search's time and without a word; the caller reports
    these seconds in its result's ``info``."""
    check_client(client)
    started = time.perf_counter()
    workers = sorted(client.scheduler_info().get("workers", {}))
    token = uuid.uuid4().hex[:10]
    futs = [client.submit(run_ready, ready, *args, workers=[w], allow_other_workers=True,
                          pure=False, key=f"ready-{i}-{token}") for i, w in enumerate(workers)]
    try:
        answers = client.gather(futs)
    finally:
        for f in futs:
            f.release()
    out = ReadyTimes((w, seconds) for w, (seconds, _) in zip(workers, answers))
    out.compile_s = max((c for _, c in answers), default=0.0)
    out.loading_s = max(time.perf_counter() - started - out.compile_s, 0.0)
    return out


def task_slots(client: Any) -> int:
    """Tasks the cluster runs side by side now (its workers' task threads, at least 1): what a
    search sizes its waves of independent steps by, as by its thread count in one process."""
    check_client(client)
    return max(1, sum(int(t) for t in client.nthreads().values()))


def worker_address() -> str | None:
    """The address of the worker running the calling task (None outside a task)."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def wall_deadline(deadline: float) -> float:
    """A ``time.perf_counter()`` deadline as a ``time.time()`` instant, the clock the workers
    share (infinity stays infinity)."""
    return time.time() + (deadline - time.perf_counter())


def local_deadline(wall: float) -> float:
    """:func:`wall_deadline` read back on a worker, as that process's ``time.perf_counter()``."""
    return time.perf_counter() + (wall - time.time())
