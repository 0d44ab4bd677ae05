"""Start the right local Dask cluster: one worker per GPU, or CPU worker processes.

The numba kernels every batch runs are multi-threaded, so a CPU worker runs
one task at a time and owns a share of the cores through numba's thread count
(two workers on two cores get one thread each, not two each to fight over).
"""

from __future__ import annotations

import os
from typing import Any

from .._validation import check_bool, check_int, param_error
from ..errors import BackendUnavailableError

__all__ = ["start_cluster", "NUMBA_THREADS_ENV", "gpu_cluster_available", "require_distributed"]

#: Environment variable a worker started by :func:`start_cluster` carries:
#: the numba thread count each batch task runs with (see ``_tasks.run_batch``).
NUMBA_THREADS_ENV = "RAPIDS_BALANCE_NUMBA_THREADS"

MAX_WORKERS = 2**16  # local workers / threads: far above any machine, far below an accident


def require_distributed(what: str):
    """The ``distributed`` module, or an ImportError saying how to install it."""
    try:
        import distributed
    except ImportError as exc:
        from ..errors import missing_extra

        raise missing_extra("distributed", what) from exc
    return distributed


def gpu_cluster_available() -> tuple[bool, str]:
    """(usable, reason): dask-cuda importable *and* a real (not simulated) GPU."""
    from ..backend import gpu_status

    status = gpu_status()
    if not status.usable or status.simulated:
        why = "the CUDA simulator is on" if status.simulated else status.reason
        return False, f"no usable GPU ({why})"
    try:
        import dask_cuda  # noqa: F401
    except ImportError:
        return False, ("dask-cuda is not installed (pip install dask-cuda, or "
                       "conda install -c rapidsai dask-cuda)")
    return True, f"dask-cuda and GPU {status.device}"


