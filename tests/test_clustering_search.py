"""Correlation-clustering search: optimality on tiny graphs (brute force over
all partitions), 1-opt local optimality, determinism, cluster cap."""

import numba
import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.clustering._objective import slot_weights
from rapids_balance.clustering._state import CPUState, Level


def _random_graph(seed, n, m, weighted=False, p_neg=0.4):
    """m distinct random pairs; integer weights 1..4 when weighted (sums stay exact)."""
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < m:
        u, v = rng.integers(0, n, 2)
        if u != v:
            pairs.add((min(u, v), max(u, v)))
    src, dst = np.array(sorted(pairs)).T
    data = {"source": src, "target": dst,
            "sign": rng.choice([-1, 1], len(src), p=[p_neg, 1 - p_neg])}
    if weighted:
        data["weight"] = rng.integers(1, 5, len(src)).astype(float)
        return rb.SignedGraph.from_edgelist(data, sign="sign", weight="weight")
    return rb.SignedGraph.from_edgelist(data, sign="sign")


def _partitions(n):
    """All set partitions of range(n) as restricted growth strings."""
    def rec(prefix, k):
        if len(prefix) == n:
            yield list(prefix)
            return
        for c in range(k + 1):
            yield from rec(prefix + [c], max(k, c + 1))
    yield from rec([0], 1)


def _python_cost(g, lab):
    w = g.weight if g.weight is not None else np.ones(g.m)
    cost = 0.0
    for e in range(g.m):
        same = lab[g.edge_src[e]] == lab[g.edge_dst[e]]
        if (g.sign[e] < 0 and same) or (g.sign[e] > 0 and not same):
            cost += w[e]
    return cost


def _brute_force(g):
    return min(_python_cost(g, p) for p in _partitions(g.n))


def _internal(g, res):
    frame = res.labels.set_index("vertex")["cluster"]
    return frame.loc[g.labels].to_numpy()


@pytest.mark.parametrize("seed,weighted", [(0, False), (1, False), (2, True), (3, True)])
@pytest.mark.parametrize("method,extra", [("ils", {}), ("ils", {"perturbation": "vertex"}),
                                          ("grasp", {}), ("multilevel", {})])
def test_optimal_on_tiny_graphs(seed, weighted, method, extra):
    g = _random_graph(seed, 8, 14, weighted)
    res = rb.correlation_clustering(g, method=method, seed=seed, progress=False, max_iterations=5,
                                    **extra)
    assert res.imbalance == pytest.approx(_brute_force(g))
    assert res.imbalance == pytest.approx(_python_cost(g, _internal(g, res)))


def _no_improving_move(g, lab):
    """1-opt local optimality by brute force: every vertex to every cluster or a new one."""
    base = _python_cost(g, lab)
    for v in range(g.n):
        for k in list(set(lab)) + [max(lab) + 1]:
            if k == lab[v]:
                continue
            trial = list(lab)
            trial[v] = k
            if _python_cost(g, trial) < base - 1e-9:
                return False
    return True


@pytest.mark.parametrize("local_search", ["best", "parallel"])
@pytest.mark.parametrize("init", ["singletons", "one"])
def test_vnd_reaches_local_optimum(local_search, init):
    g = _random_graph(11, 20, 45, weighted=True)
    res = rb.correlation_clustering(g, method="vnd", init=init, local_search=local_search,
                                    progress=False)
    lab = list(_internal(g, res))
    assert _no_improving_move(g, lab)
    assert res.imbalance == pytest.approx(_python_cost(g, lab))


def test_vnd_improves_given_init():
    g = _random_graph(12, 20, 45)
    rng = np.random.default_rng(0)
    init = pd.DataFrame({"vertex": g.labels, "cluster": rng.integers(0, 3, g.n)})
    start = rb.imbalance(g, init).imbalance
    res = rb.correlation_clustering(g, method="vnd", init=init, progress=False)
    assert res.imbalance <= start


