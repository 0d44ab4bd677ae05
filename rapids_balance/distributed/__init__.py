"""Scale-out on Dask: the same call, with ``client=``, over many workers.

Every algorithm splits its work into independent batches (spanning trees,
betweenness sources, clustering restarts) with a pure per-batch function and
a reduction in batch order.  This package holds the generic machinery and
knows nothing of the algorithms (it imports none of their packages):

* :func:`start_cluster` -- a ``LocalCUDACluster`` (one worker per GPU) or a
  ``LocalCluster`` of CPU processes, and its client;
* :func:`run_batches` -- the one entry point the algorithms use: they hand
  it their per-batch function, their batches (:class:`RangeBatches`, or
  :class:`WorkerBatches` cut for the cluster at hand) and their reduction,
  either ``combine`` on the cluster or ``fold`` on the client
  (:func:`ordered_reduce` is the same reduction run locally);
* the graph goes to the cluster once: from the client to one worker, worker
  to worker after, kept by each worker under its content fingerprint
  (:mod:`._graphs`);
* every call with ``client=`` first checks that each worker can import
  rapids-balance at this version (:mod:`._preflight`), naming those that
  cannot, instead of hanging;
* :func:`cluster_graph` -- a graph built on the workers from a Dask
  DataFrame or a Parquet dataset, read part by part where it lies; the
  client keeps a small handle (:class:`~rapids_balance.ClusterGraph`) and
  the capabilities given it run their whole call on the workers
  (:mod:`._remote`);
* :func:`to_dask_frame` -- a result table as a ``dask.dataframe`` (what
  ``as_dask=True`` gives), for pipelines that stay on the cluster.

Nothing here imports ``distributed`` until it is used, so the package loads
without the ``dask`` extra.  The public door for users is the ``client=``
argument of each algorithm; each algorithm's package reaches this one
through ``_run.py`` only.
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
