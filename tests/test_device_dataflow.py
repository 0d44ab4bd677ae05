"""Device inputs stay on the device: cuDF / dask-cuDF / cuGraph / CuPy in, graph, cuDF out.

No machine of ours holds cuDF or cuGraph, so they are stand-ins
(``tests/_standins.py``) whose device arrays are ``array_api_strict`` arrays
standing in for CuPy.  The graph built from a stand-in device table must
equal the graph built from the same pandas table, and no array of size
O(n) or O(m) may pass through ``rapids_balance._xp.to_host`` on the way.
The last test runs the real thing on a GPU machine (marked ``gpu``).
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance import _xp
from rapids_balance.graph import graph_from_any
from rapids_balance.io._device import DEVICE_CALLS

import _standins as standins

GRAPH_ARRAYS = ("edge_src", "edge_dst", "indptr", "indices", "slot_edge", "edge_slots", "sign", "weight",
                "zero_sign", "labels")

# a self loop, a repeated pair, a conflicting pair, a zero sign, ids past 2**53 and a second component
EDGES = pd.DataFrame({
    "src": np.array([1, 2, 3, 3, 4, 2, 9_007_199_254_740_993, 5, 7, 1], dtype=np.int64),
    "dst": np.array([2, 3, 1, 3, 1, 1, 4, 9_007_199_254_740_993, 8, 2], dtype=np.int64),
    "sign": np.array([1, -1, 1, 1, -1, 1, 0, 1, 1, -1], dtype=np.int64),
})


@pytest.fixture
def rapids(monkeypatch):
    """The stand-in cudf / dask_cudf / cugraph modules, installed for one test."""
    return standins.install(monkeypatch)


def _cleaning(g) -> dict:
    out = g.cleaning.as_dict()
    for key in ("source", "notes", "columns"):
        out.pop(key)
    return out


def assert_same_graph(got, want) -> None:
    assert type(got) is type(want) and (got.n, got.m) == (want.n, want.m)
    for name in GRAPH_ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert _cleaning(got) == _cleaning(want)


def test_cudf_frame_gives_the_pandas_graph(rapids):
    want = rb.SignedGraph.from_edgelist(EDGES, sign="sign")
    got = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    assert got.on_device and not want.on_device
    assert_same_graph(got, want)
    assert got.cleaning.columns == want.cleaning.columns


def test_no_input_sized_copy_to_the_host(rapids):
    frame = standins.from_pandas(EDGES)
    _xp.host_copies.clear()
    g = rb.SignedGraph.from_edgelist(frame, sign="sign")
    d = g.device_arrays()
    assert all(not isinstance(a, np.ndarray) for a in d.values())
    # error checks may move a scalar; nothing of the size of the edges or vertices
    assert all(size <= 1 for size in _xp.host_copies), _xp.host_copies


def test_cupy_tuple_stays_on_the_device():
    import array_api_strict as xps

    cols = [xps.asarray(EDGES[c].to_numpy()) for c in ("src", "dst", "sign")]
    _xp.host_copies.clear()
    g = rb.SignedGraph.from_edgelist(tuple(cols))
    assert g.on_device and all(size <= 1 for size in _xp.host_copies)
    assert_same_graph(g, rb.SignedGraph.from_edgelist(EDGES, sign="sign"))


def test_dask_cudf_frame_is_computed_once(rapids):
    lazy = standins.DaskFrame(standins.from_pandas(EDGES), npartitions=3)
    g = graph_from_any(lazy, sign="sign")
    assert standins.times_computed(lazy) == 1
    assert_same_graph(g, rb.SignedGraph.from_edgelist(EDGES, sign="sign"))


def _clean_edges() -> pd.DataFrame:
    """Each pair once (a cuGraph graph holds no repeated pairs), as a float edge value."""
    df = EDGES[EDGES.src != EDGES.dst].drop_duplicates(["src", "dst"]).iloc[:6].copy()
    df["sign"] = df["sign"].replace(0, 1).astype(np.float64)
    return df.reset_index(drop=True)


@pytest.mark.parametrize("renumber", [False, True], ids=["not-renumbered", "renumbered"])
def test_cugraph_graph(rapids, renumber):
    df = _clean_edges()
    G = standins.cugraph_graph(df, "src", "dst", "sign", renumber=renumber)
    g = rb.io.from_cugraph(G)
    assert g.on_device
    # the edge list the graph was built from, by its column names; never the int32 CSR
    assert "cugraph.Graph.input_df" in standins.CALLS and "cugraph.Graph.view_adj_list" not in standins.CALLS
    want = rb.SignedGraph.from_edgelist(df, sign="sign")
    for name in ("edge_src", "edge_dst", "indptr", "indices", "sign", "labels"):
        assert np.array_equal(getattr(g, name), getattr(want, name)), name
    assert g.cleaning.columns["sign"]["column"] == "sign"


def test_text_ids_are_factorised_on_the_device(rapids):
    df = pd.DataFrame({"a": ["x", "y", "zz", "y", "é"], "b": ["y", "zz", "x", "é", "x"], "s": [1, -1, 1, 1, -1]})
    want = rb.SignedGraph.from_edgelist(df, source="a", target="b", sign="s")
    _xp.host_copies.clear()
    got = rb.SignedGraph.from_edgelist(standins.from_pandas(df), source="a", target="b", sign="s")
    assert "cudf.Series.factorize" in standins.CALLS
    assert all(size <= 1 for size in _xp.host_copies), _xp.host_copies
    assert got.labels.tolist() == want.labels.tolist()
    assert_same_graph(got, want)


def test_numbers_and_text_in_the_endpoints_follow_the_host_rules(rapids):
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["1", "3", "2"], "s": [1, -1, 1]})
    want = rb.SignedGraph.from_edgelist(df, source="a", target="b", sign="s", component="all")
    got = rb.SignedGraph.from_edgelist(standins.from_pandas(df), source="a", target="b",
                                       sign="s", component="all")
    assert got.n == 6 and got.labels.tolist() == want.labels.tolist()
    assert_same_graph(got, want)


def test_missing_value_in_a_cudf_column_is_named(rapids):
    df = EDGES.astype({"sign": "Int64"})
    df.loc[3, "sign"] = pd.NA
    with pytest.raises(rb.GraphInputError, match=r"sign column 'sign' has a missing value .* row 3"):
        rb.SignedGraph.from_edgelist(standins.from_pandas(df), sign="sign")


SNAP = b"# a comment\n1\t2\t1\n2\t3\t-1\n3\t1\t1\n3\t4\t1\n4\t1\t-1\n1\t2\t1\n"


@pytest.mark.parametrize("text", [SNAP, b"source,target,sign\n1,2,1\n2,3,-1\n3,1,1\n3,4,1\n4,1,-1\n"],
                         ids=["snap", "header-csv"])
def test_read_edgelist_gpu_parses_with_cudf(rapids, text):
    want = rb.read_edgelist(io.BytesIO(text))
    got = rb.read_edgelist(io.BytesIO(text), backend="gpu")
    assert "cudf.read_csv" in standins.CALLS and got.on_device
    assert_same_graph(got, want)
    assert any("cudf.read_csv" in note for note in got.cleaning.notes)


@pytest.mark.parametrize("text", [
    b"\xef\xbb\xbf1,2,1\n2,3,-1\n3,1,1\n",             # a BOM
    b"1.0,2,1\n2,3,-1\n3,1,1\n",                        # an id that is not an integer literal: text ids
    b"007,2,1\n7,3,-1\n3,2,1\n",                         # two spellings of one integer, counted
    b"% sym signed\n% 3 3 3\n1 2 1 100\n2 3 -1 101\n3 1 1 102\n",  # KONECT, with a time column
    b"2 2\n1 2 1\n2 3 -1\n",                            # Levorato .g: the host reader
], ids=["bom", "float-id", "spellings", "konect", "levorato"])
def test_read_edgelist_gpu_gives_the_host_graph(rapids, text):
    assert_same_graph(rb.read_edgelist(io.BytesIO(text), backend="gpu"), rb.read_edgelist(io.BytesIO(text)))


@pytest.mark.parametrize("text, sep", [
    (SNAP, "\t"),
    (b"% sym signed\n% 3 3\n1 2 1\n2 3 -1\n3 1 1\n", " "),  # KONECT with a header block
    (b"# c\n1 2 1\n2\t3 -1\n", None),                     # tab and space mixed
    (b"# c\n1  2 1\n2 3 -1\n", None),                      # two blanks in a row
    (b"# c\n1 2 1\r\n2 3 -1\r\n", None),                   # carriage returns
    (b"# c\n1 2 1\n# d\n2 3 -1\n", None),                  # a comment line among the data
    (b"# c\n 1 2 1\n2 3 -1\n", None),                      # a blank leading a line
])
def test_whitespace_files_get_one_separator_byte_or_the_host_reader(text, sep):
    from rapids_balance.io._device import _blank_separator

    assert _blank_separator(text, "%" if text.startswith(b"%") else "#") == sep


def test_read_edgelist_gpu_whitespace_file_is_read_by_cudf_with_a_separator(rapids):
    text = b"% sym signed\n% 4 4\n1 2 1\n2 3 -1\n3 1 1\n3 4 1\n"
    got = rb.read_edgelist(io.BytesIO(text), format="konect", backend="gpu")
    assert got.on_device and "cudf.read_csv" in standins.CALLS
    assert_same_graph(got, rb.read_edgelist(io.BytesIO(text), format="konect"))
    mixed = b"% sym signed\n1 2 1\n2\t3 -1\n3 1 1\n"
    got = rb.read_edgelist(io.BytesIO(mixed), format="konect", backend="gpu")
    assert not got.on_device
    assert_same_graph(got, rb.read_edgelist(io.BytesIO(mixed), format="konect"))


@pytest.mark.parametrize("error, host", [
    (ValueError("Error tokenizing data. C error: Expected 3 fields"), True),   # a parse error
    (RuntimeError("cudf::logic_error: invalid data"), True),
    (MemoryError("std::bad_alloc: out_of_memory: CUDA error"), False),         # the device's memory
    (RuntimeError("CUDA error at: cuda_memory_resource.hpp: cudaErrorMemoryAllocation out of memory"),
     False),
    (TypeError("read_csv() got an unexpected keyword argument 'sep'"), False),  # an API change
])
def test_read_edgelist_gpu_catches_parse_errors_only(rapids, error, host):
    """A parse error hands the file to the host reader; anything else reaches the user with its message."""
    standins.READ_CSV_RAISES.append(error)
    if host:
        got = rb.read_edgelist(io.BytesIO(SNAP), backend="gpu")
        assert not got.on_device and "cudf.read_csv" in standins.CALLS
        assert_same_graph(got, rb.read_edgelist(io.BytesIO(SNAP)))
    else:
        with pytest.raises(type(error), match=re.escape(str(error)[:20])):
            rb.read_edgelist(io.BytesIO(SNAP), backend="gpu")


def _long_file(sep: str, bad_line: str, header: bytes = b"") -> bytes:
    """More than the 64 KiB the host parser looks at, then one line ``bad_line``, then more rows."""
    rows = [f"{i}{sep}{i + 1}{sep}{1 if i % 3 else -1}" for i in range(12_000)]
    return header + "\n".join(rows[:9_000] + [bad_line] + rows[9_000:]).encode() + b"\n"


@pytest.mark.parametrize("text", [
    _long_file(",", "7777777,6,1,9"),                   # one field too many
    _long_file(",", "7777777,6,1,"),                    # an empty field too many
    _long_file("\t", "7777777\t6\t1\t9", b"# comment\n"),  # SNAP: tab separated
    _long_file(" ", "7777777 6 -1 7 8", b"# comment\n"),   # SNAP: two fields too many
], ids=["csv", "csv-empty-field", "snap-tab", "snap-space"])
def test_read_edgelist_gpu_refuses_a_long_row_past_the_host_sniff(rapids, text):
    """cuDF keeps the first fields of a longer row without an error: counted on the device, the row
    goes to the host reader, which raises its error with the line."""
    assert text.index(b"\n7777777") > 65536
    with pytest.raises(rb.GraphFormatError) as host:
        rb.read_edgelist(io.BytesIO(text))
    with pytest.raises(rb.GraphFormatError) as dev:
        rb.read_edgelist(io.BytesIO(text), backend="gpu")
    assert str(dev.value) == str(host.value) and "ragged line" in str(host.value)
    assert "cudf.read_csv" in standins.CALLS  # read on the device first, the long row found there


@pytest.mark.parametrize("text, irregular", [
    (b"1,2,1\n2,3,-1\n", None),
    (b"1,2,1\n\n2,3,-1", None),                        # a blank line, no final newline
    (b"1,2,1\n2,3\n", 2),                             # a short row
    (b"1,2,1\n2,3,-1,4\n", 2),
    (b"# c # d\n1\t2\t1\r\n  2 3   -1  \n", None),     # a comment line; blanks around fields
    (b"1 2 1\n2 3 -1 # note\n", 2),                   # cuDF would drop the note: the host decides
    (b"1 2 1\n2 3 -1#\n", 2),
    (b"1,2,1\n\n\n7,8\n1,2,1\n", 4),                  # blank lines count as lines
], ids=["plain", "blank", "short", "long", "whitespace", "note", "note-glued", "after-blanks"])
@pytest.mark.parametrize("chunk", [1 << 25, 7, 1])
def test_field_count_per_line_on_the_device(rapids, text, irregular, chunk):
    """The same verdict and line whatever the chunk (1 byte: every line is longer than a chunk)."""
    from rapids_balance.io._device import _first_irregular_line

    sep, comment = ("," , None) if text[1:2] == b"," else (None, "#")
    assert _first_irregular_line(text, sep, comment, 3, chunk=chunk, min_chunk=1) == irregular


def _host_error_line(text: bytes) -> int:
    with pytest.raises(rb.GraphFormatError, match="ragged line") as host:
        rb.read_edgelist(io.BytesIO(text))
    return host.value.line


@pytest.mark.parametrize("shift", [-3, 0, 1], ids=["cut", "starts-a-chunk", "ends-a-chunk"])
def test_a_ragged_line_at_a_chunk_boundary_is_found_on_its_line(rapids, shift):
    """A long row that a chunk's nominal end cuts (the chunk then ends before it), that starts a
    chunk, or that ends one: found on the line the host reader names."""
    from rapids_balance.io._device import _first_irregular_line

    text = _long_file(",", "7777777,6,1,9")
    bad = text.index(b"\n7777777") + 1
    chunk = bad + shift  # chunks of this size: the first one's last line end falls at or next to the row
    line = _host_error_line(text)
    assert line == text[:bad].count(b"\n") + 1
    if shift == 0:
        assert text[chunk - 1:chunk] == b"\n"  # the row is the second chunk's first line
    if shift == 1:
        chunk = text.index(b"\n", bad) + 1     # the row is the first chunk's last line
    assert _first_irregular_line(text, ",", None, 3, chunk=chunk, min_chunk=1) == line
    assert _first_irregular_line(text, ",", None, 3, chunk=4096, min_chunk=1) == line


def test_out_of_device_memory_falls_back_to_smaller_chunks(rapids, monkeypatch):
    """CuPy's OutOfMemoryError on a chunk: the same chunk in halves, the same verdict and line."""
    from rapids_balance.io._device import _first_irregular_line

    text = _long_file("\t", "7777777\t6\t1\t9", b"# comment\n")
    line = _host_error_line(text)
    device = standins.small_device(monkeypatch, free=64 * 1024)
    assert _first_irregular_line(text, "\t", "#", 3, chunk=1 << 20, min_chunk=1024) == line
    assert device.refused and min(device.refused) > device.free >= device.largest
    regular = _long_file(",", "777,6,1")
    assert _first_irregular_line(regular, ",", None, 3, chunk=1 << 20, min_chunk=1024) is None