@pytest.mark.parametrize("method", ["ils", "grasp", "multilevel", "vnd"])
def test_seeded_reruns_identical(method):
    g = _random_graph(21, 60, 200)
    a = rb.correlation_clustering(g, method=method, seed=3, progress=False, max_iterations=3)
    b = rb.correlation_clustering(g, method=method, seed=3, progress=False, max_iterations=3)
    assert a.imbalance == b.imbalance
    pd.testing.assert_frame_equal(a.labels, b.labels)


def test_thread_count_independent():
    g = _random_graph(22, 300, 1500)
    before = numba.get_num_threads()
    try:
        out = []
        for threads in (1, before):
            numba.set_num_threads(threads)
            for method, ls in (("vnd", "parallel"), ("multilevel", "auto")):
                res = rb.correlation_clustering(g, method=method, local_search=ls, seed=1,
                                                progress=False, max_iterations=2)
                out.append(res.labels["cluster"].to_numpy())
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out[1], out[3])


@pytest.mark.parametrize("method", ["ils", "grasp", "vnd", "multilevel"])
def test_cluster_cap(method):
    g = _random_graph(31, 40, 120)
    res = rb.correlation_clustering(g, method=method, n_clusters=2, progress=False,
                                    max_iterations=3)
    assert res.n_clusters <= 2
    # a 2-clustering is a bipartition: its imbalance is at least the unbounded optimum found
    free = rb.correlation_clustering(g, method="ils", progress=False, max_iterations=3)
    assert res.imbalance >= free.imbalance - 1e-9


def test_history_and_result_fields():
    g = _random_graph(41, 50, 150)
    res = rb.correlation_clustering(g, method="ils", progress=False, max_iterations=4)
    hist = res.history["imbalance"].to_numpy()
    assert (np.diff(hist) < 0).all()
    assert hist[-1] == res.imbalance
    assert list(res.labels.columns) == ["vertex", "cluster"]
    assert set(res.labels["vertex"]) == set(g.labels.tolist())


def test_undo_restores_state():
    g = _random_graph(51, 40, 120, weighted=True)
    lv = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
    st = CPUState(lv, np.arange(g.n, dtype=np.int32), log_capacity=1000)
    st.vnd_best()
    before = st.labels.copy()
    value = st.imbalance()
    st.start_log()
    change = st.perturb(10, 5, 1, 0)
    _, gain = st.vnd_best()
    assert st.imbalance() == pytest.approx(value + change + gain)
    st.undo()
    np.testing.assert_array_equal(st.labels, before)
    assert st.imbalance() == pytest.approx(value)


def test_bad_arguments():
    g = _random_graph(61, 10, 20)
    with pytest.raises(ValueError):
        rb.correlation_clustering(g, method="nope")
    with pytest.raises(ValueError):
        rb.correlation_clustering(g, alpha=2.0)
    with pytest.raises(ValueError):
        rb.correlation_clustering(g, perturbation="shake")
    with pytest.raises(rb.GraphInputError):
        rb.correlation_clustering(g, method="vnd", init="singletons", n_clusters=2)


@pytest.mark.slow
def test_slashdot_first_10000_beats_paper(shared_data):
    g = rb.read_edgelist(shared_data / "levorato_cc_slashdot_first_n.tar.gz", format="levorato",
                         member="slashdot-undirected-size10000-part0.g")
    res = rb.correlation_clustering(g, method="multilevel", progress=False, max_iterations=3)
    assert res.imbalance <= 20594.6  # best published average (Table 4, SeqGRASP)


def test_restarts_reduce_like_the_driver():
    """The scale-out hook: best of `_restart` over restart ids, ties to the smallest id."""
    from rapids_balance.clustering._solve import _restart

    g = _random_graph(71, 80, 260)
    params = dict(method="ils", seed=4, max_clusters=0, alpha=1.0, construction="auto",
                  local_search="auto", perturbation_max=30, ils_max=None, backend="cpu", deadline=None)
    runs = [_restart(g, r, params) for r in range(4)]
    best = min(range(4), key=lambda r: (runs[r][1], r))
    res = rb.correlation_clustering(g, method="ils", seed=4, max_iterations=4, progress=False)
    assert res.imbalance == runs[best][1]
    np.testing.assert_array_equal(_internal(g, res), runs[best][0])


