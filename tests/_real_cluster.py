"""A Dask cluster started the way operators start one: separate OS processes on loopback.

Loopback means every socket: the scheduler's, the workers' and nannies', and
their HTTP endpoints (which listen even with ``--no-dashboard``).

``dask scheduler`` and ``dask worker`` (each worker under its nanny, one task
thread, one numba thread) are started with the ``dask`` command line of this
Python, bound to 127.0.0.1 only, with ports chosen by the OS (the scheduler
writes its address to a scheduler file).  Every worker finds this checkout
first on ``PYTHONPATH`` and shares the test process's numba cache (the
``__pycache__`` beside the modules, or ``NUMBA_CACHE_DIR`` where that is
set), as the workers of one deployment would: kernels the tests compiled
before are loaded, not compiled again in every worker.

The processes are started in their own process group and stopped by their
ids when the cluster is closed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker_env(**extra: str) -> dict[str, str]:
    """The environment of a worker process: this checkout first on the path, one numba thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(NUMBA_NUM_THREADS="1",
               RAPIDS_BALANCE_NUMBA_THREADS="1", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


class RealCluster:
    """A scheduler and ``n_workers`` worker processes on 127.0.0.1, and a client of them."""

    def __init__(self, n_workers: int, *, start_timeout: float = 120.0):
        self.folder = Path(tempfile.mkdtemp(prefix="rb-cluster-"))
        self.scheduler_file = self.folder / "scheduler.json"
        self.procs: list[subprocess.Popen] = []
        self.client = None
        try:
            self._spawn("scheduler", [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                                      "--port", "0", "--no-dashboard",
                                      "--dashboard-address", "127.0.0.1:0", "--scheduler-file",
                                      str(self.scheduler_file)], worker_env())
            deadline = time.monotonic() + start_timeout
            while not self.scheduler_file.exists():
                self._check_alive()
                if time.monotonic() > deadline:
                    raise RuntimeError("the dask scheduler wrote no scheduler file in time")
                time.sleep(0.1)
            for i in range(n_workers):
                self.add_worker(f"w{i}")
            from distributed import Client

            self.client = Client(self.address, timeout=start_timeout)
            self.client.wait_for_workers(n_workers, timeout=start_timeout)
        except BaseException:
            self.close()
            raise

    @property
    def address(self) -> str:
        for _ in range(50):  # the file may be mid-write
            try:
                return json.loads(self.scheduler_file.read_text())["address"]
            except (ValueError, KeyError):
                time.sleep(0.1)
        raise RuntimeError("unreadable scheduler file")

    def add_worker(self, name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start one more ``dask worker`` process (under its nanny) with ``env``."""
        return self._spawn(name, [sys.executable, "-m", "dask", "worker", "--scheduler-file",
                                  str(self.scheduler_file), "--host", "127.0.0.1", "--nthreads", "1",
                                  "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--name", name, "--memory-limit", "0",
                                  "--local-directory", str(self.folder / name)],
                           env or worker_env())

    def _spawn(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.folder)
        log.close()
        proc.name = name  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    def _check_alive(self) -> None:
        for p in self.procs:
            if p.poll() is not None:
                log = (self.folder / f"{p.name}.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"dask {p.name} exited ({p.returncode}):\n{log}")

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def stop(self, proc: subprocess.Popen, timeout: float = 20.0) -> None:
        """Stop one process we started (and its group: a nanny's worker), by its id."""
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.close(timeout=10)
            except Exception:
                pass
        for p in reversed(self.procs):  # workers before the scheduler
            self.stop(p)
        shutil.rmtree(self.folder, ignore_errors=True)


def count_writes(dask_scheduler=None, dask_worker=None) -> int:
    """Bytes this process has written to Dask's TCP comms since the first call (which
    installs the count): run it in the client, on the scheduler (``run_on_scheduler``)
    or on the workers (``client.run``), before and after a call, and subtract."""
    from distributed.comm import tcp

    cls = tcp.TCP
    if not cls.__dict__.get("_rb_counting", False):
        original = cls.write

        async def write(self, msg, serializers=None, on_error="message"):
            n = await original(self, msg, serializers=serializers, on_error=on_error)
            cls._rb_bytes += n
            return n

        cls.write = write
        cls._rb_counting = True
        cls._rb_bytes = 0
    return cls._rb_bytes


def wire_bytes(client) -> dict[str, int]:
    """Bytes written so far by the client, the scheduler and each worker (see :func:`count_writes`)."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    out = {"client": count_writes(), "scheduler": client.run_on_scheduler(count_writes)}
    out.update(client.run(count_writes))
    return out
