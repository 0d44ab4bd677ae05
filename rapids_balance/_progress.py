"""Progress reporting, quiet by default: a bar on a terminal, a few plain lines in a log, else nothing.

Every public function takes ``progress=None | True | False``:

* ``None`` (the default): a bar only when stderr is an interactive terminal
  (or in a notebook); a script whose stderr goes to a file or a pipe, a
  test run and a Dask worker stay silent;
* ``True``: always report; on a terminal the tqdm bar, elsewhere a few
  plain lines (``balance: 500/1000 tree (50 %), 1.2 s``) at most every
  :data:`LOG_INTERVAL_S` seconds and at the end, with no ``\\r`` frames or
  block characters;
* ``False``: nothing.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

__all__ = ["progress_bar", "interactive", "LOG_INTERVAL_S"]

#: seconds between two plain lines when stderr is not a terminal
LOG_INTERVAL_S = 30.0


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        pass


class _LogLines:
    """Plain progress lines for logs: the first update, then at most one per interval, then the end."""

    def __init__(self, total: int, desc: str, unit: str, stream: TextIO, interval: float):
        self.total, self.desc, self.unit, self.stream, self.interval = total, desc, unit, stream, interval
        self.n = 0
        self.postfix = ""
        self.start = time.perf_counter()
        self.last: float | None = None

    def _line(self) -> str:
        elapsed = time.perf_counter() - self.start
        done = f"{self.n:,}/{self.total:,} {self.unit}" if self.total else f"{self.n:,} {self.unit}"
        share = f" ({100 * self.n / self.total:.0f} %)" if self.total else ""
        extra = f", {self.postfix}" if self.postfix else ""
        return f"{self.desc}: {done}{share}, {elapsed:.1f} s{extra}\n"

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if self.last is None or now - self.last >= self.interval:
            self.last = now
            self._write()

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        self.postfix = s

    def close(self) -> None:
        if self.n and self.last is not None:
            self._write()

    def _write(self) -> None:
        try:
            self.stream.write(self._line())
            self.stream.flush()
        except (OSError, ValueError):  # a closed log stream does not stop the computation
            pass


def _notebook() -> bool:
    """Whether this process is a Jupyter kernel (JupyterLab, VS Code, Colab: their shells are, or
    derive from, IPython's ZMQInteractiveShell), where tqdm.auto draws a notebook widget."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is None:
        return False
    if any(c.__name__ == "ZMQInteractiveShell" for c in type(shell).__mro__):
        return True
    try:
        return "IPKernelApp" in shell.config
    except Exception:  # a shell without a config: a terminal IPython
        return False


def interactive(stream: Any = None) -> bool:
    """Whether ``stream`` (default: stderr) is an interactive terminal or a notebook's output."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty()) or _notebook()
    except (AttributeError, ValueError):
        return _notebook()


@contextmanager
def progress_bar(total: int, desc: str, enabled: bool | None = None, unit: str = "it") -> Iterator:
    """Context manager yielding an object with ``update(n)`` and ``set_postfix_str(s)``.

    ``enabled`` follows the module's rule (``None``: only on a terminal), so
    library code calls ``update`` unconditionally.
    """
    stream = sys.stderr
    tty = interactive(stream)
    if enabled is False or (enabled is None and not tty):
        yield _NoBar()
        return
    if not tty:
        lines = _LogLines(total, desc, unit, stream, LOG_INTERVAL_S)
        try:
            yield lines
        finally:
            lines.close()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        yield _NoBar()
        return
    bar = tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False, dynamic_ncols=True)
    try:
        yield bar
    finally:
        bar.close()
