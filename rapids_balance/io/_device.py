"""The device path in: columns out of cuDF, dask-cuDF and cuGraph as device arrays.

This is the only module that calls cuDF, dask-cuDF or cuGraph for input.
Every call it makes is listed in :data:`DEVICE_CALLS` (and in
``docs/rapids.rst``), so a user with RAPIDS installed can check them
against their version.  Everything after the hand-over is array-API code
(CuPy on a GPU) in :func:`rapids_balance.graph.build_graph`.

* A cuDF DataFrame hands over its numeric columns as CuPy arrays
  (``Series.to_cupy()``); string vertex ids are factorised on the device
  (``Series.factorize``), so only the ``n`` vertex labels reach the host.
* A dask-cuDF DataFrame is computed once, then read as a cuDF DataFrame.
* A cuGraph ``Graph`` hands over the edge list it was built from
  (``G.input_df``: the user's rows as given, original ids of any type and
  size), its columns found by name (``G.source_columns``,
  ``G.destination_columns``, the weight column); a multi-GPU graph's is a
  dask-cuDF frame, computed once.  A graph without one (built from a CSR)
  hands over ``view_edge_list()``: edges cuGraph has already merged, which
  the cleaning report says.  The CSR (``view_adj_list()``) is never read:
  it casts ids to int32 and holds the edges as given, unsymmetrised.
* :func:`read_device` parses a file with ``cudf.read_csv`` /
  ``cudf.read_parquet`` after the host reader's format detection has looked
  at the first lines; anything the device reader cannot reproduce exactly
  (text ids, value columns with gaps or text, ``.g`` and Mrel files) is
  handed to the host reader, which gives the same graph and the same errors.
"""

from __future__ import annotations

import io
from typing import Any, NamedTuple

from .._build import build_graph
from .._containers import CleaningReport, Graph, SignedGraph
from .._output import _STRING_LABELS, device_labels_column, device_namespace, is_device_array  # noqa: F401
from ..backend import resolve_backend
from ..errors import GraphInputError
from ._formats import _count_lines_starting, canonical_format, check_text, detect_format, noncanonical_ints, parse
from ._reader import _display_name, _resolve, graph_from_source

__all__ = ["DEVICE_CALLS", "HOST_READER_NOTE", "is_device_array", "cudf_available", "frame_columns",
           "CugraphEdges", "cugraph_edges", "host_labels", "CUGRAPH_MERGED_NOTE", "read_with_backend", "read_device", "host_frame", "attach_string_labels",
           "device_labels_column"]

#: every cuDF / dask-cuDF / cuGraph call the library makes (inputs here, results in ``_output``)
DEVICE_CALLS = (
    "cudf.read_csv",
    "cudf.read_parquet",
    "cudf.concat",
    "cudf.DataFrame",
    "cudf.DataFrame.columns",
    "cudf.DataFrame.__getitem__",
    "cudf.DataFrame.attrs",
    "cudf.Series.dtype",
    "cudf.Series.has_nulls",
    "cudf.Series.isna",
    "cudf.Series.to_cupy",
    "cudf.Series.factorize",
    "cudf.Index.take",
    "cudf.Index.to_numpy",
    "dask_cudf.DataFrame.compute",
    "dask_cudf.from_cudf",
    "cugraph.Graph.is_directed",
    "cugraph.Graph.is_multi_gpu",
    "cugraph.Graph.input_df",
    "cugraph.Graph.source_columns",
    "cugraph.Graph.destination_columns",
    "cugraph.Graph.weight_column",
    "cugraph.Graph.view_edge_list",
)


def _root(obj: Any) -> str:
    return type(obj).__module__.split(".", 1)[0]


def cudf_available() -> bool:
    """True when cuDF imports (it needs a CUDA machine)."""
    try:
        import cudf  # noqa: F401
    except Exception:  # ImportError, or a CUDA runtime error raised at import
        return False
    return True


def _is_numeric(series: Any) -> bool:
    return getattr(series.dtype, "kind", "O") in "biuf"


