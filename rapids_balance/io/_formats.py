"""Edge-list file formats: detection and parsing into a table of columns.

Each parser turns the decompressed bytes of one file into a :class:`Parsed`
table (a pandas DataFrame plus what the file said about itself: comment
lines, declared sizes, lines that were not edges).  Column *meaning* (which
column is the source, the sign, the weight) is decided later by the reader.

Parsing uses pandas' C engine (Epinions, 841k lines, parses in well under a
second); comma-separated files first try pyarrow's multi-threaded reader
(:mod:`rapids_balance.io._arrow`), kept only when its table holds exactly
the values pandas would read.  When pandas fails, or a column comes back
with gaps or text where numbers belong, :func:`locate_problem` re-scans the
lines in Python to name the first bad line: the slow path only runs on bad
input.

Formats (``format=`` names; aliases in :data:`ALIASES`):

``graphb``
    CSV with one header line naming the columns, e.g. ``From_Tribe,To_Tribe,Weight``
    (graphB+) or ``Voter ID,Nominee ID,Vote``.
``csv``
    CSV without header, ``u,v,sign`` (NDS-VU signed-network-datasets; UTF-8
    BOM and CRLF accepted).
``snap``
    Whitespace/tab separated, ``#`` comment lines (SNAP signed networks).
``bitcoin``
    SNAP Bitcoin CSV ``source,target,rating,time`` without header.
``konect``
    KONECT ``out.*`` files: ``%`` header lines, whitespace separated, third
    column weight/sign, optional fourth column timestamp.
``levorato``
    ``.g`` files: first line ``n m``, then exactly ``m`` lines ``u v w``.
    Non-blank lines after the ``m`` declared edges are not edges: they are
    counted in the report notes and ignored.
``mrel``
    XPRESS-like instances (Levorato, Figueiredo-Moura): ``people: n``,
    ``VarErr:``, ``Names: [...]``, ``Mrel: [ (i,j)w ... ]``.
``parquet``
    Apache Parquet (read with pyarrow through pandas).
"""

from __future__ import annotations

import csv
import functools
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import GraphFormatError, short_repr
from ._arrow import arrow_available, read_comma_table
from ._roles import normalise_name, recognised_role

__all__ = ["FORMATS", "ALIASES", "Parsed", "detect_format", "parse", "check_text",
           "locate_problem", "canonical_format", "noncanonical_ints"]

FORMATS = ("graphb", "csv", "snap", "bitcoin", "konect", "levorato", "mrel", "parquet")
ALIASES = {
    "graphb+": "graphb", "graphbplus": "graphb", "header-csv": "graphb",
    "nds-vu": "csv", "ndsvu": "csv",
    "tsv": "snap", "txt": "snap", "edgelist": "snap",
    "g": "levorato", "xpress": "mrel",
}

