"""GRASP / ILS restarts and independent searches on Dask, the best one kept on the client.

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
``signed_communities`` spreads its searches the same way, each search its
restarts in a row (a restart starts from a kick of the search's best).
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
           "multilevel_search", "search_seed", "SEARCHES"]

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
    """Run the independent searches ``search_ids`` (on a worker).

    ``params["search"]`` is the search, ``search(graph, i, params, deadline)``
    (module-level, passed by reference so this module does not import its
    caller), given ``params`` with ``seed`` replaced by :func:`search_seed`.
    ``params["wall_deadline"]`` (a ``time.time()`` instant, or None) is the
    caller's deadline: each search gets it as this process's
    ``perf_counter`` deadline, and searches other than 0 that would start
    after it are skipped (``None``), as restarts are.

    Returns
    -------
    list
        Per search: what ``search`` returns (a dict with at least ``labels``,
        ``value``, lower is better, and ``cycles``), or None when skipped.
    """
    p = dict(params)
    wall = p.pop("wall_deadline", None)
    search = p.pop("search")
    out: list[dict | None] = []
    for i in search_ids:
        if i > 0 and wall is not None and time.time() > wall:
            out.append(None)
            continue
        deadline = None if wall is None else local_deadline(wall)
        out.append(search(graph, i, dict(p, seed=search_seed(p["seed"], i)), deadline))
    return out


def multilevel_search(graph: Any, i: int, params: dict, deadline: float | None) -> dict:
    """One multilevel search of ``correlation_clustering`` (:func:`search_batch`'s ``search``):
    ``labels``, ``value`` (imbalance), ``cycles`` and ``history`` (``(seconds from the
    search's start, cycle, imbalance)`` per improvement)."""
    p = dict(params)
    run, patience = p.pop("multilevel"), p.pop("patience")
    started = time.perf_counter()
    level = Level.of_graph(graph)
    hist: list[tuple[float, int, float]] = []
    lab, cycles = run(graph, level, dict(p, deadline=deadline, _level=level), patience, deadline,
                      False, lambda c, v: hist.append((time.perf_counter() - started, c, v)))
    return {"labels": lab, "value": float(hist[-1][2]) if hist else np.inf, "cycles": int(cycles),
            "history": hist}


def best_search(parts: list[list[dict | None]]) -> tuple[dict, int]:
    """The best of the searches (lowest ``value``, ties to the smallest search id), with
    ``searches``, how many ran, and the ``cycles`` of all of them."""
    best, cycles, ran = None, 0, 0
    for part in parts:  # batch order = search order
        for res in part:
            if res is None:
                continue
            cycles += res["cycles"]
            ran += 1
            if best is None or res["value"] < best["value"]:
                best = res
    return dict(best, searches=ran), cycles


def run_searches(client: Any, graph: Any, params: dict, search: Callable, *,
                 deadline: float | None = None, progress: bool = False,
                 desc: str = "searches", searches: int = SEARCHES) -> tuple[dict, int]:
    """Independent searches on a cluster, one task each; the best comes back.

    Parameters
    ----------
    client : distributed.Client
    graph : SignedGraph
    params : dict
        What every search gets (with its own ``seed``, :func:`search_seed`).
    search : callable
        ``search(graph, i, params, deadline) -> dict`` (module-level; see
        :func:`search_batch`).
    deadline : float, optional
        A ``time.perf_counter()`` instant of this process; every worker keeps it.
    progress : bool
        Progress bar over searches.
    desc : str
        Progress label and task-name prefix.
    searches : int
        Independent searches (search ids ``0 .. searches-1``).

    Returns
    -------
    (best, cycles)
        The best search's dict (lowest ``value``, ties to the smallest id;
        ``searches``: how many ran) and the ``cycles`` of all searches.
    """
    p = dict(params, search=search)
    p["wall_deadline"] = None if deadline is None else wall_deadline(deadline)
    return run_batches(client, graph, search_batch, RangeBatches(int(searches), 1), p,
                       fold=best_search, progress=progress, desc=desc,
                       until=p["wall_deadline"], spread=True)
