"""Tree samplers: valid spanning trees, their defining properties, reproducibility."""

import itertools
from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from rapids_balance.backend import to_host
from rapids_balance.graph import build_graph
from rapids_balance.frustration_index._samplers import SAMPLER_CODES, SAMPLERS, sample_trees
from rapids_balance.frustration_index._samplers import mst_key, mst_shift

from test_frustration_exact import random_signed


@pytest.fixture(scope="module")
def graph():
    return random_signed(30, 0.15, 0.4, 21)


def check_tree(graph, parent, pedge, order):
    n = graph.n
    assert sorted(order.tolist()) == list(range(n))
    pos = np.empty(n, int)
    pos[order] = np.arange(n)
    root = order[0]
    assert parent[root] == -1 and pedge[root] == -1
    edges = set()
    for v in range(n):
        if v == root:
            continue
        p, e = parent[v], pedge[v]
        assert pos[p] < pos[v]  # parents first
        assert {int(graph.edge_src[e]), int(graph.edge_dst[e])} == {v, int(p)}
        edges.add(int(e))
    assert len(edges) == n - 1
    return edges


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_every_sampler_builds_spanning_trees(graph, sampler):
    p, pe, o, codes = sample_trees(graph, np.arange(12), sampler=sampler, seed=4)
    assert p.shape == pe.shape == o.shape == (12, graph.n) and p.dtype == np.int32
    for t in range(12):
        check_tree(graph, p[t], pe[t], o[t])
    # tree i depends on seed + i only, not on its batch
    p2, pe2, o2, codes2 = sample_trees(graph, np.arange(5, 12), sampler=sampler, seed=4)
    assert np.array_equal(pe[5:], pe2) and np.array_equal(o[5:], o2)
    assert np.array_equal(codes[5:], codes2)


def dfs_property(graph, parent, pedge):
    """Every non-tree edge joins an ancestor and a descendant (DFS trees only)."""
    tree = set(pedge[pedge >= 0].tolist())
    anc = []
    for v in range(graph.n):
        a, seen = v, set()
        while a != -1:
            seen.add(int(a))
            a = parent[a]
        anc.append(seen)
    return all(e in tree or int(graph.edge_dst[e]) in anc[graph.edge_src[e]]
               or int(graph.edge_src[e]) in anc[graph.edge_dst[e]] for e in range(graph.m))


def test_dfs_and_rdfs_are_depth_first(graph):
    p, pe, _, _ = sample_trees(graph, np.arange(6), sampler="dfs")
    r, re_, _, _ = sample_trees(graph, np.arange(6), sampler="rdfs", seed=1)
    for t in range(6):
        assert dfs_property(graph, p[t], pe[t])
        assert dfs_property(graph, r[t], re_[t])
    # DFS over sorted rows from the same root is networkx's DFS tree
    root = int(np.flatnonzero(p[0] == -1)[0])
    G = nx.Graph(list(zip(graph.edge_src.tolist(), graph.edge_dst.tolist())))
    nx_tree = {frozenset(e) for e in nx.dfs_edges(G, root)}
    ours = {frozenset((v, int(p[0, v]))) for v in range(graph.n) if p[0, v] >= 0}
    assert ours == nx_tree
    # randomised: trees differ from the plain DFS
    assert not np.array_equal(np.sort(pe, 1), np.sort(re_, 1))


def test_hybrid_mixes_bfs_and_rdfs(graph):
    p, pe, o, codes = sample_trees(graph, np.arange(40), sampler="hybrid", seed=9)
    bfs = codes == SAMPLER_CODES["bfs"]
    assert bfs.any() and (~bfs).any() and set(codes.tolist()) <= {SAMPLER_CODES["bfs"], SAMPLER_CODES["rdfs"]}
    pb, peb, ob, _ = sample_trees(graph, np.arange(40), sampler="bfs", seed=9)
    assert np.array_equal(pe[bfs], peb[bfs])
    pr, per, _, _ = sample_trees(graph, np.arange(40), sampler="rdfs", seed=9)
    assert np.array_equal(pe[~bfs], per[~bfs])