@pytest.mark.parametrize("method", ["ils", "grasp", "multilevel", "vnd"])
def test_zero_time_limit_returns_a_valid_clustering(method):
    g = _random_graph(72, 60, 200)
    res = rb.correlation_clustering(g, method=method, time_limit=0.0, max_iterations=50,
                                    progress=False)
    assert res.iterations == 1
    assert res.imbalance == pytest.approx(_python_cost(g, _internal(g, res)))


@pytest.mark.parametrize("method", ["ils", "multilevel"])
def test_a_time_limit_not_reached_changes_nothing(method):
    g = _random_graph(73, 80, 300, weighted=True)
    kw = dict(method=method, seed=5, max_iterations=3, progress=False)
    a = rb.correlation_clustering(g, **kw)
    b = rb.correlation_clustering(g, time_limit=1e6, **kw)
    assert a.imbalance == b.imbalance and a.iterations == b.iterations
    assert a.labels.equals(b.labels)


def test_local_searches_stop_at_a_past_deadline_never_worse():
    from rapids_balance.clustering._multilevel import v_cycle

    g = _random_graph(74, 90, 400)
    level = Level.of_graph(g)
    start = np.arange(g.n, dtype=np.int32)
    st = CPUState(level, start, deadline=0.0)
    assert st.vnd_best()[0] == 0 and st.sweeps(1, 2)[0] == 0 and st.vnd_merge()[0] == 0
    np.testing.assert_array_equal(st.labels, start)
    best = rb.correlation_clustering(g, method="vnd", progress=False)
    current = _internal(g, best).astype(np.int32)
    for cur in (None, current):
        lab = v_cycle(level, 3, 1, cur, 0, None, 0.0)
        assert lab.shape == (g.n,) and lab.min() >= 0
        if cur is not None:
            assert _python_cost(g, lab) <= _python_cost(g, cur)


def test_auto_method_by_size_and_the_result_names_it():
    from rapids_balance.clustering._solve import AUTO_ILS_MAX_EDGES, auto_method

    small = rb.load_example("highland")
    res = rb.correlation_clustering(small, seed=1, progress=False, max_iterations=2)
    assert res.method == "ils" == auto_method(small)
    # same partition as asking for ILS by name
    named = rb.correlation_clustering(small, method="ils", seed=1, progress=False, max_iterations=2)
    assert res.imbalance == named.imbalance
    assert res.labels["cluster"].tolist() == named.labels["cluster"].tolist()

    # a large sparse graph (a long signed cycle with chords) goes to multilevel
    n = AUTO_ILS_MAX_EDGES + 10
    u = np.arange(n)
    big = rb.SignedGraph.from_edgelist((u, (u + 1) % n, np.where(u % 7 == 0, -1, 1)))
    assert big.m > AUTO_ILS_MAX_EDGES and big.n > 2000
    assert auto_method(big) == "multilevel"
    res = rb.correlation_clustering(big, seed=0, progress=False, max_iterations=1)
    assert res.method == "multilevel"
    assert res.imbalance == rb.imbalance(big, res.labels).imbalance


@pytest.mark.parametrize("constrained", [False, True])
def test_table_free_propagation_makes_the_sweeps_moves(constrained):
    """``propagate`` (sums gathered afresh) = ``CPUState.sweeps`` (kept tables) on integer weights."""
    from rapids_balance.clustering._state import propagate

    g = _random_graph(81, 120, 500, weighted=True)
    level = Level.of_graph(g)
    start = np.arange(g.n, dtype=np.int32)
    cons = np.random.default_rng(2).integers(0, 3, g.n).astype(np.int32) if constrained else None
    st = CPUState(level, start)
    st.sweeps(4, 9, max_sweeps=6, constraint=cons)
    lab = propagate(level, start, 4, 9, 6, constraint=cons)
    np.testing.assert_array_equal(lab, st.labels)
    if constrained:  # every cluster stays inside one class
        assert all(np.unique(cons[lab == k]).size == 1 for k in np.unique(lab))


