"""clustering_lower_bound: valid against brute-force optima, tight where the optimum is known."""

import numpy as np
import pytest

from rapids_balance import GraphInputError, InvalidParameterError
from rapids_balance.clustering import clustering_lower_bound, imbalance
from rapids_balance.graph import build_graph

from test_frustration_exact import random_signed


def random_graph(n, p, neg, seed, weighted=False):
    """Random connected signed graph; weights 1..4 when ``weighted``."""
    g = random_signed(n, p, neg, seed)
    if not weighted:
        return g
    weight = np.random.default_rng(seed).integers(1, 5, g.m).astype(float)
    return build_graph(g.edge_src, g.edge_dst, sign=g.sign, weight=weight)


def partitions(n):
    """Every partition of range(n) as restricted growth strings."""
    labels = [0] * n

    def rec(i, k):
        if i == n:
            yield np.array(labels)
            return
        for c in range(k + 1):
            labels[i] = c
            yield from rec(i + 1, max(k, c + 1))
    yield from rec(1, 1) if n else iter(())


def brute_force(graph):
    """Minimum imbalance over all partitions and one partition reaching it."""
    w = np.ones(graph.m) if graph.weight is None else np.abs(graph.weight)
    best, arg = np.inf, None
    for lab in partitions(graph.n):
        same = lab[graph.edge_src] == lab[graph.edge_dst]
        value = w[np.where(graph.sign < 0, same, ~same)].sum()
        if value < best:
            best, arg = value, lab.copy()
    return best, arg


def check_certificate(graph, res):
    """Every cycle is a closed walk with exactly one negative edge; loads <= weights;
    the values add up to the bound.  Returns the number of cycles."""
    w = np.ones(graph.m) if graph.weight is None else np.abs(graph.weight)
    cyc = res.cycles
    ids = graph.vertex_ids(np.concatenate([cyc["src"].to_numpy(), cyc["dst"].to_numpy()]))
    k = len(cyc)
    u, v = ids[:k], ids[k:]
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo.astype(np.int64) * graph.n + hi
    edge_key = graph.edge_src.astype(np.int64) * graph.n + graph.edge_dst
    eid = np.searchsorted(edge_key, key)
    assert (edge_key[eid] == key).all()
    load = np.zeros(graph.m)
    total = 0.0
    for c, part in cyc.groupby("cycle"):
        rows = part.index.to_numpy()
        assert (part["sign"].to_numpy() < 0).sum() == 1
        deg = np.bincount(np.concatenate([u[rows], v[rows]]), minlength=graph.n)
        assert (deg % 2 == 0).all()
        value = part["value"].iloc[0]
        assert value > 0 and (part["value"] == value).all()
        np.add.at(load, np.unique(eid[rows]), value)
        total += value
    assert (load <= w + 1e-9).all()
    # integer weights: the optimum is an integer, so the bound may be the sum rounded up
    assert total <= res.bound + 1e-9 and res.bound <= np.ceil(total - 1e-6) + 1e-9
    return cyc["cycle"].nunique()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_bound_below_brute_force_optimum(seed, weighted):
    g = random_graph(7, 0.45, 0.4, seed, weighted)
    opt, arg = brute_force(g)
    rng = np.random.default_rng(seed)
    lp = clustering_lower_bound(g, arg, method="lp")
    assert lp.bound <= opt + 1e-6
    assert lp.method == "lp" and lp.lp_converged
    assert lp.bound - 1 < lp.lp_upper + 1e-6  # bound: the LP's optimum, maybe rounded up
    check_certificate(g, lp)
    for labels in (arg, rng.integers(0, 3, g.n), np.zeros(g.n, int), np.arange(g.n)):
        res = clustering_lower_bound(g, labels, method="packing")
        check_certificate(g, res)
        assert res.bound <= opt + 1e-9
        assert res.bound <= lp.bound + 1e-6  # a packing is a feasible point of the LP's dual
        assert res.imbalance == pytest.approx(imbalance(g, labels).imbalance)
        assert res.gap == pytest.approx(res.imbalance - res.bound)
        other = rng.integers(0, 4, g.n)
        assert res.bound <= imbalance(g, other).imbalance + 1e-9


