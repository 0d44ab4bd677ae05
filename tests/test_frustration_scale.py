"""The large-graph path of ``frustration``: grown clusters, narrow signs, restarts, connectivity."""

import numba
import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components, shortest_path

from rapids_balance.errors import GraphInputError
from rapids_balance.frustration_index import RefineParams, frustration
from rapids_balance.frustration_index._frustration import LARGE_EDGES, default_refine
from rapids_balance.frustration_index._refine import (_coarsen, _cost, _match, _project_down,
                                                      _project_up, bfs_ball, refine, slot_signs)
from rapids_balance.graph import build_graph

from test_frustration_exact import random_signed, recount


def frustrated(graph, x):
    return int((graph.sign * x[graph.edge_src] * x[graph.edge_dst] < 0).sum())


@pytest.mark.parametrize("respect", [True, False])
def test_grown_clusters_are_exact_contractions(respect):
    g = random_signed(300, 0.02, 0.35, 21)
    J = slot_signs(g)
    assert J.dtype == np.int16  # the finest level's signs share the coarse levels' type
    x = np.where(np.random.default_rng(1).random(g.n) < 0.5, -1, 1).astype(np.int8)
    vw = np.ones(g.n, np.int32)
    limit = 40
    pairs = _match(g.indptr, g.indices, J, x, x, vw, limit, np.uint64(5), 0, respect, False)
    cmap, orient, nc, cw = _match(g.indptr, g.indices, J, x, x, vw, limit, np.uint64(5), 0,
                                  respect, True)
    assert nc < pairs[2]  # grown clusters shrink the level further than pairs
    assert np.array_equal(np.bincount(cmap, minlength=nc), cw) and cw.max() <= limit
    X = _project_down(x, cmap, orient, nc)
    ptr, idx, W = _coarsen(g.indptr, g.indices, J, cmap, orient, nc)
    assert W.dtype == np.int16  # one sum type below int32 sums: one compiled kernel per stage
    # the level holds exactly its entries: no larger buffer behind a view
    assert idx.size == W.size == ptr[-1] and idx.base is None and W.base is None
    if respect:  # only satisfied edges contracted: the state survives
        assert np.array_equal(_project_up(X, cmap, orient), x)
    # the coarse cost of a coarse state and the cost of its projection differ by one
    # constant (edges inside clusters, cancelled pairs): coarse moves are exact moves
    rng = np.random.default_rng(2)
    offsets = set()
    for Y in [X] + [np.where(rng.random(nc) < 0.5, -1, 1).astype(np.int8) for _ in range(5)]:
        offsets.add(frustrated(g, _project_up(Y, cmap, orient)) - int(_cost(ptr, idx, W, Y)))
    assert len(offsets) == 1 and min(offsets) >= 0


def test_a_level_whose_sums_overflow_int16_is_built_wide_and_exact():
    # all 200 x 200 positive edges of a complete bipartite graph contract into one
    # coarse edge of weight 40,000: past int16, so the level is built again in int32
    a, b = np.meshgrid(np.arange(200), np.arange(200, 400), indexing="ij")
    g = build_graph(a.ravel(), b.ravel(), np.ones(a.size, np.int8))
    assert g.n == 400 and g.m == 40_000
    J = slot_signs(g)
    cmap = (np.arange(400) >= 200).astype(np.int32)
    orient = np.ones(400, np.int8)
    ptr, idx, W = _coarsen(g.indptr, g.indices, J, cmap, orient, 2)
    assert W.dtype == np.int32 and W.tolist() == [40_000, 40_000] and idx.tolist() == [1, 0]
    assert ptr.tolist() == [0, 1, 2]
    # a level below a wide one stays wide (its sums can only grow)
    assert _coarsen(ptr, idx, W, np.zeros(2, np.int32), np.ones(2, np.int8), 1)[2].dtype == np.int32
    # sums up to 32767 are int16, the small ones too (no int8 level: one sum type less to compile)
    for left, kept in ((12, np.int16), (15, np.int16)):  # 120 and 150 edges between two clusters
        a, b = np.meshgrid(np.arange(left), np.arange(left, left + 10), indexing="ij")
        h = build_graph(a.ravel(), b.ravel(), np.ones(a.size, np.int8))
        W = _coarsen(h.indptr, h.indices, slot_signs(h), (np.arange(h.n) >= left).astype(np.int32),
                     np.ones(h.n, np.int8), 2)[2]
        assert W.dtype == kept and W.tolist() == [10 * left] * 2


