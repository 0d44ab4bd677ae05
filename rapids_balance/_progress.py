"""A progress bar that degrades to nothing: tqdm when asked for, else a no-op."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        pass


@contextmanager
def progress_bar(total: int, desc: str, enabled: bool = True, unit: str = "it") -> Iterator:
    """Context manager yielding an object with ``update(n)``.

    ``enabled=False`` (or no tqdm installed) gives a silent bar, so library
    code can call ``update`` unconditionally.
    """
    if not enabled:
        yield _NoBar()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        yield _NoBar()
        return
    # On a terminal (or in a notebook) the bar redraws in place and vanishes when
    # done.  In a log file or pipe a vanished bar leaves its last '\r' state
    # glued to the next line, so there it ends with a newline and redraws rarely.
    stream = sys.stderr
    notebook = "notebook" in getattr(tqdm, "__module__", "")
    plain_file = not notebook and not (hasattr(stream, "isatty") and stream.isatty())
    bar = tqdm(total=total, desc=desc, unit=unit, file=stream, leave=plain_file,
               dynamic_ncols=True, mininterval=10.0 if plain_file else 0.1)
    try:
        yield bar
    finally:
        bar.close()
