"""Backend selection: which device runs a kernel, and how arrays get there.

Every public algorithm takes ``backend="auto" | "cpu" | "gpu"`` and calls
:func:`resolve_backend` once.  ``"auto"`` picks the GPU only when a real
allocation and kernel launch succeeded (probed once per process and cached);
``"gpu"`` without a usable GPU raises :class:`BackendUnavailableError`.

GPU kernels are written with numba-cuda.  Setting ``NUMBA_ENABLE_CUDASIM=1``
(or ``RAPIDS_BALANCE_CUDASIM=1``, which this module translates) *before*
numba is imported runs them under numba's CUDA simulator on the CPU, with
numpy arrays in place of CuPy arrays.  The simulator is only ever used when
asked for: ``backend="auto"`` never picks it, ``backend="gpu"`` does.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

import numpy as np

from .errors import BackendUnavailableError

__all__ = [
    "GPUStatus",
    "gpu_status",
    "resolve_backend",
    "simulator_enabled",
    "array_module",
    "to_device",
    "to_host",
    "cuda",
    "launch_config",
    "gpu_kernel",
    "Kernel",
    "launch_counts",
    "kernel_view",
    "host_read",
    "array_device",
    "device_scope",
]

if os.environ.get("RAPIDS_BALANCE_CUDASIM", "") not in ("", "0"):
    # numba reads this when numba.cuda is first imported.
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

VALID_BACKENDS = ("auto", "cpu", "gpu")


def simulator_enabled() -> bool:
    """True when GPU kernels run under numba's CUDA simulator."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0")


@dataclass(frozen=True)
class GPUStatus:
    """Outcome of the one-time GPU probe."""

    usable: bool
    simulated: bool
    device: str
    reason: str


@lru_cache(maxsize=1)
def gpu_status() -> GPUStatus:
    """Probe the GPU once: a real allocation and a kernel launch, or nothing.

    Returns
    -------
    GPUStatus
        ``usable`` (a GPU kernel can run), ``simulated`` (numba's CUDA
        simulator is on), ``device`` (the GPU's name) and ``reason`` (why
        it is usable or not, e.g. the exception the probe met).  Cached for
        the life of the process.

    Notes
    -----
    Importing CuPy proves nothing (a wheel installs fine on a machine with no
    driver), so the probe launches a numba-cuda kernel on a CuPy array and
    checks what it wrote; any exception means "no usable GPU".

    Examples
    --------
    >>> from rapids_balance import gpu_status
    >>> s = gpu_status()
    >>> s.usable in (True, False)
    True
    """
    if simulator_enabled():
        return GPUStatus(True, True, "numba CUDA simulator", "NUMBA_ENABLE_CUDASIM=1")
    try:
        import cupy  # first: without it (a CPU install) numba.cuda's import (about a second) is moot
        from numba import cuda as _cuda

        @_cuda.jit
        def _probe(out):
            i = _cuda.grid(1)
            if i < out.size:
                out[i] = i * 2

        out = cupy.zeros(64, dtype=np.int32)
        _probe[1, 64](out)
        _cuda.synchronize()
        if not bool((out.get() == np.arange(64) * 2).all()):
            return GPUStatus(False, False, "", "probe kernel wrote wrong values")
        name = _cuda.get_current_device().name
        if isinstance(name, bytes):
            name = name.decode()
        return GPUStatus(True, False, str(name), "probe kernel ran")
    except Exception as exc:  # any failure means: no usable GPU
        return GPUStatus(False, False, "", f"{type(exc).__name__}: {exc}")