def test_grown_refinement_is_thread_independent_and_never_worse():
    g = random_signed(250, 0.03, 0.3, 9)
    x0 = np.where(np.arange(g.n) % 3 == 0, -1, 1).astype(np.int8)
    p = dict(population=2, rounds=2, tabu_factor=1, grow=1, restarts=2)
    x1, h1 = refine(g, [x0], seed=6, params=RefineParams(**p, threads=1))
    x2, h2 = refine(g, [x0], seed=6, params=RefineParams(**p, threads=2))
    assert np.array_equal(x1, x2) and h1 == h2
    assert frustrated(g, x1) == h1[-1] == min(h1) <= frustrated(g, x0)


def test_restarts_only_add_work_after_the_rounds():
    g = random_signed(200, 0.04, 0.35, 12)
    x0 = np.ones(g.n, np.int8)
    base = RefineParams(population=4, rounds=3, threads=1)
    x1, h1 = refine(g, [x0], seed=2, params=base)
    x2, h2 = refine(g, [x0], seed=2, params=RefineParams(**{**base.__dict__, "restarts": 3}))
    assert h2[:len(h1)] == h1 and len(h2) > len(h1)  # the same search, then more
    assert frustrated(g, x2) == min(h2) <= min(h1) == frustrated(g, x1)


def test_large_graphs_get_the_grown_two_state_search():
    big = default_refine(LARGE_EDGES + 1)
    assert big.grow == 1 and big.population == 2 and big.tabu_factor == 1
    assert default_refine(LARGE_EDGES).grow == 0


def test_restarts_run_in_frustration_and_stop_at_the_limit():
    g = random_signed(150, 0.04, 0.35, 4)
    plain = frustration(g, 32, seed=3, progress=False)
    more = frustration(g, 32, seed=3, progress=False, refine={"restarts": 3})
    assert more.params["refine"]["restarts"] == 3 and plain.params["refine"]["restarts"] == 0
    assert len(more.history) > len(plain.history)
    assert more.index <= plain.index and recount(g, more.best_state) == more.index
    cut = frustration(g, 32, seed=3, progress=False, refine={"restarts": 10**6}, time_limit=0.5)
    assert cut.info["stopped"] == "time_limit" and recount(g, cut.best_state) == cut.index


@pytest.mark.parametrize("seed,m", [(0, 70), (1, 70), (2, 400), (3, 400)])
def test_connectivity_check_matches_scipy(seed, m):
    rng = np.random.default_rng(seed)
    n = 60
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    keep = src != dst
    g = build_graph(src[keep], dst[keep], sign=np.where(rng.random(int(keep.sum())) < 0.3, -1, 1),
                    component="all")
    k = connected_components(g._scipy_matrix(), directed=False)[0]
    assert (bfs_ball(g.indptr, g.indices, 0, g.n).size == g.n) == (k == 1)
    labels = connected_components(g._scipy_matrix(), directed=False)[1]
    ball = bfs_ball(g.indptr, g.indices, 3, 10)  # a prefix of the BFS order: distinct, connected
    assert ball[0] == 3 and np.unique(ball).size == ball.size
    assert ball.size == min(10, int((labels == labels[3]).sum()))
    dist = shortest_path(g._scipy_matrix(), unweighted=True, indices=3)
    assert np.all(np.diff(dist[ball]) >= 0)  # breadth-first order
    outside = np.setdiff1d(np.flatnonzero(np.isfinite(dist)), ball)
    assert outside.size == 0 or dist[outside].min() >= dist[ball].max()
    if k > 1:
        with pytest.raises(GraphInputError, match="connected"):
            frustration(g, 4, progress=False)


