"""``rapids-balance generate``: write a seeded synthetic graph as CSV or Parquet."""

from __future__ import annotations

import argparse
import gzip as _gzip
from contextlib import nullcontext
from importlib.util import find_spec
from typing import Any

from .._validation import check_int, check_number, check_seed, param_error
from ..cli import Run, add_output_arguments, check_plot, draw_plot, float_arg, int_arg, require_table_writer

__all__ = ["register", "write_edges"]

KINDS = ("powerlaw", "planted", "weighted")
SUFFIXES = (".csv", ".csv.gz", ".parquet")
COMMAND = "generate"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``generate`` sub-command."""
    p = subparsers.add_parser(
        "generate", help="write a seeded synthetic graph (power-law, planted partition, weighted)",
        description="Draw a seeded synthetic graph and write its edge table (src,dst,sign[,weight]; "
                    "weighted: src,dst,weight) as CSV (.csv, .csv.gz) or Parquet (.parquet), "
                    "and FILE.run.json beside it.  The same seed gives the same file on any "
                    "machine and thread count.  powerlaw: Chung-Lu signed graph; planted: k "
                    "groups, positive inside, negative across, signs flipped with probability "
                    "--flip (--partition writes the planted groups); weighted: unsigned graph "
                    "with edge weights (betweenness).")
    p.add_argument("kind", choices=KINDS, help="which generator")
    p.add_argument("--edges", type=int_arg, required=True, metavar="N", help="edges to draw")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="random seed (an int in [0, 2**63 - 1]; default 0)")
    add_output_arguments(p, "output file: .csv, .csv.gz or .parquet (its directory must exist)",
                         metavar="FILE")
    p.add_argument("--exponent", type=_exponent, default=None, metavar="GAMMA",
                   help="degree exponent in (2, 10], or 'none' for an Erdos-Renyi graph "
                        "(default 2.5; planted: none)")
    p.add_argument("--mean-degree", type=float_arg, default=8.0, help="mean degree (default 8)")
    p.add_argument("--negative-share", type=float_arg, default=None,
                   help="powerlaw: probability of a negative edge (default 0.2)")
    p.add_argument("--groups", type=int_arg, default=None, help="planted: number of groups (default 2)")
    p.add_argument("--flip", type=float_arg, default=None,
                   help="planted: probability that a sign is flipped (default 0.05)")
    p.add_argument("--weights", choices=("none", "integer", "uniform"), default=None,
                   help="edge weights: none, uniform integers or uniform reals in --weight-range "
                        "(default: none; weighted: integer)")
    p.add_argument("--weight-range", type=float_arg, nargs=2, default=None, metavar=("LOW", "HIGH"),
                   help="weights lie in [LOW, HIGH] (default 1 10)")
    p.add_argument("--component", choices=("largest", "all"), default="largest",
                   help="keep the largest connected component (default) or every vertex with an edge")
    p.add_argument("--partition", metavar="FILE", help="planted: also write vertex,group here")
    p.add_argument("--plot", metavar="FILE", help="draw the degree distribution (PNG, SVG or PDF by "
                   "suffix; needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="print only the result line (no file lines)")
    p.set_defaults(func=_run)
    return p


def _exponent(text: str) -> float | str:
    if text.strip().lower() == "none":
        return "none"
    return float_arg(text)


def check_output_suffix(path: str, option: str = "--out") -> str:
    """The table format of ``path`` by suffix: one of :data:`SUFFIXES`, else refused."""
    low = str(path).lower()
    suffix = next((s for s in SUFFIXES if low.endswith(s)), None)
    if suffix is None:
        raise param_error(option, COMMAND, f"a file name ending in {', '.join(SUFFIXES)}", path)
    require_table_writer(str(path), option)
    return suffix


def write_edges(table, path: str) -> None:
    """Write a pandas table as CSV / gzip CSV / Parquet by suffix, atomically.

    CSV is written by pyarrow where installed (several times faster than
    pandas on tens of millions of rows), else by pandas.
    """
    from .._files import atomic_open

    suffix = check_output_suffix(path)
    with atomic_open(path, "wb") as fh:  # through the descriptor: the temporary name is not reopened
        if suffix == ".parquet":
            table.to_parquet(fh, index=False)
        elif find_spec("pyarrow") is None:
            table.to_csv(fh, index=False, compression="gzip" if suffix == ".csv.gz" else None)
        else:
            _arrow_csv(table, fh, gzip=suffix == ".csv.gz")


def _arrow_csv(table, fh, *, gzip: bool) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    # GzipFile leaves ``fh`` open for the atomic commit (pyarrow's stream would close it)
    with (_gzip.GzipFile(fileobj=fh, mode="wb", compresslevel=6, mtime=0) if gzip
          else nullcontext(fh)) as sink:
        pacsv.write_csv(arrow, sink, _csv_options(pacsv))


def _csv_options(pacsv):
    try:  # a plain header (pyarrow >= 19); older versions quote the column names
        return pacsv.WriteOptions(quoting_header="none")
    except TypeError:
        return pacsv.WriteOptions()


def _not_for(args, option: str, value: Any, kinds: tuple[str, ...]) -> None:
    if value is not None and args.kind not in kinds:
        raise param_error(option, COMMAND, f"left out for {args.kind!r} (it is used by "
                          f"{' and '.join(kinds)} only)", value)


def _check_options(args) -> dict[str, Any]:
    """Every option, before any work; returns the generator's keyword arguments."""
    from ._generate import MAX_EDGES

    check_int(args.edges, "--edges", COMMAND, low=1, high=MAX_EDGES)
    check_seed(args.seed, COMMAND, name="--seed")
    check_number(args.mean_degree, "--mean-degree", COMMAND, low=1.0)
    _not_for(args, "--negative-share", args.negative_share, ("powerlaw",))
    _not_for(args, "--groups", args.groups, ("planted",))
    _not_for(args, "--flip", args.flip, ("planted",))
    _not_for(args, "--partition", args.partition, ("planted",))
    kw: dict[str, Any] = dict(mean_degree=args.mean_degree, seed=args.seed, component=args.component,
                              as_frame=True)
    if args.exponent is not None:
        kw["exponent"] = None if args.exponent == "none" else check_number(
            args.exponent, "--exponent", COMMAND, low=2.0, high=10.0, low_open=True)
    if args.weights is not None:
        kw["weights"] = None if args.weights == "none" else args.weights
    if args.weight_range is not None:
        kw["weight_range"] = _weight_range(args, kw.get("weights", "integer" if args.kind == "weighted" else None))
    if args.kind == "powerlaw" and args.negative_share is not None:
        kw["negative_share"] = check_number(args.negative_share, "--negative-share", COMMAND, low=0.0, high=1.0)
    if args.kind == "planted":
        if args.groups is not None:
            kw["n_groups"] = check_int(args.groups, "--groups", COMMAND, low=1)
        if args.flip is not None:
            kw["flip"] = check_number(args.flip, "--flip", COMMAND, low=0.0, high=1.0)
    check_output_suffix(args.out)
    if args.partition is not None:
        check_output_suffix(args.partition, "--partition")
    check_plot(args)
    return kw


