"""Betweenness centrality on Dask: source batches summed in batch order.

The single-process path (``centrality.betweenness._run``) cuts the sources
into fixed batches and adds each batch's ``(node, edge)`` partial sums to
zero-initialised accumulators in batch order.  Here the same batches run as
tasks and are reduced by one left fold in batch order on the cluster
(``split_every=None``), which performs the same floating-point additions
in the same order: the result is bit-identical to the local one, for any
number of workers.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._map import map_reduce

__all__ = ["bc_sums"]


def bc_sums(client: Any, graph: Any, batches: Sequence[np.ndarray], params: dict, *,
            progress: bool = False, desc: str = "betweenness") -> tuple[np.ndarray, np.ndarray]:
    """Sum ``_bc_partial`` over ``batches`` on the cluster, in batch order.

    Parameters
    ----------
    client : distributed.Client
    graph : centrality._input.BCGraph (or its future)
        Scattered to every worker once.
    batches : list of int arrays
        The source batches of the single-process path, in its order.
    params : dict
        ``_bc_partial``'s params.  Each worker runs the kernels of
        ``params["backend"]``.
    progress : bool
        Progress bar over batches.

    Returns
    -------
    (node, edge) : float64 arrays, the unnormalised sums.
    """
    from ..centrality.betweenness import _bc_partial

    node, edge = map_reduce(client, graph, _bc_partial, list(batches), params,
                            split_every=None, progress=progress, desc=desc)
    # the local path starts from zeros: 0.0 + x == x, so only -0.0 can differ (it compares equal)
    return np.asarray(node, np.float64), np.asarray(edge, np.float64)
