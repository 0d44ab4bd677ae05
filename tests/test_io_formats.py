"""Each supported file format, detected and named, compressed and archived."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.io._formats import detect_format

# One small signed graph (a 4-cycle with a chord), written in every format.
# Edges as (u, v, sign) with 1-based ids.
EDGES = [(1, 2, 1), (2, 3, -1), (3, 4, 1), (4, 1, -1), (1, 3, 1)]


def _expected(shift=0):
    return {(min(u, v) + shift, max(u, v) + shift, s) for u, v, s in EDGES}


def _edge_set(g):
    e = g.edges_frame()
    return {(int(u), int(v), int(s)) for u, v, s in zip(e.src, e.dst, e.sign)}


TEXTS = {
    "graphb": "From_Tribe,To_Tribe,Weight\n" + "".join(f"{u},{v},{s}\n" for u, v, s in EDGES),
    "csv": "\ufeff" + "".join(f"{u},{v},{s}\r\n" for u, v, s in EDGES),  # NDS-VU: BOM + CRLF
    "snap": "# Directed graph\n# FromNodeId\tToNodeId\tSign\n" + "".join(f"{u}\t{v}\t{s}\n" for u, v, s in EDGES),
    "bitcoin": "".join(f"{u},{v},{7 * s},{1289241911.5 + i}\n" for i, (u, v, s) in enumerate(EDGES)),
    "konect": "% asym signed\n% 5 4 4\n" + "".join(f"{u} {v} {s} {1000 + i}\n" for i, (u, v, s) in enumerate(EDGES)),
    "levorato": "5 5\n" + "".join(f"{u}\t{v}\t{s}\n" for u, v, s in EDGES) + "3 4\n",
    "mrel": ("people: 4\r\n\r\nVarErr: 0.5\r\n\r\nNames: [V1 V2 V3 V4 ]\r\n\r\nMrel: [ "
             + "".join(f"({u},{v}){s} \r\n({v},{u}){s} \r\n" for u, v, s in EDGES) + "]"),
}


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_format_detected_and_parsed(fmt):
    data = TEXTS[fmt].encode()
    assert detect_format(data.removeprefix(b"\xef\xbb\xbf"), "x") == fmt
    for how in ("auto", fmt):
        g = rb.read_edgelist(data, format=how)
        assert isinstance(g, rb.SignedGraph)
        assert _edge_set(g) == _expected(), (fmt, how)


def test_levorato_extra_lines_counted_not_read():
    g = rb.read_edgelist(TEXTS["levorato"].encode())
    assert g.cleaning.input_rows == 5
    assert any("1 non-blank line(s) after the 5 declared edges were ignored" in n for n in g.cleaning.notes)


def test_mrel_whitespace_variants_and_directed_arcs():
    text = ("people:  4 \nVarErr: 0.5 \nNames: [ V1 V2 V3 V4 ] \nMrel: [ ( 1 , 2 ) 1\n( 2 , 3 ) -1\n"
            "( 3 , 2 ) 1\n(4,1)  -1 (1 ,3)1\n( 3 , 4 ) +1\n] \n")
    g = rb.read_edgelist(text.encode())
    assert _edge_set(g) == _expected()  # (3,2) conflicts with (2,3): first sign kept
    assert g.cleaning.conflicting_pairs == 1 and g.cleaning.conflict_rows_ignored == 1
    g2 = rb.read_edgelist(text.encode(), conflicts="drop")
    assert (2, 3, -1) not in _edge_set(g2) and g2.m == 4


def test_konect_header_noted_and_comment_lines_counted():
    g = rb.read_edgelist(TEXTS["konect"].encode())
    assert g.cleaning.comment_lines == 2
    assert any("declares 5 edges" in n for n in g.cleaning.notes)


def test_snap_comment_lines_counted():
    g = rb.read_edgelist(TEXTS["snap"].encode())
    assert g.cleaning.comment_lines == 2


def test_bitcoin_sign_of_rating_and_abs_weight():
    g = rb.read_edgelist(TEXTS["bitcoin"].encode(), weight="abs")
    assert _edge_set(g) == _expected()
    assert np.all(g.weight == 7.0)
    # unsigned, weighted by the rating itself
    h = rb.read_edgelist(TEXTS["bitcoin"].encode(), signed=False)
    assert type(h) is rb.Graph and sorted(h.weight.tolist()) == [-7.0, -7.0, 7.0, 7.0, 7.0]
    a = rb.read_edgelist(TEXTS["bitcoin"].encode(), signed=False, weight="abs")
    assert a.weight.tolist() == [7.0] * 5
    # the time column by position
    t = rb.read_edgelist(TEXTS["bitcoin"].encode(), signed=False, weight=3)
    assert t.weight.min() > 1e9


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compression_detected_by_magic_bytes(tmp_path, compress):
    p = tmp_path / "edges.csv"  # no .gz suffix on purpose
    p.write_bytes(compress(TEXTS["graphb"].encode()))
    g = rb.read_edgelist(p)
    assert _edge_set(g) == _expected()
    assert g.name == "edges"


def test_tar_member_and_compressed_member(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in (("d/a.g", TEXTS["levorato"].encode()),
                           ("d/b.txt.gz", gzip.compress(TEXTS["snap"].encode()))):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            tf.addfile(ti, io.BytesIO(data))
    p = tmp_path / "inst.tar.gz"
    p.write_bytes(buf.getvalue())
    assert _edge_set(rb.read_edgelist(p, member="d/a.g")) == _expected()
    g = rb.read_edgelist(p, member="b.txt.gz")
    assert _edge_set(g) == _expected() and g.cleaning.source.endswith(":b.txt.gz")


def test_parquet(tmp_path):
    df = pd.DataFrame({"src": [u for u, _, _ in EDGES], "dst": [v for _, v, _ in EDGES],
                       "sign": [s for *_, s in EDGES], "weight": [0.5, 1, 2, 3, 4]})
    p = tmp_path / "e.parquet"
    df.to_parquet(p)
    g = rb.read_edgelist(p)
    assert _edge_set(g) == _expected() and g.weight is None
    gw = rb.read_edgelist(p, weight="weight")
    assert sorted(gw.weight.tolist()) == [0.5, 1, 2, 3, 4]
    with pytest.raises(rb.GraphInputError, match="available columns"):
        rb.read_edgelist(p, sign="polarity")


def test_header_csv_columns_by_name_and_position():
    text = "when,a,b,s\n" + "".join(f"{i},{u},{v},{s}\n" for i, (u, v, s) in enumerate(EDGES))
    g = rb.read_edgelist(text.encode(), format="graphb", source="a", target="b", sign="s")
    assert _edge_set(g) == _expected()
    g2 = rb.read_edgelist(text.encode(), source=1, target=2, sign=3)
    assert _edge_set(g2) == _expected()
    with pytest.raises(rb.GraphInputError, match="no header; select columns by 0-based position"):
        rb.read_edgelist(TEXTS["csv"].encode(), sign="sign")


def test_buffer_and_text_buffer_inputs():
    g1 = rb.read_edgelist(io.BytesIO(TEXTS["snap"].encode()))
    g2 = rb.read_edgelist(io.StringIO(TEXTS["snap"]))
    assert _edge_set(g1) == _edge_set(g2) == _expected()


def test_string_vertex_ids_are_labels():
    text = "alice,bob,1\nbob,carol,-1\ncarol,alice,1\n"
    g = rb.read_edgelist(text.encode())
    assert sorted(g.labels.tolist()) == ["alice", "bob", "carol"]
    assert g.labels.dtype == object and g.m == 3


@pytest.mark.parametrize("base", [2**40, 2**63 + 5, 2**64 + 7])
def test_ids_beyond_int32_int64_kept_exactly(base):
    ids = [base + k for k in (0, 1, 2, 3)]
    text = "".join(f"{ids[u - 1]}\t{ids[v - 1]}\t{s}\n" for u, v, s in EDGES)
    g = rb.read_edgelist(text.encode(), format="snap")
    assert sorted(int(x) for x in g.labels.tolist()) == ids
    got = {(int(g.labels[u]), int(g.labels[v])) for u, v in zip(g.edge_src, g.edge_dst)}
    assert got == {(min(ids[u - 1], ids[v - 1]), max(ids[u - 1], ids[v - 1])) for u, v, _ in EDGES}


def test_negative_and_huge_ids_mixed():
    text = f"-3,{2**63 + 1},1\n{2**63 + 1},4,-1\n4,-3,1\n"
    g = rb.read_edgelist(text.encode())
    assert sorted(int(x) for x in g.labels.tolist()) == [-3, 4, 2**63 + 1]


def test_unsigned_two_column_and_directed():
    text = "1 2\n2 3\n3 1\n3 2\n"
    with pytest.raises(rb.GraphInputError, match="no sign column"):
        rb.read_edgelist(text.encode())
    g = rb.read_edgelist(text.encode(), signed=False)
    assert type(g) is rb.Graph and g.m == 3 and g.weight is None and g.sign is None
    d = rb.read_edgelist(text.encode(), signed=False, directed=True)
    assert d.directed and d.m == 4


def test_zero_sign_rules_from_file():
    text = "1,2,1\n2,3,0\n3,1,-1\n"
    g = rb.read_edgelist(text.encode())
    assert g.m == 3 and g.summary()["zero_sign_edges"] == 1 and g.sign.min() == -1
    assert rb.read_edgelist(text.encode(), zero_sign="drop").m == 2


def test_graphbplus_numbering_option_passes_through():
    text = "From,To,Weight\n5,9,1\n9,7,-1\n7,5,1\n"
    g = rb.read_edgelist(text.encode(), numbering="graphbplus")
    # unique edges sorted by (min, max, sign): (5,7) (5,9) (7,9) -> first appearance 5, 7, 9
    assert g.labels.tolist() == [5, 7, 9]
    assert g.cleaning.numbering == "graphbplus"


def test_bundled_examples():
    names = rb.list_examples()
    assert {"highland", "bitcoin-otc", "bitcoin-alpha", "sampson", "graphb-test-1a", "slashdot-1000"} <= set(names)
    sizes = {"highland": (16, 58), "bitcoin-otc": (5_875, 21_489), "bitcoin-alpha": (3_775, 14_120),
             "sampson": (18, 126), "graphb-test-1a": (4, 5), "slashdot-1000": (997, 5_991)}
    for name, nm in sizes.items():
        g = rb.load_example(name)
        assert (g.n, g.m) == nm and g.name == name
        assert g.cleaning.source.startswith(f"example:{name}")
    with pytest.raises(KeyError, match="available: highland"):
        rb.load_example("nope")
    # dropping zero rows removes the pairs rated only 0 (a pair rated 0 and +1 keeps +1)
    s = rb.load_example("sampson", zero_sign="drop")
    assert s.summary()["zero_sign_edges"] == 0 and 126 - 13 <= s.m < 126
