"""Balance measures against independent references: brute-force triangles, dense
matrix exponentials and inverses, signnet's published values for the Highland tribes."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest
import scipy.linalg

import rapids_balance as rb
from rapids_balance.errors import GraphInputError, InvalidParameterError
from rapids_balance.graph import build_graph
from rapids_balance.measures import (balance_ratio_of_counts, census_of_triangles, list_triangles,
                                     log_trace_exp, triangle_census, walk_log_ratio)
from rapids_balance.measures import _triangle_kernels as kernels


def random_signed(n, p, seed, weighted=False):
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    src = np.array([a for a, _ in pairs])
    dst = np.array([b for _, b in pairs])
    sign = rng.choice([-1, 1], len(pairs))
    kw = {"weight": rng.uniform(0.5, 2.0, len(pairs))} if weighted else {}
    return build_graph(src, dst, sign=sign, component="all", **kw)


def brute_triangles(g):
    """Every triangle by enumerating vertex triples; per-type counts, per-edge, per-vertex, weights."""
    eid = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(g.edge_src, g.edge_dst))}
    types = np.zeros(4, np.int64)
    wsum = np.zeros(4)
    e_bal, e_unb = np.zeros(g.m, np.int64), np.zeros(g.m, np.int64)
    v_bal, v_unb = np.zeros(g.n, np.int64), np.zeros(g.n, np.int64)
    for a, b, c in itertools.combinations(range(g.n), 3):
        es = [eid.get((a, b)), eid.get((a, c)), eid.get((b, c))]
        if None in es:
            continue
        k = sum(g.sign[e] < 0 for e in es)
        types[k] += 1
        if g.weight is not None:
            wsum[k] += np.prod([abs(g.weight[e]) for e in es])
        for arr_e, arr_v in ((e_bal, v_bal),) if k % 2 == 0 else ((e_unb, v_unb),):
            arr_e[es] += 1
            arr_v[[a, b, c]] += 1
    return types, wsum, e_bal, e_unb, v_bal, v_unb


@pytest.mark.parametrize("seed", range(6))
def test_triangles_equal_brute_force(seed):
    g = random_signed(8 + 3 * seed, 0.25 + 0.1 * seed, seed, weighted=seed % 2 == 1)
    t = rb.signed_triangles(g, backend="cpu")
    types, wsum, e_bal, e_unb, v_bal, v_unb = brute_triangles(g)
    assert t.counts["count"].tolist() == types.tolist()
    assert t.n_triangles == types.sum() and t.balanced == types[0] + types[2]
    assert t.edges["balanced"].tolist() == e_bal.tolist()
    assert t.edges["unbalanced"].tolist() == e_unb.tolist()
    assert t.vertices["balanced"].tolist() == v_bal.tolist()
    assert t.vertices["unbalanced"].tolist() == v_unb.tolist()
    if g.weight is not None:
        np.testing.assert_allclose(t.counts["weight"], wsum, rtol=1e-12)
        assert t.weighted_balance_ratio == pytest.approx((wsum[0] + wsum[2]) / wsum.sum())
    else:
        assert "weight" not in t.counts and t.weighted_balance_ratio is None


@pytest.mark.parametrize("seed", range(3))
def test_gpu_simulator_counts_equal_cpu(seed, gpu_backend):
    g = random_signed(12, 0.45, 100 + seed, weighted=True)
    cpu = rb.signed_triangles(g, backend="cpu")
    gpu = rb.signed_triangles(g, backend=gpu_backend)
    pd.testing.assert_frame_equal(cpu.edges, gpu.edges)
    pd.testing.assert_frame_equal(cpu.vertices, gpu.vertices)
    assert cpu.counts["count"].tolist() == gpu.counts["count"].tolist()
    np.testing.assert_allclose(cpu.counts["weight"], gpu.counts["weight"], rtol=1e-12)
    listed_cpu = list_triangles(g.edge_src, g.edge_dst, g.n)
    listed_gpu = np.asarray(list_triangles(g.edge_src, g.edge_dst, g.n, backend=gpu_backend))
    np.testing.assert_array_equal(listed_cpu, listed_gpu)


def test_array_level_functions_agree():
    g = random_signed(30, 0.3, 7)
    tri = list_triangles(g.edge_src, g.edge_dst, g.n)
    types = brute_triangles(g)[0]
    # each row is a triangle: its three edges touch exactly three vertices
    ends = np.stack([g.edge_src[tri], g.edge_dst[tri]], axis=-1).reshape(len(tri), -1)
    assert all(len(set(r)) == 3 for r in ends.tolist()) and len(tri) == types.sum()
    assert census_of_triangles(tri, g.sign).tolist() == types.tolist()
    assert triangle_census(g.edge_src, g.edge_dst, g.sign, g.n).tolist() == types.tolist()
    # a shuffle of signs over the same list: the census is recomputed from the list alone
    shuffled = np.random.default_rng(1).permutation(g.sign)
    g2 = build_graph(g.edge_src, g.edge_dst, sign=shuffled, component="all")
    assert census_of_triangles(tri, shuffled).tolist() == brute_triangles(g2)[0].tolist()
    assert balance_ratio_of_counts([0, 0, 0, 0]) != balance_ratio_of_counts([0, 0, 0, 0])  # NaN


def test_census_does_not_depend_on_chunks():
    g = random_signed(40, 0.3, 3, weighted=True)
    optr, oind, oedge = kernels.oriented_csr(g.edge_src.astype(np.int64), g.edge_dst.astype(np.int64), g.n)
    oneg = (g.sign[oedge] < 0).astype(np.int8)
    ow = np.abs(g.weight)[oedge]
    runs = [kernels.census_all(optr, oind, oedge, oneg, ow, g.m, c) for c in (1, 2, 5)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_array_equal(a, b)  # weights too: summed per vertex, in vertex order


def test_no_triangles():
    g = build_graph([0, 1, 2], [1, 2, 3], sign=[1, -1, 1])
    t = rb.signed_triangles(g, backend="cpu")
    assert t.n_triangles == 0 and np.isnan(t.balance_ratio)
    assert t.vertices["triangles"].sum() == 0


def dense_log_trace(g, values, beta):
    a = np.zeros((g.n, g.n))
    a[g.edge_src, g.edge_dst] = values
    a[g.edge_dst, g.edge_src] = values
    return np.log(np.trace(scipy.linalg.expm(beta * a)))


@pytest.mark.parametrize("beta", [0.1, 1.0, 3.0])
def test_walk_exact_equals_dense_expm(beta):
    g = random_signed(25, 0.3, 11)
    w = rb.walk_balance(g, beta, method="exact", backend="cpu")
    s = dense_log_trace(g, g.sign, beta)
    u = dense_log_trace(g, np.ones(g.m), beta)
    assert w.log_trace_signed == pytest.approx(s, rel=1e-10)
    assert w.log_trace_unsigned == pytest.approx(u, rel=1e-10)
    assert w.log_score == pytest.approx(s - u, abs=1e-9)
    assert w.score == pytest.approx(np.exp(s - u), rel=1e-9) and w.log_score_error == 0.0


@pytest.mark.parametrize("beta", [0.1, 1.0])
def test_walk_slq_within_its_error_bar(beta):
    g = random_signed(300, 0.03, 5)
    exact = rb.walk_balance(g, beta, method="exact", backend="cpu")
    est = rb.walk_balance(g, beta, method="slq", seed=3, backend="cpu")
    assert est.method == "slq" and est.log_score_error > 0
    # 4 standard errors, plus the floor of quadrature rounding
    assert abs(est.log_score - exact.log_score) <= 4 * est.log_score_error + 1e-8
    again = rb.walk_balance(g, beta, method="slq", seed=3, backend="cpu")
    assert again == est  # same seed, same estimate


@pytest.mark.parametrize("beta", [0.1, 1.0])
def test_walk_slq_full_effort_and_adaptive_stop_within_error_bar(beta):
    g = random_signed(400, 0.02, 8)
    exact = rb.walk_balance(g, beta, method="exact", backend="cpu").log_score
    full = rb.walk_balance(g, beta, method="slq", seed=1, rtol=0.0, probes=32, deflation=4)
    assert full.params["probes_used"] == 32 and full.params["steps_used"] == 40
    loose = rb.walk_balance(g, beta, method="slq", seed=1, rtol=100.0, probes=32, deflation=4)
    assert loose.params["probes_used"] == 16  # the first batch is enough for a loose rtol
    assert loose.log_score_error >= full.log_score_error
    for est in (full, loose):
        assert abs(est.log_score - exact) <= 4 * est.log_score_error + 1e-8


def test_lanczos_kernels_equal_numpy_and_ignore_thread_count():
    import numba
    import scipy.sparse as sp

    from rapids_balance.measures import _lanczos_kernels as lk

    rng = np.random.default_rng(4)
    n = 3 * lk.CHUNK + 5  # the column sums cross chunk boundaries
    rows, cols = rng.integers(0, n, size=(2, 20 * n))
    a = sp.csr_matrix((rng.standard_normal(rows.size), (rows, cols)), shape=(n, n))
    x = rng.standard_normal((a.shape[0], 5))
    y = rng.standard_normal(x.shape)
    out = np.empty_like(x)
    lk.spmm(a.indptr, a.indices, a.data, x, out)
    np.testing.assert_allclose(out, a @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lk.column_dots(x, y), np.sum(x * y, axis=0), rtol=1e-12)
    w = y.copy()
    al, bp, qp = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(x.shape)
    dots = lk.subtract_dot(w, x, qp, al, bp)
    np.testing.assert_allclose(w, y - al * x - bp * qp, rtol=1e-12)
    np.testing.assert_allclose(dots, np.sum(x * w, axis=0), rtol=1e-12)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = lk.column_dots(x, y)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, lk.column_dots(x, y))  # fixed chunks: bit for bit


def test_lanczos_kernels_equal_the_array_program_of_the_gpu():
    from rapids_balance.measures._walk import _leading_pairs, _lanczos_steps, _sparse

    g = random_signed(150, 0.05, 6)
    a = _sparse(g.edge_src, g.edge_dst, g.sign.astype(float), g.n, "cpu")
    _, vecs = _leading_pairs(a, g.n, 3, 0, "cpu")
    z = np.random.default_rng(2).choice([-1.0, 1.0], size=(g.n, 6))
    z -= vecs @ (vecs.T @ z)
    steps = zip(_lanczos_steps(a, z, vecs, np), _lanczos_steps(a, z, vecs, np, kernels=False))
    for fast, arrays in itertools.islice(steps, 20):
        np.testing.assert_allclose(fast[0], arrays[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(fast[1], arrays[1], rtol=1e-9, atol=1e-9)


def test_walk_slq_does_not_depend_on_the_thread_count():
    import numba

    rng = np.random.default_rng(12)
    n = 9000  # more rows than two chunks of the column sums
    ends = np.sort(rng.integers(0, n, size=(40000, 2)), axis=1)
    ends = np.unique(ends[ends[:, 0] != ends[:, 1]], axis=0)
    g = build_graph(ends[:, 0], ends[:, 1], sign=rng.choice([-1, 1], len(ends)), component="all")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rb.walk_balance(g, 0.5, method="slq", seed=2, probes=8, deflation=2)
    finally:
        numba.set_num_threads(before)
    assert rb.walk_balance(g, 0.5, method="slq", seed=2, probes=8, deflation=2) == one


def test_walk_slq_batches_use_a_prefix_of_the_probes():
    from rapids_balance.measures._walk import probe_batches

    assert probe_batches(64) == [16, 16, 32] and probe_batches(10) == [10] and probe_batches(40) == [16, 16, 8]
    g = random_signed(200, 0.04, 3)
    # atol=inf stops after the first batch: the same as asking for 16 probes
    first = log_trace_exp(g.edge_src, g.edge_dst, g.sign, g.n, [0.5], probes=64, deflation=4, atol=np.inf)
    only16 = log_trace_exp(g.edge_src, g.edge_dst, g.sign, g.n, [0.5], probes=16, deflation=4)
    np.testing.assert_allclose(first[0], only16[0], rtol=1e-12)


def test_walk_array_level_and_balanced_graph():
    g = random_signed(20, 0.3, 2)
    side = np.random.default_rng(0).integers(0, 2, g.n)
    balanced = np.where(side[g.edge_src] == side[g.edge_dst], 1, -1)
    log_w, err = walk_log_ratio(g.edge_src, g.edge_dst, balanced, g.n, 1.0, method="exact")
    assert log_w == pytest.approx(0.0, abs=1e-10) and err == 0.0
    u = log_trace_exp(g.edge_src, g.edge_dst, np.ones(g.m), g.n, [0.5], method="exact")
    with_cache = walk_log_ratio(g.edge_src, g.edge_dst, g.sign, g.n, 0.5, method="exact",
                                unsigned=(u[0][0], u[1][0]))
    assert with_cache == walk_log_ratio(g.edge_src, g.edge_dst, g.sign, g.n, 0.5, method="exact")


def test_signed_degree_and_pn_index_against_dense():
    g = random_signed(15, 0.4, 9, weighted=True)
    d = rb.signed_degree(g)
    a = np.zeros((g.n, g.n))
    a[g.edge_src, g.edge_dst] = g.sign
    a[g.edge_dst, g.edge_src] = g.sign
    pos, neg = (a > 0).sum(1), (a < 0).sum(1)
    assert d["positive"].tolist() == pos.tolist() and d["negative"].tolist() == neg.tolist()
    assert d["net"].tolist() == (pos - neg).tolist()
    np.testing.assert_allclose(d["ratio"], np.where(pos + neg > 0, pos / np.maximum(pos + neg, 1), np.nan))
    w = np.zeros((g.n, g.n))
    w[g.edge_src, g.edge_dst] = np.abs(g.weight) * g.sign
    w[g.edge_dst, g.edge_src] = np.abs(g.weight) * g.sign
    np.testing.assert_allclose(d["positive_weight"], np.where(w > 0, w, 0).sum(1))
    np.testing.assert_allclose(d["negative_weight"], -np.where(w < 0, w, 0).sum(1))
    # Everett and Borgatti: (I - (P - 2N) / (2n - 2))^-1 1, here by a dense inverse
    pn = np.linalg.inv(np.eye(g.n) - ((a > 0) - 2.0 * (a < 0)) / (2 * g.n - 2)) @ np.ones(g.n)
    np.testing.assert_allclose(rb.pn_index(g)["pn"], pn, rtol=1e-9)


def test_highland_tribes_give_signnets_published_scores():
    # signnet's README: balance_score(tribes, "triangles") 0.8676471, "walk" 0.3575761,
    # "frustration" 0.7586207
    s = rb.balance_scores(rb.load_example("highland"), backend="cpu")
    assert s["triangles"] == pytest.approx(0.8676471, abs=5e-8)
    assert s["walk"] == pytest.approx(0.3575761, abs=5e-8)
    assert s["frustration"] == pytest.approx(0.7586207, abs=5e-8)
    assert s["frustration_bound"] == pytest.approx(0.7586207, abs=5e-8)  # the bound proves it
    assert s.triangles.counts["count"].tolist() == [19, 2, 40, 7]


def test_bad_input_is_refused_before_work():
    directed = rb.Graph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "sign": [1, 1, -1]}),
                                      directed=True)
    for fn in (rb.signed_triangles, rb.walk_balance, rb.signed_degree, rb.pn_index, rb.balance_scores):
        with pytest.raises(GraphInputError, match="undirected"):
            fn(directed)
    unsigned = build_graph([0, 1, 2], [1, 2, 0])
    for fn in (rb.signed_triangles, rb.walk_balance, rb.signed_degree, rb.pn_index, rb.balance_scores):
        with pytest.raises(GraphInputError, match="signed"):
            fn(unsigned)
    big = build_graph(np.arange(5001), np.arange(1, 5002), sign=np.ones(5001, int))
    with pytest.raises(GraphInputError, match="at most 5,000 vertices"):
        rb.walk_balance(big, method="exact")
    two = build_graph([0, 2], [1, 3], sign=[1, -1], component="all")
    with pytest.raises(GraphInputError, match="connected"):
        rb.balance_scores(two)
    with pytest.raises(GraphInputError, match="at least 3"):
        rb.pn_index(build_graph([0], [1], sign=[-1]))
    g = rb.load_example("highland")
    for kwargs in ({"beta": 0}, {"beta": "1"}, {"method": "dense"}, {"seed": -1}, {"probes": 1}, {"rtol": -1},
                   {"weighted": 1}):
        with pytest.raises(InvalidParameterError):
            rb.walk_balance(g, **kwargs)
    with pytest.raises(InvalidParameterError):
        rb.signed_triangles(g, backend="tpu")


def test_measures_cli_and_picture(tmp_path):
    from rapids_balance.cli import main

    pytest.importorskip("matplotlib")
    out, pic = tmp_path / "m", tmp_path / "tri.png"
    assert main(["measures", "--example", "highland", "--out", str(out), "--plot", str(pic),
                 "--backend", "cpu", "--quiet"]) == 0
    scores = pd.read_csv(out / "scores.csv")
    assert scores["score"].round(7).tolist() == [0.8676471, 0.3575761, 0.7586207, 0.7586207]
    vertices = pd.read_csv(out / "vertices.csv")
    assert {"vertex", "unbalanced", "positive", "pn"} <= set(vertices.columns) and len(vertices) == 16
    assert pd.read_csv(out / "edges.csv")["triangles"].sum() == 3 * 68
    assert pic.stat().st_size > 0 and json.loads((out / "run.json").read_text())["command"] == "measures"
    assert main(["measures", "--example", "highland", "--out", str(tmp_path / "x"), "--beta", "0"]) == 2
    assert not (tmp_path / "x").exists()