def resolve_backend(backend: str = "auto") -> str:
    """Map a user's ``backend`` argument to ``"cpu"`` or ``"gpu"``.

    Parameters
    ----------
    backend : {"auto", "cpu", "gpu"}, default "auto"
        ``"auto"``: the GPU when :func:`gpu_status` finds a real one (never
        the simulator), else the CPU.

    Returns
    -------
    str
        ``"cpu"`` or ``"gpu"``.

    Raises
    ------
    ValueError
        ``backend`` is not one of ``"auto"``, ``"cpu"``, ``"gpu"``.
    BackendUnavailableError
        ``backend="gpu"`` but no usable GPU (and no simulator) was found.

    Examples
    --------
    >>> from rapids_balance import resolve_backend
    >>> resolve_backend("cpu")
    'cpu'
    """
    if backend not in VALID_BACKENDS:
        raise ValueError(f"backend must be one of {VALID_BACKENDS}, got {backend!r}")
    if backend == "cpu":
        return "cpu"
    status = gpu_status()
    if backend == "gpu":
        if not status.usable:
            raise BackendUnavailableError(
                "backend='gpu' was requested but no usable CUDA GPU was found "
                f"({status.reason}). Install the 'gpu' extra on a machine with an "
                "NVIDIA GPU, use backend='cpu', or set NUMBA_ENABLE_CUDASIM=1 to run "
                "the GPU kernels under numba's simulator."
            )
        return "gpu"
    # auto: a real GPU only, never the (slow) simulator
    return "gpu" if status.usable and not status.simulated else "cpu"


def cuda():
    """The ``numba.cuda`` module (real or simulator), imported lazily."""
    from numba import cuda as _cuda

    return _cuda


def array_module(backend: str):
    """``cupy`` for the real GPU, ``numpy`` for the CPU and the simulator."""
    if backend == "gpu" and not simulator_enabled():
        import cupy

        return cupy
    return np


def to_device(a: Any, backend: str, dtype=None):
    """Put an array where ``backend`` computes (no copy when it already is)."""
    xp = array_module(backend)
    if xp is np:
        return to_host(a) if dtype is None else to_host(a).astype(dtype, copy=False)
    return xp.asarray(a, dtype=dtype)


def device_array(a: Any, dtype=None):
    """``a`` as a GPU kernel argument: a CuPy array on a real GPU; under the
    simulator a *writable* numpy array, because the simulator copies every
    kernel argument back and refuses read-only arrays (graph arrays are)."""
    out = to_device(a, "gpu", dtype)
    if simulator_enabled() and not out.flags.writeable:
        out = out.copy()
    return out


def device_function(f: Any) -> Any:
    """A shared ``@numba.njit`` body, for calling from CUDA kernels.

    On a real GPU numba-cuda compiles the njit body for the device.  The
    simulator hands kernels its own array wrappers, which compiled CPU code
    cannot unbox, so there the plain Python body runs instead (the same
    statements).
    """
    return f.py_func if simulator_enabled() else f


def to_host(a: Any) -> np.ndarray:
    """Any array (numpy, CuPy, or anything with ``__array__``) as numpy."""
    if isinstance(a, np.ndarray):
        return a
    get = getattr(a, "get", None)
    if callable(get) and type(a).__module__.startswith("cupy"):
        return get()
    return np.asarray(a)


def sm_count() -> int:
    """Streaming multiprocessors of the current GPU; the reference H100's 132 under the simulator."""
    if simulator_enabled():
        from ._occupancy import SM_COUNT

        return SM_COUNT
    import cupy

    return int(cupy.cuda.Device().attributes["MultiProcessorCount"])


def gpu_free_memory() -> int:
    """Free bytes of the current GPU; 64 MiB under the simulator (small, so that tests cut
    batches as a full device would)."""
    if simulator_enabled():
        return 64 << 20
    import cupy

    return int(cupy.cuda.runtime.memGetInfo()[0])


def launch_config(n_items: int, threads_per_block: int = 256) -> tuple[int, int]:
    """(blocks, threads) covering ``n_items`` threads; at least one block."""
    n_items = max(int(n_items), 1)
    return (n_items + threads_per_block - 1) // threads_per_block, threads_per_block


launch_counts = {"launches": 0, "host_reads": 0}
"""Kernel launches through :class:`Kernel` and host reads of device values through
:func:`host_read` since the process began (the device work model reads them)."""


def host_read(a: Any) -> np.ndarray:
    """A device value the host needs for a decision (a flag, a count), as numpy; counted.

    Every such read waits for the work queued before it, so the GPU modules
    make one only where the algorithm branches on the value, and only
    through here, where :data:`launch_counts` counts it.
    """
    launch_counts["host_reads"] += 1
    return to_host(a)

def array_device(*arrays: Any) -> int | None:
    """The id of the GPU holding the first CuPy array among ``arrays``; ``None`` when none is on one."""
    for a in arrays:
        if type(a).__module__.startswith("cupy"):
            return int(a.device.id)
    return None


