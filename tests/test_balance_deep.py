"""Deep graphs (paths, meshes, road-like): the frontier BFS builds the trees the rule defines.

The block BFS and the GPU kernel visit only each level's frontier; a path or
a grid has thousands of levels, which the bookkeeping must carry without a
change of result.  Three independent checks: the tree-by-tree kernel (a
different algorithm: one queue per tree, one best offer per vertex), stored
digests of the outputs of the level-sweeping code this replaced (same seed,
same trees, same counters), and the simulator's kernel against the CPU.
"""

import hashlib

import numba
import numpy as np
import pytest

from rapids_balance.balancing import balance
from rapids_balance.balancing._trees import BLOCK, bfs_trees
from rapids_balance.balancing._roots import tree_roots
from rapids_balance.generators import powerlaw_signed_graph
from rapids_balance.graph import build_graph

from test_balance_trees import per_tree_reference

#: sha256 prefixes of the trees and counters of the level-sweeping block BFS (the code before the
#: frontier version), on the graphs of :func:`deep_graphs`
DIGESTS = {
    'grid/balance/path-sign/agreeable/130': {'agree2': 'b407f8e10281866f', 'clean': 'c3ae0887de167444', 'in_tree': 'a3fbc92c23bb59d3', 'negative': '0a0cfcb92a4fd59d', 'status2': '2ce829a6b68f4f90', 'switched': '9bdcdbb04d72ece8', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'grid/balance/path-sign/larger/130': {'agree2': 'd7957ef41aa867a2', 'clean': 'c3ae0887de167444', 'in_tree': 'a3fbc92c23bb59d3', 'negative': '0a0cfcb92a4fd59d', 'status2': 'db443fe36b49bc9a', 'switched': '9bdcdbb04d72ece8', 'ties': 'c26314a095825fb1', 'trees': '07b9e48761afabae'},
    'grid/trees/130/bfs-random-root': ['d213a542d82e4a64', 'c5a97c272c12658e', '0815166b7ebf8013'],
    'grid/trees/65/bfs': ['1857dca556cb98d1', '1bbf0afbf99e6198', 'd26afb253495b30c'],
    'path/balance/path-sign/agreeable/130': {'agree2': '2c30802d0d2638ea', 'clean': '5b8c16d457b4511f', 'in_tree': '284c8052d6b354ab', 'negative': 'f52d73c3828066d4', 'status2': '98cdca32146e9902', 'switched': 'a64f86543dfb34bf', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'path/balance/path-sign/larger/130': {'agree2': '49fed32d73c0ec31', 'clean': '5b8c16d457b4511f', 'in_tree': '284c8052d6b354ab', 'negative': 'f52d73c3828066d4', 'status2': 'e90b1ab32dcd24a8', 'switched': 'a64f86543dfb34bf', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'path/trees/130/bfs-random-root': ['ded23b4ee6a8ba1b', '732437964f9645f3', 'f6ed76a05446c233'],
    'path/trees/65/bfs': ['1e37bdf2eac4b614', 'eb8c2886b4213466', '28960e63887a175b'],
    'powerlaw/balance/path-sign/agreeable/130': {'agree2': '96619893477400c9', 'clean': 'fa7a62df6693ab40', 'in_tree': '9fa8af9a45d3d642', 'negative': '9fced22917c44a8c', 'status2': '056d97eda9859935', 'switched': '263d5b789fbfd9de', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'powerlaw/balance/path-sign/larger/130': {'agree2': '5bebb78bd153450b', 'clean': 'fa7a62df6693ab40', 'in_tree': '9fa8af9a45d3d642', 'negative': '9fced22917c44a8c', 'status2': '347a54f7059c589c', 'switched': '263d5b789fbfd9de', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'powerlaw/trees/130/bfs-random-root': ['45380901e8a519bb', 'ac80d1ed5b0e678d', 'f9eb36608258747d'],
    'powerlaw/trees/65/bfs': ['b1ef9784bdd5d91b', '5b2e065323beb8eb', '585808ad38514ad6'],
    'road/balance/path-sign/agreeable/130': {'agree2': '419bc0ffb2f396f1', 'clean': '227cdcce7e322fb6', 'in_tree': '24f7f5c6a5663846', 'negative': '8574bc6040a6621c', 'status2': '91b98a26f5c2fa1c', 'switched': 'd935ba28fdbcac57', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'road/balance/path-sign/larger/130': {'agree2': 'b0d95fd5431c1973', 'clean': '227cdcce7e322fb6', 'in_tree': '24f7f5c6a5663846', 'negative': '8574bc6040a6621c', 'status2': 'def4b8759791f9e1', 'switched': 'd935ba28fdbcac57', 'ties': '3413022eaff632a3', 'trees': '07b9e48761afabae'},
    'road/trees/130/bfs-random-root': ['57cd01e5503533fb', '3af660050d9c022e', '0f343d880848a850'],
    'road/trees/65/bfs': ['c7af711a10d81627', 'a7816fa57645d68e', '713908bfea1807dc']
}


def deep_graphs():
    """A path, a grid, a road-like mesh (all with shuffled ids) and a small power-law graph."""
    rng = np.random.default_rng(5)
    out = {}
    n = 400
    perm = rng.permutation(n)
    out["path"] = build_graph(perm[:-1], perm[1:], sign=np.where(rng.random(n - 1) < 0.3, -1, 1))
    k = 18
    ids = np.arange(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    out["grid"] = build_graph(src, dst, sign=np.where(rng.random(src.size) < 0.25, -1, 1))
    k = 25
    ids = rng.permutation(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel(), ids[:-1, :-1].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel(), ids[1:, 1:].ravel()]
    keep = rng.random(src.size) < np.r_[np.full(2 * k * (k - 1), 0.9), np.full((k - 1) ** 2, 0.1)]
    out["road"] = build_graph(src[keep], dst[keep], sign=np.where(rng.random(keep.sum()) < 0.25, -1, 1),
                              component="largest")
    out["powerlaw"] = powerlaw_signed_graph(3000, seed=3)
    return out


def digest(a):
    a = np.ascontiguousarray(np.asarray(a))
    return hashlib.sha256(a.tobytes() + str(a.dtype).encode() + str(a.shape).encode()).hexdigest()[:16]


@pytest.fixture(scope="module")
def graphs():
    return deep_graphs()


@pytest.fixture(params=[1, 2])
def threads(request):
    before = numba.get_num_threads()
    numba.set_num_threads(min(request.param, numba.config.NUMBA_NUM_THREADS))
    yield request.param
    numba.set_num_threads(before)


@pytest.mark.parametrize("name", ["path", "grid", "road", "powerlaw"])
def test_frontier_trees_equal_the_stored_ones(graphs, name, threads):
    g = graphs[name]
    for T, sampler in ((65, "bfs"), (130, "bfs-random-root")):
        roots, seeds = tree_roots(g, np.arange(T), sampler=sampler, seed=11)
        got = [digest(a) for a in bfs_trees(g, roots, seeds)]
        assert got == DIGESTS[f"{name}/trees/{T}/{sampler}"]


@pytest.mark.parametrize("name", ["path", "grid", "road", "powerlaw"])
@pytest.mark.parametrize("relabel", [False, True])
def test_frontier_counters_equal_the_stored_ones(graphs, name, threads, relabel, monkeypatch):
    """With ``relabel`` every graph goes through the BFS-numbered copy of deep graphs (keys and
    the agreeable majority's ties in the graph's own ids)."""
    from rapids_balance.balancing import _layout, _trees

    g = graphs[name]
    if relabel:
        monkeypatch.setattr(_layout, "DEEP_LEVELS", 0)
        assert _layout.deep_layout(g, _trees.slot_negative(g)) is not None
    elif name != "path":
        assert _layout.deep_layout(g, _trees.slot_negative(g)) is None
    for majority in ("larger", "agreeable"):
        r = balance(g, n_trees=130, seed=7, majority=majority, progress=False, backend="cpu",
                    attributes="datalab")
        got = {k: digest(v) for k, v in sorted(r.counters.items())}
        assert got == DIGESTS[f"{name}/balance/path-sign/{majority}/130"]


@pytest.mark.parametrize("name", ["path", "grid", "road"])
def test_frontier_blocks_equal_tree_by_tree_on_deep_graphs(graphs, name):
    g = graphs[name]
    T = BLOCK + 5
    roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=3)
    for a, b in zip(bfs_trees(g, roots, seeds), per_tree_reference(g, roots, seeds)):
        assert np.array_equal(a, b)


def _small_deep_graphs():
    rng = np.random.default_rng(2)
    n = 30
    perm = rng.permutation(n)
    path = build_graph(perm[:-1], perm[1:], sign=rng.choice([-1, 1], n - 1))
    k = 5
    ids = rng.permutation(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    grid = build_graph(src, dst, sign=rng.choice([-1, 1], src.size))
    return [path, grid]


def test_gpu_frontier_trees_equal_cpu_on_deep_graphs(gpu_backend):
    """The CPU's two groups of trees (the second partial) against the kernel's trees, which
    do not depend on the batch (one block a tree: a few from each group are enough, the
    simulator runs a block's threads as Python threads); levels from the kernel's depths,
    both methods."""
    from rapids_balance._xp import to_host

    for g in _small_deep_graphs():
        T = BLOCK + 3
        roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=4)
        cpu = bfs_trees(g, roots, seeds)
        pick = np.array([0, 1, BLOCK - 1, BLOCK, T - 1])
        gpu = bfs_trees(g, roots[pick], seeds[pick], backend=gpu_backend)
        for a, b in zip(cpu, gpu):
            assert np.array_equal(a[pick], to_host(b))
        for method in ("path-sign", "cycle"):
            want = balance(g, n_trees=5, seed=5, method=method, progress=False, backend="cpu")
            got = balance(g, n_trees=5, seed=5, method=method, progress=False, backend=gpu_backend)
            for k, v in want.counters.items():
                assert np.array_equal(v, to_host(got.counters[k])), k


def _reference_counters(g, roots, seeds):
    """Balance counters (``majority="larger"``) of the trees of ``ref_bfs``, in plain Python.

    Path signs are products of edge signs from the root; side 1 is a negative path sign; the
    majority is the larger side (a tie counts half for both sides).
    """
    from _reference import ref_bfs

    n, m = g.n, g.m
    adj = {v: g.indices[g.indptr[v]:g.indptr[v + 1]].tolist() for v in range(n)}
    edge = {}
    for e, (a, b) in enumerate(zip(g.edge_src.tolist(), g.edge_dst.tolist())):
        edge[a, b] = edge[b, a] = e
    sign = g.sign.tolist()
    out = {k: np.zeros(m, np.int64) for k in ("in_tree", "negative", "switched", "agree2")}
    out.update({k: np.zeros(n, np.int64) for k in ("status2", "clean")})
    ties = 0
    for r, s in zip(roots.tolist(), seeds.tolist()):
        parent, depth = ref_bfs(adj, int(r), int(s))
        side = {}
        for v in sorted(depth, key=depth.get):  # parents first
            side[v] = 0 if parent[v] < 0 else side[parent[v]] ^ (sign[edge[v, parent[v]]] < 0)
            if parent[v] >= 0:
                out["in_tree"][edge[v, parent[v]]] += 1
        ones = sum(side.values())
        maj = 1 if ones > n - ones else (0 if ones < n - ones else None)
        ties += maj is None
        for v in range(n):
            out["status2"][v] += 1 if maj is None else 2 * (side[v] == maj)
            out["clean"][v] += all(side[w] == side[v] for w in adj[v])
        for e in range(m):
            a, b = int(g.edge_src[e]), int(g.edge_dst[e])
            neg = side[a] != side[b]
            out["negative"][e] += neg
            out["switched"][e] += neg != (sign[e] < 0)
            if not neg:
                out["agree2"][e] += 1 if maj is None else 2 * (side[a] == maj)
    out["trees"] = np.array([len(roots)])
    out["ties"] = np.array([ties])
    return out


def test_deep_pass_counters_equal_a_plain_python_bfs(threads):
    """The per-tree queue BFS of deep graphs against the documented rule, written independently:
    a path (deep enough for the BFS-numbered copy), a cycle with a few chords and a grid (made
    to take it), two blocks of trees."""
    from rapids_balance.balancing import _layout, _trees

    rng = np.random.default_rng(9)
    n = 150
    perm = rng.permutation(n)
    path = build_graph(perm[:-1], perm[1:], sign=np.where(rng.random(n - 1) < 0.4, -1, 1))
    s = np.r_[np.arange(n), rng.integers(0, n, 6)]
    d = np.r_[(np.arange(n) + 1) % n, rng.integers(0, n, 6)]
    cycle = build_graph(perm[s], perm[d], sign=np.where(rng.random(s.size) < 0.4, -1, 1))
    k = 9
    ids = rng.permutation(k * k).reshape(k, k)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    grid = build_graph(src, dst, sign=np.where(rng.random(src.size) < 0.4, -1, 1))
    for g, force in ((path, False), (cycle, True), (grid, True)):
        with pytest.MonkeyPatch.context() as mp:
            if force:
                mp.setattr(_layout, "DEEP_LEVELS", 0)
            assert _layout.deep_layout(g, _trees.slot_negative(g)) is not None
            T = BLOCK + 6
            r = balance(g, n_trees=T, seed=12, sampler="bfs-random-root", progress=False,
                        backend="cpu")
        roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=12)
        want = _reference_counters(g, roots, seeds)
        for key, value in want.items():
            assert np.array_equal(r.counters[key], value), key
