"""Header lines of the seed programs' inputs and of the public data sets, read as they are.

Each case is the exact first line a program writes or a data set ships with
(graphB+, graphB, graphB++, ECL-SGB and the public files in ``../shared/data``),
followed by the same four edges.  Column names are compared without case,
spaces, underscores or punctuation; a column whose name is not recognised is
still never given a role.
"""

import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphInputError
from rapids_balance.io._roles import normalise_name

EDGES = [(0, 1, -1), (0, 2, -1), (1, 2, 1), (2, 3, 1)]


def _write(tmp_path, header, extra=None, newline="\n", prefix=b""):
    rows = [header] + [",".join(str(x) for x in e) + ("" if extra is None else f",{extra}") for e in EDGES]
    path = tmp_path / "edges.csv"
    path.write_bytes(prefix + newline.join(rows).encode() + newline.encode())
    return path


def _assert_signed_edges(g):
    assert g.n == 4 and g.m == 4
    got = sorted((int(g.labels[u]), int(g.labels[v]), int(s)) for u, v, s in zip(g.edge_src, g.edge_dst, g.sign))
    assert got == sorted((min(a, b), max(a, b), s) for a, b, s in EDGES)


@pytest.mark.parametrize("header, extra, sign_column", [
    # graphB+ program page and graphB's data-test README: the documented input header
    ("From Node ID, To Node ID, Edge Weight", None, "Edge Weight"),
    # graphB README: the same columns with underscores
    ("From_Node_ID,To_Node_ID,Edge_Weight", None, "Edge_Weight"),
    # ECL-SGB scripts/amazon_edges_users.py (and graphB+'s Amazon inputs)
    ("From Node ID,To Node ID,Weight", None, "Weight"),
    # graphB's survey example: the original answer after the sign
    ("From Node ID,To Node ID,Edge Weight,Rating", 5, "Edge Weight"),
    # graphB's Amazon core5 files
    ("From Node ID,To Node ID,Weight,Original Rating", 4, "Weight"),
    ("From Node ID,To Node ID,Weight,Score", 4, "Weight"),
    # graphB's csv writer
    ("From,To,Weight", None, "Weight"),
    # graphB+ data: highland tribes and the toy tests; wiki-Elec as preprocessed for SC'21
    ("From_Tribe,To_Tribe,Weight", None, "Weight"),
    ("Voter ID,Nominee ID,Vote", None, "Vote"),
    # graphB++ and ABCD: "(src,dst,sign)", first line skipped by readGraph
    ("src,dst,sign", None, "sign"),
    # SNAP's column names written as a CSV header
    ("FromNodeId,ToNodeId,Sign", None, "Sign"),
])
def test_seed_program_header_is_read_without_naming_columns(tmp_path, header, extra, sign_column):
    g = rb.read_edgelist(_write(tmp_path, header, extra))
    _assert_signed_edges(g)
    cols = g.cleaning.columns
    assert cols["sign"]["column"] == sign_column
    assert normalise_name(cols["source"]["column"]) in {"fromnodeid", "from", "fromtribe", "voterid", "src"}


def test_graphbplus_amazon_file_with_two_byte_order_marks(tmp_path):
    # graphB's amazonDigitalMusic_core5_edges.csv starts with the UTF-8 BOM twice
    g = rb.read_edgelist(_write(tmp_path, "From Node ID,To Node ID,Weight,Original Rating", 3,
                                prefix=b"\xef\xbb\xbf\xef\xbb\xbf"))
    _assert_signed_edges(g)


def test_header_with_crlf_and_padding(tmp_path):
    g = rb.read_edgelist(_write(tmp_path, " From Node ID , To Node ID , Edge Weight ", newline="\r\n"))
    _assert_signed_edges(g)


def test_names_compare_without_case_spaces_underscores_or_punctuation():
    assert {normalise_name(n) for n in ("From Node ID", "from_node_id", "FromNodeId", " FROM-NODE-ID.",
                                        "\ufeffFrom Node ID")} == {"fromnodeid"}