@pytest.mark.parametrize("free, on_device", [(64 * 1024, True), (512, False)],
                         ids=["smaller-chunks", "host-reader"])
def test_read_edgelist_gpu_out_of_device_memory_in_the_line_check(rapids, monkeypatch, free, on_device):
    """The file's lines are checked in smaller chunks, or by the host reader when not even the
    smallest chunk fits: the host graph, or the host's error with its line."""
    from rapids_balance.io import _device

    monkeypatch.setattr(_device, "_MIN_CHUNK_BYTES", 1024)
    device = standins.small_device(monkeypatch, free=free)
    regular = _long_file(",", "777,6,1")
    got = rb.read_edgelist(io.BytesIO(regular), backend="gpu")
    assert device.refused and got.on_device is on_device
    assert_same_graph(got, rb.read_edgelist(io.BytesIO(regular)))
    ragged = _long_file(",", "7777777,6,1,9")
    with pytest.raises(rb.GraphFormatError) as host:
        rb.read_edgelist(io.BytesIO(ragged))
    with pytest.raises(rb.GraphFormatError) as dev:
        rb.read_edgelist(io.BytesIO(ragged), backend="gpu")
    assert str(dev.value) == str(host.value) and "ragged line" in str(host.value)


def test_read_edgelist_gpu_long_regular_file_stays_on_the_device(rapids):
    text = _long_file(",", "777,6,1")
    got = rb.read_edgelist(io.BytesIO(text), backend="gpu")
    assert got.on_device and any("cudf.read_csv" in note for note in got.cleaning.notes)
    assert_same_graph(got, rb.read_edgelist(io.BytesIO(text)))


