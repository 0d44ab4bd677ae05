"""``frustration(time_limit=...)`` and the size-scaled defaults (no timed assertions)."""

import math

import numpy as np
import pytest

from rapids_balance.errors import InvalidParameterError
from rapids_balance.frustration_index import RefineParams, frustration
from rapids_balance.frustration_index._frustration import (DEFAULT_TREES, LARGE_EDGES, TREE_WORK,
                                                           default_refine, default_trees)
from rapids_balance.frustration_index._refine import _tabu, _vcycle

from test_frustration_exact import random_signed, recount

FAR = 1e6  # a limit no run here reaches


@pytest.fixture(scope="module")
def graph():
    return random_signed(120, 0.05, 0.35, 8)


@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, "10", True])
def test_time_limit_is_checked_first(graph, bad):
    with pytest.raises(InvalidParameterError, match="'time_limit' parameter of frustration"):
        frustration(graph, 4, time_limit=bad, progress=False)


def test_a_limit_not_reached_changes_nothing(graph):
    a = frustration(graph, 150, seed=4, progress=False, batch_size=16)
    b = frustration(graph, 150, seed=4, progress=False, batch_size=16, time_limit=FAR)
    assert a.index == b.index and a.refined_index == b.refined_index
    assert a.cloud.equals(b.cloud) and a.history.equals(b.history)
    assert a.best_state.equals(b.best_state)
    assert a.info["stopped"] is None and b.info["stopped"] is None
    assert b.info["trees"] == 150


@pytest.mark.parametrize("refine", [True, False])
def test_an_expired_limit_returns_a_valid_best_state(graph, refine):
    res = frustration(graph, 10_000, seed=1, progress=False, time_limit=0.0, refine=refine)
    assert res.info["stopped"] == "time_limit"
    assert 1 <= res.info["trees"] < 10_000 == res.params["n_trees"]
    assert res.cloud["count"].sum() == res.info["trees"]
    assert recount(graph, res.best_state) == res.index <= res.tree_index
    assert len(res.switched) == res.index
    # the history counts the trees sampled, not the trees asked for, on every row
    h = res.history
    assert (h["trees"] <= res.info["trees"]).all()
    if refine:
        assert (h.loc[h["stage"] == "refine", "trees"] == res.info["trees"]).all()


def test_kernels_stop_at_a_past_deadline_and_keep_a_valid_state(graph):
    indptr, idx = graph.indptr, graph.indices.astype(np.int64)
    J = graph.sign[graph.slot_edge].astype(np.int64)
    x = np.where(np.arange(graph.n) % 3 == 0, -1, 1).astype(np.int8)
    cost = lambda s: int((graph.sign * s[graph.edge_src] * s[graph.edge_dst] < 0).sum())
    # past the deadline a tabu search is a greedy descent: the same as with no tabu walk at all
    y, greedy = x.copy(), x.copy()
    drop = _tabu(indptr, idx, J, y, 10_000, 5, 0.0)
    assert drop == _tabu(indptr, idx, J, greedy, 10_000, 5, math.inf, 0) > 0
    np.testing.assert_array_equal(y, greedy)
    assert cost(y) == cost(x) - drop
    # and a descent leaves no improving move, which a tabu walk from there looks past
    assert _tabu(indptr, idx, J, y.copy(), 10_000, 5, 0.0) == 0
    assert _tabu(indptr, idx, J, y, 10_000, 5, math.inf) >= 0
    for respect in (True, False):
        z = _vcycle((indptr, idx, J), x, 3, respect, None, RefineParams(), deadline=0.0)
        assert z.dtype == np.int8 and set(np.unique(z)) <= {-1, 1}
        if respect:  # a state is never made worse
            assert cost(z) <= cost(x)


def test_default_effort_scales_with_the_graph(graph):
    assert default_trees(graph.m) == DEFAULT_TREES
    for m in (10**5, 10**6, 10**7, 10**9):
        assert 64 <= default_trees(m) < DEFAULT_TREES
        assert default_trees(m) * m <= max(TREE_WORK, 64 * m)
    assert default_refine(LARGE_EDGES) == RefineParams()
    big = default_refine(LARGE_EDGES + 1)
    assert big.population < RefineParams().population and big.rounds < RefineParams().rounds
    assert default_refine(LARGE_EDGES + 1, rounds=5).rounds == 5
    # the default on a small graph is the documented 1000 trees with the full effort
    a = frustration(graph, progress=False)
    b = frustration(graph, DEFAULT_TREES, refine=RefineParams(), progress=False)
    assert a.params["n_trees"] == DEFAULT_TREES and a.cloud.equals(b.cloud)
    assert a.index == b.index


def test_the_timed_population_fits_its_rounds_in_the_time_left():
    from rapids_balance.frustration_index._refine import ROUNDS_AHEAD, _affordable

    def waves(size, threads):
        return -(-max(size - threads, 0) // threads) + ROUNDS_AHEAD * -(-(size // 2) // threads)

    for threads in (1, 2, 4):
        sizes = [_affordable(8, threads, 1.0, left) for left in (0.0, 1.0, 3.0, 5.0, 8.0, 100.0)]
        assert sizes == sorted(sizes)  # more time left, never a smaller population
        assert sizes[0] == max(2, threads) and sizes[-1] == 8
        for left, size in zip((0.0, 1.0, 3.0, 5.0, 8.0, 100.0), sizes):
            assert size == max(2, threads) or waves(size, threads) <= left
            if size < 8:  # the next size would not fit
                assert waves(size + 1, threads) > left
    assert _affordable(8, 2, 0.0, 0.0) == 8  # no measured wave: the full population