def test_a_strong_sign_name_beats_the_graphbplus_layout(tmp_path):
    # a third-column weight is graphB+'s sign only when no column is named as the sign
    path = tmp_path / "e.csv"
    path.write_text("source,target,weight,sign\n0,1,5,-1\n0,2,5,-1\n1,2,5,1\n2,3,5,1\n")
    g = rb.read_edgelist(path)
    assert g.cleaning.columns["sign"]["column"] == "sign"
    _assert_signed_edges(g)


@pytest.mark.parametrize("header", ["From Node ID,To Node ID,Trust", "source,target,time,trust"])
def test_unrecognised_value_name_is_still_never_the_sign(tmp_path, header):
    extra = 7 if header.count(",") == 3 else None
    with pytest.raises(GraphInputError, match="no sign column"):
        rb.read_edgelist(_write(tmp_path, header, extra))


def test_unrecognised_endpoint_names_are_still_refused(tmp_path):
    with pytest.raises(GraphInputError, match="cannot tell the source and target"):
        rb.read_edgelist(_write(tmp_path, "Alpha,Beta,Gamma,Weight", 1))


def test_dataframe_columns_use_the_same_names():
    import pandas as pd

    frame = pd.DataFrame(EDGES, columns=["From Node ID", "To_Node_ID", "Edge-Sign"])
    g = rb.SignedGraph.from_edgelist(frame)
    _assert_signed_edges(g)
    assert {r: c["why"] for r, c in g.cleaning.columns.items()} == dict.fromkeys(
        ("source", "target", "sign"), "recognised header name")


@pytest.mark.parametrize("name, first_line", [
    ("highland_tribes_graphB_edges.csv.gz", "From_Tribe,To_Tribe,Weight"),
    ("graphB_test_1A_edges.csv.gz", "From_Tribe,To_Tribe,Weight"),
    ("wiki-Elec_graphB_SC21_edges.csv.gz", "Voter ID,Nominee ID,Vote"),
    ("soc-sign-Slashdot090221.txt.gz", "# Directed graph: soc-sign-Slashdot090221"),
    ("soc-sign-bitcoinotc.csv.gz", "6,2,4,1289241911.72836"),
    ("konect_out.soc-sign-bitcoinalpha.gz", "% asym signed"),
    ("konect_out.moreno_sampson_sampson.gz", "% asym weighted"),
    ("wiki-Elec_levorato_wiki.g.gz", "8298 114040"),
    ("cloister_nds-vu.csv.gz", "\ufeff0,1,1"),
    ("wiki-Elec_votes_pm1.txt.gz", "3\t30\t1"),
])
def test_public_data_set_is_read_as_it_is(shared_data, name, first_line):
    import gzip

    with gzip.open(shared_data / name, "rt", encoding="utf-8") as fh:
        assert fh.readline().rstrip("\r\n") == first_line  # the exact line this case is about
    g = rb.read_edgelist(shared_data / name)
    assert g.m > 0 and set(g.cleaning.columns) >= {"source", "target", "sign"}


@pytest.mark.parametrize("header", ["src,dst,weight", "From Node ID,To Node ID,Edge Weight", "a,b,weight"])
def test_weight_header_holding_lengths_is_not_read_as_signs(tmp_path, header):
    # graphB+'s layout makes a third-column weight header the sign; lengths there would become an
    # all-positive signed graph with its weights dropped, so the read stops and names the line
    path = tmp_path / "lengths.csv"
    path.write_text(f"{header}\n0,1,1\n1,2,2.5\n2,0,0.7\n")
    with pytest.raises(GraphInputError, match=r"line 3: .*holds 2\.5 .*sign=<column>.*signed=False"):
        rb.read_edgelist(path)
    assert rb.read_edgelist(path, signed=False).weight.tolist() == [1.0, 0.7, 2.5]
    col = header.split(",")[2]
    assert sorted(rb.read_edgelist(path, sign=col).sign.tolist()) == [1, 1, 1]


def test_weight_header_with_signs_and_neutral_zeros_is_still_the_sign(tmp_path):
    path = tmp_path / "votes.csv"
    path.write_text("From Node ID,To Node ID,Edge Weight\n0,1,1\n1,2,-1\n2,3,0\n")
    g = rb.read_edgelist(path)
    assert g.m == 3 and sorted(g.sign.tolist()) == [-1, 1, 1]
