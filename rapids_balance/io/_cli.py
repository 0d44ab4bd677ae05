"""``rapids-balance info``: what a graph file holds after cleaning."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .._containers import GraphSummary
from ..cli import add_input_arguments, add_plot_argument, example_graph, check_input, check_plot, input_options

__all__ = ["register", "format_summary"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``info`` sub-command."""
    p = subparsers.add_parser(
        "info", help="statistics of a graph file after cleaning",
        description="Load a signed edge list (any supported format, compressed or in a tar archive) "
                    "and print vertices, edges, fundamental cycles, % positive, degrees, components "
                    "and the cleaning report.")
    add_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print graph.summary() as JSON")
    p.add_argument("--unsigned", action="store_true", help="read as an unsigned (weighted) graph")
    p.add_argument("--quiet", action="store_true",
                   help="print the result line alone (vertices, edges, cycles, %% positive), not the "
                        "whole summary and cleaning report")
    add_plot_argument(p, "the degree distribution (CCDF, log-log; one graph, not a whole archive)")
    p.set_defaults(func=_run)
    return p


def format_summary(s: dict[str, Any]) -> str:
    """Human-readable form of :meth:`Graph.summary` (also what printing the summary shows)."""
    return str(GraphSummary(s))


def _member_line(member: str, s: dict[str, Any]) -> str:
    pos = f"{s['percent_positive']:6.2f} % pos" if "percent_positive" in s else ""
    return (f"{os.path.basename(member):45s} {s['vertices']:>9,} vertices {s['edges']:>10,} edges "
            f"{s['cycles']:>10,} cycles {pos}")


def _list_examples() -> int:
    """``info --example`` without a NAME: the bundled graphs, one a line."""
    from ..datasets import EXAMPLES

    print("bundled example graphs (rapids-balance info --example NAME):")
    for name, (_, what) in EXAMPLES.items():
        print(f"  {name:16s} {what}")
    return 0


def _run(args) -> int:
    from . import _reader, _sources

    if args.example == "":
        return _list_examples()
    check_input(args)
    check_plot(args)
    opts = input_options(args)
    opts["signed"] = not args.unsigned
    if args.example is not None:
        graphs = [example_graph(args.example, **opts)]
        archive = None
    else:
        name, data, comp = _sources.read_container(args.path)
        archive = _sources.is_tar(data) and args.member is None
        if archive:
            if args.plot is not None:
                raise ValueError("--plot draws one graph: name it with --member")
            members = _sources.archive_members(data, name)
            summaries = []
            for mem in members:
                src = _sources.source_from_bytes(name, data, comp, member=mem)
                summaries.append((mem, _reader.graph_from_source(src, format=args.format, **opts).summary()))
            if args.json:
                print(json.dumps({mem: s for mem, s in summaries}, indent=2, default=str))
            else:
                print(f"{name}: tar archive, {len(members)} files")
                for mem, s in summaries:
                    print(_member_line(mem, s))
            return 0
        src = _sources.source_from_bytes(name, data, comp, member=args.member)
        graphs = [_reader.graph_from_source(src, format=args.format, **opts)]
    s = graphs[0].summary()
    if args.plot is not None:
        from ..plot import main_picture

        main_picture(graphs[0], args.plot)  # written atomically
    if args.json:
        print(json.dumps(s, indent=2, default=str))
    else:
        print(_result_line(s) if args.quiet else format_summary(s))
    return 0


def _result_line(s: dict[str, Any]) -> str:
    """``info --quiet``: the summary in one line."""
    signs = f", {s['percent_positive']:.2f} % positive" if "percent_positive" in s else ""
    return (f"{s['name']}: {s['vertices']:,} vertices, {s['edges']:,} edges, {s['cycles']:,} cycles"
            f"{signs}, {s['components']} component{'' if s['components'] == 1 else 's'}")
