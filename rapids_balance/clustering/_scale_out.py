"""GRASP / ILS restarts on Dask: batches of restart ids, the best one kept on the client.

Each task runs a consecutive range of restart ids with ``_restart._restart``
(building the graph's level structure once per task, not once per restart)
and returns every restart's imbalance plus the labels of its own best one.
The client folds the batches in restart order and keeps the best imbalance,
ties going to the smallest restart id, which is exactly what the sequential
loop keeps; ``history`` lists the improvements in restart order, as the
sequential loop records them.  Which batches the cluster cuts does not
change that result, so it cuts its own (a few per worker).
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import numpy as np

from ..distributed._run import RangeBatches, WorkerBatches, run_batches
from ._restart import _restart
from ._state import Level

__all__ = ["run_restarts", "restart_batch", "best_restart"]


def restart_batch(graph: Any, restart_ids: range, params: dict) -> dict:
    """Run the restarts ``restart_ids`` in order (on a worker).

    ``params["wall_deadline"]`` (a ``time.time()`` instant, or None) stops
    new restarts other than restart 0, as the sequential loop does; the ILS
    inner loop gets it as this process's ``perf_counter`` deadline.

    Returns
    -------
    dict
        ``ids`` and ``values`` of the restarts that ran, and ``best_id``,
        ``best_labels`` of the batch's best (ties: smallest id).
    """
    p = dict(params)
    wall = p.pop("wall_deadline", None)
    p["deadline"] = None if wall is None else time.perf_counter() + (wall - time.time())
    p["_level"] = Level.of_graph(graph)
    ids, values = [], []
    best_id, best_val, best_lab = -1, np.inf, None
    for r in restart_ids:
        if r > 0 and wall is not None and time.time() > wall:
            break
        lab, val = _restart(graph, r, p)
        ids.append(r)
        values.append(val)
        if val < best_val:
            best_id, best_val, best_lab = r, val, lab
    return {"ids": ids, "values": values, "best_id": best_id, "best_labels": best_lab}


def best_restart(parts: list[dict], record: Callable[[int, float], None] | None = None
                 ) -> tuple[np.ndarray, float, int]:
    """Fold :func:`restart_batch` results (in batch order) as the sequential loop does.

    Returns
    -------
    (labels, imbalance, restarts_done)
        The first restart with the lowest imbalance; ``record(restart_id,
        imbalance)`` is called for each improvement, in restart order.
    """
    best_lab, best_val, best_id, done = None, np.inf, -1, 0
    for part in parts:  # batch order = restart order
        for r, val in zip(part["ids"], part["values"]):
            done += 1
            if val < best_val:
                best_val, best_id = val, r
                if record is not None:
                    record(r, val)
        if part["best_id"] == best_id:
            best_lab = part["best_labels"]
    return best_lab, float(best_val), done


def run_restarts(client: Any, graph: Any, params: dict, iterations: int, *,
                 time_limit: float | None = None, progress: bool = False,
                 record: Callable[[int, float], None] | None = None,
                 restarts_per_batch: int | None = None) -> tuple[np.ndarray, float, int]:
    """The GRASP / ILS restart loop of ``correlation_clustering`` on a cluster.

    Parameters
    ----------
    client : distributed.Client
    graph : SignedGraph
    params : dict
        The params dict the sequential loop passes to ``_restart`` (its
        ``_level`` and ``deadline`` entries are rebuilt on the workers).
    iterations : int
        Restart ids ``0 .. iterations-1``.
    time_limit : float, optional
        Seconds from now; restarts other than 0 do not start after it.
    progress : bool
        Progress bar over batches of restarts.
    record : callable, optional
        ``record(restart_id, imbalance)`` for each improvement, in restart order.
    restarts_per_batch : int, optional
        Default: about four batches per worker.  Does not change the result.

    Returns
    -------
    (labels, imbalance, restarts_done)
        As the sequential loop: canonical internal labels of the best restart.
    """
    p = {k: v for k, v in params.items() if k not in ("_level", "deadline")}
    p["wall_deadline"] = None if time_limit is None else time.time() + float(time_limit)
    iterations = int(iterations)
    batches = (WorkerBatches(iterations) if restarts_per_batch is None
               else RangeBatches(iterations, int(restarts_per_batch)))
    return run_batches(client, graph, restart_batch, batches, p,
                       fold=functools.partial(best_restart, record=record), progress=progress,
                       desc=f"{params.get('method', 'restart')} restarts")
