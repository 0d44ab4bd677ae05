"""ILS machinery: incremental best moves, deferred refreshes, rollback, the
cluster-merge neighbourhood and the plateau walk, each checked against
quantities recomputed from scratch (plain-Python imbalance, brute force)."""

import numba
import numpy as np
import pandas as pd
import pytest
from test_clustering_search import _partitions
from test_clustering_search import _random_graph as _graph

import rapids_balance as rb
from rapids_balance.clustering import _cpu
from rapids_balance.clustering._objective import slot_weights
from rapids_balance.clustering._state import CPUState, Level


def _level(g):
    return Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))


def _cost(g, lab):
    """I(P) edge by edge."""
    w = g.weight if g.weight is not None else np.ones(g.m)
    same = lab[g.edge_src] == lab[g.edge_dst]
    return float(w[(g.sign < 0) & same].sum() + w[(g.sign > 0) & ~same].sum())


def _assert_consistent(st):
    """Best moves and segment tree equal a from-scratch evaluation of the same labels."""
    fresh = CPUState(st.level, st.labels, st.maxc)
    fresh._ensure_tree()
    np.testing.assert_array_equal(st.bk, fresh.bk)
    np.testing.assert_array_equal(st.bd, fresh.bd)
    assert st.tree_d[1] == fresh.tree_d[1] and st.tree_v[1] == fresh.tree_v[1]
    np.testing.assert_array_equal(st.csize, fresh.csize)


def _merge_gains(g, lab):
    """Brute force: imbalance decrease of merging each pair of clusters."""
    base = _cost(g, lab)
    ks = sorted(set(lab.tolist()))
    out = {}
    for i, a in enumerate(ks):
        for b in ks[i + 1:]:
            trial = np.where(lab == b, a, lab)
            out[(a, b)] = base - _cost(g, trial)
    return out


@pytest.mark.parametrize("seed,weighted,cap", [(0, False, 0), (1, True, 0), (2, False, 6),
                                               (3, True, 0)])
def test_incremental_state_matches_fresh_evaluation(seed, weighted, cap):
    g = _graph(seed, 70, 900, weighted)
    lv = _level(g)
    start = np.zeros(g.n, np.int32) if cap else np.arange(g.n, dtype=np.int32)
    st = CPUState(lv, start, cap, log_capacity=4096)
    st.vnd_best()
    _assert_consistent(st)
    st.save()
    for t in range(12):
        value = _cost(g, st.labels)
        st.start_log()
        change = st.perturb(1 + t % 5, seed, 3, 40 * t, 3)
        _assert_consistent(st)
        assert _cost(g, st.labels) == pytest.approx(value + change)
        _, gain = st.vnd_merge() if t % 2 else st.vnd_best()
        _assert_consistent(st)
        assert _cost(g, st.labels) == pytest.approx(value + change + gain)
        if t % 3 == 0:
            st.save()
        else:
            st.rollback()
            _assert_consistent(st)


@pytest.mark.parametrize("capacity", [4096, 3])
def test_rollback_restores_saved_state(capacity):
    """Both ways back (undo of a short log, snapshot copy after an overflow)."""
    g = _graph(5, 60, 700, weighted=True)
    st = CPUState(_level(g), np.arange(g.n, dtype=np.int32), log_capacity=capacity)
    st.vnd_best()
    st.save()
    labels, value = st.labels.copy(), _cost(g, st.labels)
    bd, bk = st.bd.copy(), st.bk.copy()
    for t in range(5):
        st.start_log()
        st.perturb(4, 1, 2, 100 * t, 3)
        st.vnd_best()
        st.rollback()
        np.testing.assert_array_equal(st.labels, labels)
        np.testing.assert_array_equal(st.bd, bd)
        np.testing.assert_array_equal(st.bk, bk)
        assert _cost(g, st.labels) == value
        _assert_consistent(st)


@pytest.mark.parametrize("seed,weighted", [(6, False), (7, True), (8, False)])
def test_best_merge_is_the_brute_force_best(seed, weighted):
    g = _graph(seed, 30, 160, weighted, p_neg=0.3)
    start = np.random.default_rng(seed).integers(0, 12, g.n).astype(np.int32)
    st = CPUState(_level(g), start, log_capacity=1024)
    merges = 0
    while True:
        lab = st.labels.copy()
        gains = _merge_gains(g, lab)
        s, ka, kb = _cpu.best_merge(st.level.indptr, st.labels, st.tid, st.tsum, st.tlen,
                                    st.csize, st.tol)
        best = max(gains.values(), default=0.0)
        if ka < 0:
            assert best <= 1e-9
            break
        assert s == pytest.approx(best) and gains[(ka, kb)] == pytest.approx(s)
        # ties go to the smallest pair
        assert (ka, kb) == min(p for p, v in gains.items() if v == pytest.approx(best))
        before = _cost(g, lab)
        st.start_log()
        _cpu.merge_clusters(ka, kb, st.level.indptr, st.level.indices, st.level.a, st.labels,
                            st.csize, st.free, st.nfree, st.nclus, st.maxc, st.tid, st.tsum,
                            st.tcnt, st.tlen, st.bd, st.bk, st.tree_d, st.tree_v, st.size,
                            st.tol, st.log_v, st.log_k, st.nlog, st.dirty, st.dlist)
        assert _cost(g, st.labels) == pytest.approx(before - s)
        assert s > 0
        assert len(set(st.labels.tolist())) == len(set(lab.tolist())) - 1
        _assert_consistent(st)
        merges += 1
    assert merges > 0  # the instance does exercise merges


