"""The one door from a capability to the cluster: run its batches, reduce them.

A capability hands :func:`run_batches` its pure per-batch function, its
batches and its reduction; nothing in ``distributed/`` knows what a tree, a
source or a restart is.  The graph goes to the cluster once (:mod:`._graphs`);
one pure task per batch, which Dask reruns elsewhere when its worker dies;
the parts folded on the cluster along a tree fixed by the number of batches
(:func:`~._tasks.tree_groups`), so the root is the same bit for bit for any
number of workers, or merged on the client in batch order.  Capability
packages import this module and no other private module of ``distributed/``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .._progress import progress_bar
from .._validation import check_int, check_progress
from ._cluster import worker_addresses
from ._graphs import GraphLostError, GraphRef, _is_future, forget_graph, scatter_graph
from ._preflight import check_client, check_client_arg, check_workers
from ._remote import on_workers
from ._tasks import fold_to_host, fold as fold_parts, narrow, run_batch, run_ready, stream_reduce, \
    sum_narrow, sum_parts, tree_groups

__all__ = ["run_batches", "tree_task_span", "ready_on_workers", "ReadyTimes", "on_workers", "task_slots",
           "worker_address", "wall_deadline", "local_deadline", "stream_reduce", "narrow",
           "sum_narrow", "RangeBatches", "WorkerBatches", "check_client", "check_client_arg",
           "check_task_count", "n_workers"]

#: most batches one run submits: the scheduler holds state for every task it knows
MAX_TASKS = 200_000


def check_task_count(n_batches: int, what: str) -> None:
    """Refuse, before anything is submitted, a run of more than :data:`MAX_TASKS` batches."""
    if n_batches > MAX_TASKS:
        from ..errors import InvalidParameterError

        raise InvalidParameterError(
            f"{what} would submit {n_batches} tasks to the Dask cluster, more than its limit of "
            f"{MAX_TASKS} (the scheduler keeps state for every task); pass a larger batch_size "
            "or split the run")


class RangeBatches(Sequence):
    """``range(0, n)`` cut into consecutive ranges of ``size`` ids (the last may be shorter),
    made on demand: a run of ``10**12`` trees never holds a list of its batches.

    >>> list(RangeBatches(10, 4))
    [range(0, 4), range(4, 8), range(8, 10)]
    """

    __slots__ = ("n", "size")

    def __init__(self, n: int, size: int):
        n, size = int(n), int(size)
        if size < 1:
            raise ValueError(f"batch_size must be at least 1, got {size}")
        if n < 0:
            raise ValueError(f"the number of ids must be >= 0, got {n}")
        self.n, self.size = n, size

    def __len__(self) -> int:
        return -(-self.n // self.size)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i) + (len(self) if int(i) < 0 else 0)
        if not 0 <= i < len(self):
            raise IndexError("batch index out of range")
        return range(i * self.size, min((i + 1) * self.size, self.n))

    def __iter__(self) -> Iterator[range]:
        return (range(a, min(a + self.size, self.n)) for a in range(0, self.n, self.size))

    def __repr__(self) -> str:
        return f"RangeBatches(n={self.n}, size={self.size})"


@dataclass(frozen=True)
class WorkerBatches:
    """``range(0, n)`` cut by the cluster: ``per_worker`` batches per worker (each busy to the
    end, a lost one cheap to redo), at most ``max_size`` ids each unless that would make more
    than :data:`MAX_TASKS`.  Only where the cut cannot change the result (integer counters,
    best-of with ties to the smallest id), never for floating-point sums.

    >>> WorkerBatches(30, per_worker=2).for_workers(2)
    RangeBatches(n=30, size=8)
    """

    n: int
    max_size: int | None = None
    per_worker: int = 4

    def for_workers(self, workers: int) -> RangeBatches:
        """The cut for a cluster of ``workers`` workers."""
        n = int(self.n)
        size = -(-n // (int(self.per_worker) * max(1, int(workers))))
        if self.max_size is not None:
            size = max(min(size, int(self.max_size)), -(-n // MAX_TASKS))
        return RangeBatches(n, max(1, size))


#: times a job is resubmitted after every copy of its graph was lost
_MAX_RESENDS = 2


def run_batches(client: Any, graph: Any, batch_fn: Callable[[Any, Any, Any], Any],
                batches: Iterable[Any] | WorkerBatches, params: Any = None, *,
                combine: Callable[[Any, Any], Any] | None = None,
                split_every: int | None = 8, fold: Callable[[list], Any] | None = None,
                progress: bool = False, desc: str | None = None, retries: int = 3,
                until: float | None = None, spread: bool = False) -> Any:
    """Run ``batch_fn(graph, batch, params)`` for every batch on the cluster and reduce.

    ``batch_fn`` is module-level (the workers import it) and pure; ``graph``
    (a graph, or a future used as it is) is sent once; ``params`` travels with
    each task, so keep it small.  ``batches`` gives one task per item, in
    order (a :class:`WorkerBatches` is cut for the workers there are now).

    The parts are reduced one of two ways:

    * ``combine(a, b) -> new object`` (default: elementwise sum) on the
      cluster, in batch order along the tree fixed by ``split_every``
      (``None``: one left fold); only the root comes back, equal bit for bit to
      :func:`~._tasks.ordered_reduce` of the same parts;
    * ``fold(parts)`` on the client, the parts in batch order.  With ``until``
      (a ``time.time()`` deadline) batches are submitted in order, two per
      worker in flight, none after it (the first always), and ``fold`` gets
      the prefix submitted; with ``spread``, batch ``i`` runs on worker
      ``i mod W``, loosely (a few long tasks the scheduler might give to one).

    ``retries`` reruns a batch that raised (a dead worker's batches are rerun
    anyway); ``progress`` and ``desc`` (label and task-name prefix) as in the
    capabilities.  Bad arguments or more than :data:`MAX_TASKS` batches raise
    :class:`~rapids_balance.errors.InvalidParameterError`, before anything is
    sent.

    Examples
    --------
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
        # on this client's loop: by default as_completed tracks futures on the default client's,
        # another client's where a process holds several, and then sees them seconds late
        pending = as_completed(loop=client.loop)
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
            for _ in as_completed(leaves, loop=client.loop):
                bar.update(1)
        return _result(items[0])

    return job