def _first_true(mask: Any) -> int:
    """Index of the first True of a device boolean array (one scalar crosses to the host)."""
    from array_api_compat import array_namespace

    xp = array_namespace(mask)
    return int(xp.argmax(xp.astype(mask, xp.int8)))


def _column(series: Any, what: str) -> Any:
    """One cuDF column as a device array; a null is an error naming its row."""
    _column_nulls(series, what)
    return series.to_cupy()


def _string_codes(u: Any, v: Any, where: str) -> tuple[Any, Any, Any]:
    """Text ids of both endpoint columns -> (codes_u, codes_v, sorted labels), on the device.

    Codes are ranks in sorted label order (``sort=True``), as the host path
    numbers labels, so internal ids follow label order on both paths.
    """
    import cudf

    both = cudf.concat([u, v], ignore_index=True)
    codes, uniques = both.factorize(sort=True)
    from array_api_compat import array_namespace

    xp = array_namespace(codes)
    k = codes.shape[0] // 2
    return xp.astype(codes[:k], xp.int64), xp.astype(codes[k:], xp.int64), uniques


def frame_columns(frame: Any, *, source: Any, target: Any, sign: Any = None, weight: Any = None,
                  where: str = "<cudf table>") -> tuple[Any, Any, Any, Any, Any]:
    """Edge columns of a cuDF frame as device arrays: (src, dst, sign, weight, string_labels).

    ``string_labels`` is ``None`` for numeric ids; for text ids ``src`` and
    ``dst`` are codes into it (see :func:`attach_string_labels`).
    """
    u, v = frame[source], frame[target]
    labels = None
    if _is_numeric(u) and _is_numeric(v):
        su, sv = _column(u, f"source column {source!r}"), _column(v, f"target column {target!r}")
    elif not (_is_numeric(u) or _is_numeric(v)):
        _column_nulls(u, f"source column {source!r}")
        _column_nulls(v, f"target column {target!r}")
        su, sv, labels = _string_codes(u, v, where)
    else:  # numbers in one column, text in the other: the host rules (the int 1 is not the text '1')
        su, sv = _host_values(u, f"source column {source!r}"), _host_values(v, f"target column {target!r}")
    out = [su, sv]
    for role, key in (("sign", sign), ("weight", weight)):
        out.append(None if key is None else _column(frame[key], f"{role} column {key!r}"))
    return out[0], out[1], out[2], out[3], labels


def attach_string_labels(graph: Any, uniques: Any) -> Any:
    """Give a graph built from device codes its text labels (the ``n`` labels reach the host once)."""
    import numpy as np

    labels = uniques.take(graph.device_labels())  # the graph's labels are the codes it kept
    _STRING_LABELS[graph] = labels
    host = host_labels(labels)
    host.setflags(write=False)
    graph.labels = host  # CuPy has no strings: the host labels are the text, the device keeps codes
    return graph


def host_labels(index: Any) -> Any:
    """A cuDF Index of labels on the host, as a numpy object array.

    ``Index.to_numpy()`` (cuDF ``core/frame.py``); ``Index.values_host`` was
    removed in cuDF 26.08, so it is not used.
    """
    import numpy as np

    return np.asarray(index.to_numpy(), dtype=object)


def host_frame(frame: Any, columns: dict[str, Any] | None = None):
    """A cuDF frame copied to a pandas frame, one copy per column.

    For capabilities whose kernels read host arrays (betweenness): numeric
    columns go through CuPy (``to_cupy``), text columns are factorised on
    the device and only their distinct values travel as text.  ``columns``
    maps the pandas frame's names to the cuDF frame's (default: all, as
    they are).
    """
    import pandas as pd

    if columns is None:
        columns = {key: key for key in frame.columns}
    return pd.DataFrame({name: _host_values(frame[key], f"column {key!r}") for name, key in columns.items()})


def _host_values(series: Any, what: str) -> Any:
    """One cuDF column on the host: numbers through CuPy, text as codes and its distinct values."""
    import numpy as np

    from .._xp import to_host

    if _is_numeric(series):
        return to_host(_column(series, what))
    _column_nulls(series, what)
    codes, uniques = series.factorize()
    return host_labels(uniques)[to_host(codes)]


