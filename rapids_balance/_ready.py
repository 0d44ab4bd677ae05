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
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

import numpy as np

__all__ = ["ready", "tiny_backend", "tiny_signed_graph"]

_done: dict[Hashable, float] = {}
_lock = threading.RLock()


def ready(key: Hashable, job: Callable[[], object]) -> float:
    """Run ``job`` (a tiny run of a search) once per process for ``key``.

    Returns the seconds it took, 0.0 when ``key`` was ready already (or is
    being made ready by this thread: the tiny run calls the search, which
    asks again).  Other threads wait until it is done.
    """
    with _lock:
        if key in _done:
            return 0.0
        _done[key] = 0.0  # the tiny run's own call of the search must not start another
        start = time.perf_counter()
        try:
            job()
        except BaseException:
            del _done[key]
            raise
        _done[key] = seconds = time.perf_counter() - start
    return seconds


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
