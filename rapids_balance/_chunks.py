"""Independent compiled chunks of work run side by side on threads, instead of a ``prange``.

numba's parfor passes (``parallel=True``) cost a second or more of a first
call's compiling per kernel; a kernel compiled with ``nogil=True`` that
does one chunk of the work, called from a thread per chunk, runs as the
``prange`` over chunks would and compiles like any serial kernel.  Each
chunk writes only its own part of the outputs, so no result depends on the
number of chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numba

__all__ = ["cpu_chunks", "run_chunks", "slot_chunks"]

#: a chunk of a pass over a graph gets at least this many adjacency slots: below, handing
#: it to a thread costs more than it saves
MIN_CHUNK_SLOTS = 2**14

_pool = None
_pool_lock = threading.Lock()


def cpu_chunks(n_items: int) -> int:
    """How many parallel chunks to cut ``n_items`` independent items (trees) into."""
    return max(1, min(int(n_items), numba.get_num_threads()))


def slot_chunks(n_slots: int) -> int:
    """How many parallel chunks to cut a pass over ``n_slots`` adjacency slots into: one per
    thread (numba's count), none under ``MIN_CHUNK_SLOTS``."""
    return int(max(1, min(numba.get_num_threads(), n_slots // MIN_CHUNK_SLOTS)))


def run_chunks(chunk: Callable[[int], object], n_chunks: int) -> None:
    """``chunk(c)`` for c in ``range(n_chunks)``, each on its own thread.

    The chunks are compiled kernels that release the GIL (``nogil=True``)
    and write only their own part of the outputs, so they run side by side
    as a numba ``prange`` over chunks would, without compiling a parallel
    loop.  The chunk count (:func:`cpu_chunks`, :func:`slot_chunks`: numba's
    thread count) sets the parallelism, as before.  Chunk 0 runs on the
    calling thread, the others on a pool kept for the process (a pass over a
    small coarse level is called thousands of times in a search: starting
    threads for each call would cost more than the pass).  The chunks never
    wait on the pool themselves, so callers on any threads cannot deadlock it.
    """
    if n_chunks <= 1:
        chunk(0)
        return
    futures = [_chunk_pool().submit(chunk, c) for c in range(1, n_chunks)]
    try:
        chunk(0)
    finally:
        for f in futures:
            f.result()


def _chunk_pool():
    """The process's chunk threads (as many as numba may use), started on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS),
                                       thread_name_prefix="rapids-balance-chunk")
        return _pool
