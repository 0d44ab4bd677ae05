"""build_graph cleaning, CSR invariants, numbering and table/networkx inputs.

References are written independently of the library: a row-by-row Python
cleaner that follows the rules in the issue (a dict per vertex pair, a
union-find for components), networkx, and a literal Python transcription of
graphB+'s ``readGraph`` for the numbering.
"""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphInputError
from rapids_balance.graph import build_graph, graph_from_any
from rapids_balance.io import coerce_graph, edgelist_columns, from_networkx, to_networkx


def _random_rows(seed, n_labels=12, n_rows=40, strings=False):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n_labels, n_rows)
    v = rng.integers(0, n_labels, n_rows)
    s = rng.choice([-1, 0, 1, 1, 1], n_rows)
    if strings:
        names = np.array([f"v{k:02d}" for k in range(n_labels)], dtype=object)
        return names[u], names[v], s
    return u * 7 + 100, v * 7 + 100, s  # labels that are not 0..n-1


def reference_clean(src, dst, sign=None, weight=None, *, directed=False, conflicts="first", zero_sign="positive",
                component="largest"):
    """Row-by-row cleaning from the rules (not from the library), on Python lists.

    Returns (edges {(u, v): (raw sign, weight)}, counts named as in CleaningReport);
    a dict per vertex pair, a union-find for the components.
    """
    cnt = dict(input_rows=len(src), self_loops=0, zero_sign_dropped=0, duplicate_rows=0, conflicting_pairs=0,
               conflict_rows_ignored=0, conflict_rows_dropped=0, vertices_in_input=len(set(src) | set(dst)))
    rows_of = {}
    for i, (u, v) in enumerate(zip(src, dst)):
        s = None if sign is None else sign[i]
        if u == v:
            cnt["self_loops"] += 1
            continue
        if s == 0 and zero_sign == "drop":
            cnt["zero_sign_dropped"] += 1
            continue
        key = (u, v) if directed else (min(u, v), max(u, v))
        rows_of.setdefault(key, []).append((i, s, None if weight is None else weight[i]))
    edges, first_row = {}, {}
    for key, rows in rows_of.items():
        signs = [1 if s is None or s >= 0 else -1 for _, s, _ in rows]
        both = len(set(signs)) > 1
        cnt["conflicting_pairs"] += both
        if both and conflicts == "drop":
            cnt["conflict_rows_dropped"] += len(rows)
            continue
        edges[key], first_row[key] = rows[0][1:], rows[0][0]
        later = signs[1:]
        cnt["conflict_rows_ignored"] += sum(x != signs[0] for x in later)
        cnt["duplicate_rows"] += sum(x == signs[0] for x in later)
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    for u, v in edges:
        parent[root(u)] = root(v)
    members = {}
    for x in list(parent):
        members.setdefault(root(x), set()).add(x)
    cnt["components"] = len(members)
    cnt["vertices_outside_component"] = cnt["edges_outside_component"] = 0
    if component == "largest":
        big = max(len(m) for m in members.values())
        # ties: the component whose first kept row comes first in the input
        best = min((r for r, m in members.items() if len(m) == big),
                   key=lambda r: min(first_row[e] for e in edges if root(e[0]) == r))
        cnt["vertices_outside_component"] = len(parent) - big
        kept = {e: val for e, val in edges.items() if root(e[0]) == best}
        cnt["edges_outside_component"] = len(edges) - len(kept)
        edges = kept
    cnt["zero_sign_edges"] = sum(1 for s, _ in edges.values() if s == 0)
    return edges, cnt


def _edges_with_input_sign(g):
    H = to_networkx(g)
    return {(min(u, v), max(u, v)): d["sign"] for u, v, d in H.edges(data=True)}


CASES = [(seed, c, z, comp, strings)
         for seed in range(6)
         for c in ("first", "drop")
         for z in ("positive", "drop")
         for comp in ("largest", "all")
         for strings in ((False, True) if seed % 2 else (False,))]


