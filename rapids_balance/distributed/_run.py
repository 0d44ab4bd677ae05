"""The one door from a capability to the cluster: run its batches, reduce them.

A capability scales out by handing :func:`run_batches` its pure per-batch
function ``batch_fn(graph, batch, params)``, its batches and its reduction;
nothing in ``distributed/`` knows what a tree, a source or a restart is.
Two reductions cover every capability:

* ``combine(a, b)`` on the cluster: the partial results are folded in batch
  order along a tree whose shape depends only on the number of batches and
  ``split_every`` (:func:`~._map.map_reduce`); only the root comes back
  (balance counters, betweenness sums);
* ``fold(parts)`` on the client: the parts come back in batch order and the
  capability merges them with state that belongs to its call (the
  frustration cloud and its state cap, the best clustering restart).

Capability packages import this module and no other private module of
``distributed/`` (a test holds both sides to it); the argument checks and
batch cuts they need are re-exported here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Callable

from ._batches import RangeBatches, WorkerBatches
from ._map import check_client, check_client_arg, check_task_count, map_batches, map_reduce, n_workers
from ._remote import on_workers
from ._tasks import narrow, run_ready, stream_reduce, sum_narrow, sum_parts

__all__ = ["run_batches", "tree_task_span", "ready_on_workers", "on_workers", "task_slots",
           "worker_address", "wall_deadline", "local_deadline", "stream_reduce", "narrow", "sum_narrow", "RangeBatches", "WorkerBatches", "check_client", "check_client_arg",
           "check_task_count"]


def run_batches(client: Any, graph: Any, batch_fn: Callable[[Any, Any, Any], Any],
                batches: Iterable[Any] | WorkerBatches, params: Any = None, *,
                combine: Callable[[Any, Any], Any] | None = None,
                split_every: int | None = 8, fold: Callable[[list], Any] | None = None,
                progress: bool = False, desc: str | None = None, retries: int = 3,
                until: float | None = None, spread: bool = False) -> Any:
    """Run ``batch_fn(graph, batch, params)`` for every batch on the cluster and reduce.

    The graph is scattered once per client (workers on this machine map one
    shared copy); each batch is one pure task, rerun by Dask when its worker
    dies or (``retries`` times) when it raises.

    Parameters
    ----------
    client : distributed.Client
        A running client.
    graph : Graph, SignedGraph or distributed.Future
        What every batch reads; a future is used as it is.  A graph kept on
        the device is sent as its device arrays, with no host copy on the
        client (see :func:`~._map.scatter_graph`).
    batch_fn : callable
        Module-level (importable by the workers) and pure: it never updates
        its arguments in place.
    batches : iterable or WorkerBatches
        One task per item, in this order.  A :class:`WorkerBatches` is cut
        here for the workers the scheduler knows now.
    params : object
        Passed unchanged to every call (small: it travels with each task).
    combine : callable, optional
        ``combine(a, b) -> new object``: reduce on the cluster, in batch
        order, along the tree fixed by ``split_every`` (``None``: one left
        fold).  Default: elementwise sum
        (:func:`~rapids_balance.distributed.ordered_reduce` gives the same
        reduction locally, bit for bit).
    split_every : int or None
        Fan-in of the cluster reduction (>= 2); unused with ``fold``.
    fold : callable, optional
        ``fold(parts)``: the per-batch results come back to the client as a
        list in batch order and ``fold`` merges them there.  Give either
        ``combine`` or ``fold``, not both.
    progress : bool
        Progress bar over finished batches.
    desc : str, optional
        Progress label and task-name prefix (default: ``batch_fn``'s name).
    retries : int
        Reruns of a batch that raised.
    until : float, optional
        With ``fold``: a ``time.time()`` deadline after which no batch is
        submitted (the first always is); ``fold`` then gets the parts of the
        batches submitted, a prefix in batch order (see
        :func:`~._map.map_batches`).
    spread : bool
        With ``fold``: batch ``i`` placed on worker ``i mod W`` (loosely), for
        a few long independent tasks (see :func:`~._map.map_batches`).

    Returns
    -------
    object
        The cluster reduction's root (host arrays; for a graph kept on the
        device, arrays where the workers made them), or what ``fold`` returns.

    Raises
    ------
    TypeError
        Both ``combine`` and ``fold`` given, or ``client`` is not a
        ``distributed.Client``.
    InvalidParameterError
        More batches than the scheduler takes (``MAX_TASKS``), or a bad
        ``retries`` / ``progress`` / ``split_every``.
    ValueError
        No batches.

    Examples
    --------
    >>> from rapids_balance.distributed import RangeBatches, run_batches
    >>> def degree_sum(graph, ids, params):  # module-level in real code
    ...     return int(graph.degrees()[ids.start:ids.stop].sum())
    >>> total = run_batches(client, g, degree_sum, RangeBatches(g.n, 1000))  # doctest: +SKIP
    >>> per_batch = run_batches(client, g, degree_sum, RangeBatches(g.n, 1000),
    ...                         fold=list)                                 # doctest: +SKIP
    """
    if combine is not None and fold is not None:
        raise TypeError("run_batches takes combine= (reduce on the cluster) or fold= (merge on "
                        "the client), not both")
    check_client(client)
    if isinstance(batches, WorkerBatches):
        batches = batches.for_workers(n_workers(client))
    if fold is not None:
        return fold(map_batches(client, graph, batch_fn, batches, params, retries=retries,
                                progress=progress, desc=desc, until=until, spread=spread))
    return map_reduce(client, graph, batch_fn, batches, params,
                      combine=sum_parts if combine is None else combine, split_every=split_every,
                      retries=retries, progress=progress, desc=desc)


def tree_task_span(client: Any, n_leaves: int, split_every: int, per_worker: int = 2) -> int:
    """Leaves per task for a reduction over ``n_leaves`` fixed leaves: the largest power of
    ``split_every`` that still gives ``client``'s cluster ``per_worker`` tasks per worker
    (1, a task per leaf, when there are too few leaves).

    A task that folds ``span = split_every ** j`` consecutive leaves from a multiple of
    ``span`` with :func:`stream_reduce` returns exactly the node of the tree over all the
    leaves that covers them (the last task, with fewer leaves, its node too: a group of one
    is its item), so :func:`run_batches` over such tasks with the same ``split_every`` gives
    the single-process fold of the leaves bit for bit, on any number of workers.  Fewer,
    larger tasks on a small cluster (a task's kernels run its leaves in one parallel
    region; two tasks per worker still let a worker start its next task while the other's
    last threads finish, and a lost worker costs two tasks); a task per leaf on a large one.
    """
    check_client(client)
    tasks = int(per_worker) * n_workers(client)
    span = 1
    while -(-int(n_leaves) // (span * split_every)) >= tasks:
        span *= split_every
    return span


def ready_on_workers(client: Any, ready: Callable[..., float], *args: Any) -> dict[str, float]:
    """Run ``ready(*args)`` (a search's kernel warm-up, which returns its seconds) on every
    worker at once, before the search's clock starts; returns ``{worker: seconds}``.

    A cold worker would otherwise compile inside its first batch, on the
    search's time and without a word; here all workers compile (or load
    from their numba cache) in parallel, one task each in a task thread
    (not in the worker's event loop, which must keep answering the
    scheduler), and the caller reports the seconds in its result's ``info``.
    """
    import uuid

    check_client(client)
    workers = sorted(client.scheduler_info().get("workers", {}))
    token = uuid.uuid4().hex[:10]
    futs = [client.submit(run_ready, ready, *args, workers=[w], allow_other_workers=True,
                          pure=False, key=f"ready-{i}-{token}") for i, w in enumerate(workers)]
    try:
        return dict(zip(workers, client.gather(futs)))
    finally:
        for f in futs:
            f.release()


def task_slots(client: Any) -> int:
    """Tasks the cluster runs side by side now: the task threads of all its workers (at least 1).

    A search that runs its independent steps as tasks (the frustration
    refinement's V-cycles) sizes its waves by this, as it sizes them by its
    thread count in one process.
    """
    check_client(client)
    return max(1, sum(int(t) for t in client.nthreads().values()))


def worker_address() -> str | None:
    """The address of the worker running the calling task (None outside a task): what a
    task may report so that its caller can say where its work ran."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def wall_deadline(deadline: float) -> float:
    """A ``time.perf_counter()`` deadline of this process as a ``time.time()`` instant: the one
    clock the workers share (infinity, no deadline, stays infinity)."""
    return time.time() + (deadline - time.perf_counter())


def local_deadline(wall: float) -> float:
    """:func:`wall_deadline` read back on a worker, as that process's ``time.perf_counter()``."""
    return time.perf_counter() + (wall - time.time())
