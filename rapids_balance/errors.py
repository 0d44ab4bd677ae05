"""Exceptions raised by rapids-balance.

Each one subclasses the builtin a caller would naturally catch (``ValueError``
for bad data, ``RuntimeError`` for an unusable backend), so code written
against plain Python exceptions keeps working.
"""

from __future__ import annotations

__all__ = ["GraphInputError", "GraphFormatError", "BackendUnavailableError"]


class GraphInputError(ValueError):
    """The edge list cannot become a graph (bad columns, NaN signs, conflicts, ...)."""


class GraphFormatError(GraphInputError):
    """A file could not be parsed; the message names the file and, where known, the line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


class BackendUnavailableError(RuntimeError):
    """``backend="gpu"`` was requested but no usable GPU exists."""
