"""read_edgelist: file -> parsed table -> column roles -> exact ids -> cleaned graph."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from ..errors import GraphFormatError, GraphInputError, short_repr
from .._build import ID_RULES, build_from_columns, check_build_options, exact_int_array
from .._containers import CleaningReport, Graph, SignedGraph
from ._labels import relabel_from_table
from ._formats import Parsed, as_floats, canonical_format, noncanonical_ints, parse
from ._roles import Roles, WHY_USER, recognised_role, resolve_roles
from ._sources import Source, open_source

__all__ = ["graph_from_source", "check_read_options", "first_value_row"]

#: integer ids are read up to this many digits (Python refuses longer int() conversions)
MAX_ID_DIGITS = 4000
#: headerless formats whose layout fixes the value (sign/weight) column, and the column count it needs
_FIXED_VALUE = {"bitcoin": None, "konect": None, "levorato": None, "mrel": None, "snap": 3, "csv": 3}


def _display_name(name: str) -> str:
    """Graph name: the file's base name without compression/format suffixes."""
    base = os.path.basename(name.split(":")[-1] if ":" in name and not os.path.exists(name) else name)
    for suffix in (".gz", ".bz2", ".xz", ".tar", ".csv", ".txt", ".tsv", ".parquet", ".g"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def _column_label(parsed: Parsed, key: Any) -> str:
    return short_repr(key, 40) if parsed.header else f"(position {key})"


def _resolve(parsed: Parsed, given: dict[str, Any], signed: bool | None, name: str) -> Roles:
    """Column roles for a parsed file (see :mod:`rapids_balance.io._roles`)."""
    columns = list(parsed.frame.columns)
    fixed = None
    if not parsed.header and parsed.format in _FIXED_VALUE:
        needs = _FIXED_VALUE[parsed.format]
        fixed = 2 if needs is None or len(columns) == needs else None
    return resolve_roles(columns, given, where=name, header=parsed.header, fmt=parsed.format,
                         fixed_value=fixed, want_sign=signed, value_as="weight" if signed is False else "sign",
                         weight_as_sign=parsed.format == "graphb", take_weight=False, what="the file")


def _value_column(parsed: Parsed, key: Any, role: str, name: str) -> np.ndarray:
    """A sign/weight column as numbers; text, booleans and huge values are named with their line."""
    col = parsed.frame[key]
    line = parsed.locate
    if col.dtype.kind == "b":
        raise GraphFormatError(
            f"{role} column {_column_label(parsed, key)} holds true/false values: is false a negative edge "
            "or a zero? Write the signs as numbers (+1/-1) in the file, or read it into a table and map "
            "them explicitly", path=name, line=line(0) if line else None)
    if col.dtype.kind not in "iuf":
        num = as_floats(col)
        bad = ~np.isfinite(num)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise GraphFormatError(f"{role} column {_column_label(parsed, key)} has value "
                                   f"{short_repr(col.iloc[r])}, not a finite number (data row {r + 1})",
                                   path=name, line=line(r) if line else None)
        return num
    return col.to_numpy()


def _check_weight_header_signs(parsed: Parsed, key: Any, values: np.ndarray, name: str) -> None:
    """A weight-named column taken as the sign (graphB+'s layout) must hold signs, not lengths.

    graphB+ writes its signs as -1/+1 under a ``Weight`` header; a file whose
    ``weight`` column holds lengths or strengths (2.5, 0.7) would otherwise
    become an all-positive signed graph with its weights dropped.
    """
    bad = ~np.isin(values, (-1, 0, 1))
    if not bad.any():
        return
    r = int(np.flatnonzero(bad)[0])
    raise GraphFormatError(
        f"column {_column_label(parsed, key)} was taken as the sign (graphB+'s layout: a weight header "
        f"after the two endpoints is the sign) but holds {short_repr(values[r].item())} (data row {r + 1}), "
        "not a sign -1, 0 or +1: name the sign column with sign=<column> (CLI: --sign COL), this column "
        "itself if the signs of its values are the edge signs, or read it unsigned (signed=False)", path=name, line=parsed.locate(r) if parsed.locate else None)


def _ids_from_text(u: np.ndarray, v: np.ndarray, ids: str, name: str, report: CleaningReport,
                   locate) -> tuple[np.ndarray, np.ndarray]:
    """Endpoint ids from their exact text, under the ``ids`` rule (merges counted)."""
    both = pd.Series(np.concatenate([u, v]), dtype=object).str.strip()
    codes, spellings = pd.factorize(both)
    n = u.size
    if ids == "text":
        labels = np.asarray(spellings, dtype=object)
        return labels[codes[:n]], labels[codes[n:]]
    texts = list(spellings)
    bare = [t[1:] if t[:1] in "+-" else t for t in texts]
    if not all(b.isdigit() and b.isascii() for b in bare):
        labels = np.asarray(spellings, dtype=object)
        return labels[codes[:n]], labels[codes[n:]]
    too_long = [k for k, b in enumerate(bare) if len(b) > MAX_ID_DIGITS]
    if too_long:
        k = too_long[0]
        row = int(np.flatnonzero(codes == k)[0])
        raise GraphFormatError(
            f"vertex id {short_repr(texts[k])} has {len(bare[k])} digits; integer ids are read up to "
            f"{MAX_ID_DIGITS} digits: pass ids='text' to keep ids as text (CLI: --ids text)", path=name,
            line=locate(row % n) if locate else None)
    values = [int(t) for t in texts]
    merged = len(values) - len(set(values))
    if merged:
        first: dict[int, str] = {}
        for t, val in zip(texts, values):
            if val in first:
                example = f"{first[val]!r} and {t!r} are both vertex {val}"
                break
            first[val] = t
        report.id_spellings_merged += merged
        report.notes.append(f"{merged} vertex id spelling(s) merged into the same integer ({example}); "
                            "pass ids='text' to keep such ids distinct")
    labels = exact_int_array(values)
    return labels[codes[:n]], labels[codes[n:]]


def _endpoints(parsed: Parsed, roles: Roles, ids: str, name: str, report: CleaningReport):
    """Exact endpoint ids: integer columns as they are, otherwise from the text (see Notes of read_edgelist)."""
    frame = parsed.frame
    u, v = frame[roles.source], frame[roles.target]
    if parsed.format == "parquet":
        return u.to_numpy(), v.to_numpy()  # typed columns: ids as stored
    if (ids == "auto" and u.dtype.kind in "iu" and v.dtype.kind in "iu"
            and not noncanonical_ints(parsed.data)):
        return u.to_numpy(), v.to_numpy()
    if not (pd.api.types.is_string_dtype(u) and pd.api.types.is_string_dtype(v)):
        # a number column lost its spelling (007 -> 7, 1.0 -> 1): read the text again
        text = parse(parsed.data, name, parsed.format, all_text=True).frame
        pos = list(frame.columns)
        u, v = text.iloc[:, pos.index(roles.source)], text.iloc[:, pos.index(roles.target)]
    return _ids_from_text(u.to_numpy(dtype=object), v.to_numpy(dtype=object), ids, name, report, parsed.locate)


def graph_from_source(src: Source, *, format: str = "auto", source: Any = None, target: Any = None,
                      sign: Any = None, weight: Any = None, signed: bool | None = True, directed: bool = False,
                      conflicts: str = "first", zero_sign: str = "positive", component: str = "largest",
                      numbering: str = "sorted", ids: str = "auto", vertex_table: Any = None,
                      name: str | None = None) -> Graph:
    """:func:`read_edgelist` on an already opened :class:`Source`."""
    check_read_options("read_edgelist", format=format, signed=signed, directed=directed, conflicts=conflicts,
                       zero_sign=zero_sign, component=component, numbering=numbering, ids=ids)
    if signed and directed:
        raise GraphInputError("signed graphs are undirected; pass signed=False for a directed graph")
    if signed is False and sign is not None:
        raise GraphInputError("sign= needs signed=True (signed=False builds an unsigned graph)")
    parsed = parse(src.data, src.name, format)
    use_abs = isinstance(weight, str) and weight == "abs" and "abs" not in parsed.frame.columns
    given = {"source": source, "target": target, "sign": sign, "weight": None if use_abs else weight}
    if use_abs and signed is None:
        signed = True  # 'abs' is the magnitude of the sign column
    roles = _resolve(parsed, given, False if directed else signed, src.name)

    sgn = None if roles.sign is None else _value_column(parsed, roles.sign, "sign", src.name)
    if sgn is not None and roles.why.get("sign") != WHY_USER and recognised_role(roles.sign) == "weight":
        _check_weight_header_signs(parsed, roles.sign, sgn, src.name)
    wgt = None if roles.weight is None else _value_column(parsed, roles.weight, "weight", src.name)
    if use_abs:
        if sgn is None and wgt is None:
            raise GraphInputError(f"{src.name}: weight='abs' needs a sign or value column; name it with sign=")
        wgt = np.abs(sgn if sgn is not None else wgt).astype(np.float64)

    report = CleaningReport(source=src.name, source_sha256=src.sha256, source_bytes=src.raw_bytes,
                            comment_lines=parsed.comment_lines, notes=list(parsed.notes),
                            columns=roles.report(), ids=ids)
    if use_abs:
        report.columns["weight"] = {"column": "abs", "why": WHY_ABS}
    if src.compression:
        report.notes.insert(0, f"{src.compression}-compressed" if " inside " not in src.compression
                            else f"compressed: {src.compression} (every layer decompressed)")
    report.notes[:0] = src.notes
    if parsed.header_line is not None:
        report.header_lines = 1
        cols = ", ".join(short_repr(c, 40) for c in parsed.frame.columns)
        report.notes.append(f"line {parsed.header_line} read as a header (column names: {cols})")
    if roles.unused:
        report.notes.append(f"column(s) {', '.join(_column_label(parsed, c) for c in roles.unused)} not used")
    u, v = _endpoints(parsed, roles, ids, src.name, report)
    columns = {"src": u, "dst": v, "sign": sgn, "weight": wgt}
    graph_class = SignedGraph if sgn is not None else Graph
    # the build frees each column once it is used up: no other reference to the table is kept
    parsed.frame = None
    del u, v, sgn, wgt
    graph = build_from_columns(columns, directed=directed, conflicts=conflicts, zero_sign=zero_sign,
                               component=component, numbering=numbering,
                               name=name or _display_name(src.name), graph_class=graph_class,
                               report=report, locate=_release_text(src, parsed))
    if parsed.declared_vertices is not None and report.vertices_in_input != parsed.declared_vertices:
        report.notes.append(f"{report.vertices_in_input} distinct vertex ids appear in the edges "
                            f"(declared: {parsed.declared_vertices}; vertices without edges are not stored)")
    if vertex_table is not None:
        graph = relabel_from_table(graph, vertex_table)
    return graph


WHY_ABS = "absolute value of the sign column (weight='abs')"


def first_value_row(path_or_buffer: Any, bad: Any, *, format: str = "auto", member: str | None = None,
                    source: Any = None, target: Any = None, weight: Any = None
                    ) -> tuple[int | None, int, float] | None:
    """The first row whose value (weight) column value satisfies ``bad`` (a numpy predicate):
    ``(line in the file or None, data row counted from 1, value)``, or None.

    The error path of a check made on the built graph (rows merged or left out
    by the cleaning rules are no longer rows there): the file is read again
    with the same column roles as ``read_edgelist(..., signed=False)``.
    """
    src = open_source(path_or_buffer, member=member)
    parsed = parse(src.data, src.name, format)
    roles = _resolve(parsed, {"source": source, "target": target, "sign": None, "weight": weight}, False,
                     src.name)
    if roles.weight is None:
        return None
    values = _value_column(parsed, roles.weight, "weight", src.name).astype(np.float64)
    hits = np.flatnonzero(bad(values))
    if not hits.size:
        return None
    row = int(hits[0])
    return (parsed.locate(row) if parsed.locate else None), row + 1, float(values[row])


def _release_text(src: Source, parsed: Parsed):
    """The row -> line locator for the graph build, with the file's text dropped first when the
    file can be read again (16 bytes per edge of a 10^7-edge CSV the build can use); an error
    found later re-reads and re-parses the file to name its line."""
    if not src.release():
        return parsed.locate
    reload, name, fmt, had_locate = src.reload, src.name, parsed.format, parsed.locate is not None
    parsed.data, parsed.locate = b"", None
    if not had_locate:
        return None

    def locate(row: int) -> int:
        return parse(reload(), name, fmt).locate(row)

    return locate


def check_read_options(owner: str, *, format: Any = "auto", signed: Any = True, directed: Any = False,
                       member: Any = None, name: Any = None, **cleaning: Any) -> None:
    """Every keyword of :func:`read_edgelist`, checked before the file is opened."""
    from .._validation import check_bool, param_error

    canonical_format(format, owner)
    if signed is not None:
        check_bool(signed, "signed", owner)
    from .._validation import check_choice

    check_choice(cleaning.pop("ids", "auto"), "ids", owner, ID_RULES)
    check_build_options(owner, directed=directed, **cleaning)
    for key, val in (("member", member), ("name", name)):
        if val is not None and not isinstance(val, str):
            raise param_error(key, owner, "a str or None", val)
