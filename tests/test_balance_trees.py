"""Spanning-tree contract of rapids_balance.balancing._trees (shared with frustration_index/).

References are written here from the rule in the issue, in plain Python:
the graphB+ hash, the BFS parent rule and brute-force path signs.
"""

import numpy as np
import pytest

from rapids_balance.backend import to_host

from rapids_balance.balancing._path_signs import path_signs
from rapids_balance.balancing._roots import graphbplus_roots, tree_roots
from rapids_balance.balancing._trees import BLOCK, MIN_BLOCK_TREES, bfs_trees, block_split, parent_key, seed_mix
from rapids_balance.errors import GraphInputError
from rapids_balance.graph import build_graph

from _reference import M32, ref_bfs, ref_hash, ref_signed  # noqa: F401


def random_signed_graph(rng, n, m):
    s = rng.integers(0, n, m)
    d = rng.integers(0, n, m)
    return build_graph(s, d, sign=rng.choice([-1, 1], m))


def adjacency(g):
    return {v: g.indices[g.indptr[v]:g.indptr[v + 1]].tolist() for v in range(g.n)}


@pytest.fixture(scope="module")
def small_graphs():
    rng = np.random.default_rng(11)
    return [random_signed_graph(rng, int(rng.integers(6, 30)), int(rng.integers(20, 80)))
            for _ in range(8)]


def test_parent_key_matches_python_hash():
    rng = np.random.default_rng(0)
    for _ in range(300):
        u, v = (int(x) for x in rng.integers(0, 2**29, 2))
        level = int(rng.integers(0, 40))
        seed = int(rng.integers(-2**40, 2**40))
        s2 = int(seed_mix([seed])[0])
        s = seed & M32
        assert s2 == (s * s + s) & M32
        want = ref_signed(ref_hash((((u << 2) | ((level & 1) | 2)) ^ v ^ s2)))
        assert parent_key(u, v, level, s2) == want


def test_bfs_trees_follow_the_graphbplus_rule(small_graphs):
    for k, g in enumerate(small_graphs):
        adj = adjacency(g)
        roots, seeds = tree_roots(g, np.arange(6), seed=100 * k + 17)
        parent, pe, order = bfs_trees(g, roots, seeds)
        assert parent.shape == pe.shape == order.shape == (6, g.n)
        for t in range(6):
            par, dep = ref_bfs(adj, int(roots[t]), int(seeds[t]))
            assert parent[t].tolist() == [par[v] for v in range(g.n)]
            assert order[t].tolist() == sorted(range(g.n), key=lambda v: (dep[v], v))
            for v in range(g.n):
                e = pe[t, v]
                if par[v] < 0:
                    assert e == -1
                else:
                    assert {int(g.edge_src[e]), int(g.edge_dst[e])} == {v, par[v]}


