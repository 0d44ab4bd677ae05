"""Frustration index, frustration cloud and nearest balanced states (graphB++).

:func:`frustration` samples spanning trees (seven samplers), collects their
distinct nearest balanced states with counts and switch numbers (the
frustration cloud, optionally memory-capped) and refines the best states by
local search over bipartitions.  :func:`frustration_index_exact` proves the
index of small graphs by integer programming (HiGHS);
:func:`frustration_lower_bound` bounds it from below on any graph by packing
edge-disjoint unbalanced cycles.
"""

from ._bound import frustration_lower_bound
from ._exact import frustration_index_exact
from ._frustration import frustration
from ._refine import RefineParams
from ._result import ExactResult, FrustrationBound, FrustrationResult
from ._samplers import SAMPLERS

__all__ = ["frustration", "FrustrationResult", "frustration_index_exact", "ExactResult",
           "RefineParams", "SAMPLERS", "frustration_lower_bound", "FrustrationBound"]

