"""GRASP / ILS restarts and multilevel searches on Dask, the best one kept on the client.

Each task runs a consecutive range of restart ids with ``_restart._restart``
(building the graph's level structure once per task, not once per restart)
and returns every restart's imbalance plus the labels of its own best one.
The client folds the batches in restart order and keeps the best imbalance,
ties going to the smallest restart id, which is exactly what the sequential
loop keeps; ``history`` lists the improvements in restart order, as the
sequential loop records them.  Which batches the cluster cuts does not
change that result, so it cuts its own (a few per worker).

The multilevel method is one search whose V-cycles depend on each other;
on a cluster it runs :data:`SEARCHES` independent searches instead, search
``i`` seeded by :func:`search_seed` (search 0 with the caller's seed, so it
is the single-process search), one per task, each keeping the caller's
deadline on its worker.  The best is the lowest imbalance, ties to the
smallest search id: without a time limit the result is the same for any
number of workers and never worse than the single-process call.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import numpy as np

from ..distributed._run import RangeBatches, WorkerBatches, local_deadline, run_batches, \
    wall_deadline
from ._restart import _restart
from ._state import Level

__all__ = ["run_restarts", "restart_batch", "best_restart", "run_searches", "search_batch",
           "search_seed", "SEARCHES"]

#: independent multilevel searches on a cluster: a constant, not the worker count, so the
#: result does not depend on the cluster's size (searches that would start after the
#: deadline are skipped, so a small cluster under a time limit runs the first few)
SEARCHES = 8


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
    p["deadline"] = None if wall is None else local_deadline(wall)
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


def search_seed(seed: int, search: int) -> int:
    """Seed of independent multilevel search ``search``: ``seed`` itself for search 0,
    else a draw of :class:`numpy.random.SeedSequence` ``([seed, search])`` (in ``[0, 2**63)``)."""
    if search == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), int(search)]).generate_state(1, np.uint64)[0] >> 1)


def search_batch(graph: Any, search_ids: range, params: dict) -> list[dict | None]:
    """Run the independent multilevel searches ``search_ids`` (on a worker).

    ``params["search"]`` is the single-process search (``_solve._run_multilevel``,
    passed by reference so this module does not import its caller).
    ``params["wall_deadline"]`` (a ``time.time()`` instant, or None) is the
    caller's deadline: each search keeps it as this process's
    ``perf_counter`` deadline, and searches other than 0 that would start
    after it are skipped (``None``), as restarts are.

    Returns
    -------
    list
        Per search: ``labels``, ``value``, ``cycles`` and ``history``
        (``(seconds from the search's start, cycle, imbalance)`` per
        improvement), or None when skipped.
    """
    p = dict(params)
    wall = p.pop("wall_deadline", None)
    patience = p.pop("patience")
    search = p.pop("search")
    level = Level.of_graph(graph)
    out: list[dict | None] = []
    for i in search_ids:
        if i > 0 and wall is not None and time.time() > wall:
            out.append(None)
            continue
        started = time.perf_counter()
        deadline = None if wall is None else local_deadline(wall)
        hist: list[tuple[float, int, float]] = []
        q = dict(p, seed=search_seed(p["seed"], i), deadline=deadline, _level=level)
        lab, cycles = search(graph, level, q, patience, deadline, False,
                                      lambda c, v: hist.append((time.perf_counter() - started, c, v)))
        out.append({"labels": lab, "value": float(hist[-1][2]) if hist else np.inf,
                    "cycles": int(cycles), "history": hist})
    return out


def best_search(parts: list[list[dict | None]]) -> tuple[dict, int]:
    """The best of the searches (lowest imbalance, ties to the smallest search id) and the
    V-cycles of all of them."""
    best, cycles = None, 0
    for part in parts:  # batch order = search order
        for res in part:
            if res is None:
                continue
            cycles += res["cycles"]
            if best is None or res["value"] < best["value"]:
                best = res
    return best, cycles


def run_searches(client: Any, graph: Any, params: dict, patience: int, search: Callable, *,
                 deadline: float | None = None, progress: bool = False,
                 record: Callable[[int, float], None] | None = None,
                 searches: int = SEARCHES) -> tuple[np.ndarray, int]:
    """The multilevel search of ``correlation_clustering`` on a cluster.

    Parameters
    ----------
    client : distributed.Client
    graph : SignedGraph
    params : dict
        The params dict the single-process search takes (its ``_level`` and
        ``deadline`` entries are rebuilt on the workers).
    patience : int
        Generations without a better best that end each search.
    search : callable
        The single-process search, ``search(graph, level, params, patience,
        deadline, progress, record) -> (labels, cycles)`` (module-level).
    deadline : float, optional
        A ``time.perf_counter()`` instant of this process; every worker keeps it.
    progress : bool
        Progress bar over searches.
    record : callable, optional
        ``record(cycle, imbalance)`` for each improvement of the best search.
    searches : int
        Independent searches (search ids ``0 .. searches-1``).

    Returns
    -------
    (labels, cycles)
        Canonical internal labels of the best search; V-cycles of all searches.
    """
    p = {k: v for k, v in params.items() if k not in ("_level", "deadline")}
    p["wall_deadline"] = None if deadline is None else wall_deadline(deadline)
    p["patience"] = int(patience)
    p["search"] = search
    best, cycles = run_batches(client, graph, search_batch, RangeBatches(int(searches), 1), p,
                               fold=best_search, progress=progress, desc="multilevel searches",
                               until=p["wall_deadline"], spread=True)
    if record is not None:
        for _, cyc, val in best["history"]:
            record(cyc, val)
    return best["labels"], cycles
