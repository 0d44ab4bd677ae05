"""Command-line entry point: ``rapids-balance <command> ...``.

Each capability registers its own sub-command from a ``_cli`` module next to
its algorithm (``register(subparsers)`` adding a parser whose ``func(args)``
returns an exit code), so this file only assembles them.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from importlib.util import find_spec

_COMMAND_MODULES = (
    "rapids_balance.io._cli",                 # info
    "rapids_balance.balancing._cli",          # balance
    "rapids_balance.frustration_index._cli",  # frustration
    "rapids_balance.centrality._cli",         # betweenness
    "rapids_balance.clustering._cli",         # cluster
)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="rapids-balance",
        description="Signed and weighted graph analytics on GPU and CPU.")
    parser.add_argument("--version", action="version", version=f"rapids-balance {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMAND_MODULES:
        # a capability that is not installed (partial checkout) just has no command;
        # an import error inside an existing module still surfaces
        if find_spec(name.rsplit(".", 1)[0]) is None or find_spec(name) is None:
            continue
        import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import BackendUnavailableError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    # user errors: bad data or option values (GraphInputError is a ValueError),
    # no GPU, missing file or label, missing optional extra
    except (ValueError, BackendUnavailableError, FileNotFoundError, KeyError, ImportError) as exc:
        print(f"rapids-balance {args.command}: error: {exc}", file=sys.stderr)
        return 2


# ---------------------------------------------------------------------------
# shared pieces of the sub-commands: where the graph comes from, the backend
# ---------------------------------------------------------------------------

def add_input_arguments(p: argparse.ArgumentParser, *, example: bool = True,
                        cleaning: bool = True, component_default: str = "largest") -> None:
    """PATH (or --example NAME), --format, --member and the cleaning rules."""
    from .graph import COMPONENT_RULES, CONFLICT_RULES, NUMBERING_RULES, ZERO_SIGN_RULES

    if example:
        what = p.add_mutually_exclusive_group(required=True)
        what.add_argument("path", nargs="?", help="edge-list file (any format `rapids-balance info` "
                          "reads: CSV, SNAP, KONECT, Levorato, Parquet; .gz; tar with --member)")
        what.add_argument("--example", metavar="NAME", help="a bundled example graph instead of PATH "
                          "(see rapids_balance.list_examples())")
    else:
        p.add_argument("path", help="edge-list file (any format `rapids-balance info` reads)")
    from .io._formats import ALIASES, FORMATS

    p.add_argument("--format", default="auto", choices=("auto", *FORMATS, *sorted(ALIASES)),
                   metavar="FORMAT",
                   help=f"input file format: auto (detected, the default) or one of {', '.join(FORMATS)}")
    p.add_argument("--member", help="file inside a tar archive"
                   + (" (without it: every member)" if p.prog.endswith(" info") else ""))
    p.add_argument("--component", choices=COMPONENT_RULES, default=component_default,
                   help=f"keep the largest connected component or all (default {component_default})")
    if cleaning:
        p.add_argument("--conflicts", choices=CONFLICT_RULES, default="first",
                       help="pairs seen with both signs: keep the first sign (graphB+, default), "
                            "drop the pair, or stop with an error")
        p.add_argument("--zero-sign", choices=ZERO_SIGN_RULES, default="positive",
                       help="sign-0 rows: keep as positive edges (default), drop, or error")
        p.add_argument("--numbering", choices=NUMBERING_RULES, default="sorted",
                       help="internal ids: sorted labels (default) or graphB+'s order")


def input_options(args: argparse.Namespace) -> dict:
    """The cleaning options named on the command line, as read_edgelist keywords."""
    opts = {"component": args.component}
    for key in ("conflicts", "zero_sign", "numbering"):
        if hasattr(args, key):
            opts[key] = getattr(args, key)
    return opts


def load_input(args: argparse.Namespace, **read_options):
    """The graph named by PATH/--example with the command line's cleaning rules."""
    opts = {**input_options(args), **read_options}
    if getattr(args, "example", None) is not None:
        from .datasets import load_example

        return load_example(args.example, **opts)
    from .io import read_edgelist

    return read_edgelist(args.path, format=args.format, member=args.member, **opts)


def write_table(df, path: str) -> None:
    """A result table as Parquet (``.parquet``) or CSV (anything else)."""
    if str(path).endswith(".parquet"):
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)


def add_backend_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                   help="auto: the GPU if one is usable, else the CPU (default)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
