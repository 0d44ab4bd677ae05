"""Command-line entry point: ``rapids-balance <command> ...``.

Each capability registers its own sub-command from a ``_cli`` module next to
its algorithm (``register(subparsers)`` adding a parser whose ``func(args)``
returns an exit code), so this file only assembles them and holds the pieces
every command shares: where the graph comes from (:func:`add_input_arguments`,
:func:`load_input`), the checks made before any work, and :class:`Run`, which
checks a command's output paths up front, times it and writes its manifest.

Exit status
-----------
0
    Success.
2
    A user error: a bad option or input file, an output path that cannot be
    written, results already present (``--overwrite``), a missing optional
    extra, no usable GPU, not enough memory.  One line on stderr:
    ``rapids-balance COMMAND: error: ...`` naming the option or path and the
    reason.  ``--debug`` (before the command) or ``RAPIDS_BALANCE_DEBUG=1``
    also prints the traceback.
130
    Interrupted (Ctrl-C), with the line ``rapids-balance COMMAND: interrupted``;
    no result file is left half-written.
143
    Terminated (SIGTERM, as sent by ``timeout``, systemd or SLURM), with the
    line ``rapids-balance COMMAND: terminated``; cleaned up as for Ctrl-C.
141
    Standard output was closed early (``rapids-balance info --json | head
    -c1``): the command stops quietly, with the status a shell reports for a
    program ended by SIGPIPE (128 + 13), as ``cat`` or ``grep`` would, so a
    ``set -o pipefail`` script still sees that the output was cut.

Results
-------
Every file is written atomically (:mod:`rapids_balance._files`): a temporary
file renamed onto the target when complete.  A results directory (``--out
DIR``) gets ``run.json`` (command line, versions, parameters, seed, input
checksum, cleaning report, timings); a command whose ``--out`` is one file
(``betweenness``, ``cluster``) writes it beside that file as
``FILE.run.json``.  Results already there are refused unless ``--overwrite``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import traceback
from collections.abc import Iterable, Iterator
from importlib import import_module
from importlib.util import find_spec
from typing import Any

_COMMAND_MODULES = (
    "rapids_balance.io._cli",                 # info
    "rapids_balance.balancing._cli",          # balance
    "rapids_balance.frustration_index._cli",  # frustration
    "rapids_balance.centrality._cli",         # betweenness
    "rapids_balance.clustering._cli",         # cluster
    "rapids_balance.generators._cli",         # generate
    "rapids_balance.measures._cli",           # measures
    "rapids_balance._warmup",                 # warmup
)

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
EXIT_BROKEN_PIPE = 141

# what makes each command's memory grow, for the out-of-memory message
_MEMORY_OPTIONS = {"balance": "--trees/--batch-size", "frustration": "--trees/--max-states/--memory-limit",
                   "betweenness": "--k", "cluster": "--method multilevel"}
_MESSAGE_LIMIT = 2000
#: runs whose claims and staging folders main() releases however the command ends
_OPEN_RUNS: list = []
_NOT_PARAMETERS = ("func", "command_line", "debug", "phase")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``PROG: error: ...``) cut to a readable length.

    Unknown arguments are reported by the sub-command's parser, so the line
    names the command (``rapids-balance info: error: unrecognized ...``).
    """

    commands: dict[str, argparse.ArgumentParser]

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = getattr(self, "commands", {}).get(getattr(ns, "command", None), self)
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns

    def error(self, message: str) -> None:  # type: ignore[override]
        if len(message) > 300:
            message = f"{message[:250]}...({len(message)} characters)"
        self.exit(EXIT_USER_ERROR, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(
        prog="rapids-balance",
        description="Signed and weighted graph analytics on GPU and CPU.",
        epilog="Exit status: 0 success, 2 user error (one line on stderr), 130 interrupted, "
               "141 standard output closed early, 143 terminated (SIGTERM).")
    parser.add_argument("--version", action="version", version=f"rapids-balance {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="also print the traceback of errors (or set RAPIDS_BALANCE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    parser.commands = {}
    for name in _COMMAND_MODULES:
        # a capability that is not installed (partial checkout) just has no command;
        # an import error inside an existing module still surfaces
        if find_spec(name.rsplit(".", 1)[0]) is None or find_spec(name) is None:
            continue
        commands = import_module(name).register(sub)  # a parser, or a tuple of them
        for command in commands if isinstance(commands, tuple) else (commands,):
            parser.commands[command.prog.rsplit(" ", 1)[-1]] = command
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``rapids-balance`` with ``argv``; return the exit status instead of exiting.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for a user error (one line on stderr), 130 when
        interrupted, 141 when standard output was closed early (see the
        module docstring).

    Raises
    ------
    Exception
        Only an internal error (a bug) escapes, with its traceback; every
        error a user can cause is reported and turned into status 2.

    Examples
    --------
    >>> main(["balance", "--example", "nope", "--out", "results"])  # doctest: +SKIP
    rapids-balance balance: error: no example graph 'nope'; available: highland, ...
    2
    """
    argv = sys.argv[1:] if argv is None else [os.fspath(a) if isinstance(a, os.PathLike) else str(a)
                                               for a in argv]
    args = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a one-line usage error
            sys.stdout.flush()
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USER_ERROR)
        args.command_line = ["rapids-balance", *argv]
        with _terminate_as_interrupt():
            try:
                code = int(args.func(args) or 0)
            finally:
                for run in list(_OPEN_RUNS):  # claims and unfinished staging folders
                    run.close()
        sys.stdout.flush()  # a closed pipe shows here, inside the try
        return code
    except Terminated:
        _tell(args, "terminated")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _tell(args, "interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except _user_errors() as exc:
        if args is None:  # building the parser failed: not the user's doing
            raise
        if args.debug or os.environ.get("RAPIDS_BALANCE_DEBUG", "") not in ("", "0"):
            traceback.print_exc()
        _tell(args, "error: " + user_message(exc, args))
        return EXIT_USER_ERROR


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, systemd, SLURM) during a command: unwinds like Ctrl-C, so every
    temporary file and staging folder is removed, and the command exits with 143."""


def _raise_terminated(signum, frame):
    raise Terminated()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Handle SIGTERM like SIGINT while a command runs (main thread only; restored after)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError):  # no signals here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _memory_naming_input(exc: MemoryError, args: argparse.Namespace) -> MemoryError:
    """An out-of-memory error while loading, naming the file and how far the read got
    (the readers' own refusals already do, and are kept)."""
    path = getattr(args, "path", None)
    if path is None or str(exc).startswith(f"{path}:"):
        return exc
    try:
        size = f"its {os.path.getsize(path):,} bytes were read" if os.path.isfile(path) else "it was read"
    except OSError:
        size = "it was read"
    detail = f" ({exc})" if str(exc) else ""
    return MemoryError(f"{path}: out of memory parsing the edge list after {size}{detail}")


def _renamed(exc: OSError, text: str) -> OSError:
    try:
        return type(exc)(text)
    except Exception:  # an OSError subclass with another constructor signature
        return OSError(text)


def console_main() -> None:
    """The ``rapids-balance`` program: :func:`main`, then a clean exit.

    After the command (and every ``atexit`` handler: Dask's shutdown, the
    removal of shared graph files), a process that loaded pyarrow ends with
    ``os._exit``: pyarrow's worker threads, still alive while the interpreter
    finalises, could abort it ("terminate called without an active
    exception", signal 6) after the right message and exit status were
    already written.
    """
    code = main()
    _flush_quietly()
    if "pyarrow" not in sys.modules:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    _flush_quietly()
    os._exit(code)


def _flush_quietly() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            if stream is sys.stdout:
                _discard_stdout()


def _user_errors() -> tuple[type[BaseException], ...]:
    # an internal bug (AttributeError, IndexError, AssertionError, ...) keeps its traceback
    from .errors import BackendUnavailableError

    return (ValueError, TypeError, OSError, ImportError, KeyError, MemoryError, BackendUnavailableError)


def _tell(args: argparse.Namespace | None, text: str) -> None:
    command = getattr(args, "command", None)
    prog = "rapids-balance" + (f" {command}" if command else "")
    with contextlib.suppress(OSError, ValueError):  # stderr itself may be gone
        print(f"{prog}: {text}", file=sys.stderr)
        sys.stderr.flush()


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again.

    The recipe of the Python documentation ("Note on SIGPIPE", signal module).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (captured)
        pass


def user_message(exc: BaseException, args: argparse.Namespace | None = None) -> str:
    """One line saying what went wrong, for ``rapids-balance CMD: error: <line>``."""
    if isinstance(exc, MemoryError):
        text = _memory_message(exc, args)
    elif isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = exc.args[0]  # str(KeyError) would add quotes
    elif isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
        if exc.filename2 is not None:
            text += f" ({exc.filename2})"
    elif isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    elif isinstance(exc, ImportError) and "pip install" not in str(exc):
        from .errors import EXTRAS

        extra = EXTRAS.get((exc.name or "").split(".")[0])
        text = str(exc) + (f"; install it with: pip install 'rapids-balance[{extra}]'" if extra else "")
    else:
        text = str(exc) or type(exc).__name__
    text = _cli_wording("; ".join(line.strip() for line in text.splitlines() if line.strip()),
                        getattr(args, "command", None))
    if len(text) > _MESSAGE_LIMIT:
        text = f"{text[:_MESSAGE_LIMIT - 40]}...({len(text)} characters)"
    return text


# the library's messages name keywords and add the CLI option in brackets; a CLI user sees the option
_API_THEN_CLI = (
    (re.compile(r"(?:\b\w+=(?:<column>|\.\.\.)(?: and )?)+ \(CLI: ([^)]*)\)"), r"\1"),
    (re.compile(r"pass \w+='[^']*' (.*?) \(CLI: (--[\w-]+ [^)]*)\)"), r"pass \2 \1"),
    (re.compile(r"weight='abs' or weight=None \(CLI: (--weight abs) / (--weight none)\)"), r"\1 or \2"),
)


def _cli_wording(text: str, command: str | None) -> str:
    """A library message in the command line's terms: options instead of keyword arguments."""
    for pattern, repl in _API_THEN_CLI:
        text = pattern.sub(repl, text)
    if command == "info":
        return text.replace("or read it unsigned (signed=False)", "or read it unsigned with --unsigned")
    return text.replace(", or read it unsigned (signed=False)",
                        f" (rapids-balance {command} needs the edge signs)")


def _memory_message(exc: MemoryError, args: argparse.Namespace | None) -> str:
    phase = getattr(args, "phase", None) or "running"
    detail = f" ({exc})" if str(exc) else ""
    if phase == "loading the input":
        return f"out of memory while {phase}{detail}: the input file is too large for this machine's memory"
    options = _MEMORY_OPTIONS.get(getattr(args, "command", ""), "")
    hint = f"; lower {options}" if options else ""
    return (f"out of memory while {phase}{detail}: the graph and the work asked for are too large for "
            f"this machine's memory{hint}")


# ---------------------------------------------------------------------------
# option types: parse, and keep a huge value from flooding the message
# ---------------------------------------------------------------------------

def _shown(text: str) -> str:
    from .errors import short_repr

    return short_repr(text)


def int_arg(text: str) -> int:
    """argparse type: an integer (range checks come later, with the command's name)."""
    try:
        return int(text)
    except ValueError:
        if text.strip().lstrip("+-").isdigit():  # past Python's 4300-digit conversion limit
            raise argparse.ArgumentTypeError(f"integer too large ({len(text.strip())} characters)") from None
        raise argparse.ArgumentTypeError(f"invalid integer: {_shown(text)}") from None


def float_arg(text: str) -> float:
    """argparse type: a number (finite-ness and range are checked later)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {_shown(text)}") from None


def if_given(check: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
    """``check(value, ...)`` (a :mod:`rapids_balance._validation` helper) unless the option was not given.

    An option left out (``None``) means the default, so its message need not offer "or None".
    """
    return None if value is None else check(value, *args, **kwargs)


def check_count(value: int | None, option: str, command: str, *, low: int = 1, high: int | None = None
                ) -> int | None:
    """An integer option in ``[low, high]`` (default: the library's count limit), unless not given."""
    from . import _validation

    return if_given(_validation.check_count, value, option, command, low=low,
                    high=_validation.COUNT_MAX if high is None else high)


def column_arg(text: str) -> int | str:
    """argparse type: a column, by name or 0-based position (an all-digit value is a position)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty column name")
    return int(text) if text.isdigit() else text


# ---------------------------------------------------------------------------
# shared pieces of the sub-commands: where the graph comes from, the backend
# ---------------------------------------------------------------------------

class _Refused(argparse.Action):
    """An option a command does not use: refused by name, rather than left to be misparsed
    (an unknown ``--weight 2`` would make ``2`` the input path)."""

    reason = "not used by this command"

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string}: {self.reason}")


def add_input_arguments(p: argparse.ArgumentParser, *, example: bool = True, cleaning: bool = True,
                        component_default: str = "largest", weight: bool | str = True) -> None:
    """PATH (or --example NAME), --format, --member, column roles and the cleaning rules.

    ``weight=False`` leaves ``--weight`` to the command (betweenness gives it
    its own meaning); a string refuses ``--weight`` with that reason (a
    command that does not use edge weights).
    """
    from .graph import COMPONENT_RULES, CONFLICT_RULES, NUMBERING_RULES, ZERO_SIGN_RULES

    if example:
        what = p.add_mutually_exclusive_group(required=True)
        what.add_argument("path", nargs="?", help="edge-list file (any format `rapids-balance info` "
                          "reads: CSV, SNAP, KONECT, Levorato, Parquet; .gz; tar with --member)")
        what.add_argument("--example", metavar="NAME", nargs="?", const="",
                          help="a bundled example graph instead of PATH (without NAME: list them)")
    else:
        p.add_argument("path", help="edge-list file (any format `rapids-balance info` reads)")
    from .io._formats import ALIASES, FORMATS

    p.add_argument("--format", default="auto", choices=("auto", *FORMATS, *sorted(ALIASES)),
                   metavar="FORMAT",
                   help=f"input file format: auto (detected, the default) or one of {', '.join(FORMATS)}")
    p.add_argument("--member", help="file inside a tar archive"
                   + (" (without it: every member)" if p.prog.endswith(" info") else ""))
    roles = p.add_argument_group("column roles", "a column name, or a 0-based position (an all-digit "
                                 "value is a position); default: fixed by the file format or a "
                                 "recognised header")
    roles.add_argument("--source", type=column_arg, metavar="COL", help="source vertex column")
    roles.add_argument("--target", type=column_arg, metavar="COL", help="target vertex column")
    roles.add_argument("--sign", type=column_arg, metavar="COL",
                       help="column whose sign is the edge sign (e.g. a rating)")
    if weight is True:
        roles.add_argument("--weight", type=column_arg, metavar="COL",
                           help="edge weight column ('abs': the absolute value of the sign column)")
    elif weight:
        roles.add_argument("--weight", action=type("_RefusedWeight", (_Refused,), {"reason": weight}),
                           help=argparse.SUPPRESS)
    p.add_argument("--ids", choices=("auto", "text"), default="auto",
                   help="vertex ids: auto (default: integers when every id is an integer literal, so "
                        "007 and 7 are one vertex, counted in the report) or text (as written)")
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


def add_output_arguments(p: argparse.ArgumentParser, out_help: str, *, required: bool = True,
                         metavar: str = "DIR") -> None:
    """--out and --overwrite."""
    p.add_argument("--out", required=required, metavar=metavar, help=out_help)
    p.add_argument("--overwrite", action="store_true",
                   help="replace the results of an earlier run (refused without it; the earlier "
                        "run's files that this run does not write are removed)")


def input_options(args: argparse.Namespace) -> dict:
    """The cleaning options and column roles named on the command line, as read_edgelist keywords."""
    opts = {"component": args.component}
    for key in ("conflicts", "zero_sign", "numbering", "source", "target", "sign", "weight", "ids"):
        value = getattr(args, key, None)
        if value is not None:
            opts[key] = value
    return opts


def example_graph(name: str, **options):
    """A bundled example, its errors naming it as the command line did (``--example NAME``)."""
    from .datasets import load_example
    from .errors import GraphInputError, renamed_source

    try:
        return load_example(name, **options)
    except GraphInputError as exc:
        raise renamed_source(exc, f"example {name!r}", f"--example {name}") from None


def load_input(args: argparse.Namespace, **read_options):
    """The graph named by PATH/--example with the command line's cleaning rules and column roles."""
    opts = {**input_options(args), **read_options}
    if getattr(args, "example", None) is not None:
        return example_graph(args.example, **opts)
    from .io import read_edgelist

    if getattr(args, "backend", "auto") != "cpu" and "backend" not in opts:
        # a GPU run reads the file with cuDF where it is installed, so the edges go
        # straight to the device (read_edgelist notes the host reader otherwise)
        from .backend import resolve_backend

        opts["backend"] = resolve_backend(args.backend)
    return read_edgelist(args.path, format=args.format, member=args.member, **opts)


def check_input(args: argparse.Namespace) -> None:
    """Refuse an unknown example or a missing / unreadable / directory input before any work."""
    if getattr(args, "example", None) == "":
        from .datasets import EXAMPLES

        names = "; ".join(f"{name} ({what})" for name, (_, what) in EXAMPLES.items())
        raise ValueError(f"--example needs a NAME, one of: {names}")
    if getattr(args, "example", None) is not None:
        from .datasets import example_path

        example_path(args.example)  # KeyError listing the examples
    elif getattr(args, "path", None) is not None:
        from ._files import check_input_file

        check_input_file(args.path, "input")


def require_module(module: str, what: str) -> None:
    """Raise ImportError with the install hint when the optional ``module`` is missing."""
    if not _module_available(module):
        from .errors import missing_extra

        raise missing_extra(module, what)


def _module_available(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_table_writer(path: str, option: str) -> None:
    """A ``.parquet`` output needs pyarrow (checked before the work)."""
    if str(path).endswith(".parquet"):
        require_module("pyarrow", f"{option} {path} (Parquet)")


def write_table(df, path: str) -> None:
    """A result table as Parquet (``.parquet``) or CSV (anything else), written atomically."""
    from ._files import atomic_open

    with atomic_open(path, "wb") as fh:  # through the descriptor: the temporary name is not reopened
        if str(path).endswith(".parquet"):
            df.to_parquet(fh, index=False)
        else:
            df.to_csv(fh, index=False)


def add_plot_argument(p: argparse.ArgumentParser, what: str) -> None:
    """``--plot FILE``: the command's main picture (:func:`rapids_balance.plot.main_picture`)."""
    p.add_argument("--plot", metavar="FILE",
                   help=f"also draw {what} into FILE (PNG, SVG or PDF by suffix; needs matplotlib)")


def check_plot(args: argparse.Namespace) -> None:
    """Before work: ``--plot``'s suffix and matplotlib (with the install hint)."""
    if getattr(args, "plot", None) is None:
        return
    from .plot import check_picture_path

    check_picture_path(args.plot, args.command, name="--plot")
    require_module("matplotlib", f"--plot {args.plot}")


def draw_plot(run: "Run", args: argparse.Namespace, result: Any, picture: Any = None, **kwargs: Any) -> None:
    """After work: draw ``result`` into ``--plot`` (atomically), if asked.

    ``picture`` is a function of :mod:`rapids_balance.plot`; default: the
    result's main picture (:func:`rapids_balance.plot.main_picture`).
    """
    if getattr(args, "plot", None) is None:
        return
    from . import plot

    if picture is None:
        plot.main_picture(result, run.wrote(args.plot), **kwargs)
    else:
        plot.save(picture(result, **kwargs), run.wrote(args.plot))


def add_progress_arguments(p: argparse.ArgumentParser) -> None:
    """``--quiet`` and ``--progress``: what a run prints besides its result line."""
    p.add_argument("--quiet", action="store_true",
                   help="print only the result line: no progress, no component or file lines")
    p.add_argument("--progress", action="store_true",
                   help="report progress even when stderr is not a terminal (a few plain lines in a "
                        "log); by default a bar is drawn only on a terminal")


def progress_option(args: argparse.Namespace) -> bool | None:
    """The library's ``progress=``: False under --quiet, True with --progress, else None (a terminal only)."""
    if getattr(args, "quiet", False):
        return False
    return True if getattr(args, "progress", False) else None


def add_backend_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                   help="auto: the GPU if one is usable, else the CPU (default)")


def check_backend(args: argparse.Namespace) -> None:
    """``--backend gpu`` without a usable GPU fails before the graph is loaded."""
    if getattr(args, "backend", "auto") == "gpu":
        from .backend import resolve_backend

        resolve_backend("gpu")


def check_run_options(args: argparse.Namespace) -> None:
    """What every command checks after its own options, before the graph is loaded: the
    table format's extra, ``--plot`` and ``--backend``."""
    if getattr(args, "table_format", None) == "parquet":
        require_module("pyarrow", "--table-format parquet")
    check_plot(args)
    check_backend(args)


def report(args: argparse.Namespace, *lines: str) -> None:
    """Lines beside a command's result line: on stderr, so stdout holds the result alone, and
    none under ``--quiet``."""
    if getattr(args, "quiet", False):
        return
    with contextlib.suppress(OSError, ValueError):  # a closed stderr does not fail the run
        for line in lines:
            print(line, file=sys.stderr)


def component_summary(graph, default_note: str = "") -> str:
    """One line: what the component rule left out (told by every command's summary)."""
    c = graph.cleaning
    if c.component_rule == "all":
        return (f"component rule 'all'{default_note}: every component kept "
                f"({c.components:,} in the input); nothing left out")
    if not c.vertices_outside_component and not c.edges_outside_component:
        return (f"component rule '{c.component_rule}'{default_note}: nothing left out "
                f"({c.components:,} component{'' if c.components == 1 else 's'} in the input)")
    return (f"component rule '{c.component_rule}'{default_note}: {c.vertices_outside_component:,} vertices "
            f"and {c.edges_outside_component:,} edges outside the kept component left out "
            f"({c.components:,} component{'' if c.components == 1 else 's'} in the input)")


# ---------------------------------------------------------------------------
# one command run: output checks up front, timings, manifest
# ---------------------------------------------------------------------------

class Run:
    """A command's run: checks its inputs and outputs before work, times it, writes ``run.json``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``args.overwrite`` allows replacing results).
    out_dir : str, optional
        The results directory (``--out DIR``); the manifest goes there.
    known : iterable of str
        Every file name the command may write in ``out_dir`` (an earlier
        run's files among them refuse the directory without ``--overwrite``).
    files : dict of option -> path
        Single output files (``{"--graphbplus": path}``); ``None`` paths are
        skipped.
    manifest_beside : str, optional
        Without ``out_dir``: the file whose ``FILE.run.json`` is the manifest.

    Raises
    ------
    OSError, KeyError
        From :func:`check_input` and the output checks, before any work.
    """

    def __init__(self, args: argparse.Namespace, *, out_dir: str | None = None, known: Iterable[str] = (),
                 files: dict[str, str | None] | None = None, manifest_beside: str | None = None):
        from . import _files, _manifest

        self.args = args
        self.out_dir = out_dir
        self.known = tuple(known)
        self.written: list[str] = []
        self.results: Any = None  # _files.ResultsDir of out_dir, claimed before the work
        self.claim: Any = None    # _files.Claim of a single-file output
        self.single: Any = None   # _files.StagedFile: that file and its FILE.run.json
        self.compile_s = self.cache_load_s = 0.0  # measured in every step
        overwrite = bool(getattr(args, "overwrite", False))
        check_input(args)
        if out_dir is not None:
            _files.check_output_dir(out_dir, option="--out", names=self.known, overwrite=overwrite)
        self.files = {opt: path for opt, path in (files or {}).items() if path is not None}
        for option, path in self.files.items():
            _files.check_output_file(path, option=option, overwrite=overwrite,
                                     manifest=path == manifest_beside, created_dir=out_dir)
        if out_dir is not None:
            self.manifest_path = os.path.join(out_dir, _files.MANIFEST_NAME)
        elif manifest_beside is not None:
            self.manifest_path = _files.manifest_path_for_file(manifest_beside)
        else:
            self.manifest_path = None
        self._check_distinct()
        _OPEN_RUNS.append(self)
        # claimed before the work, and checked again once claimed: of two runs started at
        # once on the same output, the second stops here
        if out_dir is not None:
            self.results = _files.ResultsDir(out_dir, f"--out {out_dir}")
            self.results.claim(self.known)
            _files.check_output_dir(out_dir, option="--out", names=self.known, overwrite=overwrite)
        elif manifest_beside is not None:
            self.claim = _files.Claim(manifest_beside, f"--out {manifest_beside}")
            self.single = _files.StagedFile(manifest_beside)
            _files.check_output_file(manifest_beside, option="--out", overwrite=overwrite, manifest=True)
        params = {k: v for k, v in vars(args).items() if k not in _NOT_PARAMETERS}
        command_line = getattr(args, "command_line", None) or ["rapids-balance", *sys.argv[1:]]
        self.manifest = _manifest.RunManifest(getattr(args, "command", "?"), command_line, params)

    def _check_distinct(self) -> None:
        """No two outputs share a path, and no output is the input file."""
        outputs: dict[str, str] = {}
        named = [(f"{opt} {path}", path) for opt, path in self.files.items()]
        if self.out_dir is not None:
            named += [(f"--out {self.out_dir}", os.path.join(self.out_dir, n)) for n in self.known]
        for label, path in named:
            real = os.path.realpath(path)
            if real in outputs:
                raise FileExistsError(f"{outputs[real]}: {label} writes the same file "
                                      f"({os.path.basename(path)}); choose another name")
            outputs[real] = label
        src = getattr(self.args, "path", None)
        if src is not None and os.path.realpath(src) in outputs:
            raise FileExistsError(f"{outputs[os.path.realpath(src)]}: would replace the input file {src}; "
                                  "choose another name")

    @contextlib.contextmanager
    def step(self, name: str, phase: str) -> Iterator[None]:
        """Time a step (``load``, ``compute``, ``write``) and name it for out-of-memory messages.

        numba's compilation inside the step is measured and recorded apart
        (``compile_s``, ``cache_load_s``): the step's own seconds exclude it.
        """
        from ._compile_clock import CompileClock

        self.args.phase = phase
        clock = CompileClock()
        with self.manifest.timed(name), clock:
            yield
        timings = self.manifest.data["timings"]
        timings[f"{name}_s"] = round(max(timings[f"{name}_s"] - clock.seconds, 0.0), 6)
        for key, seconds in (("compile_s", clock.compile_s), ("cache_load_s", clock.cache_load_s)):
            timings[key] = round(timings.get(key, 0.0) + seconds, 6)
        self.compile_s += clock.compile_s
        self.cache_load_s += clock.cache_load_s

    def compile_note(self) -> str:
        """'; 8.1 s compiling kernels (not counted above; cached now)', or '' when nothing compiled."""
        if self.compile_s < 0.05:
            return ""
        return (f"; {self.compile_s:.1f} s compiling kernels, not counted above (cached now; "
                "`rapids-balance warmup` does this once after installing)")

    def load(self, **read_options):
        """:func:`load_input`, timed and recorded in the manifest."""
        with self.step("load", "loading the input"):
            try:
                graph = load_input(self.args, **read_options)
            except MemoryError as exc:
                raise _memory_naming_input(exc, self.args) from None
        example = getattr(self.args, "example", None)
        self.manifest.record_input(path=None if example is not None else self.args.path, example=example,
                                   member=getattr(self.args, "member", None),
                                   sha256=getattr(graph.cleaning, "source_sha256", None),
                                   size=getattr(graph.cleaning, "source_bytes", None))
        self.manifest.record_graph(graph)
        return graph

    def compute(self) -> contextlib.AbstractContextManager:
        return self.step("compute", "computing")

    @contextlib.contextmanager
    def writing(self, names: Iterable[str] = ()) -> Iterator[None]:
        """The write step: the results go to a staging folder until :meth:`finish` puts them in place
        (a results directory as a whole; a single output file with its ``FILE.run.json``)."""
        with self.step("write", "writing the results"):
            if self.results is not None:
                self.results.stage()
                shown = os.path.normpath(self.out_dir)
            elif self.single is not None:
                self.single.stage()
                shown = os.path.dirname(self.single.path)
            try:
                yield
            except OSError as exc:
                staged = getattr(self.results or self.single, "staged", None)
                if staged is None or staged not in str(exc):
                    raise
                # name where the results go, not the staging folder the user never sees
                raise _renamed(exc, str(exc).replace(staged, shown)) from exc

    def _where(self, path: str) -> str:
        """Where ``path`` is written now: inside the staging folder when it belongs to the results."""
        if self.single is not None:
            return self.single.where(path)
        staged = getattr(self.results, "staged", None)
        if staged is not None and os.path.realpath(os.path.dirname(os.path.abspath(path))) == self.results.path:
            return os.path.join(staged, os.path.basename(path))
        return path

    def path(self, name: str) -> str:
        """``name`` inside the results directory, remembered as written; returns where to write it."""
        return self.wrote(os.path.join(self.out_dir, name))

    def wrote(self, path: str) -> str:
        """Remember ``path`` as written; returns where to write it (see :meth:`writing`)."""
        self.written.append(path)
        return self._where(path)

    def finish(self, *, seed: Any = None, backend: Any = None) -> None:
        """Write the manifest (last: a results directory without it is from an unfinished run) and
        put a results directory in place as a whole."""
        try:
            if self.manifest_path is None:
                return
            base = os.path.dirname(os.path.abspath(self.manifest_path))
            self.manifest.update(seed=seed, backend=backend,
                                 outputs=[os.path.relpath(os.path.abspath(p), base) for p in self.written])
            self.manifest.write(self._where(self.manifest_path))
            if self.results is not None and self.results.staged is not None:
                self.results.commit({*self.known, *(os.path.basename(p) for p in self.written
                                                    if self._where(p) != p)})
            elif self.single is not None and self.single.staged is not None:
                self.single.commit()
            self.written.append(self.manifest_path)
        finally:
            self.close()

    def close(self) -> None:
        """Drop an unfinished staging folder and the claims (also when the command failed)."""
        if self.results is not None:
            self.results.close()
        if self.single is not None:
            self.single.close()
        if self.claim is not None:
            self.claim.release()
        with contextlib.suppress(ValueError):
            _OPEN_RUNS.remove(self)

    def report_written(self) -> None:
        for path in self.written:
            print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