@contextmanager
def device_scope(*arrays: Any) -> Iterator[int | None]:
    """One current device for a GPU call, the same for CuPy and numba-cuda.

    The device holding the call's arrays (CuPy's current device when none
    of them is on a GPU) is made current in CuPy (``cupy.cuda.Device``) and
    in numba-cuda (``numba.cuda.gpus[i]``, which pushes that device's primary
    context, the one CuPy uses) for the length of the call, and both are
    restored after it.  Without it, a process with several GPUs could
    allocate with CuPy on one device and launch numba's kernels on another.
    Under the simulator there is one device, 0.  Yields the device id, or
    ``None`` where there is no GPU to select (CuPy missing).
    """
    if simulator_enabled():
        with cuda().gpus[0]:
            yield 0
        return
    try:
        import cupy
    except ImportError:
        yield None
        return
    dev = array_device(*arrays)
    if dev is None:
        dev = int(cupy.cuda.runtime.getDevice())
    with cupy.cuda.Device(dev), cuda().gpus[dev]:
        yield dev


_streams: dict[tuple[int, int], Any] = {}


def _follow_cupy_device() -> int:
    """Make numba-cuda's current device CuPy's on this thread (a launch then goes where CuPy's
    arrays and stream are); returns the device id.  Checked at each launch, selected on a change."""
    import cupy

    dev = int(cupy.cuda.runtime.getDevice())
    c = cuda()
    if int(c.get_current_device().id) != dev:
        c.select_device(dev)
    return dev


def _current_stream():
    """numba's handle on CuPy's current stream, so kernels and CuPy work stay in one order.

    CuPy's null stream (pointer 0) is CUDA's legacy default stream and its
    per-thread stream (pointer 2) is ``cudaStreamPerThread``; any other
    stream (a user's non-blocking one, say) is taken as an external stream.
    One handle per device and stream pointer, made on first use; numba's
    current device follows CuPy's first (:func:`_follow_cupy_device`).
    """
    import cupy

    dev = _follow_cupy_device()
    ptr = int(cupy.cuda.get_current_stream().ptr)
    stream = _streams.get((dev, ptr))
    if stream is None:
        c = cuda()
        stream = (c.legacy_default_stream() if ptr == 0 else
                  c.per_thread_default_stream() if ptr == 2 else c.external_stream(ptr))
        _streams[(dev, ptr)] = stream
    return stream


def kernel_view(a: Any) -> Any:
    """A CuPy array as numba's view of it, without the per-argument synchronisation.

    The GPU modules take the views of a batch's arrays once, before its
    launches, and pass the views (a launch then has nothing to convert);
    anything else (numpy under the simulator, scalars, views) is returned as it is.

    numba-cuda converts a ``__cuda_array_interface__`` argument at every
    launch and, by default (``NUMBA_CUDA_ARRAY_INTERFACE_SYNC=1``),
    synchronises the array's stream for each one.  Kernels run on CuPy's
    current stream (:func:`_current_stream`), which orders them after the
    CuPy work that made their arguments, so that wait is never needed.
    """
    if type(a).__module__.startswith("cupy"):
        return cuda().as_cuda_array(a, sync=False)
    return a


#: how a kernel's launch may change when its block is too large for its registers
#: (:class:`Kernel`): "grid" (one item a thread against a bound: more, smaller blocks),
#: "block" (a block a unit of work, threads striding by ``blockDim``: smaller blocks of
#: a power-of-two size, for block reductions) and "fixed" (the block size is part of the
#: kernel: no smaller block; its launch is refused with the reason)
BLOCK_LAYOUTS = ("grid", "block", "fixed")


def fit_launch(blocks: int, threads: int, limit: int, layout: str, name: str = "kernel") -> tuple[int, int]:
    """The launch a kernel of ``layout`` (:data:`BLOCK_LAYOUTS`) gets when a block may have
    at most ``limit`` threads (the compiled kernel's, which its registers set).

    >>> fit_launch(16, 1024, 896, "block")
    (16, 512)
    >>> fit_launch(4, 1024, 896, "grid")
    (5, 896)
    """
    from ._occupancy import fit_block

    if threads <= limit:
        return blocks, threads
    if layout == "fixed":
        raise BackendUnavailableError(
            f"GPU kernel {name} needs {threads} threads a block, but its compiled code takes "
            f"at most {limit} on this device (registers a thread)")
    if layout == "block":
        pow2 = 1 << (max(int(limit), 32).bit_length() - 1)
        return fit_block(blocks, threads, pow2, per_block=True)
    return fit_block(blocks, threads, limit, per_block=False)


