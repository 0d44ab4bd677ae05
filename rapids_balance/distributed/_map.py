"""Ship the graph once, map batches over workers, reduce in batch order.

The driver of every distributed algorithm is the same three steps:

1. :func:`scatter_graph` puts the graph on the cluster once
   (:mod:`._graphs`: to one worker from the client, worker to worker after,
   kept by every worker under its content fingerprint); tasks carry a small
   reference to it, so it is never pickled into a task and a later call
   sends nothing graph-sized.  Workers on the client's machine receive a
   handle to one shared file mapping instead (:mod:`._shared`), so they
   hold one physical copy between them.
2. :func:`map_batches` / :func:`map_reduce` submit one pure task per batch
   (``fn(graph, batch, params)``) with Dask's retries.
3. The partial results are reduced *in batch order*, on the cluster, along
   a shape fixed by the number of batches (:func:`~._tasks.tree_groups`):
   the answer does not depend on the number of workers or on which worker
   ran what, and matches :func:`~._tasks.ordered_reduce` run locally.

Fault tolerance is Dask's: when a worker dies, the scheduler reruns the
tasks it held or was running on the remaining (or restarted) workers.
Because tasks are pure and reductions consume task *results* (nothing is
accumulated in place), a rerun batch is counted exactly once.
"""

from __future__ import annotations

import copy
import time
import uuid
from typing import Any, Callable, Iterable, Sequence

from .._progress import progress_bar
from .._validation import check_int, check_progress, param_error
from ..errors import InvalidParameterError
from ._batches import MAX_TASKS, RangeBatches, WorkerBatches
from ._cluster import require_distributed
from ._device_graph import ship_device_graph
from ._preflight import check_workers
from ._graphs import GraphLostError, GraphRef, forget_graph, ship_graph
from ._shared import share_graph, shared_graph_enabled
from ._tasks import fold, fold_to_host, run_batch, sum_parts, tree_groups

__all__ = ["scatter_graph", "map_batches", "map_reduce", "split_range", "cluster_batches",
           "n_workers", "check_client", "check_client_arg", "check_task_count", "MAX_TASKS"]

def check_client(client: Any, owner: str | None = None) -> Any:
    """Validate a ``client=`` argument: a running ``distributed.Client``.

    ``owner`` (the public function's name) gives the message the style of
    :mod:`rapids_balance._validation`; every public function calls this
    before loading its graph.
    """
    distributed = require_distributed(f"{owner}(client=...)" if owner else "client=")
    if not isinstance(client, distributed.Client):
        if owner is not None:
            raise param_error("client", owner, "a distributed.Client (from rapids_balance.start_cluster() "
                              "or distributed.Client(address)) or None", client)
        raise TypeError(f"client must be a distributed.Client, got {type(client).__name__}; "
                        "use rapids_balance.start_cluster() or distributed.Client(address)")
    if client.status != "running":
        raise RuntimeError(f"the Dask client is not running (status {client.status!r})")
    return client


def _known_workers(client: Any) -> int:
    try:
        info = client.scheduler_info()
        return int(info.get("n_workers", len(info.get("workers", {}))))
    except TypeError:  # a newer signature, or a stand-in: do not refuse on a question we cannot ask
        return 1


def check_client_arg(client: Any, owner: str, backend: str | None = None) -> None:
    """A public function's ``client=``: None, or a running ``distributed.Client`` with at least one
    worker (checked up front, so a cluster with none fails at once), each of which can import
    rapids-balance at this version, numba and (``backend="gpu"``) CuPy
    (:func:`~._preflight.check_workers`: a worker that cannot would hang the call)."""
    if client is not None:
        check_client(client, owner)
        # up front only: in the middle of a run a worker being replaced leaves none for a moment
        if not _known_workers(client):
            # Dask's scatter would wait for its timeout (30 s), then fail with "No valid workers found"
            raise RuntimeError(f"{owner}(client=...): the Dask cluster has no workers; start some "
                               "(rapids_balance.start_cluster(n)) or wait for them first "
                               "(client.wait_for_workers(1))")
        check_workers(client, owner, gpu=backend == "gpu")


def _is_future(obj: Any) -> bool:
    try:
        from distributed import Future
    except ImportError:  # pragma: no cover
        return False
    return isinstance(obj, Future)


