"""The graph once per cluster: sent to one worker, copied worker to worker, kept by each.

Every capability's tasks read the same graph.  It travels once per cluster,
never through the scheduler, and never again while the cluster keeps it:

1. the client names the graph by a fingerprint of its content
   (:func:`fingerprint`), so a graph rebuilt per call (betweenness builds
   its own arrays on every call) is the same graph to the cluster;
2. the first call sends it from the client to one worker
   (``client.scatter(..., direct=True)``), then one small task per worker
   takes it as its input, so Dask copies it from worker to worker (each
   copy made is a source for the next; the scheduler only tells each worker
   where to fetch from, and its memory manager keeps the copies tasks wait
   for); ``client.replicate`` was the first way tried, and at 10^7 edges the
   memory manager dropped copies it had just made, which it then made again
   (twice the bytes between 4 workers);
3. every worker keeps its copy in a small cache of its own, keyed by the
   fingerprint (:func:`graph_on_worker`), outside Dask's data: the active
   memory manager may drop Dask's replicas between calls, the workers keep
   theirs.  A worker that joins later (or restarts after a crash) fetches
   it from a peer that still holds Dask's copy the first time one of its
   tasks needs it.

Tasks then carry a :class:`GraphRef` (a key and a fingerprint, a few dozen
bytes) instead of depending on the graph's future, so neither the client nor
the scheduler sends anything graph-sized on a later call.  The client keeps
the futures of the last :data:`KEEP_GRAPHS` graphs per client (so a copy
stays on the cluster for late workers); the workers keep as many.

Each worker process holds its own copy, as it would on another machine.  A
file of the arrays mapped by every worker process of the client's machine
was tried (one physical copy) and did not pay: 2,000 Slashdot trees on 2
worker processes of one machine took 2.74 s with it and 2.43 s without,
betweenness with 2,000 sources 10.5 s and 10.8 s (best of three
interleaved rounds).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import threading
import uuid
import weakref
from collections import OrderedDict
from concurrent.futures import CancelledError
from typing import Any

import numpy as np

__all__ = ["GraphRef", "fingerprint", "scatter_graph", "hold_graph", "known_on_cluster",
           "resolve_graph", "graph_on_worker", "forget_graph", "GRAPH_KEY_PREFIX", "KEEP_GRAPHS",
           "FETCH_TIMEOUT_S", "GraphLostError"]

#: the Dask key of every graph sent to a cluster starts with this
GRAPH_KEY_PREFIX = "rapids-balance-graph-"
#: graphs kept per client (their futures) and per worker (the objects)
KEEP_GRAPHS = 2
#: seconds a worker waits for a peer's copy of the graph before it names the fault
FETCH_TIMEOUT_S = 20.0
#: how often the client checks, while the workers copy a graph, that one of them still holds it
COPY_POLL_S = 1.0

# the base arrays of a rapids_balance Graph (what its lazily built CSR derives from)
_GRAPH_FIELDS = ("n", "directed", "name", "edge_src", "edge_dst", "labels", "sign", "weight",
                 "zero_sign")
# per-process caches that never travel (a worker builds its own)
_LOCAL_ONLY = ("_device", "_label_index", "_dev")


class GraphLostError(RuntimeError):
    """Every copy of the graph on the cluster was lost before a worker could fetch it."""


@dataclasses.dataclass(frozen=True)
class GraphRef:
    """What a task carries instead of the graph: its Dask key and content fingerprint."""

    key: str
    fingerprint: str


# object -> its fingerprint (a graph is never changed once built)
_FINGERPRINTS: dict[int, str] = {}


def _update(h: Any, name: str, value: Any) -> bool:
    """Feed one field to the hash; False for a value whose content cannot be read here."""
    h.update(name.encode() + b"\0")
    if value is None or isinstance(value, (bool, int, float, str)):
        h.update(repr(value).encode())
    elif type(value) is np.ndarray:
        h.update(f"{value.dtype.str}{value.shape}".encode())
        if value.dtype.kind == "O":
            h.update("\0".join(map(str, value.ravel().tolist())).encode())
        else:
            h.update(memoryview(np.ascontiguousarray(value)).cast("B"))
    else:  # device arrays, other objects: not hashed here
        return False
    return True


def fingerprint(graph: Any) -> str:
    """A digest of the graph's content (type, sizes, arrays), cached per object.

    Two graphs with equal arrays get the same fingerprint, so the cluster
    sends and keeps them once.  A graph whose arrays are not host numpy
    arrays (kept on the device) gets a token of its own object instead.
    """
    known = _FINGERPRINTS.get(id(graph))
    if known is not None:
        return known
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{type(graph).__module__}.{type(graph).__qualname__}".encode())
    if getattr(graph, "on_device", False):  # asked first: reading its fields would copy them to the host
        names, get = [], None
    elif type(graph) is np.ndarray:
        names, get = ["array"], lambda _: graph
    elif dataclasses.is_dataclass(graph):
        names = [f.name for f in dataclasses.fields(graph) if f.name not in _LOCAL_ONLY]
        get = lambda name: getattr(graph, name)  # noqa: E731
    elif hasattr(graph, "edge_src"):
        names, get = list(_GRAPH_FIELDS), lambda name: getattr(graph, name, None)
    else:  # an object we cannot read: its own token
        names, get = [], None
    content = bool(names)
    for name in names:
        if content and not _update(h, name, get(name)):
            content = False
    fp = h.hexdigest() if content else "obj-" + uuid.uuid4().hex
    try:
        weakref.finalize(graph, _FINGERPRINTS.pop, id(graph), None)
    except TypeError:  # not weak-referenceable: not cached
        return fp
    _FINGERPRINTS[id(graph)] = fp
    return fp


# --- the client side ------------------------------------------------------------------------

# client id -> fingerprint -> future of the graph's Dask copy (most recent last)
_HELD: dict[str, "OrderedDict[str, Any]"] = {}


def scatter_graph(client: Any, graph: Any) -> Any:
    """The graph on the cluster of ``client``, sent now unless it is there already.

    Returns a :class:`GraphRef` (a graph the caller scattered itself, a
    future, is returned unchanged).  The client sends the graph without its
    per-process caches to one worker, the workers copy it between them and
    keep it; a later call with the same content sends nothing graph-sized.
    A graph kept on the device travels as its device arrays, with no host
    copy on the client (:mod:`._device_graph`).
    """
    if isinstance(graph, GraphRef) or _is_future(graph):
        return graph
    fp = fingerprint(graph)
    known = _ON_CLUSTER.get(fp)
    if known is not None:  # a call running on a worker, for a graph the cluster built and keeps
        return known
    held = _HELD.setdefault(client.id, OrderedDict())
    fut = held.get(fp)
    if fut is not None and fut.status == "finished":
        held.move_to_end(fp)
        return GraphRef(fut.key, fp)
    shipped = _shipping_copy(graph)
    if getattr(graph, "on_device", False):
        from ._device_graph import ship_device_graph

        shipped = ship_device_graph(shipped)
    # one worker receives it from the client; the others copy it from their peers.  A key of
    # its own per send: a send that follows a lost one never meets the scheduler's record of it
    key = f"{GRAPH_KEY_PREFIX}{fp}-{uuid.uuid4().hex[:8]}"
    fut = client.scatter({key: shipped}, direct=True, hash=False)[key]
    return hold_graph(client, fut, fp)


def _is_future(obj: Any) -> bool:
    from distributed import Future

    return isinstance(obj, Future)


def _shipping_copy(graph: Any) -> Any:
    """A shallow copy of ``graph`` without its per-process caches (a worker builds its own, on
    its own GPU); the arrays are shared, not copied."""
    if not hasattr(graph, "__dict__"):
        return graph
    out = copy.copy(graph)
    for attr in _LOCAL_ONLY:
        if attr in out.__dict__:
            out.__dict__[attr] = None
    return out


def hold_graph(client: Any, fut: Any, fp: str) -> GraphRef:
    """Keep ``fut`` (a graph on one worker: scattered there, or built there from its parts) as
    the cluster's copy of the graph ``fp``, and have every worker copy it into its cache."""
    key = fut.key
    held = _HELD.setdefault(client.id, OrderedDict())
    held[fp] = fut
    # published under its key: a worker that joins later (or one restarted by its nanny) gets
    # the future by name (a ``Future(key)`` made on a worker is never told that a peer holds
    # the key, and waits: distributed 2026.8)
    client.publish_dataset(fut, name=key, override=True)
    while len(held) > KEEP_GRAPHS:
        _release(client, held.popitem(last=False)[1])
    # one small task per worker that takes the graph as its input: Dask fetches it from
    # whichever workers hold it already (each copy made is a source for the next, and the
    # memory manager keeps copies that tasks wait for), and the task keeps it
    workers = sorted(client.scheduler_info().get("workers", {}))
    token = uuid.uuid4().hex[:10]
    keeps = [client.submit(_keep, fut, fp, key=f"keep-graph-{i}-{token}", workers=[w],
                           allow_other_workers=True, pure=False)  # a dead worker's goes elsewhere
             for i, w in enumerate(workers)]
    try:
        _wait_for_copies(client, keeps, fut, key, set(workers))
        client.gather(keeps, direct=True)
    except (CancelledError, GraphLostError) as exc:  # lost before every worker had a copy
        held.pop(fp, None)
        _release(client, fut)
        if isinstance(exc, GraphLostError):
            raise
        raise GraphLostError(f"the graph ({key}) was lost while the workers copied it ({exc})") \
            from exc
    finally:
        for k in keeps:
            k.release()
    return GraphRef(key, fp)


