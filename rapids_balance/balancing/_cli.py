"""``rapids-balance balance``: the main job, from an edge-list file to attribute tables."""

from __future__ import annotations

import argparse
import time
from typing import Any

from .._validation import check_seed
from .._compile_clock import CompileClock
from ..cli import (Run, add_backend_argument, add_input_arguments, add_output_arguments, add_plot_argument,
                   add_progress_arguments, check_count, check_run_options, component_summary, report, draw_plot,
                   int_arg, progress_option, write_table)
from ._engine import METHODS
from ._harary import MAJORITIES
from ._result import ATTRIBUTE_DEFINITIONS
from ._roots import SAMPLERS

__all__ = ["register"]

ROOT_CHOICES = ("degree", "graphbplus")
TABLE_FORMATS = ("csv", "parquet")
# every file a run may write in --out (an earlier run's among them needs --overwrite)
KNOWN_FILES = tuple(f"{name}.{fmt}" for name in ("vertices", "edges") for fmt in TABLE_FORMATS)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``balance`` sub-command."""
    p = subparsers.add_parser(
        "balance", help="nearest balanced states over many spanning trees: status, agreement, ...",
        description="Balance a signed graph over many BFS spanning trees (graphB+ / ECL-SGB) and write "
                    "vertex attributes (status, influence, authority) and edge attributes (in_tree, "
                    "negative, switched, agreement) to --out DIR, with run.json (command line, "
                    "parameters, input checksum, cleaning report, timings).  To reproduce graphB+ "
                    "v0.2's output file use --numbering graphbplus --roots graphbplus --seed 17 "
                    "--majority agreeable --graphbplus FILE.")
    add_input_arguments(p, weight="balance uses the edge signs only (edge weights would be ignored)")
    add_output_arguments(p, "output folder (created, with its parents, if needed)")
    p.add_argument("--trees", type=int_arg, default=1000, help="number of spanning trees (default 1000)")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="tree i uses seed + i (an int in [0, 2**63 - 1]; graphB+ uses 17)")
    p.add_argument("--sampler", choices=SAMPLERS, default="bfs",
                   help="bfs: roots in the --roots order (default); bfs-random-root: roots drawn "
                        "from the seed")
    p.add_argument("--roots", choices=ROOT_CHOICES, default="degree",
                   help="root order of --sampler bfs: degree: by descending degree (default); "
                        "graphbplus: graphB+ v0.2's root order")
    p.add_argument("--method", choices=METHODS, default="path-sign",
                   help="how each tree's balanced state is found: path-sign (ECL-SGB: signs of the "
                        "tree paths from the root, the default) or cycle (graphB+ Algorithm 4: walk "
                        "each fundamental cycle); both give the same states")
    p.add_argument("--majority", choices=MAJORITIES, default="larger",
                   help="which Harary side counts as the majority: larger (the side with more "
                        "vertices, the default) or agreeable (the side holding the largest "
                        "component of positive balanced edges: graphB+ v0.2's rule)")
    p.add_argument("--attributes", choices=ATTRIBUTE_DEFINITIONS, default="consensus",
                   help="definitions of influence and authority (see rapids_balance.balance's docstring)")
    p.add_argument("--table-format", choices=TABLE_FORMATS, default="csv",
                   help="output table format (parquet needs pyarrow)")
    p.add_argument("--graphbplus", metavar="FILE", help="also write graphB+ v0.2's output file")
    add_backend_argument(p)
    p.add_argument("--batch-size", type=int_arg, default=None, help="trees per kernel launch (default: "
                   "from free memory)")
    add_plot_argument(p, "vertex status against influence")
    add_progress_arguments(p)
    p.set_defaults(func=_run)
    return p


def _check_options(args) -> None:
    """Every option, before the graph is loaded."""
    check_count(args.trees, "--trees", "balance", low=1)
    check_seed(args.seed, "balance", name="--seed")
    check_count(args.batch_size, "--batch-size", "balance", low=1)
    if args.sampler != "bfs" and args.roots != "degree":
        raise ValueError(f"--roots {args.roots} applies to --sampler bfs only "
                         f"(--sampler {args.sampler} draws its roots from the seed)")
    check_run_options(args)


def _run(args) -> int:
    from ..backend import resolve_backend
    from ..datasets import load_example
    from ._engine import balance
    from ._roots import graphbplus_roots

    _check_options(args)
    run = Run(args, out_dir=args.out, known=KNOWN_FILES, files={"--graphbplus": args.graphbplus,
                                                                  "--plot": args.plot})
    graph = run.load()
    with run.compute():
        if resolve_backend(args.backend) == "gpu":
            # the CUDA driver's compiling is not in numba's events: a tiny run with the run's
            # options first, so that the trees' time below is the trees'
            balance(load_example("graphb-test-1a"), min(args.trees, 65), sampler=args.sampler,
                    method=args.method, majority=args.majority, attributes=args.attributes,
                    backend=args.backend, progress=False, batch_size=args.batch_size)
        roots = graphbplus_roots(graph, args.trees) if args.roots == "graphbplus" else None
        # the kernels this run reaches compile (or load from numba's cache) on their first call;
        # that time is measured from numba's events and taken out of the trees' time
        with CompileClock() as clock:
            start = time.perf_counter()
            res = balance(graph, args.trees, sampler=args.sampler, roots=roots, seed=args.seed,
                          method=args.method, majority=args.majority, attributes=args.attributes,
                          backend=args.backend, progress=progress_option(args), batch_size=args.batch_size)
            seconds = time.perf_counter() - start
        seconds -= clock.seconds
    tables = {f"{name}.{args.table_format}": frame for name, frame in (("vertices", res.vertices),
                                                                      ("edges", res.edges))}
    with run.writing(tables):
        for name, frame in tables.items():
            write_table(frame, run.path(name))
        if args.graphbplus:
            res.write_graphbplus(run.wrote(args.graphbplus))
        draw_plot(run, args, res)
    run.finish(seed=args.seed, backend=res.params["backend"])
    print(f"{graph!r}: {res.n_trees} trees in {seconds:.2f} s on {res.params['backend']} "
          f"({1000 * seconds / res.n_trees:.3f} ms/tree), mean frustration {res.frustration_mean:.2f}, "
          f"{res.tied_trees} tied trees{run.compile_note()}")
    report(args, component_summary(graph))
    if not args.quiet:
        run.report_written()
    return 0