@pytest.mark.parametrize("seed,conflicts,zero_sign,component,strings", CASES)
def test_cleaning_matches_row_by_row_reference(seed, conflicts, zero_sign, component, strings):
    src, dst, sgn = _random_rows(seed, n_labels=10 + seed, n_rows=30 + 5 * seed, strings=strings)
    g = build_graph(src, dst, sign=sgn, conflicts=conflicts, zero_sign=zero_sign, component=component)
    ref_edges, ref = reference_clean(src.tolist(), dst.tolist(), sgn.tolist(), conflicts=conflicts,
                                     zero_sign=zero_sign, component=component)
    ref_edges = {pair: s for pair, (s, _) in ref_edges.items()}
    assert _edges_with_input_sign(g) == ref_edges
    c = g.cleaning
    for key, val in ref.items():
        assert getattr(c, key) == val, key
    # the identity in CleaningReport's docstring: every row accounted for once
    assert c.input_rows == len(src) == (c.self_loops + c.zero_sign_dropped + c.duplicate_rows
                                        + c.conflict_rows_ignored + c.conflict_rows_dropped
                                        + c.edges_outside_component + g.m)
    assert g.summary()["zero_sign_edges"] == sum(1 for s in ref_edges.values() if s == 0)


def test_conflicts_error_and_zero_sign_error():
    src, dst, sgn = np.array([1, 2, 3]), np.array([2, 1, 1]), np.array([1, -1, 1])
    with pytest.raises(GraphInputError, match="both signs"):
        build_graph(src, dst, sign=sgn, conflicts="error")
    with pytest.raises(GraphInputError, match="sign 0"):
        build_graph(np.array([1, 2]), np.array([2, 3]), sign=np.array([1, 0]), zero_sign="error")
    # zero on a self loop is not an error: the loop is removed first
    g = build_graph(np.array([1, 2, 2]), np.array([2, 3, 2]), sign=np.array([1, 1, 0]), zero_sign="error")
    assert g.m == 2 and g.cleaning.self_loops == 1


def test_first_sign_in_file_order_wins():
    g = build_graph(np.array([5, 1, 1]), np.array([1, 5, 2]), sign=np.array([-3, 2, 1]))
    assert _edges_with_input_sign(g) == {(1, 5): -1, (1, 2): 1}
    assert g.cleaning.conflict_rows_ignored == 1


def test_component_ties_go_to_the_component_seen_first():
    g = build_graph(np.array([10, 1]), np.array([11, 2]), sign=np.array([1, 1]))
    assert g.labels.tolist() == [10, 11]
    g = build_graph(np.array([1, 10]), np.array([2, 11]), sign=np.array([1, 1]))
    assert g.labels.tolist() == [1, 2]


# -- CSR invariants -------------------------------------------------------------

def _check_csr(g):
    n, m = g.n, g.m
    assert g.indptr[0] == 0 and g.indptr[-1] == g.indices.size == (m if g.directed else 2 * m)
    assert np.all(np.diff(g.indptr) >= 0)
    for v in range(n):
        row = g.indices[g.indptr[v]:g.indptr[v + 1]]
        assert np.all(np.diff(row) > 0), "rows sorted, no repeated neighbour"
    assert np.all(g.edge_src < g.edge_dst) or g.directed
    order = np.lexsort((g.edge_dst, g.edge_src))
    assert np.array_equal(order, np.arange(m)), "edges sorted by (src, dst)"
    for e in range(m):
        s0 = g.edge_slots[e, 0]
        assert g.indptr[g.edge_src[e]] <= s0 < g.indptr[g.edge_src[e] + 1]
        assert g.indices[s0] == g.edge_dst[e] and g.slot_edge[s0] == e
        if not g.directed:
            s1 = g.edge_slots[e, 1]
            assert g.indptr[g.edge_dst[e]] <= s1 < g.indptr[g.edge_dst[e] + 1]
            assert g.indices[s1] == g.edge_src[e] and g.slot_edge[s1] == e
    for name in ("indptr", "indices", "slot_edge", "edge_slots", "edge_src", "edge_dst", "labels"):
        arr = getattr(g, name)
        assert not arr.flags.writeable, name
        with pytest.raises(ValueError):
            arr[0] = arr[0]
    assert g.indptr.dtype == np.int64 and g.indices.dtype == np.int32
    assert g.slot_edge.dtype == np.int32 and g.edge_slots.dtype == np.int64


@pytest.mark.parametrize("seed", range(5))
def test_csr_invariants(seed):
    src, dst, sgn = _random_rows(100 + seed, n_labels=30, n_rows=120)
    g = build_graph(src, dst, sign=sgn, component="all")
    _check_csr(g)
    assert not g.sign.flags.writeable and set(np.unique(g.sign).tolist()) <= {-1, 1}
    d = build_graph(src, dst, weight=np.abs(sgn) + 0.5, directed=True, component="all")
    assert d.edge_slots.shape == (d.m, 1)
    _check_csr(d)