def test_read_edgelist_gpu_parquet(rapids, tmp_path):
    path = tmp_path / "edges.parquet"
    EDGES.to_parquet(path)
    got = rb.read_edgelist(path, backend="gpu")
    assert "cudf.read_parquet" in standins.CALLS
    assert_same_graph(got, rb.read_edgelist(path))


def test_read_edgelist_gpu_leaves_exact_text_rules_and_errors_to_the_host(rapids):
    text = b"alice,bob,1\nbob,carol,-1\n"
    got = rb.read_edgelist(io.BytesIO(text), backend="gpu")
    assert got.labels.tolist() == ["alice", "bob", "carol"] and not got.on_device
    assert any("parsed on the host" in note for note in got.cleaning.notes)
    bad = b"1,2,1\n2,3,x\n"
    with pytest.raises(rb.GraphFormatError) as host:
        rb.read_edgelist(io.BytesIO(bad))
    with pytest.raises(rb.GraphFormatError) as dev:
        rb.read_edgelist(io.BytesIO(bad), backend="gpu")
    assert str(dev.value) == str(host.value)


def test_read_edgelist_gpu_without_cudf_uses_the_host_reader_with_a_note():
    g = rb.read_edgelist(io.BytesIO(SNAP), backend="gpu")
    assert_same_graph(g, rb.read_edgelist(io.BytesIO(SNAP)))
    assert any("cuDF is not installed" in note for note in g.cleaning.notes)


