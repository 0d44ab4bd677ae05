"""Deadlines of the searches: a ``time.perf_counter()`` value, also read inside numba loops.

A search with a ``time_limit`` turns it into a deadline (``NO_DEADLINE``,
infinity, without one) and passes it down to its kernels as a float.  A
kernel cannot read the clock in nopython mode, so :func:`now` reads it in
numba's object mode; that takes the GIL for about a microsecond, so the
kernels read it once every ``CHECK_EVERY`` steps of their long loops
(:func:`expired`), and never without a deadline: without one a kernel runs
exactly as before, step for step.

Loops whose steps cost very different amounts (a move of a hub scans its
whole adjacency) count their work instead, in adjacency entries, and read
the clock once ``CHECK_WORK`` more entries were scanned (:func:`overdue`):
the overrun stays a few milliseconds whatever the degrees.
"""

from __future__ import annotations

import math
import time

import numba

__all__ = ["NO_DEADLINE", "CHECK_EVERY", "CHECK_WORK", "deadline_of", "passed", "now", "expired",
           "overdue"]

NO_DEADLINE = math.inf
#: loop steps between two clock reads inside a kernel
CHECK_EVERY = 1024
#: adjacency entries scanned between two clock reads in work-counting loops (about a millisecond)
CHECK_WORK = 1 << 16


def deadline_of(start: float, time_limit: float | None) -> float:
    """The deadline ``start + time_limit`` (``NO_DEADLINE`` when there is no limit)."""
    return NO_DEADLINE if time_limit is None else start + float(time_limit)


def passed(deadline: float) -> bool:
    """True once ``deadline`` is behind us (never for ``NO_DEADLINE``)."""
    return deadline != NO_DEADLINE and time.perf_counter() >= deadline


@numba.njit(cache=True)
def now():
    """``time.perf_counter()`` from inside a kernel."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True)
def expired(deadline, step):
    """In a kernel's loop: True when ``deadline`` has passed, read at every
    ``CHECK_EVERY``-th ``step`` only (False at the others and without a deadline)."""
    return deadline != math.inf and step % CHECK_EVERY == 0 and now() >= deadline


@numba.njit(cache=True)
def overdue(deadline, work, mark):
    """In a kernel's loop that counts its ``work``: ``(passed, next mark)``.

    The clock is read only once ``work`` reaches ``mark`` (then the next
    mark is ``CHECK_WORK`` further), never without a deadline.
    """
    if deadline == math.inf or work < mark:
        return False, mark
    return now() >= deadline, work + CHECK_WORK
