"""Independent compiled chunks of work run side by side on threads, instead of a ``prange``.

numba's parfor passes (``parallel=True``) cost a second or more of a first
call's compiling per kernel; a kernel compiled with ``nogil=True`` that
does one chunk of the work, called from a thread per chunk, runs as the
``prange`` over chunks would and compiles like any serial kernel.  Each
chunk writes only its own part of the outputs, so no result depends on the
number of chunks.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numba

__all__ = ["cpu_chunks", "run_chunks", "slot_chunks"]

#: a chunk of a pass over a graph gets at least this many adjacency slots: below, handing
#: it to a thread costs more than it saves
MIN_CHUNK_SLOTS = 2**14

_PREFIX = "rapids-balance-chunk"
_pool = None
_pool_pid = 0
_pool_lock = threading.Lock()


def cpu_chunks(n_items: int) -> int:
    """How many parallel chunks to cut ``n_items`` independent items (trees) into."""
    return max(1, min(int(n_items), numba.get_num_threads()))


def slot_chunks(n_slots: int) -> int:
    """How many parallel chunks to cut a pass over ``n_slots`` adjacency slots into: one per
    thread (numba's count), none under ``MIN_CHUNK_SLOTS``."""
    return int(max(1, min(numba.get_num_threads(), n_slots // MIN_CHUNK_SLOTS)))


def run_chunks(chunk: Callable[[int], object], n_chunks: int) -> None:
    """``chunk(c)`` for c in ``range(n_chunks)``, side by side on threads.

    The chunks are compiled kernels that release the GIL (``nogil=True``)
    and write only their own part of the outputs, so they run side by side
    as a numba ``prange`` over chunks would, without compiling a parallel
    loop.  The chunk count (:func:`cpu_chunks`, :func:`slot_chunks`: numba's
    thread count) sets the parallelism, as before.  Chunk 0 runs on the
    calling thread, the others on a pool kept for the process (a pass over a
    small coarse level is called thousands of times in a search: starting
    threads for each call would cost more than the pass).  A chunk that
    calls this again runs its own chunks in turn, on its thread: a pool
    thread never waits on the pool, so it cannot deadlock.
    """
    if n_chunks <= 1 or threading.current_thread().name.startswith(_PREFIX):
        for c in range(n_chunks):
            chunk(c)
        return
    from concurrent.futures import wait

    futures = [_chunk_pool().submit(chunk, c) for c in range(1, n_chunks)]
    try:
        chunk(0)
    finally:
        wait(futures)  # no chunk still writes into the outputs once this returns or raises
    for f in futures:
        f.result()


def _chunk_pool():
    """The process's chunk threads (as many as numba may use), started on first use, and
    again in a forked child (it inherits the pool but not its threads)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS),
                                       thread_name_prefix=_PREFIX)
            _pool_pid = os.getpid()
        return _pool