def _column_nulls(series: Any, what: str) -> None:
    if series.has_nulls:
        row = _first_true(series.isna().to_cupy())
        raise GraphInputError(f"{what} has a missing value (NaN/None/null) in row {row} (0-based)")


class CugraphEdges(NamedTuple):
    """A cuGraph graph's edges as a cuDF frame, its columns named."""

    frame: Any
    source: Any
    target: Any
    weight: Any
    how: str
    merged: bool


#: what cuGraph does to the edges of a graph it builds (cugraph 26.10, cpp/src/c_api/graph_sg.cpp
#: remove_multi_edges with keep_min_value_edge for symmetric graphs; symmetrize_edgelist_impl.cuh
#: symmetrize_op_t averages the two weights of a pair given both ways)
CUGRAPH_MERGED_NOTE = (
    "read from cuGraph's merged edge list (view_edge_list): the graph holds no input edge list, so "
    "cuGraph had already merged the edges. For an undirected graph each pair appears once; repeated "
    "rows kept their smallest value, and a pair given in both directions got the average of its two "
    "values (a +1 and a -1 become 0); in a directed graph one of the repeated rows was kept. "
    "Repeated rows and conflicts cannot be counted here")


def _one_column(names: Any, what: str) -> Any:
    """The one column of a vertex id (cuGraph keeps a name or a list of names)."""
    if isinstance(names, (list, tuple)):
        if len(names) != 1:
            raise GraphInputError(
                f"the cuGraph graph identifies a vertex by several {what} columns {list(names)}; "
                "rapids-balance needs one id column per endpoint: build the graph from one column each "
                "(e.g. a combined key)")
        return names[0]
    return names


def cugraph_edges(G: Any) -> CugraphEdges:
    """The edges of a cuGraph graph as a cuDF frame with named columns.

    The edge list the graph was built from, where the graph keeps it
    (``G.input_df``: the user's rows as given, with their own ids, every
    repeated or reversed row still there, so the cleaning counts hold); a
    multi-GPU graph keeps it as a dask-cuDF frame (computed here once), its
    weight column renamed ``"value"``.  Otherwise (a graph built from a
    CSR) ``view_edge_list()``, which cuGraph has merged
    (:data:`CUGRAPH_MERGED_NOTE`).  Columns are taken by the names the graph
    records (``source_columns``, ``destination_columns``,
    ``weight_column``), never by position: cuGraph does not keep the
    column order.
    """
    multi_gpu = bool(G.is_multi_gpu())
    source = _one_column(G.source_columns, "source")
    target = _one_column(G.destination_columns, "destination")
    given = getattr(G, "input_df", None)
    if given is not None:
        # the multi-GPU graph renames its weight column to "value" (simpleDistributedGraph.py)
        weight = "value" if multi_gpu and G.weight_column is not None else G.weight_column
        frame = given.compute() if multi_gpu else given  # one dask-cuDF frame: computed once
        return CugraphEdges(frame, source, target, weight, "input edge list (input_df), as given", False)
    frame = G.view_edge_list()
    if multi_gpu:
        frame = frame.compute()
    source = "src" if source is None else source
    target = "dst" if target is None else target
    values = [c for c in frame.columns if c not in (source, target)]
    weight = G.weight_column if G.weight_column in values else ("weight" if "weight" in values else None)
    return CugraphEdges(frame, source, target, weight, "merged edge list (view_edge_list)", True)


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

#: text formats cuDF parses as the host reader does: format -> (sep, comment)
_CSV_LAYOUT = {"graphb": (",", None), "csv": (",", None), "bitcoin": (",", None),
               "snap": (None, "#"), "konect": (None, "%")}


def _head_parsed(data: bytes, name: str, fmt: str):
    """The host parser's verdict on the first lines: format, header, columns, comments.

    The first 64 KiB (cut at a line end) go through the host parser, so a
    header, a vertex table or a bad first line raise exactly as on the host.
    """
    notes: list[str] = []
    text = check_text(data, name, notes)  # BOM stripped, UTF-16 decoded: cuDF parses this text
    if fmt == "auto":
        fmt = detect_format(text, name)
    head = text[:65536]
    if len(text) > len(head):
        head = head[: head.rfind(b"\n") + 1] or text
    return fmt, parse(head, name, fmt), text, notes