def _wait_for_copies(client: Any, keeps: list, fut: Any, key: str, workers: set[str]) -> None:
    """Wait for the keep tasks, checking every second that the copying can still finish.

    A scattered key has no task to recompute it: when every worker holding
    it dies, the scheduler forgets it and the keep tasks that need it wait
    for ever rather than fail, so the loss is looked for here and named.
    A worker of ``workers`` that leaves while copies are made counts as a
    loss too: when it held the graph and died while a peer was fetching it,
    the scheduler can go on listing that peer as a holder while its keep
    task never runs (seen with distributed 2026.8), a wait without end.  Sending
    the graph again costs one copy; the wait cannot be told from a slow one.
    """
    import asyncio

    from distributed import wait

    while True:
        try:
            wait(keeps, timeout=COPY_POLL_S)
            return
        except (TimeoutError, asyncio.TimeoutError):
            if fut.status != "finished" or not client.who_has([fut]).get(key):
                raise GraphLostError(f"the graph ({key}) was lost while the workers copied it: "
                                     "every worker that held it died") from None
            gone = workers - set(client.scheduler_info().get("workers", {}))
            if gone:
                raise GraphLostError(f"a worker left while the workers copied the graph ({key}): "
                                     f"{sorted(gone)[0]}") from None


def forget_graph(client: Any, ref: GraphRef) -> None:
    """Drop the client's hold on a graph (its copy was lost): the next call sends it again."""
    _ON_CLUSTER.pop(ref.fingerprint, None)
    fut = _HELD.get(client.id, {}).pop(ref.fingerprint, None)
    if fut is not None:
        _release(client, fut)