def test_edge_slots_are_made_on_first_use_and_match_the_general_build():
    """A host graph stores no ``edge_slots`` (16 bytes per edge no search reads) until asked."""
    import pickle

    from rapids_balance import _csr

    src, dst, sgn = _random_rows(7, n_labels=40, n_rows=200)
    g = build_graph(src, dst, sign=sgn, component="all")
    copy = pickle.loads(pickle.dumps(g))
    assert "edge_slots" not in vars(g) and "edge_slots" not in vars(copy)
    ref = _csr._csr_general(np, g.edge_src, g.edge_dst, g.n, False)  # one sort of every slot
    for key in ("indptr", "indices", "slot_edge", "edge_slots"):
        assert np.array_equal(getattr(g, key), ref[key]), key
    assert np.array_equal(copy.edge_slots, ref["edge_slots"]) and "edge_slots" in vars(g)
    assert g.edge_slots is g.edge_slots  # made once


def test_the_build_lets_go_of_its_input_columns_before_the_csr(monkeypatch):
    """The reader hands its parsed columns over: they are freed before the cleaning's sort and the CSR."""
    import weakref

    from rapids_balance import _build

    src, dst, sgn = (np.asarray(c) for c in _random_rows(3, n_labels=30, n_rows=150))
    refs = [weakref.ref(c) for c in (src, dst, sgn)]
    columns = {"src": src, "dst": dst, "sign": sgn, "weight": None}
    want = build_graph(src, dst, sign=sgn, component="all")
    del src, dst, sgn
    alive = []
    real = _build._clean_rows

    def spy(*args, **kwargs):
        alive.append([r() is not None for r in refs])
        return real(*args, **kwargs)

    monkeypatch.setattr(_build, "_clean_rows", spy)
    got = _build.build_from_columns(columns, component="all")
    assert columns == {} and alive == [[False, False, False]]
    for key in ("edge_src", "edge_dst", "sign", "labels", "indices"):
        assert np.array_equal(getattr(got, key), getattr(want, key)), key


def test_csr_of_a_shared_file(shared_data):
    _check_csr(rb.read_edgelist(shared_data / "soc-sign-bitcoinalpha.csv.gz"))


# -- graphB+ numbering -----------------------------------------------------------

def graphbplus_readgraph_numbering(rows):
    """Python transcription of graphB+'s readGraph(): returns origID (internal id -> label)."""
    mp, set2, set3, cnt = {}, set(), set(), 0
    for src, dst, wei in rows:
        if src == dst:
            continue
        if (min(src, dst), max(src, dst)) in set2:
            continue  # duplicate or inconsistent: skipped
        set2.add((min(src, dst), max(src, dst)))
        set3.add((min(src, dst), max(src, dst), wei))
        for x in (src, dst):
            if x not in mp:
                mp[x] = cnt
                cnt += 1
    label = list(range(cnt))

    def rep(i):
        while label[i] != i:
            i = label[i]
        return i
    for a, b, _ in sorted(set3):
        ra, rb_ = rep(mp[a]), rep(mp[b])
        if ra != rb_:
            label[max(ra, rb_)] = min(ra, rb_)
    label = [rep(v) for v in range(cnt)]
    size = [0] * cnt
    for v in range(cnt):
        size[label[v]] += 1
    hi = 0
    for v in range(1, cnt):
        if size[hi] < size[v]:
            hi = v
    orig, newmap = [], {}
    for a, b, _ in sorted(set3):
        if label[mp[a]] == hi:
            for x in (a, b):
                if x not in newmap:
                    newmap[x] = len(orig)
                    orig.append(x)
    return orig


def _unique_largest(rows):
    G = nx.Graph()
    G.add_edges_from((u, v) for u, v, _ in rows if u != v)
    sizes = sorted((len(c) for c in nx.connected_components(G)), reverse=True)
    return len(sizes) == 1 or sizes[0] > sizes[1]


@pytest.mark.parametrize("seed", range(12))
def test_graphbplus_numbering_matches_readgraph_transcription(seed):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(10, 60))
    rows = [(int(a), int(b), int(c)) for a, b, c in
            zip(rng.integers(0, 25, n_rows) * 3 + 1, rng.integers(0, 25, n_rows) * 3 + 1,
                rng.choice([-1, 1], n_rows))]
    if not _unique_largest(rows):
        rows.append((rows[0][0], 999, 1))  # break a tie so both rules pick the same component
        if not _unique_largest(rows):
            pytest.skip("tied components")
    arr = np.array(rows)
    g = build_graph(arr[:, 0], arr[:, 1], sign=arr[:, 2], numbering="graphbplus")
    assert g.labels.tolist() == graphbplus_readgraph_numbering(rows)
    _check_csr(g)


