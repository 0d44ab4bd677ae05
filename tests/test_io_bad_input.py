"""The bad-input corpus (tests/data/bad/): every case gets a clear, specific error.

Each case names the file, the exception type, words the message must contain
(what is wrong) and, where the problem sits on one line, that line number.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphFormatError, GraphInputError
from rapids_balance.io import edgelist_columns

BAD = Path(__file__).parent / "data" / "bad"

# file, read_edgelist kwargs, exception, message fragments (lower-case), line (None: no line)
CASES = [
    ("missing_sign_column.csv", {}, GraphInputError, ["no sign column", "'from'", "'to'"], None),
    ("misnamed_columns.csv", {"sign": "weight"}, GraphInputError,
     ["sign column 'weight' not found", "did you mean 'weight'", "available columns"], None),
    ("misnamed_columns.csv", {"sign": "Sign"}, GraphInputError,
     ["sign column 'sign' not found", "'from_tribe', 'to_tribe', 'weight'"], None),
    ("misnamed_columns.csv", {"source": "from"}, GraphInputError, ["source column 'from' not found",
                                                                   "did you mean 'from_tribe'"], None),
    ("nonnumeric_sign.csv", {}, GraphFormatError, ["'yes' is not a number"], 3),
    ("nan_sign.txt", {}, GraphFormatError, ["'nan' is not a number"], 3),
    ("empty_sign_field.csv", {}, GraphFormatError, ["column 3", "is empty"], 3),
    ("ragged_long.txt", {}, GraphFormatError, ["ragged line", "5 fields", "have 3"], 3),
    ("ragged_short.csv", {}, GraphFormatError, ["ragged line", "2 fields", "have 3"], 3),
    ("empty.txt", {}, GraphFormatError, ["empty file"], None),
    ("only_comments.txt", {}, GraphFormatError, ["empty file", "only comments"], None),
    ("only_self_loops.csv", {}, GraphInputError, ["no edges remain", "2 self loops"], None),
    ("missing_vertex.csv", {}, GraphFormatError, ["column 1 is empty"], 2),
    ("truncated.csv.gz", {}, GraphFormatError, ["truncated gzip"], None),
    ("corrupt.csv.gz", {}, GraphFormatError, ["corrupt gzip"], None),
    ("garbage.bin", {}, GraphFormatError, ["binary data"], None),
    ("not_utf8.csv", {}, GraphFormatError, ["not utf-8"], 2),
    ("users_table.csv", {}, GraphFormatError, ["vertex table", "not an edge list"], 1),
    ("levorato_short.g", {}, GraphFormatError, ["declares 4 edges", "only 3 edge lines"], 1),
    ("levorato_bad_sign.g", {}, GraphFormatError, ["'plus' is not a number"], 3),
    ("mrel_malformed.g", {}, GraphFormatError, ["malformed mrel entry", "(2;3)-1"], 5),
    ("mrel_unclosed.g", {}, GraphFormatError, ["never closed"], 2),
    ("archive_no_member.tar.gz", {}, GraphInputError, ["tar archive", "inst/a.g", "inst/b.g", "member"], None),
    ("archive_no_member.tar.gz", {"member": "c.g"}, GraphInputError, ["'c.g' is not in", "inst/a.g"], None),
    ("nonnumeric_sign.csv", {"member": "x"}, GraphInputError, ["not a tar archive"], None),
]


@pytest.mark.parametrize("fname,kwargs,exc,fragments,line", CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}" if c[1] else c[0] for c in CASES])
def test_bad_file_gets_a_named_error(fname, kwargs, exc, fragments, line):
    path = BAD / fname
    with pytest.raises(exc) as info:
        rb.read_edgelist(path, **kwargs)
    msg = str(info.value)
    assert fname in msg, f"message does not name the file: {msg}"
    for frag in fragments:
        assert frag in msg.lower(), f"{frag!r} not in message: {msg}"
    if exc is GraphFormatError:
        assert info.value.path is not None and fname in info.value.path
        assert info.value.line == line, msg
    if line is not None:
        assert f"line {line}" in msg


def test_every_corpus_file_is_covered():
    covered = {c[0] for c in CASES}
    assert covered == {p.name for p in BAD.iterdir()}


def test_archive_member_reads_after_the_error(tmp_path):
    g = rb.read_edgelist(BAD / "archive_no_member.tar.gz", member="inst/b.g")
    assert (g.n, g.m) == (3, 2)
    assert g.cleaning.source.endswith("archive_no_member.tar.gz:inst/b.g")
    g2 = rb.read_edgelist(BAD / "archive_no_member.tar.gz", member="b.g")  # base name is enough
    assert g2.m == 2


def test_mrel_entry_error_names_line_in_large_body(tmp_path):
    entries = "".join(f"({i},{i + 1})1\n" for i in range(1, 500))
    p = tmp_path / "x.g"
    p.write_text(f"people: 600\nMrel: [ {entries}(7,x)1\n]\n")
    with pytest.raises(GraphFormatError) as info:
        rb.read_edgelist(p)
    assert info.value.line == 2 + 499


def test_gzip_of_bad_text_still_names_the_line(tmp_path):
    p = tmp_path / "bad.csv.gz"
    p.write_bytes(gzip.compress(b"0,1,1\n1,2,oops\n"))
    with pytest.raises(GraphFormatError, match="line 2") as info:
        rb.read_edgelist(p)
    assert "'oops'" in str(info.value)


def test_conflicts_error_names_the_pair_and_rows():
    with pytest.raises(GraphInputError, match=r"both signs, e.g. \(1, 2\) in data rows \[0, 1\]"):
        rb.read_edgelist(b"1,2,1\n2,1,-1\n2,3,1\n", conflicts="error")


def test_zero_sign_error_names_the_row():
    with pytest.raises(GraphInputError, match="sign 0 in data row 1"):
        rb.read_edgelist(b"1,2,1\n2,3,0\n", zero_sign="error")


def test_signed_and_directed_is_refused():
    with pytest.raises(GraphInputError, match="undirected"):
        rb.read_edgelist(b"1,2,1\n", directed=True)


def test_unknown_format_and_rules_are_refused():
    with pytest.raises(ValueError, match="The 'format' parameter of read_edgelist must be one of"):
        rb.read_edgelist(b"1,2,1\n", format="xml")
    with pytest.raises(ValueError, match="The 'conflicts' parameter of read_edgelist must be one of"):
        rb.read_edgelist(b"1,2,1\n", conflicts="last")


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        rb.read_edgelist(tmp_path / "nope.csv")


def test_not_a_file_argument():
    with pytest.raises(GraphInputError, match="needs a path"):
        rb.read_edgelist(12345)


# -- tables -------------------------------------------------------------------

def test_dataframe_missing_column_lists_available():
    df = pd.DataFrame({"a": [1, 2], "b": [2, 3], "s": [1, -1]})
    with pytest.raises(GraphInputError, match=r"source column 'source' not found.*'a', 'b', 's'"):
        edgelist_columns(df, source="source", target="b", sign="s", weight=None)
    with pytest.raises(GraphInputError, match="did you mean 'S'"):
        edgelist_columns(pd.DataFrame({"a": [1], "b": [2], "S": [1]}), source="a", target="b", sign="s")


def test_dataframe_nan_sign_and_missing_vertex():
    df = pd.DataFrame({"source": [1, 2, 3], "target": [2, 3, 1], "sign": [1.0, np.nan, -1.0]})
    with pytest.raises(GraphInputError, match="sign column .sign. has a missing value .* row 1"):
        rb.SignedGraph.from_edgelist(df, sign="sign")
    df2 = pd.DataFrame({"source": pd.array([1, None, 3], dtype="Int64"), "target": [2, 3, 1], "sign": [1, 1, 1]})
    with pytest.raises(GraphInputError, match="source column 'source' has a missing value .* row 1"):
        rb.SignedGraph.from_edgelist(df2, sign="sign")


def test_dataframe_text_sign():
    df = pd.DataFrame({"source": [1, 2], "target": [2, 3], "sign": ["+", "-"]})
    with pytest.raises(GraphInputError, match="not numeric"):
        rb.SignedGraph.from_edgelist(df, sign="sign")


def test_unsupported_input_type():
    with pytest.raises(GraphInputError, match="cannot read edges"):
        edgelist_columns(object())
    with pytest.raises(GraphInputError, match="2, 3 or 4 arrays"):
        edgelist_columns(([1], ))
