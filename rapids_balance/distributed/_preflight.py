"""Before any work: can every worker import what its tasks need?

A worker that cannot import rapids-balance cannot unpickle a task or the
graph, and Dask retries the transfer forever (the call hangs, the scheduler's
log fills); so each call first asks every new worker what it imports, by a
function sent *by value*, and names each worker that cannot run the tasks.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from .._validation import param_error
from ._cluster import require_distributed, worker_addresses

__all__ = ["check_client", "check_client_arg", "check_workers", "WorkerEnvironmentError",
           "PROBE_TIMEOUT_S"]

#: seconds the workers get to answer
PROBE_TIMEOUT_S = 20.0

_PROBE_SOURCE = '''
def probe(names):
    import importlib, os, socket, sys
    found = {}
    for name in names:
        try:
            mod = importlib.import_module(name)
        except BaseException as exc:  # an import that fails in any way is the answer
            found[name] = (None, type(exc).__name__ + ": " + str(exc))
        else:
            found[name] = (str(getattr(mod, "__version__", "?")), None)
    return {"python": sys.executable, "host": socket.gethostname(), "pid": os.getpid(),
            "modules": found}
'''

# client -> worker addresses that answered well (each worker is asked once per client)
_CHECKED: "weakref.WeakKeyDictionary[Any, set]" = weakref.WeakKeyDictionary()


class WorkerEnvironmentError(RuntimeError):
    """A worker cannot import what the call needs (named, with what it lacks)."""


def _probe_function():
    """The probe, defined outside any module a worker imports (so pickled by value)."""
    namespace: dict[str, Any] = {"__name__": "rapids_balance_worker_probe"}
    exec(compile(_PROBE_SOURCE, "<rapids-balance worker probe>", "exec"), namespace)
    return namespace["probe"]


def _wanted(gpu: bool) -> dict[str, str]:
    """Module -> the version the workers must import (the client's)."""
    import numba

    from .. import __version__

    want = {"rapids_balance": __version__, "numba": numba.__version__}
    if gpu:
        try:
            import cupy

            want["cupy"] = cupy.__version__
        except ImportError:  # the client itself runs no GPU code: any CuPy will do
            want["cupy"] = ""
    return want


def _ask(client: Any, workers: list[str], names: list[str], timeout: float) -> dict[str, Any]:
    try:
        return client.run(_probe_function(), names, workers=workers, on_error="return",
                          callback_timeout=timeout)
    except (TimeoutError, asyncio.TimeoutError):
        raise WorkerEnvironmentError(
            f"the Dask workers {', '.join(workers)} did not say within {timeout:.0f} s whether they "
            "can import rapids-balance; check that they are running and reachable") from None


def check_workers(client: Any, owner: str, *, gpu: bool = False,
                  timeout: float = PROBE_TIMEOUT_S) -> None:
    """Raise :class:`WorkerEnvironmentError` naming every worker that cannot import
    rapids-balance at the client's version, numba (same minor release) or (``gpu``) CuPy;
    workers that answered well are not asked again."""
    addresses = worker_addresses(client)
    done = _CHECKED.setdefault(client, set())
    todo = [a for a in addresses if (a, gpu) not in done]
    if not todo:
        return
    want = _wanted(gpu)
    answers = _ask(client, todo, sorted(want), timeout)
    problems = []
    for address in todo:
        answer = answers.get(address)
        if answer is None:  # the worker left while asked: the scheduler will not use it
            continue
        if isinstance(answer, BaseException):
            problems.append(f"{address}: could not run the check ({type(answer).__name__}: {answer})")
            continue
        wrong = []
        for name, need in want.items():
            got, error = answer["modules"][name]
            if error is not None:
                wrong.append(f"cannot import {name} ({error})")
            elif need and (got != need if name == "rapids_balance"  # numba, CuPy: the minor release
                           else got.split(".")[:2] != need.split(".")[:2]):
                wrong.append(f"{name} {got}, the client has {need}")
        if wrong:
            problems.append(f"{address} (host {answer['host']}, pid {answer['pid']}, Python "
                            f"{answer['python']}): " + "; ".join(wrong))
        else:
            done.add((address, gpu))
    if problems:
        raise WorkerEnvironmentError(
            f"{owner}(client=...): {len(problems)} Dask worker(s) cannot run rapids-balance's tasks; "
            "install rapids-balance (the client's version) in every worker's environment:\n  "
            + "\n  ".join(problems))


def check_client(client: Any, owner: str = "run_batches") -> Any:
    """A ``client=`` argument of ``owner``: a running ``distributed.Client``."""
    distributed = require_distributed(f"{owner}(client=...)")
    if not isinstance(client, distributed.Client):
        raise param_error("client", owner, "a distributed.Client (from rapids_balance.start_cluster() "
                          "or distributed.Client(address)) or None", client)
    if client.status != "running":
        raise RuntimeError(f"the Dask client is not running (status {client.status!r})")
    return client


def check_client_arg(client: Any, owner: str, backend: str | None = None) -> None:
    """A public function's ``client=``, before its graph is loaded: None, or a running client
    with at least one worker, each passing :func:`check_workers`."""
    if client is None:
        return
    check_client(client, owner)
    # up front only: in the middle of a run a worker being replaced leaves none for a moment
    if not worker_addresses(client):
        # Dask's scatter would wait for its timeout (30 s), then fail with "No valid workers found"
        raise RuntimeError(f"{owner}(client=...): the Dask cluster has no workers; start some "
                           "(rapids_balance.start_cluster(n)) or wait for them first "
                           "(client.wait_for_workers(1))")
    check_workers(client, owner, gpu=backend == "gpu")
