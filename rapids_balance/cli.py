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
    "rapids_balance.io._cli",           # info
    "rapids_balance.balance._cli",      # balance
    "rapids_balance.frustration._cli",  # frustration
    "rapids_balance.centrality._cli",   # betweenness
    "rapids_balance.clustering._cli",   # cluster
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
    from .errors import BackendUnavailableError, GraphInputError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (GraphInputError, BackendUnavailableError, FileNotFoundError, KeyError) as exc:
        print(f"rapids-balance {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
