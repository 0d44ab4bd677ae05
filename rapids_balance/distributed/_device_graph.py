"""A graph kept on the device, shipped to the workers as device arrays.

Pickled as it is, a graph whose arrays are in CuPy would be copied to the
host on the client (CuPy pickles through ``ndarray.get()``).  The workers get
a :class:`DeviceGraph` instead: the graph without its arrays, and the arrays,
which Dask serializes as any CuPy array -- shared in the client's process
(``processes=False``), device to device with the ``cuda`` serializers (UCX,
as dask-cuda sets up), staged through host memory by Dask's TCP comm.  The
library itself makes no host copy of the graph.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

__all__ = ["DeviceGraph", "ship_device_graph"]

# what a graph kept on the device holds its arrays in (see rapids_balance.graph.Graph)
_ARRAYS = "_xp_arrays"


class DeviceGraph:
    """Stands in for a graph kept on the device on the workers.

    Attributes
    ----------
    rest : object
        The graph without its device arrays (and without host copies of them).
    arrays : dict
        The device arrays, by name.
    graph : object
        The graph, put back together (on the client: the shipped copy).
    """

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

    def __repr__(self) -> str:
        return f"<DeviceGraph: {self.graph!r}>"


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


_REGISTERED: list[bool] = []


def _register_serializers() -> None:
    """Teach Dask to send a :class:`DeviceGraph` as its parts, the device arrays with Dask's own
    serializers (``cuda`` where the comm takes device buffers, ``dask`` otherwise).

    Run at import when ``distributed`` is loaded already (a worker imports
    this module when it unpickles the handle's type, before it looks up the
    deserializer), and by :func:`ship_device_graph` on the client, so that
    a call without Dask does not import it (a second of a first call).
    Once per process.
    """
    if _REGISTERED:
        return
    from distributed.protocol import dask_deserialize, dask_serialize, deserialize, serialize

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
    try:
        from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    except ImportError:  # pragma: no cover - every supported distributed has it
        pass
    else:
        cuda_serialize.register(DeviceGraph)(dumps(("cuda", "dask", "pickle")))
        cuda_deserialize.register(DeviceGraph)(load)
    _REGISTERED.append(True)


try:
    if "distributed" in sys.modules:
        _register_serializers()
except ImportError:  # no distributed: nothing is shipped (the package says what to install)
    pass
