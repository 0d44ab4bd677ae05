"""``rapids-balance balance``: the main job, from an edge-list file to attribute tables."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from ..cli import add_backend_argument, add_input_arguments, load_input, write_table
from ._engine import METHODS
from ._harary import MAJORITIES
from ._result import ATTRIBUTE_DEFINITIONS
from ._trees import SAMPLERS

__all__ = ["register"]

ROOT_CHOICES = ("degree", "graphbplus")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``balance`` sub-command."""
    p = subparsers.add_parser(
        "balance", help="nearest balanced states over many spanning trees: status, agreement, ...",
        description="Balance a signed graph over many BFS spanning trees (graphB+ / ECL-SGB) and write "
                    "vertex attributes (status, influence, authority) and edge attributes (in_tree, "
                    "negative, switched, agreement).  To reproduce graphB+ v0.2's output file use "
                    "--numbering graphbplus --roots graphbplus --seed 17 --majority agreeable "
                    "--graphbplus FILE.")
    add_input_arguments(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    p.add_argument("--trees", type=int, default=1000, help="number of spanning trees (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="tree i uses seed + i (graphB+ uses 17)")
    p.add_argument("--sampler", choices=SAMPLERS, default="bfs",
                   help="bfs: roots in the --roots order (default); bfs-random-root: roots drawn "
                        "from the seed")
    p.add_argument("--roots", choices=ROOT_CHOICES, default="degree",
                   help="root order of --sampler bfs: degree: by descending degree (default); "
                        "graphbplus: graphB+ v0.2's root order")
    p.add_argument("--method", choices=METHODS, default="path-sign")
    p.add_argument("--majority", choices=MAJORITIES, default="larger")
    p.add_argument("--attributes", choices=ATTRIBUTE_DEFINITIONS, default="consensus",
                   help="definitions of influence and authority (see rapids_balance.balance's docstring)")
    p.add_argument("--table-format", choices=("csv", "parquet"), default="csv", help="output table format")
    p.add_argument("--graphbplus", metavar="FILE", help="also write graphB+ v0.2's output file")
    add_backend_argument(p)
    p.add_argument("--batch-size", type=int, default=None, help="trees per kernel launch (default: "
                   "from free memory)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_run)
    return p


def _run(args) -> int:
    from ._engine import balance
    from ._trees import graphbplus_roots

    if args.trees < 1:
        raise ValueError(f"--trees must be positive, got {args.trees}")
    graph = load_input(args)
    if args.sampler != "bfs" and args.roots != "degree":
        raise ValueError(f"--roots {args.roots} applies to --sampler bfs only")
    roots = graphbplus_roots(graph, args.trees) if args.roots == "graphbplus" else None
    sampler = args.sampler
    start = time.perf_counter()
    res = balance(graph, args.trees, sampler=sampler, roots=roots, seed=args.seed, method=args.method,
                  majority=args.majority, attributes=args.attributes, backend=args.backend,
                  progress=not args.quiet, batch_size=args.batch_size)
    elapsed = time.perf_counter() - start
    os.makedirs(args.out, exist_ok=True)
    written = []
    for name, frame in (("vertices", res.vertices), ("edges", res.edges)):
        path = os.path.join(args.out, f"{name}.{args.table_format}")
        write_table(frame, path)
        written.append(path)
    if args.graphbplus:
        res.write_graphbplus(args.graphbplus)
        written.append(args.graphbplus)
    if not args.quiet:
        print(f"{graph!r}: {res.n_trees} trees in {elapsed:.2f} s on {res.params['backend']} "
              f"({1000 * elapsed / res.n_trees:.3f} ms/tree), mean frustration {res.frustration_mean:.2f}, "
              f"{res.tied_trees} tied trees")
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
    return 0
