"""Spanning-tree balancing on Dask: tree batches summed as integer counters.

``balancing._engine._balance_partial`` turns a range of tree ids into int64
counters; integer sums do not depend on grouping or order, so the cluster
may cut the trees into its own batches (a few per worker, each at most the
single-process batch size) and still return exactly the single-process
counters.  Tree ``i`` always uses seed ``seed + i``, whichever batch holds it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._map import cluster_batches, map_reduce

__all__ = ["balance_counters"]


def balance_counters(client: Any, graph: Any, params: Any, *,
                     progress: bool = False) -> dict[str, np.ndarray]:
    """Summed ``_balance_partial`` counters of trees ``0 .. params.n_trees-1``.

    Parameters
    ----------
    client : distributed.Client
    graph : SignedGraph
        Scattered to every worker once.
    params : balancing._engine.BalanceParams
    progress : bool
        Progress bar over tree batches.

    Returns
    -------
    dict of str to int64 numpy arrays
        Equal to the single-process counters.
    """
    from ..balancing._engine import _balance_partial, batch_size_for

    batches = cluster_batches(client, params.n_trees, max_size=batch_size_for(graph, params),
                              tasks_per_worker=2)
    return map_reduce(client, graph, _balance_partial, batches, params, progress=progress,
                      desc="balance")