def read_with_backend(src: Any, backend: str, options: dict[str, Any]):
    """``read_edgelist(..., backend=)``: cuDF's parsers for ``"gpu"`` (and ``"auto"`` on a GPU).

    Falls back to the host reader (same graph, same errors) where cuDF is
    missing or cannot reproduce the host rules exactly; the graph's
    ``cleaning.notes`` say which reader ran.
    """
    if resolve_backend(backend) == "gpu":
        if not cudf_available():
            graph = graph_from_source(src, **options)
            graph.cleaning.notes.append(HOST_READER_NOTE)
            return graph
        if options.get("vertex_table") is None and options.get("weight") != "abs":
            graph = read_device(src, **options)
            if graph is not None:
                return graph
        graph = graph_from_source(src, **options)
        graph.cleaning.notes.append("backend='gpu': parsed on the host (text ids, a value column that is "
                                    "not numeric, a format cuDF does not read as the host reader does, or "
                                    "too little device memory to check its lines)")
        return graph
    return graph_from_source(src, **options)


def read_device(src: Any, *, format: str = "auto", source: Any = None, target: Any = None, sign: Any = None,
                weight: Any = None, signed: bool | None = True, directed: bool = False, ids: str = "auto",
                name: str | None = None, vertex_table: Any = None, **build: Any):
    """:func:`read_edgelist` with cuDF's parsers, or ``None`` where the host reader must do it.

    Returns the graph, or ``None`` when the input needs the host reader (a
    format or id spelling cuDF cannot reproduce exactly, a column with gaps,
    text or a ragged row); the host reader then gives the same graph and
    raises the same errors with their lines.
    """
    import cudf

    given = {"source": source, "target": target, "sign": sign, "weight": weight}

    fmt = canonical_format(format)
    comments, notes = 0, []
    if fmt == "parquet" or (fmt == "auto" and src.data[:4] == b"PAR1"):
        frame, fmt, header, names = cudf.read_parquet(io.BytesIO(src.data)), "parquet", True, None
    else:
        fmt, head, text, notes = _head_parsed(src.data, src.name, fmt)
        if fmt not in _CSV_LAYOUT or ids == "text" or noncanonical_ints(text):
            return None
        sep, comment = _CSV_LAYOUT[fmt]
        header, names = head.header, list(head.frame.columns)
        layout = dict(sep=sep, skipinitialspace=True)
        if sep is None:
            blank = _blank_separator(text, comment)
            if blank is None:
                return None  # mixed or repeated blanks: cuDF's one-byte separator would split otherwise
            layout = dict(sep=blank)
        try:
            frame = cudf.read_csv(io.BytesIO(text), header=0 if header else None, names=names,
                                  comment=comment, skip_blank_lines=True, **layout)
        except _PARSE_ERRORS as exc:
            if not _is_parse_error(exc):
                raise
            return None  # a row cuDF cannot parse: the host reader names its line
        comments = _count_lines_starting(text, comment.encode()) if comment else 0
        try:
            if _first_irregular_line(text, sep, comment, len(names)) is not None:
                return None  # cuDF reads the first len(names) fields of a longer row: the host reader names it
        except MemoryError:
            return None  # the device has no memory left even for a small chunk: the host reader checks the lines
    columns = list(frame.columns)
    if names is not None and columns != names:
        return None
    if any(frame[c].has_nulls for c in columns):
        return None  # a gap or a short row: the host reader names its line
    roles = _resolve(_Columns(frame, fmt, header), given, False if directed else signed, src.name)
    kinds = {role: getattr(frame[k].dtype, "kind", "O") for role, k in
             (("source", roles.source), ("target", roles.target), ("sign", roles.sign),
              ("weight", roles.weight)) if k is not None}
    if any(kinds[r] not in "iu" for r in ("source", "target")) or any(
            kinds.get(r, "i") not in "iuf" for r in ("sign", "weight")):
        return None  # ids that are not integers (the text rules), or values of text or booleans
    report = CleaningReport(source=src.name, source_sha256=src.sha256, source_bytes=src.raw_bytes,
                            columns=roles.report(), ids=ids, comment_lines=comments,
                            header_lines=int(bool(header) and fmt != "parquet"), notes=src.notes + notes)
    report.notes.append(f"parsed on the GPU with cudf.{'read_parquet' if fmt == 'parquet' else 'read_csv'}")
    u, v, s, w, _ = frame_columns(frame, source=roles.source, target=roles.target, sign=roles.sign,
                                  weight=roles.weight, where=src.name)
    return build_graph(u, v, sign=s, weight=w, directed=directed, name=name or _display_name(src.name),
                       graph_class=SignedGraph if s is not None else Graph, report=report, **build)