def _always_fits() -> int:
    from ._occupancy import MAX_REGISTERS_PER_THREAD, max_block_threads

    return max_block_threads(MAX_REGISTERS_PER_THREAD)


#: threads a block of any kernel launches with, whatever its registers (256 at 9.0)
_ALWAYS_FITS = _always_fits()


class Kernel:
    """A numba-cuda kernel launched on CuPy's current stream, its CuPy arguments wrapped unsynchronised.

    ``kernel[blocks, threads](*args)`` as with numba's dispatcher.  Under the
    simulator the launch goes straight to numba's simulated kernel.  Every
    launch adds one to :data:`launch_counts`.

    On a GPU each launch is checked against the compiled kernel: a block
    launches only if the SM's registers hold all of its threads (at 9.0,
    1024 threads need at most 64 registers a thread), so the kernel's
    ``max_threads_per_block`` for the launch's argument types (the driver's
    figure, asked once per signature) bounds the block, and a larger one
    becomes the smaller launch :func:`fit_launch` gives for the kernel's
    ``layout``.  :attr:`refits` counts the launches so changed.  Blocks of
    at most 256 threads launch at any register count (255 a thread at
    most), so they go straight to the launch, with no question asked.
    """

    def __init__(self, dispatcher: Any, fn: Any, layout: str = "grid"):
        if layout not in BLOCK_LAYOUTS:
            raise ValueError(f"layout must be one of {BLOCK_LAYOUTS}, got {layout!r}")
        self.dispatcher = dispatcher
        self.py_func = fn
        self.layout = layout
        self.refits = 0
        self._limits: dict = {}
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__

    def block_limit(self, args: tuple) -> int:
        """Most threads a block of this kernel takes for these (converted) arguments: the
        compiled overload's ``max_threads_per_block`` (numba-cuda ``_Kernel``, from
        ``cuFuncGetAttribute``), compiling it first as the launch would."""
        d = self.dispatcher
        argtypes = tuple(d.typeof_pyval(a) for a in args)
        limit = self._limits.get(argtypes)
        if limit is None:
            limit = self._limits[argtypes] = int(d.compile(argtypes).max_threads_per_block)
        return limit

    def __getitem__(self, config: tuple[int, int]):
        launch_counts["launches"] += 1
        if simulator_enabled():
            return self.dispatcher[config]
        blocks, threads = config
        if threads <= _ALWAYS_FITS:  # no kernel has registers enough to refuse it: nothing to ask
            configured = self.dispatcher[blocks, threads, _current_stream()]
            return lambda *args: configured(*map(kernel_view, args))

        def launch(*args: Any) -> Any:
            views = tuple(map(kernel_view, args))
            fitted = fit_launch(blocks, threads, self.block_limit(views), self.layout, self.__name__)
            if fitted != (blocks, threads):
                self.refits += 1
            return self.dispatcher[fitted[0], fitted[1], _current_stream()](*views)
        return launch

    def __repr__(self) -> str:
        return f"<GPU kernel {self.__module__}.{self.__qualname__}>"


def gpu_kernel(fn: Any = None, *, layout: str = "grid") -> Any:
    """``@cuda.jit(cache=True)`` as a :class:`Kernel`: compiled once per machine, not once per process.

    numba-cuda keeps the compiled kernel in its on-disk cache beside the
    module (``__pycache__``, or ``NUMBA_CACHE_DIR``), keyed by the argument
    types and the device, so a new process loads it instead of compiling
    the library's kernels again (tens of seconds).  The simulator ignores it.
    ``@gpu_kernel(layout="block")`` names a kernel whose block is a unit of
    work (see :data:`BLOCK_LAYOUTS`); the default is one item a thread.
    """
    if fn is None:
        return lambda f: Kernel(cuda().jit(cache=True)(f), f, layout)
    return Kernel(cuda().jit(cache=True)(fn), fn, layout)
