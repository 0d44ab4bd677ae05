"""Significance of balance against null models.

* :func:`significance` - a statistic (frustration index, triangle balance
  ratio, walk score or any callable) against signs shuffled over the
  topology or sign-degree-preserving edge swaps: z-score, empirical
  p-value, the null distribution;
* :func:`community_significance` - a partition's signed community objective
  against the same null models (fixed partition, or the search rerun on
  every sample);
* :func:`resolution_scan` - signed communities over resolutions, with their
  stability across seeds and, optionally, that test;
* :func:`null_histogram` - its picture.

Modules (a package named for its models, so that it never shadows
``rb.significance``): ``_nulls`` (null models, per-sample seeds), ``_statistics`` (the
statistic registry; triangles and walks come from :mod:`rapids_balance.measures`),
``_result`` (result, p-values), ``_plot``, ``_significance`` (driver,
batches, Dask).
"""

from ._communities import community_significance
from ._plot import null_histogram
from ._result import SignificanceResult
from ._scan import ResolutionScan, resolution_scan
from ._significance import significance

__all__ = ["significance", "community_significance", "SignificanceResult", "null_histogram",
           "resolution_scan", "ResolutionScan"]
