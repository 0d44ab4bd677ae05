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

__all__ = ["start_cluster", "NUMBA_THREADS_ENV", "gpu_cluster_available", "require_distributed",
           "worker_addresses"]

#: the numba thread count of each task on a worker started by :func:`start_cluster`
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


def worker_addresses(client: Any) -> list[str]:
    """Every worker's address, sorted.  ``client.nthreads()`` lists them all in every release;
    ``client.scheduler_info()["workers"]`` held only the first five from dask/distributed#9045
    until #9308 (2026.7)."""
    return sorted(client.nthreads())


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
    """Start a local Dask cluster suited to rapids-balance and return a client of it.

    A ``dask_cuda.LocalCUDACluster`` with one worker per GPU when dask-cuda
    imports and a real GPU is usable, else a ``distributed.LocalCluster`` of
    CPU worker processes.  For a cluster that exists already, pass
    ``distributed.Client("tcp://scheduler:8786")`` instead (its workers need
    rapids-balance installed).

    Parameters
    ----------
    n_workers : int, optional
        Default: one per visible GPU, or one per CPU core.
    gpu : {"auto", True, False}
        ``True`` requires a GPU cluster, ``False`` starts CPU workers.
    threads_per_worker : int, optional
        Dask task threads per worker; default 1 (each task is parallel inside).
    processes : bool
        CPU workers as processes (default) or as threads of this process
        (sharing its numba thread pool: ``numba_threads`` does not apply).
    numba_threads : int, optional
        numba threads per CPU worker process; default ``cores // n_workers``
        (at least 1), so the workers together use each core once.
    dashboard_address : str, optional
        Dask dashboard address; default none, so clusters can run side by side.
    host : str
        Interface every server binds: loopback by default, ``"0.0.0.0"`` only
        when other machines must join.
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

    Examples
    --------
    >>> import rapids_balance as rb
    >>> client = rb.start_cluster(2, gpu=False)                      # doctest: +SKIP
    >>> res = rb.balance(rb.load_example("bitcoin-alpha"), client=client)  # doctest: +SKIP
    """
    _check_params(n_workers, gpu, threads_per_worker, processes, numba_threads, dashboard_address,
                  host)
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
        if processes:  # (threads of this process share its numba pool: nothing to set)
            kw["env"] = {"NUMBA_NUM_THREADS": str(nt), NUMBA_THREADS_ENV: str(nt),
                         **(kw.get("env") or {})}
            kw["host"] = host  # in-process workers talk in memory: no socket to bind
        cluster = distributed.LocalCluster(n_workers=nw, threads_per_worker=tpw,
                                           processes=processes,
                                           dashboard_address=dashboard_address, **kw)
    try:
        return _client_owning(cluster)
    except Exception:
        cluster.close()
        raise


def _check_params(n_workers, gpu, threads_per_worker, processes, numba_threads,
                  dashboard_address, host) -> None:
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
    if not isinstance(host, str) or not host:
        raise param_error("host", owner, "an interface address such as '127.0.0.1'", host)


def _client_owning(cluster):
    """A ``distributed.Client`` whose ``close()`` also shuts ``cluster`` down."""
    distributed = require_distributed("start_cluster")

    class Client(distributed.Client):
        def close(self, *args, **kwargs):
            try:
                if self.status == "running":  # its cluster stops next: what was published for
                    for name in self.list_datasets():  # workers joining later goes first
                        self.unpublish_dataset(name)
                return super().close(*args, **kwargs)
            finally:
                cluster.close()

    return Client(cluster)