def test_contraction_kernels_give_up_at_a_past_deadline():
    g = random_signed(120, 0.05, 0.35, 8)
    J = slot_signs(g)
    x = np.ones(g.n, np.int8)
    vw = np.ones(g.n, np.int64)
    args = (g.indptr, g.indices, J, x, x, vw, 20, np.uint64(1), 0, False, True)
    cmap, orient, nc, _ = _match(*args)
    assert nc < g.n and _match(*args, 0.0)[2] == g.n  # no level: the V-cycle stops coarsening
    full = _coarsen(g.indptr, g.indices, J, cmap, orient, nc)
    assert full[0].size == nc + 1
    assert _coarsen(g.indptr, g.indices, J, cmap, orient, nc, 0.0)[0].size == 1


def test_trees_in_memory_bounded_chunks_give_the_same_cloud(monkeypatch):
    from rapids_balance.frustration_index import _frustration

    g = random_signed(100, 0.05, 0.35, 6)
    kw = dict(seed=2, progress=False, batch_size=64, refine=False)
    whole = frustration(g, 130, **kw)
    monkeypatch.setattr(_frustration, "CHUNK_BYTES", 1)  # one thread's worth of trees a chunk
    calls = []
    real = _frustration._cloud_partial
    monkeypatch.setattr(_frustration, "_cloud_partial",
                        lambda graph, ids, params: calls.append(len(ids)) or real(graph, ids, params))
    chunked = frustration(g, 130, **kw)
    assert sum(calls) == 130 and max(calls) <= numba.get_num_threads() < 64  # batches were cut
    assert whole.cloud.equals(chunked.cloud) and whole.history.equals(chunked.history)
    assert len(whole.history) == 3  # one row per batch of 64, chunked or not


def test_history_stays_bounded_however_long_the_run(monkeypatch):
    from rapids_balance.frustration_index import _cloud

    monkeypatch.setattr(_cloud, "HISTORY_ROWS", 8)
    g = random_signed(40, 0.15, 0.4, 9)
    res = frustration(g, 64 * 40, batch_size=64, refine=False, seed=2, progress=False)
    h = res.history[res.history["stage"] == "trees"]
    assert 2 <= len(h) <= 8
    assert h["trees"].iloc[0] == 64 and h["trees"].iloc[-1] == 64 * 40 and h["trees"].is_monotonic_increasing
    assert h["index"].is_monotonic_decreasing and h["index"].iloc[-1] == res.tree_index
    # every improvement is kept: the thinned curve has the full run's steps
    monkeypatch.setattr(_cloud, "HISTORY_ROWS", 10**6)
    full = frustration(g, 64 * 40, batch_size=64, refine=False, seed=2, progress=False)
    fh = full.history
    steps = fh[fh["index"].diff().fillna(-1) != 0]
    if len(steps) <= 6:  # within the cap, thinning drops plateaus only
        assert set(steps["trees"]) <= set(h["trees"])
    assert full.cloud.equals(res.cloud) and full.tree_index == res.tree_index


def test_progress_into_a_log_file_is_a_few_lines(monkeypatch):
    import io
    import sys

    log = io.StringIO()  # not a terminal
    monkeypatch.setattr(sys, "stderr", log)
    g = random_signed(30, 0.2, 0.4, 3)
    frustration(g, 64 * 100, batch_size=64, refine=False, seed=1, progress=True)
    text = log.getvalue()
    assert len(text) < 2_000 and text.count("\r") + text.count("\n") < 12, text[:500]
