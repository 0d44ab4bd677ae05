"""``rapids-balance cluster``: correlation clustering of a signed graph file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..cli import add_backend_argument, add_input_arguments, load_input, write_table

__all__ = ["register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``cluster`` sub-command."""
    from ._solve import LOCAL_SEARCHES, METHODS

    p = subparsers.add_parser(
        "cluster", help="correlation clustering (minimise the imbalance I(P))",
        description="Partition a signed graph into clusters minimising the imbalance: negative "
                    "edges inside clusters plus positive edges between them (Levorato et al.'s "
                    "VND/GRASP/ILS, or the multilevel solver for large graphs).")
    add_input_arguments(p)
    p.add_argument("--method", choices=METHODS, default="ils", help="search method (default ils)")
    p.add_argument("--n-clusters", type=int, default=None, help="at most this many clusters")
    p.add_argument("--alpha", type=float, default=1.0, help="GRASP alpha in [0, 1] (default 1.0)")
    p.add_argument("--max-iterations", type=int, default=None,
                   help="restarts (grasp/ils) or stale V-cycles (multilevel)")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="stop starting new iterations after S seconds (results then depend on speed)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--local-search", choices=LOCAL_SEARCHES, default="auto",
                   help="VND flavour: best (paper), parallel rounds, or auto")
    p.add_argument("--perturbation", choices=("auto", "mixed", "vertex"), default="auto",
                   help="ILS kicks: vertex moves only (the paper), also cluster merges/splits, "
                        "or auto (by density)")
    p.add_argument("--plateau", choices=("auto", "on", "off"), default="auto",
                   help="ILS: keep perturbations that end at an equal imbalance (auto: on; "
                        "off: the paper)")
    p.add_argument("--merge-moves", choices=("auto", "on", "off"), default="auto",
                   help="ILS: VND also merges whole clusters (auto: on dense graphs; off: the paper)")
    add_backend_argument(p)
    p.add_argument("--out", metavar="FILE",
                   help="write vertex,cluster as CSV (.parquet: Parquet); default: summary only")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_run)
    return p


def _switch(value: str) -> bool | None:
    return None if value == "auto" else value == "on"


def _run(args) -> int:
    from ._solve import correlation_clustering

    graph = load_input(args)
    res = correlation_clustering(graph, method=args.method, n_clusters=args.n_clusters,
                                 alpha=args.alpha, max_iterations=args.max_iterations,
                                 time_limit=args.time_limit, seed=args.seed,
                                 local_search=args.local_search, perturbation=args.perturbation,
                                 plateau=_switch(args.plateau),
                                 merge_moves=_switch(args.merge_moves), backend=args.backend,
                                 progress=not args.quiet)
    if args.out:
        write_table(res.labels, args.out)
    if not args.quiet:
        p = res.parts
        print(f"graph: {graph.n:,} vertices, {graph.m:,} edges")
        print(f"method {res.method} (backend {res.backend}, seed {res.seed}): "
              f"{res.iterations} iterations in {res.elapsed_s:.2f} s")
        print(f"imbalance I(P) = {p.imbalance:g}  (negative inside {p.negative_inside:g}, "
              f"positive between {p.positive_between:g})")
        print(f"balance   B(P) = {p.balance:g} of {p.total_weight:g};  clusters: {p.n_clusters:,}")
        if args.out:
            print(f"written: {args.out}", file=sys.stderr)
    return 0