_BOM = b"\xef\xbb\xbf"
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_INT_PAIR = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
# one Mrel entry: "(i,j)w" with any whitespace, e.g. "( 3 , 1 ) -1"
_MREL_ENTRY = re.compile(
    r"\(\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*\)\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
# what users tables (graphB+ *_users.csv) start with
_VERTEX_TABLE_HEADERS = ({"nodeid", "userid"}, {"nodeid", "label"}, {"id", "name"})


@dataclass
class Parsed:
    """A parsed file: columns plus what the file said about itself."""

    frame: pd.DataFrame
    format: str
    comment_lines: int = 0
    notes: list[str] = field(default_factory=list)
    header: bool = False           # columns are named by the file
    first_data_line: int = 1       # 1-based line of the first data row
    declared_vertices: int | None = None
    header_line: int | None = None  # 1-based line read as column names
    #: 0-based data row -> 1-based line (slow: only called on the error path)
    locate: Callable[[int], int] | None = None
    data: bytes = field(default=b"", repr=False)  # the text parsed (UTF-8), for the exact-id path


# ---------------------------------------------------------------------------
# text checks and detection
# ---------------------------------------------------------------------------

def canonical_format(fmt: str, owner: str = "read_edgelist") -> str:
    """The format's canonical name; aliases accepted, case-insensitive."""
    from .._validation import check_choice

    f = ALIASES.get(fmt.lower(), fmt.lower()) if isinstance(fmt, str) else fmt
    check_choice(f, "format", owner, ("auto", *FORMATS, *sorted(ALIASES)))
    return f


def _utf16(data: bytes) -> str | None:
    """'utf-32' / 'utf-16' (BOM), 'utf-16-le' / 'utf-16-be' (NUL every other byte), or None."""
    if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        return "utf-32"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    head = data[:4096]
    if len(head) >= 4:
        even, odd = head[0::2], head[1::2]
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
            return "utf-16-be"
    return None


def check_text(data: bytes, name: str, notes: list[str] | None = None) -> bytes:
    """Strip a UTF-8 BOM, decode UTF-16 (noted); reject empty and binary content with a clear error."""
    encoding = _utf16(data)
    if encoding is not None:
        try:
            data = data.decode(encoding).encode("utf-8")
        except UnicodeDecodeError as exc:
            raise GraphFormatError(f"looks like UTF-16 text but does not decode as {encoding} "
                                   f"(offset {exc.start}); re-save it as UTF-8", path=name) from None
        if notes is not None:
            notes.append(f"read as {encoding.upper()} text (decoded to UTF-8)")
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if not data.strip():
        raise GraphFormatError("empty file: no edge lines", path=name)
    if data[:4] == b"PK\x03\x04":
        raise GraphFormatError("a zip archive (or an Excel workbook), not a text edge list: unzip it, or "
                               "export the sheet as CSV", path=name)
    head = data[:65536]
    if b"\x00" in head:
        raise GraphFormatError(
            f"binary data (NUL byte at offset {head.find(0)}), not a text edge list; "
            "supported: text edge lists, gzip/bz2/xz of them, Parquet, tar archives", path=name)
    try:
        data.decode("utf-8")  # a C-speed pass (~10 ms for Epinions) that lets us name the line
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise GraphFormatError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "binary data, or text in another encoding (re-save it as UTF-8)", path=name, line=line) from None
    return data


def _head_lines(data: bytes, k: int = 40) -> list[tuple[int, str]]:
    """First ``k`` non-blank lines as (1-based line number, text)."""
    out = []
    text = data[:65536].decode("utf-8", errors="replace")
    for i, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            out.append((i, line.strip()))
            if len(out) >= k:
                break
    return out


def _split(line: str, sep: str | None) -> list[str]:
    if sep != ",":
        return line.split()
    if '"' in line:  # quoted fields: the csv module knows the quoting rules pandas applies
        return [f.strip() for f in next(csv.reader([line]))]
    return [f.strip() for f in line.split(sep)]


def looks_like_header(fields: list[str], following: list[str] | None) -> bool:
    """Is a first line of ``fields`` column names rather than an edge?

    Yes when a field is text where the next line has a number in that
    column, or (no such evidence either way) when every field is text and
    one is a recognised column name.  A data row is never taken: ``alice,bob,1``
    followed by ``bob,carol,-1`` is data; ``"1","2","-1"`` is data.
    """
    if following is not None and any(not _is_number(f) and _is_number(g) for f, g in zip(fields, following)):
        return True
    return all(not _is_number(f) for f in fields) and any(recognised_role(f) is not None for f in fields)


_SEP = np.zeros(256, bool)
_SEP[[9, 10, 13, 32, 44, 34, 39, 59]] = True  # \t \n \r space , " ' ;