def test_kruskal_is_the_mst_of_its_random_weights(graph):
    _, pe, _, _ = sample_trees(graph, np.arange(5), sampler="kruskal", seed=6)
    for t in range(5):
        w = [int(mst_key(np.int64(6 + t), e, mst_shift(graph.m))) for e in range(graph.m)]
        assert len(set(w)) == graph.m  # distinct: the MST is unique
        G = nx.Graph()
        for e in range(graph.m):
            G.add_edge(int(graph.edge_src[e]), int(graph.edge_dst[e]), w=int(w[e]), e=e)
        mst = {d["e"] for _, _, d in nx.minimum_spanning_edges(G, weight="w", data=True)}
        assert mst == set(pe[t][pe[t] >= 0].tolist())


@pytest.mark.simulator
def test_boruvka_gpu_builds_the_kruskal_trees(gpu_backend):
    g = random_signed(16, 0.25, 0.4, 31)
    cpu = sample_trees(g, np.arange(3), sampler="kruskal", seed=2, backend="cpu")
    gpu = sample_trees(g, np.arange(3), sampler="kruskal", seed=2, backend=gpu_backend)
    for a, b in zip(cpu, gpu):  # rooted on the device: parent, parent_edge, order stay there
        assert np.array_equal(a, to_host(b))


@pytest.mark.simulator
def test_boruvka_gpu_path_signs_are_those_of_the_kruskal_trees(gpu_backend):
    from rapids_balance.balancing._path_signs import path_signs
    from rapids_balance.frustration_index._samplers import kruskal_path_signs_gpu

    g = random_signed(16, 0.25, 0.4, 31)
    p, pe, o, codes = sample_trees(g, np.arange(3), sampler="kruskal", seed=2, backend="cpu")
    ps, gpu_codes = kruskal_path_signs_gpu(g, np.arange(3), seed=2)
    assert np.array_equal(to_host(ps), path_signs(o, p, pe, g.sign, backend="cpu"))
    assert np.array_equal(gpu_codes, codes)


@pytest.mark.simulator
def test_boruvka_gpu_rooted_a_block_a_tree_gives_the_cpus_parents(gpu_backend):
    # rooting level by level (threads over a level, more vertices than threads): the parents,
    # parent edges and path signs are the CPU's walk's; no order is made
    from rapids_balance.balancing._path_signs import path_signs
    from rapids_balance.balancing._roots import tree_roots
    from rapids_balance.frustration_index._gpu import boruvka_trees
    from rapids_balance.frustration_index._samplers import _seeds64, mst_shift

    g = random_signed(40, 0.12, 0.4, 5)
    p, pe, o, _ = sample_trees(g, np.arange(4), sampler="kruskal", seed=7, backend="cpu")
    roots, seeds = tree_roots(g, np.arange(4), sampler="bfs", seed=7)
    parent, parent_edge, order, ps, reached = boruvka_trees(g, _seeds64(seeds), mst_shift(g.m), roots,
                                                            with_order=False)
    assert order is None and (reached == g.n).all()
    assert np.array_equal(to_host(parent), p) and np.array_equal(to_host(parent_edge), pe)
    assert np.array_equal(to_host(ps), path_signs(o, p, pe, g.sign, backend="cpu"))


@pytest.mark.simulator
def test_boruvka_gpu_makes_two_launches_and_one_read_per_batch(gpu_backend):
    # every Borůvka round runs inside one block per tree, the rooting in a second launch;
    # the host reads the reached counts once, nothing per round, per tree or per jump
    from rapids_balance.backend import launch_counts

    g = random_signed(16, 0.25, 0.4, 31)
    for trees in (1, 5):
        reads, launches = launch_counts["host_reads"], launch_counts["launches"]
        sample_trees(g, np.arange(trees), sampler="kruskal", seed=2, backend=gpu_backend)
        assert launch_counts["host_reads"] - reads == 1
        assert launch_counts["launches"] - launches == 2


@pytest.mark.simulator
def test_boruvka_gpu_spans_trees_of_many_rounds(gpu_backend):
    # more edges than a block has threads (each thread strides over several) and several
    # rounds: still the CPU's Kruskal trees
    g = random_signed(40, 0.4, 0.4, 7)
    assert g.m > 256
    cpu = sample_trees(g, np.arange(2), sampler="kruskal", seed=5, backend="cpu")
    gpu = sample_trees(g, np.arange(2), sampler="kruskal", seed=5, backend=gpu_backend)
    for a, b in zip(cpu, gpu):
        assert np.array_equal(a, to_host(b))


