"""``rapids-balance generate``: write a seeded synthetic graph as CSV or Parquet."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import nullcontext
from importlib.util import find_spec
from typing import Any

__all__ = ["register", "write_edges"]

KINDS = ("powerlaw", "planted", "weighted")
SUFFIXES = (".csv", ".csv.gz", ".parquet")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``generate`` sub-command."""
    p = subparsers.add_parser(
        "generate", help="write a seeded synthetic graph (power-law, planted partition, weighted)",
        description="Draw a seeded synthetic graph and write its edge table (src,dst,sign[,weight]; "
                    "weighted: src,dst,weight) as CSV (.csv, .csv.gz) or Parquet (.parquet).  "
                    "The same seed gives the same file on any machine and thread count.  "
                    "powerlaw: Chung-Lu signed graph; planted: k groups, positive inside, negative "
                    "across, signs flipped with probability --flip (--partition writes the planted "
                    "groups); weighted: unsigned graph with edge weights (betweenness).")
    p.add_argument("kind", choices=KINDS, help="which generator")
    p.add_argument("--edges", type=int, required=True, metavar="N", help="edges to draw")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", required=True, metavar="FILE", help="output file: .csv, .csv.gz or .parquet")
    p.add_argument("--exponent", type=_exponent, default=None, metavar="GAMMA",
                   help="degree exponent in (2, 10], or 'none' for an Erdos-Renyi graph "
                        "(default 2.5; planted: none)")
    p.add_argument("--mean-degree", type=float, default=8.0, help="mean degree (default 8)")
    p.add_argument("--negative-share", type=float, default=0.2,
                   help="powerlaw: probability of a negative edge (default 0.2)")
    p.add_argument("--groups", type=int, default=2, help="planted: number of groups (default 2)")
    p.add_argument("--flip", type=float, default=0.05,
                   help="planted: probability that a sign is flipped (default 0.05)")
    p.add_argument("--weights", choices=("none", "integer", "uniform"), default=None,
                   help="edge weights: none, uniform integers or uniform reals in --weight-range "
                        "(default: none; weighted: integer)")
    p.add_argument("--weight-range", type=float, nargs=2, default=(1, 10), metavar=("LOW", "HIGH"),
                   help="weights lie in [LOW, HIGH] (default 1 10)")
    p.add_argument("--component", choices=("largest", "all"), default="largest",
                   help="keep the largest connected component (default) or every vertex with an edge")
    p.add_argument("--partition", metavar="FILE", help="planted: also write vertex,group here")
    p.add_argument("--quiet", action="store_true", help="no summary")
    p.set_defaults(func=_run)
    return p


def _exponent(text: str) -> float | str:
    return "none" if text.strip().lower() == "none" else float(text)


def check_output_path(path: str, option: str = "--out") -> str:
    """The file format of ``path`` by suffix; refuses an unknown suffix, a missing folder,
    or Parquet without pyarrow."""
    low = str(path).lower()
    suffix = next((s for s in SUFFIXES if low.endswith(s)), None)
    if suffix is None:
        raise ValueError(f"{option} {path}: unknown file type; use one of {', '.join(SUFFIXES)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{option} {path}: the folder {folder} does not exist")
    if suffix == ".parquet" and find_spec("pyarrow") is None:
        raise ImportError(f"{option} {path}: Parquet needs pyarrow (pip install 'rapids-balance[io]')")
    return suffix


def write_edges(table, path: str) -> None:
    """Write a pandas table as CSV / gzip CSV / Parquet by suffix, atomically.

    The data goes to a temporary file in the target folder, renamed over
    ``path`` only when complete: a reader never sees a half-written file.
    CSV is written by pyarrow where installed (much faster), else by pandas.
    """
    suffix = check_output_path(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        if suffix == ".parquet":
            table.to_parquet(tmp, index=False)
        elif find_spec("pyarrow") is None:
            table.to_csv(tmp, index=False, compression="gzip" if suffix == ".csv.gz" else None)
        else:
            _arrow_csv(table, tmp, gzip=suffix == ".csv.gz")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _arrow_csv(table, path: str, *, gzip: bool) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    with pa.OSFile(path, "wb") as raw, \
            pa.CompressedOutputStream(raw, "gzip") if gzip else nullcontext(raw) as sink:
        pacsv.write_csv(arrow, sink, _csv_options(pacsv))


def _csv_options(pacsv):
    try:  # a plain header (pyarrow >= 19); older versions quote the column names
        return pacsv.WriteOptions(quoting_header="none")
    except TypeError:
        return pacsv.WriteOptions()


def _umask() -> int:
    # mkstemp creates mode 0600; the finished file gets the mode a plain open() would give
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _run(args) -> int:
    from ._generate import planted_partition_graph, powerlaw_signed_graph, weighted_graph

    check_output_path(args.out)
    if args.partition is not None:
        if args.kind != "planted":
            raise ValueError("--partition: only the planted generator has a partition")
        check_output_path(args.partition, "--partition")
    kw: dict[str, Any] = dict(mean_degree=args.mean_degree, seed=args.seed, component=args.component,
                              weight_range=_weight_range(args), as_frame=True)
    if args.exponent is not None:
        kw["exponent"] = None if args.exponent == "none" else args.exponent
    if args.weights is not None:
        kw["weights"] = None if args.weights == "none" else args.weights
    start = time.perf_counter()
    if args.kind == "powerlaw":
        table = powerlaw_signed_graph(args.edges, negative_share=args.negative_share, **kw)
        extra = ""
    elif args.kind == "planted":
        pp = planted_partition_graph(args.edges, n_groups=args.groups, flip=args.flip, **kw)
        table = pp.graph
        extra = (f"; planted partition: {pp.disagreements} disagreeing edges, imbalance "
                 f"{pp.imbalance:g}")
        if args.partition is not None:
            write_edges(pp.partition, args.partition)
    else:
        table = weighted_graph(args.edges, **kw)
        extra = ""
    write_edges(table, args.out)
    if not args.quiet:
        print(f"{args.kind}: {len(table)} edges{extra} ({time.perf_counter() - start:.2f} s)")
        print(f"written: {args.out}", file=sys.stderr)
    return 0


def _weight_range(args) -> tuple:
    low, high = args.weight_range
    integer = args.kind == "weighted" and args.weights in (None, "integer") or args.weights == "integer"
    if integer and float(low).is_integer() and float(high).is_integer():
        return int(low), int(high)
    return low, high
