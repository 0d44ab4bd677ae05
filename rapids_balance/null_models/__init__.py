"""Significance of balance against null models.

* :func:`significance` - a statistic (frustration index, triangle balance
  ratio, walk score or any callable) against signs shuffled over the
  topology or sign-degree-preserving edge swaps: z-score, empirical
  p-value, the null distribution;
* :func:`null_histogram` - its picture.

Modules (a package named for its models, so that it never shadows
``rb.significance``): ``_nulls`` (null models, per-sample seeds), ``_statistics`` (the
statistic registry), ``_triangles`` (degree-ordered triangle listing),
``_result`` (result, p-values), ``_plot``, ``_significance`` (driver,
batches, Dask).
"""

from ._plot import null_histogram
from ._result import SignificanceResult
from ._significance import significance

__all__ = ["significance", "SignificanceResult", "null_histogram"]
