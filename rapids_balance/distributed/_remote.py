"""Graphs the client never holds: built on the workers from their parts, called there whole.

An edge list given as a Dask DataFrame or a Parquet dataset (a folder or a
glob) is read where it lies:

1. the client decides the column roles and checks every part from
   metadata only (each file's Parquet footer, the frame's dtypes), so a bad
   file is named, with its column, before any work
   (:class:`~rapids_balance.io.EdgeParts`);
2. one task per part reads its role columns on a worker (a Dask
   DataFrame's partitions are its own tasks, computed where Dask puts
   them); one task on one worker takes every part as its input, so Dask
   moves the parts worker to worker, and joins them in part order and
   builds the graph: the same graph as the same rows read in one process;
3. the built graph stays under its task's key and every worker copies it
   into its own cache (:func:`~._graphs.hold_graph`, as for a graph the
   client sends); the client gets a :class:`ClusterGraph`, a handle of a
   few hundred bytes (key, fingerprint, sizes, name, cleaning report).

A capability given such an input with ``client=`` (decorated with
:func:`on_workers`) first checks its parameters on the client as always,
then runs its whole call as one task on a worker, with that worker's own
client for its batches (``worker_client``: the task leaves its thread while
the batches run).  Tasks refer to the graph by key, so nothing graph-sized
crosses the client, and the result comes back once, straight from the
worker.  With ``as_dask=True`` the result's per-edge tables stay on that
worker: they become Dask DataFrames whose partitions are slices made
where the result lives, and only the rest of the result comes back.  An
input the client holds (a graph, a table, a file) takes the same way when
its per-edge tables are asked for as Dask DataFrames: the graph is built
here as always, sent once (as for any call's batches), the call runs on a
worker and the tables stay there.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import uuid
from typing import Any, Callable

from .._containers import ClusterGraph, GraphOnCluster, OnCluster
from .._validation import check_bool, param_error
from .._paths import is_dataset_path
from ._graphs import GRAPH_KEY_PREFIX, GraphRef, fingerprint, graph_on_worker, hold_graph, \
    known_on_cluster, scatter_graph, _remember, _LOCK

__all__ = ["cluster_graph", "on_workers", "is_cluster_input", "ROWS_PER_PARTITION"]

_ROLES = ("source", "target", "sign", "weight")
#: rows of a result table per partition of its Dask DataFrame (``as_dask=True``)
ROWS_PER_PARTITION = 1_000_000

# (client id, parts token) -> the handle of the graph built from them
_BUILT: dict[tuple[str, str], ClusterGraph] = {}


def is_cluster_input(obj: Any) -> bool:
    """A :class:`ClusterGraph`, a Dask DataFrame or a Parquet dataset (a folder or a glob)."""
    if isinstance(obj, ClusterGraph):
        return True
    if type(obj).__module__.split(".")[0] in ("dask", "dask_cudf") and hasattr(obj, "npartitions"):
        return True
    return is_dataset_path(obj)


def cluster_graph(client: Any, source: Any, **options: Any) -> ClusterGraph:
    """Build a graph on the workers of ``client`` from a Dask DataFrame or a Parquet dataset.

    Parameters
    ----------
    client : distributed.Client
    source : dask.dataframe.DataFrame, str or path-like
        A Dask DataFrame of edges, or a Parquet dataset: a folder of Parquet
        files (walked, names starting with ``.`` or ``_`` skipped) or a glob;
        the files are read in path order.
    **options
        ``source``, ``target``, ``sign``, ``weight`` (the column roles),
        ``signed`` and the cleaning options of
        :func:`rapids_balance.read_edgelist`.

    Returns
    -------
    ClusterGraph
        The handle the client keeps; pass it to a capability with the same
        ``client=``.  A second call with the same input (the same files,
        sizes and times, or the same Dask graph) and options returns the same
        handle without reading anything.

    Raises
    ------
    GraphFormatError, GraphInputError
        A bad file or column, named, before any part is read.
    InvalidParameterError
        ``source`` is not one of the above (a graph or table the client holds
        is passed to the capabilities as it is).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.cluster_graph(client, "edges/", sign="rating")   # doctest: +SKIP
    >>> g.n, g.m, g.parts                                        # doctest: +SKIP
    (82140, 500481, 16)
    >>> res = rb.balance(g, n_trees=1000, client=client)        # doctest: +SKIP
    """
    from ..graph import graph_from_any
    from ._preflight import check_client, check_workers

    check_client(client, "cluster_graph")
    if not is_cluster_input(source):  # refused before anything is read here
        raise param_error("source", "cluster_graph", "a Dask DataFrame, a folder of Parquet files "
                          "or a glob of them", source)
    try:
        graph_from_any(OnCluster(source), **options)
    except GraphOnCluster as found:
        if found.handle is not None:
            return found.handle
        check_workers(client, "cluster_graph")
        return _build(client, found.parts)
    raise AssertionError("an input for the cluster was read here")  # pragma: no cover


def _build(client: Any, parts: Any) -> ClusterGraph:
    """Read ``parts`` on the workers, build the graph on one, have all keep it (module docstring)."""
    import dask

    handle = _BUILT.get((client.id, parts.token))
    if handle is not None and _held(client, handle):
        return handle
    token = uuid.uuid4().hex[:10]
    pieces = parts.pieces()
    slim = parts.slim()
    if parts.kind == "parquet":
        reads = [client.submit(slim.read, path, i, key=f"read-edges-{i}-{token}", pure=False)
                 for i, path in enumerate(pieces)]
    else:  # the partitions are Dask's own tasks: each is read where Dask computes it
        reads = client.compute([dask.delayed(slim.read, pure=True)(p, i)
                                for i, p in enumerate(pieces)])
    key = f"{GRAPH_KEY_PREFIX}built-{parts.token}-{token}"
    built = client.submit(_build_graph, slim.build, *reads, key=key, pure=False)
    try:
        about = client.submit(_describe, built, key=f"describe-graph-{token}", pure=False)
        info = client.gather(about, direct=True)
    finally:
        for f in reads:
            f.release()
    hold_graph(client, built, info["fingerprint"])
    handle = ClusterGraph(key=key, parts=len(pieces), **info)
    _BUILT[(client.id, parts.token)] = handle
    return handle


def _held(client: Any, handle: ClusterGraph) -> bool:
    from ._graphs import _HELD

    fut = _HELD.get(client.id, {}).get(handle.fingerprint)
    return fut is not None and fut.key == handle.key and fut.status == "finished"


def _build_graph(build: Callable[..., Any], *parts: Any) -> Any:
    """The task that builds the graph from its parts (on the worker that runs it)."""
    return build(*parts)


def _describe(graph: Any) -> dict[str, Any]:
    """What the client keeps of a graph built on a worker (and the graph into this worker's cache)."""
    about = _about(graph)
    with _LOCK:
        _remember(about["fingerprint"], graph)
    return about


def _about(graph: Any) -> dict[str, Any]:
    """A :class:`ClusterGraph`'s fields but its key."""
    weighted = getattr(graph, "weight", None) is not None
    return dict(fingerprint=fingerprint(graph), n=int(graph.n), m=int(graph.m),
                name=graph.name or "", kind=type(graph).__name__, directed=bool(graph.directed),
                weighted=weighted, cleaning=graph.cleaning)


def _held_here(obj: Any) -> bool:
    """An input the client holds and reads on the host: not one the workers read, not a graph
    kept on the device nor a cuDF table (their tables stay on the device where they are)."""
    if is_cluster_input(obj) or getattr(obj, "on_device", False):
        return False
    return type(obj).__module__.split(".")[0] not in ("cudf", "cugraph", "cupy")


def _send(client: Any, graph: Any) -> ClusterGraph:
    """Send a graph the client built once (kept by every worker, as for its batches); its
    handle."""
    return ClusterGraph(key=scatter_graph(client, graph).key, **_about(graph))


def _ref(handle: ClusterGraph) -> GraphRef:
    return GraphRef(handle.key, handle.fingerprint)


# --- a whole call on a worker --------------------------------------------------------------------

def on_workers(fn: Callable) -> Callable:
    """Decorator of a capability (outside its ``frames_like_input``): given a cluster input
    (:func:`is_cluster_input`) and ``client=``, the call runs on the workers (module docstring)."""
    takes_as_dask = hasattr(fn, "dask_fields")  # set by frames_like_input
    dask_fields = getattr(fn, "dask_fields", ())
    owner = fn.__name__

    @functools.wraps(fn)
    def wrapper(graph: Any, *args: Any, **kwargs: Any) -> Any:
        client = kwargs.get("client")
        # an input the client holds (a built graph, a table, a file) whose per-edge tables are
        # asked for as Dask DataFrames: built here, sent once and called on the workers, so the
        # tables are made there
        held = (client is not None and takes_as_dask and dask_fields != ()
                and kwargs.get("as_dask") is True and _held_here(graph))
        if client is None or not (held or is_cluster_input(graph)):
            return fn(graph, *args, **kwargs)
        as_dask = check_bool(kwargs.pop("as_dask", False), "as_dask", owner) if takes_as_dask \
            else False
        if as_dask and dask_fields == ():
            raise param_error("as_dask", owner, "False (this result has no per-edge table)", as_dask)
        try:  # the capability checks its parameters, then hands the input back
            fn(OnCluster(graph), *args, **kwargs)
        except GraphOnCluster as found:
            built = found.graph  # an input the client holds, built here
            handle = _send(client, built) if built is not None else \
                (found.handle or _build(client, found.parts))
            call = found.call
        else:  # pragma: no cover - every decorated capability coerces its input
            raise AssertionError(f"{owner} read its input without coercing it")
        public = getattr(sys.modules[fn.__module__], owner)
        result = _call(client, handle, public, args, kwargs, as_dask, dask_fields, call)
        return _reattached(result, handle, built) if built is not None else result

    return wrapper


def _call(client: Any, handle: ClusterGraph, public: Callable, args: tuple, kwargs: dict,
          as_dask: bool, dask_fields: tuple | None, call: dict | None = None) -> Any:
    """Run ``public(graph, *args, **kwargs)`` on a worker; the result comes back once.  With
    ``as_dask`` its ``dask_fields`` (``None``: the result itself is the table) come back as
    Dask DataFrames whose partitions are made on that worker.  ``call`` (from the input's
    coercion) replaces those keyword arguments for the call on the built graph."""
    # the column roles were used when the graph was built from the edge list
    kwargs = {k: v for k, v in kwargs.items() if k not in ("client", *_ROLES)}
    kwargs.update(call or {})
    token = uuid.uuid4().hex[:10]
    name = getattr(public, "__name__", "call")
    fut = client.submit(_run_on_worker, public, _ref(handle), handle, args, kwargs,
                        key=f"{name}-on-workers-{token}", pure=False)
    if not as_dask:
        try:
            return client.gather(fut, direct=True)
        finally:
            fut.release()
    # the Dask DataFrames hold the result's future: it stays on its worker while they live
    if dask_fields is None:  # the result is one table
        return _dask_table(client, fut, None, token)
    rest, kept = client.gather(client.submit(_without, fut, tuple(dask_fields), key=f"{name}-rest-{token}",
                                             pure=False), direct=True)
    tables = {field: _dask_table(client, fut, field, token) for field in kept}
    if hasattr(rest, "attach_tables"):  # a result that derives more from its tables
        rest.attach_tables(tables)
    else:
        for field, table in tables.items():
            object.__setattr__(rest, field, table)
    return rest


def _run_on_worker(public: Callable, ref: GraphRef, handle: ClusterGraph, args: tuple,
                   kwargs: dict) -> Any:
    """The task: the capability's whole call on this worker's copy of the graph, its batches on
    the cluster through this worker's client."""
    from distributed import worker_client

    graph = graph_on_worker(ref)
    known_on_cluster(ref)  # its batches refer to the cluster's copy: nothing is sent again
    with worker_client() as client:  # leaves this task's thread to the batches meanwhile
        result = public(graph, *args, client=client, **kwargs)
    return _detached(result, graph, handle)


def _detached(result: Any, graph: Any, handle: ClusterGraph) -> Any:
    """The result with the graph itself (a field of some results) replaced by its handle: the
    graph stays on the workers."""
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        return result
    for f in dataclasses.fields(result):
        if getattr(result, f.name) is graph:
            object.__setattr__(result, f.name, handle)
    return result


def _reattached(result: Any, handle: ClusterGraph, graph: Any) -> Any:
    """The result of a call on an input the client holds, naming the graph built from it, not
    its handle."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            value = getattr(result, f.name)
            if isinstance(value, ClusterGraph) and value == handle:  # the handle's copy
                object.__setattr__(result, f.name, graph)
    return result


def _without(result: Any, fields: tuple) -> tuple[Any, list]:
    """A copy of ``result`` without those of its ``fields`` that are tables (the per-edge
    tables, which stay on the worker), and their names."""
    import copy

    kept = [f for f in fields if hasattr(getattr(result, f, None), "iloc")]
    if hasattr(result, "detach_tables"):  # a result holding more derived from its tables
        return result.detach_tables(kept), kept
    out = copy.copy(result)
    for field in kept:
        object.__setattr__(out, field, None)
    return out, kept


def _table(result: Any, field: str | None) -> Any:
    return result if field is None else getattr(result, field)


def _shape(result: Any, field: str | None) -> tuple[int, Any]:
    table = _table(result, field)
    return len(table), table.iloc[:0]


def _rows(result: Any, field: str | None, start: int, stop: int) -> Any:
    return _table(result, field).iloc[start:stop]


def _dask_table(client: Any, fut: Any, field: str | None, token: str) -> Any:
    """A Dask DataFrame of one table of the result ``fut`` holds: each partition a row slice
    made on the worker that holds the result."""
    import dask
    import dask.dataframe as dd

    rows, meta = client.submit(_shape, fut, field, key=f"shape-{field}-{token}",
                               pure=False).result()
    step = ROWS_PER_PARTITION
    parts = [dask.delayed(_rows, pure=True)(fut, field, a, min(a + step, rows))
             for a in range(0, max(rows, 1), step)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