def start_cluster(n_workers: int | None = None, *, gpu: str | bool = "auto",
                  threads_per_worker: int | None = None, processes: bool = True,
                  numba_threads: int | None = None, dashboard_address: str | None = None,
                  host: str = "127.0.0.1", **kw: Any) -> Any:
    """Start a local Dask cluster suited to rapids-balance and return a client.

    With a usable GPU and dask-cuda installed, a ``dask_cuda.LocalCUDACluster``
    with one worker per GPU; otherwise a ``distributed.LocalCluster`` of CPU
    worker processes.  Pass the client as ``client=`` to any capability.

    Parameters
    ----------
    n_workers : int, optional
        Workers (>= 1); default one per visible GPU, or one per CPU core.
    gpu : {"auto", True, False}
        ``"auto"``: ``LocalCUDACluster`` when dask-cuda imports and
        :func:`rapids_balance.gpu_status` reports a real usable GPU; ``True``
        requires it; ``False`` always starts CPU workers.
    threads_per_worker : int, optional
        Dask task threads per worker; default 1, since each batch task is
        parallel inside (numba threads or a whole GPU).
    processes : bool
        CPU workers as processes (default) or as threads of this process
        (which share its numba thread pool: ``numba_threads`` does not apply).
    numba_threads : int, optional
        numba threads per CPU worker process; default ``max(1, cores //
        n_workers)``, so the workers together use each core once.  Set in
        ``NUMBA_NUM_THREADS`` and applied by every batch task.
    dashboard_address : str, optional
        Address of the Dask dashboard (e.g. ``"127.0.0.1:8787"``); ``None``
        (default) starts none, so several clusters can run side by side.
    host : str
        Interface the scheduler, the workers and their HTTP endpoints bind;
        default loopback only, ``"0.0.0.0"`` when other machines must join.
    **kw
        Passed on to ``LocalCUDACluster`` / ``LocalCluster``.

    Returns
    -------
    distributed.Client
        It owns the cluster: ``client.close()`` (or leaving ``with
        start_cluster() as client:``) shuts the cluster down too.

    Raises
    ------
    InvalidParameterError
        A bad parameter, before anything starts.
    BackendUnavailableError
        ``gpu=True`` without dask-cuda or a usable GPU.
    ImportError
        ``distributed`` is not installed (``pip install 'rapids-balance[dask]'``).

    Notes
    -----
    For a cluster that exists already (another machine, Kubernetes, SLURM),
    connect with ``distributed.Client("tcp://scheduler:8786")`` and pass that
    client; its workers need rapids-balance installed.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> client = rb.start_cluster(2, gpu=False)          # doctest: +SKIP
    >>> res = rb.balance(rb.load_example("bitcoin-alpha"), n_trees=1000,
    ...                  client=client)                   # doctest: +SKIP
    """
    _check_params(n_workers, gpu, threads_per_worker, processes, numba_threads, dashboard_address)
    if not isinstance(host, str) or not host:
        raise param_error("host", "start_cluster", "an interface address such as '127.0.0.1'", host)
    distributed = require_distributed("start_cluster")
    use_gpu = False
    if gpu is not False:
        use_gpu, reason = gpu_cluster_available()
        if gpu is True and not use_gpu:
            raise BackendUnavailableError(f"start_cluster(gpu=True): {reason}")
    tpw = 1 if threads_per_worker is None else int(threads_per_worker)
    if dashboard_address is None:
        # no dashboard (and no clash on port 8787 between clusters)
        kw["scheduler_kwargs"] = {"dashboard": False, **(kw.get("scheduler_kwargs") or {})}
        dashboard_address = f"{host}:0"  # the scheduler's HTTP endpoints still need a port
    if use_gpu:
        from dask_cuda import LocalCUDACluster

        if n_workers is not None:
            kw.setdefault("n_workers", int(n_workers))
        cluster = LocalCUDACluster(threads_per_worker=tpw, dashboard_address=dashboard_address,
                                   host=host, **kw)
    else:
        cores = os.cpu_count() or 1
        nw = cores if n_workers is None else int(n_workers)
        nt = max(1, cores // nw) if numba_threads is None else int(numba_threads)
        if processes:
            env = dict(kw.pop("env", None) or {})
            env.setdefault("NUMBA_NUM_THREADS", str(nt))
            env.setdefault(NUMBA_THREADS_ENV, str(nt))
            kw["env"] = env
            kw["host"] = host  # in-process workers talk in memory: no socket to bind
        # in-process workers (processes=False) share this process's numba pool:
        # numba_threads does not apply to them
        cluster = distributed.LocalCluster(n_workers=nw, threads_per_worker=tpw,
                                           processes=processes,
                                           dashboard_address=dashboard_address, **kw)
    try:
        return _client_owning(cluster)
    except Exception:
        cluster.close()
        raise


def _check_params(n_workers, gpu, threads_per_worker, processes, numba_threads,
                  dashboard_address) -> None:
    """Every parameter of :func:`start_cluster`, before a process is started."""
    owner = "start_cluster"
    if not (gpu == "auto" or isinstance(gpu, bool)):  # 1 == True: check the type, not ``in``
        raise param_error("gpu", owner, "one of {'auto', True, False}", gpu)
    check_int(n_workers, "n_workers", owner, low=1, high=MAX_WORKERS, allow_none=True)
    check_int(threads_per_worker, "threads_per_worker", owner, low=1, high=MAX_WORKERS, allow_none=True)
    check_bool(processes, "processes", owner)
    check_int(numba_threads, "numba_threads", owner, low=1, high=MAX_WORKERS, allow_none=True)
    if dashboard_address is not None and not isinstance(dashboard_address, str):
        raise param_error("dashboard_address", owner, "an address such as ':8787', or None",
                          dashboard_address)


def _client_owning(cluster):
    """A ``distributed.Client`` whose ``close()`` also shuts ``cluster`` down."""
    distributed = require_distributed("start_cluster")

    class Client(distributed.Client):
        def close(self, *args, **kwargs):
            try:
                return super().close(*args, **kwargs)
            finally:
                cluster.close()

    return Client(cluster)