def _token_start(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Whether each position starts a field (after a separator, or a +/- that does)."""
    prev = np.where(idx > 0, a[np.maximum(idx - 1, 0)], 10)
    prev2 = np.where(idx > 1, a[np.maximum(idx - 2, 0)], 10)
    return _SEP[prev] | (((prev == 43) | (prev == 45)) & _SEP[prev2])


def _second_spelling_vectorised(a: np.ndarray) -> bool:
    """:func:`noncanonical_ints` with numpy: no compiler needed, several full-size temporaries."""
    zero = a == 48
    digit_next = (a[1:] - 48) < 10  # uint8 wraps: only '0'..'9' are below 10
    lead = np.flatnonzero(zero[:-1] & digit_next)  # a '0' followed by a digit, e.g. inside 1005
    if lead.size and _token_start(a, lead).any():
        return True
    plus = np.flatnonzero((a[:-1] == 43) & digit_next)
    if plus.size and _token_start(a, plus + 1).any():
        return True
    minus0 = np.flatnonzero((a[:-1] == 45) & zero[1:])
    if minus0.size:
        after = np.where(minus0 + 2 < a.size, a[np.minimum(minus0 + 2, a.size - 1)], 10)
        return bool((_token_start(a, minus0 + 1) & ((after - 48 >= 10) & (after != 46))).any())
    return False


def _first_second_spelling(a: np.ndarray, sep: np.ndarray) -> int:
    """Offset of the first integer spelled with a leading zero, '+' or as '-0' (-1: none).

    The same rule as :func:`_second_spelling_vectorised` in one compiled
    pass: a field starts after a separator (or at offset 0), optionally
    with a sign; ``0`` followed by a digit there is a leading zero (``007``,
    ``-07``), a ``+`` followed by a digit is a plus sign, and ``-0`` not
    followed by a digit or ``.`` is minus zero.
    """
    n = a.size
    for i in range(n - 1):
        c = a[i]
        if c != 48 and c != 43 and c != 45:
            continue
        nxt = a[i + 1]
        if nxt < 48 or nxt > 57:  # not a digit
            if not (c == 45 and nxt == 48):
                continue
        prev = a[i - 1] if i > 0 else 10
        at_start = sep[prev]
        if c == 48:  # '0' then a digit, at a field start or after a sign that is
            prev2 = a[i - 2] if i > 1 else 10
            if at_start or ((prev == 43 or prev == 45) and sep[prev2]):
                return i
        elif c == 43:  # '+' then a digit, at a field start
            if at_start:
                return i
        elif nxt == 48 and at_start:  # '-0' not followed by a digit or '.'
            after = a[i + 2] if i + 2 < n else 10
            if (after < 48 or after > 57) and after != 46:
                return i
    return -1


@functools.cache
def _compiled_spelling_scan():
    import numba  # only for large files: reading a small one does not pay for numba's import

    return numba.njit(cache=True, nogil=True)(_first_second_spelling)


#: from this many bytes on, the compiled scan (about 0.1 s for 10^7 lines, against 2 s vectorised)
COMPILED_SCAN_BYTES = 1 << 22


def noncanonical_ints(data: bytes) -> bool:
    """Does any integer in ``data`` have a second spelling (leading zero, '+', '-0')?

    Such spellings (``007``, ``+7``) name the same integer as ``7``; when
    they sit in the endpoint columns the reader counts the merge.  A byte
    scan: vectorised for small files, one compiled pass from
    :data:`COMPILED_SCAN_BYTES` on; a hit only sends the reader down the
    exact text path, which decides from the ids themselves.
    """
    a = np.frombuffer(data, dtype=np.uint8)
    if a.size < 2:
        return False
    if a.size < COMPILED_SCAN_BYTES:
        return _second_spelling_vectorised(a)
    return _compiled_spelling_scan()(a, _SEP) >= 0


def _is_number(s: str) -> bool:
    return bool(_NUMBER.match(s))


def vertex_table_error(fields: list[str], name: str, line: int = 1) -> None:
    lowered = {normalise_name(f) for f in fields}
    for keys in _VERTEX_TABLE_HEADERS:
        if keys <= lowered:
            raise GraphFormatError(
                f"this is a vertex table (columns {', '.join(fields)}), not an edge list. "
                "Read the matching *_edges file; to use its names as vertex labels pass "
                "read_edgelist(edges, vertex_table=this_file)", path=name, line=line)


def detect_format(data: bytes, name: str) -> str:
    """Guess the format of decompressed ``data`` from its first lines."""
    if data[:4] == b"PAR1":
        return "parquet"
    lines = _head_lines(data)
    if not lines:
        raise GraphFormatError("empty file: no edge lines", path=name)
    lineno, first = lines[0]
    if first.startswith("%"):
        return "konect"
    if first.startswith("#"):
        return "snap"
    if re.match(r"(?i)people\s*:", first) or re.search(r"(?m)^\s*Mrel\s*:", data[:65536].decode("utf-8", "replace")):
        return "mrel"
    if "," in first:
        fields = _split(first, ",")
        following = _split(lines[1][1], ",") if len(lines) > 1 else None
        if looks_like_header(fields, following):
            vertex_table_error(fields, name, lineno)
            return "graphb"
        return "bitcoin" if len(fields) == 4 and all(_is_number(f) for f in fields) else "csv"
    pair = _INT_PAIR.match(first)
    if pair and len(lines) > 1 and len(lines[1][1].split()) >= 3:
        return "levorato"
    if pair and (_is_dot_g(name) or (int(pair.group(2)) == 0 and len(lines) == 1)):
        return "levorato"  # a .g header declaring no edges (nothing follows it to tell by)
    return "snap"


def _is_dot_g(name: str) -> bool:
    base = os.path.basename(str(name).split(":")[-1]).lower()
    for suffix in (".gz", ".bz2", ".xz"):
        base = base.removesuffix(suffix)
    return base.endswith(".g")


# ---------------------------------------------------------------------------
# error location (slow path, bad input only)
# ---------------------------------------------------------------------------

def locate_problem(data: bytes, *, sep: str | None, comment: str | None, skip_lines: int,
                   numeric: tuple[int, ...], n_fields: int | None,
                   required: tuple[int, ...] = (0, 1)) -> tuple[int, str] | None:
    """First bad data line as (1-based line number, what is wrong), or None.

    A line is bad when its field count differs from the first data line's
    (``n_fields`` when given), a ``required`` field is empty, or a field in
    ``numeric`` is not a finite number.
    """
    text = data.decode("utf-8", errors="replace")
    for i, line in enumerate(text.splitlines(), start=1):
        if i <= skip_lines:
            continue
        s = line.strip()
        if not s or (comment and s.startswith(comment)):
            continue
        fields = _split(s, sep)
        if n_fields is None:
            n_fields = len(fields)
        if len(fields) != n_fields:
            return i, (f"ragged line: {len(fields)} fields where the file's rows have {n_fields} "
                       f"({line.strip()[:80]!r})")
        for c in required:
            if c < len(fields) and fields[c] == "":
                return i, f"column {c + 1} is empty ({line.strip()[:80]!r})"
        for c in numeric:
            if c < len(fields):
                f = fields[c]
                if not _is_number(f):
                    what = "is empty" if f == "" else f"{f!r} is not a number"
                    return i, f"column {c + 1} (sign/weight): {what} ({line.strip()[:80]!r})"
    return None


# ---------------------------------------------------------------------------
# parsers
# ---------------------------------------------------------------------------

def _count_lines_starting(data: bytes, char: bytes) -> int:
    # bytes.count is a C scan, ~50x faster than a multiline regex on Epinions
    return data.count(b"\n" + char) + data.startswith(char)


def data_line_locator(data: bytes, *, comment: str | None, header: bool, line_offset: int = 0
                      ) -> Callable[[int], int]:
    """0-based data row -> 1-based line, skipping blank, comment and header lines as the parser did."""

    def locate(row: int) -> int:
        count = -1 - int(header)
        text = data.decode("utf-8", errors="replace")
        for i, line in enumerate(text.splitlines(), start=1):
            s = line.strip()
            if not s or (comment and s.startswith(comment)):
                continue
            count += 1
            if count == row:
                return i + line_offset
        return line_offset + 1

    return locate


def _read_table(data: bytes, name: str, *, sep: str | None, header: bool, comment: str | None,
                skip_lines: int = 0, value_cols: tuple[int, ...] = (2,), line_offset: int = 0,
                all_text: bool = False) -> pd.DataFrame:
    """pandas C-engine parse; on failure, name the first bad line."""
    try:
        frame = pd.read_csv(
            io.BytesIO(data), sep=r"\s+" if sep is None else sep, header=0 if header else None,
            comment=comment, skiprows=skip_lines or None, engine="c", skip_blank_lines=True,
            keep_default_na=False, na_values=[""], skipinitialspace=(sep == ","),
            dtype=str if all_text else None)
    except pd.errors.EmptyDataError:
        raise GraphFormatError("empty file: no edge lines (only comments or blank lines)", path=name) from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OverflowError) as exc:
        where = locate_problem(data, sep=sep, comment=comment, skip_lines=skip_lines + (1 if header else 0),
                               numeric=(), n_fields=None)
        if where:
            raise GraphFormatError(where[1], path=name, line=where[0] + line_offset) from None
        raise GraphFormatError(f"cannot parse ({short_repr(str(exc), 200)})", path=name) from None
    if frame.shape[0] == 0:
        what = "only a header line" if header else "only headers/comments"
        raise GraphFormatError(f"no edge lines ({what})", path=name)
    if frame.shape[1] < 2:
        raise GraphFormatError(
            f"only {frame.shape[1]} column found; an edge list needs source and target columns "
            f"(is the separator right? this file was read as {'whitespace' if sep is None else repr(sep)}-separated)",
            path=name, line=skip_lines + 1 + line_offset)
    if header:
        frame.columns = [str(c).strip() for c in frame.columns]
    if all_text:
        return frame
    bad = _first_bad_cell(frame, value_cols)
    if bad is not None:
        where = locate_problem(data, sep=sep, comment=comment, skip_lines=skip_lines + (1 if header else 0),
                               numeric=tuple(c for c in value_cols if c < frame.shape[1]),
                               n_fields=frame.shape[1])
        if where:
            raise GraphFormatError(where[1], path=name, line=where[0] + line_offset)
        row, message = bad
        locate = data_line_locator(data, comment=comment, header=header, line_offset=line_offset)
        raise GraphFormatError(message, path=name, line=locate(row))
    return frame


def as_floats(column: pd.Series) -> np.ndarray:
    """A text/object column as float64, NaN where a value is not a number (huge ints included)."""
    for values in (column, column.astype(str)):
        try:
            return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        except (OverflowError, ValueError, TypeError):  # ints past float range raise, even with coerce
            continue

    def one(x) -> float:
        try:
            return float(x)
        except (OverflowError, ValueError, TypeError):
            return np.nan

    return np.array([one(x) for x in column.tolist()], dtype=np.float64)


def _first_bad_cell(frame: pd.DataFrame, value_cols: tuple[int, ...]) -> tuple[int, str] | None:
    """(0-based row, description) of the first gap in any column or non-number in a value column."""
    for pos, col in enumerate(frame.columns):
        s = frame[col]
        label = f"column {pos + 1}" if isinstance(col, (int, np.integer)) else f"column {short_repr(col)}"
        if s.isna().any():
            r = int(np.flatnonzero(s.isna().to_numpy())[0])
            return r, f"{label} is missing a value in data row {r + 1}"
        if pos in value_cols and s.dtype.kind not in "biuf":
            bad = ~np.isfinite(as_floats(s))
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                return r, (f"{label} (sign/weight) has value {short_repr(s.iloc[r])}, not a "
                           f"finite number, in data row {r + 1}")
    return None


def _check_header(head: list[tuple[int, str]], name: str, sep: str | None) -> int:
    """The header line's number, checked: no duplicate names (pandas would rename them), and no
    first row longer than the header (pandas would silently make its first field an index).

    ``head`` holds the header line and the first data line as (line number, text).
    """
    line, text = head[0]
    fields = _split(text, sep)
    vertex_table_error(fields, name, line)
    if len(head) > 1 and len(_split(head[1][1], sep)) > len(fields):
        raise GraphFormatError(f"ragged line: {len(_split(head[1][1], sep))} fields where the header names "
                               f"{len(fields)} columns ({short_repr(head[1][1], 80)})", path=name, line=head[1][0])
    seen: dict[str, int] = {}
    for k, f in enumerate(fields):
        if f in seen:
            raise GraphFormatError(f"duplicate column name {short_repr(f)} in the header (columns "
                                   f"{seen[f] + 1} and {k + 1}); rename one", path=name, line=line)
        seen[f] = k
    return line


def _read_comma(data: bytes, name: str, *, header_fields: list[str] | None, value_cols: tuple[int, ...],
                all_text: bool) -> pd.DataFrame:
    """A comma-separated table: pyarrow's multi-threaded reader when it gives the exact reader's
    values (see :mod:`rapids_balance.io._arrow`), else pandas' C engine (which names bad lines)."""
    if not all_text and arrow_available():
        frame = read_comma_table(data, header_fields=header_fields)
        if frame is not None:
            return frame
    return _read_table(data, name, sep=",", header=header_fields is not None, comment=None,
                       value_cols=value_cols, all_text=all_text)


def _parse_delimited(data: bytes, name: str, fmt: str, all_text: bool = False) -> Parsed:
    if fmt == "graphb":
        head = _head_lines(data, 2)
        if all(_is_number(f) for f in _split(head[0][1], ",")):
            raise GraphFormatError(f"format 'graphb' needs a header line, but line {head[0][0]} is data "
                                   f"({short_repr(head[0][1], 60)}); use format='csv' for a headerless file",
                                   path=name, line=head[0][0])
        line = _check_header(head, name, ",")
        frame = _read_comma(data, name, header_fields=_split(head[0][1], ","), value_cols=(2,),
                            all_text=all_text)
        return Parsed(frame, fmt, header=True, first_data_line=line + 1, header_line=line,
                      locate=data_line_locator(data, comment=None, header=True))
    if fmt in ("csv", "bitcoin"):
        frame = _read_comma(data, name, header_fields=None, value_cols=(2, 3), all_text=all_text)
        return Parsed(frame, fmt, locate=data_line_locator(data, comment=None, header=False))
    if fmt == "snap":
        n_comment = _count_lines_starting(data, b"#")
        head = [ln for ln in _head_lines(data, 2 + n_comment) if not ln[1].startswith("#")][:2]
        header = bool(head) and looks_like_header(head[0][1].split(),
                                                  head[1][1].split() if len(head) > 1 else None)
        header_line = None
        if header:  # e.g. "FromNodeId ToNodeId Sign" without the '#'
            header_line = _check_header(head, name, None)
        frame = _read_table(data, name, sep=None, header=header, comment="#", value_cols=(2, 3),
                            all_text=all_text)
        return Parsed(frame, fmt, comment_lines=n_comment, header=header, header_line=header_line,
                      first_data_line=(header_line or 0) + 1,
                      locate=data_line_locator(data, comment="#", header=header))
    if fmt == "konect":
        n_comment = _count_lines_starting(data, b"%")
        frame = _read_table(data, name, sep=None, header=False, comment="%", value_cols=(2, 3),
                            all_text=all_text)
        notes = []
        m = re.search(rb"(?m)^%\s*(\d+)\s+(\d+)\s+(\d+)\s*$", data[:4096])
        declared = None
        if m:
            e, n1, n2 = (int(x) for x in m.groups())
            declared = max(n1, n2)
            notes.append(f"KONECT header declares {e} edges, {n1} x {n2} vertices")
        return Parsed(frame, fmt, comment_lines=n_comment, notes=notes, declared_vertices=declared,
                      locate=data_line_locator(data, comment="%", header=False))
    raise AssertionError(fmt)


def _parse_levorato(data: bytes, name: str, all_text: bool = False) -> Parsed:
    """``n m`` then exactly ``m`` edge lines; anything after is counted, not read."""
    lines = data.split(b"\n")
    head_idx = next(i for i, ln in enumerate(lines) if ln.strip())
    header = lines[head_idx].decode("utf-8", "replace").strip()
    m_ = _INT_PAIR.match(header)
    if not m_:
        raise GraphFormatError(f"a .g file starts with 'n m' (vertex and edge counts), found {header[:80]!r}",
                               path=name, line=head_idx + 1)
    n_decl, m_decl = int(m_.group(1)), int(m_.group(2))
    edge_idx: list[int] = []
    i = head_idx + 1
    # blank lines are rare; skip them without counting them as edges
    while i < len(lines) and len(edge_idx) < m_decl:
        if lines[i].strip():
            edge_idx.append(i)
        i += 1
    if len(edge_idx) < m_decl:
        raise GraphFormatError(
            f"the header declares {m_decl} edges but only {len(edge_idx)} edge lines follow",
            path=name, line=head_idx + 1)
    extra = [j for j in range(i, len(lines)) if lines[j].strip()]
    end = edge_idx[-1] + 1 if edge_idx else head_idx + 1
    body = b"\n".join(lines[head_idx + 1: end])
    if m_decl == 0:
        raise GraphFormatError(f"empty graph: the .g header declares {n_decl} vertices and 0 edges, so "
                               "there is nothing to analyse", path=name, line=head_idx + 1)
    frame = _read_table(body, name, sep=None, header=False, comment=None, value_cols=(2, 3),
                        line_offset=head_idx + 1, all_text=all_text)
    notes = [f".g header declares {n_decl} vertices and {m_decl} edges"]
    if extra:
        preview = lines[extra[0]].decode("utf-8", "replace").strip()[:40]
        notes.append(f"{len(extra)} non-blank line(s) after the {m_decl} declared edges were ignored "
                     f"(not edges; first at line {extra[0] + 1}: {preview!r})")
    return Parsed(frame, "levorato", notes=notes, first_data_line=head_idx + 2,
                  declared_vertices=n_decl,
                  locate=data_line_locator(body, comment=None, header=False, line_offset=head_idx + 1))


_MREL_COMPACT = re.compile(r"\([+-]?\d+,[+-]?\d+\)[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_MREL_PUNCT = str.maketrans({"(": " ", ")": " ", ",": " "})


def _raise_mrel_junk(text: str, body: str, start: int, name: str) -> None:
    """Name the line of the first text in the Mrel section that is not an '(i,j)w' entry."""
    prev = 0
    for mt in [*_MREL_ENTRY.finditer(body), None]:
        gap = body[prev: mt.start() if mt else len(body)]
        if gap.strip():
            bad_at = start + prev + (len(gap) - len(gap.lstrip()))
            snippet = text[bad_at: bad_at + 30].splitlines()[0]
            raise GraphFormatError(f"malformed Mrel entry {snippet!r}; expected '(i,j)w'",
                                   path=name, line=text.count("\n", 0, bad_at) + 1)
        if mt:
            prev = mt.end()
    raise GraphFormatError("malformed Mrel section", path=name)


def _parse_mrel(data: bytes, name: str, all_text: bool = False) -> Parsed:
    text = data.decode("utf-8", errors="replace")
    notes = []
    declared = None
    mp = re.search(r"(?im)^\s*people\s*:\s*(\d+)", text)
    if mp:
        declared = int(mp.group(1))
        notes.append(f"'people' declares {declared} vertices")
    mm = re.search(r"Mrel\s*:\s*\[", text)
    if not mm:
        raise GraphFormatError("no 'Mrel: [' section (expected XPRESS-like 'Mrel: [ (i,j)w ... ]')",
                               path=name, line=text.count("\n") + 1 if mp else 1)
    start = mm.end()
    close = text.find("]", start)
    if close < 0:
        raise GraphFormatError("the 'Mrel: [' section is never closed with ']'",
                               path=name, line=text.count("\n", 0, start) + 1)
    body = text[start:close]
    # whitespace may sit anywhere except inside a number; then the compact text
    # must be nothing but entries (a regex on the compact text is ~10x faster)
    if re.search(r"[\d.]\s+[\d.]", body) or _MREL_COMPACT.sub("", "".join(body.split())):
        _raise_mrel_junk(text, body, start, name)
    # well formed: drop the punctuation and read the numbers in one pass
    flat = body.translate(_MREL_PUNCT).split()
    if not flat:
        raise GraphFormatError("the Mrel section has no entries", path=name,
                               line=text.count("\n", 0, start) + 1)
    if all_text:
        ij = np.array(flat[0::3] + flat[1::3], dtype=object).reshape(2, -1)
    else:
        try:
            ij = np.array(flat[0::3] + flat[1::3], dtype=np.int64).reshape(2, -1)
        except OverflowError:  # ids past int64: read them exactly as text
            return _parse_mrel(data, name, all_text=True)
    frame = pd.DataFrame({0: ij[0], 1: ij[1], 2: pd.to_numeric(pd.Series(flat[2::3]))})

    def locate(row: int) -> int:
        for k, mt in enumerate(_MREL_ENTRY.finditer(body)):
            if k == row:
                return text.count("\n", 0, start + mt.start()) + 1
        return text.count("\n", 0, start) + 1

    return Parsed(frame, "mrel", notes=notes, first_data_line=text.count("\n", 0, start) + 1,
                  declared_vertices=declared, locate=locate)


def _parse_parquet(data: bytes, name: str) -> Parsed:
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except ImportError as exc:
        from ..errors import missing_extra

        raise missing_extra("pyarrow", f"{name}: reading Parquet") from exc
    except Exception as exc:  # pyarrow raises its own error types
        raise GraphFormatError(f"cannot read Parquet ({type(exc).__name__}: {exc})", path=name) from None
    if frame.shape[0] == 0:
        raise GraphFormatError("the Parquet table has no rows", path=name)
    if frame.shape[1] < 2:
        raise GraphFormatError(f"the Parquet table has {frame.shape[1]} column(s) "
                               f"[{', '.join(short_repr(str(c), 40) for c in frame.columns)}]; an edge list needs a "
                               "source and a target column", path=name)
    frame.columns = [str(c) for c in frame.columns]
    return Parsed(frame, "parquet", header=True)


def parse(data: bytes, name: str, fmt: str, *, all_text: bool = False) -> Parsed:
    """Parse decompressed ``data`` as ``fmt`` ("auto" detects it).

    ``all_text`` reads every column of a text format as strings (the exact
    spelling of each id); the reader asks for it only when ids need it.
    """
    fmt = canonical_format(fmt)
    if fmt == "parquet" or (fmt == "auto" and data[:4] == b"PAR1"):
        return _parse_parquet(data, name)
    notes: list[str] = []
    data = check_text(data, name, notes)
    if fmt == "auto":
        fmt = detect_format(data, name)
    if fmt == "levorato":
        parsed = _parse_levorato(data, name, all_text)
    elif fmt == "mrel":
        parsed = _parse_mrel(data, name, all_text)
    else:
        parsed = _parse_delimited(data, name, fmt, all_text)
    parsed.notes[:0] = notes
    parsed.data = data
    return parsed