def test_graphbplus_numbering_on_highland(shared_data):
    df = pd.read_csv(shared_data / "highland_tribes_graphB_edges.csv.gz")
    rows = list(df.itertuples(index=False, name=None))
    g = rb.read_edgelist(shared_data / "highland_tribes_graphB_edges.csv.gz", numbering="graphbplus")
    assert g.labels.tolist() == graphbplus_readgraph_numbering(rows)


def test_graphbplus_numbering_tied_components_follow_file_order():
    rows = [(10, 11, 1), (11, 12, -1), (1, 2, 1), (2, 3, 1)]
    arr = np.array(rows)
    g = build_graph(arr[:, 0], arr[:, 1], sign=arr[:, 2], numbering="graphbplus")
    assert g.labels.tolist() == graphbplus_readgraph_numbering(rows) == [10, 11, 12]


# -- networkx ----------------------------------------------------------------------

def test_networkx_round_trip():
    src, dst, sgn = _random_rows(7, n_labels=15, n_rows=50, strings=True)
    g = build_graph(src, dst, sign=sgn)
    H = to_networkx(g)
    assert H.number_of_nodes() == g.n and H.number_of_edges() == g.m
    g2 = from_networkx(H)
    for name in ("edge_src", "edge_dst", "sign", "labels", "indptr", "indices"):
        assert np.array_equal(getattr(g, name), getattr(g2, name)), name
    assert np.array_equal(g.zero_sign if g.zero_sign is not None else np.zeros(g.m, bool),
                          g2.zero_sign if g2.zero_sign is not None else np.zeros(g2.m, bool))


def test_networkx_weighted_and_errors():
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("b", "c", weight=1.0)
    G.add_node("lonely")
    g = from_networkx(G, sign=None, weight="weight")
    assert type(g) is rb.Graph and sorted(g.weight.tolist()) == [1.0, 2.5]
    assert any("1 node(s) without edges" in n for n in g.cleaning.notes)
    H = to_networkx(g)
    assert H["a"]["b"]["weight"] == 2.5 and "sign" not in H["a"]["b"]
    with pytest.raises(GraphInputError, match=r"edge \('a', 'b'\) has no 'sign' attribute"):
        from_networkx(G)


def test_networkx_digraph_is_symmetrised_with_first_sign():
    D = nx.DiGraph()
    D.add_edge(1, 2, sign=1)
    D.add_edge(2, 1, sign=-1)
    D.add_edge(2, 3, sign=-1)
    g = from_networkx(D)
    assert g.m == 2 and g.cleaning.conflicting_pairs == 1


# -- tables --------------------------------------------------------------------------

def _frame_inputs():
    data = {"source": [1, 2, 3, 3, 4], "target": [2, 3, 1, 4, 1], "sign": [1, -1, 1, -1, 1],
            "w": [0.5, 1.0, 1.5, 2.0, 2.5]}
    out = {"pandas": pd.DataFrame(data), "dict": {k: np.asarray(v) for k, v in data.items()}}
    pl = pytest.importorskip("polars")
    out["polars"] = pl.DataFrame(data)
    out["polars-lazy"] = pl.DataFrame(data).lazy()
    pa = pytest.importorskip("pyarrow")
    out["pyarrow"] = pa.table(data)
    return out


@pytest.mark.parametrize("kind", ["pandas", "dict", "polars", "polars-lazy", "pyarrow"])
def test_from_edgelist_table_kinds_agree(kind):
    tables = _frame_inputs()
    ref = rb.SignedGraph.from_edgelist(tables["pandas"], sign="sign", weight="w")
    g = rb.SignedGraph.from_edgelist(tables[kind], sign="sign", weight="w")
    for name in ("edge_src", "edge_dst", "sign", "weight", "labels"):
        assert np.array_equal(getattr(g, name), getattr(ref, name)), name
    assert g.m == 5 and g.weight is not None


def test_tuple_inputs():
    s, d, v = np.array([1, 2, 3]), np.array([2, 3, 1]), np.array([1, -1, 1])
    g = rb.SignedGraph.from_edgelist((s, d, v))
    assert g.m == 3 and (g.sign < 0).sum() == 1
    w = rb.Graph.from_edgelist((s, d, v * 2.0))
    assert w.sign is None and sorted(w.weight.tolist()) == [-2.0, 2.0, 2.0]
    src, dst, sg, wt = edgelist_columns((s, d, v, v * 3.0))
    assert np.array_equal(sg, v) and np.array_equal(wt, v * 3.0)


