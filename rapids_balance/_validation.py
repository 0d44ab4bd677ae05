"""Parameter checks shared by every public function and CLI command.

One helper per kind of parameter, one style of message (scikit-learn's)::

    The 'seed' parameter of balance must be an int in the range [0, 2**63 - 1]. Got 1.7 instead.

Each check returns the value normalised (a plain ``int`` / ``float``), so a
caller writes ``seed = check_seed(seed, "balance")`` at the top of the
function, before loading data or starting work.  Failures raise
:class:`~rapids_balance.errors.InvalidParameterError` (a ``ValueError`` and a
``TypeError``).

The seed rule (documented in every function that takes one): an integer in
``[0, 2**63 - 1]``; ``bool`` and floats are refused (never truncated).
Functions that follow networkx (betweenness) also take ``seed=None``: a fresh
random seed for each call, so a sampled result cannot be repeated (the CLI
draws the seed itself and records it in its manifest).

Counts of work (trees, restarts, batch sizes, states) are ints in ``[low,
2**63 - 1]`` (:data:`COUNT_MAX`: ids of the work items are int64 in the
kernels); work is cut into batches generated lazily, so a large count costs
time, never memory before the work starts.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Any

from .errors import InvalidParameterError, short_repr

__all__ = ["SEED_MAX", "COUNT_MAX", "BACKENDS", "ROLES", "check_seed", "check_int", "check_count",
           "check_number", "check_time_limit", "check_choice", "check_bool", "check_backend",
           "param_error"]

SEED_MAX = 2**63 - 1
#: largest count of work items (tree ids, restart ids are int64 in the kernels)
COUNT_MAX = 2**63 - 1
BACKENDS = ("auto", "cpu", "gpu")
#: the column-role keywords of every function that reads a table or a file
ROLES = ("source", "target", "sign", "weight")


def param_error(name: str, owner: str, must: str, value: Any) -> InvalidParameterError:
    """The one message style: "The 'NAME' parameter of OWNER must be MUST. Got VALUE instead."."""
    return InvalidParameterError(f"The {name!r} parameter of {owner} must be {must}. "
                                 f"Got {short_repr(value)} instead.")


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _range_text(low: float | None, high: float | None, *, integer: bool) -> str:
    kind = "an int" if integer else "a finite number"
    if low is None and high is None:
        return kind
    if high is None:
        return f"{kind} >= {low}"
    if low is None:
        return f"{kind} <= {high}"
    return f"{kind} in the range [{low}, {_bound_text(high)}]"


def _bound_text(value: float) -> str:
    """``2**k`` or ``2**k - 1`` for large powers of two (as the docstrings write them), else the number."""
    if isinstance(value, int) and value >= 2**16:
        if value & (value - 1) == 0:
            return f"2**{value.bit_length() - 1}"
        if value & (value + 1) == 0:
            return f"2**{value.bit_length()} - 1"
    return str(value)


def check_int(value: Any, name: str, owner: str, *, low: int | None = None, high: int | None = None,
              allow_none: bool = False) -> int | None:
    """``value`` as a plain int in ``[low, high]`` (``None`` passes when ``allow_none``)."""
    if value is None and allow_none:
        return None
    must = _range_text(low, high, integer=True) + (" or None" if allow_none else "")
    if not _is_int(value):
        raise param_error(name, owner, must, value)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise param_error(name, owner, must, value)
    return value


def check_count(value: Any, name: str, owner: str, *, low: int = 1, high: int = COUNT_MAX,
                allow_none: bool = False) -> int | None:
    """A count of work items: an int in ``[low, high]`` (``high`` defaults to :data:`COUNT_MAX`)."""
    return check_int(value, name, owner, low=low, high=high, allow_none=allow_none)


def check_number(value: Any, name: str, owner: str, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, allow_none: bool = False) -> float | None:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    if value is None and allow_none:
        return None
    must = _range_text(low, high, integer=False)
    if low_open and low is not None:
        must = must.replace(f">= {low}", f"> {low}").replace(f"[{low},", f"({low},")
    must += " or None" if allow_none else ""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise param_error(name, owner, must, value)
    given = value
    try:
        value = float(value)
    except OverflowError:  # an int beyond float's range
        raise param_error(name, owner, must, given) from None
    if not math.isfinite(value):
        raise param_error(name, owner, must, given)
    if low is not None and (value < low or (low_open and value == low)):
        raise param_error(name, owner, must, given)
    if high is not None and value > high:
        raise param_error(name, owner, must, given)
    return value


def check_seed(value: Any, owner: str, *, allow_none: bool = False, name: str = "seed") -> int | None:
    """A seed: an int in ``[0, 2**63 - 1]`` (``None`` only where ``allow_none``)."""
    return check_int(value, name, owner, low=0, high=SEED_MAX, allow_none=allow_none)


def check_time_limit(value: Any, owner: str, *, allow_none: bool = True, name: str = "time_limit"
                     ) -> float | None:
    """Seconds: a finite number >= 0 (``None``: no limit, where allowed)."""
    return check_number(value, name, owner, low=0.0, allow_none=allow_none)


def check_choice(value: Any, name: str, owner: str, choices: Collection[Any]) -> Any:
    """``value`` if it is one of ``choices`` (compared with ``==``, hashable or not)."""
    try:
        ok = value in choices
    except TypeError:
        ok = False
    if not ok:
        listed = ", ".join(repr(c) for c in choices)
        raise param_error(name, owner, f"one of {{{listed}}}", value)
    return value


def check_bool(value: Any, name: str, owner: str) -> bool:
    """A real bool (numpy's included); 0/1, strings and None are refused."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise param_error(name, owner, "a bool (True or False)", value)


def check_backend(value: Any, owner: str) -> str:
    """``backend``: one of "auto", "cpu", "gpu" (whether a GPU exists is checked by ``resolve_backend``)."""
    return check_choice(value, "backend", owner, BACKENDS)
