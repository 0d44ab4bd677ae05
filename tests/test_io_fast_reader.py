"""pyarrow's fast CSV path against the exact reader (pandas' C engine): same graph, same errors.

Each input is read twice, with the fast path enabled and disabled; the
graphs must agree array by array (dtypes included) with the same cleaning
report, and a bad file must raise the same error with the same line.  A
spy records whether the fast path produced the table, so a test cannot pass
by silently falling back every time.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphFormatError, GraphInputError
from rapids_balance.io import _arrow

pytest.importorskip("pyarrow")

ARRAYS = ("edge_src", "edge_dst", "indptr", "indices", "slot_edge", "edge_slots", "sign", "weight",
          "labels", "zero_sign")


@pytest.fixture
def spy(monkeypatch):
    """Records what each fast-path attempt returned: 'table' or 'exact' (handed to pandas)."""
    calls: list[str] = []
    real = _arrow.read_comma_table

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append("exact" if out is None else "table")
        return out

    monkeypatch.setattr("rapids_balance.io._formats.read_comma_table", recording)
    return calls


def _read(data: bytes, fast: bool, monkeypatch, **kwargs):
    monkeypatch.setattr(_arrow, "ENABLED", fast)
    try:
        return rb.read_edgelist(data, **kwargs)
    except (GraphFormatError, GraphInputError) as exc:
        return exc


def _assert_same_graph(a, b) -> None:
    for key in ARRAYS:
        x, y = getattr(a, key), getattr(b, key)
        assert (x is None) == (y is None), key
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), key
    assert a.cleaning.as_dict() == b.cleaning.as_dict()


GOOD = {
    "header": b"src,dst,sign\n1,2,1\n2,3,-1\n3,1,1\n3,4,-1\n",
    "headerless": b"1,2,1\n2,3,-1\n3,1,1\n3,4,-1\n",
    "bitcoin 4 columns": b"1,2,10,1289241911\n2,3,-4,1289241942\n3,1,1,1289243140\n",
    "CRLF and blank lines": b"\r\nsrc,dst,sign\r\n1,2,1\r\n\r\n2,3,-1\r\n3,1,1\r\n",
    "quoted fields": b'"src","dst","sign"\n"1","2","1"\n"2","3","-1"\n"3","1","1"\n',
    "spaces after commas": b"src, dst, sign\n1, 2, 1\n2, 3, -1\n3, 1, 1\n",
    "leading zeros merge": b"u,v,sign\n007,1,1\n7,2,-1\n1,2,1\n",
    "plus signs": b"1,+2,1\n2,3,+1\n3,1,-1\n",
    "float weights": b"src,dst,sign,weight\n1,2,1,0.1\n2,3,-1,2.5e-3\n3,1,1,7.5e8\n",
    "float signs": b"1,2,0.5\n2,3,-1.5\n3,1,1.\n",
    "zero sign and duplicates": b"1,2,0\n2,1,1\n2,3,-1\n3,2,1\n3,1,1\n1,1,1\n",
    "ids past int32": b"1,3000000000,1\n3000000000,5,-1\n5,1,1\n",
    "ids past int64": b"18446744073709551615,2,1\n2,3,-1\n3,18446744073709551615,1\n",
    "huge float weight": b"src,dst,sign,weight\n1,2,1,1e300\n2,3,-1,2\n",
    "ids past uint64": b"99999999999999999999999,2,1\n2,3,-1\n3,99999999999999999999999,1\n",
    "text ids": b"alice,bob,1\nbob,carol,-1\ncarol,alice,1\n",
    "header after blank lines": b"\n\nfrom,to,vote\n1,2,1\n2,3,-1\n",
    "two components": b"1,2,1\n2,3,-1\n3,1,1\n7,8,1\n",
    "empty header name": b",source,target,sign\n0,1,2,1\n1,2,3,-1\n",
}


@pytest.mark.parametrize("name", list(GOOD))
@pytest.mark.parametrize("signed", [True, False])
def test_fast_path_gives_the_exact_readers_graph(name, signed, monkeypatch, spy):
    data = GOOD[name]
    kwargs = {"signed": signed} if signed else {"signed": False, "weight": "abs"}
    fast = _read(data, True, monkeypatch, **kwargs)
    exact = _read(data, False, monkeypatch, **kwargs)
    assert not isinstance(exact, Exception), exact
    _assert_same_graph(fast, exact)


@pytest.mark.parametrize("name", ["header", "headerless", "bitcoin 4 columns", "quoted fields",
                                  "float weights", "ids past int32", "CRLF and blank lines"])
def test_clean_files_take_the_fast_path(name, monkeypatch, spy):
    _read(GOOD[name], True, monkeypatch)
    assert spy == ["table"]


def test_fast_columns_are_int32_when_the_values_fit():
    frame = _arrow.read_comma_table(b"1,2,-1\n2,3000000000,1\n", header_fields=None)
    assert [str(t) for t in frame.dtypes] == ["int32", "int64", "int32"]
    assert frame[1].tolist() == [2, 3000000000]


BAD = {
    "non-numeric sign": (b"src,dst,sign\n1,2,1\n2,3,yes\n3,1,1\n", 3),
    "NaN sign": (b"1,2,1\n2,3,nan\n3,1,1\n", 2),
    "infinite sign": (b"1,2,1\n2,3,1\n3,1,-inf\n", 3),
    "empty sign": (b"src,dst,sign\n1,2,1\n2,3,\n", 3),
    "missing column": (b"1,2,1\n2,3\n3,1,1\n", 2),
    "extra column": (b"1,2,1\n2,3,1,5\n3,1,1\n", 2),
    "empty endpoint": (b"1,2,1\n,3,1\n", 2),
    "quoted comma": (b'1,2,1\n"2,5",3,1\n3,1,1\n', 2),
    "comment line": (b"1,2,1\n# a comment\n3,1,1\n", 2),
    "boolean sign": (b"src,dst,sign\n1,2,true\n2,3,false\n", None),
    "only a header": (b"src,dst,sign\n", None),
    "a line of spaces": (b"1,2,1\n   \n3,1,1\n", None),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_rows_get_the_exact_readers_error(name, monkeypatch, spy):
    data, line = BAD[name]
    fast = _read(data, True, monkeypatch)
    exact = _read(data, False, monkeypatch)
    if isinstance(exact, Exception):
        assert type(fast) is type(exact) and str(fast) == str(exact)
        if line is not None:
            assert getattr(exact, "line", None) == line, str(exact)
    else:  # the exact reader reads it (e.g. a blank line of spaces): the same graph
        _assert_same_graph(fast, exact)
    assert "table" not in spy  # never accepted by the fast path


def test_header_detection_is_the_exact_readers(monkeypatch, spy):
    # a text first line over numbers is a header; a text line over text is data
    for data in (b"a,b,sign\n1,2,1\n2,3,-1\n", b"alice,bob,1\nbob,carol,-1\n"):
        fast = _read(data, True, monkeypatch)
        exact = _read(data, False, monkeypatch)
        _assert_same_graph(fast, exact)
        assert fast.cleaning.header_lines == exact.cleaning.header_lines


def test_error_names_the_file_and_line(tmp_path, monkeypatch):
    path = tmp_path / "edges.csv.gz"
    path.write_bytes(gzip.compress(b"src,dst,sign\n1,2,1\n2,3,1\n3,4,oops\n"))
    monkeypatch.setattr(_arrow, "ENABLED", True)
    with pytest.raises(GraphFormatError) as info:
        rb.read_edgelist(path)
    assert info.value.line == 4 and str(path) in str(info.value) and "'oops'" in str(info.value)


def test_without_pyarrow_the_exact_reader_runs(monkeypatch, spy):
    monkeypatch.setattr(_arrow, "ENABLED", False)
    g = rb.read_edgelist(GOOD["header"])
    assert g.m == 4 and spy == []


@pytest.mark.parametrize("data,kwargs", [
    (b"# c\n1 2 1\n\n2 3 -1\n3 2 1\n", {"conflicts": "error"}),
    (b"src,dst,sign\n1,2,1\n2,3,0\n", {"zero_sign": "error"}),
    (b"3 3\n1 2 1\n2 3 -1\n3 2 1\n", {"conflicts": "error", "format": "levorato"}),
])
def test_build_errors_name_the_line_after_the_text_is_released(tmp_path, data, kwargs):
    # a file's text is dropped before the graph build; a build error re-reads it for the line
    path = tmp_path / "edges.txt"
    path.write_bytes(data)
    with pytest.raises(GraphInputError) as from_file:
        rb.read_edgelist(path, **kwargs)
    with pytest.raises(GraphInputError) as from_bytes:  # bytes are never released
        rb.read_edgelist(data, **kwargs)
    assert str(from_file.value).replace(str(path), "<bytes>") == str(from_bytes.value)
    assert "line" in str(from_file.value)


def test_file_text_is_released_and_reread_only_on_error(tmp_path, monkeypatch):
    from rapids_balance.io import _reader

    path = tmp_path / "edges.csv"
    path.write_bytes(GOOD["header"])
    seen = {}
    real = _reader._release_text

    def spy(src, parsed):
        out = real(src, parsed)
        seen["data"], seen["parsed"] = src.data, parsed.data
        return out

    monkeypatch.setattr(_reader, "_release_text", spy)
    g = rb.read_edgelist(path)
    assert seen == {"data": b"", "parsed": b""} and g.m == 4


def test_compiled_spelling_scan_matches_the_vectorised_one():
    from rapids_balance.io import _formats

    rng = np.random.default_rng(0)
    alphabet = np.frombuffer(b"0123456789+-,. \n\t\"';ae", np.uint8)
    kernel = _formats._compiled_spelling_scan()
    hits = 0
    for _ in range(3000):
        a = alphabet[rng.integers(0, alphabet.size, rng.integers(2, 9))]
        expected = _formats._second_spelling_vectorised(a)
        hits += expected
        assert (kernel(a, _formats._SEP) >= 0) == expected, bytes(a)
    assert 0 < hits < 3000  # both outcomes exercised
