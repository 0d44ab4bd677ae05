"""balance(): states, majorities, attributes, batching and backends.

Attributes are checked against a slow per-tree reference built here from
brute-force path signs and networkx components; frustration against an
exhaustive search over bipartitions.
"""

import itertools

import networkx as nx
import numpy as np
import pytest

from rapids_balance.backend import device_array, to_host
from rapids_balance.balancing import BalanceResult, balance
from rapids_balance.balancing._cycle import cycle_balance_into
from rapids_balance.balancing._engine import BalanceParams, _balance_finalize, _balance_partial
from rapids_balance.balancing._trees import bfs_trees
from rapids_balance.balancing._roots import tree_roots
from rapids_balance.errors import GraphInputError, InvalidParameterError
from rapids_balance.graph import build_graph


def random_signed_graph(seed, n, m, p_neg=0.4):
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    return build_graph(s, d, sign=np.where(rng.random(m) < p_neg, -1, 1))


@pytest.fixture(scope="module")
def graphs():
    return [random_signed_graph(k, n, m) for k, (n, m) in enumerate([(9, 20), (14, 40), (25, 70), (40, 90)])]


def run(g, T=12, **kw):
    kw.setdefault("backend", "cpu")
    return balance(g, T, progress=False, **kw)


def tree_states(g, T, seed=0, sampler="bfs"):
    """Per tree (brute force): side (0/1) of each vertex and whether each edge is a tree edge."""
    roots, seeds = tree_roots(g, np.arange(T), sampler=sampler, seed=seed)
    parent, pe, order = bfs_trees(g, roots, seeds)
    for t in range(T):
        side = np.zeros(g.n, np.int8)
        for v in range(g.n):
            s, a = 1, v
            while parent[t, a] >= 0:
                s *= int(g.sign[pe[t, a]])
                a = parent[t, a]
            side[v] = s < 0
        in_tree = np.zeros(g.m, bool)
        in_tree[pe[t][pe[t] >= 0]] = True
        yield side, in_tree, parent[t], pe[t], order[t]


def ref_attributes(g, T, majority, attributes, seed=0):
    """Vertex and edge attributes from explicit per-tree states (independent of the kernels)."""
    status = np.zeros(g.n)
    clean = np.zeros(g.n)
    agree, in_tree_c, neg_c, sw_c = (np.zeros(g.m) for _ in range(4))
    u, v = g.edge_src, g.edge_dst
    for side, in_tree, *_ in tree_states(g, T, seed):
        balanced_neg = side[u] != side[v]
        if majority == "larger":
            ones = side.sum()
            if 2 * ones == g.n:
                delta = np.full(g.n, 0.5)
            else:
                delta = (side == (1 if 2 * ones > g.n else 0)).astype(float)
        else:
            pos = nx.Graph()
            pos.add_nodes_from(range(g.n))
            pos.add_edges_from(zip(u[~balanced_neg].tolist(), v[~balanced_neg].tolist()))
            big = min(nx.connected_components(pos), key=lambda c: (-len(c), min(c)))
            delta = (side == side[min(big)]).astype(float)
        status += delta
        agree += (side[u] == side[v]) * delta[u]
        in_tree_c += in_tree
        neg_c += balanced_neg
        sw_c += balanced_neg != (g.sign < 0)
        bad = np.zeros(g.n, bool)
        bad[u[balanced_neg]] = bad[v[balanced_neg]] = True
        clean += ~bad
    status, agree = status / T, agree / T
    deg = g.degrees()
    inc = lambda x: np.bincount(u, x, g.n) + np.bincount(v, x, g.n)  # noqa: E731
    if attributes == "consensus":
        influence = inc(agree) / deg
        authority = inc((status[u] + status[v]) / 2) / deg
    else:
        influence = inc(agree)
        authority = clean / T
    return dict(status=status, influence=influence, authority=authority, agreement=agree,
                in_tree=in_tree_c / T, negative=neg_c / T, switched=sw_c / T)


