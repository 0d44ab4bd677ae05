"""cuGraph graphs in: every edge the user gave, by column name, ids of any size and type.

The graphs are the stand-ins of ``tests/_standins.py`` (written from cuGraph
26.10's sources), built as a user builds a real one: ``Graph(directed=...)``
then ``from_cudf_edgelist`` on a cuDF frame.  Each graph read through
:func:`rapids_balance.io.from_cugraph` must equal the graph read from the
same rows as a pandas table, cleaning counts included.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb

import _standins as standins

from test_device_dataflow import rapids  # noqa: F401 (the stand-in modules, installed per test)
from test_device_dataflow import assert_same_graph


def assert_same(got, want) -> None:
    assert got.directed == want.directed
    assert_same_graph(got, want)


# undirected edges written (larger, smaller), a pair given both ways with opposite signs (a conflict),
# a repeated row, and a second component
BOTH_ORDERS = pd.DataFrame({"a": np.array([5, 3, 2, 1, 2, 2, 9, 8], np.int64),
                            "b": np.array([2, 1, 3, 2, 1, 3, 8, 9], np.int64),
                            "s": np.array([1, -1, 1, 1, -1, 1, 1, 1], np.int64)})


@pytest.mark.parametrize("renumber", [True, False], ids=["renumbered", "not-renumbered"])
def test_edges_written_larger_first_are_kept(rapids, renumber):
    """The CSR with ``row <= column`` slots would drop (5, 2) and (3, 1): the input edge list keeps them,
    and the conflict (1, 2, +1) / (2, 1, -1) and the repeated (2, 3) are counted as for a table."""
    G = standins.cugraph_graph(BOTH_ORDERS, "a", "b", "s", renumber=renumber)
    got = rb.io.from_cugraph(G, component="all")
    want = rb.SignedGraph.from_edgelist(BOTH_ORDERS, source="a", target="b", sign="s", component="all")
    assert_same(got, want)
    assert got.m == 5 and got.cleaning.conflicting_pairs == 1 and got.cleaning.duplicate_rows >= 1
    assert "cugraph.Graph.view_adj_list" not in standins.CALLS
    assert got.cleaning.columns["source"] == {"column": "a", "why": "fixed by the cuGraph graph"}


@pytest.mark.parametrize("big", [2**31 + 5, 2**53 + 1, 2**63 - 1])
@pytest.mark.parametrize("renumber", [True, False], ids=["renumbered", "not-renumbered"])
def test_ids_of_any_size_are_exact(rapids, big, renumber):
    df = pd.DataFrame({"src": np.array([big, 1, 2, big - 1], np.int64),
                       "dst": np.array([1, 2, big, 2], np.int64),
                       "sign": np.array([1, -1, 1, -1], np.int64)})
    G = standins.cugraph_graph(df, "src", "dst", "sign", renumber=renumber)
    got = rb.io.from_cugraph(G)
    assert_same(got, rb.SignedGraph.from_edgelist(df, sign="sign"))
    assert big in got.labels.tolist() and big - 1 in got.labels.tolist()


TEXT = pd.DataFrame({"who": ["zoe", "amy", "bob", "amy", "éva", "bob"],
                     "whom": ["amy", "bob", "zoe", "éva", "zoe", "amy"],
                     "vote": np.array([1, -1, 1, 1, -1, 1], np.int64)})


def test_text_ids_from_cugraph(rapids):
    G = standins.cugraph_graph(TEXT, "who", "whom", "vote")
    assert G.is_renumbered()
    got = rb.io.from_cugraph(G)
    want = rb.SignedGraph.from_edgelist(TEXT, source="who", target="whom", sign="vote")
    assert_same(got, want)
    assert got.labels.tolist() == ["amy", "bob", "zoe", "éva"]
    assert "cudf.Index.to_numpy" in standins.CALLS and "cudf.Series.factorize" in standins.CALLS


def test_directed_graph_with_text_ids(rapids):
    df = TEXT.drop(columns="vote").assign(w=np.array([1.5, 2.0, 0.5, 1.0, 3.0, 2.5]))
    G = standins.cugraph_graph(df, "who", "whom", "w", directed=True)
    got = rb.io.from_cugraph(G, weight="w")  # a weighted directed graph: unsigned
    assert got.directed and type(got) is rb.Graph
    want = rb.Graph.from_edgelist(df, source="who", target="whom", weight="w", directed=True)
    assert_same(got, want)
    # the directed rows (bob, amy) and (amy, bob) are two edges
    assert got.m == 6


def test_directed_graph_read_as_signed_is_merged_with_a_note(rapids):
    G = standins.cugraph_graph(TEXT, "who", "whom", "vote", directed=True)
    got = rb.io.from_cugraph(G)
    assert not got.directed
    assert_same(got, rb.SignedGraph.from_edgelist(TEXT, source="who", target="whom", sign="vote"))
    assert any("directed" in note for note in got.cleaning.notes)


def test_multi_gpu_graph_is_read_through_its_dask_cudf_edge_list(rapids):
    G = standins.Graph()
    lazy = standins.DaskFrame(standins.from_pandas(BOTH_ORDERS), npartitions=3)
    G.from_dask_cudf_edgelist(lazy, source="a", destination="b", edge_attr="s")
    standins.CALLS.clear()
    got = rb.io.from_cugraph(G, component="all")
    assert "dask_cudf.DataFrame.compute" in standins.CALLS and "cugraph.Graph.is_multi_gpu" in standins.CALLS
    want = rb.SignedGraph.from_edgelist(BOTH_ORDERS, source="a", target="b", sign="s", component="all")
    assert_same(got, want)
    assert got.cleaning.columns["sign"]["column"] == "value"  # cuGraph renames the multi-GPU weight column
    assert_same(rb.io.from_cugraph(G, sign="s", component="all"), want)  # the user's name still names it


def test_graph_without_an_input_edge_list_reports_what_cugraph_merged(rapids):
    """A graph built from a CSR keeps no input rows: its merged edges are read, and a +1/-1 pair that
    cuGraph averaged to 0 is reported, not read silently as a sign."""
    # undirected CSR of 0-1 (+1 one way, -1 the other), 1-2 (-1 both ways)
    offsets = standins.Series(np.array([0, 1, 3, 4], np.int32))
    indices = standins.Series(np.array([1, 0, 2, 1], np.int32))
    values = standins.Series(np.array([1.0, -1.0, -1.0, -1.0]))
    G = standins.Graph()
    G.from_cudf_adjlist(offsets, indices, values)
    standins.CALLS.clear()
    got = rb.io.from_cugraph(G)
    assert "cugraph.Graph.view_edge_list" in standins.CALLS
    notes = " ".join(got.cleaning.notes)
    assert "merged" in notes and "1 edge(s) have the value 0" in notes
    assert got.m == 2 and got.zero_sign is not None and int(np.asarray(got.zero_sign).sum()) == 1


def test_multi_column_ids_are_refused_by_name(rapids):
    from rapids_balance.io._device import _one_column

    with pytest.raises(rb.GraphInputError, match=r"several source columns \['a', 'b'\]"):
        _one_column(["a", "b"], "source")


def test_betweenness_of_a_cugraph_graph_reads_its_columns_by_name(rapids):
    """(larger, smaller) edges and text ids reach the betweenness kernels: the pandas table's values."""
    df = TEXT.assign(w=np.array([1.5, 2.0, 0.5, 1.0, 3.0, 2.5]))
    want = rb.betweenness_centrality(df, weight="w", source="who", target="whom")
    G = standins.cugraph_graph(df, "who", "whom", "w")
    got = rb.betweenness_centrality(G, weight="w")
    pd.testing.assert_frame_equal(standins.host_view(got), want, check_dtype=False)
    ints = BOTH_ORDERS[["a", "b"]].drop_duplicates()
    G = standins.cugraph_graph(ints, "a", "b", None, renumber=False)
    pd.testing.assert_frame_equal(standins.host_view(rb.betweenness_centrality(G, weight=None)),
                                  rb.betweenness_centrality(ints, weight=None, source="a", target="b"),
                                  check_dtype=False)
