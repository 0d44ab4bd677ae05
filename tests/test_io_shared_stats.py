"""Every file in ../shared/data loads to the statistics its README publishes.

The README's figures were computed by an independent script; the "keep"
column is graphB+'s rule (our defaults: conflicts="first", zeros kept as
positive edges) and the "drop" column removes zero-sign rows and every pair
seen with both signs (conflicts="drop", zero_sign="drop").
"""

from __future__ import annotations

import gzip
import re

import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphFormatError

# file: (raw rows, vertex ids, self loops, unique pairs, ±pairs or None,
#        keep LCC (n, m, cycles, %pos, max deg, zero-sign edges), drop LCC (n, m, cycles, %pos, max deg))
STATS = {
    "soc-sign-Slashdot090221.txt.gz": (549_202, 82_140, 0, 500_481, 1_949,
                                       (82_140, 500_481, 418_342, 76.36, 2_548, 0),
                                       (82_052, 498_527, 416_476, 76.41, 2_548)),
    "soc-sign-epinions.txt.gz": (841_372, 131_828, 573, 711_210, 2_703,
                                 (119_130, 704_267, 585_138, 82.98, 3_558, 0),
                                 (119_070, 701_569, 582_500, 83.21, 3_534)),
    "soc-sign-Slashdot081106.txt.gz": (516_575, 77_350, 0, 468_554, 1_888,
                                       (77_350, 468_554, 391_205, 75.57, 2_537, 0),
                                       (77_258, 466_661, 389_404, 75.62, 2_537)),
    "soc-sign-bitcoinotc.csv.gz": (35_592, 5_881, 0, 21_492, 358,
                                   (5_875, 21_489, 15_615, 86.42, 795, 0),
                                   (5_857, 21_131, 15_275, 86.27, 792)),
    "soc-sign-bitcoinalpha.csv.gz": (24_186, 3_783, 0, 14_124, 248,
                                     (3_775, 14_120, 10_346, 91.60, 511, 0),
                                     (3_766, 13_872, 10_107, 91.70, 511)),
    "konect_out.soc-sign-bitcoinalpha.gz": (24_186, 3_783, 0, 14_124, 248,
                                            (3_775, 14_120, 10_346, 91.60, 511, 0),
                                            (3_766, 13_872, 10_107, 91.70, 511)),
    "wiki-Elec_graphB_SC21_edges.csv.gz": (114_040, 7_597, 65, 112_086, None,
                                           (7_539, 112_058, 104_520, 73.33, 1_079, 6_897),
                                           (7_468, 105_093, 97_626, 78.22, 1_007)),
    "wiki-Elec_levorato_wiki.g.gz": (114_040, 7_194, 72, 106_835, None,
                                     (7_136, 106_807, 99_672, 73.25, 1_115, 6_565),
                                     (7_065, 99_836, 92_772, 78.49, 1_012)),
    "wiki-Elec_votes_pm1.txt.gz": (107_080, 7_118, 58, 100_762, 900,
                                   (7_066, 100_736, 93_671, 78.06, 1_065, 0),
                                   (7_065, 99_836, 92_772, 78.49, 1_012)),
    "konect_elec_nds-vu_wikielections.csv.gz": (100_693, 7_115, 0, 100_693, 0,
                                                (7_066, 100_667, 93_602, 77.91, 1_065, 0), None),
    "konect_ucidata-gama_highland.txt.gz": (58, 16, 0, 58, 0, (16, 58, 43, 50.00, 10, 0), None),
    "highland_tribes_graphB_edges.csv.gz": (116, 16, 0, 58, 0, (16, 58, 43, 50.00, 10, 0), None),
    "konect_out.moreno_sampson_sampson.gz": (188, 18, 0, 126, None, (18, 126, 109, 42.86, 17, 13),
                                             (18, 112, 95, 54.46, 16)),
    "cloister_nds-vu.csv.gz": (125, 18, 0, 125, 0, (18, 125, 108, 44.80, 17, 0), None),
    "congress_nds-vu.csv.gz": (521, 219, 0, 521, 0, (219, 521, 303, 79.46, 33, 0), None),
    "graphB_test_1A_edges.csv.gz": (5, 4, 0, 5, 0, (4, 5, 2, 60.0, 3, 0), None),
    "graphB_test_2A_edges.csv.gz": (5, 4, 0, 5, 0, (4, 5, 2, 80.0, 3, 0), None),
    "graphB_test_2B_edges.csv.gz": (5, 4, 0, 5, 0, (4, 5, 2, 60.0, 3, 0), None),
}