def test_cudf_in_cudf_out(rapids):
    frame = standins.from_pandas(EDGES)
    host = rb.balance(EDGES, n_trees=8, sign="sign", progress=False, backend="cpu")
    dev = rb.balance(frame, n_trees=8, sign="sign", progress=False, backend="cpu")
    for got, want in ((dev.vertices, host.vertices), (dev.edges, host.edges)):
        assert isinstance(got, standins.DataFrame)
        pd.testing.assert_frame_equal(standins.host_view(got), want, check_dtype=False)
    lazy = rb.balance(frame, n_trees=8, sign="sign", progress=False, backend="cpu", as_dask=True)
    assert isinstance(lazy.edges, standins.DaskFrame)
    # betweenness says how it computed its table in the cuDF table's attrs, as in pandas'
    bc = rb.betweenness_centrality(frame, weight=None, backend="cpu", progress=False)
    assert isinstance(bc, standins.DataFrame)
    assert bc.attrs["info"]["backend"] == "cpu" and bc.attrs["info"]["sources"] == len(bc)


def test_betweenness_reads_cudf_and_cugraph_into_host_columns(rapids):
    """Betweenness kernels read host arrays: a device input is copied once per column, via the same calls."""
    df = _clean_edges()
    want = rb.betweenness_centrality(df, weight=None, source="src", target="dst")
    got = rb.betweenness_centrality(standins.from_pandas(df), weight=None, source="src",
                                    target="dst")
    assert isinstance(got, standins.DataFrame)  # cuDF in, cuDF out (built from device columns)
    pd.testing.assert_frame_equal(standins.host_view(got), want, check_dtype=False)
    G = standins.cugraph_graph(df, "src", "dst", None, renumber=True)
    via_cugraph = rb.betweenness_centrality(G, weight=None)
    pd.testing.assert_frame_equal(standins.host_view(via_cugraph), want, check_dtype=False)