def test_active_vertex_sweeps_make_every_sweep_s_moves():
    """Sweeps that visit only vertices with a moved neighbour (through a heap
    once few are active) = full sweeps with tables, to convergence."""
    from rapids_balance.clustering import _cpu
    from rapids_balance.clustering._state import propagate

    g = _random_graph(84, 3000, 9000, weighted=True, p_neg=0.3)
    level = Level.of_graph(g)
    start = np.random.default_rng(5).integers(0, 40, g.n).astype(np.int32)
    st = CPUState(level, start)
    moves, _ = st.sweeps(6, 3, max_sweeps=60)
    lab = propagate(level, start, 6, 3, 60)
    np.testing.assert_array_equal(lab, st.labels)
    assert moves > _cpu.SPARSE_SWEEP * 10  # enough moves for sweeps of both kinds


@pytest.mark.parametrize("n", [7, 5000])
def test_radix_argsort_is_numpys_stable_argsort(n):
    from rapids_balance.clustering import _cpu

    rng = np.random.default_rng(n)
    for keys in (rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
                 rng.integers(0, 9, n).astype(np.uint64) << np.uint64(40)):  # many ties
        np.testing.assert_array_equal(_cpu.stable_argsort_u64(keys),
                                      np.argsort(keys, kind="stable"))


def test_parallel_contraction_sums_the_weights_between_groups():
    """``contract`` = the dense group-by-group sum of the signed weights, for any number of parts."""
    from rapids_balance.clustering import _cpu

    g = _random_graph(85, 400, 2500, weighted=True)
    level = Level.of_graph(g)
    lab = np.random.default_rng(6).integers(0, 37, g.n).astype(np.int32)
    ref = np.zeros((37, 37))
    rows = np.repeat(np.arange(g.n), np.diff(level.indptr))
    np.add.at(ref, (lab[rows], lab[level.indices]), level.a)
    np.fill_diagonal(ref, 0.0)
    out = [_cpu.contract(level.indptr, level.indices, level.a, lab, 37, parts) for parts in (1, 3)]
    for ptr, idx, a in out:
        dense = np.zeros((37, 37))
        dense[np.repeat(np.arange(37), np.diff(ptr)), idx] = a
        np.testing.assert_array_equal(dense, ref)
        assert np.all(a != 0.0)
    for x, y in zip(*out):
        np.testing.assert_array_equal(x, y)


def test_size_capped_propagation_respects_the_cap():
    from rapids_balance.clustering._state import propagate

    g = _random_graph(82, 200, 900, p_neg=0.1)
    level = Level.of_graph(g)
    weight = np.random.default_rng(3).integers(1, 4, g.n).astype(np.int64)
    lab = propagate(level, np.arange(g.n, dtype=np.int32), 1, 2, 5, vertex_weight=weight,
                    max_weight=6)
    totals = np.bincount(lab, weights=weight)
    assert totals.max() <= 6 and np.unique(lab).size < g.n  # grouped, within the cap


def test_overlay_groups_exactly_the_pairs_together_in_both():
    from rapids_balance.clustering._multilevel import overlay

    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 5, 300), rng.integers(0, 7, 300)
    ov = overlay(a, b)
    same = ov[:, None] == ov[None, :]
    np.testing.assert_array_equal(same, (a[:, None] == a[None, :]) & (b[:, None] == b[None, :]))


def test_combining_two_clusterings_is_never_worse_than_the_start():
    from rapids_balance.clustering._multilevel import v_cycle

    g = _random_graph(83, 150, 700, weighted=True)
    level = Level.of_graph(g)
    a = v_cycle(level, 5, 0)
    b = v_cycle(level, 5, 1)
    for start, partner in ((a, b), (b, a)):
        child = v_cycle(level, 5, 2, start, partner=partner)
        assert _python_cost(g, child) <= _python_cost(g, start)
        np.testing.assert_array_equal(child, v_cycle(level, 5, 2, start, partner=partner))


