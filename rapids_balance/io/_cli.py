"""``rapids-balance info``: what a graph file holds after cleaning."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ..cli import add_input_arguments, add_plot_argument, check_input, check_plot, input_options

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
    add_plot_argument(p, "the degree distribution (CCDF, log-log; one graph, not a whole archive)")
    p.set_defaults(func=_run)
    return p


def format_summary(s: dict[str, Any]) -> str:
    """Human-readable form of :meth:`Graph.summary`."""
    lines = [f"graph: {s['name']}" + (" (directed)" if s.get("directed") else ""),
             f"  vertices:            {s['vertices']:,}",
             f"  edges:               {s['edges']:,}",
             f"  fundamental cycles:  {s['cycles']:,}"]
    if "percent_positive" in s:
        lines.append(f"  positive edges:      {s['positive_edges']:,} ({s['percent_positive']:.2f} %)")
        lines.append(f"  negative edges:      {s['negative_edges']:,}")
        if s.get("zero_sign_edges"):
            lines.append(f"  zero-sign edges:     {s['zero_sign_edges']:,} (kept as positive)")
    if "weight_min" in s:
        lines.append(f"  weights:             {s['weight_min']:g} .. {s['weight_max']:g}")
    lines += [f"  max degree:          {s['max_degree']:,}",
              f"  mean degree:         {s['mean_degree']:.3f}",
              f"  components:          {s['components']}"]
    c = s["cleaning"]
    lines.append(f"cleaning ({c['source']}):")
    lines.append(f"  input rows {c['input_rows']:,}, comment lines {c['comment_lines']:,}, "
                 f"distinct vertex ids {c['vertices_in_input']:,}")
    lines.append(f"  self loops {c['self_loops']:,}, zero-sign rows dropped {c['zero_sign_dropped']:,}")
    lines.append(_repeats_line(c))
    lines.append(f"  pairs with both signs {c['conflicting_pairs']:,} (rule '{c['conflict_rule']}': "
                 f"{c['conflict_rows_ignored']:,} later rows ignored, {c['conflict_rows_dropped']:,} rows dropped)")
    lines.append(f"  components in input {c['components']:,} (rule '{c['component_rule']}': "
                 f"{c['vertices_outside_component']:,} vertices and {c['edges_outside_component']:,} edges "
                 "outside the kept component)")
    lines.append(f"  numbering: {c['numbering']}")
    for role, info in c.get("columns", {}).items():
        lines.append(f"  {role} column: {info['column']!r} ({info['why']})")
    if c.get("header_lines"):
        lines.append(f"  header lines read as column names: {c['header_lines']}")
    if c.get("id_spellings_merged"):
        lines.append(f"  vertex-id spellings merged (ids '{c['ids']}'): {c['id_spellings_merged']:,}")
    lines += [f"  note: {n}" for n in c["notes"]]
    return "\n".join(lines)


def _repeats_line(c: dict[str, Any]) -> str:
    """Repeated pairs with their sign: reverse-direction rows (merged) apart from exact repeats."""
    reverse = c.get("reverse_rows", 0)
    same = c["duplicate_rows"] - reverse
    if not c["duplicate_rows"]:
        return "  repeated pairs: none"
    parts = []
    if reverse:
        parts.append(f"{reverse:,} rows list a pair the other way round (v,u after u,v), "
                     "merged into one undirected edge")
    if same:
        parts.append(f"{same:,} rows repeat a pair in the same direction")
    return f"  repeated pairs with the same sign, {c['duplicate_rows']:,} rows: " + "; ".join(parts)


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
        from ..datasets import load_example

        graphs = [load_example(args.example, **opts)]
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
    print(json.dumps(s, indent=2, default=str) if args.json else format_summary(s))
    return 0