# ---------------------------------------------------------------------------
# every capability: cuDF in, cuDF out, built from device columns
# ---------------------------------------------------------------------------

def _text_ids(df: pd.DataFrame) -> pd.DataFrame:
    name = {v: f"v{v % 1000:03d}-{v}" for v in np.unique(df[["src", "dst"]].to_numpy())}
    return df.assign(src=df.src.map(name), dst=df.dst.map(name))


def _capability_runs(frame, exact: bool = True) -> dict:
    """Every table every capability returns for ``frame`` (pandas or the stand-in cuDF), by name."""
    from rapids_balance.frustration_index import frustration_lower_bound

    kw = dict(progress=False, backend="cpu")
    out = {}
    fr = rb.frustration(frame, 8, sign="sign", refine=1, as_dask=True, **kw)
    out.update({f"frustration.{k}": getattr(fr, k) for k in ("best_state", "switched", "cloud", "history")})
    out["frustration_lower_bound.cycles"] = frustration_lower_bound(frame, sign="sign", as_dask=True).cycles
    if exact:
        ex = rb.frustration_index_exact(frame, sign="sign", time_limit=10)
        out.update({"exact.best_state": ex.best_state, "exact.switched": ex.switched})
    for method in ("vnd", "ils"):
        cc = rb.correlation_clustering(frame, sign="sign", method=method, max_iterations=2, **kw)
        out.update({f"{method}.labels": cc.labels, f"{method}.history": cc.history})
    bc = dict(weight=None, source="src", target="dst", **kw)
    out["betweenness"] = rb.betweenness_centrality(frame, **bc)
    out["edge_betweenness"] = rb.edge_betweenness_centrality(frame, as_dask=True, **bc)
    both = rb.node_and_edge_betweenness(frame, as_dask=True, **bc)
    out.update({"both.vertices": both.vertices, "both.edges": both.edges})
    ends = np.unique(_connected(frame, "src"))[:2].tolist()
    out["subset"] = rb.betweenness_centrality_subset(frame, ends[:1], ends[1:], **bc)
    out["edge_subset"] = rb.edge_betweenness_centrality_subset(frame, ends[:1], ends[1:], **bc)
    bal = rb.balance(frame, 8, sign="sign", as_dask=True, **kw)
    out.update({"balance.vertices": bal.vertices, "balance.edges": bal.edges})
    return out


def _connected(frame, column: str) -> np.ndarray:
    """Endpoint labels of the edges of the largest component of :data:`EDGES` (the first four rows)."""
    host = standins.host_view(frame) if isinstance(frame, standins.DataFrame) else frame
    return host[column].to_numpy()[:4]


def _host_view(table) -> pd.DataFrame:
    if isinstance(table, standins.DaskFrame):
        table = table.compute()
    if isinstance(table, standins.DataFrame):
        table = standins.host_view(table)
    elif hasattr(table, "npartitions"):
        table = table.compute().reset_index(drop=True)
    return table.drop(columns=["time_s"], errors="ignore")  # clustering's history: wall times


PER_EDGE_DASK = ("frustration.switched", "frustration_lower_bound.cycles", "edge_betweenness", "both.edges",
                 "balance.edges")


