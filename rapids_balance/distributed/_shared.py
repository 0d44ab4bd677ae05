"""One physical copy of the graph for all worker processes on this machine.

A scattered graph is unpickled by every worker into its own memory, so two
worker processes on one machine hold two copies of the CSR arrays.  The
graph kernels read those arrays at random, and two copies compete for the
one shared last-level cache: on a 2-core machine, 500 Slashdot trees ran
10-35 % slower per process with private copies than with the pages shared
(measured with forked processes, same run).  Threads in one process never
had the problem; processes are what Dask's fault tolerance needs.

So, when every worker can open a file the client wrote, the graph's large
arrays go into one file (in ``/dev/shm`` where it exists, RAM-backed) and the
workers receive a :class:`SharedGraph`: a small handle that pickles as the
file name and a layout, and maps the file on unpickling.  All processes
then read the same page-cache pages.  Arrays keep their dtype, shape and
writeable flag (read-only arrays map read-only; writable ones map
copy-on-write, so a write stays private to that process), so the kernels see
exactly the argument types they were compiled for.

The file belongs to the client process and to its user alone (created
exclusively, mode 0600; workers on this machine run as the same user): it is
removed when the graph object it was made from is garbage-collected, or at
interpreter exit (the CLI turns SIGTERM into a normal exit, so this runs
then too).  Its name carries the client's process id, and a file whose
client was killed outright (SIGKILL) is removed at the next use on the
machine (:func:`remove_stale_files`).  Workers that already mapped it keep
their mapping.  Turn the whole mechanism off with
``dask.config.set({"rapids-balance.shared-graph": False})``.
"""

from __future__ import annotations

import copy
import mmap
import os
import shutil
import tempfile
import uuid
import weakref
from typing import Any

import numpy as np

__all__ = ["SharedGraph", "share_graph", "resolve_graph", "shared_graph_enabled", "CONFIG_KEY",
           "MIN_SHARED_BYTES"]

#: dask config key: ``False`` sends graphs by plain scatter only
CONFIG_KEY = "rapids-balance.shared-graph"
#: a graph whose large arrays total less than this is simply scattered
MIN_SHARED_BYTES = 1 << 20
#: arrays smaller than this stay in the pickled part of the handle
_MIN_ARRAY_BYTES = 1 << 16
_ALIGN = mmap.PAGESIZE
_MAGIC = b"rapids-balance shared graph\n"


def shared_graph_enabled() -> bool:
    """The ``rapids-balance.shared-graph`` dask config value (default True)."""
    try:
        import dask

        return bool(dask.config.get(CONFIG_KEY, default=True))
    except ImportError:  # pragma: no cover - distributed implies dask
        return True


class SharedGraph:
    """Stands in for a graph on the workers: pickles as a file name, maps it when unpickled.

    Attributes
    ----------
    path : str
        The file holding the large arrays.
    graph : object
        The graph, its large arrays views of the mapped file (on the client:
        the original object).
    """

    def __init__(self, path: str, token: str, layout: list, rest: Any, graph: Any = None):
        self.path = path
        self.token = token
        self.layout = layout
        self.rest = rest
        self.graph = graph if graph is not None else _attach_arrays(path, token, layout, rest)

    def __reduce__(self):
        return (SharedGraph, (self.path, self.token, self.layout, self.rest))

    def __sizeof__(self) -> int:
        # dask's memory accounting: the arrays live in the shared page cache
        return 1024

    def __repr__(self) -> str:
        return f"<SharedGraph {self.path}: {self.graph!r}>"


def resolve_graph(obj: Any) -> Any:
    """The graph a task should use: unwraps :class:`SharedGraph` and
    :class:`~._device_graph.DeviceGraph`."""
    from ._device_graph import DeviceGraph

    return obj.graph if isinstance(obj, (SharedGraph, DeviceGraph)) else obj


def _big_arrays(obj: Any) -> dict[str, np.ndarray]:
    """The attributes of ``obj`` worth sharing: large numeric numpy arrays."""
    out = {}
    for k, v in vars(obj).items():
        # plain numbers only: their bytes are the whole value (no object or datetime dtypes)
        if (type(v) is np.ndarray and v.dtype.kind in "biufc" and v.nbytes >= _MIN_ARRAY_BYTES
                and v.flags.c_contiguous):
            out[k] = v
    return out


def _shared_dir(nbytes: int) -> str | None:
    """``/dev/shm`` (RAM) if it has room, else the temp dir (page cache), else None."""
    for d in ("/dev/shm", tempfile.gettempdir()):
        try:
            if os.path.isdir(d) and os.access(d, os.W_OK) and shutil.disk_usage(d).free > 2 * nbytes:
                return d
        except OSError:
            continue
    return None


