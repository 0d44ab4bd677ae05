"""Compile every CPU kernel once, so that later first calls load them from numba's cache.

numba compiles a kernel the first time it is called with a new type
signature and, with ``cache=True`` (every kernel of this package), writes the
machine code to a cache directory: ``__pycache__`` next to the module, or
``NUMBA_CACHE_DIR`` where that is set (needed for read-only installs and for
Dask workers that should share one cache).  Without a warm cache each
command's first call spends seconds compiling.  :func:`warmup` runs every
capability once on a tiny bundled graph, through the same code paths (and so
the same type signatures) as real inputs, which fills the cache.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from ._compile_clock import CompileClock

__all__ = ["warmup", "register"]

#: a cold warmup as measured (benchmarks/bench_first_call.py), quoted by ``warmup --help``
MEASURED = ("a cold run measured 89 s wall, compiling included, on a quiet 2-core machine, "
            "2026-11-29")


def _jobs() -> list[tuple[str, Callable[[], object]]]:
    import numpy as np

    import rapids_balance as rb

    signed = rb.load_example("highland")
    table = signed.edges_frame()
    # a weighted, unsigned graph for betweenness (lengths |sign| + vertex-dependent part)
    weighted = table.assign(weight=1.0 + (table["src"].to_numpy() % 3)).drop(columns="sign")
    # non-integer lengths take the radix-heap queue, integer ones Dial's buckets
    fractional = weighted.assign(weight=weighted["weight"] + 0.5)
    sources = np.asarray(signed.labels[:4])

    def balance():
        # 65 trees: one full block of 64 (the block kernels) and a lone last tree (the per-tree ones)
        rb.balance(signed, n_trees=65, seed=0, backend="cpu", progress=False)
        rb.balance(signed, n_trees=4, seed=0, sampler="bfs-random-root", backend="cpu", progress=False)

    def frustration():
        res = rb.frustration(signed, n_trees=4, seed=0, backend="cpu", progress=False)
        rb.frustration_lower_bound(signed, res.best_state)

    def betweenness():
        for w in ("weight", None):
            rb.betweenness_centrality(weighted, weight=w, backend="cpu", progress=False)
            rb.edge_betweenness_centrality(weighted, weight=w, backend="cpu", progress=False)
        rb.betweenness_centrality(weighted, k=sources.size, seed=0, weight="weight", backend="cpu",
                                  progress=False)
        rb.betweenness_centrality(fractional, weight="weight", backend="cpu", progress=False)
        rb.edge_betweenness_centrality(fractional, weight="weight", backend="cpu", progress=False)

    def clustering():
        from .clustering._solve import METHODS

        for method in METHODS:
            res = rb.correlation_clustering(signed, method=method, seed=0, max_iterations=4,
                                            backend="cpu", progress=False)
        rb.imbalance(signed, res.labels)
        rb.clustering_lower_bound(signed, res.labels, method="packing")  # the compiled part
        for objective in ("modularity", "potts", "imbalance"):  # signed communities
            rb.signed_communities(signed, objective=objective, seed=0)

    def significance():
        for null in ("shuffle", "swap"):
            rb.significance(signed, "triangles", null, n_samples=2, backend="cpu", progress=False)

    def generators():
        rb.powerlaw_signed_graph(2000, weights="uniform", seed=0)
        rb.planted_partition_graph(2000, n_groups=3, seed=0)
        rb.ssbm(500, 3, 0.05, seed=0)
        rb.polarized_ssbm(500, 2, 100, 0.05, seed=0)

    def measures():
        from .measures import census_of_triangles, list_triangles, triangle_census

        rb.signed_triangles(signed, backend="cpu")
        rb.signed_triangles(table.assign(weight=1.0 + (table["src"].to_numpy() % 3)), backend="cpu")
        census_of_triangles(list_triangles(signed.edge_src, signed.edge_dst, signed.n), signed.sign)
        triangle_census(signed.edge_src, signed.edge_dst, signed.sign, signed.n)

    return [("balance", balance), ("frustration", frustration), ("betweenness", betweenness),
            ("clustering", clustering), ("generators", generators), ("measures", measures),
            ("significance", significance)]


#: the jobs by their compile time on an empty cache (longest first: with fewer processes than
#: jobs, the long ones start first and the short ones fill in)
_ORDER = ("clustering", "frustration", "measures", "betweenness", "balance", "significance", "generators")


def _job_by_name(name: str) -> tuple[float, float, float]:
    """Run one capability's job in this process (a worker process's task): its seconds, and
    numba's seconds compiling and loading cached kernels in them."""
    from ._numba_cache import lock_cache_writes
    from ._ready import no_sides

    lock_cache_writes()  # other processes save kernels beside this one
    start = time.perf_counter()
    # the capabilities compile side by side already (or in one process, as asked): no
    # search's side process on top of them
    with CompileClock() as clock, no_sides():
        dict(_jobs())[name]()
    return time.perf_counter() - start, clock.compile_s, clock.cache_load_s


