"""The graph once per cluster: sent to one worker, copied worker to worker, kept by each.

A graph is named by a digest of its content (:func:`fingerprint`) and sent to
one worker, not through the scheduler; one task per worker takes it as input,
so Dask copies it worker to worker, and each worker keeps it in a cache of its
own that the active memory manager cannot thin (``client.replicate``, measured
first, had copies dropped and made again: twice the bytes at 10^7 edges on 4
workers).  Tasks carry a :class:`GraphRef`, so a later call sends nothing
graph-sized.  One file mapped by the workers of a machine did not pay (2,000
Slashdot trees on 2 workers: 2.74 s with it, 2.43 s without).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import sys
import threading
import uuid
import weakref
from collections import OrderedDict
from concurrent.futures import CancelledError
from typing import Any, Callable

import numpy as np

from ._cluster import worker_addresses

__all__ = ["GraphRef", "GraphLostError", "fingerprint", "scatter_graph", "hold_graph", "held_ref",
           "forget_graph", "release_graphs", "known_on_cluster", "resolve_graph", "keep_here",
           "graph_on_worker", "DeviceGraph", "ship_device_graph"]

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


# id(object) -> its fingerprint (a graph is never changed once built)
_FINGERPRINTS: dict[int, str] = {}


def _hashed(h: Any, name: str, value: Any) -> bool:
    """Feed one field to the hash; False for a value whose content is not read here."""
    h.update(name.encode() + b"\0")
    if value is None or isinstance(value, (bool, int, float, str)):
        h.update(repr(value).encode())
    elif type(value) is np.ndarray:
        h.update(f"{value.dtype.str}{value.shape}".encode())
        if value.dtype.kind == "O":
            h.update("\0".join(map(str, value.ravel().tolist())).encode())
        else:
            h.update(memoryview(np.ascontiguousarray(value)).cast("B"))
    else:  # device arrays, other objects
        return False
    return True


def _fields(graph: Any) -> dict[str, Any]:
    """The fields that make a graph's content (none: one it cannot read, or kept on the
    device, whose fields would be copied to the host to be read)."""
    if getattr(graph, "on_device", False):
        return {}
    if dataclasses.is_dataclass(graph):
        return {f.name: getattr(graph, f.name) for f in dataclasses.fields(graph)
                if f.name not in _LOCAL_ONLY}
    if hasattr(graph, "edge_src"):
        return {name: getattr(graph, name, None) for name in _GRAPH_FIELDS}
    return {}


def fingerprint(graph: Any) -> str:
    """A digest of the graph's content, cached per object: equal graphs are sent and kept once
    (one whose content is not host arrays gets a token of its own)."""
    known = _FINGERPRINTS.get(id(graph))
    if known is not None:
        return known
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{type(graph).__module__}.{type(graph).__qualname__}".encode())
    fields = _fields(graph)
    content = bool(fields) and all(_hashed(h, k, v) for k, v in fields.items())
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


def held_ref(client: Any, fp: str) -> GraphRef | None:
    """The ref of the graph ``fp`` if the cluster of ``client`` keeps it now."""
    held = _HELD.get(client.id, {})
    fut = held.get(fp)
    if fut is None or fut.status != "finished":
        return None
    held.move_to_end(fp)
    return GraphRef(fut.key, fp)


def scatter_graph(client: Any, graph: Any) -> Any:
    """A :class:`GraphRef` to the graph on the cluster of ``client``, sent now unless it is
    there (a future the caller scattered itself is returned unchanged).  A graph kept on the
    device travels as its device arrays (:class:`DeviceGraph`)."""
    if isinstance(graph, GraphRef) or _is_future(graph):
        return graph
    fp = fingerprint(graph)
    ref = _ON_CLUSTER.get(fp) or held_ref(client, fp)
    if ref is not None:  # (on a worker: a graph the cluster built and keeps)
        return ref
    shipped = _shipping_copy(graph)
    if getattr(graph, "on_device", False):
        shipped = ship_device_graph(shipped)
    # a key of its own per send: a send that follows a lost one never meets the scheduler's
    # record of it
    key = f"{GRAPH_KEY_PREFIX}{fp}-{uuid.uuid4().hex[:8]}"
    return hold_graph(client, client.scatter({key: shipped}, direct=True, hash=False)[key], fp)


def _is_future(obj: Any) -> bool:
    from distributed import Future

    return isinstance(obj, Future)


def _shipping_copy(graph: Any) -> Any:
    """A shallow copy of ``graph`` without its per-process caches (the arrays are shared)."""
    if not hasattr(graph, "__dict__"):
        return graph
    out = copy.copy(graph)
    for attr in _LOCAL_ONLY:
        if attr in out.__dict__:
            out.__dict__[attr] = None
    return out


def hold_graph(client: Any, fut: Any, fp: str) -> GraphRef:
    """Keep ``fut`` (a graph on one worker, scattered or built there) as the cluster's copy of
    the graph ``fp``, and have every worker copy it into its cache (module docstring)."""
    key = fut.key
    held = _HELD.setdefault(client.id, OrderedDict())
    held[fp] = fut
    # published: a worker that joins later gets the future by name (a ``Future(key)`` made on a
    # worker is never told that a peer holds the key, and waits: distributed 2026.8)
    client.publish_dataset(fut, name=key, override=True)
    while len(held) > KEEP_GRAPHS:
        _release(client, held.popitem(last=False)[1])
    workers = worker_addresses(client)
    token = uuid.uuid4().hex[:10]
    keeps = [client.submit(keep_here, fut, fp, key=f"keep-graph-{i}-{token}", workers=[w],
                           allow_other_workers=True, pure=False)  # a dead worker's goes elsewhere
             for i, w in enumerate(workers)]
    try:
        _wait_for_copies(client, keeps, fut, key, set(workers))
    except GraphLostError:  # lost before every worker had a copy
        held.pop(fp, None)
        _release(client, fut)
        raise
    finally:
        for k in keeps:
            k.release()
    return GraphRef(key, fp)


def _wait_for_copies(client: Any, keeps: list, fut: Any, key: str, workers: set[str]) -> None:
    """Wait for the keep tasks, checking every second that the copying can still finish: a
    scattered key has no task to recompute it, so when every worker holding it dies the keep
    tasks wait for ever.  A worker that leaves counts as a loss too: the scheduler can go on
    listing a peer that was fetching from it as a holder (distributed 2026.8)."""
    import asyncio

    from distributed import wait

    while True:
        try:
            wait(keeps, timeout=COPY_POLL_S)
            client.gather(keeps, direct=True)
            return
        except CancelledError as exc:
            raise GraphLostError(f"the graph ({key}) was lost while the workers copied it ({exc})") \
                from exc
        except (TimeoutError, asyncio.TimeoutError):
            if fut.status != "finished" or not client.who_has([fut]).get(key):
                raise GraphLostError(f"the graph ({key}) was lost while the workers copied it: "
                                     "every worker that held it died") from None
            gone = workers - set(worker_addresses(client))
            if gone:
                raise GraphLostError(f"a worker left while the workers copied the graph ({key}): "
                                     f"{sorted(gone)[0]}") from None


def forget_graph(client: Any, ref: GraphRef) -> None:
    """Drop the client's hold on a graph (its copy was lost): the next call sends it again."""
    _ON_CLUSTER.pop(ref.fingerprint, None)
    fut = _HELD.get(client.id, {}).pop(ref.fingerprint, None)
    if fut is not None:
        _release(client, fut)


