"""Balancing engine: spanning trees, graphB+ and ECL-SGB balancing, Harary
sides, and vertex/edge attributes over many trees, on CPU and GPU.

:func:`balance` is the entry point; :class:`BalanceResult` holds the
attribute tables.  ``_trees`` has the spanning-tree contract shared with
``frustration/`` (see DESIGN.md).

The package and its main function share the name ``balance``: once any
``rapids_balance.balance.*`` module is imported, Python binds
``rapids_balance.balance`` to this package, so the package itself is made
callable and ``rapids_balance.balance(graph, ...)`` works either way.
"""

import sys as _sys
import types as _types

from ._engine import balance
from ._result import BalanceResult
from ._trees import graphbplus_roots

__all__ = ["balance", "BalanceResult", "graphbplus_roots"]


class _CallablePackage(_types.ModuleType):
    """``rapids_balance.balance`` bound to this package still calls :func:`balance`."""

    def __call__(self, *args, **kwargs):
        return balance(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage
