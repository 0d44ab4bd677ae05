"""Edge lists that come in parts: a Parquet dataset (a folder or a glob) or a Dask DataFrame.

Large edge lists come as many files or as a Dask DataFrame whose
partitions are read where they lie.  :class:`EdgeParts` is such an input
with its column roles decided and every part's columns checked *before*
anything is read: for a dataset, from each file's Parquet footer (names,
types and, where the writer kept them, null counts), so a bad file is named,
with its column, before work starts; for a Dask DataFrame, from its
metadata.  Then each part is read on its own (:meth:`EdgeParts.read`, the
role columns only) and the parts' columns are joined in part order and
cleaned once (:meth:`EdgeParts.build`): the graph equals the one read from
the same rows in one table, bit for bit.

One process reads every part itself (``read_edgelist(folder)``); a Dask
cluster reads each part on a worker and builds the graph on one of them
(:func:`rapids_balance.distributed.cluster_graph`), so the client never
holds the edges.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._build import build_from_columns
from .._containers import CleaningReport, Graph, SignedGraph
from .._paths import is_dataset_path
from ..errors import GraphFormatError, GraphInputError, short_repr
from ._frames import _check_no_missing, _get_column
from ._roles import resolve_roles

__all__ = ["EdgeParts", "dataset_files", "dataset_parts", "frame_parts", "is_dataset_path"]

_ROLES = ("source", "target", "sign", "weight")


def _hidden(name: str) -> bool:
    # as pyarrow's datasets: "_SUCCESS", "_metadata", ".crc" files are not data
    return name.startswith((".", "_"))


def dataset_files(path: Any) -> list[str]:
    """The data files of a Parquet dataset: a folder (walked, hidden names skipped) or a glob,
    sorted by path (the part order, hence the row order)."""
    p = os.fspath(path)
    if os.path.isdir(p):
        files = []
        for top, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not _hidden(d))
            files += [os.path.join(top, f) for f in names if not _hidden(f)]
        if not files:
            raise GraphInputError(f"{p}: is a directory, not an edge-list file, and holds no data "
                                  "file to read as a Parquet dataset (a folder of .parquet files)")
        return sorted(files)
    files = sorted(f for f in glob.glob(p, recursive=True) if os.path.isfile(f))
    if not files:
        raise GraphInputError(f"{p}: no file matches this pattern")
    return files


def _footer(path: str) -> tuple[Any, int, dict[str, int]]:
    """(arrow schema, rows, {column: nulls the writer counted}) from a Parquet file's footer."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        from ..errors import missing_extra

        raise missing_extra("pyarrow", f"{path}: reading a Parquet dataset") from exc
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own error types
        raise GraphFormatError(f"not a Parquet file ({type(exc).__name__}: {exc}); a Parquet dataset "
                               "holds only Parquet files", path=path) from None
    md = pf.metadata
    nulls: dict[str, int] = {}
    for rg in range(md.num_row_groups):
        group = md.row_group(rg)
        for j in range(group.num_columns):
            col = group.column(j)
            stats = col.statistics
            if stats is not None and stats.has_null_count and stats.null_count:
                name = col.path_in_schema
                nulls[name] = nulls.get(name, 0) + int(stats.null_count)
    return pf.schema_arrow, int(md.num_rows), nulls


def _type_kind(arrow_type: Any) -> str:
    """'int', 'float', 'bool', 'text' or the type's own name."""
    import pyarrow as pa

    if pa.types.is_integer(arrow_type):
        return "int"
    if pa.types.is_floating(arrow_type):
        return "float"
    if pa.types.is_boolean(arrow_type):
        return "bool"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "text"
    return str(arrow_type)


@dataclass
class EdgeParts:
    """An edge list in parts, its column roles decided and its parts' columns checked.

    Attributes
    ----------
    where : str
        The dataset's path or the table's name (messages, the cleaning report).
    kind : str
        ``"parquet"`` (``sources`` are file paths) or ``"dask"`` (the parts are
        the partitions of ``frame``).
    sources : list
        The files, in part order (empty for a Dask DataFrame).
    roles : dict
        ``{role: column}`` of the roles played.
    report_columns : dict
        The roles and why each was chosen (``CleaningReport.columns``).
    notes : list of str
    graph_class : type
    options : dict
        The cleaning options of the build (``name`` included).
    token : str
        What names this input on a cluster: the files with their sizes and
        times, or the Dask graph's token, with the roles and options.
    frame : dask.dataframe.DataFrame or None
        The partitions' source; not pickled (the workers get the partitions).
    """

    where: str
    kind: str
    sources: list
    roles: dict
    report_columns: dict
    notes: list
    graph_class: type
    options: dict
    token: str
    frame: Any = field(default=None, repr=False)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["frame"] = None  # the partitions travel as Dask's tasks, never with this object
        return state

    @property
    def columns(self) -> list:
        """The role columns, each once, in role order."""
        out = []
        for role in _ROLES:
            key = self.roles.get(role)
            if key is not None and key not in out:
                out.append(key)
        return out

    def pieces(self) -> list:
        """The parts to read: file paths, or the Dask DataFrame's partitions (delayed objects of
        its role columns only)."""
        if self.kind == "parquet":
            return list(self.sources)
        return list(self.frame[self.columns].to_delayed())

    def slim(self) -> "EdgeParts":
        """What the read and build tasks carry: this without the list of files (each read
        task gets its own path), so a dataset of many files costs each task a few bytes."""
        return dataclasses.replace(self, sources=[], frame=None)

    def read(self, part: Any, index: int) -> dict[str, Any]:
        """One part's role columns as numpy: ``part`` is a file path or a pandas partition."""
        where = part if self.kind == "parquet" else f"{self.where} (partition {index})"
        if self.kind == "parquet":
            import pyarrow.parquet as pq

            try:
                part = pq.read_table(part, columns=self.columns).to_pandas()
            except Exception as exc:
                raise GraphFormatError(f"cannot read Parquet ({type(exc).__name__}: {exc})",
                                       path=where) from None
        out: dict[str, Any] = {}
        for role in _ROLES:
            key = self.roles.get(role)
            if key is None:
                out[role] = None
                continue
            arr = _get_column(part, "pandas", key)
            _check_no_missing(arr, f"{where}: {role} column {short_repr(key, 40)}")
            if role in ("sign", "weight") and arr.dtype.kind not in "iuf":
                raise GraphInputError(f"{where}: {role} column {short_repr(key, 40)} holds "
                                      f"{arr.dtype} values, not numbers")
            out[role] = arr
        return out

    def build(self, *parts: dict[str, Any]) -> Graph:
        """The graph of every part's columns joined in part order: the same graph as the same
        rows read in one table."""
        def joined(role: str) -> Any:
            if parts[0][role] is None:
                return None
            cols = [p[role] for p in parts]
            return cols[0] if len(cols) == 1 else np.concatenate(cols)

        columns = {"src": joined("source"), "dst": joined("target"), "sign": joined("sign"),
                   "weight": joined("weight")}
        parts = ()  # the joined columns only, from here: the build frees each once used
        report = CleaningReport(source=self.where, columns=dict(self.report_columns),
                                notes=list(self.notes))
        return build_from_columns(columns, graph_class=self.graph_class, report=report,
                                  **self.options)

    def read_all(self) -> Graph:
        """Every part read here, in order, and the graph built: the single-process path."""
        return self.build(*(self.read(p, i) for i, p in enumerate(self.pieces())))