@pytest.mark.parametrize("majority", ["larger", "agreeable"])
@pytest.mark.parametrize("attributes", ["consensus", "datalab"])
def test_attributes_match_per_tree_reference(graphs, majority, attributes):
    for g in graphs:
        res = run(g, 12, majority=majority, attributes=attributes, seed=3)
        ref = ref_attributes(g, 12, majority, attributes, seed=3)
        for col in ("status", "influence", "authority"):
            np.testing.assert_allclose(res.vertices[col].to_numpy(), ref[col], rtol=0, atol=1e-12)
        for col in ("agreement", "in_tree", "negative", "switched"):
            np.testing.assert_allclose(res.edges[col].to_numpy(), ref[col], rtol=0, atol=1e-12)
        assert res.vertices["vertex"].tolist() == g.labels.tolist()
        assert res.edges["src"].tolist() == g.labels[g.edge_src].tolist()


def test_cycle_walk_states_equal_path_sign_states(graphs):
    for g in graphs:
        for side, in_tree, parent, pe, order in tree_states(g, 6, seed=1, sampler="bfs-random-root"):
            n, m = g.n, g.m
            bal = np.empty(m, np.int8)
            flips = cycle_balance_into(g.edge_src, g.edge_dst, g.sign, parent, pe, order,
                                       np.empty(n, np.int32), np.empty(n, np.int32),
                                       np.empty(n + 1, np.int32), np.empty(n, np.int32), bal)
            ps = np.where(side == 1, -1, 1)
            assert np.array_equal(bal, ps[g.edge_src] * ps[g.edge_dst])
            assert flips == int((bal != g.sign).sum())


@pytest.mark.parametrize("majority", ["larger", "agreeable"])
def test_methods_give_identical_results(graphs, majority):
    for g in graphs:
        a = run(g, 15, method="path-sign", majority=majority, seed=5)
        b = run(g, 15, method="cycle", majority=majority, seed=5)
        for k in a.counters:
            assert np.array_equal(a.counters[k], b.counters[k]), k


def exact_frustration(g):
    best = g.m
    for bits in itertools.product([0, 1], repeat=g.n - 1):
        side = np.array((0,) + bits)
        best = min(best, int(((side[g.edge_src] != side[g.edge_dst]) != (g.sign < 0)).sum()))
    return best


def test_each_state_is_balanced_and_no_better_than_optimum(graphs):
    for g in graphs[:2]:
        res = run(g, 20)
        per_tree_min = exact_frustration(g)
        assert res.frustration_mean >= per_tree_min
        # every cycle-walk state is balanced: each cycle of a cycle basis is positive
        for side, in_tree, parent, pe, order in tree_states(g, 5):
            bal = np.empty(g.m, np.int8)
            cycle_balance_into(g.edge_src, g.edge_dst, g.sign, parent, pe, order,
                               *(np.empty(k, np.int32) for k in (g.n, g.n, g.n + 1, g.n)), bal)
            sign_of = {frozenset((int(a), int(b))): int(x) for a, b, x in zip(g.edge_src, g.edge_dst, bal)}
            G = nx.Graph([(int(a), int(b)) for a, b in zip(g.edge_src, g.edge_dst)])
            for cyc in nx.cycle_basis(G):
                prod = np.prod([sign_of[frozenset((cyc[i], cyc[i - 1]))] for i in range(len(cyc))])
                assert prod == 1
    # a balanced graph is its own nearest balanced state in every tree
    g = build_graph([0, 1, 2, 0, 3], [1, 2, 3, 2, 4], sign=[1, -1, 1, -1, -1])
    res = run(g, 7)
    assert res.frustration_mean == 0 and (res.edges["switched"] == 0).all()
    np.testing.assert_array_equal(res.edges["negative"], (g.sign < 0).astype(float))


