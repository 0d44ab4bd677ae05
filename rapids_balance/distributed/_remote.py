"""Graphs the client never holds: built on the workers from their parts, called there whole.

:func:`cluster_graph` reads a Dask DataFrame or a Parquet dataset where it
lies: the client checks every part from metadata only (a bad file is named
before any work), one task per part reads it on a worker, one task joins them
in part order and builds the graph, and every worker keeps it
(:func:`~._graphs.hold_graph`); the client gets a small :class:`ClusterGraph`.

A capability decorated with :func:`on_workers`, given such an input and
``client=``, checks its parameters on the client, then runs its whole call as
one task on a worker, its batches through that worker's client.  The result
comes back once, straight from the worker; with ``as_dask=True`` its per-edge
tables stay there as Dask DataFrames (for an input the client holds too: its
graph is built here and sent once).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import sys
import uuid
from typing import Any, Callable

from .._containers import ClusterGraph, GraphOnCluster, OnCluster
from .._paths import is_dataset_path
from .._validation import check_bool, param_error
from ._graphs import GRAPH_KEY_PREFIX, GraphRef, fingerprint, graph_on_worker, held_ref, \
    hold_graph, keep_here, known_on_cluster, scatter_graph

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
        A Dask DataFrame of edges, or a folder of Parquet files (walked, names
        starting with ``.`` or ``_`` skipped) or a glob, read in path order.
    **options
        The column roles (``source``, ``target``, ``sign``, ``weight``),
        ``signed`` and the cleaning options of :func:`rapids_balance.read_edgelist`.

    Returns
    -------
    ClusterGraph
        A handle to pass to a capability with the same ``client=``.  The same
        input (files of the same sizes and times, or the same Dask graph) and
        options return the same handle, reading nothing.

    Raises
    ------
    GraphFormatError, GraphInputError
        A bad file or column, named, before any part is read.
    InvalidParameterError
        ``source`` is none of the above.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.cluster_graph(client, "edges/", sign="rating")   # doctest: +SKIP
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
    """Read ``parts`` on the workers, build the graph on one, have all keep it."""
    import dask

    handle = _BUILT.get((client.id, parts.token))
    if handle is not None and held_ref(client, handle.fingerprint) == GraphRef(handle.key, handle.fingerprint):
        return handle
    token = uuid.uuid4().hex[:10]
    pieces = parts.pieces()
    slim = parts.slim()
    # a file, or a Dask DataFrame's partition (its own tasks): each read where Dask puts it
    reads = client.compute([dask.delayed(slim.read)(p, i, dask_key_name=f"read-edges-{i}-{token}")
                            for i, p in enumerate(pieces)])
    key = f"{GRAPH_KEY_PREFIX}built-{parts.token}-{token}"
    built = client.submit(slim.build, *reads, key=key, pure=False)
    try:
        about = client.gather(client.submit(_describe, built, key=f"describe-graph-{token}",
                                            pure=False), direct=True)
    finally:
        for f in reads:
            f.release()
    hold_graph(client, built, about["fingerprint"])
    handle = _BUILT[(client.id, parts.token)] = ClusterGraph(key=key, parts=len(pieces), **about)
    return handle


def _describe(graph: Any) -> dict[str, Any]:
    """What the client keeps of a graph built on a worker (kept in this worker's cache)."""
    about = _about(graph)
    keep_here(graph, about["fingerprint"])
    return about


def _about(graph: Any) -> dict[str, Any]:
    """A :class:`ClusterGraph`'s fields but its key."""
    return dict(fingerprint=fingerprint(graph), n=int(graph.n), m=int(graph.m),
                name=graph.name or "", kind=type(graph).__name__, directed=bool(graph.directed),
                weighted=getattr(graph, "weight", None) is not None, cleaning=graph.cleaning)


def _held_here(obj: Any) -> bool:
    """An input the client holds and reads on the host: not one the workers read, nor a
    graph or table on the device (whose tables stay where they are)."""
    if is_cluster_input(obj) or getattr(obj, "on_device", False):
        return False
    return type(obj).__module__.split(".")[0] not in ("cudf", "cugraph", "cupy")


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
        held = (client is not None and takes_as_dask and dask_fields != ()
                and kwargs.get("as_dask") is True and _held_here(graph))
        if client is None or not (held or is_cluster_input(graph)):
            return fn(graph, *args, **kwargs)
        as_dask = takes_as_dask and check_bool(kwargs.pop("as_dask", False), "as_dask", owner)
        if as_dask and dask_fields == ():
            raise param_error("as_dask", owner, "False (this result has no per-edge table)", as_dask)
        try:  # the capability checks its parameters, then hands the input back
            fn(OnCluster(graph), *args, **kwargs)
        except GraphOnCluster as found:
            built = found.graph  # an input the client holds, built here
            if built is not None:
                handle = ClusterGraph(key=scatter_graph(client, built).key, **_about(built))
            else:
                handle = found.handle or _build(client, found.parts)
            call = found.call
        else:  # pragma: no cover - every decorated capability coerces its input
            raise AssertionError(f"{owner} read its input without coercing it")
        public = getattr(sys.modules[fn.__module__], owner)
        result = _call(client, handle, public, args, kwargs, as_dask, dask_fields, call)
        if built is None:
            return result
        # the result names the graph the client built, not its handle
        return _swapped(result, lambda v: isinstance(v, ClusterGraph) and v == handle, built)

    return wrapper


def _call(client: Any, handle: ClusterGraph, public: Callable, args: tuple, kwargs: dict,
          as_dask: bool, dask_fields: tuple | None, call: dict | None = None) -> Any:
    """Run ``public(graph, *args, **kwargs)`` on a worker (``call``, from the input's coercion,
    replacing those keywords); the result comes back once, with ``as_dask`` its ``dask_fields``
    (``None``: the result is the table) as Dask DataFrames made on that worker."""
    # the column roles were used when the graph was built from the edge list
    kwargs = {k: v for k, v in kwargs.items() if k not in ("client", *_ROLES)}
    kwargs.update(call or {})
    token = uuid.uuid4().hex[:10]
    name = getattr(public, "__name__", "call")
    fut = client.submit(_run_on_worker, public, handle, args, kwargs,
                        key=f"{name}-on-workers-{token}", pure=False)
    if not as_dask:
        try:
            return client.gather(fut, direct=True)
        finally:
            fut.release()
    # the Dask DataFrames hold the result's future: it stays on its worker while they live
    if dask_fields is None:
        return _dask_table(client, fut, None, token)
    rest, kept = client.gather(client.submit(_without, fut, tuple(dask_fields),
                                             key=f"{name}-rest-{token}", pure=False), direct=True)
    tables = {field: _dask_table(client, fut, field, token) for field in kept}
    if hasattr(rest, "attach_tables"):  # a result that derives more from its tables
        rest.attach_tables(tables)
    else:
        for field, table in tables.items():
            object.__setattr__(rest, field, table)
    return rest


def _run_on_worker(public: Callable, handle: ClusterGraph, args: tuple, kwargs: dict) -> Any:
    """The task: the whole call on this worker's copy of the graph, its batches on the cluster
    through this worker's client (the task leaves its thread to them meanwhile)."""
    from distributed import worker_client

    ref = GraphRef(handle.key, handle.fingerprint)
    graph = graph_on_worker(ref)
    known_on_cluster(ref)  # its batches refer to the cluster's copy: nothing is sent again
    with worker_client() as client:
        result = public(graph, *args, client=client, **kwargs)
    # the graph itself (a field of some results) stays on the workers: its handle goes back
    return _swapped(result, lambda v: v is graph, handle)


def _swapped(result: Any, old: Callable[[Any], bool], new: Any) -> Any:
    """``result`` (a dataclass) with each field for which ``old`` holds set to ``new``."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            if old(getattr(result, f.name)):
                object.__setattr__(result, f.name, new)
    return result


def _without(result: Any, fields: tuple) -> tuple[Any, list]:
    """A copy of ``result`` without those of its ``fields`` that are tables (they stay on the
    worker), and their names."""
    kept = [f for f in fields if hasattr(getattr(result, f, None), "iloc")]
    if hasattr(result, "detach_tables"):  # a result holding more derived from its tables
        return result.detach_tables(kept), kept
    out = copy.copy(result)
    for field in kept:
        object.__setattr__(out, field, None)
    return out, kept


def _shape(result: Any, field: str | None) -> tuple[int, Any]:
    table = result if field is None else getattr(result, field)
    return len(table), table.iloc[:0]


def _rows(result: Any, field: str | None, start: int, stop: int) -> Any:
    return (result if field is None else getattr(result, field)).iloc[start:stop]


def _dask_table(client: Any, fut: Any, field: str | None, token: str) -> Any:
    """A Dask DataFrame of one table of the result ``fut`` holds, each partition a row slice
    made on the worker that holds the result."""
    import dask
    import dask.dataframe as dd

    rows, meta = client.submit(_shape, fut, field, key=f"shape-{field}-{token}",
                               pure=False).result()
    parts = [dask.delayed(_rows, pure=True)(fut, field, a, min(a + ROWS_PER_PARTITION, rows))
             for a in range(0, max(rows, 1), ROWS_PER_PARTITION)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