def _shipping_copy(graph: Any) -> Any:
    """A shallow copy of ``graph`` without its per-process caches.

    ``Graph`` caches device arrays (``_device``) and a label index, the
    betweenness ``BCGraph`` its device arrays (``_dev``); none should travel:
    a worker builds its own, on its own GPU.  The host arrays are shared,
    not copied.
    """
    if not hasattr(graph, "__dict__"):
        return graph
    out = copy.copy(graph)
    for attr in ("_device", "_label_index", "_dev"):
        if attr in out.__dict__:
            out.__dict__[attr] = None
    return out


def scatter_graph(client: Any, graph: Any, *, shared: bool | None = None) -> Any:
    """Put ``graph`` on the cluster of ``client`` once and return what tasks carry instead.

    Parameters
    ----------
    client : distributed.Client
    graph : Graph, SignedGraph, GraphRef or distributed.Future
        A :class:`~._graphs.GraphRef` or a future (the caller's own scatter)
        is returned unchanged.
    shared : bool, optional
        Put the graph's large arrays in one file that every worker maps
        (:mod:`~rapids_balance.distributed._shared`), so worker processes on
        this machine share one physical copy.  Default: the dask config
        value ``rapids-balance.shared-graph`` (True).  Used only when every
        worker can open the file; otherwise, and with ``False``, the graph
        itself is sent.  Not for a graph kept on the device.

    Returns
    -------
    GraphRef
        The graph's key and content fingerprint (:mod:`._graphs`): the client
        sends the graph to one worker, the workers copy it between them and
        keep it; a later call with the same graph (the same content) sends
        nothing graph-sized.

    Notes
    -----
    A graph kept on the device (``graph.on_device``) is sent as its device
    arrays, serialized by Dask as it serializes CuPy arrays: the client
    makes no host copy of it (:mod:`~rapids_balance.distributed._device_graph`).
    """
    if isinstance(graph, GraphRef) or _is_future(graph):
        return graph
    check_client(client)
    if shared is None:
        shared = shared_graph_enabled()

    def prepare(g: Any) -> Any:
        shipped = _shipping_copy(g)
        if getattr(g, "on_device", False):  # device arrays travel as Dask sends device arrays
            return ship_device_graph(shipped)
        if shared:
            return share_graph(client, g, shipped) or shipped
        return shipped

    return ship_graph(client, graph, prepare)


def split_range(n: int, batch_size: int) -> RangeBatches:
    """``range(0, n)`` cut into consecutive ranges of ``batch_size`` items.

    Returns a lazy sequence (:class:`~._batches.RangeBatches`: ``len``,
    indexing, iteration; compares equal to the list of its ranges), so a
    huge ``n`` costs nothing until the batches are used.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    return RangeBatches(n, batch_size)


def n_workers(client: Any) -> int:
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def cluster_batches(client: Any, n_items: int, *, max_size: int | None = None,
                    tasks_per_worker: int = 4) -> RangeBatches:
    """``range(n_items)`` cut into about ``tasks_per_worker`` batches per worker of ``client``.

    :meth:`WorkerBatches.for_workers <._batches.WorkerBatches.for_workers>`
    with the number of workers the scheduler knows now; only where the cut
    cannot change the result.
    """
    return WorkerBatches(n_items, max_size, tasks_per_worker).for_workers(n_workers(client))


def check_task_count(n_batches: int, what: str) -> None:
    """Refuse, before anything is submitted, a run of more than :data:`MAX_TASKS` batches."""
    if n_batches > MAX_TASKS:
        raise InvalidParameterError(
            f"{what} would submit {n_batches} tasks to the Dask cluster, more than its limit of "
            f"{MAX_TASKS} (the scheduler keeps state for every task); pass a larger batch_size "
            "or split the run")


def _submit_batches(client, gfut, fn, batches, params, retries, name, token, spread=False):
    place = _placement(client, spread)
    return [client.submit(run_batch, fn, gfut, b, params, key=f"{name}-{i}-{token}",
                          retries=retries, pure=False, **place(i))
            for i, b in enumerate(batches)]


def _placement(client: Any, spread: bool) -> Callable[[int], dict]:
    """Task ``i``'s placement: none, or (``spread``) worker ``i mod W`` of the sorted
    addresses, loosely (``allow_other_workers``, so a lost worker's task runs elsewhere).

    Long independent tasks (searches that each fill their time limit) are spread so: the
    scheduler places root tasks by load, and a worker that frees its thread first may take
    them all while its peer is still busy, which leaves the peer idle for the whole call."""
    addrs = sorted(client.scheduler_info().get("workers", {})) if spread else []
    if not addrs:
        return lambda i: {}
    return lambda i: {"workers": [addrs[i % len(addrs)]], "allow_other_workers": True}


def _wait(futures: Sequence[Any], progress: bool, desc: str,
          on_result: Callable[[int, Any], None] | None = None) -> list[Any] | None:
    """Block until ``futures`` finish, ticking a bar per finished batch.

    With ``on_result`` the results are fetched as they complete, handed to
    ``on_result(batch index, result)`` in completion order, and returned in
    batch order.
    """
    from distributed import as_completed

    index = {f.key: i for i, f in enumerate(futures)}
    out: list[Any] = [None] * len(futures)
    with progress_bar(len(futures), desc, enabled=progress, unit="batch") as bar:
        if on_result is None:
            for _ in as_completed(futures):
                bar.update(1)
            return None
        for fut in as_completed(futures):
            i = index[fut.key]
            out[i] = res = _result(fut)
            on_result(i, res)
            bar.update(1)
    return out


_MAX_RESCATTERS = 2


def _result(fut: Any) -> Any:
    """A finished task's value, straight from the worker that holds it (not relayed by the
    scheduler, which then carries no result bytes); raises the task's error."""
    return fut.client.gather(fut, direct=True)


