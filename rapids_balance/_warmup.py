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


def warmup(*, verbose: bool = False) -> dict[str, float]:
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

    Returns
    -------
    dict
        Seconds spent per capability (``balance``, ``frustration``,
        ``betweenness``, ``clustering``, ``generators``, ``measures``,
        ``significance``); near zero when the cache was already warm.

    Notes
    -----
    GPU kernels are compiled by the CUDA driver on their first launch and
    are not cached by this function.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> sorted(rb.warmup())                                   # doctest: +SKIP
    ['balance', 'betweenness', 'clustering', 'frustration', 'generators', 'measures', 'significance']
    """
    from ._validation import check_bool

    check_bool(verbose, "verbose", "warmup")
    timings = {}
    for name, job in _jobs():
        start = time.perf_counter()
        job()
        timings[name] = time.perf_counter() - start
        if verbose:
            print(f"{name}: {timings[name]:.1f} s", file=sys.stderr, flush=True)
    if verbose:
        where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the package's modules"
        print(f"kernels cached in {where}", file=sys.stderr)
    return timings


def _summary(timings: dict[str, float], clock: CompileClock) -> str:
    return (f"warmup: {sum(timings.values()):.1f} s ({clock.compile_s:.1f} s compiling kernels, "
            f"{clock.cache_load_s:.1f} s loading cached ones)")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``warmup`` sub-command."""
    p = subparsers.add_parser(
        "warmup", help="compile and cache every CPU kernel once (run after installing)",
        description="Compile every numba kernel once on a tiny bundled graph and cache the machine "
                    "code, so the first call of each command costs no compilation (about 140 s of "
                    "CPU time once, then seconds to load the cache).  The cache is __pycache__ "
                    "beside the installed modules, or NUMBA_CACHE_DIR when set (read-only installs, "
                    "Dask workers).")
    p.add_argument("--quiet", action="store_true", help="print only the total")
    p.set_defaults(func=_run)
    return p


def _run(args: argparse.Namespace) -> int:
    with CompileClock() as clock:
        timings = warmup(verbose=not args.quiet)
    print(_summary(timings, clock))
    return 0
