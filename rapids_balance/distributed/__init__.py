"""Scale-out on Dask: the same call, with ``client=``, over many workers.

Every algorithm splits its work into independent batches (spanning trees,
betweenness sources, clustering restarts) with a pure per-batch function and
a reduction in batch order.  This package is the generic machinery and
imports none of the algorithms: :func:`start_cluster`; :func:`run_batches`
(:mod:`._run`, the algorithms' one entry point), with the graph sent once
(:mod:`._graphs`) and the workers checked first (:mod:`._preflight`);
:func:`cluster_graph`, a graph built on the workers (:mod:`._remote`);
:func:`release_graphs`; and :func:`to_dask_frame`.  Nothing here imports
``distributed`` until it is used.
"""

from .._output import to_dask_frame
from ._cluster import gpu_cluster_available, start_cluster
from ._graphs import release_graphs
from ._remote import cluster_graph
from ._run import RangeBatches, WorkerBatches, run_batches
from ._tasks import ordered_reduce

__all__ = [
    "start_cluster", "gpu_cluster_available", "cluster_graph", "run_batches", "RangeBatches",
    "WorkerBatches", "ordered_reduce", "to_dask_frame", "release_graphs",
]
