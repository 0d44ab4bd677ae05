"""Time every numba-cuda kernel launch of the GPU path, per workload.

For the GPU runbook (``tools/gpu_session.sh profile``): runs each capability
once with ``backend="gpu"`` and reports, per kernel, the launches, the device
time between CUDA events recorded around each launch, and the host time of
the launch call.  Host time well above device time is launch overhead (argument
handling, numba-cuda's synchronisation on CuPy arguments); the part of a
workload's wall time that no kernel accounts for is CuPy work and host code.

Device time excludes argument marshalling: CuPy arguments are wrapped as
numba device arrays (``cuda.as_cuda_array(..., sync=False)``) before the
start event is recorded, so the events bracket the kernel alone; the host
time includes the wrapping.

Every launch is followed by a synchronisation, so kernels that would overlap
are serialised: the table says where time goes, not how fast a run is (the
benchmarks say that).  Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``)
device times are not recorded (``null`` in the JSON); the script still lists
the launches, which is how the test suite checks it.

Usage::

    python3 tools/profile_gpu_kernels.py --graph ../shared/data/soc-sign-Slashdot090221.txt.gz \\
        --out gpu-out/profile.json
    python3 tools/profile_gpu_kernels.py --graph G.txt.gz --only balance betweenness --out-dir gpu-out
        # one file per workload (profile-balance.json, ...), each written when it is done
    python3 tools/profile_gpu_kernels.py --example highland --quick       # a smoke run
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import numpy as np

WORKLOADS = ("balance", "frustration", "betweenness", "clustering")


class _Timings:
    """Launch counts, device and host milliseconds per kernel name."""

    def __init__(self, cuda, simulated: bool):
        self.cuda = cuda
        self.simulated = simulated
        self.rows: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])

    def _wrapped(self, args):
        """Arguments with CuPy arrays already wrapped, so the events time the kernel, not the marshalling."""
        if self.simulated:
            return args
        return tuple(self.cuda.as_cuda_array(a, sync=False)
                     if type(a).__module__.startswith("cupy") else a for a in args)

    def timed(self, name: str, launch, stream=None):
        """``launch`` (a configured kernel) wrapped to record one row per call.

        The events are recorded on the launch's stream (CuPy's current one,
        see ``backend.Kernel``), so they bracket that kernel.
        """
        def call(*args):
            start, stop = self.cuda.event(), self.cuda.event()  # timing events (the default)
            t0 = time.perf_counter()
            args = self._wrapped(args)
            start.record(stream or 0)
            out = launch(*args)
            stop.record(stream or 0)
            stop.synchronize()
            host = (time.perf_counter() - t0) * 1e3
            row = self.rows[name]
            row[0] += 1
            row[1] += 0.0 if self.simulated else start.elapsed_time(stop)
            row[2] += host
            row[3] = max(row[3], host)
            return out
        return call

    def table(self) -> list[dict]:
        out = [{"kernel": k, "launches": int(r[0]),
                "device_ms": None if self.simulated else round(r[1], 3),
                "host_ms": round(r[2], 3), "max_host_ms": round(r[3], 3)}
               for k, r in self.rows.items()]
        return sorted(out, key=lambda r: -(r["device_ms"] or r["host_ms"]))


@contextmanager
def _timed_launches(timings: _Timings):
    """Route every kernel launch through ``timings`` (real numba-cuda or its simulator)."""
    if timings.simulated:
        from numba.cuda.simulator.kernel import FakeCUDAKernel as Kernel

        def name_of(k):
            return k.fn.__name__
    else:
        from numba.cuda.dispatcher import CUDADispatcher as Kernel

        def name_of(k):
            return k.py_func.__name__
    original = Kernel.__getitem__

    def getitem(self, config):
        stream = config[2] if isinstance(config, tuple) and len(config) > 2 else None
        return timings.timed(name_of(self), original(self, config), stream)

    Kernel.__getitem__ = getitem
    try:
        yield
    finally:
        Kernel.__getitem__ = original


def _load(args):
    import rapids_balance as rb

    if args.example:
        return rb.load_example(args.example), args.example
    return rb.read_edgelist(args.graph), Path(args.graph).name


def _workload(name: str, g, quick: bool):
    import rapids_balance as rb

    if name == "balance":
        return lambda: rb.balance(g, 8 if quick else 256, backend="gpu", progress=False)
    if name == "frustration":
        return lambda: rb.frustration(g, 4 if quick else 64, backend="gpu", progress=False,
                                      time_limit=5 if quick else 30)
    if name == "betweenness":
        # weighted, as the GPU target is: seeded lengths 1..10 per edge
        lengths = np.random.default_rng(0).integers(1, 11, g.m).astype(np.float64)
        return lambda: rb.node_and_edge_betweenness(g, k=4 if quick else 256, weight=lengths, seed=0,
                                                    backend="gpu", progress=False)
    if name == "clustering":
        return lambda: rb.correlation_clustering(g, method="vnd", backend="gpu", progress=False)
    raise ValueError(name)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--graph", help="edge-list file (any format read_edgelist takes)")
    src.add_argument("--example", help="a bundled example graph")
    p.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    p.add_argument("--quick", action="store_true", help="tiny settings (a smoke run)")
    p.add_argument("--out", help="write the tables as JSON here")
    p.add_argument("--out-dir", help="write profile-<workload>.json here as each workload ends")
    args = p.parse_args(argv)

    import rapids_balance as rb
    from rapids_balance.backend import cuda, simulator_enabled

    status = rb.gpu_status()
    if not status.usable:
        print(f"no usable GPU: {status.reason}", file=sys.stderr)
        return 2
    g, gname = _load(args)
    report = {"graph": gname, "vertices": int(g.n), "edges": int(g.m), "device": status.device,
              "simulated": simulator_enabled(), "workloads": {}}
    for name in args.only:
        run = _workload(name, g, args.quick)
        run()  # compile and warm up outside the timed run
        timings = _Timings(cuda(), simulator_enabled())
        with _timed_launches(timings):
            t0 = time.perf_counter()
            run()
            wall = (time.perf_counter() - t0) * 1e3
        rows = timings.table()
        kernel_ms = sum((r["device_ms"] if r["device_ms"] is not None else r["host_ms"]) for r in rows)
        report["workloads"][name] = {"wall_ms": round(wall, 3), "kernel_ms": round(kernel_ms, 3),
                                     "kernels": rows}
        if args.out_dir:
            one = {**report, "workloads": {name: report["workloads"][name]}}
            Path(args.out_dir).mkdir(parents=True, exist_ok=True)
            (Path(args.out_dir) / f"profile-{name}.json").write_text(json.dumps(one, indent=1))
        print(f"\n{name}: wall {wall:.1f} ms, in kernels {kernel_ms:.1f} ms")
        print(f"  {'kernel':32s} {'launches':>9s} {'device ms':>10s} {'host ms':>10s} {'max host':>9s}")
        for r in rows:
            dev = "-" if r["device_ms"] is None else f"{r['device_ms']:.2f}"
            print(f"  {r['kernel']:32s} {r['launches']:9d} {dev:>10s} {r['host_ms']:10.2f} "
                  f"{r['max_host_ms']:9.2f}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