def warmup(*, verbose: bool = False, processes: int | None = None) -> dict[str, float]:
    """Compile and cache every CPU kernel of the package once.

    Run it after installing (or while building a container image) so that the
    first call of each command costs no compilation.  The cache lives in
    ``__pycache__`` beside the installed modules, or in ``NUMBA_CACHE_DIR``
    when that environment variable is set (use it for read-only installs,
    and point Dask workers at the same directory).

    Parameters
    ----------
    verbose : bool, default False
        Print one line per capability with the seconds it took (on stderr).
    processes : int, optional
        Worker processes compiling capabilities side by side (numba compiles
        one kernel at a time per process; its cache on disk is shared).
        Default: the CPUs this process may run on; 1 compiles in this
        process, one capability after another.

    Returns
    -------
    dict
        Seconds spent per capability (``balance``, ``frustration``,
        ``betweenness``, ``clustering``, ``generators``, ``measures``,
        ``significance``), each in the process that ran it; near zero when
        the cache was already warm.  With several processes they overlap:
        the wall time is less than their sum.

    Notes
    -----
    GPU kernels are compiled by the CUDA driver on their first launch and
    are not cached by this function.  Two processes may compile a kernel
    that two capabilities share; the cache keeps one copy.  numba's own
    cache writes are not safe beside another process's, so the processes
    save under a file lock in the cache folder; where no lock can be taken
    (no ``fcntl``), the capabilities compile in one process.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> sorted(rb.warmup())                                   # doctest: +SKIP
    ['balance', 'betweenness', 'clustering', 'frustration', 'generators', 'measures', 'significance']
    """
    return _warmup(verbose, processes)["seconds"]


def _warmup(verbose: bool, processes: int | None) -> dict[str, Any]:
    """:func:`warmup`'s work: per capability seconds, numba's compiling and cache-load seconds
    summed over the processes, the wall time and the process count."""
    from ._validation import check_bool, check_int

    check_bool(verbose, "verbose", "warmup")
    if processes is not None:
        processes = check_int(processes, "processes", "warmup", low=1)
    from ._numba_cache import lock_cache_writes
    from ._ready import affinity_cpus

    processes = min(len(_ORDER), processes or affinity_cpus())
    if not lock_cache_writes():  # processes would race on numba's cache index: one at a time
        processes = 1
    timings: dict[str, float] = {}
    clock = {"compile_s": 0.0, "cache_load_s": 0.0}
    wall = time.perf_counter()

    def done(name: str, seconds: float, compile_s: float, cache_load_s: float) -> None:
        timings[name] = seconds
        clock["compile_s"] += compile_s
        clock["cache_load_s"] += cache_load_s
        if verbose:
            print(f"{name}: {seconds:.1f} s", file=sys.stderr, flush=True)

    if processes == 1:
        for name in _ORDER:
            done(name, *_job_by_name(name))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn: a fresh interpreter per worker (no inherited threads or numba state)
        with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_job_by_name, name): name for name in _ORDER}
            for f in as_completed(futures):
                done(futures[f], *f.result())
    if verbose:
        where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the package's modules"
        print(f"kernels cached in {where}", file=sys.stderr)
    return {"seconds": {name: timings[name] for name in sorted(timings)}, **clock,
            "wall_s": time.perf_counter() - wall, "processes": processes}


def _summary(done: dict[str, Any]) -> str:
    k = done["processes"]
    where = "in this process" if k == 1 else f"summed over {k} processes side by side"
    return (f"warmup: {done['wall_s']:.1f} s wall, compiling included ({done['compile_s']:.1f} s "
            f"compiling kernels and {done['cache_load_s']:.1f} s loading cached ones, {where})")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``warmup`` sub-command."""
    p = subparsers.add_parser(
        "warmup", help="compile and cache every CPU kernel once (run after installing)",
        description="Compile every numba kernel once on a tiny bundled graph and cache the machine "
                    f"code, so the first call of each command costs no compilation ({MEASURED}; "
                    "then seconds to load the cache).  Capabilities compile side by side in "
                    "--processes worker processes.  The cache is __pycache__ beside the installed "
                    "modules, or NUMBA_CACHE_DIR when set (read-only installs, Dask workers).")
    p.add_argument("--processes", type=int, default=None,
                   help="worker processes compiling side by side (default: the CPUs this process "
                        "may use; 1: in this process)")
    p.add_argument("--quiet", action="store_true", help="print only the total")
    p.set_defaults(func=_run)
    return p


def _run(args: argparse.Namespace) -> int:
    print(_summary(_warmup(not args.quiet, args.processes)))
    return 0