def name_of(fn: Callable, desc: str | None) -> str:
    """Task-name prefix and progress label of a run."""
    return desc or getattr(fn, "__name__", "batch").lstrip("_")


def _check_run(owner: str, retries: Any, progress: Any) -> None:
    check_int(retries, "retries", owner, low=0, high=1000)
    check_progress(progress, owner)


def _run_job(client, graph, fn, batches, desc, job):
    """Ship the graph, run ``job(ref, batches, name, token, made)``, release its futures.

    The graph's copies live on the workers (:mod:`._graphs`); if every
    worker that held Dask's copy died before another fetched it, the tasks
    say so (:class:`~._graphs.GraphLostError`): the graph is then sent again
    and the whole job resubmitted, which is safe because every task is pure.
    """
    check_client(client)
    if not isinstance(batches, Sequence):
        batches = list(batches)
    check_task_count(len(batches), f"{name_of(fn, desc)}")
    if not len(batches):
        raise ValueError("no batches to run")
    name = name_of(fn, desc)
    check_workers(client, name)  # the building blocks too: a worker that cannot import us hangs
    from concurrent.futures import CancelledError

    for attempt in range(_MAX_RESCATTERS + 1):
        ref = None
        made: list[Any] = []
        try:
            ref = scatter_graph(client, graph)
            return job(ref, batches, name, uuid.uuid4().hex[:10], made)
        except (CancelledError, GraphLostError):
            if _is_future(graph) or attempt == _MAX_RESCATTERS:
                raise
            if isinstance(ref, GraphRef):
                forget_graph(client, ref)
        finally:
            for f in made:
                f.release()
    raise AssertionError("unreachable")  # pragma: no cover