def test_bound_meets_optimum_where_known():
    # a chain of triangles, each with one negative edge, joined by positive edges:
    # the triangles are disjoint cycles, so the optimum is one disagreement per triangle
    k = 5
    src = np.concatenate([[3 * i, 3 * i + 1, 3 * i, 3 * i + 2] for i in range(k)])[:-1]
    dst = np.concatenate([[3 * i + 1, 3 * i + 2, 3 * i + 2, 3 * i + 3] for i in range(k)])[:-1]
    sign = np.tile([1, 1, -1, 1], k)[:-1]
    g = build_graph(src, dst, sign=sign)
    res = clustering_lower_bound(g, np.zeros(g.n, int), method="packing")
    assert res.bound == res.imbalance == k and res.gap == 0
    assert check_certificate(g, res) == k
    # a clustering with no disagreement: bound 0 and gap 0
    g = build_graph(np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]), sign=[1, -1, 1, -1])
    res = clustering_lower_bound(g, [0, 0, 1, 1])
    assert res.bound == res.imbalance == 0 and res.relative_gap == 0
    # random small graphs: the packing around an optimal clustering often proves it
    proved = 0
    for seed in range(8):
        g = random_graph(7, 0.4, 0.3, 100 + seed)
        opt, arg = brute_force(g)
        proved += clustering_lower_bound(g, arg, method="packing").bound == opt
    assert proved >= 4


def test_free_search_certifies_without_a_good_clustering():
    # around singletons no wrong (positive) edge closes a cycle through right edges;
    # the search free of the clustering still packs the one-negative cycles
    g = random_signed(8, 0.5, 0.3, 4)
    opt, arg = brute_force(g)
    singletons = clustering_lower_bound(g, np.arange(g.n), method="packing")
    assert 0 < singletons.bound <= opt
    check_certificate(g, singletons)


def test_default_clustering_and_highland():
    from rapids_balance import load_example

    g = load_example("highland")
    res = clustering_lower_bound(g, method="packing")
    assert res.bound == res.imbalance == clustering_lower_bound(g).bound
    assert set(res.labels.columns) == {"vertex", "cluster"}


def test_weighted_rounds_reach_the_lp_on_a_chain_of_triangles():
    # two triangles sharing their positive edge (weight 2): each negative edge weighs 1
    g = build_graph(np.array([0, 1, 0, 0, 1]), np.array([1, 2, 2, 3, 3]), sign=[1, 1, -1, 1, -1],
                    weight=[2.0, 1.0, 1.0, 1.0, 1.0])
    res = clustering_lower_bound(g, [0, 0, 0, 0], method="packing")
    check_certificate(g, res)
    assert res.bound == clustering_lower_bound(g, method="lp").bound == brute_force(g)[0] == 2


def test_bad_input_is_refused_before_work():
    g = random_graph(6, 0.5, 0.3, 0)
    with pytest.raises(InvalidParameterError, match="method"):
        clustering_lower_bound(g, method="exact")
    with pytest.raises(InvalidParameterError, match="max_length"):
        clustering_lower_bound(g, max_length=0)
    with pytest.raises(InvalidParameterError, match="time_limit"):
        clustering_lower_bound(g, time_limit=-1)
    with pytest.raises(InvalidParameterError, match="labels"):
        clustering_lower_bound(g, labels="abc")
    with pytest.raises(GraphInputError, match="one entry per vertex"):
        clustering_lower_bound(g, [0, 1])
    with pytest.raises(GraphInputError, match="signed"):
        clustering_lower_bound(build_graph(np.array([0, 1]), np.array([1, 2])), [0, 0, 0])
    with pytest.raises(GraphInputError, match="signed"):
        clustering_lower_bound(build_graph(np.array([0, 1]), np.array([1, 2]), sign=[1, -1],
                                           directed=True), [0, 0, 0])
    big = random_graph(2100, 0.0, 0.3, 1)
    with pytest.raises(GraphInputError, match="at most 2,000 vertices"):
        clustering_lower_bound(big, np.zeros(big.n, int), method="lp")
    # auto keeps to the packing there, with no error, and above its own smaller limit
    assert clustering_lower_bound(big, np.zeros(big.n, int)).method == "packing"
    mid = random_graph(1500, 0.0, 0.3, 1)
    assert clustering_lower_bound(mid, np.zeros(mid.n, int)).method == "packing"
    tree = clustering_lower_bound(mid, np.zeros(mid.n, int), method="lp")
    assert tree.method == "lp" and tree.bound == 0 and tree.lp_converged