@pytest.mark.parametrize("ids", ["integers", "text"])
def test_every_capability_gives_device_tables_built_from_device_columns(rapids, ids):
    """cuDF in: every table is a cuDF table built from device columns (no pandas in between, no
    ``from_pandas``), per-edge tables are dask-cuDF with ``as_dask``, and the values are the host run's."""
    from rapids_balance import _output

    edges = EDGES if ids == "integers" else _text_ids(EDGES)
    want = _capability_runs(edges, exact=ids == "integers")
    standins.BUILT.clear()
    _output.device_copies.clear()
    got = _capability_runs(standins.from_pandas(edges), exact=ids == "integers")
    assert got.keys() == want.keys()
    for name, table in got.items():
        kind = standins.DaskFrame if name in PER_EDGE_DASK else standins.DataFrame
        assert isinstance(table, kind), name
        pd.testing.assert_frame_equal(_host_view(table), _host_view(want[name]), check_dtype=False,
                                      obj=name)
    made = [kind for built in standins.BUILT for kind in built.values()]
    assert len(standins.BUILT) >= len(got) and not {"host numbers", "pandas"} & set(made), made
    assert ("host text" in made) and (("cudf" in made) is (ids == "text"))  # text labels stay in cuDF
    assert _output.device_copies  # the host runs' columns crossed, counted, in one place


def test_a_device_state_can_be_handed_back(rapids):
    """frustration's cuDF ``best_state`` and clustering's cuDF ``labels``
    are accepted back as ``state=`` / ``start=`` / ``init=``, as on the host."""
    frame = standins.from_pandas(EDGES)
    host = rb.frustration_lower_bound(EDGES, rb.frustration(EDGES, n_trees=4, seed=1).best_state, sign="sign")
    state = rb.frustration(frame, n_trees=4, seed=1, sign="sign").best_state
    assert isinstance(state, standins.DataFrame)
    got = rb.frustration_lower_bound(frame, state, sign="sign")
    assert (got.bound, got.index) == (host.bound, host.index)
    pytest.importorskip("highspy")
    exact = rb.frustration_index_exact(frame, start=state, sign="sign")
    assert exact.index == rb.frustration_index_exact(EDGES, sign="sign").index
    labels = rb.correlation_clustering(frame, method="vnd", seed=1, sign="sign").labels
    assert isinstance(labels, standins.DataFrame)
    assert (rb.correlation_clustering(frame, init=labels, method="vnd", seed=1, sign="sign").imbalance
            == rb.correlation_clustering(EDGES, init=standins.host_view(labels), method="vnd", seed=1,
                                         sign="sign").imbalance)


def test_host_result_columns_cross_once_through_to_device(rapids):
    """A graph kept on the device, a host algorithm: each numeric column crosses once, counted;
    the labels are taken on the device (only the row ids of the switched edges cross)."""
    from rapids_balance import _output
    from rapids_balance.frustration_index._result import state_frame, switched_frame

    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    host = rb.SignedGraph.from_edgelist(EDGES, sign="sign")
    side = np.arange(graph.n, dtype=np.int8) % 2
    _output.device_copies.clear()
    standins.BUILT.clear()
    state = state_frame(graph, side)
    assert _output.device_copies == [graph.n]  # the sides; the labels were already there
    switched = switched_frame(graph, side)
    k = len(switched)
    assert _output.device_copies[1:] == [k, k, k]  # src ids, dst ids, signs
    assert standins.BUILT == [{"vertex": "device", "side": "device"},
                              {"src": "device", "dst": "device", "sign": "device"}]
    pd.testing.assert_frame_equal(standins.host_view(state), state_frame(host, side))
    pd.testing.assert_frame_equal(standins.host_view(switched), switched_frame(host, side))


# ---------------------------------------------------------------------------
# Dask with a graph kept on the device
# ---------------------------------------------------------------------------

def _device_degrees(graph, ids, params):
    """A batch that reads the device CSR only: (on the device?, host copies held, degree sum)."""
    d = graph.device_arrays()
    held = sorted(k for k in ("indptr", "indices", "edge_src") if k in graph.__dict__)
    return graph.on_device, held, d["indptr"][ids.stop] - d["indptr"][ids.start]


@pytest.fixture(scope="module", params=[False, True], ids=["threads", "processes"])
def device_client(request):
    """One-worker clients: in the client's process, and a worker process (which pickles the graph)."""
    pytest.importorskip("distributed")
    import cloudpickle
    import sys

    from rapids_balance.distributed import start_cluster

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the batch function above
    client = start_cluster(1, gpu=False, processes=request.param)
    yield client
    client.close()


def _client_host_copies(monkeypatch) -> list[int]:
    """Sizes of the ``_xp.to_host`` copies made by the client's thread (workers in this process run
    in their own threads, and copy their graph to the host for the CPU kernels as they please)."""
    import threading

    sizes: list[int] = []
    real = _xp.to_host

    def to_host(a):
        if threading.current_thread() is threading.main_thread():
            sizes.append(int(getattr(a, "size", 0) or 0))
        return real(a)

    monkeypatch.setattr(_xp, "to_host", to_host)
    return sizes


