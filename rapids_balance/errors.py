"""Exceptions raised by rapids-balance.

Each one subclasses the builtin a caller would naturally catch (``ValueError``
for bad data, ``RuntimeError`` for an unusable backend), so code written
against plain Python exceptions keeps working.
"""

from __future__ import annotations

__all__ = ["GraphInputError", "GraphFormatError", "BackendUnavailableError", "InvalidParameterError",
           "short_repr", "missing_extra", "renamed_source", "EXTRAS"]

#: optional module -> the extra of this package that installs it (for install hints)
EXTRAS = {"highspy": "exact", "pyarrow": "io", "polars": "io", "matplotlib": "plot", "dask": "dask",
          "distributed": "dask", "networkx": "networkx", "cupy": "gpu", "cudf": "rapids",
          "cugraph": "rapids", "dask_cuda": "rapids"}


def missing_extra(module: str, what: str) -> ImportError:
    """The one message for a missing optional package: what needs it and the install line."""
    extra = EXTRAS.get(module.split(".")[0])
    hint = f"pip install 'rapids-balance[{extra}]'" if extra else f"pip install {module}"
    return ImportError(f"{what} needs {module}, which is not installed; install it with: {hint}",
                       name=module)


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


def renamed_source(exc: GraphInputError, old: str, new: str) -> GraphInputError:
    """The same error with the file ``old`` called ``new`` in its message and ``path``.

    A bundled example is read from inside the installed package; its errors
    name it as the user did (``example 'highland'``, ``--example highland``).
    """
    copy = type(exc).__new__(type(exc))
    ValueError.__init__(copy, str(exc).replace(old, new))
    copy.__dict__.update(exc.__dict__)
    if getattr(copy, "path", None) == old:
        copy.path = new
    return copy


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a public function (or a CLI option) has a wrong type or value.

    Subclasses both ``ValueError`` and ``TypeError`` (as scikit-learn's does),
    so callers catching either keep working.  Raised by the checks in
    :mod:`rapids_balance._validation` before any work starts.
    """


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, so a huge value cannot flood a message."""
    if isinstance(value, int) and value.bit_length() > 3 * limit:
        # repr of an int past ~4300 digits raises in Python >= 3.11
        return f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[: limit - 25]}...({len(text)} characters)"


class BackendUnavailableError(RuntimeError):
    """``backend="gpu"`` was requested but no usable GPU exists."""
