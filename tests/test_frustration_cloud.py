"""Frustration cloud: exact deduplication, memory cap semantics, reproducibility."""

import numpy as np
import pandas as pd
import pytest

from rapids_balance.errors import GraphInputError
from rapids_balance.graph import build_graph
from rapids_balance.frustration_index import frustration
from rapids_balance.frustration_index._frustration import (FrustrationParams, _batches, _cloud_partial,
                                                      _merge_clouds)
from rapids_balance.frustration_index._samplers import sample_trees

from test_frustration_exact import random_signed, recount


def reference_states(graph, n_trees, sampler, seed):
    """(canonical side bytes, switches) of every tree, computed without the cloud code."""
    parent, pedge, order, _ = sample_trees(graph, np.arange(n_trees), sampler=sampler, seed=seed)
    out = []
    for t in range(n_trees):
        ps = np.zeros(graph.n, np.int64)
        ps[order[t, 0]] = 1
        for v in order[t, 1:]:
            ps[v] = ps[parent[t, v]] * graph.sign[pedge[t, v]]
        side = (ps != ps[0]).astype(np.uint8)
        sw = int((graph.sign * ps[graph.edge_src] * ps[graph.edge_dst] < 0).sum())
        out.append((side.tobytes(), sw))
    return out


def reference_cloud(states, batch, cap=None):
    """The documented semantics: merge per batch, keep the cap best (switches, first tree)."""
    cloud = {}  # key -> [count, switches, first_tree]
    for a in range(0, len(states), batch):
        for t in range(a, min(a + batch, len(states))):
            key, sw = states[t]
            if key in cloud:
                cloud[key][0] += 1
            else:
                cloud[key] = [1, sw, t]
        if cap is not None and len(cloud) > cap:
            keep = sorted(cloud, key=lambda k: (cloud[k][1], cloud[k][2]))[:cap]
            cloud = {k: cloud[k] for k in keep}
    return cloud


def as_rows(res):
    return sorted(zip(res.cloud["first_tree"], res.cloud["count"], res.cloud["switches"]))


@pytest.fixture(scope="module")
def graph():
    return random_signed(40, 0.12, 0.35, 7)


@pytest.mark.parametrize("sampler", ["bfs", "rdfs", "uniform"])
def test_cloud_equals_reference(graph, sampler):
    states = reference_states(graph, 60, sampler, 3)
    ref = reference_cloud(states, 64)
    res = frustration(graph, 60, sampler=sampler, seed=3, refine=False, progress=False)
    assert as_rows(res) == sorted((v[2], v[0], v[1]) for v in ref.values())
    assert res.cloud["count"].sum() == 60
    assert res.tree_index == min(sw for _, sw in states)
    # the stored bits are the states
    got = {bytes(s.astype(np.uint8)) for s in res.cloud_states()}
    assert got == set(ref)


def test_forced_hash_collisions_never_merge(graph):
    """All hashes equal (mask 0): equality must come from the bits alone."""
    for mask in (0, (1 << 64) - 1):
        params = FrustrationParams(n_trees=50, sampler="uniform", seed=1, batch_size=16,
                                   hash_mask=mask)
        parts = [_cloud_partial(graph, b, params) for b in _batches(params)]
        cloud = _merge_clouds(parts, params)
        got = sorted(zip(cloud.first_tree, cloud.counts, cloud.switches))
        if mask == 0:
            assert len(set(cloud.hashes)) == 1 and len(cloud) > 1
            collided = got
        else:
            assert got == collided
    ref = reference_cloud(reference_states(graph, 50, "uniform", 1), 16)
    assert collided == sorted((v[2], v[0], v[1]) for v in ref.values())


def test_mirror_states_are_one_state():
    # a balanced 4-cycle: every tree gives the same bipartition, whatever root
    g = build_graph([0, 1, 2, 3], [1, 2, 3, 0], sign=[1, -1, 1, -1])
    res = frustration(g, 12, sampler="bfs-random-root", refine=False, progress=False)
    assert len(res.cloud) == 1 and res.cloud["count"].iloc[0] == 12 and res.index == 0


@pytest.mark.parametrize("cap,batch", [(1, 8), (3, 5), (5, 64)])
def test_memory_cap_semantics(graph, cap, batch):
    states = reference_states(graph, 40, "rdfs", 5)
    ref = reference_cloud(states, batch, cap)
    res = frustration(graph, 40, sampler="rdfs", seed=5, refine=False, progress=False,
                      max_states=cap, batch_size=batch)
    assert len(res.cloud) <= cap
    assert as_rows(res) == sorted((v[2], v[0], v[1]) for v in ref.values())
    full = frustration(graph, 40, sampler="rdfs", seed=5, refine=False, progress=False)
    assert res.tree_index == full.tree_index  # the best is never evicted
    assert res.info["evicted"] >= len(full.cloud) - cap


def test_memory_limit_becomes_a_cap(graph):
    res = frustration(graph, 30, sampler="rdfs", refine=False, progress=False,
                      memory_limit=3 * (8 + 100))
    assert res.info["max_states"] == 3 and len(res.cloud) <= 3
    with pytest.raises(ValueError, match="memory_limit"):
        frustration(graph, 5, memory_limit=10, progress=False)
    with pytest.raises(ValueError, match="max_states"):
        frustration(graph, 5, max_states=0, progress=False)