def test_ties_give_one_half():
    g = build_graph([0], [1], sign=[-1])  # sides {0} and {1}
    res = run(g, 4)
    assert res.vertices["status"].tolist() == [0.5, 0.5]
    assert res.edges["agreement"].tolist() == [0.0]
    assert res.tied_trees == 4
    g = build_graph([0, 1, 2, 3], [1, 2, 3, 0], sign=[1, -1, 1, -1])  # {0,1} vs {2,3}
    res = run(g, 4)
    assert res.vertices["status"].tolist() == [0.5] * 4
    # edges sorted: (0,1)+ (0,3)- (1,2)- (2,3)+; same-side edges agree in half of each tie
    assert res.edges[["src", "dst"]].values.tolist() == [[0, 1], [0, 3], [1, 2], [2, 3]]
    assert res.edges["agreement"].tolist() == [0.5, 0.0, 0.0, 0.5]


def test_agreeable_majority_can_be_the_smaller_side():
    # balanced: side A = {a1..a4} with positive edges a1-a2, a3-a4 only; side B = {b1,b2,b3}
    # positively connected; negative edges across.  Larger side: A (4 > 3); largest positive
    # component: B (3 > 2).
    a, b = ["a1", "a2", "a3", "a4"], ["b1", "b2", "b3"]
    rows = [("a1", "a2", 1), ("a3", "a4", 1), ("b1", "b2", 1), ("b2", "b3", 1)]
    rows += [(x, "b1", -1) for x in a] + [("a1", "b3", -1)]
    g = build_graph(*(np.array(c, dtype=object) for c in zip(*rows)))
    larger = run(g, 6, majority="larger").vertices.set_index("vertex")["status"]
    agreeable = run(g, 6, majority="agreeable").vertices.set_index("vertex")["status"]
    assert (larger[a] == 1).all() and (larger[b] == 0).all()
    assert (agreeable[a] == 0).all() and (agreeable[b] == 1).all()


def test_result_independent_of_batches_threads_and_partials(graphs):
    import numba

    g = graphs[2]
    full = run(g, 23, seed=2, majority="agreeable")
    for bs in (1, 5, 64):
        other = run(g, 23, seed=2, majority="agreeable", batch_size=bs)
        assert all(np.array_equal(full.counters[k], other.counters[k]) for k in full.counters)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = run(g, 23, seed=2, majority="agreeable")
    finally:
        numba.set_num_threads(before)
    assert all(np.array_equal(full.counters[k], single.counters[k]) for k in full.counters)
    params = BalanceParams(n_trees=23, seed=2, majority="agreeable")
    parts = [_balance_partial(g, ids, params) for ids in (range(0, 7), range(7, 20), range(20, 23))]
    summed = {k: sum(p[k] for p in parts) for k in parts[0]}
    res = _balance_finalize(g, summed, params)
    assert isinstance(res, BalanceResult)
    assert res.vertices.equals(full.vertices) and res.edges.equals(full.edges)


@pytest.mark.parametrize("majority", ["larger", "agreeable"])
def test_blocks_of_trees_equal_tree_by_tree_counters(graphs, majority):
    """The fused block pass (path signs) gives the counters of the tree-by-tree passes."""
    from rapids_balance.balancing._engine import _blocks_cpu, _trees_cpu
    from rapids_balance.balancing._result import zero_counters
    from rapids_balance.balancing._trees import BLOCK, seed_mix

    T = BLOCK + 13
    params = BalanceParams(n_trees=T, seed=4, majority=majority)
    for g in graphs:
        roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=4)
        roots, s2 = roots.astype(np.int32), seed_mix(seeds)
        a, b = zero_counters(g.n, g.m), zero_counters(g.n, g.m)
        _blocks_cpu(g, roots, s2, params, a)
        _trees_cpu(g, roots, s2, params, b)
        for k in a:
            assert np.array_equal(a[k], b[k]), k


