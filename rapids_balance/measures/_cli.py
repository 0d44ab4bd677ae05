"""``rapids-balance measures``: balance scores, signed triangles, signed degree and PN index of a file."""

from __future__ import annotations

import argparse
from typing import Any

from .._validation import check_number, check_seed, check_time_limit
from ..cli import (Run, add_backend_argument, add_input_arguments, add_output_arguments, add_plot_argument,
                   check_run_options, component_summary, report, draw_plot, float_arg, int_arg, write_table)

__all__ = ["register"]

TABLE_FORMATS = ("csv", "parquet")
KNOWN_FILES = ("scores.csv", *(f"{name}.{fmt}" for name in ("vertices", "edges", "triangle_types")
                               for fmt in TABLE_FORMATS))


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``measures`` sub-command."""
    p = subparsers.add_parser(
        "measures", help="balance scores (triangles, walks, frustration), signed degree, PN index",
        description="Balance measures of a signed graph, written to --out DIR: scores.csv (triangle, "
                    "walk and frustration scores on signnet's scale, 1 = balanced, with the raw "
                    "figures), triangle_types (counts of +++, ++-, +--, ---), vertices (triangles "
                    "through each vertex, balanced and unbalanced; signed degree; PN index), edges "
                    "(triangles through each edge), and run.json.")
    add_input_arguments(p)
    add_output_arguments(p, "output folder (created, with its parents, if needed)")
    p.add_argument("--beta", type=float_arg, default=1.0,
                   help="inverse temperature of the walk score (default 1, as signnet; small values "
                        "weigh short walks, large values the leading eigenvalues)")
    p.add_argument("--walk-method", choices=("auto", "exact", "slq"), default="auto",
                   help="walk score: exact (dense eigenvalues, small graphs), slq (stochastic Lanczos "
                        "quadrature with an error bar) or auto (default: exact up to 2,000 vertices)")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="seed of the walk probes and the frustration search (default 0)")
    p.add_argument("--no-frustration", dest="frustration", action="store_false",
                   help="skip the frustration scores (the costly part on large graphs)")
    p.add_argument("--time-limit", type=float_arg, default=None, metavar="SECONDS",
                   help="seconds for the frustration search (default: none)")
    p.add_argument("--table-format", choices=TABLE_FORMATS, default="csv",
                   help="format of the vertex, edge and triangle-type tables (parquet needs pyarrow)")
    add_backend_argument(p)
    add_plot_argument(p, "the triangle types and the per-vertex unbalanced-triangle distribution")
    p.add_argument("--quiet", action="store_true",
                   help="print only the result line: no per-score, component or file lines")
    p.set_defaults(func=_run)
    return p


def _check_options(args) -> None:
    """Every option, before the graph is loaded."""
    check_number(args.beta, "--beta", "measures", low=0.0, low_open=True)
    check_seed(args.seed, "measures", name="--seed")
    check_time_limit(args.time_limit, "measures", name="--time-limit")
    check_run_options(args)


def _run(args) -> int:
    from ._degree import pn_index, signed_degree
    from ._scores import balance_scores
    from .plot import triangle_picture

    _check_options(args)
    run = Run(args, out_dir=args.out, known=KNOWN_FILES, files={"--plot": args.plot})
    graph = run.load()
    with run.compute():
        scores = balance_scores(graph, beta=args.beta, walk_method=args.walk_method, seed=args.seed,
                                frustration=args.frustration, time_limit=args.time_limit,
                                backend=args.backend)
        vertices = scores.triangles.vertices.merge(signed_degree(graph), on="vertex")
        if graph.n >= 3:
            vertices = vertices.merge(pn_index(graph), on="vertex")
    fmt = args.table_format
    tables = {"scores.csv": scores.table, f"triangle_types.{fmt}": scores.triangles.counts,
              f"vertices.{fmt}": vertices, f"edges.{fmt}": scores.triangles.edges}
    with run.writing(tables):
        for name, frame in tables.items():
            write_table(frame, run.path(name))
        draw_plot(run, args, scores, picture=triangle_picture)
    run.finish(seed=args.seed, backend=scores.triangles.backend)
    print(f"{graph!r}: balance scores (1 = balanced): "
          + ", ".join(f"{row.measure} {row.score:.7f}" for row in scores.table.itertuples()))
    report(args, *(f"  {row.measure:<18} {row.score:.7f}   ({row.raw:g}: {row.raw_is})"
                   for row in scores.table.itertuples()), component_summary(graph))
    if not args.quiet:
        run.report_written()
    return 0
