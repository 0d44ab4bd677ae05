"""Limits shorter than the first unit of work: no tree when a tree would overrun, no
refinement set-up when no move could be made, contractions that stop at the deadline,
labels renumbered without a sort.

No timed assertions: deadlines are already passed (or never reached), and what a search
did is read from its result (trees sampled, its start, its history rows).
"""

import time

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from rapids_balance.clustering import _cpu
from rapids_balance.clustering import _multilevel
from rapids_balance.clustering._objective import _compact, imbalance_value
from rapids_balance.clustering._state import Level
from rapids_balance.frustration_index import _frustration
from rapids_balance.frustration_index._frustration import _Budget, _cheap_start, _no_room_for_a_tree
from rapids_balance.frustration_index._states import bfs_sides, count_frustrated
from rapids_balance.generators import planted_partition_graph
from rapids_balance.graph import build_graph

from test_frustration_exact import random_signed, recount


@pytest.fixture(scope="module")
def planted():
    return planted_partition_graph(20_000, n_groups=2, flip=0.05, exponent=2.5, seed=5).graph


def _satisfied_components(g, side) -> int:
    x = np.where(side > 0, -1, 1)
    ok = g.sign * x[g.edge_src] * x[g.edge_dst] > 0
    a = coo_matrix((np.ones(int(ok.sum())), (g.edge_src[ok], g.edge_dst[ok])), shape=(g.n, g.n))
    return connected_components(a, directed=False)[0]


def _reference_bfs_sides(g) -> np.ndarray:
    """The same BFS in plain Python over the CSR rows (first discoverer = parent)."""
    side = np.zeros(g.n, np.int8)
    seen, queue = {0}, [0]
    for u in queue:
        for k in range(g.indptr[u], g.indptr[u + 1]):
            v = int(g.indices[k])
            if v not in seen:
                seen.add(v)
                side[v] = side[u] ^ int(g.sign[g.slot_edge[k]] < 0)
                queue.append(v)
    return side


@pytest.mark.parametrize("seed", [1, 2])
def test_the_checks_bfs_gives_a_spanning_trees_state(seed):
    g = random_signed(90, 0.06, 0.4, seed)
    reached, side = bfs_sides(g.indptr, g.indices, g.slot_edge, g.sign)
    assert reached == g.n and side[0] == 0
    np.testing.assert_array_equal(side, _reference_bfs_sides(g))
    # a tree's balanced state satisfies its n - 1 edges: they connect every vertex
    assert _satisfied_components(g, side) == 1
    two = build_graph([0, 1, 2, 5], [1, 2, 3, 6], sign=[1, -1, 1, -1], component="all")
    assert bfs_sides(two.indptr, two.indices, two.slot_edge, two.sign)[0] < two.n


def test_no_room_for_a_tree_when_four_passes_end_past_the_search():
    # search = 110 - 2 - 3 = 105: four passes (8 s) do not fit in 5 s, but in the 8 s to
    # the hard deadline when no refinement follows
    assert _no_room_for_a_tree(_Budget(start=100.0, final=110.0, pass_s=2.0), True)
    assert not _no_room_for_a_tree(_Budget(start=100.0, final=110.0, pass_s=2.0), False)
    assert not _no_room_for_a_tree(_Budget(start=100.0, final=200.0, pass_s=2.0), True)
    # a tree of a few milliseconds is sampled whatever the limit (a passed one included)
    assert not _no_room_for_a_tree(_Budget(start=100.0, final=90.0, pass_s=1e-4), True)


def test_the_cheap_start_is_never_worse_than_one_side(planted):
    g = planted
    _, side = bfs_sides(g.indptr, g.indices, g.slot_edge, g.sign)
    negative = int((g.sign < 0).sum())
    start, name = _cheap_start(g, side)
    assert name == "check-bfs" and start is side and count_frustrated(g, side) <= negative
    # on a mostly positive graph, a state worse than all vertices on one side gives way to it
    g = random_signed(90, 0.06, 0.05, 3)
    worst = (np.arange(g.n) % 2).astype(np.int8)
    assert count_frustrated(g, worst) > int((g.sign < 0).sum())
    start, name = _cheap_start(g, worst)
    assert name == "one-side" and not start.any()


