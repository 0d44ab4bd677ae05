"""Kernels ready before a search's clock starts: one tiny run per capability and process.

numba compiles a kernel on its first call with a new type signature (or
loads it from the cache, under a second per capability), and a search with
a ``time_limit`` would otherwise pay for that out of its limit: in a fresh
environment compiling the refinement's kernels takes longer than a short
limit, and its later stages compile while the clock runs.  Each search
therefore first makes its kernels ready: it runs itself once on a tiny
graph with the options that choose its code paths (backend, sampler,
method, weights, ...), which compiles or loads every kernel it will call,
with the real call's type signatures (the tiny graph is built by the same
code as any graph, so its arrays have the same types).  That happens once
per process and option set (:func:`ready`); the seconds it took are
reported in the result, and the deadline starts after it.

On an empty cache that tiny run spends its seconds in numba's compiler,
which compiles one kernel at a time in a process (a global lock).  A search
may name a :class:`Side`: a module-level function, with JSON arguments, that
compiles a part of its kernels disjoint from the rest (frustration: the
refinement's; clustering: the constructions', GRASP and the V-cycle's
coarsening).  :func:`ready` starts it in a second Python process when

* that part's cache is cold (its ``sentinel`` kernel has no entry for this
  source in numba's cache index; where the index cannot be read, no side),
* this process may use two CPUs or more (its CPU affinity, and numba's
  thread count: a Dask worker's share of its machine, ``NUMBA_NUM_THREADS``)
  and the machine is not busy (its 1-minute load average is below that
  count: on a busy machine the side only splits this process's share, and
  measured so the first calls got slower),
* the search runs on the CPU, no :func:`no_sides` block is open (``warmup``'s
  processes compile side by side already), and cache saves can be locked
  (:func:`~._numba_cache.lock_cache_writes`, in both processes).

The side is a ``subprocess`` (not ``multiprocessing``: a Dask worker may be
a daemonic process, which cannot have children of its own) of the same
interpreter, with this package's folder first on its path, so it runs the
same code and writes the same cache.  Meanwhile this process compiles the
other part (``Side.first``); then it waits for the side and runs the whole
tiny run, which loads the side's kernels from the cache: numba reads a
function's cache index from disk whenever a signature is not in memory yet
(``tests/test_ready_side.py`` counts the cache hits).  The side only fills
the cache: if it fails, runs past ``SIDE_TIMEOUT_S`` (then it is ended) or
cannot start, the tiny run compiles what is missing itself, so results
never depend on it, only the time to the first result.  The environment
variable ``RAPIDS_BALANCE_COMPILE_SIDE`` turns it ``off``, or ``on`` whatever
the load (default ``auto``).

Seconds: ``info["seconds_compile"]`` is the wall time of the whole step,
and a command's "s compiling kernels" (:class:`~._compile_clock.CompileClock`)
counts this process's compiling plus its wait for the side: wall seconds of
the call, not CPU seconds summed over the two processes, whose compiling
overlaps.  Kernels compiled in both (a sort that both parts call) cost CPU
twice, and the side starts Python, numba and the package (about a second of
CPU): on a machine whose other core is busy the side gains nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Side", "no_sides", "ready", "tiny_backend", "tiny_signed_graph"]

#: the longest wait for a side process (seconds); past it, it is ended and the main
#: process compiles what is missing (a side compiles for 10-15 s of CPU; a loaded machine
#: stretches that several times)
SIDE_TIMEOUT_S = 300.0
#: environment variable: ``off`` starts no side process, ``on`` starts one on a busy machine too
SWITCH_ENV = "RAPIDS_BALANCE_COMPILE_SIDE"

_done: dict[Hashable, float] = {}
_lock = threading.RLock()
#: what became of each side asked for, in order: (key, "cold" start / "warm" / "one cpu" /
#: "busy" machine / "off" / "no lock" / "unknown" cache / "frozen" application / "failed"
#: start / exit code / "timeout" / "ended" when this process was interrupted)
side_log: list[tuple[Hashable, Any]] = []
_no_sides = [False]  # True in a side process (its tiny runs start none) and under no_sides()


@dataclass(frozen=True)
class Side:
    """A part of a tiny run compiled in a second process (see the module's notes).

    ``function``: ``"package.module:name"``, a module-level function called
    with ``kwargs`` (JSON values) in the side process; it compiles kernels
    that ``first`` does not call.  ``sentinel``: one of those kernels (a
    numba dispatcher): an empty cache index for it means the side's part
    is cold.  ``first``: what the main process compiles meanwhile (the rest
    of the tiny run, or its larger part; None: nothing).
    """

    function: str
    kwargs: dict = field(default_factory=dict)
    sentinel: Any = None
    first: Callable[[], object] | None = None


def ready(key: Hashable, job: Callable[[], object], side: Side | None = None) -> float:
    """Run ``job`` (a tiny run of a search) once per process for ``key``.

    Returns the seconds it took, 0.0 when ``key`` was ready already (or is
    being made ready by this thread: the tiny run calls the search, which
    asks again).  Other threads wait until it is done.  ``side``: a part of
    the kernels compiled meanwhile in a second process when the cache is
    cold (:class:`Side`); ``job`` then loads them from the cache.
    """
    with _lock:
        if key in _done:
            return 0.0
        _done[key] = 0.0  # the tiny run's own call of the search must not start another
        start = time.perf_counter()
        try:
            proc = None if side is None else _start_side(key, side)
            if proc is not None:
                try:
                    if side.first is not None:
                        side.first()
                except BaseException:
                    proc.kill()
                    proc.wait()
                    raise
                _end_side(key, proc)
            job()
        except BaseException:
            del _done[key]
            raise
        _done[key] = seconds = time.perf_counter() - start
    return seconds


@contextlib.contextmanager
def no_sides() -> Iterator[None]:
    """No side process starts inside the block (``warmup``'s processes, already side by side)."""
    before, _no_sides[0] = _no_sides[0], True
    try:
        yield
    finally:
        _no_sides[0] = before


def affinity_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system has one), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _usable_cpus() -> int:
    """The CPUs this process may run on, and may use: numba's thread count bounds it (a Dask
    worker's share of its machine, or ``NUMBA_NUM_THREADS``)."""
    import numba

    return min(affinity_cpus(), numba.get_num_threads())


def _busy(cpus: int) -> bool:
    """Whether the machine's run queue already fills the CPUs this process may use (the 1-minute
    load average): a second process then only splits this one's share of a busy machine
    (Linux shares CPU between sessions, not processes), and measured under load the first
    calls got slower with it (``benchmarks/results/2026-11-29-cpu-2core/first-call-side/``)."""
    try:
        return os.getloadavg()[0] >= cpus
    except (AttributeError, OSError):  # no load average here: assume an idle machine
        return False


def _cold(sentinel) -> bool | None:
    """Whether numba's cache holds no entry for ``sentinel`` (a dispatcher) under its current
    source; None when that cannot be read (no cache, another numba)."""
    try:
        return not sentinel._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - any failure to read it: no side process
        return None


def _start_side(key: Hashable, side: Side) -> subprocess.Popen | None:
    """The side process, started when its part's cache is cold and it can help; else None."""
    from ._numba_cache import lock_cache_writes

    if _no_sides[0]:
        return None
    switch = os.environ.get(SWITCH_ENV, "auto").strip().lower()
    if switch not in ("auto", "on", "off"):
        switch = "auto"
    cold = None if switch == "off" else _cold(side.sentinel)
    cpus = _usable_cpus()
    why = ("off" if switch == "off" else "unknown" if cold is None else "warm" if not cold else
           "one cpu" if cpus < 2 else "busy" if switch == "auto" and _busy(cpus) else
           "no lock" if not lock_cache_writes() else
           "frozen" if getattr(sys, "frozen", False) else None)  # no interpreter to start
    if why is not None:
        side_log.append((key, why))
        return None
    # the child imports this very package (first on its path) and so writes the same cache
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    code = "import sys; from rapids_balance._ready import _side_main; _side_main(sys.argv[1])"
    try:
        proc = subprocess.Popen([sys.executable, "-c", code,
                                 json.dumps({"function": side.function, "kwargs": side.kwargs})],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except (OSError, TypeError, ValueError):
        side_log.append((key, "failed"))
        return None
    side_log.append((key, "cold"))
    return proc


def _end_side(key: Hashable, proc: subprocess.Popen) -> None:
    """Wait for the side (ended past ``SIDE_TIMEOUT_S``); its exit code goes to :data:`side_log`.

    The wait is a :data:`~._compile_clock.SIDE_EVENT` of numba's event system, which
    :class:`~._compile_clock.CompileClock` counts as compiling (this process waits on
    another's compiler)."""
    from numba.core import event

    from ._compile_clock import SIDE_EVENT

    try:
        with event.trigger_event(SIDE_EVENT):
            code = proc.wait(timeout=SIDE_TIMEOUT_S)
        side_log.append((key, code))
    except BaseException as exc:  # the timeout, or this process interrupted: no orphan compiler
        proc.kill()
        proc.wait()
        side_log.append((key, "timeout" if isinstance(exc, subprocess.TimeoutExpired) else "ended"))
        if not isinstance(exc, subprocess.TimeoutExpired):
            raise


def _side_main(spec: str) -> None:
    """The side process: lock the cache's saves, then call the named function."""
    from ._numba_cache import lock_cache_writes

    _no_sides[0] = True
    if not lock_cache_writes():
        sys.exit(3)
    doc = json.loads(spec)
    module, name = doc["function"].split(":")
    getattr(importlib.import_module(module), name)(**doc["kwargs"])


def tiny_backend(backend: str) -> str:
    """The backend of a tiny run: the CPU in place of numba's CUDA simulator (its kernels
    are Python, nothing to compile, and slow even on a tiny graph)."""
    from .backend import simulator_enabled

    return "cpu" if backend == "gpu" and simulator_enabled() else backend


def tiny_signed_graph(weighted: bool = False, n: int = 240):
    """A connected signed graph of ``n`` vertices with four planted groups (seeded).

    Large enough for every stage of the searches to run (coarsening levels,
    population, recombination), small enough to take milliseconds once the
    kernels are compiled.  ``weighted`` adds positive float weights.
    """
    from .graph import build_graph

    rng = np.random.default_rng(20261124)
    m = 6 * n
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    ring = np.arange(n)  # a cycle through every vertex keeps the graph connected
    src = np.concatenate([src, ring])
    dst = np.concatenate([dst, (ring + 1) % n])
    keep = src != dst
    src, dst = src[keep], dst[keep]
    same = (src % 4) == (dst % 4)
    noise = rng.random(src.size) < 0.15
    sign = np.where(same != noise, 1, -1)
    weight = rng.uniform(0.5, 2.0, src.size) if weighted else None
    return build_graph(src, dst, sign=sign, weight=weight)