def _search_from_one_cycle(g):
    """A population of one V-cycle of ``g`` and the callbacks of the search
    drivers; ``seen`` records the cost of every V-cycle they run."""
    from rapids_balance.clustering._multilevel import v_cycle

    level = Level.of_graph(g)
    start = v_cycle(level, 7, 0)
    pop = [(_python_cost(g, start), 0, start)]
    seen = []

    def cycle_of(cyc, current):
        lab = v_cycle(level, 7, cyc, current)
        seen.append(_python_cost(g, lab))
        return lab, seen[-1], cyc

    def add(lab, cyc, val):
        pop.append((val, cyc, lab))
        pop.sort(key=lambda x: (x[0], x[1]))

    return level, start, pop, seen, cycle_of, add


def test_chain_of_cycles_from_the_best_never_worsens_it():
    """The search for graphs too large for a population: V-cycles from the best."""
    from rapids_balance._deadline import NO_DEADLINE
    from rapids_balance.clustering._solve import _chain, _no_room_for_a_population

    g = _random_graph(86, 200, 900, weighted=True)
    _, start, pop, seen, cycle_of, add = _search_from_one_cycle(g)
    best, done = _chain(pop, cycle_of, add, 2, NO_DEADLINE, False)
    assert done == 1 + len(seen) and len(seen) >= 2
    assert _python_cost(g, best) == min([pop[0][0], *seen]) <= _python_cost(g, start)
    assert seen == sorted(seen, reverse=True)  # each cycle starts from the best so far
    assert not _no_room_for_a_population(0.0, NO_DEADLINE)


def test_parent_pairs_cover_every_pair():
    from rapids_balance.clustering._solve import _pair

    for size in (2, 3, 4, 5):
        pairs = {_pair(g, size) for g in range(1, size * (size - 1) + 1)}
        assert pairs == {(i, j) for i in range(size) for j in range(i + 1, size)}
    assert _pair(7, 1) == (0, 0)



def test_a_peeled_ball_is_a_new_cluster_of_positive_neighbours_inside_one_cluster(monkeypatch):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    from rapids_balance.clustering import _solve

    monkeypatch.setattr(_solve, "PEEL_MAX", 40)
    g = _random_graph(87, 300, 2000, p_neg=0.2)
    level = Level.of_graph(g)
    labels = (np.arange(g.n) >= 120).astype(np.int32)  # clusters of 120 and 180 vertices
    pos = csr_matrix((np.where(level.a > 0, 1, 0), level.indices, level.indptr))
    for cycle in range(20):
        out = _solve._peel(level, labels, 9, cycle)
        np.testing.assert_array_equal(out, _solve._peel(level, labels, 9, cycle))  # seeded
        assert out.max() == 2  # one cluster more
        ball = np.flatnonzero(out == np.argmin(np.bincount(out)))
        assert 2 <= ball.size <= 40 and np.unique(labels[ball]).size == 1
        rest = np.setdiff1d(np.arange(g.n), ball)
        np.testing.assert_array_equal(out[rest] == out[rest][0], labels[rest] == labels[rest][0])
        assert connected_components(pos[ball][:, ball], directed=False)[0] == 1


def test_iterated_search_never_worsens_the_best_and_stops_at_patience():
    from concurrent.futures import ThreadPoolExecutor

    from rapids_balance._deadline import NO_DEADLINE
    from rapids_balance.clustering._solve import BATCH, _iterated

    g = _random_graph(88, 200, 900, weighted=True)
    level, start, pop, seen, cycle_of, add = _search_from_one_cycle(g)

    class Bar:
        def update(self, k):
            pass

        def set_postfix_str(self, text):
            pass

    with ThreadPoolExecutor(2) as pool:
        done = _iterated(pop, level, 7, 1, cycle_of, add, 2, NO_DEADLINE, Bar(), pool)
    assert done == len(seen) >= 2 * BATCH and done % BATCH == 0
    assert pop[0][0] == min([_python_cost(g, start), *seen]) == _python_cost(g, pop[0][2])