def test_blocks_split_over_threads_give_the_same_counters(graphs):
    """Several blocks per batch: one thread or two, one batch or many, the same integers."""
    import numba

    from rapids_balance.balancing._trees import BLOCK

    g = graphs[3]
    T = 3 * BLOCK + 5
    full = run(g, T, seed=9)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = run(g, T, seed=9)
    finally:
        numba.set_num_threads(before)
    batched = run(g, T, seed=9, batch_size=BLOCK + 1)  # blocks of 65 trees: 64 + a tail of 1
    for other in (single, batched):
        assert all(np.array_equal(full.counters[k], other.counters[k]) for k in full.counters)


def test_block_path_rejects_a_disconnected_graph():
    g = build_graph([0, 1, 3], [1, 2, 4], sign=[1, -1, 1], component="all")
    with pytest.raises(GraphInputError, match="not connected"):
        run(g, 20)


def test_graphbplus_file_layout(tmp_path):
    g = build_graph([10, 10, 20, 30], [20, 30, 30, 40], sign=[1, -1, -1, 1])
    res = run(g, 3, majority="agreeable")
    path = tmp_path / "out.csv"
    res.write_graphbplus(path)
    lines = path.read_bytes().decode().split("\n")
    assert lines[0] == "original node ID, percentage node was in agreeable majority"
    assert lines[g.n + 1] == ("source node ID, destination node ID, percentage edge was in tree, "
                              "percentage edge was negative")
    assert lines[-1] == "" and len(lines) == g.n + g.m + 3
    assert lines[1].split(",")[0] == "10" and all(len(x.split(",")) == 2 for x in lines[1:g.n + 1])
    for row in lines[g.n + 2:-1]:
        fields = row.split(",")
        assert len(fields) == 4 and all(len(f.split(".")[1]) == 1 for f in fields[2:])
    assert b"\r" not in path.read_bytes()


def test_bad_input_is_rejected():
    g = build_graph([0, 1], [1, 2], sign=[1, -1])
    with pytest.raises(ValueError, match="n_trees"):
        run(g, 0)
    with pytest.raises(ValueError, match="method"):
        run(g, method="spanning")
    with pytest.raises(ValueError, match="majority"):
        run(g, majority="smaller")
    with pytest.raises(ValueError, match="attributes"):
        run(g, attributes="other")
    with pytest.raises(InvalidParameterError, match="'roots'.*vertex 99 is not in the graph"):
        run(g, roots=[99])
    unsigned = build_graph([0, 1], [1, 2])
    with pytest.raises(GraphInputError, match="signed"):
        run(unsigned)
    split = build_graph([0, 2], [1, 3], sign=[1, -1], component="all")
    with pytest.raises(GraphInputError, match="not connected"):
        run(split)


@pytest.mark.parametrize("method", ["path-sign", "cycle"])
def test_gpu_backend_equals_cpu(gpu_backend, method):
    g = random_signed_graph(7, 10, 22)
    for majority in ("larger", "agreeable"):
        cpu = run(g, 4, method=method, majority=majority, seed=4)
        gpu = balance(g, 4, method=method, majority=majority, seed=4, backend=gpu_backend, progress=False)
        for k in cpu.counters:
            assert np.array_equal(cpu.counters[k], gpu.counters[k]), (majority, k)


def test_dataframe_and_networkx_inputs_equal_signed_graph():
    import pandas as pd

    df = pd.DataFrame({"source": [1, 2, 3, 1, 4], "target": [2, 3, 4, 3, 1], "sign": [1, -1, 1, -1, -1]})
    g = build_graph(df["source"].values, df["target"].values, sign=df["sign"].values)
    want = run(g, 6, seed=1)
    got = run(df, 6, seed=1)
    assert got.vertices.equals(want.vertices) and got.edges.equals(want.edges)
    G = nx.Graph()
    G.add_edges_from((int(a), int(b), {"sign": int(s)}) for a, b, s in df.itertuples(index=False))
    got = run(G, 6, seed=1)
    assert got.vertices.sort_values("vertex").reset_index(drop=True)[["status"]].equals(
        want.vertices.sort_values("vertex").reset_index(drop=True)[["status"]])


