"""How long numba spends compiling, measured from its own events (a command reports it apart)."""

from __future__ import annotations

from typing import Any

__all__ = ["CompileClock", "SIDE_EVENT"]

#: the kind of numba event (a custom kind) that spans a wait for a side process compiling
#: kernels for this one (:mod:`._ready`)
SIDE_EVENT = "rapids_balance:side_compile"


class CompileClock:
    """Seconds numba spends compiling kernels, and loading cached ones, while the block runs.

    Measured from numba's own events, not estimated: ``compile_s`` is the
    wall time inside outermost ``numba:compile`` events (type inference,
    LLVM, code generation of kernels not in the cache), plus the wall time
    this process waited for a side process compiling a part of its kernels
    (``rapids_balance:side_compile`` events, see :mod:`._ready`); so it is
    wall seconds of this call, not CPU seconds summed over the processes
    (the side's compiling overlaps this process's).  ``cache_load_s`` is the
    rest of the time numba holds its compiler lock (loading machine code from
    the cache).  A command subtracts both from the time it reports for the
    work, so a first run's ms/tree is not the compiler's.  Kernels compiled
    on Dask workers or by the CUDA driver are not seen here.

    Examples
    --------
    >>> from rapids_balance._compile_clock import CompileClock
    >>> with CompileClock() as clock:
    ...     pass
    >>> clock.seconds
    0.0
    """

    _KINDS = ("numba:compile", "numba:compiler_lock", SIDE_EVENT)

    def __init__(self) -> None:
        self._listeners: dict[str, Any] = {}
        self._done = {kind: 0.0 for kind in self._KINDS}

    def __enter__(self) -> CompileClock:
        from numba.core import event

        for kind in self._KINDS:
            listener = event.TimingListener()
            event.register(kind, listener)
            self._listeners[kind] = listener
        return self

    def __exit__(self, *exc: object) -> None:
        from numba.core import event

        for kind, listener in self._listeners.items():
            event.unregister(kind, listener)
            self._done[kind] += listener.duration if listener.done else 0.0
        self._listeners = {}

    @property
    def compile_s(self) -> float:
        """Seconds compiling kernels that were not in the cache (or waiting for a side process
        compiling them)."""
        return self._done["numba:compile"] + self._done[SIDE_EVENT]

    @property
    def cache_load_s(self) -> float:
        """Seconds loading compiled kernels from numba's cache."""
        return max(self._done["numba:compiler_lock"] - self._done["numba:compile"], 0.0)

    @property
    def seconds(self) -> float:
        """Both: every second numba held its compiler lock."""
        return (max(self._done["numba:compiler_lock"], self._done["numba:compile"])
                + self._done[SIDE_EVENT])