def test_trees_do_not_depend_on_thread_count(small_graphs):
    import numba

    g = small_graphs[0]
    roots, seeds = tree_roots(g, np.arange(9), seed=5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = bfs_trees(g, roots, seeds)
    finally:
        numba.set_num_threads(before)
    many = bfs_trees(g, roots, seeds)
    for a, b in zip(one, many):
        assert np.array_equal(a, b)


def brute_path_signs(parent, pe, sign):
    out = np.empty(parent.shape, np.int8)
    for t in range(parent.shape[0]):
        for v in range(parent.shape[1]):
            s, a = 1, v
            while parent[t, a] >= 0:
                s *= int(sign[pe[t, a]])
                a = parent[t, a]
            out[t, v] = s
    return out


def test_path_signs_are_products_along_tree_paths(small_graphs):
    for g in small_graphs[:4]:
        roots, seeds = tree_roots(g, np.arange(5), sampler="bfs-random-root", seed=3)
        parent, pe, order = bfs_trees(g, roots, seeds)
        assert np.array_equal(path_signs(order, parent, pe, g.sign), brute_path_signs(parent, pe, g.sign))


def test_roots_by_degree_with_ties_to_smaller_id_and_cycling():
    # star centre 0 (degree 3), then 1 and 2 (degree 2), then 3 (degree 1)
    g = build_graph([0, 0, 0, 1], [1, 2, 3, 2], sign=[1, 1, -1, 1])
    deg = g.degrees()
    roots, seeds = tree_roots(g, np.arange(10), seed=7)
    ranked = sorted(range(g.n), key=lambda v: (-deg[v], v))
    assert roots.tolist() == [ranked[i % g.n] for i in range(10)]
    assert [int(s) for s in seeds] == [7 + i for i in range(10)]
    # labels, cycling
    r2, _ = tree_roots(g, np.arange(5), roots=[g.labels[3], g.labels[1]])
    assert r2.tolist() == [3, 1, 3, 1, 3]
    with pytest.raises(KeyError):
        tree_roots(g, np.arange(2), roots=[12345])
    # random roots: deterministic, in range, not all equal
    r3, _ = tree_roots(g, np.arange(50), sampler="bfs-random-root", seed=1)
    r4, _ = tree_roots(g, np.arange(50), sampler="bfs-random-root", seed=1)
    assert np.array_equal(r3, r4) and r3.min() >= 0 and r3.max() < g.n and len(set(r3.tolist())) > 1


class _Degrees:
    def __init__(self, deg):
        self._deg = np.asarray(deg)
        self.n = len(deg)
        self.labels = np.arange(self.n)

    def degrees(self):
        return self._deg


@pytest.mark.parametrize("k, deg, expected", [
    # std::partial_sort outputs of libstdc++ (g++ 12) with graphB+'s comparator
    (4, [3, 1, 3, 2, 3, 1, 2, 3, 1, 1], [4, 0, 7, 2]),
    (10, [3, 1, 3, 2, 3, 1, 2, 3, 1, 1], [7, 4, 0, 2, 3, 6, 8, 1, 9, 5]),
    (7, [5] * 12, [3, 4, 1, 0, 5, 2, 6]),
    (100, [2] * 9 + [1] * 3 + [4] * 8,
     [15, 19, 18, 16, 12, 17, 13, 14, 7, 3, 8, 1, 4, 2, 5, 0, 6, 9, 10, 11]),
    (5, [2] * 9 + [1] * 3 + [4] * 8, [14, 13, 15, 16, 12]),
])
def test_graphbplus_roots_replay_libstdcxx_partial_sort(k, deg, expected):
    assert graphbplus_roots(_Degrees(deg), k) == expected


def per_tree_reference(g, roots, seeds):
    """The tree-by-tree CPU kernel, the path ``bfs_trees`` takes for batches shorter than a block."""
    from rapids_balance.balancing._trees import _bfs_batch_cpu

    T = len(roots)
    out = [np.empty((T, g.n), np.int32) for _ in range(3)]
    reached = np.empty(T, np.int64)
    _bfs_batch_cpu(g.indptr, g.indices, g.slot_edge, g.edge_src, g.edge_dst,
                   np.asarray(roots, np.int64), seed_mix(seeds), *out, reached, 1)
    return out


@pytest.mark.parametrize("T", [BLOCK - 1, BLOCK + MIN_BLOCK_TREES, 2 * BLOCK + MIN_BLOCK_TREES - 1])
def test_blocks_of_trees_equal_tree_by_tree(small_graphs, T):
    """Full blocks, a partial block and a tail built tree by tree give the rule's trees."""
    assert block_split(T) >= BLOCK - 1  # at least one block runs
    for k, g in enumerate(small_graphs[:4]):
        roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=1000 + k)
        got = bfs_trees(g, roots, seeds)
        for a, b in zip(got, per_tree_reference(g, roots, seeds)):
            assert np.array_equal(a, b)
        adj = adjacency(g)
        for t in (0, T // 2, T - 1):  # and the Python rule itself, on a few trees
            par, _ = ref_bfs(adj, int(roots[t]), int(seeds[t]))
            assert got[0][t].tolist() == [par[v] for v in range(g.n)]


def test_blocks_on_a_deep_graph():
    """A long cycle with chords: many levels, so the depth-parity bookkeeping wraps many times."""
    rng = np.random.default_rng(5)
    n = 700
    s = np.r_[np.arange(n), rng.integers(0, n, 40)]
    d = np.r_[(np.arange(n) + 1) % n, rng.integers(0, n, 40)]
    g = build_graph(s, d, sign=rng.choice([-1, 1], s.size))
    T = BLOCK + 9
    roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=8)
    got = bfs_trees(g, roots, seeds)
    for a, b in zip(got, per_tree_reference(g, roots, seeds)):
        assert np.array_equal(a, b)
    ps = path_signs(got[2], got[0], got[1], g.sign)
    assert np.array_equal(ps, brute_path_signs(got[0], got[1], g.sign))


def test_disconnected_graph_is_rejected_by_blocks():
    g = build_graph([0, 1, 3], [1, 2, 4], sign=[1, -1, 1], component="all")
    with pytest.raises(GraphInputError, match="not connected"):
        bfs_trees(g, np.zeros(BLOCK, np.int64), np.arange(BLOCK))


def test_disconnected_graph_is_rejected():
    g = build_graph([0, 2], [1, 3], sign=[1, -1], component="all")
    with pytest.raises(GraphInputError, match="not connected"):
        bfs_trees(g, [0], [1])


def test_gpu_trees_and_path_signs_equal_cpu(small_graphs, gpu_backend):
    for g in small_graphs[:2]:
        roots, seeds = tree_roots(g, np.arange(3), seed=9)
        cpu = bfs_trees(g, roots, seeds)
        gpu = bfs_trees(g, roots, seeds, backend=gpu_backend)
        for a, b in zip(cpu, gpu):
            assert np.array_equal(to_host(a), to_host(b))
        parent, pe, order = cpu
        assert np.array_equal(to_host(path_signs(order, parent, pe, g.sign, backend=gpu_backend)),
                              path_signs(order, parent, pe, g.sign))


def test_gpu_path_signs_on_deep_non_bfs_tree(gpu_backend):
    # a path 0-1-...-19 rooted at 0 (depth 19) exercises several pointer-jumping rounds
    n = 20
    rng = np.random.default_rng(4)
    sign = rng.choice([-1, 1], n - 1).astype(np.int8)
    parent = np.array([[-1] + list(range(n - 1))], np.int32)
    pe = np.array([[-1] + list(range(n - 1))], np.int32)
    order = np.arange(n, dtype=np.int32)[None, :]
    got = to_host(path_signs(order, parent, pe, sign, backend=gpu_backend))
    assert np.array_equal(got, brute_path_signs(parent, pe, sign))