def test_run_batches_ships_a_device_graph_without_a_host_copy(rapids, device_client, monkeypatch):
    from rapids_balance.distributed import RangeBatches, run_batches

    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    graph.indptr  # a host copy the client made: it stays behind
    copies = _client_host_copies(monkeypatch)
    parts = run_batches(device_client, graph, _device_degrees, RangeBatches(graph.n, 2), fold=list)
    assert all(size <= 1 for size in copies), copies
    # a worker process holds device arrays only; workers in the client's process share its host copies
    held = [] if device_client.cluster.processes else ["indptr"]
    assert [(on, h) for on, h, _ in parts] == [(True, held)] * len(parts)
    degrees = [int(_xp.to_host(total)) for _, _, total in parts]
    assert sum(degrees) == int(rb.SignedGraph.from_edgelist(EDGES, sign="sign").indptr[-1])
    # the cluster reduction of device parts stays where the workers made it
    total = run_batches(device_client, graph, _device_degrees, RangeBatches(graph.n, 2),
                        combine=lambda a, b: (a[0] and b[0], a[1] + b[1], a[2] + b[2]))
    assert not isinstance(total[2], np.ndarray) and int(_xp.to_host(total[2])) == sum(degrees)


def test_device_graph_travels_as_its_device_arrays(rapids):
    """What a worker process receives: the graph without arrays, then each device array serialized
    on its own by Dask (CuPy's serializers on a GPU), never the client's host copies."""
    import pickle

    pytest.importorskip("distributed")
    from distributed.protocol import deserialize, serialize

    from rapids_balance.distributed._graphs import DeviceGraph, ship_device_graph
    from rapids_balance.distributed._graphs import _shipping_copy

    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    graph.indptr, graph.labels  # host copies made on the client
    handle = ship_device_graph(_shipping_copy(graph))
    arrays_left = [k for k, v in vars(handle.rest).items()
                   if isinstance(v, np.ndarray) or _xp.is_device_array(v)]
    assert not arrays_left, arrays_left
    assert all(a is graph.device_arrays().get(k, a) for k, a in handle.arrays.items())  # no copies
    header, frames = serialize(handle, serializers=("dask", "pickle"), on_error="raise")
    assert header["serializer"] == "dask"  # the registered parts, not one pickle of the graph
    for back in (deserialize(header, frames), pickle.loads(pickle.dumps(handle))):
        assert isinstance(back, DeviceGraph) and back.graph.on_device
        assert "indptr" not in vars(back.graph)
        assert_same_graph(back.graph, rb.SignedGraph.from_edgelist(EDGES, sign="sign"))


def test_balance_on_the_cluster_with_a_device_graph_gives_device_tables(rapids, device_client, monkeypatch):
    """balance(client=) on a graph kept on the device: no host copy of it on the client up to the
    counters, cuDF tables, the local host run's values."""
    from rapids_balance.balancing import _engine

    want = rb.balance(EDGES, n_trees=8, sign="sign", progress=False, backend="cpu")
    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    copies = _client_host_copies(monkeypatch)
    before_counters: list[int] = []
    finalize = _engine._balance_finalize

    def mark(*args):  # host counters (a CPU run) are turned into attributes with the host graph
        before_counters.extend(copies)
        return finalize(*args)

    monkeypatch.setattr(_engine, "_balance_finalize", mark)
    got = rb.balance(graph, n_trees=8, progress=False, backend="cpu", client=device_client, as_dask=True)
    assert all(size <= 1 for size in before_counters), before_counters
    assert isinstance(got.vertices, standins.DataFrame) and isinstance(got.edges, standins.DaskFrame)
    pd.testing.assert_frame_equal(standins.host_view(got.vertices), want.vertices, check_dtype=False)
    pd.testing.assert_frame_equal(standins.host_view(got.edges.compute()), want.edges, check_dtype=False)


@pytest.mark.parametrize("attributes", ["consensus", "datalab"])
def test_device_counters_give_device_tables_without_host_copies(rapids, attributes):
    """A GPU run on a device graph keeps its counters there: the tables are built from them."""
    import array_api_strict as xps

    from rapids_balance.balancing._result import compute_attributes

    host = rb.balance(EDGES, n_trees=8, sign="sign", progress=False, backend="cpu", attributes=attributes)
    graph = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    counters = {k: xps.asarray(v) for k, v in host.counters.items()}
    _xp.host_copies.clear()
    vertices, edges = compute_attributes(graph, counters, attributes)
    assert all(size <= 1 for size in _xp.host_copies), _xp.host_copies
    for got, want in ((vertices, host.vertices), (edges, host.edges)):
        assert isinstance(got, standins.DataFrame)
        # exact integer sums: the device tables equal the host tables bit for bit
        pd.testing.assert_frame_equal(standins.host_view(got), want, check_dtype=False, rtol=0, atol=0)