def test_seeded_reruns_identical_and_batches_do_not_matter(graph):
    a = frustration(graph, 50, sampler="hybrid", seed=11, progress=False)
    b = frustration(graph, 50, sampler="hybrid", seed=11, progress=False)
    c = frustration(graph, 50, sampler="hybrid", seed=11, progress=False, batch_size=7)
    pd.testing.assert_frame_equal(a.cloud, b.cloud)
    pd.testing.assert_frame_equal(a.cloud, c.cloud)
    pd.testing.assert_frame_equal(a.best_state, b.best_state)
    assert a.index == b.index == c.index
    d = frustration(graph, 50, sampler="hybrid", seed=12, refine=False, progress=False)
    assert not d.cloud.equals(a.cloud)


def test_result_is_consistent(graph):
    res = frustration(graph, 30, progress=False)
    assert recount(graph, res.best_state) == res.index == len(res.switched)
    assert res.refined_index is not None and res.index <= res.tree_index
    assert set(res.best_state["vertex"]) == set(graph.labels.tolist())
    assert list(res.cloud.columns) == ["state", "count", "switches", "sampler", "first_tree"]
    assert res.cloud["switches"].is_monotonic_increasing
    h = res.history[res.history["stage"] == "trees"]
    assert h["index"].is_monotonic_decreasing and h["index"].iloc[-1] == res.tree_index
    # switched edges flip exactly to a balanced graph
    side = dict(zip(res.best_state["vertex"], res.best_state["side"]))
    flipped = set(zip(res.switched["src"], res.switched["dst"]))
    for u, v, s in zip(graph.labels[graph.edge_src], graph.labels[graph.edge_dst], graph.sign):
        s2 = -s if (u, v) in flipped else s
        assert (s2 > 0) == (side[u] == side[v])


def test_original_labels_are_reported():
    g = build_graph(np.array(["a", "b", "c", "d"]), np.array(["b", "c", "a", "a"]),
                    sign=[1, 1, -1, -1])
    res = frustration(g, 4, progress=False)
    assert sorted(res.best_state["vertex"]) == ["a", "b", "c", "d"]
    assert res.index == 1 and set(res.switched["src"]) <= {"a", "b", "c", "d"}


def test_bad_input():
    g = build_graph([0, 2], [1, 3], sign=[1, -1], component="all")
    with pytest.raises(GraphInputError, match="connected"):
        frustration(g, 3, progress=False)
    g = random_signed(6, 0.5, 0.5, 0)
    with pytest.raises(ValueError, match="sampler"):
        frustration(g, 3, sampler="prim", progress=False)
    with pytest.raises(ValueError, match="n_trees"):
        frustration(g, -1, progress=False)
    with pytest.raises(ValueError, match="refine"):
        frustration(g, 3, refine="lots", progress=False)
    unsigned = build_graph([0, 1], [1, 2])
    with pytest.raises(GraphInputError, match="signed"):
        frustration(unsigned, 3, progress=False)


def test_dask_client_equals_local(graph):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=None) as client:
        remote = frustration(graph, 40, sampler="kruskal", seed=2, progress=False, batch_size=8,
                             max_states=4, client=client, refine=False)
    local = frustration(graph, 40, sampler="kruskal", seed=2, progress=False, batch_size=8,
                        max_states=4, refine=False)
    pd.testing.assert_frame_equal(remote.cloud, local.cloud)
    assert remote.history.equals(local.history)


def test_graphbplus_bitcoin_otc_100_bfs_trees(shared_data):
    """graphB++ reference code: 100 BFS trees on Bitcoin OTC, best 2,138 switches."""
    from rapids_balance.balancing import graphbplus_roots
    from rapids_balance.datasets import load_example

    g = load_example("bitcoin-otc", numbering="graphbplus")
    res = frustration(g, 100, seed=17, roots=graphbplus_roots(g, 100), refine=False,
                      progress=False)
    assert res.tree_index == 2138
    assert recount(g, res.best_state) == 2138


def test_cap_keeps_counting_a_kept_state_on_ties():
    """A kept state tied on switches with a newer one must still count its repeats."""
    from rapids_balance.frustration_index._cloud import Cloud, build_part, merge_part

    S = np.array([[1]], np.uint64)
    T = np.array([[2]], np.uint64)
    h = np.zeros(1, np.uint64)  # same hash: equality from the bits only
    cloud = Cloud(max_states=1)
    merge_part(cloud, build_part(S, h, np.array([5]), [0], [0], 1))
    merge_part(cloud, build_part(np.vstack([T, S]), np.zeros(2, np.uint64), np.array([5, 5]),
                                 [10, 12], [0, 0], 1))
    assert cloud.first_tree == [0] and cloud.counts == [2]
    # strictly better newcomer evicts it; seen again later it starts over
    merge_part(cloud, build_part(T, h, np.array([4]), [20], [0], 1))
    merge_part(cloud, build_part(S, h, np.array([5]), [30], [0], 1))
    assert cloud.first_tree == [20] and cloud.counts == [1] and cloud.evicted == 3


def test_refine_without_trees(graph):
    res = frustration(graph, 0, progress=False)
    assert res.tree_index is None and len(res.cloud) == 0
    assert res.index == res.refined_index == recount(graph, res.best_state)
    assert (res.history["stage"] == "refine").all() and res.history["index"].dtype == np.int64
    with pytest.raises(ValueError, match="'n_trees' parameter .* when refine=False"):
        frustration(graph, 0, refine=False, progress=False)