def test_package_name_stays_callable():
    import rapids_balance as rb
    import rapids_balance.balancing._trees  # noqa: F401  (binds rb.balance to the package)

    g = build_graph([0, 1], [1, 2], sign=[1, -1])
    assert isinstance(rb.balance(g, 2, progress=False, backend="cpu"), BalanceResult)


def test_gpu_cycle_walks_on_deep_trees(gpu_backend):
    # a 16-cycle with chords: BFS trees are deep, so the label and walk kernels take long paths
    from rapids_balance.balancing import _gpu

    n = 16
    src = list(range(n)) + [0, 3, 5]
    dst = [(i + 1) % n for i in range(n)] + [8, 12, 14]
    sign = [(-1) ** (i % 3 == 0) for i in range(len(src))]
    g = build_graph(src, dst, sign=sign)
    roots, seeds = tree_roots(g, np.arange(4), sampler="bfs-random-root", seed=8)
    parent, pe, order = bfs_trees(g, roots, seeds)
    bal = to_host(_gpu.cycle_balance_gpu(g, g.device_arrays(), device_array(parent), device_array(pe)))
    for t in range(4):
        want = np.empty(g.m, np.int8)
        cycle_balance_into(g.edge_src, g.edge_dst, g.sign, parent[t], pe[t], order[t],
                           *(np.empty(k, np.int32) for k in (n, n, n + 1, n)), want)
        assert np.array_equal(bal[t], want)


def preorder_reference(parent):
    """Recursive pre-order of one tree, children by id: labels, subtree sizes, children."""
    n = parent.size
    children = [[] for _ in range(n)]
    for v in range(n):  # increasing v: children lists come out in id order
        if parent[v] >= 0:
            children[parent[v]].append(v)
    label, size = np.full(n, -1), np.zeros(n, int)
    nxt = 0

    def visit(v):
        nonlocal nxt
        label[v] = nxt
        nxt += 1
        size[v] = 1 + sum(visit(c) for c in children[v])
        return size[v]

    visit(int(np.flatnonzero(parent < 0)[0]))
    return label, size, children


def test_gpu_level_by_level_labels_are_the_preorder_ranges(gpu_backend):
    # graphB+ Alg. 4 on the GPU (bottom-up sizes, top-down ids, one launch per
    # level of the whole batch) against a recursive pre-order traversal
    from rapids_balance.balancing import _gpu
    from rapids_balance.balancing._cycle import tree_labels_into
    from rapids_balance.balancing._trees import seed_mix

    g = random_signed_graph(3, 18, 40)
    T = 3
    roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=2)
    parent, _, order = bfs_trees(g, roots, seeds)
    d = g.device_arrays()
    got_bfs = _gpu.bfs_trees_gpu(g, roots, seed_mix(seeds), with_levels=True)
    levels_bfs = got_bfs[3]
    levels_jump = _gpu.tree_levels_gpu(device_array(parent))
    # the BFS frontiers are the tree levels
    assert len(levels_bfs) == len(levels_jump) >= 3
    for (ta, va), (tb, vb) in zip(levels_bfs, levels_jump):
        assert np.array_equal(to_host(ta), to_host(tb)) and np.array_equal(to_host(va), to_host(vb))
    size, label, child_ptr, child_list = (to_host(a) for a in
                                          _gpu.tree_labels_gpu(d, device_array(parent), levels_bfs))
    n = g.n
    assert np.array_equal(to_host(got_bfs[0]), parent)
    for t in range(T):
        ref_label, ref_size, children = preorder_reference(parent[t])
        assert np.array_equal(label[t], ref_label) and np.array_equal(size[t], ref_size)
        for v in range(n):
            assert child_list[t, child_ptr[t, v]:child_ptr[t, v + 1]].tolist() == children[v]
            # the tree-edge range of (parent(v), v) holds exactly v's descendants
            desc = set()
            for x in range(n):
                a = x
                while a >= 0 and a != v:
                    a = parent[t, a]
                if a == v:
                    desc.add(x)
            in_range = (label[t] >= label[t, v]) & (label[t] < label[t, v] + size[t, v])
            assert set(np.flatnonzero(in_range).tolist()) == desc
        # the CPU path computes the same integers
        cs, cl, cp, cc = (np.empty(k, np.int32) for k in (n, n, n + 1, n))
        tree_labels_into(parent[t], order[t], cs, cl, cp, cc)
        assert np.array_equal(cs, size[t]) and np.array_equal(cl, label[t])


