"""``rapids-balance betweenness``: weighted node or edge betweenness of a file."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

import numpy as np

from .._validation import check_seed
from ..cli import (Run, add_backend_argument, add_input_arguments, add_output_arguments, add_plot_argument,
                   add_progress_arguments, check_count, check_run_options, column_arg, component_summary, report,
                   draw_plot, if_given, int_arg, progress_option, require_table_writer, write_table)

__all__ = ["register"]

# the component rule of this command differs from the others: said in its summary
COMPONENT_DEFAULT = "all"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``betweenness`` sub-command."""
    p = subparsers.add_parser(
        "betweenness", help="weighted node or edge betweenness centrality of an edge list",
        description="Exact or sampled shortest-path betweenness with edge weights as lengths "
                    "(networkx semantics and normalisation). Writes CSV (or Parquet for a .parquet "
                    "OUT) with columns vertex,betweenness_centrality or src,dst,betweenness_centrality, "
                    "and OUT.run.json beside it (command line, parameters, seed, input checksum, "
                    "cleaning report, timings).  Every component is kept by default (--component all): "
                    "vertices in different components are joined by no path.")
    add_input_arguments(p, cleaning=False, component_default=COMPONENT_DEFAULT, weight=False)
    add_output_arguments(p, "output file (.csv or .parquet; its directory must exist)", metavar="FILE")
    p.add_argument("--edges", action="store_true", help="edge betweenness instead of vertex betweenness")
    p.add_argument("--k", type=int_arg, default=None, metavar="K",
                   help="sample K source vertices (default: every vertex, exact)")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="seed of the source sample with --k (an int in [0, 2**63 - 1]; default 0, as "
                        "for every command)")
    p.add_argument("--weight", default="auto", metavar="auto|COL|abs|none",
                   help="edge lengths: auto (default: the file's value column when all its values "
                        "are positive; unweighted for a column of signs -1/+1 or of ratings; an error "
                        "naming the row for lengths with a value <= 0; the summary and run.json say "
                        "which), a column (name or 0-based position), 'abs' for the absolute value "
                        "of the value column (e.g. |rating|), or 'none' for unweighted")
    p.add_argument("--directed", action="store_true", help="treat (u, v) and (v, u) as different arcs")
    p.add_argument("--no-normalize", dest="normalized", action="store_false",
                   help="raw pair counts (undirected graphs count each pair once)")
    p.add_argument("--endpoints", action="store_true", help="count path end vertices (vertex scores)")
    add_backend_argument(p)
    add_plot_argument(p, "the distribution of the scores (CCDF, log-log)")
    add_progress_arguments(p)
    p.set_defaults(func=_run)
    return p


def _weights(spec: str) -> tuple[Any, str | None]:
    """(read_edgelist's weight column, betweenness's weight) for --weight auto|COL|abs|none."""
    low = spec.lower()
    if low == "none":
        return None, None
    if low == "abs":
        return None, "abs"
    return (None if low == "auto" else column_arg(spec)), "weight"


#: header names of a value column that holds ratings or votes, not lengths
_RATING_NAMES = ("sign", "signs", "polarity", "vote", "votes", "rating", "ratings", "trust")


def _auto_lengths(graph, spec: str, args: Any = None) -> tuple[str | None, str]:
    """betweenness's ``weight`` for the loaded graph, and the summary's words for it.

    ``--weight auto`` takes the value column as lengths when every value is
    positive.  A column of signs (every value -1, 0 or +1, some -1) or one
    named as ratings (``rating``, ``vote``, ..., or the Bitcoin format's) is
    no length: unweighted, and said.  Any other column with a value <= 0 is
    a column of lengths with a bad value, refused with its row: falling back
    to unweighted there would change the answer because of one unrelated
    entry.  The choice is printed and recorded in ``run.json``, never silent.
    """
    low = spec.lower()
    if low == "none" or graph.weight is None:
        return None, "unweighted"
    if low == "abs":
        return "abs", "lengths |value| of the value column"
    if low != "auto":
        return "weight", f"lengths from column {spec}"
    w = np.asarray(graph.weight)
    if (w > 0).all():
        return "weight", "lengths from the value column (--weight auto: every value is positive)"
    if np.isin(w, (-1.0, 0.0, 1.0)).all() and (w == -1.0).any():
        return None, ("unweighted (--weight auto: the value column holds signs -1/+1, not lengths; "
                      "--weight abs uses their absolute values)")
    column = graph.cleaning.columns.get("weight", {})
    name = str(column.get("column", "")).strip().lower()
    if name in _RATING_NAMES or "bitcoin" in str(column.get("why", "")):
        return None, (f"unweighted (--weight auto: the value column {column.get('column')!r} holds ratings, "
                      "not lengths; --weight abs uses their absolute values)")
    raise ValueError(_bad_length(graph, w, args))


