"""Balancing engine: spanning trees, graphB+ and ECL-SGB balancing, Harary
sides, and vertex/edge attributes over many trees, on CPU and GPU.

:func:`balance` is the entry point; :class:`BalanceResult` holds the
attribute tables.  ``_trees`` has the spanning-tree contract shared with
``frustration_index/`` (see DESIGN.md).
"""

from ._engine import balance
from ._result import BalanceResult
from ._roots import graphbplus_roots

__all__ = ["balance", "BalanceResult", "graphbplus_roots"]