def test_uniform_spanning_tree_distribution():
    """K4 minus an edge has 8 spanning trees; Wilson's draws them uniformly."""
    g = build_graph([0, 0, 0, 1, 2], [1, 2, 3, 2, 3], sign=[1, 1, 1, 1, 1])
    _, pe, _, _ = sample_trees(g, np.arange(4000), sampler="uniform", seed=0)
    counts = Counter(tuple(sorted(row[row >= 0].tolist())) for row in pe)
    n_trees = sum(1 for c in itertools.combinations(range(g.m), 3)
                  if nx.is_tree(nx.Graph([(int(g.edge_src[e]), int(g.edge_dst[e])) for e in c])))
    assert len(counts) == n_trees == 8
    expected = 4000 / 8
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 24.3  # 7 degrees of freedom, p = 0.001


def test_disconnected_graph_is_refused():
    from rapids_balance.errors import GraphInputError

    g = build_graph([0, 2], [1, 3], sign=[1, -1], component="all")
    for sampler in ("dfs", "kruskal", "uniform"):
        with pytest.raises(GraphInputError, match="connected"):
            sample_trees(g, np.arange(2), sampler=sampler)


@pytest.mark.simulator
@pytest.mark.parametrize("kw", [dict(sampler="bfs-random-root"), dict(sampler="bfs", roots=[3, 5]),
                                dict(sampler="kruskal")], ids=["random-root", "roots", "kruskal"])
def test_gpu_cloud_equals_cpu_with_path_signs_from_the_bfs(gpu_backend, kw):
    """BFS trees on the GPU give their path signs straight from the BFS (no order, no second pass);
    Borůvka's tree edges come back compacted: the clouds are the CPU's."""
    from rapids_balance import load_example
    from rapids_balance.frustration_index import frustration

    g = load_example("highland")
    cpu = frustration(g, 5, seed=4, backend="cpu", progress=False, refine=False, **kw)
    gpu = frustration(g, 5, seed=4, backend=gpu_backend, progress=False, refine=False, **kw)
    pd.testing.assert_frame_equal(cpu.cloud, gpu.cloud)
    assert cpu.tree_index == gpu.tree_index


@pytest.mark.simulator
@pytest.mark.parametrize("cap,sampler", [(None, "bfs"), (2, "bfs"), (None, "kruskal")],
                         ids=["no-cap", "max-states-2", "kruskal"])
def test_gpu_cloud_does_not_depend_on_the_batches_sampled_at_once(gpu_backend, monkeypatch, cap,
                                                                   sampler):
    """The GPU samples several batches' trees in one go (enough for the device); each batch is
    still its own part: cloud, counts, evictions and the history's row a batch are the CPU's,
    and those of one batch at a time, with and without a state cap."""
    from rapids_balance import load_example
    from rapids_balance.frustration_index import _frustration, frustration

    g = load_example("highland")
    kw = dict(seed=4, progress=False, refine=False, batch_size=2, max_states=cap, sampler=sampler)
    assert _frustration._device_batches(g, _frustration.FrustrationParams(
        7, backend="gpu", batch_size=2, sampler=sampler)) > 4
    runs = {"cpu": frustration(g, 7, backend="cpu", **kw),
            "gpu, all batches at once": frustration(g, 7, backend=gpu_backend, **kw)}
    monkeypatch.setattr(_frustration, "_device_batches", lambda *a: 3)
    runs["gpu, 3 batches at once"] = frustration(g, 7, backend=gpu_backend, **kw)
    monkeypatch.setattr(_frustration, "_device_batches", lambda *a: 1)
    runs["gpu, a batch at a time"] = frustration(g, 7, backend=gpu_backend, **kw)
    want = runs.pop("cpu")
    assert len(want.history) == 4  # a row a batch
    for name, got in runs.items():
        pd.testing.assert_frame_equal(want.cloud, got.cloud, obj=name)
        pd.testing.assert_frame_equal(want.history, got.history, obj=name)
        assert want.tree_index == got.tree_index
        assert want.info.get("evicted") == got.info.get("evicted"), name
