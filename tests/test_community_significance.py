"""community_significance(): a partition's signed community objective against null models."""

import numpy as np
import pytest

import rapids_balance as rb
from rapids_balance import GraphInputError, InvalidParameterError
from rapids_balance.null_models._nulls import (sample_seed, shuffled_signs, swapped_graph,
                                               with_signs)


def test_null_values_are_the_evaluator_on_the_null_samples():
    # independent of the driver: draw the samples by hand and score them with the evaluators
    m = rb.ssbm(120, 3, 0.15, flip=0.2, seed=4)
    g = m.graph
    res = rb.community_significance(g, m.groups, n_samples=6, seed=11, progress=False)
    assert res.observed == pytest.approx(rb.signed_modularity(g, m.groups).modularity, abs=1e-12)
    expect = [rb.signed_modularity(with_signs(g, shuffled_signs(g.sign, sample_seed(11, i))),
                                   m.groups).modularity for i in range(6)]
    np.testing.assert_allclose(res.null_distribution["value"], expect, atol=1e-12)
    swap = rb.community_significance(g, m.groups, objective="imbalance", null="swap",
                                     n_samples=3, seed=2, swaps_per_edge=2, progress=False)
    expect = [rb.imbalance(swapped_graph(g, sample_seed(2, i), 2), m.groups).imbalance
              for i in range(3)]
    np.testing.assert_allclose(swap.null_distribution["value"], expect)
    assert swap.alternative == "less" and res.alternative == "greater"


@pytest.mark.parametrize("objective", ["modularity", "potts", "imbalance"])
def test_planted_partition_significant_random_partitions_not(objective):
    m = rb.ssbm(300, 3, 0.1, flip=0.2, seed=1)
    planted = rb.community_significance(m.graph, m.groups, objective=objective, n_samples=40,
                                        seed=0, progress=False)
    assert planted.p_value == pytest.approx(1 / 41)  # beyond every null sample
    assert abs(planted.z_score) > 10
    # signs drawn independently of the topology (flip 1/2): the observed signs are one more
    # draw of the shuffle null, so a partition drawn without looking is an ordinary sample
    flat = rb.ssbm(300, 3, 0.1, flip=0.5, seed=1).graph
    rng = np.random.default_rng(5)
    p = [rb.community_significance(flat, rng.integers(0, 3, 300), objective=objective,
                                   n_samples=40, seed=s, progress=False).p_value
         for s in range(5)]
    assert min(p) > 0.05


def test_search_null_unmasks_communities_of_a_graph_without_any():
    # a graph without structure: the search still finds communities of high modularity,
    # which beat their own value under shuffled signs by far, but not what the search
    # finds on the shuffled graphs
    flat = rb.ssbm(200, 3, 0.1, flip=0.5, seed=2).graph
    found = rb.signed_communities(flat, seed=0)
    fixed = rb.community_significance(flat, found.labels, n_samples=20, seed=0, progress=False)
    assert fixed.z_score > 10
    refit = rb.community_significance(flat, found.labels, n_samples=20, seed=0, search=True,
                                      progress=False)
    assert refit.observed == pytest.approx(found.value, abs=1e-12)
    assert refit.z_score < 3 and refit.null_mean > 0.5 * found.value
    # planted groups beat the search's best on the shuffled graphs
    m = rb.ssbm(200, 3, 0.1, flip=0.2, seed=2)
    planted = rb.community_significance(m.graph, m.groups, n_samples=20, seed=0, search=True,
                                        progress=False)
    assert planted.z_score > 10 and planted.p_value == pytest.approx(1 / 21)


@pytest.mark.parametrize("kw,name", [
    (dict(objective="louvain"), "objective"), (dict(null="rewire"), "null"),
    (dict(n_samples=0), "n_samples"), (dict(resolution=-1), "resolution"),
    (dict(potts_null="x"), "potts_null"), (dict(search="yes"), "search"),
])
def test_parameters_checked_by_name(kw, name):
    with pytest.raises(InvalidParameterError, match=name):
        rb.community_significance(rb.load_example("highland"), np.zeros(16, int), **kw)


def test_partition_must_fit_the_graph():
    with pytest.raises(GraphInputError, match="partition"):
        rb.community_significance(rb.load_example("highland"), np.zeros(5, int), n_samples=2)


def test_resolution_scan_tests_each_point_against_the_null():
    m = rb.ssbm(200, 3, 0.1, flip=0.2, seed=2)
    flat = rb.ssbm(200, 3, 0.1, flip=0.5, seed=2).graph
    for g, structured in ((m.graph, True), (flat, False)):
        scan = rb.resolution_scan(g, [1.0], seeds=(3, 4), significance=10)
        row = scan.table.iloc[0]
        direct = rb.community_significance(g, scan.partitions[0], search=True, n_samples=10,
                                           seed=3, progress=False)
        assert (row["z_score"], row["p_value"]) == (direct.z_score, direct.p_value)
        if structured:
            assert row["p_value"] == pytest.approx(1 / 11) and row["z_score"] > 10
        else:
            assert row["z_score"] < 3
    assert "p_value" not in rb.resolution_scan(flat, [1.0], seeds=(0,)).table
    with pytest.raises(InvalidParameterError, match="significance_null"):
        rb.resolution_scan(flat, [1.0], significance=2, significance_null="x")