@pytest.mark.parametrize("group", [1, 2, 3, 64])
def test_gpu_bfs_trees_are_the_cpus_whatever_the_trees_per_block(gpu_backend, group):
    # a block may build one tree or up to 64 (one bit each of a word): the trees are the CPU's
    from rapids_balance.balancing import _gpu
    from rapids_balance.balancing._trees import seed_mix

    g = random_signed_graph(5, 24, 60)
    T = 5
    roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=3)
    parent, pe, order = bfs_trees(g, roots, seeds)
    got = _gpu.bfs_trees_gpu(g, roots, seed_mix(seeds), with_ps=True, group=group)
    assert np.array_equal(to_host(got[0]), parent) and np.array_equal(to_host(got[1]), pe)
    assert np.array_equal(to_host(got[2]), order)
    ps = to_host(got[3])
    for t in range(T):  # path signs: the product of signs along the tree path
        for v in order[t][1:]:
            assert ps[t, v] == ps[t, parent[t, v]] * g.sign[pe[t, v]]


@pytest.mark.parametrize("split", [2, 3, 7])
def test_gpu_bfs_trees_are_the_cpus_with_a_tree_over_several_blocks(gpu_backend, split):
    # each tree's frontier over `split` blocks, a level two launches: the trees, their depths
    # (the order) and path signs are the CPU's, and so are the levels graphB+ labels by
    from rapids_balance.balancing import _gpu
    from rapids_balance.balancing._trees import seed_mix

    g = random_signed_graph(8, 40, 110)
    T = 4
    roots, seeds = tree_roots(g, np.arange(T), sampler="bfs-random-root", seed=5)
    parent, pe, order = bfs_trees(g, roots, seeds)
    got = _gpu.bfs_trees_gpu(g, roots, seed_mix(seeds), with_ps=True, with_levels=True, split=split)
    assert np.array_equal(to_host(got[0]), parent) and np.array_equal(to_host(got[1]), pe)
    assert np.array_equal(to_host(got[2]), order)
    grouped = _gpu.bfs_trees_gpu(g, roots, seed_mix(seeds), with_ps=True, with_levels=True, group=1)
    assert np.array_equal(to_host(got[3]), to_host(grouped[3]))  # path signs
    assert len(got[4]) == len(grouped[4])
    for (ta, va), (tb, vb) in zip(got[4], grouped[4]):
        assert np.array_equal(to_host(ta), to_host(tb)) and np.array_equal(to_host(va), to_host(vb))


def test_gpu_bfs_split_names_an_unconnected_graph(gpu_backend):
    from rapids_balance.balancing import _gpu
    from rapids_balance.balancing._trees import seed_mix
    from rapids_balance.errors import GraphInputError

    g = build_graph([0, 1, 3], [1, 2, 4], sign=[1, -1, 1], component="all")  # {0, 1, 2}, {3, 4}
    with pytest.raises(GraphInputError, match="not connected"):
        _gpu.bfs_trees_gpu(g, np.array([0, 1]), seed_mix([0, 1]), split=2)


def test_gpu_balance_is_the_cpus_when_trees_are_split(gpu_backend, monkeypatch):
    # balance through the split BFS (as a batch too small for the device runs it): every counter
    # equals the CPU path's, for both methods
    from rapids_balance.balancing import _gpu_split

    monkeypatch.setattr(_gpu_split, "blocks_per_tree", lambda *a, **kw: 3)
    g = random_signed_graph(12, 30, 80)
    for method in ("path-sign", "cycle"):
        cpu = run(g, 5, method=method, seed=2)
        gpu = balance(g, 5, method=method, seed=2, backend=gpu_backend, progress=False)
        for k in cpu.counters:
            assert np.array_equal(cpu.counters[k], gpu.counters[k]), (method, k)