def release_graphs(client: Any) -> None:
    """Let the cluster drop every graph ``client`` sent or built there (its last
    :data:`KEEP_GRAPHS`).  They stay published for workers that join later, which outlives
    the client: call it before closing a client of a cluster that outlives it."""
    for fut in _HELD.pop(client.id, {}).values():
        _release(client, fut)


def _release(client: Any, fut: Any) -> None:
    try:
        client.unpublish_dataset(fut.key)
    except KeyError:  # not published, or already gone
        pass
    fut.release()


# --- the worker side ------------------------------------------------------------------------

# fingerprint -> ref of a graph the cluster keeps: a call running on a worker for it
# (distributed/_remote.py) finds it here instead of sending it again
_ON_CLUSTER: dict[str, GraphRef] = {}
# fingerprint -> the graph, in this worker process (most recent last)
_LOCAL: "OrderedDict[str, Any]" = OrderedDict()
_LOCK = threading.Lock()


def known_on_cluster(ref: GraphRef) -> None:
    """Note, in this worker process, that the cluster keeps ``ref``'s graph under its key."""
    _ON_CLUSTER[ref.fingerprint] = ref


def resolve_graph(obj: Any) -> Any:
    """The graph a task should use: a :class:`DeviceGraph` unwrapped."""
    return obj.graph if isinstance(obj, DeviceGraph) else obj


def keep_here(shipped: Any, fp: str) -> bool:
    """Keep the graph ``fp`` in this worker's cache: a task on each worker after it was sent
    (or on the worker that built it)."""
    _cached(fp, lambda: shipped)
    return True