@pytest.mark.parametrize("refine", [True, False])
def test_a_limit_with_no_room_for_a_tree_starts_from_the_checks_state(planted, monkeypatch,
                                                                       refine):
    """With the grace of a tiny tree taken away, a spent limit samples no tree: the
    result is the check's BFS state, reported as such, valid and counted."""
    g = planted
    monkeypatch.setattr(_frustration, "TREE_GRACE_S", 0.0)
    res = _frustration.frustration(g, seed=1, time_limit=0.0, refine=refine, progress=False)
    _, side = bfs_sides(g.indptr, g.indices, g.slot_edge, g.sign)
    assert res.info["trees"] == 0 and res.tree_index is None and len(res.cloud) == 0
    assert res.info["start"] == "check-bfs" and res.info["stopped"] == "time_limit"
    assert res.index == recount(g, res.best_state) == count_frustrated(g, side)
    assert len(res.switched) == res.index <= int((g.sign < 0).sum())
    refine_rows = res.history[res.history["stage"] == "refine"]["index"].tolist()
    if refine:  # past the hard deadline no move is made: one row, the start's own index
        assert res.refined_index == res.index and refine_rows == [res.index]
    else:
        assert res.refined_index is None and refine_rows == []


def test_a_limit_with_room_for_a_tree_samples_as_before(planted):
    res = _frustration.frustration(planted, seed=1, time_limit=0.0, progress=False)
    assert res.info["trees"] >= 1 and res.info["start"] == "trees"
    assert res.index == recount(planted, res.best_state) <= res.tree_index
    far = _frustration.frustration(planted, 64, seed=1, progress=False, time_limit=1e6)
    assert far.info["start"] == "trees" and far.info["stopped"] is None


def test_a_contraction_past_its_deadline_builds_no_level(planted):
    level = Level.of_graph(planted)
    lab = (np.arange(planted.n) // 7).astype(np.int32)
    nc = int(lab.max()) + 1
    for parts in (1, 2):
        ptr, idx, a = _cpu.contract(level.indptr, level.indices, level.a, lab, nc, parts, 0.0)
        assert ptr.size == 1 and idx.size == a.size == 0
        later = _cpu.contract(level.indptr, level.indices, level.a, lab, nc, parts,
                              time.perf_counter() + 3600)
        plain = _cpu.contract(level.indptr, level.indices, level.a, lab, nc, parts)
        assert later[0].size == nc + 1
        for x, y in zip(later, plain):
            np.testing.assert_array_equal(x, y)


def test_a_cut_contraction_leaves_the_propagation_clustering(planted, monkeypatch):
    level = Level.of_graph(planted)
    full = _multilevel.coarsen(level, 3, 1, None)
    contract = _cpu.contract
    monkeypatch.setattr(_cpu, "contract", lambda *args: contract(*args[:6], 0.0))
    levels, maps, top, _ = _multilevel.coarsen(level, 3, 1, None)
    assert len(full[0]) > 1 and len(levels) == 1 and maps == []
    # the first level's label propagation, the same as the uncut hierarchy's first map
    np.testing.assert_array_equal(top, full[1][0])
    labels = _multilevel.v_cycle(level, 3, 0)
    assert labels.size == planted.n
    assert imbalance_value(planted, labels) < imbalance_value(planted, np.arange(planted.n))


@pytest.mark.parametrize("labels", [
    np.array([5, 5, 2, 9, 2, 0], np.int32), np.array([3], np.int64), np.array([0, 0, 0], np.uint8),
    np.random.default_rng(4).integers(0, 50, 400), np.array([-1, 4, -1, 4]),
    np.array([10**12, 1, 10**12]), np.array([2.5, 1.0, 2.5]), np.array(["b", "a", "b"])])
def test_labels_renumbered_in_a_pass_as_by_the_sort(labels):
    """Cluster ids numbered by first appearance: the one-pass renumbering of small
    integer ids and the sort (every other kind of id) agree."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    out = _compact(labels, "labels")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, rank[inv.reshape(-1)])