def _release(client: Any, fut: Any) -> None:
    """Let the cluster drop a graph the client held: its published name, then the future."""
    try:
        client.unpublish_dataset(fut.key)
    except KeyError:  # not published (a stand-in's future, or already gone)
        pass
    fut.release()


# --- the worker side ------------------------------------------------------------------------

# fingerprint -> the ref of a graph the cluster built and its client keeps: a call running on a
# worker for such a graph (distributed/_remote.py) finds it here instead of sending it again
_ON_CLUSTER: dict[str, GraphRef] = {}


def known_on_cluster(ref: GraphRef) -> None:
    """Note, in this worker process, that the cluster keeps ``ref``'s graph under its key."""
    _ON_CLUSTER[ref.fingerprint] = ref


# fingerprint -> the graph, in this worker process (most recent last)
_LOCAL: "OrderedDict[str, Any]" = OrderedDict()
_LOCK = threading.Lock()


def _remember(fp: str, graph: Any) -> Any:
    _LOCAL[fp] = graph
    _LOCAL.move_to_end(fp)
    while len(_LOCAL) > KEEP_GRAPHS:
        _LOCAL.popitem(last=False)
    return graph


def resolve_graph(obj: Any) -> Any:
    """The graph a task should use: a :class:`~._device_graph.DeviceGraph` unwrapped."""
    from ._device_graph import DeviceGraph

    return obj.graph if isinstance(obj, DeviceGraph) else obj


def _keep(shipped: Any, fp: str) -> bool:
    """A task on each worker right after the graph was sent: keep it in the worker's cache."""
    with _LOCK:
        if fp not in _LOCAL:
            _remember(fp, resolve_graph(shipped))
    return True


def graph_on_worker(ref: GraphRef) -> Any:
    """The graph ``ref`` names, from this worker's cache, else fetched once from a peer."""
    with _LOCK:  # one fetch per process, whatever the number of task threads
        graph = _LOCAL.get(ref.fingerprint)
        if graph is not None:
            _LOCAL.move_to_end(ref.fingerprint)
            return graph
        return _remember(ref.fingerprint, resolve_graph(_fetch(ref.key)))


def _fetch(key: str) -> Any:
    from distributed import get_client, get_worker

    try:
        worker = get_worker()
    except ValueError:
        worker = None
    if worker is not None and key in worker.data:
        return worker.data[key]
    client = get_client()  # the worker's client gathers from the peer directly
    fut = None
    try:
        try:
            fut = client.get_dataset(key)
        except KeyError:
            fut = None
        if fut is None or not client.who_has([fut]).get(key):
            # its last holder died (the scheduler forgot it): say so now, not after a timeout
            raise GraphLostError(f"the graph ({key}) is on no worker any more: every worker "
                                 "that held Dask's copy died; the client sends it again")
        return fut.result(timeout=FETCH_TIMEOUT_S)  # gathered from the holder directly
    except GraphLostError:
        raise
    except Exception as exc:
        raise GraphLostError(
            f"the graph ({key}) could not be fetched from any worker within "
            f"{FETCH_TIMEOUT_S:.0f} s ({type(exc).__name__}: {exc}); every worker that held it "
            "may have died") from exc
    finally:
        if fut is not None:
            fut.release()