def test_string_and_huge_labels_from_frames():
    df = pd.DataFrame({"source": ["x", "y", "z"], "target": ["y", "z", "x"], "sign": [1, 1, -1]})
    g = rb.SignedGraph.from_edgelist(df, sign="sign")
    assert g.labels.tolist() == ["x", "y", "z"]
    big = np.array([2**40, 2**40 + 1, 2**40 + 2], dtype=np.int64)
    g2 = rb.SignedGraph.from_edgelist((big, np.roll(big, 1), np.array([1, 1, -1])))
    assert g2.labels.tolist() == big.tolist()
    huge = np.array([2**63 + 1, 2**63 + 2, 2**63 + 3], dtype=np.uint64)
    g3 = rb.SignedGraph.from_edgelist((huge, np.roll(huge, 1), np.array([1, 1, -1])))
    assert [int(x) for x in g3.labels.tolist()] == [int(x) for x in huge]


# -- coerce_graph / graph_from_any --------------------------------------------------

def test_coerce_graph_inputs():
    g = rb.load_example("graphb-test-1a")
    assert graph_from_any(g) is g
    df = g.edges_frame()  # columns src, dst, sign
    g2 = graph_from_any(df)
    assert isinstance(g2, rb.SignedGraph) and np.array_equal(g2.sign, g.sign)
    g3 = coerce_graph(to_networkx(g))
    assert isinstance(g3, rb.SignedGraph) and g3.m == g.m
    w = coerce_graph(pd.DataFrame({"from": [1, 2], "to": [2, 3], "weight": [0.5, 2.0]}))
    assert type(w) is rb.Graph and w.weight.tolist() == [0.5, 2.0]
    # a weight column is never silently the sign: it must be named
    with pytest.raises(GraphInputError, match=r"no sign column.*'from', 'to', 'weight'.*sign=<column>"):
        coerce_graph(pd.DataFrame({"from": [1, 2], "to": [2, 3], "weight": [0.5, -2.0]}), signed=True)
    ws = coerce_graph(pd.DataFrame({"from": [1, 2], "to": [2, 3], "weight": [0.5, -2.0]}), sign="weight")
    assert isinstance(ws, rb.SignedGraph) and ws.sign.tolist() == [1, -1]
    assert ws.cleaning.columns["sign"] == {"column": "weight", "why": "named by the user"}
    u = coerce_graph(pd.DataFrame({"u": [1, 2], "v": [2, 3], "sign": [1, -1]}), signed=False)
    assert type(u) is rb.Graph and u.weight.tolist() == [1.0, -1.0]
    with pytest.raises(GraphInputError, match="cannot make a graph"):
        coerce_graph(42)
    with pytest.raises(GraphInputError, match="cannot tell the source and target columns"):
        coerce_graph(pd.DataFrame({"only": [1]}))


def test_from_cugraph_without_cugraph(monkeypatch):
    monkeypatch.setitem(sys.modules, "cugraph", None)
    with pytest.raises(ImportError, match="cuGraph .* not installed.*rapids"):
        rb.from_cugraph(object())


def test_dask_frame_is_materialised():
    dd = pytest.importorskip("dask.dataframe")
    pdf = pd.DataFrame({"source": [1, 2, 3], "target": [2, 3, 1], "sign": [1, -1, 1]})
    g = rb.SignedGraph.from_edgelist(dd.from_pandas(pdf, npartitions=2), sign="sign")
    assert g.m == 3 and (g.sign < 0).sum() == 1


def test_reverse_rows_are_told_apart_from_same_direction_repeats():
    # (2,1) and (1,3) list an earlier pair the other way round; the second (1,2) repeats it as is;
    # (2,3,+) after (3,2,-) is a conflict, not a duplicate
    src = np.array([1, 2, 1, 3, 1, 3, 2])
    dst = np.array([2, 1, 2, 1, 3, 2, 3])
    sign = np.array([1, 1, 1, -1, -1, -1, 1])
    rep = build_graph(src, dst, sign=sign).cleaning
    assert (rep.duplicate_rows, rep.reverse_rows, rep.conflict_rows_ignored) == (3, 2, 1)
    directed = build_graph(src, dst, weight=np.ones(7), directed=True).cleaning
    assert directed.reverse_rows == 0 and directed.duplicate_rows == 1


def test_info_tells_reverse_ratings_from_repeats(capsys):
    from rapids_balance.cli import main

    assert main(["info", "--example", "bitcoin-otc"]) == 0
    out = capsys.readouterr().out
    assert "13,742 rows list a pair the other way round" in out and "duplicate rows" not in out
