"""The fast path for comma-separated edge lists: pyarrow's multi-threaded CSV reader.

:func:`~rapids_balance.io._formats.parse` tries it first for the comma
formats (``graphb``, ``csv``, ``bitcoin``) when pyarrow is installed (an
optional extra).  A table is accepted only when pandas' C engine, the exact
reader, would give the same values:

* every column is int64 or float64 in pyarrow's inference, with no gaps,
  NaN or infinity (a gap, a text field, a boolean or a date sends the file
  to the exact reader, whose error names the line);
* no float column holds a value past 2**63 (integers too large for int64,
  which the exact reader keeps exact as uint64 or Python ints);
* a header's names equal the header line's fields (stripped), none empty
  (pandas names an empty one ``Unnamed: k``).

Anything pyarrow refuses (a ragged line, a blank line of spaces) also goes
to the exact reader, so a bad file is parsed twice and reported exactly as
before.  Integer columns come back as int32 when their values fit (the ids
of a 10^7-edge file need half the memory of int64), else int64.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["read_comma_table", "arrow_available"]

#: bytes per parse block: large blocks make fewer, better-inferred chunks (16 MiB: 1.3 s vs 2.8 s
#: with pyarrow's 1 MiB default for 10^7 lines on two cores)
BLOCK_SIZE = 1 << 24
#: bytes whose inferred column types decide which columns are parsed as int32
HEAD_BYTES = 1 << 20
#: set to False to always use the exact reader (tests compare the two)
ENABLED = True


def arrow_available() -> bool:
    """Whether the fast path can run (pyarrow importable and the path enabled)."""
    if not ENABLED:
        return False
    try:
        import pyarrow.csv  # noqa: F401 (the reader this path needs)
    except ImportError:
        return False
    return True


def _column(chunked) -> np.ndarray | None:
    """One pyarrow column as numpy (int32 when it fits), or None when the exact reader must decide."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = chunked.type
    if chunked.null_count or not (pa.types.is_int32(kind) or pa.types.is_int64(kind)
                                  or pa.types.is_float64(kind)):
        return None
    if len(chunked) == 0:
        return None
    lo, hi = (x.as_py() for x in pc.min_max(chunked).values())
    if pa.types.is_float64(kind):
        # NaN/inf are errors (named by the exact reader); floats past 2**63 may be integers the
        # exact reader keeps exactly
        if (not (np.isfinite(lo) and np.isfinite(hi)) or max(-lo, hi) >= 2.0**63
                or pc.any(pc.is_nan(chunked)).as_py()):
            return None
        dtype = np.float64
    else:
        dtype = np.int32 if np.iinfo(np.int32).min <= lo and hi <= np.iinfo(np.int32).max else np.int64
    out = np.empty(len(chunked), dtype=dtype)
    pos = 0
    for chunk in chunked.chunks:  # chunk by chunk: no second full-size int64 copy
        out[pos: pos + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
        pos += len(chunk)
    return out


def read_comma_table(data: bytes, *, header_fields: list[str] | None) -> pd.DataFrame | None:
    """A comma-separated table parsed by pyarrow, or None when the exact reader must parse it.

    Parameters
    ----------
    data : bytes
        UTF-8 text (BOM already stripped).
    header_fields : list of str or None
        The header line's fields, stripped, when the first non-blank line is
        a header; None for a headerless file (columns 0, 1, 2, ...).

    Returns
    -------
    pandas.DataFrame or None
        Columns named as the exact reader names them, int32/int64/float64.
    """
    import pyarrow as pa

    header = header_fields is not None
    types = _narrow_types(data, header)
    table = _read(data, header, types)
    if table is None and types:  # e.g. a value past int32 after the head: read as inferred
        table = _read(data, header, None)
    if table is None:
        return None
    if table.num_rows == 0 or table.num_columns < 2:
        return None
    names = [str(c).strip() for c in table.column_names] if header else list(range(table.num_columns))
    if header and (names != list(header_fields) or not all(names)):
        return None  # pandas names an empty header field 'Unnamed: k'
    columns = _numpy_columns(table, names)
    del table
    # a pool keeps freed buffers (about 60 bytes per edge of a 10^7-edge file): hand them back to
    # the OS before the graph build needs the memory
    _parse_pool().release_unused()
    return None if columns is None else pd.DataFrame(columns, copy=False)


def _parse_pool():
    """jemalloc where pyarrow has it, else pyarrow's default pool.

    The parse's buffers are freed by pyarrow's threads; mimalloc (the default)
    keeps pages freed across threads resident after ``release_unused``
    (measured at 10^7 edges: about 10 bytes per edge more at the read's peak and
    18 more after it, held through the graph build), jemalloc hands them back.
    """
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.default_memory_pool()


def _read(data: bytes, header: bool, types: dict | None):
    """pyarrow's multi-threaded parse (None where pyarrow refuses the text)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            # one block gains nothing from threads, and a small read need not start pyarrow's pool
            read_options=pcsv.ReadOptions(block_size=BLOCK_SIZE, autogenerate_column_names=not header,
                                          use_threads=len(data) > BLOCK_SIZE),
            parse_options=pcsv.ParseOptions(delimiter=",", ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(null_values=[""], strings_can_be_null=True,
                                                column_types=types),
            memory_pool=_parse_pool())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None


def _narrow_types(data: bytes, header: bool) -> dict | None:
    """int32 for the columns that the first lines show as integers: a parse with those types
    holds half the memory of int64 (a value past int32 later fails the parse, which is redone)."""
    import pyarrow as pa

    head = data[: data.rfind(b"\n", 0, HEAD_BYTES) + 1] if len(data) > HEAD_BYTES else data
    table = _read(head, header, None) if head else None
    if table is None:
        return None
    names = table.column_names if header else [f"f{k}" for k in range(table.num_columns)]
    return {name: pa.int32() for name, kind in zip(names, table.schema.types) if pa.types.is_int64(kind)}


def _numpy_columns(table, names: list) -> dict | None:
    """Every column of ``table`` as numpy under ``names``, or None if one needs the exact reader."""
    columns = {}
    for k, name in enumerate(names):
        col = _column(table.column(k))
        if col is None:
            return None
        columns[name] = col
    return columns
