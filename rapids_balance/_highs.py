"""HiGHS instances that stay quiet: shared by the exact frustration solver and
the clustering certificate's cycle LP (highspy is an optional extra; callers
import it lazily and pass the module in)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def _c_stdout_silenced() -> Iterator[None]:
    """Send what C code prints to file descriptor 1 to /dev/null for the block (Python's output is flushed)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, AttributeError, ValueError):  # no fd 1, no C library: print as it is
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        libc.fflush(None)  # what C buffered goes to /dev/null too, not to the restored stdout
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def new_highs(highspy: Any, verbose: bool, threads: int = 0) -> Any:
    """A HiGHS instance, silent unless ``verbose``, using ``threads`` threads (0: HiGHS's choice).

    HiGHS prints its copyright banner from C++ on the first instance of a
    process, before any option can be set, so a quiet instance is built with
    the process's C-level stdout sent to /dev/null.  Its thread pool is one per
    process, sized by the first solve, and a later solve asking for another
    size is refused (status 'Not Set', no solution): the pool is reset here, so
    every instance gets the size it asks for.
    """
    if verbose:
        h = highspy.Highs()
    else:
        with _c_stdout_silenced():
            h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    reset = getattr(highspy.Highs, "resetGlobalScheduler", None)
    if reset is not None:
        reset(True)
    if threads:
        h.setOptionValue("threads", int(threads))
    return h