def test_gpu_run_prelude_reads_a_device_graph_where_it_lives(rapids):
    """Before the kernels: the graph check and the degree-ranked roots copy no graph-sized array."""
    from rapids_balance.balancing._engine import _check_graph
    from rapids_balance.balancing._roots import tree_roots

    host = rb.SignedGraph.from_edgelist(EDGES, sign="sign")
    dev = rb.SignedGraph.from_edgelist(standins.from_pandas(EDGES), sign="sign")
    _xp.host_copies.clear()
    _check_graph(dev)
    roots, _ = tree_roots(dev, np.arange(3), sampler="bfs", roots=None, seed=0)
    assert _xp.host_copies == [3]  # the three roots
    assert np.array_equal(roots, tree_roots(host, np.arange(3), sampler="bfs", roots=None, seed=0)[0])


def test_calls_made_are_the_documented_calls(rapids, tmp_path):
    """Every path once: the stand-in calls recorded are exactly DEVICE_CALLS (docs/rapids.rst lists them)."""
    made = set()

    def run(fn, *args):
        standins.CALLS.clear()
        fn(*args)
        made.update(standins.CALLS)

    for fn in (test_cudf_frame_gives_the_pandas_graph, test_dask_cudf_frame_is_computed_once,
               test_text_ids_are_factorised_on_the_device, test_missing_value_in_a_cudf_column_is_named,
               test_cudf_in_cudf_out):
        run(fn, rapids)
    for renumber in (False, True):
        run(test_cugraph_graph, rapids, renumber)
    csr = standins.Graph()  # no input edge list: cuGraph's merged edges (view_edge_list)
    csr.from_cudf_adjlist(*(standins.Series(np.array(a)) for a in ([0, 1, 2], [1, 0], [1.0, 1.0])))
    run(rb.io.from_cugraph, csr)
    run(test_read_edgelist_gpu_parses_with_cudf, rapids, SNAP)
    run(test_read_edgelist_gpu_parquet, rapids, tmp_path)
    standins.CALLS.clear()
    rb.balance(rb.load_example("highland"), 2, progress=False, backend="cpu")
    assert standins.CALLS == []  # a host input calls nothing of RAPIDS
    assert made == set(DEVICE_CALLS)


def test_docs_name_exactly_the_calls_made():
    from pathlib import Path

    table = (Path(__file__).resolve().parents[1] / "docs" / "rapids.rst").read_text().split(
        "The cuDF / cuGraph calls the library makes")[1].split("What the library does not call")[0]
    named = [line.split("``")[1] for line in table.splitlines() if line.startswith("``")]

    def tail(call: str) -> str:  # the table may spell a method by its class: ``DataFrame.columns``
        return ".".join(call.split(".")[-2:])

    assert sorted(map(tail, named)) == sorted(map(tail, DEVICE_CALLS))


@pytest.mark.gpu
def test_gpu_no_input_sized_copy_from_input_to_result(monkeypatch):
    """Real GPU: CuPy (or cuDF) columns -> graph -> balance(backend='gpu') -> table, no O(n)/O(m) copy."""
    cupy = pytest.importorskip("cupy")
    from rapids_balance.generators import powerlaw_signed_graph

    host = powerlaw_signed_graph(2000, seed=1)
    cols = (cupy.asarray(host.labels[host.edge_src]), cupy.asarray(host.labels[host.edge_dst]),
            cupy.asarray(host.sign))
    try:
        import cudf

        data = cudf.DataFrame({"src": cols[0], "dst": cols[1], "sign": cols[2]})
    except ImportError:
        data = cols
    copies: list[int] = []
    real_get, real_asnumpy = cupy.ndarray.get, cupy.asnumpy

    def get(self, *args, **kwargs):
        copies.append(self.size)
        return real_get(self, *args, **kwargs)

    def asnumpy(a, *args, **kwargs):
        copies.append(getattr(a, "size", 0))
        return real_asnumpy(a, *args, **kwargs)

    monkeypatch.setattr(cupy.ndarray, "get", get)
    monkeypatch.setattr(cupy, "asnumpy", asnumpy)
    from rapids_balance import _output

    at_table: list[int] = []
    real_make_table = _output.make_table

    def make_table(columns, like=None):
        at_table.append(len(copies))
        return real_make_table(columns, like)

    monkeypatch.setattr(_output, "make_table", make_table)
    graph = graph_from_any(data, signed=True)
    res = rb.balance(graph, n_trees=16, backend="gpu", progress=False)
    limit = 64  # scalars and per-tree values (16 trees); the graph has thousands of vertices
    before_tables = copies[:at_table[0]]
    assert all(size <= limit for size in before_tables), before_tables
    try:
        import cudf  # noqa: F401
    except ImportError:
        return  # without cuDF the tables are pandas: the copy happens in make_table, by design
    assert all(size <= limit for size in copies), copies
    assert type(res.vertices).__module__.startswith("cudf")


def test_read_edgelist_backend_is_checked_before_the_file_is_opened():
    with pytest.raises(rb.InvalidParameterError, match="'backend' parameter of read_edgelist"):
        rb.read_edgelist("/no/such/file.txt", backend="tpu")
