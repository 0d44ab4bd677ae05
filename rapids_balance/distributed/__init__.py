"""Scale-out on Dask: the same call, with ``client=``, over many workers.

Every algorithm splits its work into independent batches (spanning trees,
betweenness sources, clustering restarts) with a pure per-batch function and
a reduction in batch order.  This package is the generic machinery and
imports none of the algorithms:

* :func:`start_cluster` -- a ``LocalCUDACluster`` (one worker per GPU) or a
  ``LocalCluster`` of CPU processes, and its client;
* :func:`run_batches` -- the entry point the algorithms use (:mod:`._run`):
  per-batch function, batches, reduction on the cluster or on the client
  (:func:`ordered_reduce` is the same reduction run locally); the graph goes
  to the cluster once and stays (:mod:`._graphs`); the workers are checked
  before any work (:mod:`._preflight`);
* :func:`cluster_graph` -- a graph built on the workers from a Dask DataFrame
  or a Parquet dataset, the capabilities given it run on the workers
  (:mod:`._remote`);
* :func:`to_dask_frame` -- a result table as a Dask DataFrame.

Nothing here imports ``distributed`` until it is used.
"""

from .._output import to_dask_frame
from ._batches import RangeBatches, WorkerBatches
from ._cluster import gpu_cluster_available, start_cluster
from ._remote import cluster_graph
from ._run import run_batches
from ._tasks import ordered_reduce

__all__ = [
    "start_cluster", "gpu_cluster_available", "cluster_graph", "run_batches", "RangeBatches",
    "WorkerBatches", "ordered_reduce", "to_dask_frame",
]