def _placement(client: Any, spread: bool) -> Callable[[int], dict]:
    """Task ``i``'s placement: none, or (``spread``) worker ``i mod W``, loosely (a lost worker's
    task runs elsewhere): else the worker that frees its thread first may take every search."""
    addrs = worker_addresses(client) if spread else []
    return lambda i: {"workers": [addrs[i % len(addrs)]], "allow_other_workers": True} if addrs else {}


def _result(fut: Any) -> Any:
    """A finished task's value straight from its worker (the scheduler relays no result bytes)."""
    return fut.client.gather(fut, direct=True)


def n_workers(client: Any) -> int:
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(worker_addresses(client)))


def tree_task_span(client: Any, n_leaves: int, split_every: int, per_worker: int = 2) -> int:
    """Leaves per task for a reduction over ``n_leaves`` leaves: the largest power of
    ``split_every`` that still gives ``per_worker`` tasks per worker (or 1).  A task that
    folds ``span`` leaves from a multiple of ``span`` with :func:`stream_reduce` returns the
    node of the whole tree that covers them, so :func:`run_batches` over such tasks gives the
    single-process fold bit for bit, with fewer, larger tasks on a small cluster."""
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
    at once, before the search's clock starts, instead of a cold worker compiling inside its
    first batch without a word; the caller reports the seconds in its result's ``info``."""
    started = time.perf_counter()
    workers = worker_addresses(client)
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