#: what cuDF raises for text it cannot parse (libcudf's errors arrive as RuntimeError)
_PARSE_ERRORS = (ValueError, RuntimeError)
#: words of a RuntimeError or ValueError that is not about the text: the device or its memory
_NOT_PARSE = ("out of memory", "bad_alloc", "cuda error", "cudaerror", "cuda_error")


def _is_parse_error(exc: BaseException) -> bool:
    """True for cuDF's verdict on the text; False for an error of the device (out of memory, a
    CUDA error), which must reach the user rather than send the file quietly to the host."""
    text = str(exc).lower()
    return isinstance(exc, _PARSE_ERRORS) and not isinstance(exc, MemoryError) and not any(
        word in text for word in _NOT_PARSE)


def _blank_separator(text: bytes, comment: str | None) -> str | None:
    """The one byte between fields of a whitespace-separated file, when it is one: tab or space.

    ``cudf.read_csv`` takes a one-character ``sep`` (its ``delim_whitespace``
    is deprecated, as in pandas): that reads a file as the host reader does
    when its data lines use one blank byte, never two in a row, none at a
    line's start or end, and no carriage return.  Comment lines are skipped
    when they lead the file (SNAP and KONECT headers); a comment line further
    down, or anything else, answers ``None`` and the host reader parses the
    file.  Byte searches only: no pass in Python over the lines.
    """
    start = 0
    if comment is not None:
        mark = comment.encode()
        while text.startswith(mark, start):
            end = text.find(b"\n", start)
            if end < 0:
                return None
            start = end + 1
        if text.find(b"\n" + mark, start) >= 0:
            return None
    body = text[start:]
    tab, space = b"\t" in body, b" " in body
    if tab == space or b"\r" in body:
        return None
    sep = b"\t" if tab else b" "
    if body.startswith(sep) or sep + sep in body or b"\n" + sep in body or sep + b"\n" in body or body.endswith(sep):
        return None
    return sep.decode()


#: bytes that separate fields in whitespace-delimited formats (a line ends at ``\n``)
_BLANKS = (32, 9, 13, 11, 12)


#: bytes of a file checked on the device at a time (its arrays peak near 13 bytes a byte of the chunk)
_CHUNK_BYTES = 1 << 25
#: the smallest chunk tried when the device runs out of memory; below it the host reader checks the file
_MIN_CHUNK_BYTES = 1 << 20


