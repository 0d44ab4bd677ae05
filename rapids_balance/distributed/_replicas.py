"""Keep the broadcast copies of a scattered graph on every worker.

:func:`~._map.scatter_graph` broadcasts the graph so that each worker holds
it once for all its tasks and for later calls with the same graph.  Dask's
active memory manager (on by default, every 2 s) runs the
``ReduceReplicas`` policy, which drops every copy of a key beyond one
unless tasks are waiting for it: between two calls on the same graph it
deletes all but one broadcast copy, and the next call's tasks fetch the
graph again from that one worker: a full transfer for each worker that
lost its copy, whenever the memory manager ran between the two calls.

So each scattered graph gets a key that starts with :data:`GRAPH_KEY_PREFIX`,
and the scheduler's ``ReduceReplicas`` policies are wrapped once per
scheduler (:func:`protect_graph_replicas`) so that they make every
suggestion they made before except dropping a copy of such a key.  The
scheduler's other policies, the memory manager's schedule and every other
key are left alone; the graph's copies go, as before, when its future is
released (the graph object was garbage-collected).

Wrapping runs on the scheduler (``client.run_on_scheduler``), which must be
able to import rapids-balance.  Where it cannot, the call still runs and a
``RuntimeWarning`` says that the graph may be sent again, and how to stop
the memory manager instead.
"""

from __future__ import annotations

import uuid
import warnings
import weakref
from functools import lru_cache
from typing import Any

__all__ = ["GRAPH_KEY_PREFIX", "graph_key", "is_graph_key", "protect_graph_replicas"]

#: the Dask key of every scattered graph starts with this
GRAPH_KEY_PREFIX = "rapids-balance-graph-"

# schedulers already protected, by client (a client talks to one scheduler)
_PROTECTED: "weakref.WeakKeyDictionary[Any, bool]" = weakref.WeakKeyDictionary()


def graph_key() -> str:
    """A new, unique Dask key for a scattered graph."""
    return GRAPH_KEY_PREFIX + uuid.uuid4().hex


def is_graph_key(key: Any) -> bool:
    """True for a key made by :func:`graph_key`."""
    return isinstance(key, str) and key.startswith(GRAPH_KEY_PREFIX)


def protect_graph_replicas(client: Any) -> bool:
    """Make the scheduler of ``client`` keep every copy of a scattered graph.

    Once per client; returns True when the scheduler's policies are wrapped
    (or it has no memory manager), False (with a warning) when the scheduler
    could not run the wrapping.
    """
    done = _PROTECTED.get(client)
    if done is not None:
        return done
    try:
        client.run_on_scheduler(_wrap_reduce_replicas)
        ok = True
    except Exception as exc:  # a remote scheduler without rapids-balance, an old Dask
        ok = False
        warnings.warn(
            "rapids-balance could not ask the Dask scheduler to keep the copies of the graph it "
            f"broadcasts ({type(exc).__name__}: {exc}); Dask's active memory manager may drop "
            "them between calls, and the next call then sends the graph to those workers again. "
            "Install rapids-balance where the scheduler runs, or stop the memory manager "
            "(client.amm.stop(), or the dask config "
            "'distributed.scheduler.active-memory-manager.start: false').",
            RuntimeWarning, stacklevel=3)
    _PROTECTED[client] = ok
    return ok


def _wrap_reduce_replicas(dask_scheduler: Any = None) -> int:
    """On the scheduler: wrap each ``ReduceReplicas`` policy (not yet wrapped)
    in ``KeepGraphReplicas`` (:func:`_keep_graph_replicas_class`); returns how many were wrapped."""
    from distributed.active_memory_manager import ReduceReplicas

    amm = dask_scheduler.extensions.get("amm") if dask_scheduler is not None else None
    if amm is None:
        return 0
    wrapped = 0
    for policy in list(amm.policies):
        if isinstance(policy, ReduceReplicas):
            amm.policies.discard(policy)
            amm.add_policy(_keep_graph_replicas_class()(policy))
            wrapped += 1
    return wrapped


@lru_cache(maxsize=1)
def _keep_graph_replicas_class() -> type:
    """The wrapping policy class, made on first use (``distributed`` is optional)."""
    from distributed.active_memory_manager import ActiveMemoryManagerPolicy

    class KeepGraphReplicas(ActiveMemoryManagerPolicy):
        """Another policy's suggestions, less the drops of a scattered graph's copies."""

        __slots__ = ("inner",)

        def __init__(self, inner: Any):
            self.inner = inner

        def __repr__(self) -> str:
            return f"KeepGraphReplicas({self.inner!r})"

        def run(self):
            self.inner.manager = self.manager
            gen = self.inner.run()
            answer = None
            while True:
                try:
                    suggestion = gen.send(answer)
                except StopIteration:
                    return
                if suggestion.op == "drop" and is_graph_key(suggestion.ts.key):
                    answer = None
                    continue
                answer = yield suggestion

    return KeepGraphReplicas