def _weight_range(args, weights: str | None) -> tuple:
    """--weight-range as numbers the generator takes (ints for integer weights, when whole)."""
    low, high = args.weight_range
    if weights == "integer" and float(low).is_integer() and float(high).is_integer():
        return int(low), int(high)
    return low, high


def _run(args) -> int:
    from ._generate import planted_partition_graph, powerlaw_signed_graph, weighted_graph

    kw = _check_options(args)
    run = Run(args, files={"--out": args.out, "--partition": args.partition, "--plot": args.plot},
              manifest_beside=args.out)
    extra, planted = "", None
    with run.compute():
        if args.kind == "powerlaw":
            table = powerlaw_signed_graph(args.edges, **kw)
        elif args.kind == "planted":
            planted = planted_partition_graph(args.edges, **kw)
            table = planted.graph
            extra = (f"; planted partition: {planted.disagreements:,} disagreeing edges, imbalance "
                     f"{planted.imbalance:g}")
        else:
            table = weighted_graph(args.edges, **kw)
    with run.writing():
        write_edges(table, run.wrote(args.out))
        if planted is not None and args.partition is not None:
            write_edges(planted.partition, run.wrote(args.partition))
        from ..plot import degree_ccdf

        draw_plot(run, args, table, picture=degree_ccdf)
    run.finish(seed=args.seed)
    print(f"{args.kind}: {len(table):,} edges{extra}")
    if not args.quiet:
        run.report_written()
    return 0
