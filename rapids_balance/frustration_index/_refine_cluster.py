"""The refinement's V-cycles on a Dask cluster's workers.

:func:`~._refine.refine` runs each generation of its population search (the
first, a restart's perturbed copies, a round's children) as independent jobs
(:func:`~._refine.vcycle_job`) through a runner.  :class:`ClusterVCycles`
is the runner of a call with ``client=``: one task per V-cycle, through the
cluster's one door (:func:`~rapids_balance.distributed._run.run_batches`),
so each task carries the graph's small reference and its job (one or two
states of ``n`` int8), never the graph; every worker keeps the graph and
derives the finest level (int32 columns, slot signs) once per graph.
Answers come back in job order, so the search takes the same steps as on
threads and, while no deadline cuts it, returns the same state whatever the
number of workers.

Under a time limit the deadlines travel as wall-clock instants (the clock
the workers share); each task reads them on its own clock, so a V-cycle on
any worker stops where it would in one process, a task that starts after
the deadline returns at once, and no task is submitted after it (the first
V-cycle of a search that got none excepted).
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter

from .._deadline import NO_DEADLINE
from ..distributed._run import (local_deadline, run_batches, task_slots, wall_deadline,
                                worker_address)
from ._refine import RefineParams, level0_of, vcycle_job

__all__ = ["ClusterVCycles", "CLUSTER_REFINE_EDGES"]

#: below this many edges the V-cycles stay on the caller's threads: a V-cycle of a graph this
#: small takes a few milliseconds (about 4 ms at 6,000 edges on one core), no more than a
#: task's round trip through the scheduler, so the cluster cannot make the search faster
CLUSTER_REFINE_EDGES = 50_000

# id(graph) -> the finest level of its V-cycles, in this worker process
_LEVEL0: dict[int, tuple] = {}
_LOCK = threading.Lock()


def _level0(graph) -> tuple:
    """The graph's finest level, made once per graph and process (a pass and a copy of the
    columns: too much to repeat for every V-cycle of a large graph)."""
    with _LOCK:
        got = _LEVEL0.get(id(graph))
        if got is None:
            got = level0_of(graph)
            try:
                weakref.finalize(graph, _LEVEL0.pop, id(graph), None)
            except TypeError:  # not weak-referenceable: made again for the next task
                return got
            _LEVEL0[id(graph)] = got
        return got


def _vcycle_task(graph, job: tuple, args: tuple):
    """One V-cycle on a worker: :func:`~._refine.vcycle_job` with the deadlines read on this
    worker's clock; its answer and the worker's address (None: skipped)."""
    params, wall, wall_hard = args
    out = vcycle_job(_level0(graph), job, params, local_deadline(wall), local_deadline(wall_hard))
    return None if out is None else (out[0], out[1], worker_address())


class ClusterVCycles:
    """A runner of :func:`~._refine.refine`'s jobs on ``client``'s workers (module docstring).

    ``slots`` is the cluster's task threads; ``workers`` counts the V-cycles
    each worker ran, ``tasks`` the tasks submitted.
    """

    where = "workers"

    def __init__(self, client, graph, params: RefineParams, deadline: float = NO_DEADLINE,
                 hard: float = NO_DEADLINE):
        self.client = client
        self.graph = graph
        self.slots = task_slots(client)
        self._args = (params, wall_deadline(deadline), wall_deadline(hard))
        self._until = None if deadline == NO_DEADLINE else self._args[1]
        self.workers: Counter = Counter()
        self.tasks = 0

    def map(self, jobs: list) -> list:
        if not jobs:
            return []
        late = len(jobs) == 1 and jobs[0][4]  # the one V-cycle a search makes past its deadline
        got = run_batches(self.client, self.graph, _vcycle_task, jobs, self._args, fold=list,
                          desc="refine-vcycle", spread=True,
                          until=None if late else self._until)
        self.tasks += len(got)
        out = []
        for answer in got:  # a prefix of the jobs: those submitted before the deadline
            if answer is None:
                out.append(None)
                continue
            cost, x, where = answer
            self.workers[where or "?"] += 1
            out.append((cost, x))
        return out + [None] * (len(jobs) - len(got))

    def close(self) -> None:
        pass