def _bad_length(graph, w: np.ndarray, args: Any) -> str:
    """The refusal of a length column with a value <= 0, naming the first such row of the file."""
    where = ""
    if args is not None and getattr(args, "path", None) is not None:
        from ..io._reader import first_value_row

        with contextlib.suppress(Exception):  # the message is still right without the row
            hit = first_value_row(args.path, lambda v: v <= 0, format=args.format, member=args.member,
                                  source=args.source, target=args.target)
            if hit is not None:
                line, row, value = hit
                where = f" {value:g} at {f'line {line}' if line else f'data row {row}'} of {args.path}"
    if not where:
        bad = float(w[np.flatnonzero(w <= 0)[0]])
        where = f" {bad:g}"
    positive = int((w > 0).sum())
    return (f"--weight auto: the value column holds lengths ({positive:,} of {w.size:,} values are "
            f"positive) and{where}; a length must be > 0. Correct that row, or choose --weight none "
            "(unweighted) or --weight abs (absolute values)")


def _check_options(args) -> None:
    """Every option, before the graph is loaded."""
    check_count(args.k, "--k", "betweenness", low=1)
    if_given(check_seed, args.seed, "betweenness", name="--seed")
    _weights(args.weight)
    if args.endpoints and args.edges:
        raise ValueError("--endpoints applies to vertex scores, not to --edges")
    require_table_writer(args.out, "--out")
    check_run_options(args)


def _run(args) -> int:
    from .betweenness import betweenness_centrality, edge_betweenness_centrality

    _check_options(args)
    run = Run(args, files={"--out": args.out, "--plot": args.plot}, manifest_beside=args.out)
    read_weight, _ = _weights(args.weight)
    graph = run.load(signed=False, directed=args.directed, weight=read_weight)
    weight, lengths = _auto_lengths(graph, args.weight, args)
    run.manifest.update(weight={"option": args.weight, "lengths": weight, "rule": lengths})
    seed = args.seed
    common = dict(k=args.k, normalized=args.normalized, weight=weight, seed=seed,
                  backend=args.backend, progress=progress_option(args))
    with run.compute():
        if args.edges:
            df = edge_betweenness_centrality(graph, **common)
        else:
            df = betweenness_centrality(graph, endpoints=args.endpoints, **common)
    with run.writing():
        write_table(df, run.wrote(args.out))
        draw_plot(run, args, df)
    run.finish(seed=seed, backend=_backend_used(df, args.backend))
    what = "edges" if args.edges else "vertices"
    sources = "every vertex as a source" if args.k is None else f"{args.k} sampled sources, seed {seed}"
    estimate = "" if args.k is None else "estimated from a sample: "
    print(f"betweenness of {len(df)} {what} of {graph.name or args.path} "
          f"({graph.n:,} vertices, {graph.m:,} edges; {estimate}{sources}; {lengths}){run.compile_note()}")
    if not args.quiet:
        note = " (the default for betweenness)" if graph.cleaning.component_rule == COMPONENT_DEFAULT else ""
        report(args, component_summary(graph, note))
        run.report_written()
    return 0


def _backend_used(df, requested: str) -> str:
    """The backend the scores were computed on (the table's ``attrs["info"]``, else the
    resolved request)."""
    info = (getattr(df, "attrs", None) or {}).get("info") or {}
    if "backend" in info:
        return info["backend"]
    from ..backend import resolve_backend

    return resolve_backend(requested)
