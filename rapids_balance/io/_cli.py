"""``rapids-balance info``: what a graph file holds after cleaning."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ._formats import ALIASES, FORMATS
from ..graph import COMPONENT_RULES, CONFLICT_RULES, NUMBERING_RULES, ZERO_SIGN_RULES

__all__ = ["register", "format_summary"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``info`` sub-command."""
    p = subparsers.add_parser(
        "info", help="statistics of a graph file after cleaning",
        description="Load a signed edge list (any supported format, compressed or in a tar archive) "
                    "and print vertices, edges, fundamental cycles, % positive, degrees, components "
                    "and the cleaning report.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("path", nargs="?", help="edge-list file (.csv, .txt, .g, Mrel, Parquet; .gz; .tar.gz)")
    what.add_argument("--example", metavar="NAME", help="a bundled example graph instead of PATH "
                      "(see rapids_balance.list_examples())")
    p.add_argument("--json", action="store_true", help="print graph.summary() as JSON")
    p.add_argument("--format", default="auto", choices=("auto", *FORMATS, *sorted(ALIASES)), metavar="FORMAT",
                   help=f"file format: auto (detected, the default) or one of {', '.join(FORMATS)}")
    p.add_argument("--member", help="file inside a tar archive (default: every member, one line each)")
    p.add_argument("--conflicts", choices=CONFLICT_RULES, default="first",
                   help="pairs seen with both signs: keep the first sign (graphB+, default), drop the pair, "
                        "or stop with an error")
    p.add_argument("--zero-sign", choices=ZERO_SIGN_RULES, default="positive",
                   help="sign-0 rows: keep as positive edges (default), drop, or error")
    p.add_argument("--component", choices=COMPONENT_RULES, default="largest",
                   help="keep the largest connected component (default) or all")
    p.add_argument("--numbering", choices=NUMBERING_RULES, default="sorted",
                   help="internal ids: sorted labels (default) or graphB+'s order")
    p.add_argument("--unsigned", action="store_true", help="read as an unsigned (weighted) graph")
    p.set_defaults(func=_run)
    return p


def _options(args) -> dict[str, Any]:
    return dict(conflicts=args.conflicts, zero_sign=args.zero_sign, component=args.component,
                numbering=args.numbering)


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
    lines.append(f"  self loops {c['self_loops']:,}, duplicate rows {c['duplicate_rows']:,}, "
                 f"zero-sign rows dropped {c['zero_sign_dropped']:,}")
    lines.append(f"  pairs with both signs {c['conflicting_pairs']:,} (rule '{c['conflict_rule']}': "
                 f"{c['conflict_rows_ignored']:,} later rows ignored, {c['conflict_rows_dropped']:,} rows dropped)")
    lines.append(f"  components in input {c['components']:,} (rule '{c['component_rule']}': "
                 f"{c['vertices_outside_component']:,} vertices and {c['edges_outside_component']:,} edges "
                 "outside the kept component)")
    lines.append(f"  numbering: {c['numbering']}")
    lines += [f"  note: {n}" for n in c["notes"]]
    return "\n".join(lines)


def _member_line(member: str, s: dict[str, Any]) -> str:
    pos = f"{s['percent_positive']:6.2f} % pos" if "percent_positive" in s else ""
    return (f"{os.path.basename(member):45s} {s['vertices']:>9,} vertices {s['edges']:>10,} edges "
            f"{s['cycles']:>10,} cycles {pos}")


def _run(args) -> int:
    from . import _reader, _sources

    opts = _options(args)
    opts["signed"] = not args.unsigned
    if args.example is not None:
        from ..datasets import load_example

        graphs = [load_example(args.example, **opts)]
        archive = None
    else:
        name, data, comp = _sources.read_container(args.path)
        archive = _sources.is_tar(data) and args.member is None
        if archive:
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
    print(json.dumps(s, indent=2, default=str) if args.json else format_summary(s))
    return 0
