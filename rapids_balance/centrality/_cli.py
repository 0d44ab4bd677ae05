"""``rapids-balance betweenness``: weighted node or edge betweenness of a file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..cli import add_backend_argument, add_input_arguments, load_input, write_table

__all__ = ["register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``betweenness`` sub-command."""
    p = subparsers.add_parser(
        "betweenness", help="weighted node or edge betweenness centrality of an edge list",
        description="Exact or sampled shortest-path betweenness with edge weights as lengths "
                    "(networkx semantics and normalisation). Writes CSV (or Parquet for a .parquet "
                    "OUT) with columns vertex,betweenness_centrality or src,dst,betweenness_centrality.")
    add_input_arguments(p, cleaning=False, component_default="all")
    p.add_argument("--out", required=True, metavar="FILE", help="output file (.csv or .parquet)")
    p.add_argument("--edges", action="store_true", help="edge betweenness instead of vertex betweenness")
    p.add_argument("--k", type=int, default=None, metavar="K",
                   help="sample K source vertices (default: every vertex, exact)")
    p.add_argument("--seed", type=int, default=None, help="seed of the source sample")
    p.add_argument("--weight", default=None, metavar="COL|abs|none",
                   help="edge lengths: a column (name or 0-based position), 'abs' for the absolute "
                        "value of the file's value column (e.g. |rating|), or 'none' for unweighted. "
                        "Default: the value column, which must then be positive")
    p.add_argument("--directed", action="store_true", help="treat (u, v) and (v, u) as different arcs")
    p.add_argument("--no-normalize", dest="normalized", action="store_false",
                   help="raw pair counts (undirected graphs count each pair once)")
    p.add_argument("--endpoints", action="store_true", help="count path end vertices (vertex scores)")
    add_backend_argument(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)
    return p


def _column(spec: str) -> Any:
    return int(spec) if spec.isdigit() else spec


def _run(args) -> int:
    from .betweenness import betweenness_centrality, edge_betweenness_centrality

    spec = args.weight
    if spec is not None and spec.lower() == "none":
        read_weight, weight = None, None
    elif spec is not None and spec.lower() == "abs":
        read_weight, weight = None, "abs"
    else:
        read_weight, weight = (None if spec is None else _column(spec)), "weight"
    graph = load_input(args, signed=False, directed=args.directed, weight=read_weight)
    common = dict(k=args.k, normalized=args.normalized, weight=weight, seed=args.seed,
                  backend=args.backend, progress=not args.quiet)
    if args.edges:
        df = edge_betweenness_centrality(graph, **common)
    else:
        df = betweenness_centrality(graph, endpoints=args.endpoints, **common)
    write_table(df, args.out)
    if not args.quiet:
        what = "edges" if args.edges else "vertices"
        print(f"betweenness of {len(df)} {what} of {graph.name or args.path} "
              f"({graph.n} vertices, {graph.m} edges) written to {args.out}", file=sys.stderr)
    return 0