def _digest(*items: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for item in items:
        h.update(repr(item).encode() + b"\0")
    return h.hexdigest()


def _class_for(signed: bool | None, has_sign: bool) -> type:
    if signed is False:
        return Graph
    return SignedGraph if (signed or has_sign) else Graph


def dataset_parts(path: Any, *, format: str = "auto", source: Any = None, target: Any = None,
                  sign: Any = None, weight: Any = None, signed: bool | None = True,
                  directed: bool = False, conflicts: str = "first", zero_sign: str = "positive",
                  component: str = "largest", numbering: str = "sorted", name: str | None = None,
                  **unsupported: Any) -> EdgeParts:
    """A Parquet dataset (a folder or a glob) as :class:`EdgeParts`, every file's footer checked.

    Raises
    ------
    GraphFormatError
        A file that is not Parquet (named).
    GraphInputError
        A role column missing from a file, a column whose type differs between
        files, a sign or weight column that is not numeric, a role column with
        missing values (from the footers' counts), an option a dataset does
        not take: each message names the file and the column.
    """
    where = os.fspath(path)
    for key, val in unsupported.items():
        if val not in (None, "auto", "cpu"):
            raise GraphInputError(f"{where}: {key}={short_repr(val, 40)} does not apply to a Parquet "
                                  "dataset (read each file with read_edgelist to use it)")
    if format not in ("auto", "parquet"):
        raise GraphInputError(f"{where}: a folder or a glob is read as a Parquet dataset; "
                              f"format={format!r} does not apply")
    if isinstance(weight, str) and weight == "abs":
        raise GraphInputError(f"{where}: weight='abs' is not supported for a Parquet dataset; "
                              "name the weight column")
    if signed and directed:
        raise GraphInputError("signed graphs are undirected; pass signed=False for a directed graph")
    files = dataset_files(where)
    footers = [_footer(f) for f in files]
    first_names = [str(n) for n in footers[0][0].names]
    given = {"source": source, "target": target, "sign": sign, "weight": weight}
    res = resolve_roles(first_names, given, where=files[0], header=True, fmt="parquet",
                        want_sign=False if directed else signed,
                        value_as="weight" if signed is False else "sign", take_weight=False,
                        what="the file")
    roles = {r: getattr(res, r) for r in _ROLES if getattr(res, r) is not None}
    kinds: dict[str, tuple[str, str]] = {}
    total = 0
    for f, (schema, rows, nulls) in zip(files, footers):
        names = [str(n) for n in schema.names]
        total += rows
        for role, key in roles.items():
            if key not in names:
                raise GraphInputError(
                    f"{f}: has no column {short_repr(key, 40)} (the {role} column of "
                    f"{files[0]}); its columns: {', '.join(short_repr(c, 40) for c in names)}")
            kind = _type_kind(schema.field(names.index(key)).type)
            if role in ("sign", "weight") and kind not in ("int", "float"):
                raise GraphInputError(f"{f}: {role} column {short_repr(key, 40)} holds {kind} "
                                      "values, not numbers")
            seen = kinds.setdefault(key, (kind, f))
            if seen[0] != kind and {seen[0], kind} != {"int", "float"}:
                raise GraphInputError(
                    f"{f}: column {short_repr(key, 40)} holds {kind} values, but {seen[1]} holds "
                    f"{seen[0]} values: one column has one type across the dataset")
            if nulls.get(key):
                raise GraphInputError(f"{f}: {role} column {short_repr(key, 40)} has {nulls[key]} "
                                      "missing value(s) (null)")
    notes = [f"Parquet dataset of {len(files)} file(s), {total} row(s), read file by file in "
             "path order"]
    if res.unused:
        notes.append(f"column(s) {', '.join(short_repr(c, 40) for c in res.unused)} not used")
    stamps = [(f, os.stat(f).st_size, os.stat(f).st_mtime_ns) for f in files]
    options = dict(directed=directed, conflicts=conflicts, zero_sign=zero_sign, component=component,
                   numbering=numbering, name=name or os.path.basename(where.rstrip(os.sep)))
    return EdgeParts(where=where, kind="parquet", sources=files, roles=roles,
                     report_columns=res.report(), notes=notes,
                     graph_class=_class_for(False if directed else signed, "sign" in roles),
                     options=options, token=_digest("parquet", stamps, roles, options))


def frame_parts(frame: Any, *, roles: dict[str, Any], want_sign: bool | None,
                graph_class: type | None, options: dict[str, Any]) -> EdgeParts:
    """A Dask DataFrame as :class:`EdgeParts`: roles from its columns (metadata only), as
    :func:`~rapids_balance.io._frames.table_to_graph` decides them for a table."""
    import dask.base

    where = options.get("name") or "<dask table>"
    columns = [c for c in frame.columns]
    res = resolve_roles(columns, roles, where=where, header=True, want_sign=want_sign,
                        what="the table")
    played = {r: getattr(res, r) for r in _ROLES if getattr(res, r) is not None}
    dtypes = frame.dtypes
    for role in ("sign", "weight"):
        key = played.get(role)
        if key is not None and dtypes[key].kind not in "iuf":
            raise GraphInputError(f"{where}: {role} column {short_repr(key, 40)} holds "
                                  f"{dtypes[key]} values, not numbers")
    notes = [f"Dask DataFrame of {frame.npartitions} partition(s), read partition by partition"]
    if res.unused:
        notes.append(f"column(s) {', '.join(short_repr(c, 40) for c in res.unused)} not used "
                     "(name them with sign=/weight= to use them)")
    cls = graph_class or (SignedGraph if "sign" in played else Graph)
    return EdgeParts(where=where, kind="dask", sources=[], roles=played,
                     report_columns=res.report(), notes=notes, graph_class=cls,
                     options=dict(options), frame=frame,
                     token=_digest("dask", dask.base.tokenize(frame), played, options, cls.__name__))