def _first_irregular_line(text: bytes, sep: str | None, comment: str | None, fields: int, *,
                          chunk: int | None = None, min_chunk: int | None = None) -> int | None:
    """1-based number of the first line of ``text`` that may not have exactly ``fields`` fields, or None.

    ``cudf.read_csv`` given ``names`` reads the first ``len(names)`` fields
    of every row and ignores any further field without an error (its row
    parser stops at the last named column), so a longer row beyond the
    lines the host parser checked would lose data silently.  Fields are
    counted over the raw bytes in the device's array namespace: separators
    plus one (``sep``), or runs of non-blank bytes (whitespace formats), per
    line; blank lines and lines starting with ``comment`` are skipped.  A
    ``comment`` character inside a data line (the rest of the line would be
    dropped) also counts as irregular.  A false alarm merely hands the file
    to the host reader, which names the line.

    The bytes go to the device ``chunk`` bytes at a time, each chunk cut
    after a line end (a line longer than ``chunk`` is checked whole), so the
    device holds a bounded slice of the file and its positions fit int32.
    When the device runs out of memory (CuPy's ``OutOfMemoryError`` is a
    ``MemoryError``: cupy 15.0 ``cupy/cuda/memory.pyx:55``), the same chunk is
    tried again at half the size, down to ``min_chunk``; then the
    ``MemoryError`` reaches the caller.  Both default to the module's
    :data:`_CHUNK_BYTES` and :data:`_MIN_CHUNK_BYTES`.
    """
    chunk = _CHUNK_BYTES if chunk is None else chunk
    min_chunk = _MIN_CHUNK_BYTES if min_chunk is None else min_chunk
    xp = device_namespace()
    start, line = 0, 1
    while start < len(text):
        stop = _chunk_stop(text, start, chunk)
        try:
            bad, newlines = _chunk_first_irregular(xp, text, start, stop, sep, comment, fields)
        except MemoryError:
            if stop - start <= min_chunk:
                raise
            chunk = max(min_chunk, (stop - start) // 2)
            continue
        if bad is not None:
            return line + bad
        start, line = stop, line + newlines
    return None


def _chunk_stop(text: bytes, start: int, size: int) -> int:
    """End of the chunk starting at ``start``: just after the last line end within ``size`` bytes."""
    if start + size >= len(text):
        return len(text)
    cut = text.rfind(b"\n", start, start + size)
    if cut < 0:  # one line longer than the chunk: the whole line
        cut = text.find(b"\n", start + size)
        return len(text) if cut < 0 else cut + 1
    return cut + 1


def _chunk_first_irregular(xp: Any, text: bytes, start: int, stop: int, sep: str | None,
                           comment: str | None, fields: int) -> tuple[int | None, int]:
    """(0-based index of the first irregular line of ``text[start:stop]`` or None, its ``\\n`` count).

    The chunk starts at a line start and ends after a line end (or at the
    end of the file), so every line in it is whole.
    """
    import numpy as np

    b = xp.asarray(np.frombuffer(text, dtype=np.uint8, count=stop - start, offset=start))
    size = stop - start
    newline = b == 10
    nl = xp.astype(xp.nonzero(newline)[0], xp.int32)
    ends = nl if text[stop - 1] == 10 else xp.concat([nl, xp.full(1, size, dtype=xp.int32)])
    starts = xp.concat([xp.zeros(1, dtype=xp.int32), ends[:-1] + 1])

    def per_line(mask):  # marked bytes in each line [start, end), through an int32 running count
        marks = xp.astype(xp.concat([xp.zeros(1, dtype=xp.bool), mask]), xp.int32)
        running = xp.cumulative_sum(marks, dtype=xp.int32)
        return xp.take(running, ends) - xp.take(running, starts)

    blank = xp.zeros_like(b, dtype=xp.bool)
    for byte in _BLANKS:
        blank = blank | (b == byte)
    first = xp.ones(1, dtype=xp.bool)
    # runs of non-blank bytes: the fields of a whitespace format; none on a blank line
    words = per_line(~blank & ~newline & xp.concat([first, blank[:-1] | newline[:-1]]))
    count = words if sep is None else per_line(b == ord(sep)) + 1
    bad = (words > 0) & (count != fields)
    if comment is not None:
        is_comment = b == ord(comment)
        after_line_start = xp.concat([first, newline[:-1]])
        comment_line = per_line(is_comment & after_line_start) > 0
        # a comment sign inside a data line: cuDF drops the rest of that line
        inside = per_line(is_comment & ~after_line_start) > 0
        bad = (bad | inside) & ~comment_line
    return (_first_true(bad) if bool(xp.any(bad)) else None), int(nl.shape[0])


class _Columns:
    """What the host reader's role resolution reads of a parsed file."""

    def __init__(self, frame: Any, fmt: str, header: bool):
        self.frame, self.format, self.header = frame, fmt, header


#: the note a graph read with ``backend="gpu"`` carries when cuDF is not installed
HOST_READER_NOTE = ("backend='gpu': cuDF is not installed, so the file was parsed on the host (pandas) "
                    "and the graph built from host columns")