def test_lp_is_tight_where_the_lp_is_known_tight():
    # a balanced graph (two factions): the LP proves 0
    rng = np.random.default_rng(3)
    side = rng.integers(0, 2, 8)
    g = random_graph(8, 0.6, 0.0, 3)
    g = build_graph(g.edge_src, g.edge_dst,
                    sign=np.where(side[g.edge_src] == side[g.edge_dst], 1, -1))
    assert clustering_lower_bound(g, side, method="lp").bound == brute_force(g)[0] == 0
    # one frustrated cycle (a single negative edge on a cycle of 7): optimum 1
    g = build_graph(np.arange(7), (np.arange(7) + 1) % 7, sign=[1] * 6 + [-1])
    res = clustering_lower_bound(g, np.zeros(7, int), method="lp")
    assert res.bound == res.imbalance == brute_force(g)[0] == 1 and res.lp_converged
    # a star of positive edges around a triangle of negative ones: any two of the three
    # frustrated triangles share a positive edge, so edge-disjoint packings hold one;
    # the LP takes each at 1/2 (1.5, rounded up: the optimum 2)
    g = build_graph(np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3]),
                    sign=[1, 1, 1, -1, -1, -1])
    opt = brute_force(g)[0]
    lp = clustering_lower_bound(g, method="lp")
    pack = clustering_lower_bound(g, method="packing")
    assert pack.bound == 1 and lp.bound == opt == 2
    assert lp.lp_upper == pytest.approx(1.5, rel=1e-5)  # the LP's optimum, before rounding
    check_certificate(g, lp)


def test_lp_honours_time_limit_and_repeats():
    g = random_graph(8, 0.6, 0.5, 11)
    opt = brute_force(g)[0]
    cut = clustering_lower_bound(g, method="lp", time_limit=0)
    assert cut.bound <= opt and cut.bound >= 0
    check_certificate(g, cut)
    full = clustering_lower_bound(g, method="lp")
    assert cut.bound <= full.bound <= opt
    assert clustering_lower_bound(g, method="lp").bound == full.bound


def test_lp_without_highspy(monkeypatch):
    import sys

    g = random_graph(6, 0.5, 0.3, 0)
    monkeypatch.setitem(sys.modules, "highspy", None)
    with pytest.raises(ImportError, match="pip install"):
        clustering_lower_bound(g, method="lp")
    assert clustering_lower_bound(g).method == "packing"


def test_cluster_cli_bound(tmp_path, capsys):
    import re

    from rapids_balance.cli import main

    out = tmp_path / "labels.csv"
    rc = main(["cluster", "--example", "highland", "--method", "ils", "--max-iterations", "2",
               "--bound", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    found = re.search(r"lower bound (\S+) \([^)]*\), (optimal|certified gap (\S+))", text)
    bound, gap = found.group(1), found.group(3) or "0"  # a zero gap reads "optimal"
    import pandas as pd

    from rapids_balance import load_example
    value = imbalance(load_example("highland"), pd.read_csv(out)).imbalance
    assert float(bound) + float(gap) == value and float(bound) <= value
    assert main(["cluster", "--example", "highland", "--bound-time-limit", "nan", "--quiet"]) == 2
    assert "--bound-time-limit" in capsys.readouterr().err
    assert main(["cluster", "--example", "highland", "--method", "ils", "--max-iterations", "2",
                 "--bound", "--bound-method", "packing"]) == 0
    assert "(packing," in capsys.readouterr().out


def test_lp_bound_and_exact_solver_share_one_process_whatever_their_threads():
    """HiGHS keeps one thread pool per process: a solve asking for another size than
    the first one's used to be refused, so the LP bound returned 0 after the exact
    frustration solver had run (and the solver failed after the LP)."""
    import rapids_balance as rb

    g = random_graph(7, 0.45, 0.4, 0, False)
    opt, arg = brute_force(g)
    first = clustering_lower_bound(g, arg, method="lp")
    for threads in (None, 2, 1):
        exact = rb.frustration_index_exact(g, threads=threads, time_limit=30)
        assert exact.optimal
        again = clustering_lower_bound(g, arg, method="lp")
        assert again.lp_converged and again.bound == first.bound > 0
