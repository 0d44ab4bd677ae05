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
    got = rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(EDGES), sign="sign")
    assert got.on_device and not want.on_device
    assert_same_graph(got, want)
    assert got.cleaning.columns == want.cleaning.columns


def test_no_input_sized_copy_to_the_host(rapids):
    frame = standins.DataFrame.host_from_pandas(EDGES)
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
    lazy = standins.DaskFrame(standins.DataFrame.host_from_pandas(EDGES), npartitions=3)
    g = graph_from_any(lazy, sign="sign")
    assert lazy.host_computed == 1
    assert_same_graph(g, rb.SignedGraph.from_edgelist(EDGES, sign="sign"))


def _clean_edges() -> pd.DataFrame:
    """Each pair once (a cuGraph graph holds no repeated pairs), as a float edge value."""
    df = EDGES[EDGES.src != EDGES.dst].drop_duplicates(["src", "dst"]).iloc[:6].copy()
    df["sign"] = df["sign"].replace(0, 1).astype(np.float64)
    return df.reset_index(drop=True)


@pytest.mark.parametrize("renumber", [False, True], ids=["csr", "edge-list"])
def test_cugraph_graph(rapids, renumber):
    df = _clean_edges()
    if not renumber:  # without renumbering, cuGraph's CSR rows are the vertex ids: keep them small
        df = df[(df.src < 100) & (df.dst < 100)].reset_index(drop=True)
    G = standins.Graph.host_from_edges(df, "src", "dst", "sign", renumber=renumber)
    g = rb.io.from_cugraph(G)
    assert g.on_device
    assert ("cugraph.Graph.view_adj_list" in standins.CALLS) is (not renumber)
    want = rb.SignedGraph.from_edgelist(df, sign="sign")
    for name in ("edge_src", "edge_dst", "indptr", "indices", "sign", "labels"):
        assert np.array_equal(getattr(g, name), getattr(want, name)), name
    assert g.cleaning.columns["sign"]["column"] in ("sign", "weights")


def test_text_ids_are_factorised_on_the_device(rapids):
    df = pd.DataFrame({"a": ["x", "y", "zz", "y", "é"], "b": ["y", "zz", "x", "é", "x"], "s": [1, -1, 1, 1, -1]})
    want = rb.SignedGraph.from_edgelist(df, source="a", target="b", sign="s")
    _xp.host_copies.clear()
    got = rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(df), source="a", target="b", sign="s")
    assert "cudf.Series.factorize" in standins.CALLS
    assert all(size <= 1 for size in _xp.host_copies), _xp.host_copies
    assert got.labels.tolist() == want.labels.tolist()
    assert_same_graph(got, want)


def test_numbers_and_text_in_the_endpoints_follow_the_host_rules(rapids):
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["1", "3", "2"], "s": [1, -1, 1]})
    want = rb.SignedGraph.from_edgelist(df, source="a", target="b", sign="s", component="all")
    got = rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(df), source="a", target="b",
                                       sign="s", component="all")
    assert got.n == 6 and got.labels.tolist() == want.labels.tolist()
    assert_same_graph(got, want)


def test_missing_value_in_a_cudf_column_is_named(rapids):
    df = EDGES.astype({"sign": "Int64"})
    df.loc[3, "sign"] = pd.NA
    with pytest.raises(rb.GraphInputError, match=r"sign column 'sign' has a missing value .* row 3"):
        rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(df), sign="sign")


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
    frame = standins.DataFrame.host_from_pandas(EDGES)
    host = rb.balance(EDGES, n_trees=8, sign="sign", progress=False, backend="cpu")
    dev = rb.balance(frame, n_trees=8, sign="sign", progress=False, backend="cpu")
    for got, want in ((dev.vertices, host.vertices), (dev.edges, host.edges)):
        assert isinstance(got, standins.DataFrame)
        pd.testing.assert_frame_equal(got.host_to_pandas(), want, check_dtype=False)
    lazy = rb.balance(frame, n_trees=8, sign="sign", progress=False, backend="cpu", as_dask=True)
    assert isinstance(lazy.edges, standins.DaskFrame)


def test_betweenness_reads_cudf_and_cugraph_into_host_columns(rapids):
    """Betweenness kernels read host arrays: a device input is copied once per column, via the same calls."""
    df = _clean_edges()
    want = rb.betweenness_centrality(df, weight=None, source="src", target="dst")
    got = rb.betweenness_centrality(standins.DataFrame.host_from_pandas(df), weight=None, source="src",
                                    target="dst")
    assert isinstance(got, standins.DataFrame)  # cuDF in, cuDF out (cudf.from_pandas)
    pd.testing.assert_frame_equal(got.host_to_pandas(), want, check_dtype=False)
    G = standins.Graph.host_from_edges(df, "src", "dst", None, renumber=True)
    via_cugraph = rb.betweenness_centrality(G, weight=None)
    pd.testing.assert_frame_equal(via_cugraph.host_to_pandas(), want, check_dtype=False)


@pytest.mark.parametrize("attributes", ["consensus", "datalab"])
def test_device_counters_give_device_tables_without_host_copies(rapids, attributes):
    """A GPU run on a device graph keeps its counters there: the tables are built from them."""
    import array_api_strict as xps

    from rapids_balance.balancing._result import compute_attributes

    host = rb.balance(EDGES, n_trees=8, sign="sign", progress=False, backend="cpu", attributes=attributes)
    graph = rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(EDGES), sign="sign")
    counters = {k: xps.asarray(v) for k, v in host.counters.items()}
    _xp.host_copies.clear()
    vertices, edges = compute_attributes(graph, counters, attributes)
    assert all(size <= 1 for size in _xp.host_copies), _xp.host_copies
    for got, want in ((vertices, host.vertices), (edges, host.edges)):
        assert isinstance(got, standins.DataFrame)
        # exact integer sums: the device tables equal the host tables bit for bit
        pd.testing.assert_frame_equal(got.host_to_pandas(), want, check_dtype=False, rtol=0, atol=0)


def test_gpu_run_prelude_reads_a_device_graph_where_it_lives(rapids):
    """Before the kernels: the graph check and the degree-ranked roots copy no graph-sized array."""
    from rapids_balance.balancing._engine import _check_graph
    from rapids_balance.balancing._trees import tree_roots

    host = rb.SignedGraph.from_edgelist(EDGES, sign="sign")
    dev = rb.SignedGraph.from_edgelist(standins.DataFrame.host_from_pandas(EDGES), sign="sign")
    _xp.host_copies.clear()
    _check_graph(dev)
    roots, _ = tree_roots(dev, np.arange(3), sampler="bfs", roots=None, seed=0)
    assert _xp.host_copies == [3]  # the three roots
    assert np.array_equal(roots, tree_roots(host, np.arange(3), sampler="bfs", roots=None, seed=0)[0])


def test_calls_made_are_the_documented_calls(rapids, tmp_path):
    """Every path once: the stand-in calls recorded are exactly DEVICE_CALLS (docs/rapids.md lists them)."""
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
    run(test_read_edgelist_gpu_parses_with_cudf, rapids, SNAP)
    run(test_read_edgelist_gpu_parquet, rapids, tmp_path)
    from rapids_balance._output import as_frame_like

    run(as_frame_like, pd.DataFrame({"x": [1]}), standins.DataFrame.host_from_pandas(EDGES))
    standins.CALLS.clear()
    rb.balance(rb.load_example("highland"), 2, progress=False, backend="cpu")
    assert standins.CALLS == []  # a host input calls nothing of RAPIDS
    assert made == set(DEVICE_CALLS)


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
