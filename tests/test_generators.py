"""Seeded generators: determinism, the distributions asked for, planted values, parameters, CLI."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.errors import InvalidParameterError
from rapids_balance.generators import (PlantedPartition, planted_partition_graph, powerlaw_signed_graph,
                                       weighted_graph)

ARRAYS = ("edge_src", "edge_dst", "sign", "weight", "labels", "indptr", "indices")


def _same(a, b) -> bool:
    return all((getattr(a, k) is None and getattr(b, k) is None)
               or np.array_equal(getattr(a, k), getattr(b, k)) for k in ARRAYS)


@pytest.fixture
def threads():
    before = numba.get_num_threads()
    yield lambda k: numba.set_num_threads(min(k, numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(before)


@pytest.mark.parametrize("make", [
    lambda: powerlaw_signed_graph(20_000, seed=7, weights="uniform"),
    lambda: planted_partition_graph(20_000, n_groups=3, flip=0.1, exponent=2.4, seed=7).graph,
    lambda: weighted_graph(20_000, seed=7),
])
def test_same_seed_same_graph_on_any_thread_count(threads, make):
    threads(1)
    one = make()
    threads(2)
    two = make()
    assert _same(one, two)


def test_different_seeds_differ():
    a = powerlaw_signed_graph(5_000, seed=1)
    b = powerlaw_signed_graph(5_000, seed=2)
    assert not _same(a, b)


def test_graph_layout_and_exact_edge_count():
    g = powerlaw_signed_graph(30_000, seed=3, component="all")
    assert g.m == 30_000  # exactly n_edges when no component is dropped
    assert np.all(g.edge_src < g.edge_dst)
    key = g.edge_src.astype(np.int64) * g.n + g.edge_dst
    assert np.all(np.diff(key) > 0)  # sorted, no duplicate pairs
    assert g.degrees().min() >= 1  # isolated vertices are not kept
    # the same graph as the package's own cleaning would build from the edge table
    rebuilt = rb.graph.build_graph(g.labels[g.edge_src], g.labels[g.edge_dst], sign=g.sign,
                                   component="all")
    assert _same(g, rebuilt)


def test_largest_component_is_connected_and_counted():
    g = powerlaw_signed_graph(20_000, seed=5, mean_degree=3.0)
    from scipy.sparse.csgraph import connected_components

    assert connected_components(g._scipy_matrix(), directed=False)[0] == 1
    rep = g.cleaning
    assert rep.input_rows == 20_000
    # the edges drawn outside the largest component are counted, and drawn again inside it
    assert rep.edges_outside_component > 0 and g.m == 20_000
    assert any("drawn again inside the largest component" in n for n in rep.notes)
    assert rep.vertices_outside_component == rep.vertices_in_input - g.n
    table = powerlaw_signed_graph(20_000, seed=5, mean_degree=3.0, as_frame=True)
    assert list(table.columns) == ["src", "dst", "sign"] and len(table) == g.m
    assert np.array_equal(table["src"], g.labels[g.edge_src])


def _tail_exponent(degrees: np.ndarray, kmin: int) -> float:
    """Discrete power-law MLE (Clauset, Shalizi, Newman 2009, eq. 3.7)."""
    tail = degrees[degrees >= kmin].astype(float)
    return 1.0 + tail.size / np.log(tail / (kmin - 0.5)).sum()


@pytest.mark.parametrize("gamma", [2.3, 2.7, 3.2])
def test_degree_exponent(gamma):
    g = powerlaw_signed_graph(100_000, exponent=gamma, seed=11)
    assert _tail_exponent(g.degrees(), 20) == pytest.approx(gamma, abs=0.2)


def test_erdos_renyi_degrees_are_poisson():
    g = powerlaw_signed_graph(60_000, exponent=None, mean_degree=10.0, seed=2, component="all")
    d = g.degrees()
    assert d.mean() == pytest.approx(10.0, rel=0.02)
    assert d.var() == pytest.approx(d.mean(), rel=0.1)


@pytest.mark.parametrize("share", [0.0, 0.15, 0.5, 1.0])
def test_negative_share(share):
    g = powerlaw_signed_graph(40_000, negative_share=share, seed=4)
    got = float(np.mean(g.sign < 0))
    sd = np.sqrt(share * (1 - share) / g.m)
    assert abs(got - share) <= 5 * sd + 1e-12


def test_weights_from_the_asked_distribution():
    g = weighted_graph(40_000, weights="integer", weight_range=(2, 6), seed=1)
    assert g.sign is None and set(np.unique(g.weight).tolist()) == {2.0, 3.0, 4.0, 5.0, 6.0}
    counts = np.bincount(g.weight.astype(int))[2:]
    assert counts.min() > 0.9 * g.m / 5
    u = powerlaw_signed_graph(40_000, weights="uniform", weight_range=(0.5, 1.5), seed=1).weight
    assert 0.5 <= u.min() and u.max() < 1.5 and u.mean() == pytest.approx(1.0, abs=0.01)
    bc = rb.betweenness_centrality(weighted_graph(3_000, seed=3), k=20, seed=1, progress=False)
    assert bc["betweenness_centrality"].max() > 0


@pytest.mark.parametrize("k,weights", [(2, None), (4, None), (3, "integer")])
def test_planted_values_recomputed(k, weights):
    pp = planted_partition_graph(30_000, n_groups=k, flip=0.08, weights=weights, seed=9)
    assert isinstance(pp, PlantedPartition)
    g = pp.graph
    group = dict(zip(pp.partition["vertex"], pp.partition["group"]))
    gs = np.array([group[x] for x in g.labels[g.edge_src]])
    gd = np.array([group[x] for x in g.labels[g.edge_dst]])
    disagree = (gs == gd) != (g.sign > 0)
    assert pp.disagreements == int(disagree.sum())
    assert pp.disagreements / g.m == pytest.approx(0.08, abs=0.01)  # flipped share
    w = np.ones(g.m) if g.weight is None else g.weight
    assert pp.imbalance == pytest.approx(w[disagree].sum())
    assert rb.imbalance(g, pp.partition.rename(columns={"group": "cluster"})).imbalance \
        == pytest.approx(pp.imbalance)
    assert pp.frustration_bound == (pp.disagreements if k == 2 else None)
    assert sorted(pp.partition["group"].unique()) == list(range(k))


def test_planted_bound_holds_for_frustration_and_clustering():
    pp = planted_partition_graph(3_000, flip=0.05, seed=1)
    fr = rb.frustration(pp.graph, 64, seed=1, progress=False)
    assert fr.index <= pp.frustration_bound
    cc = rb.correlation_clustering(pp.graph, seed=1, max_iterations=3, progress=False)
    assert cc.imbalance <= pp.imbalance


def test_no_flips_is_exactly_balanced():
    pp = planted_partition_graph(5_000, flip=0.0, seed=3)
    assert pp.disagreements == 0 and pp.imbalance == 0
    assert rb.frustration(pp.graph, 4, refine=False, progress=False).index == 0


@pytest.mark.parametrize("call,match", [
    (lambda: powerlaw_signed_graph(0), "'n_edges' parameter of powerlaw_signed_graph must be an int in the range \\[1, "),
    (lambda: powerlaw_signed_graph(10.5), "'n_edges'"),
    (lambda: powerlaw_signed_graph(100, seed=-1), "'seed'"),
    (lambda: powerlaw_signed_graph(100, seed=1.0), "'seed'"),
    (lambda: powerlaw_signed_graph(100, exponent=2.0), "'exponent' .* in the range \\(2.0, 10.0\\]"),
    (lambda: powerlaw_signed_graph(100, exponent=float("nan")), "'exponent'"),
    (lambda: powerlaw_signed_graph(100, negative_share=1.5), "'negative_share'"),
    (lambda: powerlaw_signed_graph(100, mean_degree=0.5), "'mean_degree'"),
    (lambda: powerlaw_signed_graph(100, mean_degree=90), "'mean_degree' .* not sparse enough"),
    (lambda: powerlaw_signed_graph(100, weights="gaussian"), "'weights'"),
    (lambda: powerlaw_signed_graph(100, weights="uniform", weight_range=(0, 1)), "'weight_range'"),
    (lambda: powerlaw_signed_graph(100, weights="integer", weight_range=(1.5, 3)), "'weight_range'"),
    (lambda: powerlaw_signed_graph(100, weight_range=5), "'weight_range'"),
    (lambda: weighted_graph(100, weight_range=(1, 2**33)), "'weight_range' .* less than 2\\*\\*32 apart"),
    (lambda: powerlaw_signed_graph(100, component="biggest"), "'component'"),
    (lambda: powerlaw_signed_graph(100, as_frame=1), "'as_frame'"),
    (lambda: planted_partition_graph(100, n_groups=0), "'n_groups'"),
    (lambda: planted_partition_graph(100, n_groups=26), "'n_groups' .* \\[1, 25\\]"),
    (lambda: planted_partition_graph(100, flip=-0.1), "'flip'"),
    (lambda: weighted_graph(100, weights=None), "'weights' parameter of weighted_graph"),
])
def test_bad_parameters_refused(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


@pytest.fixture
def cli_main(monkeypatch):
    """The command line, with ``generate`` registered (whether or not cli.py lists it yet)."""
    from rapids_balance import cli

    name = "rapids_balance.generators._cli"
    if name not in cli._COMMAND_MODULES:
        monkeypatch.setattr(cli, "_COMMAND_MODULES", (*cli._COMMAND_MODULES, name))
    return cli.main


def test_cli_writes_csv_parquet_and_partition(tmp_path, capsys, cli_main):
    out = tmp_path / "g.csv"
    assert cli_main(["generate", "planted", "--edges", "2000", "--seed", "3", "--flip", "0.1",
                     "--out", str(out), "--partition", str(tmp_path / "p.parquet")]) == 0
    table = pd.read_csv(out)
    pp = planted_partition_graph(2000, seed=3, flip=0.1, as_frame=True)
    pd.testing.assert_frame_equal(table, pp.graph, check_dtype=False)
    part = pd.read_parquet(tmp_path / "p.parquet")
    pd.testing.assert_frame_equal(part, pp.partition, check_dtype=False)
    assert "disagreeing edges" in capsys.readouterr().out
    # no temporary files left; the manifest beside the table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.csv", "g.csv.run.json", "p.parquet"]
    # results are not replaced without --overwrite
    assert cli_main(["generate", "planted", "--edges", "2000", "--out", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err

    assert cli_main(["generate", "weighted", "--edges", "1500", "--out", str(tmp_path / "w.csv.gz"),
                     "--weight-range", "1", "4", "--quiet"]) == 0
    w = rb.read_edgelist(tmp_path / "w.csv.gz", signed=False)
    assert w.m == len(pd.read_csv(tmp_path / "w.csv.gz")) and set(w.weight) <= {1.0, 2.0, 3.0, 4.0}

    assert cli_main(["generate", "powerlaw", "--edges", "3000", "--exponent", "none",
                     "--out", str(tmp_path / "e.parquet"), "--quiet"]) == 0
    g = rb.read_edgelist(tmp_path / "e.parquet")
    assert _same(g, powerlaw_signed_graph(3000, exponent=None))


def test_cli_plot(tmp_path, cli_main):
    pytest.importorskip("matplotlib")
    assert cli_main(["generate", "powerlaw", "--edges", "3000", "--out", str(tmp_path / "g.csv"),
                     "--plot", str(tmp_path / "deg.svg"), "--quiet"]) == 0
    assert b"<svg" in (tmp_path / "deg.svg").read_bytes()[:400]


@pytest.mark.parametrize("argv,match", [
    (["powerlaw", "--edges", "100", "--out", "g.txt"], "'--out' parameter of generate must be a file "
     "name ending in .csv, .csv.gz, .parquet. Got 'g.txt' instead."),
    (["powerlaw", "--edges", "100", "--out", "missing/dir/g.csv"], "does not exist"),
    (["powerlaw", "--edges", "-5", "--out", "g.csv"], "'--edges' parameter of generate"),
    (["powerlaw", "--edges", "100", "--seed", "-1", "--out", "g.csv"], "'--seed' parameter"),
    (["powerlaw", "--edges", "100", "--exponent", "1.5", "--out", "g.csv"], "'--exponent' parameter"),
    (["planted", "--edges", "100", "--flip", "2", "--out", "g.csv"], "'--flip' parameter"),
    (["powerlaw", "--edges", "100", "--mean-degree", "90", "--out", "g.csv"], "not sparse enough"),
    (["weighted", "--edges", "100", "--out", "g.csv", "--partition", "p.csv"],
     "'--partition' parameter of generate must be left out for 'weighted'"),
    (["powerlaw", "--edges", "100", "--out", "g.csv", "--plot", "g.gif"], "'--plot' parameter"),
])
def test_cli_refuses_before_work(tmp_path, monkeypatch, capsys, cli_main, argv, match):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["generate", *argv]) == 2
    assert match in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["powerlaw", "weighted", "planted"])
def test_cli_writes_exactly_the_edges_asked_for(tmp_path, kind, capsys, cli_main):
    # seed 1 draws an edge outside the largest component: it is drawn again inside it
    out = tmp_path / "g.csv"
    assert cli_main(["generate", kind, "--edges", "10000", "--seed", "1", "--out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 10_000
    assert capsys.readouterr().out.startswith(f"{kind}: 10,000 edges")


def test_top_up_searches_the_sorted_edge_list_in_place():
    # _top_up never builds the graph's int64 keys (32 bytes an edge at 10^8 edges); its binary
    # search must answer exactly np.searchsorted over those keys, and the merged list must be
    # the old edges plus `missing` new distinct ones, still sorted by (src, dst)
    from rapids_balance.generators._generate import _key_positions, _top_up
    rng = np.random.default_rng(11)
    n = 700
    keys = np.unique(rng.integers(0, n * n, 9000))
    u, v = keys // n, keys % n
    keys = np.unique(np.minimum(u, v)[u != v] * n + np.maximum(u, v)[u != v])
    src, dst = (keys // n).astype(np.int32), (keys % n).astype(np.int32)
    probe = np.concatenate([rng.integers(-5, n * n + 5, 4000), keys[::7], [keys[0], keys[-1]]])
    assert np.array_equal(_key_positions(src, dst, n, probe), np.searchsorted(keys, probe))
    s2, d2 = _top_up(src, dst, n, 1234, seed=3)
    merged = s2.astype(np.int64) * n + d2
    assert s2.dtype == src.dtype and d2.dtype == dst.dtype
    assert merged.size == keys.size + 1234 and np.all(np.diff(merged) > 0) and np.all(s2 < d2)
    assert np.isin(keys, merged).all()
    ends = np.unique(np.concatenate([src, dst]))
    assert np.isin(s2, ends).all() and np.isin(d2, ends).all()  # new ends are drawn from the old
