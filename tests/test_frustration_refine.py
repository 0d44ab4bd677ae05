"""Refinement: optimal on small graphs (brute force), local minima, CPU == GPU kernels."""

import numpy as np
import pandas as pd
import pytest

from rapids_balance.frustration_index import RefineParams, frustration, frustration_index_exact
from rapids_balance.frustration_index._refine import parallel_descent, refine, vertex_gains
from rapids_balance.frustration_index._states import tree_states

from test_frustration_exact import brute_force_index, random_signed, recount


def frustrated(graph, x):
    return int((graph.sign * x[graph.edge_src] * x[graph.edge_dst] < 0).sum())


def gains_by_flipping(graph, x):
    base = frustrated(graph, x)
    out = np.empty(graph.n, np.int64)
    for v in range(graph.n):
        y = x.copy()
        y[v] = -y[v]
        out[v] = base - frustrated(graph, y)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_refinement_reaches_the_brute_force_optimum(seed):
    g = random_signed(14 + seed, 0.3, 0.45, 100 + seed)
    res = frustration(g, 5, sampler="dfs", seed=seed, progress=False)
    opt = brute_force_index(g)
    assert res.refined_index == opt == res.index
    assert res.tree_index >= opt
    assert recount(g, res.best_state) == opt


def test_refinement_on_a_medium_graph_matches_the_ilp():
    g = random_signed(60, 0.08, 0.3, 5)
    ex = frustration_index_exact(g, time_limit=60)
    assert ex.optimal
    res = frustration(g, 20, progress=False)
    assert ex.index <= res.index <= res.tree_index
    assert res.index == ex.index  # small enough for the search to find the optimum


def test_refinement_never_worse_than_its_start_and_reproducible():
    g = random_signed(200, 0.03, 0.3, 8)
    x0 = np.where(np.arange(g.n) % 3 == 0, -1, 1).astype(np.int8)
    x1, h1 = refine(g, [x0], seed=4, params=RefineParams(rounds=2, threads=1))
    x2, h2 = refine(g, [x0], seed=4, params=RefineParams(rounds=2, threads=2))
    assert np.array_equal(x1, x2) and h1 == h2
    assert frustrated(g, x1) == h1[-1] <= frustrated(g, x0)
    assert all(a >= b for a, b in zip(h1, h1[1:]))


def test_parallel_descent_reaches_a_local_minimum():
    g = random_signed(80, 0.06, 0.4, 3)
    x0 = np.ones(g.n, np.int8)
    x, rounds = parallel_descent(g, x0, seed=1)
    assert rounds > 0 and frustrated(g, x) < frustrated(g, x0)
    d = gains_by_flipping(g, x)
    assert (d <= 0).all()
    assert np.array_equal(vertex_gains(g, x), d)


@pytest.mark.simulator
def test_gpu_move_kernels_match_cpu(gpu_backend):
    g = random_signed(24, 0.2, 0.4, 13)
    rng = np.random.default_rng(0)
    x = np.where(rng.random(g.n) < 0.5, -1, 1).astype(np.int8)
    assert np.array_equal(vertex_gains(g, x, backend=gpu_backend), gains_by_flipping(g, x))
    xc, rc = parallel_descent(g, x, seed=5, backend="cpu")
    xg, rg = parallel_descent(g, x, seed=5, backend=gpu_backend)
    assert rc == rg and np.array_equal(xc, xg)


@pytest.mark.simulator
def test_gpu_cloud_matches_cpu(gpu_backend):
    from rapids_balance.balancing._path_signs import path_signs
    from rapids_balance.frustration_index._samplers import sample_trees

    g = random_signed(20, 0.2, 0.4, 17)
    p, pe, o, _ = sample_trees(g, np.arange(6), sampler="rdfs", seed=2)
    ps = path_signs(o, p, pe, g.sign)
    cpu = tree_states(ps, g, backend="cpu")
    gpu = tree_states(ps, g, backend=gpu_backend)
    for a, b in zip(cpu, gpu):
        assert np.array_equal(a, b)
    kw = dict(sampler="bfs", seed=3, progress=False, refine=RefineParams(rounds=1))
    rc = frustration(g, 6, backend="cpu", **kw)
    rg = frustration(g, 6, backend=gpu_backend, **kw)
    pd.testing.assert_frame_equal(rc.cloud, rg.cloud)
    pd.testing.assert_frame_equal(rc.best_state, rg.best_state)


def test_bitcoin_otc_refined_target(shared_data):
    from rapids_balance.datasets import load_example

    g = load_example("bitcoin-otc")
    res = frustration(g, 16, progress=False)
    assert res.refined_index <= 1150 < res.tree_index
    assert recount(g, res.best_state) == res.index


@pytest.mark.slow
@pytest.mark.parametrize("name,target", [("soc-sign-Slashdot090221.txt.gz", 74_500),
                                         ("soc-sign-epinions.txt.gz", 54_000)])
def test_large_refined_targets(shared_data, name, target):
    from rapids_balance.io import read_edgelist

    g = read_edgelist(shared_data / name)
    res = frustration(g, 32, progress=False)
    assert res.index <= target
    assert recount(g, res.best_state) == res.index


@pytest.mark.parametrize("seed", range(3))
def test_coarse_graph_sums_the_oriented_fine_edges(seed):
    from rapids_balance.frustration_index._refine import _coarsen

    g = random_signed(40, 0.2, 0.4, 30 + seed)
    rng = np.random.default_rng(seed)
    nc = 9
    cmap = rng.permutation(np.arange(g.n) % nc).astype(np.int64)
    orient = rng.choice(np.array([-1, 1], np.int8), g.n)
    J = g.sign[g.slot_edge].astype(np.int64)
    ptr, idx, W = _coarsen(g.indptr, g.indices.astype(np.int64), J, cmap, orient, nc)
    want = np.zeros((nc, nc), np.int64)  # independent reference: a dense sum over the edges
    for u, v, s in zip(g.edge_src, g.edge_dst, g.sign):
        if cmap[u] != cmap[v]:
            w = int(s) * int(orient[u]) * int(orient[v])
            want[cmap[u], cmap[v]] += w
            want[cmap[v], cmap[u]] += w
    got = np.zeros((nc, nc), np.int64)
    for c in range(nc):
        cols = idx[ptr[c]:ptr[c + 1]]
        assert np.all(np.diff(cols) > 0)  # sorted, no repeats
        got[c, cols] = W[ptr[c]:ptr[c + 1]]
    np.testing.assert_array_equal(got, want)
    assert np.all(W != 0)