VERTEX_TABLES = ["highland_tribes_graphB_users.csv.gz", "wiki-Elec_graphB_SC21_users.csv.gz"]
ARCHIVES = ["levorato_cc_slashdot_first_n.tar.gz", "levorato_cc_random_sg_bigger.tar.gz",
            "levorato_cc_gisele_random.tar.gz"]

# Levorato Slashdot first-n: n -> (declared m, LCC n, LCC m, cycles, %pos)
SLASHDOT_FIRST_N = {
    200: (887, 198, 886, 689, 93.0), 300: (1_063, 298, 1_063, 766, 92.3), 400: (1_279, 399, 1_279, 881, 93.2),
    600: (1_917, 599, 1_917, 1_319, 91.9), 800: (3_336, 798, 3_336, 2_539, 88.9),
    1000: (5_991, 997, 5_991, 4_995, 85.7), 2000: (20_815, 1_997, 20_815, 18_819, 84.5),
    4000: (49_532, 3_997, 49_532, 45_536, 82.5), 8000: (109_705, 7_994, 109_705, 101_712, 79.2),
    10000: (139_071, 9_993, 139_071, 129_079, 78.6),
}


def test_every_shared_file_is_covered(shared_data):
    names = {p.name for p in shared_data.iterdir() if p.name != "README.md"}
    assert names == set(STATS) | set(VERTEX_TABLES) | set(ARCHIVES)


def _lcc_tuple(g):
    s = g.summary()
    return s["vertices"], s["edges"], s["cycles"], s["percent_positive"], s["max_degree"]


@pytest.mark.parametrize("fname", sorted(STATS))
def test_published_statistics_keep_rule(shared_data, fname):
    raw, verts, loops, pairs, pm_pairs, keep, _ = STATS[fname]
    g = rb.read_edgelist(shared_data / fname)
    c = g.cleaning
    assert c.input_rows == raw
    assert c.vertices_in_input == verts
    assert c.self_loops == loops
    assert raw - loops - c.duplicate_rows - c.conflict_rows_ignored == pairs
    if pm_pairs is not None:
        assert c.conflicting_pairs == pm_pairs
    assert _lcc_tuple(g) == keep[:5]
    assert g.summary()["zero_sign_edges"] == keep[5]
    assert c.source.endswith(fname)
    # every row accounted for (CleaningReport identity)
    assert raw == (c.self_loops + c.zero_sign_dropped + c.duplicate_rows + c.conflict_rows_ignored
                   + c.conflict_rows_dropped + c.edges_outside_component + g.m)


@pytest.mark.parametrize("fname", sorted(f for f in STATS if STATS[f][6] is not None))
def test_published_statistics_drop_rule(shared_data, fname):
    drop = STATS[fname][6]
    g = rb.read_edgelist(shared_data / fname, conflicts="drop", zero_sign="drop")
    assert _lcc_tuple(g) == drop


def test_highland_trailing_query_line_is_noted_not_read(shared_data):
    g = rb.read_edgelist(shared_data / "konect_ucidata-gama_highland.txt.gz")
    notes = " ".join(g.cleaning.notes)
    assert "1 non-blank line(s) after the 58 declared edges were ignored" in notes
    assert "'3 16'" in notes
    # the three highland copies are the same graph (graphB+ ids are KONECT ids - 1)
    gb = rb.read_edgelist(shared_data / "highland_tribes_graphB_edges.csv.gz")
    a = {(min(u, v), max(u, v), s) for u, v, s in g.edges_frame().itertuples(index=False)}
    b = {(u + 1, v + 1, s) for u, v, s in gb.edges_frame().itertuples(index=False)}
    assert a == b


@pytest.mark.parametrize("fname", VERTEX_TABLES)
def test_vertex_tables_are_refused_clearly(shared_data, fname):
    with pytest.raises(GraphFormatError, match="vertex table.*not an edge list"):
        rb.read_edgelist(shared_data / fname)


def test_vertex_table_as_labels(shared_data):
    g = rb.read_edgelist(shared_data / "highland_tribes_graphB_edges.csv.gz",
                         vertex_table=shared_data / "highland_tribes_graphB_users.csv.gz")
    assert g.labels[0] == "GAVEV" and len(set(g.labels.tolist())) == 16
    assert g.m == 58