def test_vnd_merge_ends_at_a_two_neighbourhood_optimum():
    g = _graph(9, 40, 260, weighted=True, p_neg=0.3)
    st = CPUState(_level(g), np.arange(g.n, dtype=np.int32), log_capacity=4096)
    start = _cost(g, st.labels)
    _, gain = st.vnd_merge()
    lab = st.labels.copy()
    assert _cost(g, lab) == pytest.approx(start + gain)
    assert gain <= 0
    assert max(_merge_gains(g, lab).values(), default=0.0) <= 1e-9
    base = _cost(g, lab)
    for v in range(g.n):  # no 1-opt move improves either
        for k in set(lab.tolist()) | {g.n}:
            trial = lab.copy()
            trial[v] = k
            assert _cost(g, trial) >= base - 1e-9


def _internal(g, res):
    return res.labels.set_index("vertex")["cluster"].loc[g.labels].to_numpy()


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("extra", [{"plateau": True, "merge_moves": True},
                                   {"plateau": True, "merge_moves": False, "ils_max": 3},
                                   {"construction": "grasp", "perturbation": "vertex",
                                    "plateau": False, "merge_moves": False}])
def test_ils_variants_optimal_on_tiny_graphs(seed, extra):
    g = _graph(seed + 20, 8, 16, weighted=bool(seed % 2))
    res = rb.correlation_clustering(g, method="ils", seed=seed, max_iterations=3, progress=False,
                                    **extra)
    assert res.imbalance == pytest.approx(min(_cost(g, np.array(p)) for p in _partitions(g.n)))
    assert res.imbalance == pytest.approx(_cost(g, _internal(g, res)))


def test_dense_defaults_seeded_and_thread_independent():
    """Dense graph: the defaults use plateau walks and merges; the result depends
    on the seed only (reruns, 1 vs several numba threads)."""
    g = _graph(30, 60, 1000, p_neg=0.6)
    before = numba.get_num_threads()
    out = []
    try:
        for threads in (1, before, before):
            numba.set_num_threads(threads)
            out.append(rb.correlation_clustering(g, method="ils", seed=7, max_iterations=2,
                                                 progress=False))
    finally:
        numba.set_num_threads(before)
    assert out[0].params["plateau"] is None  # "auto" picked the dense flavour
    for res in out[1:]:
        assert res.imbalance == out[0].imbalance
        pd.testing.assert_frame_equal(res.labels, out[0].labels)
    assert out[0].imbalance == pytest.approx(_cost(g, _internal(g, out[0])))
    other = rb.correlation_clustering(g, method="ils", seed=8, max_iterations=2, progress=False)
    assert other.imbalance == pytest.approx(_cost(g, _internal(g, other)))


def test_plateau_and_merges_never_worse_than_their_start():
    """Each restart's ILS only keeps perturbations that do not raise I(P): with
    one restart, the result is at most the VND optimum of the same start."""
    from rapids_balance.clustering._solve import _restart
    from rapids_balance.clustering._state import Level

    g = _graph(31, 80, 1100, weighted=True, p_neg=0.6)
    params = {"method": "ils", "seed": 2, "max_clusters": 0, "alpha": 1.0,
              "construction": "grasp", "local_search": "auto", "perturbation_max": 8,
              "ils_max": None, "backend": "cpu", "deadline": None, "plateau": True,
              "merge_moves": True}
    lab, value = _restart(g, 0, params)
    assert value == pytest.approx(_cost(g, lab))
    lv = Level.of_graph(g)
    start = np.zeros(g.n, np.int32)
    _cpu.grasp_construct(lv.indptr, lv.indices, lv.a, 1.0, 2, 1, 0, start)
    st = CPUState(lv, start)
    st.vnd_best()
    assert value <= _cost(g, st.labels) + 1e-9


@pytest.mark.slow
def test_random_instance_reaches_published_average(shared_data):
    """Levorato random n=400 d=0.8 d-=0.8: best published average 23,886.4 (pairs
    counted twice), default ILS, 10 restarts."""
    g = rb.read_edgelist(shared_data / "levorato_cc_random_sg_bigger.tar.gz", format="mrel",
                         member="levorato_cc_random_sg_bigger/file_400_0.8_0.8.g")
    res = rb.correlation_clustering(g, method="ils", max_iterations=10, progress=False)
    assert 2 * res.imbalance <= 23886.4
    assert res.imbalance == _cost(g, _internal(g, res))