def map_batches(client: Any, graph: Any, fn: Callable[[Any, Any, Any], Any],
                batches: Iterable[Any], params: Any = None, *, retries: int = 3,
                progress: bool = False, desc: str | None = None,
                on_result: Callable[[int, Any], None] | None = None,
                until: float | None = None, spread: bool = False) -> list[Any]:
    """Run ``fn(graph, batch, params)`` for every batch on the cluster.

    Parameters
    ----------
    client : distributed.Client
    graph : Graph or distributed.Future
        Scattered once with :func:`scatter_graph` unless already a future.
    fn : callable
        A module-level (importable) pure function.
    batches : iterable
        One task per item (a range of tree ids, an array of sources, ...).
    params : object
        Passed to every call unchanged (keep it small: it is part of each task).
    retries : int
        Reruns of a batch that *raised*; a batch whose worker died is rerun
        by the scheduler regardless (up to ``distributed.scheduler.allowed-failures``).
    progress : bool
        Show a progress bar over batches.
    desc : str, optional
        Progress-bar label and task-name prefix (default: ``fn``'s name).
    on_result : callable, optional
        ``on_result(i, result)`` is called on the client as each batch
        finishes (completion order), e.g. to report the best value so far.
    until : float, optional
        A ``time.time()`` deadline: batches are submitted in order, two per
        worker in flight, and none after the deadline (the first always);
        the result then covers the batches submitted, a prefix of
        ``batches``.  A run of a million batches with a deadline of seconds
        thus costs the scheduler the batches that fit, not a million tasks.
    spread : bool
        Place batch ``i`` on worker ``i mod W`` (loosely): for a few long
        independent tasks, which the scheduler may otherwise give to
        whichever worker frees its thread first.

    Returns
    -------
    list
        ``fn``'s results, in batch order (not completion order).

    Examples
    --------
    >>> from rapids_balance.distributed import map_batches, split_range, start_cluster
    >>> def degree_sum(graph, ids, params):  # module-level in real code
    ...     return int(graph.degrees()[ids.start:ids.stop].sum())
    >>> with start_cluster(2, gpu=False) as client:            # doctest: +SKIP
    ...     parts = map_batches(client, g, degree_sum, split_range(g.n, 1000))
    """
    def job(gfut, batches, name, token, made):
        if until is not None:
            return _until(gfut, batches, name, token, made)
        futs = _submit_batches(client, gfut, fn, batches, params, retries, name, token, spread)
        made += futs
        got = _wait(futs, progress, name, on_result)
        return got if got is not None else client.gather(futs, direct=True)

    def _until(ref, batches, name, token, made):
        from distributed import as_completed

        pending = as_completed()
        index: dict[Any, int] = {}
        got: dict[int, Any] = {}

        place = _placement(client, spread)

        def submit(i: int) -> None:
            fut = client.submit(run_batch, fn, ref, batches[i], params, key=f"{name}-{i}-{token}",
                                retries=retries, pure=False, **place(i))
            made.append(fut)
            index[fut.key] = i
            pending.add(fut)

        width = 2 * n_workers(client)
        submitted = 0
        while submitted < min(width, len(batches)) and (not submitted or time.time() < until):
            submit(submitted)
            submitted += 1
        with progress_bar(len(batches), name, enabled=progress, unit="batch") as bar:
            for fut in pending:
                i = index[fut.key]
                got[i] = _result(fut)
                if on_result is not None:
                    on_result(i, got[i])
                bar.update(1)
                if submitted < len(batches) and time.time() < until:
                    submit(submitted)
                    submitted += 1
        return [got[i] for i in range(submitted)]

    _check_run("map_batches", retries, progress)
    return _run_job(client, graph, fn, batches, desc, job)


def map_reduce(client: Any, graph: Any, fn: Callable[[Any, Any, Any], Any],
               batches: Iterable[Any], params: Any = None, *,
               combine: Callable[[Any, Any], Any] = sum_parts, split_every: int | None = 8,
               retries: int = 3, progress: bool = False, desc: str | None = None) -> Any:
    """Map batches like :func:`map_batches` and reduce their results on the cluster.

    The partial results are combined in batch order along a tree whose shape
    depends only on the number of batches and ``split_every`` (each node a
    left fold of up to ``split_every`` consecutive items; ``None``: one left
    fold of all).  So the result is the same for any number of workers and
    any placement, and equals
    ``ordered_reduce(parts, combine, split_every)`` computed in one process,
    bit for bit, floating point included.  Only the root comes back to the
    client: as host arrays, or, for a graph kept on the device, where the
    workers computed it (device counters stay on the device).

    ``combine(a, b)`` must return a new object (never update ``a`` in place):
    a rerun task must see the inputs the first attempt saw.

    Returns
    -------
    object
        The reduced result.

    Examples
    --------
    >>> from rapids_balance.distributed import map_reduce, ordered_reduce, split_range
    >>> batches = split_range(n, 64)                                         # doctest: +SKIP
    >>> total = map_reduce(client, g, part, batches, params, split_every=8)  # doctest: +SKIP
    >>> local = ordered_reduce([part(g, b, params) for b in batches], split_every=8)  # doctest: +SKIP
    >>> bool((total == local).all())                                         # doctest: +SKIP
    True
    """
    to_host_root = not getattr(graph, "on_device", False)

    def job(gfut, batches, name, token, made):
        futs = _submit_batches(client, gfut, fn, batches, params, retries, name, token)
        made += futs
        levels = tree_groups(len(futs), split_every)
        items = futs
        for depth, level in enumerate(levels):
            root_to_host = depth == len(levels) - 1 and to_host_root
            items = [client.submit(fold_to_host if root_to_host else fold, combine, *items[a:b],
                                   key=f"{name}-reduce{depth}-{j}-{token}", retries=retries,
                                   pure=False)
                     for j, (a, b) in enumerate(level)]
            made += items
        _wait(futs, progress, name)
        return _result(items[0])

    _check_run("map_reduce", retries, progress)
    check_int(split_every, "split_every", "map_reduce", low=2, high=MAX_TASKS, allow_none=True)
    return _run_job(client, graph, fn, batches, desc, job)