def _archive_bytes(path):
    return gzip.decompress(path.read_bytes())


def test_archive_without_member_lists_members(shared_data):
    with pytest.raises(rb.GraphInputError, match="size1000-part0.g"):
        rb.read_edgelist(shared_data / "levorato_cc_slashdot_first_n.tar.gz")


@pytest.mark.parametrize("n", sorted(SLASHDOT_FIRST_N))
def test_levorato_slashdot_first_n(shared_data, n):
    m_decl, ln, lm, cyc, pos = SLASHDOT_FIRST_N[n]
    g = rb.read_edgelist(shared_data / "levorato_cc_slashdot_first_n.tar.gz",
                         member=f"slashdot-undirected-size{n}-part0.g")
    assert g.cleaning.input_rows == m_decl
    assert (g.n, g.m, g.m - g.n + 1) == (ln, lm, cyc)
    assert round(g.summary()["percent_positive"], 1) == pos
    assert g.cleaning.conflicting_pairs == 0 and g.cleaning.duplicate_rows == 0
    if n == 200:
        assert (g.cleaning.vertices_outside_component, g.cleaning.edges_outside_component) == (2, 1)


def test_levorato_slashdot_is_snap_induced_subgraph_with_conflicts_dropped(shared_data):
    """README: size-n instance == SNAP Slashdot090221 on ids < n, pairs with both signs removed."""
    n, dropped = 1000, 27
    full = rb.read_edgelist(shared_data / "soc-sign-Slashdot090221.txt.gz", component="all",
                            conflicts="drop")
    e = full.edges_frame()
    sub = e[(e.src < n) & (e.dst < n)]
    inst = rb.read_edgelist(shared_data / "levorato_cc_slashdot_first_n.tar.gz",
                            member=f"slashdot-undirected-size{n}-part0.g", component="all")
    mine = set(map(tuple, sub.to_numpy().tolist()))
    theirs = set(map(tuple, inst.edges_frame().to_numpy().tolist()))
    assert mine == theirs
    kept = rb.read_edgelist(shared_data / "soc-sign-Slashdot090221.txt.gz", component="all")
    ek = kept.edges_frame()
    assert ((ek.src < n) & (ek.dst < n)).sum() - len(sub) == dropped


def test_levorato_random_sg_bigger_all_members(shared_data):
    data = _archive_bytes(shared_data / "levorato_cc_random_sg_bigger.tar.gz")
    import tarfile, io

    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        members = [m.name for m in tf.getmembers() if m.isfile()]
    assert len(members) == 72
    for mem in members:
        n, d, p = re.search(r"file_(\d+)_([\d.]+)_([\d.]+)\.g$", mem).groups()
        n, d, p = int(n), float(d), float(p)
        g = rb.read_edgelist(data, member=mem)
        assert g.n == n and g.m == round(d * n * (n - 1) / 2), mem
        assert g.summary()["components"] == 1
        assert g.cleaning.conflicting_pairs == 0
        # each undirected pair listed twice: exactly one duplicate per edge
        assert g.cleaning.input_rows == 2 * g.m and g.cleaning.duplicate_rows == g.m
        assert abs(int((g.sign > 0).sum()) - (1 - p) * g.m) <= 1, mem
    g = rb.read_edgelist(data, member="file_400_0.1_0.2.g")
    assert (g.n, g.m, g.m - g.n + 1, round(100 * float((g.sign > 0).mean()))) == (400, 7_980, 7_581, 80)


def test_levorato_gisele_random_conflicts(shared_data):
    data = _archive_bytes(shared_data / "levorato_cc_gisele_random.tar.gz")
    import tarfile, io

    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        members = [m.name for m in tf.getmembers() if m.isfile()]
    assert len(members) == 48
    total = 0
    for mem in members:
        g = rb.read_edgelist(data, member=mem, component="all")
        n = int(re.search(r"file(\d+)0_", mem).group(1))
        assert g.n <= n and int(g.labels.max()) <= n and int(g.labels.min()) >= 1
        total += g.cleaning.conflicting_pairs
    assert total == 2_874


def test_snap_wiki_vote_counts_as_directed_graph(shared_data):
    """README: SNAP's 7,115 nodes / 103,689 edges are the unique directed non-loop pairs."""
    g = rb.read_edgelist(shared_data / "wiki-Elec_votes_pm1.txt.gz", signed=False, directed=True,
                         component="all")
    assert (g.n, g.m) == (7_115, 103_689) and g.directed