def _write_file(arrays: dict[str, np.ndarray], token: str) -> tuple[str, list] | None:
    """Write the distinct arrays at page-aligned offsets; ``(path, layout)``.

    ``layout`` lists ``(attribute, offset, dtype, shape, writeable)``;
    attributes that alias one array (``BCGraph.rindptr is indptr``) share
    its offset.
    """
    offsets: dict[int, int] = {}
    layout = []
    pos = _ALIGN  # page 0: magic and token, so a worker can check it opened the right file
    for k, a in arrays.items():
        if id(a) not in offsets:
            offsets[id(a)] = pos
            pos += -(-a.nbytes // _ALIGN) * _ALIGN
        layout.append((k, offsets[id(a)], a.dtype.str, a.shape, bool(a.flags.writeable)))
    where = _shared_dir(pos)
    if where is None:
        return None
    remove_stale_files(where)
    # mkstemp: exclusive creation, mode 0600; on a shared server no other account may read the graph
    try:
        fd, path = tempfile.mkstemp(prefix=f"{_FILE_PREFIX}{os.getpid()}-", suffix=_FILE_SUFFIX, dir=where)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_header(token))
            written = set()
            for k, off, *_ in layout:
                a = arrays[k]
                if id(a) in written:
                    continue
                written.add(id(a))
                fh.seek(off)
                fh.write(memoryview(a).cast("B"))
            fh.truncate(pos)
    except OSError:
        _remove(path)
        return None
    return path, layout


_FILE_PREFIX = "rapids-balance-"
_FILE_SUFFIX = ".graph"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, another account's
        return True
    return True


def remove_stale_files(where: str) -> list[str]:
    """Remove this user's shared graph files in ``where`` whose client process is gone.

    A client killed with SIGKILL cannot remove its file (in ``/dev/shm`` it
    holds memory until reboot); each name carries the client's process id
    (``rapids-balance-<pid>-XXXX.graph``), so the next use on this machine
    removes the files of processes that no longer run.  Returns the removed paths.
    """
    removed = []
    try:
        entries = os.listdir(where)
    except OSError:
        return removed
    for entry in entries:
        if not (entry.startswith(_FILE_PREFIX) and entry.endswith(_FILE_SUFFIX)):
            continue
        pid = entry[len(_FILE_PREFIX):].split("-", 1)[0]
        path = os.path.join(where, entry)
        try:
            mine = os.lstat(path).st_uid == os.getuid()
        except OSError:
            continue
        if mine and pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            _remove(path)
            removed.append(path)
    return removed


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _header(token: str) -> bytes:
    """The file's first bytes: a worker checks them before trusting the layout."""
    return _MAGIC + token.encode()


def _attach_arrays(path: str, token: str, layout: list, rest: Any) -> Any:
    """Map ``path`` and put its arrays back on a copy of ``rest``."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise RuntimeError(
            f"this worker cannot open the shared graph file {path} ({exc}); it runs on another "
            "machine than the client that wrote it. Turn sharing off with "
            f'dask.config.set({{"{CONFIG_KEY}": False}})') from exc
    with fh:
        ro = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        cow = None
        if ro[:len(_header(token))] != _header(token):
            raise RuntimeError(f"{path} is not the shared graph this task expects")
        graph = copy.copy(rest)
        for k, off, dt, shape, writeable in layout:
            if writeable and cow is None:
                cow = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
            dtype = np.dtype(dt)
            count = int(np.prod(shape, dtype=np.int64))
            a = np.frombuffer(cow if writeable else ro, dtype=dtype, count=count, offset=off)
            setattr(graph, k, a.reshape(shape))
    return graph


def _workers_can_open(client: Any, path: str, token: str) -> bool:
    """True when every current worker opens ``path`` and finds ``token`` in it."""
    try:
        answers = client.run(_probe, path, token)
    except Exception:
        return False
    return bool(answers) and all(answers.values())


def _probe(path: str, token: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_header(token))) == _header(token)
    except OSError:
        return False


def share_graph(client: Any, graph: Any, shipped: Any) -> SharedGraph | None:
    """A :class:`SharedGraph` for ``graph`` if sharing pays and works, else None.

    ``shipped`` is what the workers should get (``graph`` without its
    per-process caches); the file lives as long as ``graph``.

    None (scatter the graph itself) when the workers are threads of this
    process (they share its memory already), the graph has no large arrays, cannot be weak-referenced (the file's lifetime is
    the graph's), no directory has room, or some worker cannot open the file
    (it runs on another machine).
    """
    if getattr(getattr(client, "cluster", None), "processes", True) is False:
        return None
    if not hasattr(shipped, "__dict__"):
        return None
    arrays = _big_arrays(shipped)
    if sum(a.nbytes for a in {id(a): a for a in arrays.values()}.values()) < MIN_SHARED_BYTES:
        return None
    try:
        weakref.ref(graph)
    except TypeError:
        return None
    token = uuid.uuid4().hex
    made = _write_file(arrays, token)
    if made is None:
        return None
    path, layout = made
    if not _workers_can_open(client, path, token):
        _remove(path)
        return None
    weakref.finalize(graph, _remove, path)
    rest = copy.copy(shipped)
    for k in arrays:
        setattr(rest, k, None)
    return SharedGraph(path, token, layout, rest, graph=shipped)
