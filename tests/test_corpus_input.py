"""A corpus of malformed and awkward inputs: files, DataFrames, dicts, networkx graphs.

Each case either raises a named error class whose message holds given
fragments (and, for file input, the line), or loads to exact vertex, edge
and cleaning counts.  Faults 1-4 of the input-safety issue are among them:
mixed int64/uint64 ids, fully quoted CSV rows, an unrecognised third
column taken as the sign, one-column Parquet and boolean signs.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphFormatError, GraphInputError, InvalidParameterError
from rapids_balance.graph import graph_from_any

BIG = 2**63


@dataclass
class Case:
    id: str
    data: Any                          # bytes/str (file content) or an object, or a callable making it
    kwargs: dict = field(default_factory=dict)
    via: str = "read"                  # read | coerce | signed_table
    error: type | None = None
    fragments: tuple = ()              # lower-case message fragments
    line: int | None = None            # for file errors: the line named
    counts: dict = field(default_factory=dict)


def _parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


def _nx(edges, **kw) -> nx.Graph:
    G = nx.Graph()
    for u, v, d in edges:
        G.add_edge(u, v, **d)
    return G


TRIANGLE = b"1,2,1\n2,3,-1\n3,1,1\n"

CASES = [
    # -- fault 1: mixed int64 / uint64 ids stay exact ----------------------------------
    Case("f1-file-int64-and-uint64-columns",
         f"1,{BIG + 1},1\n2,{BIG + 2},-1\n3,{BIG + 1},1\n1,2,1\n2,3,-1\n".encode(), {"component": "all"},
         counts={"n": 5, "m": 5, "labels": [1, 2, 3, BIG + 1, BIG + 2]}),
    Case("f1-frame-int64-source-uint64-target",
         lambda: pd.DataFrame({"source": np.array([1, 2, 3, 1, 2], dtype=np.int64),
                               "target": np.array([BIG + 1, BIG + 2, BIG + 1, 2, 3], dtype=np.uint64),
                               "sign": [1, -1, 1, 1, -1]}),
         {"component": "all"}, via="signed_table", counts={"n": 5, "m": 5, "labels": [1, 2, 3, BIG + 1, BIG + 2]}),
    Case("f1-tuple-of-python-ints-past-2**53",
         lambda: ([1, BIG + 1, 2**53 + 1], [BIG + 1, 2**53 + 1, 1], [1, -1, 1]), via="signed_table",
         counts={"n": 3, "m": 3, "labels": [1, 2**53 + 1, BIG + 1]}),
    Case("f1-dict-int64-and-beyond", lambda: {"src": [1, BIG + 1], "dst": [BIG + 1, -1], "sign": [1, -1]},
         via="coerce", counts={"n": 3, "labels": [-1, 1, BIG + 1]}),
    Case("f1-negative-and-beyond-uint64", f"-5,{2**64 + 1},1\n{2**64 + 1},7,-1\n7,-5,1\n".encode(),
         counts={"n": 3, "m": 3, "labels": [-5, 7, 2**64 + 1]}),
    # -- fault 2: quoted data rows are data; a header is counted -----------------------
    Case("f2-every-field-quoted", b'"1","2","-1"\n"2","3","1"\n"3","1","1"\n',
         counts={"n": 3, "m": 3, "header_lines": 0, "negative": 1}),
    Case("f2-quoted-header-counted", b'"From","To","Sign"\n"1","2","-1"\n"2","3","1"\n"3","1","1"\n',
         counts={"m": 3, "header_lines": 1, "note": "line 1 read as a header", "why.sign": "recognised header name"}),
    Case("f2-string-ids-first-line-is-data", b"alice,bob,1\nbob,carol,-1\ncarol,alice,1\n",
         counts={"n": 3, "m": 3, "header_lines": 0}),
    Case("f2-unsigned-string-ids-first-line-is-data", b"alice bob\nbob carol\n", {"signed": False},
         counts={"n": 3, "m": 2, "header_lines": 0}),
    # -- fault 3: a column is the sign only when named, fixed or recognised ------------
    Case("f3-time-trust-file", b"source,target,time,trust\n1,2,100,-1\n2,3,200,1\n3,1,300,1\n",
         error=GraphInputError, fragments=("no sign column", "'time'", "'trust'", "sign=<column>", "--sign")),
    Case("f3-time-trust-file-named", b"source,target,time,trust\n1,2,100,-1\n2,3,200,1\n3,1,300,1\n",
         {"sign": "trust"}, counts={"m": 3, "negative": 1, "columns.sign": "trust", "why.sign": "named by the user"}),
    Case("f3-time-trust-frame",
         lambda: pd.DataFrame({"source": [1, 2], "target": [2, 3], "time": [5, 6], "trust": [1, -1]}),
         via="signed_table", error=GraphInputError, fragments=("no sign column", "'time'", "'trust'", "sign=")),
    Case("f3-time-trust-dict-coerce",
         lambda: {"source": [1, 2], "target": [2, 3], "time": [5, 6], "trust": [1, -1]}, {"signed": True},
         via="coerce", error=GraphInputError, fragments=("no sign column", "'trust'")),
    Case("f3-headerless-4-columns-whitespace", b"1 2 100 -1\n2 3 200 1\n", error=GraphInputError,
         fragments=("no sign column", "sign=")),
    Case("f3-headerless-5-columns-csv", b"1,2,100,-1,x\n2,3,200,1,y\n", error=GraphInputError,
         fragments=("no sign column",)),
    Case("f3-bitcoin-fixes-the-rating", b"1,2,-7,1289241911\n2,3,3,1289241912\n3,1,10,1289241913\n",
         counts={"m": 3, "negative": 1, "columns.sign": 2, "why.sign": "fixed by the bitcoin format"}),
    Case("f3-snap-fixes-the-sign", b"# comment\n1\t2\t-1\n2\t3\t1\n3\t1\t1\n",
         counts={"m": 3, "comment_lines": 1, "why.sign": "fixed by the snap format"}),
    Case("f3-unrecognised-endpoints-and-extra-column", b"a,b,time,sign\n1,2,3,1\n2,3,4,-1\n",
         error=GraphInputError, fragments=("cannot tell the source and target", "source=<column>")),
    Case("f3-unrecognised-endpoints-left-over", b"node_a,node_b,sign\n1,2,1\n2,3,-1\n3,1,1\n",
         counts={"m": 3, "columns.source": "node_a", "why.source": "the only columns left for the endpoints"}),
    Case("header-shorter-than-rows", b"source,target\n1,2,1\n2,3,-1\n", {"signed": False},
         error=GraphFormatError, fragments=("ragged line", "3 fields", "header names 2 columns"), line=2),
    Case("pandas-index-column-not-used", lambda: pd.DataFrame({"source": [1, 2], "target": [2, 3],
                                                               "sign": [1, -1]}).to_csv().encode(),
         counts={"m": 2, "header_lines": 1, "note": "'unnamed: 0' not used"}),
    Case("f3-ambiguous-sign-names", b"source,target,sign,rating\n1,2,1,5\n", error=GraphInputError,
         fragments=("ambiguous sign column", "'sign'", "'rating'")),
    Case("f3-weight-never-sign-of-a-table",
         lambda: pd.DataFrame({"from": [1, 2], "to": [2, 3], "weight": [0.5, -2.0]}), {"signed": True},
         via="coerce", error=GraphInputError, fragments=("no sign column", "'weight'")),
    Case("f3-graphb-weight-header-is-the-sign", b"From_Tribe,To_Tribe,Weight\n0,1,1\n1,2,-1\n2,0,1\n",
         counts={"m": 3, "negative": 1, "columns.sign": "Weight"}),
    Case("f3-sign-position-out-of-range", TRIANGLE, {"sign": 7}, error=GraphInputError,
         fragments=("position 7 is out of range", "3 columns")),
    # -- fault 4: one-column Parquet, boolean signs -------------------------------------
    Case("f4-one-column-parquet", lambda: _parquet(pd.DataFrame({"x": [1, 2, 3]})), error=GraphFormatError,
         fragments=("1 column", "source and a target")),
    Case("f4-true-false-text-signs", b"1,2,true\n2,3,false\n3,1,true\n", error=GraphFormatError,
         fragments=("true/false", "+1/-1"), line=1),
    Case("f4-bool-dtype-frame",
         lambda: pd.DataFrame({"source": [1, 2], "target": [2, 3], "sign": [True, False]}), via="signed_table",
         error=GraphInputError, fragments=("booleans", "map them explicitly")),
    Case("f4-bool-parquet",
         lambda: _parquet(pd.DataFrame({"src": [1, 2], "dst": [2, 3], "sign": [True, False]})),
         error=GraphInputError, fragments=("true/false", "+1/-1")),
    # -- ids: 007 and 7 -----------------------------------------------------------------
    Case("ids-007-and-7-merged-and-counted", b"007,1,1\n7,2,-1\n1,2,1\n",
         counts={"n": 3, "m": 3, "id_spellings_merged": 1, "note": "'007' and '7' are both vertex 7"}),
    Case("ids-007-and-7-text", b"007,1,1\n7,2,-1\n1,2,1\n", {"ids": "text"},
         counts={"n": 4, "m": 3, "id_spellings_merged": 0, "labels": ["007", "1", "2", "7"]}),
    Case("ids-plus-sign-merged", b"+3,1,1\n3,2,-1\n1,2,1\n", counts={"n": 3, "id_spellings_merged": 1}),
    Case("ids-float-text-is-text", b"1.0,2,1\n2,3,-1\n3,1.0,1\n", counts={"n": 3, "labels": ["1.0", "2", "3"]}),
    Case("ids-mixed-object-frame",
         lambda: pd.DataFrame({"source": np.array([7, 1, 2], dtype=object),
                               "target": np.array(["1", "2", "007"], dtype=object), "sign": [1, -1, 1]}),
         {"component": "all"}, via="signed_table", counts={"n": 6, "m": 3, "id_spellings_merged": 0}),
    Case("ids-networkx-int-and-str-nodes-differ",
         lambda: _nx([(1, "1", {"sign": 1}), ("1", "a", {"sign": -1}), ("a", 1, {"sign": 1})]), via="coerce",
         counts={"n": 3, "m": 3, "self_loops": 0}),
    Case("datetime-sign-frame",
         lambda: pd.DataFrame({"src": [1, 2], "dst": [2, 3], "sign": pd.to_datetime(["2020-01-01", "2020-01-02"])}),
         via="signed_table", error=GraphInputError, fragments=("dates or durations",)),
    # -- long values, line numbers ------------------------------------------------------
    Case("long-200000-digit-sign", b"1,2,1\n2,3," + b"9" * 200_000 + b"\n", error=GraphFormatError,
         fragments=("not a finite number", "characters"), line=2),
    Case("long-5000-digit-id", b"1,2,1\n2," + b"9" * 5000 + b",1\n", error=GraphFormatError,
         fragments=("5000 digits", "ids='text'"), line=2),
    Case("long-5000-digit-id-as-text", b"1,2,1\n2," + b"9" * 5000 + b",1\n", {"ids": "text"},
         counts={"n": 3, "m": 2}),
    Case("long-400-digit-negative-sign", b"1,2,-" + b"9" * 400 + b"\n2,3,1\n", error=GraphFormatError,
         fragments=("column 3", "401 digits", "not a finite number"), line=1),
    Case("trailing-separator", b"1,2,1,\n2,3,-1,\n", error=GraphFormatError, fragments=("column 4", "empty"),
         line=1),
    Case("inf-sign-line", b"1,2,1\n2,3,inf\n", error=GraphFormatError, fragments=("nan or infinite",), line=2),
    Case("nan-sign-line", b"1,2,1\n\n2,3,nan\n", error=GraphFormatError, fragments=("'nan' is not a number",),
         line=3),
    Case("zero-sign-error-line", b"1,2,1\n\n2,3,0\n", {"zero_sign": "error"}, error=GraphFormatError,
         fragments=("sign 0 in data row 1",), line=3),
    Case("conflict-error-lines", b"# x\n1 2 1\n2 1 -1\n2 3 1\n", {"conflicts": "error"}, error=GraphInputError,
         fragments=("both signs", "lines [2, 3]")),
    # -- encodings, compression, empty --------------------------------------------------
    Case("gzip-inside-gzip", gzip.compress(gzip.compress(TRIANGLE)),
         counts={"m": 3, "note": "gzip inside gzip"}),
    Case("utf16-with-bom", "1,2,1\n2,3,-1\n3,1,1\n".encode("utf-16"), counts={"m": 3, "note": "utf-16"}),
    Case("utf16-le-without-bom", "1,2,1\n2,3,-1\n3,1,1\n".encode("utf-16-le"),
         counts={"m": 3, "note": "utf-16-le"}),
    Case("utf32-with-bom", "1,2,1\n2,3,-1\n3,1,1\n".encode("utf-32"), counts={"m": 3, "note": "utf-32"}),
    Case("graphb-format-on-headerless-file", TRIANGLE, {"format": "graphb"}, error=GraphFormatError,
         fragments=("needs a header line", "format='csv'"), line=1),
    Case("zip-or-excel", b"PK\x03\x04" + b"\x00" * 40, error=GraphFormatError, fragments=("zip archive",)),
    Case("empty-file", b"", error=GraphFormatError, fragments=("empty file",)),
    Case("header-only-file", b"source,target,sign\n", error=GraphFormatError, fragments=("only a header line",)),
    Case("duplicate-header-names", b"source,target,sign,sign\n1,2,1,1\n", error=GraphFormatError,
         fragments=("duplicate column name 'sign'", "columns 3 and 4"), line=1),
    Case("duplicate-frame-columns",
         lambda: pd.DataFrame([[1, 2, 1, 1]], columns=["source", "target", "sign", "sign"]), via="signed_table",
         error=GraphInputError, fragments=("duplicate column name",)),
    # -- tables: missing values, non-finite weights -------------------------------------
    Case("frame-nan-sign", lambda: pd.DataFrame({"source": [1, 2], "target": [2, 3], "sign": [1.0, np.nan]}),
         via="signed_table", error=GraphInputError, fragments=("missing value", "row 1")),
    Case("frame-inf-weight",
         lambda: pd.DataFrame({"source": [1, 2], "target": [2, 3], "sign": [1, -1], "weight": [1.0, np.inf]}),
         via="signed_table", error=GraphInputError, fragments=("weight column is nan or infinite",)),
    Case("frame-unsigned-takes-sign-as-weight",
         lambda: pd.DataFrame({"u": [1, 2], "v": [2, 3], "sign": [1, -1]}), {"signed": False}, via="coerce",
         counts={"m": 2, "signed": False, "columns.weight": "sign"}),
    Case("coerce-a-file-path", "FILE:" + TRIANGLE.decode(), via="coerce",
         counts={"m": 3, "why.sign": "fixed by the csv format"}),
    # -- networkx -----------------------------------------------------------------------
    Case("nx-pm1-weight-without-sign",
         lambda: _nx([(1, 2, {"weight": 1}), (2, 3, {"weight": -1})]), {"signed": True}, via="coerce",
         error=GraphInputError, fragments=("no 'sign' edge attribute", "'weight'", "sign='weight'")),
    Case("nx-pm1-weight-named", lambda: _nx([(1, 2, {"weight": 1}), (2, 3, {"weight": -1})]), {"sign": "weight"},
         via="coerce", counts={"m": 2, "negative": 1, "why.sign": "named by the user"}),
    Case("nx-bool-sign", lambda: _nx([(1, 2, {"sign": True}), (2, 3, {"sign": False})]), via="coerce",
         error=GraphInputError, fragments=("booleans",)),
    Case("nx-source-keyword", lambda: _nx([(1, 2, {"sign": 1})]), {"source": "a"}, via="coerce",
         error=GraphInputError, fragments=("no columns", "source=")),
    # -- parameters -----------------------------------------------------------------------
    Case("param-ids", TRIANGLE, {"ids": "exact"}, error=InvalidParameterError,
         fragments=("'ids' parameter of read_edgelist", "'auto', 'text'")),
    Case("param-numbering", TRIANGLE, {"numbering": "random"}, error=InvalidParameterError,
         fragments=("'numbering' parameter of read_edgelist",)),
    Case("param-signed", TRIANGLE, {"signed": "yes"}, error=InvalidParameterError,
         fragments=("'signed' parameter of read_edgelist", "a bool")),
    Case("param-component-coerce", lambda: pd.DataFrame({"src": [1], "dst": [2], "sign": [1]}),
         {"component": "biggest"}, via="coerce", error=InvalidParameterError,
         fragments=("'component' parameter of coerce_graph",)),
    Case("param-role-negative-position", TRIANGLE, {"sign": -1}, error=InvalidParameterError,
         fragments=("'sign' parameter of read_edgelist",)),
]


def _input(case: Case, tmp_path):
    data = case.data() if callable(case.data) else case.data
    if isinstance(data, str) and data.startswith("FILE:"):
        path = tmp_path / "edges.csv"
        path.write_text(data[len("FILE:"):])
        return str(path)
    if isinstance(data, bytes):
        path = tmp_path / "edges.dat"
        path.write_bytes(data)
        return path
    return data


def _run(case: Case, obj):
    if case.via == "read":
        return rb.read_edgelist(obj, **case.kwargs)
    if case.via == "signed_table":
        return rb.SignedGraph.from_edgelist(obj, **case.kwargs)
    return graph_from_any(obj, **case.kwargs)


def _check_counts(g, counts: dict) -> None:
    rep = g.cleaning
    for key, want in counts.items():
        if key == "n":
            got = g.n
        elif key == "m":
            got = g.m
        elif key == "negative":
            got = int((g.sign < 0).sum())
        elif key == "signed":
            got = isinstance(g, rb.SignedGraph)
        elif key == "labels":
            got = sorted(x.item() if isinstance(x, np.generic) else x for x in g.labels.tolist())
            want = sorted(want)
        elif key == "note":
            assert any(want in n.lower() or want in n for n in rep.notes), (want, rep.notes)
            continue
        elif key.startswith(("columns.", "why.")):
            kind, role = key.split(".")
            got = rep.columns[role]["column" if kind == "columns" else "why"]
        else:
            got = getattr(rep, key)
        assert got == want, (key, got, want, str(rep))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case, tmp_path):
    obj = _input(case, tmp_path)
    if case.error is None:
        _check_counts(_run(case, obj), case.counts)
        return
    with pytest.raises(case.error) as info:
        _run(case, obj)
    msg = str(info.value)
    assert len(msg) < 600, f"message too long ({len(msg)} characters)"
    for frag in case.fragments:
        assert frag in msg.lower(), f"{frag!r} not in: {msg}"
    if case.line is not None:
        assert f"line {case.line}" in msg and info.value.line == case.line, msg
    if isinstance(obj, (str, bytes)) or hasattr(obj, "suffix"):
        assert "edges" in msg or case.error is InvalidParameterError, f"message does not name the file: {msg}"


def test_corpus_is_large_enough():
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


def test_cleaning_report_shows_column_roles():
    g = rb.read_edgelist(b"source,target,time,trust\n1,2,100,-1\n2,3,200,1\n", sign="trust")
    text = str(g.cleaning)
    assert "sign column: 'trust' (named by the user)" in text
    assert "source column: 'source' (recognised header name)" in text
    assert g.cleaning.as_dict()["columns"]["sign"] == {"column": "trust", "why": "named by the user"}
    assert any("'time'" in n and "not used" in n for n in g.cleaning.notes)


def test_integer_ids_never_go_through_floats():
    # 2**53 + 1 is the first integer a float64 cannot hold
    ids = [2**53 + 1, 2**53 + 2, 2**63 + 1, 2**63 + 2]
    text = "".join(f"{a},{b},1\n" for a, b in zip(ids, ids[1:] + ids[:1])).encode()
    g = rb.read_edgelist(text)
    assert sorted(int(x) for x in g.labels.tolist()) == ids and g.m == 4


def test_factorized_numbering_is_label_order_for_strings():
    g = rb.read_edgelist(b"b,a,1\nc,b,-1\na,c,1\n")
    assert g.labels.tolist() == ["a", "b", "c"]
    assert list(zip(g.edge_src.tolist(), g.edge_dst.tolist())) == [(0, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize("text,expected", [
    (b"007,1,1", True), (b"7,1,1", False), (b"1,+3,1", True), (b"1,2,+1", True), (b"1,-0,1", True),
    (b"1,2,-0.5", False), (b"1005 2 1", False), (b"1,2,0.5", False), (b"0,1,1\n", False), (b"00,1", True),
    (b"1,-07,1", True), (b"1\t2\t-1\n3\t10\t1", False), (b"1e-05,2", False), (b'"007","1"', True),
])
def test_second_integer_spellings_are_detected(text, expected):
    from rapids_balance.io._formats import noncanonical_ints

    assert noncanonical_ints(text) is expected


def test_betweenness_input_takes_files_and_column_roles(tmp_path):
    from rapids_balance.centrality._input import coerce_input

    path = tmp_path / "edges.csv"
    path.write_text("a,b,time,trust\n1,2,100,-1\n2,3,200,1\n3,4,300,1\n")
    g, lengths = coerce_input(path, None, None, for_edges=False, source="a", target="b")
    assert (g.n, g.m) == (4, 3) and lengths is None
    assert g.cleaning.columns["source"] == {"column": "a", "why": "named by the user"}
    g, lengths = coerce_input(path, "time", None, for_edges=False, source="a", target="b")
    assert sorted(lengths.tolist()) == [100.0, 200.0, 300.0]
    frame = pd.read_csv(path)
    g, _ = coerce_input(frame, "abs", None, for_edges=True, source=0, target=1, sign="trust")
    assert g.m == 3
    with pytest.raises(GraphInputError, match="cannot tell the source and target"):
        coerce_input(frame, None, None, for_edges=False)