def test_gpu_cycle_states_equal_path_sign_states(gpu_backend):
    # for the same trees, the GPU cycle walks give ECL-SGB's ps(u) * ps(w) on every edge,
    # and the same seed gives the same state again
    from rapids_balance.balancing import _gpu
    from rapids_balance.balancing._trees import seed_mix

    g = random_signed_graph(11, 20, 48)
    roots, seeds = tree_roots(g, np.arange(5), sampler="bfs-random-root", seed=6)
    parent, pe, _, ps, levels = _gpu.bfs_trees_gpu(g, roots, seed_mix(seeds), with_order=False,
                                                   with_ps=True, with_levels=True)
    bal = to_host(_gpu.cycle_balance_gpu(g, g.device_arrays(), parent, pe, levels))
    ps = to_host(ps)
    assert np.array_equal(bal, ps[:, g.edge_src] * ps[:, g.edge_dst])
    assert (bal != g.sign).any()  # some cycles were negative and got their edge switched
    tree = np.zeros(bal.shape, bool)
    for t in range(5):
        tree[t, to_host(pe)[t][to_host(pe)[t] >= 0]] = True
    assert np.array_equal(bal[tree], np.broadcast_to(g.sign, bal.shape)[tree])
    again = to_host(_gpu.cycle_balance_gpu(g, g.device_arrays(), parent, pe))
    assert np.array_equal(again, bal)


def test_gpu_unbalanced_cycle_state_is_reported(gpu_backend, monkeypatch):
    # the GPU path checks the walked state against the Harary sides, as the CPU path does
    from rapids_balance.balancing import _gpu

    real = _gpu.cycle_balance_gpu

    def broken(*args):
        bal = real(*args)
        bal[:, 0] = -bal[:, 0]
        return bal

    monkeypatch.setattr(_gpu, "cycle_balance_gpu", broken)
    g = random_signed_graph(7, 10, 22)
    with pytest.raises(RuntimeError, match="not balanced"):
        balance(g, 2, method="cycle", backend=gpu_backend, progress=False)


def test_gpu_backend_writes_the_same_graphbplus_file_on_highland(gpu_backend):
    from rapids_balance.balancing import graphbplus_roots
    from rapids_balance.datasets import load_example

    g = load_example("highland", numbering="graphbplus")
    kw = dict(roots=graphbplus_roots(g, 3), seed=17, majority="agreeable", progress=False)
    cpu = balance(g, 3, backend="cpu", **kw)
    gpu = balance(g, 3, backend=gpu_backend, **kw)
    assert gpu.graphbplus_text() == cpu.graphbplus_text()
    assert gpu.vertices.equals(cpu.vertices) and gpu.edges.equals(cpu.edges)


def test_pickled_result_sends_its_edge_counters_once():
    # a result sent from a Dask worker carries the edge counters in the edge table's columns
    # they were written over, not a second time as int64 arrays; unpickled, they read the same
    import pickle

    import pandas as pd

    import rapids_balance as rb

    g = rb.load_example("slashdot-1000")
    kw = dict(n_trees=20, seed=3, backend="cpu", progress=False)
    read = balance(g, **kw)
    want = {k: np.array(read.counters[k]) for k in read.counters}  # every counter recovered
    fresh = balance(g, **kw)
    data = pickle.dumps(fresh)
    edge_counters = sum(want[k].nbytes for k in ("in_tree", "negative", "switched", "agree2"))
    assert len(data) < len(pickle.dumps(read)) - edge_counters / 2
    back = pickle.loads(data)
    for k in want:
        assert np.array_equal(back.counters[k], want[k]), k
    pd.testing.assert_frame_equal(back.edges, read.edges, check_exact=True)
