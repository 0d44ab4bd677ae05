"""Scale-out on Dask: the same call, with ``client=``, over many workers.

Every algorithm splits its work into independent batches (spanning trees,
betweenness sources, clustering restarts) with a pure per-batch function and
a reduction in batch order.  This package holds the generic machinery:

* :func:`start_cluster` -- a ``LocalCUDACluster`` (one worker per GPU) or a
  ``LocalCluster`` of CPU processes, and its client;
* :func:`scatter_graph` -- the graph goes to each worker once;
* :func:`map_batches` / :func:`map_reduce` -- one task per batch, Dask
  retries, a progress bar, results in batch order and reductions whose shape
  is fixed by the number of batches (:func:`ordered_reduce` is the same
  reduction run locally);
* result frames as pandas, cuDF or ``dask.dataframe`` (:func:`as_frame_like`,
  :func:`to_dask_frame`).

Nothing here imports ``distributed`` until it is used, so the package loads
without the ``dask`` extra.
"""

from ._cluster import gpu_cluster_available, start_cluster
from .._output import as_frame_like, convert_result_frames, is_cudf, to_dask_frame
from ._map import (check_client, cluster_batches, map_batches, map_reduce, n_workers, scatter_graph,
                   split_range)
from ._tasks import ordered_reduce, sum_parts, tree_groups

__all__ = [
    "start_cluster", "gpu_cluster_available", "scatter_graph", "map_batches", "map_reduce",
    "split_range", "cluster_batches", "n_workers", "ordered_reduce", "sum_parts", "tree_groups", "check_client",
    "as_frame_like", "convert_result_frames", "is_cudf", "to_dask_frame",
]