def graph_on_worker(ref: GraphRef) -> Any:
    """The graph ``ref`` names, from this worker's cache, else fetched once from a peer."""
    return _cached(ref.fingerprint, lambda: _fetch(ref.key))


def _cached(fp: str, make: Callable[[], Any]) -> Any:
    with _LOCK:  # one fetch per process, whatever the number of task threads
        if fp not in _LOCAL:
            _LOCAL[fp] = resolve_graph(make())
            while len(_LOCAL) > KEEP_GRAPHS:
                _LOCAL.popitem(last=False)
        _LOCAL.move_to_end(fp)
        return _LOCAL[fp]


def _fetch(key: str) -> Any:
    from distributed import get_client, get_worker

    try:
        data = get_worker().data
    except ValueError:
        data = {}
    if key in data:
        return data[key]
    client = get_client()  # the worker's client gathers from the peer directly
    fut = None
    try:
        try:
            fut = client.get_dataset(key)
        except KeyError:
            pass
        if fut is None or not client.who_has([fut]).get(key):
            # its last holder died (the scheduler forgot it): say so now, not after a timeout
            raise GraphLostError(f"the graph ({key}) is on no worker any more: every worker "
                                 "that held Dask's copy died; the client sends it again")
        return fut.result(timeout=FETCH_TIMEOUT_S)
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


# --- a graph kept on the device ------------------------------------------------------------

# what a graph kept on the device holds its arrays in (see rapids_balance.graph.Graph)
_ARRAYS = "_xp_arrays"


class DeviceGraph:
    """A graph kept on the device as it travels: ``rest`` (the graph without its arrays or host
    copies of them), ``arrays`` (by name) and ``graph`` (put back together).  Pickled as it is,
    the graph would be copied to the host on the client (CuPy pickles through ``.get()``); these
    arrays Dask sends as any CuPy array (device to device with dask-cuda's serializers)."""

    def __init__(self, rest: Any, arrays: dict[str, Any], graph: Any = None):
        self.rest = rest
        self.arrays = arrays
        self.graph = graph if graph is not None else _assemble(rest, arrays)

    def __reduce__(self):
        # without Dask's serializers (plain pickle): each array as its library pickles it
        return (DeviceGraph, (self.rest, self.arrays))

    def __sizeof__(self) -> int:
        # dask's memory accounting counts host memory: the arrays live on the device
        return 1024


def _assemble(rest: Any, arrays: dict[str, Any]) -> Any:
    graph = copy.copy(rest)
    graph.__dict__[_ARRAYS] = arrays
    return graph


def ship_device_graph(shipped: Any) -> DeviceGraph:
    """The :class:`DeviceGraph` of ``shipped``, a graph kept on the device (already without
    per-process caches): the host copies of its device arrays stay behind."""
    _register_serializers()  # the client: Dask is in use now
    arrays = shipped.__dict__[_ARRAYS]
    rest = copy.copy(shipped)
    for name in (_ARRAYS, *arrays):
        rest.__dict__.pop(name, None)  # a host copy made on the client: the workers make their own
    return DeviceGraph(rest, arrays, graph=shipped)


@functools.cache
def _register_serializers() -> None:
    """Teach Dask to send a :class:`DeviceGraph` as its parts, the device arrays with Dask's own
    serializers (``cuda`` where the comm takes device buffers).  Once per process: at import
    when ``distributed`` is loaded (a worker unpickling the type), else on the first send, so
    that a call without Dask does not import it."""
    from distributed.protocol import dask_deserialize, dask_serialize, deserialize, serialize
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize

    def dumps(families: tuple[str, ...]):
        def dump(handle: DeviceGraph):
            names = list(handle.arrays)
            parts = [handle.rest, names, *(handle.arrays[k] for k in names)]
            return serialize(parts, serializers=families, on_error="raise", iterate_collection=True)
        return dump

    def load(header: dict, frames: list) -> DeviceGraph:
        rest, names, *arrays = deserialize(header, frames)
        return DeviceGraph(rest, dict(zip(names, arrays)))

    dask_serialize.register(DeviceGraph)(dumps(("dask", "pickle")))
    dask_deserialize.register(DeviceGraph)(load)
    cuda_serialize.register(DeviceGraph)(dumps(("cuda", "dask", "pickle")))
    cuda_deserialize.register(DeviceGraph)(load)


if sys.modules.get("distributed") is not None:  # a worker unpickling the type: deserializers first
    _register_serializers()
