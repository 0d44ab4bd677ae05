"""Exact frustration index: HiGHS model vs brute force over all bipartitions."""

import numpy as np
import pytest

from rapids_balance import GraphInputError, load_example
from rapids_balance.graph import build_graph
from rapids_balance.frustration_index import frustration, frustration_index_exact


def random_signed(n, p, neg, seed):
    """Connected random signed graph: a random tree plus G(n, p) edges."""
    rng = np.random.default_rng(seed)
    src, dst = [], []
    for v in range(1, n):
        src.append(int(rng.integers(v)))
        dst.append(v)
    for u in range(n):
        for v in range(u + 1, n):
            if rng.random() < p:
                src.append(u)
                dst.append(v)
    sign = np.where(rng.random(len(src)) < neg, -1, 1)
    return build_graph(np.array(src), np.array(dst), sign=sign)


def brute_force_index(graph):
    """Minimum over all 2^(n-1) bipartitions (vertex 0 fixed), written independently."""
    n = graph.n
    masks = np.arange(2 ** (n - 1), dtype=np.int64)
    side = np.zeros((masks.size, n), np.int8)
    for v in range(1, n):
        side[:, v] = (masks >> (v - 1)) & 1
    across = side[:, graph.edge_src] != side[:, graph.edge_dst]
    frustrated = across == (graph.sign > 0)[None, :]
    return int(frustrated.sum(axis=1).min())


def recount(graph, best_state):
    side = dict(zip(best_state["vertex"].tolist(), best_state["side"].tolist()))
    count = 0
    for u, v, s in zip(graph.labels[graph.edge_src], graph.labels[graph.edge_dst], graph.sign):
        across = side[u] != side[v]
        count += int((s > 0 and across) or (s < 0 and not across))
    return count


@pytest.mark.parametrize("n,p,neg,seed", [(8, 0.5, 0.5, 1), (12, 0.4, 0.3, 2), (14, 0.3, 0.5, 3),
                                          (16, 0.25, 0.4, 4), (18, 0.2, 0.5, 5)])
def test_exact_matches_brute_force(n, p, neg, seed):
    g = random_signed(n, p, neg, seed)
    ex = frustration_index_exact(g, time_limit=60)
    assert ex.optimal
    ref = brute_force_index(g)
    assert ex.index == ref
    assert ex.bound == ref and ex.gap == 0.0
    assert recount(g, ex.best_state) == ref
    assert len(ex.switched) == ref


def test_highland_tribes_is_seven(shared_data):
    from rapids_balance.datasets import load_example

    g = load_example("highland")
    ex = frustration_index_exact(g, time_limit=30)
    assert ex.optimal and ex.index == 7
    assert brute_force_index(g) == 7
    heur = frustration(g, 100, progress=False)
    assert heur.index == 7 and recount(g, heur.best_state) == 7


def test_time_limit_reports_bound_and_gap():
    g = random_signed(120, 0.3, 0.5, 9)
    ex = frustration_index_exact(g, time_limit=0.2)
    assert ex.index is None or ex.bound <= ex.index
    if not ex.optimal:
        assert ex.gap > 0
    if ex.index is not None:
        assert recount(g, ex.best_state) == ex.index


def test_start_incumbent_and_bad_arguments():
    g = random_signed(10, 0.5, 0.5, 11)
    heur = frustration(g, 20, progress=False)
    ex = frustration_index_exact(g, start=heur.best_state)
    assert ex.optimal and ex.index == brute_force_index(g) <= heur.index
    with pytest.raises(ValueError, match="solver"):
        frustration_index_exact(g, solver="gurobi")
    for bad in (-1, float("nan"), float("inf"), None):
        with pytest.raises(ValueError, match="'time_limit' parameter .* finite number >= 0"):
            frustration_index_exact(g, time_limit=bad)


def near_balanced(n, m, noise, seed):
    """A planted bipartition with a fraction ``noise`` of edge signs flipped."""
    rng = np.random.default_rng(seed)
    side = rng.integers(0, 2, n)
    src = [int(rng.integers(v)) for v in range(1, n)]
    dst = list(range(1, n))
    while len(src) < m:
        u, v = rng.integers(0, n, 2)
        if u != v:
            src.append(int(u))
            dst.append(int(v))
    src, dst = np.array(src), np.array(dst)
    sign = np.where(side[src] == side[dst], 1, -1)
    sign[rng.random(src.size) < noise] *= -1
    return build_graph(src, dst, sign=sign)


def test_cycle_cuts_prove_a_near_balanced_graph():
    g = near_balanced(150, 450, 0.1, 3)
    with_cuts = frustration_index_exact(g, time_limit=120)
    assert with_cuts.optimal and with_cuts.cuts > 0
    # the cuts are valid: the optimum agrees with the plain model on a graph it can prove
    small = near_balanced(18, 40, 0.2, 4)
    a = frustration_index_exact(small, cuts=True)
    b = frustration_index_exact(small, cuts=False)
    assert a.index == b.index == brute_force_index(small)
    heur = frustration(g, 20, progress=False)
    assert heur.index >= with_cuts.index
    assert recount(g, with_cuts.best_state) == with_cuts.index


def test_start_state_must_be_a_full_bipartition():
    g = load_example("highland")
    state = frustration(g, 8, progress=False, backend="cpu").best_state
    with pytest.raises(GraphInputError, match="every one"):
        frustration_index_exact(g, start=state.iloc[1:])
    bad = state.assign(side=state["side"] * 2)
    with pytest.raises(GraphInputError, match="0 or 1"):
        frustration_index_exact(g, start=bad)
    with pytest.raises(GraphInputError, match="entries"):
        frustration_index_exact(g, start=[0, 1])
