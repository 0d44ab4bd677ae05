"""Weighted betweenness centrality against networkx (exact, sampled, GPU simulator)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from rapids_balance import GraphInputError, SignedGraph
from rapids_balance.centrality import betweenness_centrality, edge_betweenness_centrality
from rapids_balance.centrality import betweenness as bmod
from rapids_balance.centrality._input import BCGraph, coerce_input
from rapids_balance.graph import build_graph

RTOL = 1e-9


def _random_graph(n, m, seed, directed=False, wmax=3, isolated=0):
    """gnm graph with small integer weights (many equal-length paths)."""
    G = nx.gnm_random_graph(n, m, seed=seed, directed=directed)
    G.add_nodes_from(range(n, n + isolated))
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["weight"] = int(rng.integers(1, wmax + 1))
    return G


def _close(ours: dict, ref: dict):
    assert set(ours) == set(ref)
    keys = list(ref)
    a = np.array([ours[k] for k in keys])
    b = np.array([ref[k] for k in keys])
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-12)


def _node_dict(df):
    return dict(zip(df["vertex"].tolist(), df["betweenness_centrality"].tolist()))


def _edge_dict(df, directed):
    out = {}
    for s, d, b in df.itertuples(index=False):
        out[(s, d)] = b
    return out


def _nx_edge(G, **kw):
    ref = nx.edge_betweenness_centrality(G, **kw)
    if G.is_directed():
        return ref
    # undirected: our rows are (smaller id, larger id)
    return {(min(u, v), max(u, v)): b for (u, v), b in ref.items()}


def _nx_sources(G, sources, *, normalized, endpoints, weight="weight", edges=False):
    """networkx's own per-source accumulation and rescaling for a given source set."""
    b = pytest.importorskip("networkx.algorithms.centrality.betweenness")
    bc = dict.fromkeys(G, 0.0)
    if edges:
        bc.update(dict.fromkeys(G.edges(), 0.0))
    for s in sources:
        if weight is None:
            S, P, sigma, _ = b._single_source_shortest_path_basic(G, s)
        else:
            S, P, sigma, _ = b._single_source_dijkstra_path_basic(G, s, weight)
        if edges:
            bc = b._accumulate_edges(bc, S, P, sigma, s)
        elif endpoints:
            bc, _ = b._accumulate_endpoints(bc, S, P, sigma, s)
        else:
            bc, _ = b._accumulate_basic(bc, S, P, sigma, s)
    if edges:
        for v in G:
            del bc[v]
    try:
        return b._rescale(bc, len(G), normalized=normalized, directed=G.is_directed(),
                          endpoints=True if edges else endpoints, sampled_nodes=list(sources))
    except TypeError:
        pytest.skip("networkx older than 3.5 (different _rescale)")


# ---------------------------------------------------------------------------
# exact, CPU
# ---------------------------------------------------------------------------

GRAPHS = [
    # (n, m, seed, directed, wmax, isolated vertices)
    (40, 120, 1, False, 3, 0),
    (40, 120, 2, True, 3, 0),
    (35, 30, 3, False, 2, 2),   # disconnected, isolated vertices
    (35, 45, 4, True, 2, 1),    # directed, not strongly connected
    (30, 200, 5, False, 1, 0),  # dense, unit weights: maximal ties
]


@pytest.mark.parametrize("n,m,seed,directed,wmax,iso", GRAPHS)
@pytest.mark.parametrize("normalized,endpoints", list(itertools.product([True, False], [False, True])))
def test_node_exact_matches_networkx(n, m, seed, directed, wmax, iso, normalized, endpoints):
    G = _random_graph(n, m, seed, directed, wmax, iso)
    ours = betweenness_centrality(G, normalized=normalized, endpoints=endpoints, weight="weight", backend="cpu")
    ref = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints, weight="weight")
    _close(_node_dict(ours), ref)


@pytest.mark.parametrize("n,m,seed,directed,wmax,iso", GRAPHS)
@pytest.mark.parametrize("normalized", [True, False])
def test_edge_exact_matches_networkx(n, m, seed, directed, wmax, iso, normalized):
    G = _random_graph(n, m, seed, directed, wmax, iso)
    ours = edge_betweenness_centrality(G, normalized=normalized, weight="weight", backend="cpu")
    _close(_edge_dict(ours, directed), _nx_edge(G, normalized=normalized, weight="weight"))


@pytest.mark.parametrize("directed", [False, True])
def test_unweighted_is_bfs_betweenness(directed):
    G = _random_graph(45, 110, 11, directed)
    ours = betweenness_centrality(G, weight=None, backend="cpu")
    _close(_node_dict(ours), nx.betweenness_centrality(G))  # networkx: BFS, weights ignored
    e = edge_betweenness_centrality(G, weight=None, normalized=False, backend="cpu")
    _close(_edge_dict(e, directed), _nx_edge(G, normalized=False))


@pytest.mark.parametrize("directed", [False, True])
def test_fractional_lengths_use_heap_and_tie_exactly(directed):
    # dyadic lengths add exactly, so ties are exact; not integers -> binary heap
    G = _random_graph(40, 110, 21, directed)
    rng = np.random.default_rng(3)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.choice([0.5, 1.0, 1.5, 0.25]))
    g, lengths = coerce_input(G, "weight", None, for_edges=True)
    assert BCGraph.from_graph(g, lengths).nbuckets == 0
    ours = betweenness_centrality(G, weight="weight", backend="cpu")
    _close(_node_dict(ours), nx.betweenness_centrality(G, weight="weight"))
    e = edge_betweenness_centrality(G, weight="weight", backend="cpu")
    _close(_edge_dict(e, directed), _nx_edge(G, weight="weight"))


def test_heap_and_buckets_agree():
    G = _random_graph(50, 160, 8, False, wmax=7)
    g, lengths = coerce_input(G, "weight", None, for_edges=True)
    bg = BCGraph.from_graph(g, lengths)
    assert bg.nbuckets == 8
    src = np.arange(bg.n)
    base = {"backend": "cpu", "endpoints": False, "edges": True, "chunk": 8}
    n1, e1 = bmod._bc_partial(bg, src, {**base, "nbuckets": 0})
    n2, e2 = bmod._bc_partial(bg, src, base)
    np.testing.assert_allclose(n1, n2, rtol=1e-13)
    np.testing.assert_allclose(e1, e2, rtol=1e-13)


def test_path_counts_beyond_int64():
    # 70 diamonds in series: 2**70 shortest paths end to end
    G = nx.Graph()
    for i in range(70):
        a, b, c, d = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        G.add_edge(a, b, weight=1)
        G.add_edge(a, c, weight=1)
        G.add_edge(b, d, weight=1)
        G.add_edge(c, d, weight=1)
    ours = betweenness_centrality(G, weight="weight", backend="cpu", normalized=False)
    _close(_node_dict(ours), nx.betweenness_centrality(G, weight="weight", normalized=False))


def test_hand_computed_path():
    # path 0-1-2-3 plus a long chord 0-3 (length 5): the path is shorter
    df = pd.DataFrame({"src": [0, 1, 2, 0], "dst": [1, 2, 3, 3], "weight": [1.0, 1.0, 1.0, 5.0]})
    r = betweenness_centrality(df, normalized=False, weight="weight", backend="cpu")
    # 1 lies on 0-2 and 0-3; 2 on 1-3 and 0-3 (unordered pairs)
    assert r["betweenness_centrality"].tolist() == [0.0, 2.0, 2.0, 0.0]
    e = edge_betweenness_centrality(df, normalized=False, weight="weight", backend="cpu")
    got = {(s, d): b for s, d, b in e.itertuples(index=False)}
    assert got == {(0, 1): 3.0, (1, 2): 4.0, (2, 3): 3.0, (0, 3): 0.0}


# ---------------------------------------------------------------------------
# sampled sources
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("normalized,endpoints", [(True, False), (False, False), (True, True), (False, True)])
def test_sampled_matches_networkx_for_same_sources(directed, normalized, endpoints):
    G = _random_graph(40, 110, 31, directed, isolated=1)
    sources = [3, 7, 8, 20, 33, 40]
    ours = betweenness_centrality(G, k=sources, normalized=normalized, endpoints=endpoints, weight="weight", backend="cpu")
    ref = _nx_sources(G, sources, normalized=normalized, endpoints=endpoints)
    _close(_node_dict(ours), ref)


@pytest.mark.parametrize("directed", [False, True])
def test_sampled_edges_match_networkx_for_same_sources(directed):
    G = _random_graph(40, 110, 32, directed)
    sources = [0, 5, 9, 17]
    ours = edge_betweenness_centrality(G, k=sources, weight="weight", backend="cpu")
    ref = _nx_sources(G, sources, normalized=True, endpoints=True, edges=True)
    if not directed:
        ref = {(min(u, v), max(u, v)): b for (u, v), b in ref.items()}
    _close(_edge_dict(ours, directed), ref)


def test_seeded_sampling_is_reproducible_and_equals_explicit_sources():
    G = _random_graph(60, 150, 41)
    g, _ = coerce_input(G, "weight", None, for_edges=False)
    src1, sampled = bmod._sources(g, 10, 123)
    src2, _ = bmod._sources(g, 10, 123)
    src3, _ = bmod._sources(g, 10, 124)
    assert sampled and np.array_equal(src1, src2) and not np.array_equal(src1, src3)
    assert np.unique(src1).size == 10 and src1.min() >= 0 and src1.max() < 60
    a = betweenness_centrality(G, k=10, seed=123, weight="weight", backend="cpu")
    b = betweenness_centrality(G, k=g.labels[src1].tolist(), weight="weight", backend="cpu")
    assert a.equals(b)
    _close(_node_dict(a), _nx_sources(G, g.labels[src1].tolist(), normalized=True, endpoints=False))


def test_sampling_covers_vertices_uniformly():
    # each vertex is a source with probability k/n
    g = build_graph(np.arange(19), np.arange(1, 20))
    hits = np.zeros(20)
    for seed in range(400):
        src, _ = bmod._sources(g, 5, seed)
        hits[src] += 1
    assert abs(hits.mean() - 100) < 1e-9 and hits.min() > 60 and hits.max() < 140


def test_k_equal_n_is_exact_and_bad_k_raises():
    G = _random_graph(20, 40, 51)
    exact = betweenness_centrality(G, weight="weight", backend="cpu")
    full = betweenness_centrality(G, k=20, seed=1, weight="weight", backend="cpu")
    _close(_node_dict(full), _node_dict(exact))
    with pytest.raises(ValueError, match=r"'k' parameter .* range \[1, 20\] \(the number of vertices\)"):
        betweenness_centrality(G, k=21, weight="weight", backend="cpu")
    with pytest.raises(ValueError, match="'k' parameter .* int >= 1"):
        betweenness_centrality(G, k=0, weight="weight", backend="cpu")
    with pytest.raises(ValueError, match="'k' parameter .*vertex 99 is not in the graph"):
        betweenness_centrality(G, k=[1, 99], weight="weight", backend="cpu")
    with pytest.raises(ValueError, match="'k' parameter .* int >= 1"):
        betweenness_centrality(G, k=2.5, weight="weight", backend="cpu")


# ---------------------------------------------------------------------------
# inputs and lengths
# ---------------------------------------------------------------------------

def test_input_types_agree():
    G = _random_graph(30, 70, 61)
    ref = nx.betweenness_centrality(G, weight="weight")
    rows = [(u, v, d["weight"]) for u, v, d in G.edges(data=True)]
    df = pd.DataFrame(rows, columns=["source", "target", "weight"])
    g = build_graph(df["source"], df["target"], weight=df["weight"], component="all")
    for obj in (G, df, g):
        _close(_node_dict(betweenness_centrality(obj, weight="weight", backend="cpu")), {v: ref[v] for v in g.labels})
    # weights as an array in edge order and as a callable on the edges frame
    arr = betweenness_centrality(g, weight=np.asarray(g.weight) * 2, backend="cpu")
    fun = betweenness_centrality(g, weight=lambda e: e["weight"] * 2, backend="cpu")
    _close(_node_dict(arr), {v: ref[v] for v in g.labels})
    assert arr.equals(fun)


def test_arrow_polars_and_empty_inputs():
    ref = [0.0, 2 / 3, 2 / 3, 0.0]
    pa = pytest.importorskip("pyarrow")
    t = pa.table({"source": [0, 1, 2], "target": [1, 2, 3], "weight": [1.0, 2.0, 1.0]})
    assert betweenness_centrality(t, weight="weight", backend="cpu")["betweenness_centrality"].tolist() == pytest.approx(ref)
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    assert betweenness_centrality(df, weight="weight", backend="cpu")["betweenness_centrality"].tolist() == pytest.approx(ref)
    r = betweenness_centrality(nx.empty_graph(3), backend="cpu")
    assert r["betweenness_centrality"].tolist() == [0.0, 0.0, 0.0]
    assert len(edge_betweenness_centrality(nx.empty_graph(3), backend="cpu")) == 0


def test_networkx_callable_weight_hides_edges():
    G = _random_graph(25, 60, 62)

    def wf(u, v, d):
        return None if (u + v) % 7 == 0 else d["weight"] + 0.5

    ours = betweenness_centrality(G, weight=wf, backend="cpu")
    # networkx's betweenness cannot hide edges itself: remove them for the reference
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_weighted_edges_from((u, v, wf(u, v, d)) for u, v, d in G.edges(data=True) if wf(u, v, d) is not None)
    _close(_node_dict(ours), nx.betweenness_centrality(H, weight="weight"))


def test_networkx_labels_and_missing_weights():
    G = nx.Graph()
    G.add_edge("a", "b", weight=2)
    G.add_edge("b", "c")  # missing weight: length 1, as networkx
    G.add_edge("c", "a", weight=3)
    G.add_edge("c", "d", length=7)
    G.add_node("lonely")
    r = betweenness_centrality(G, weight="weight", backend="cpu")
    assert r["vertex"].tolist() == ["a", "b", "c", "d", "lonely"]
    _close(_node_dict(r), nx.betweenness_centrality(G, weight="weight"))
    r2 = betweenness_centrality(G, weight="length", backend="cpu")
    _close(_node_dict(r2), nx.betweenness_centrality(G, weight="length"))


@pytest.mark.parametrize("bad,word", [(0.0, "zero"), (-1.0, "negative"), (np.nan, "NaN"), (np.inf, "infinite")])
def test_bad_lengths_raise(bad, word):
    df = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "weight": [1.0, bad, 2.0]})
    with pytest.raises(GraphInputError, match=word):
        betweenness_centrality(df, weight="weight", backend="cpu")
    G = nx.Graph([(0, 1, {"weight": 1.0}), (1, 2, {"weight": bad})])
    with pytest.raises(GraphInputError, match=word):
        edge_betweenness_centrality(G, weight="weight", backend="cpu")


def test_signed_graph_needs_an_explicit_length_rule():
    sg = build_graph([0, 1, 2, 0], [1, 2, 3, 3], sign=[1, -1, 1, -1], component="all")
    assert isinstance(sg, SignedGraph)
    with pytest.raises(GraphInputError, match="signs but no edge lengths"):
        betweenness_centrality(sg, weight="weight", backend="cpu")
    G = nx.cycle_graph(4)
    ref = nx.betweenness_centrality(G)
    for w in (None, "abs"):
        _close(_node_dict(betweenness_centrality(sg, weight=w, backend="cpu")), ref)
    # a callable can use the signs: negative edges twice as long
    r = betweenness_centrality(sg, weight=lambda e: np.where(e["sign"] > 0, 1.0, 2.0), backend="cpu")
    H = nx.Graph()
    for u, v, s in zip([0, 1, 2, 0], [1, 2, 3, 3], [1, -1, 1, -1]):
        H.add_edge(u, v, weight=1.0 if s > 0 else 2.0)
    _close(_node_dict(r), nx.betweenness_centrality(H, weight="weight"))
    # signed values used directly as lengths are refused
    with pytest.raises(GraphInputError, match="negative"):
        betweenness_centrality(sg, weight=np.array([1.0, -1.0, 1.0, -1.0]), backend="cpu")


def test_abs_of_rating_column():
    df = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0], "rating": [-3, 1, 2, -1]})
    r = betweenness_centrality(df, weight="abs", normalized=False, backend="cpu")
    H = nx.Graph()
    H.add_weighted_edges_from([(0, 1, 3), (1, 2, 1), (2, 3, 2), (3, 0, 1)])
    _close(_node_dict(r), nx.betweenness_centrality(H, weight="weight", normalized=False))
    with pytest.raises(GraphInputError, match="negative"):
        betweenness_centrality(df, weight="rating", backend="cpu")


def test_edge_list_columns_are_found_like_read_edgelist():
    # graphB-style headers that read_edgelist recognises work here too, in any column order
    df = pd.DataFrame({"Vote": [3, 1, 2, 1], "Voter ID": [0, 1, 2, 3], "Nominee ID": [1, 2, 3, 0]})
    r = betweenness_centrality(df, weight="abs", normalized=False, backend="cpu")
    H = nx.Graph()
    H.add_weighted_edges_from([(0, 1, 3), (1, 2, 1), (2, 3, 2), (3, 0, 1)])
    _close(_node_dict(r), nx.betweenness_centrality(H, weight="weight", normalized=False))


def test_directed_argument_checks():
    G = _random_graph(10, 20, 71)
    with pytest.raises(GraphInputError, match="directed"):
        betweenness_centrality(G, directed=True, weight="weight", backend="cpu")
    D = _random_graph(25, 70, 72, directed=True)
    rows = [(u, v, d["weight"]) for u, v, d in D.edges(data=True)]
    df = pd.DataFrame(rows, columns=["src", "dst", "weight"])
    r = betweenness_centrality(df, directed=True, weight="weight", backend="cpu")
    ref = nx.betweenness_centrality(D, weight="weight")
    _close(_node_dict(r), {v: ref[v] for v in r["vertex"]})


def test_multigraph_uses_shortest_parallel_edge():
    M = nx.MultiGraph()
    M.add_edge(0, 1, weight=5)
    M.add_edge(0, 1, weight=1)
    M.add_edge(1, 2, weight=1)
    M.add_edge(0, 2, weight=3)
    _close(_node_dict(betweenness_centrality(M, weight="weight", backend="cpu")),
           nx.betweenness_centrality(M, weight="weight"))
    with pytest.raises(GraphInputError, match="multigraph"):
        edge_betweenness_centrality(M, weight="weight", backend="cpu")


# ---------------------------------------------------------------------------
# determinism and scale-out
# ---------------------------------------------------------------------------

def test_bit_identical_for_any_thread_count():
    import numba

    G = _random_graph(80, 300, 81, wmax=10)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = edge_betweenness_centrality(G, weight="weight", backend="cpu")
        an = betweenness_centrality(G, weight="weight", backend="cpu")
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        b = edge_betweenness_centrality(G, weight="weight", backend="cpu")
        bn = betweenness_centrality(G, weight="weight", backend="cpu")
    finally:
        numba.set_num_threads(before)
    assert a.equals(b) and an.equals(bn)


def test_batches_change_only_the_rounding(monkeypatch):
    # batches are the leaves of the reduction tree, fixed by the data (never by threads or
    # workers); cutting them differently regroups the float sums, nothing more
    G = _random_graph(70, 200, 91, wmax=5)
    one = betweenness_centrality(G, weight="weight", backend="cpu")
    monkeypatch.setitem(bmod._MAX_ROWS, "cpu", 1)
    many = betweenness_centrality(G, weight="weight", backend="cpu")
    assert np.allclose(many["betweenness_centrality"], one["betweenness_centrality"], rtol=1e-12, atol=0)
    assert many["vertex"].equals(one["vertex"])


def test_dask_client_is_bit_identical_to_local():
    distributed = pytest.importorskip("distributed")
    G = _random_graph(60, 180, 95, wmax=4)
    local = edge_betweenness_centrality(G, weight="weight", backend="cpu")
    local_node = betweenness_centrality(G, k=30, seed=4, endpoints=True, weight="weight", backend="cpu")
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=None) as client:
        remote = edge_betweenness_centrality(G, weight="weight", backend="cpu", client=client)
        remote_node = betweenness_centrality(G, k=30, seed=4, endpoints=True, weight="weight", backend="cpu", client=client)
    assert local.equals(remote) and local_node.equals(remote_node)


# ---------------------------------------------------------------------------
# GPU kernels (numba CUDA simulator in CI; tiny graphs)
# ---------------------------------------------------------------------------

SIM_GRAPHS = [
    (9, 16, 101, False, 2, 0),
    (9, 18, 102, True, 2, 0),
    (10, 7, 103, False, 3, 1),  # disconnected + isolated
]


@pytest.mark.parametrize("n,m,seed,directed,wmax,iso", SIM_GRAPHS)
def test_gpu_kernel_matches_networkx_and_cpu(gpu_backend, n, m, seed, directed, wmax, iso, monkeypatch):
    G = _random_graph(n, m, seed, directed, wmax, iso)
    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    node = betweenness_centrality(G, weight="weight", backend=gpu_backend, endpoints=True)
    _close(_node_dict(node), nx.betweenness_centrality(G, weight="weight", endpoints=True))
    cpu = betweenness_centrality(G, weight="weight", backend="cpu", endpoints=True)
    np.testing.assert_allclose(node["betweenness_centrality"], cpu["betweenness_centrality"], rtol=1e-12)
    edge = edge_betweenness_centrality(G, weight="weight", backend=gpu_backend, normalized=False)
    _close(_edge_dict(edge, directed), _nx_edge(G, weight="weight", normalized=False))


@pytest.mark.parametrize("vw", [1, 2, 8])
def test_gpu_virtual_warp_widths(gpu_backend, vw):
    # width does not change the result beyond rounding; threads = 8 blocks of lanes
    G = _random_graph(8, 14, 111, False, wmax=2)
    g, lengths = coerce_input(G, "weight", None, for_edges=True)
    bg = BCGraph.from_graph(g, lengths)
    src = np.array([0, 3, 5], dtype=np.int64)
    params = {"backend": "gpu", "endpoints": False, "edges": True, "chunk": 2, "vwidth": vw, "threads": 8}
    gn, ge = bmod._bc_partial(bg, src, params)
    cn, ce = bmod._bc_partial(bg, src, {**params, "backend": "cpu"})
    np.testing.assert_allclose(gn, cn, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ge, ce, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("directed", [False, True])
def test_gpu_batch_size_does_not_change_bits(gpu_backend, monkeypatch, directed):
    # the device folds sources one by one into one accumulator: any number of
    # sources per launch adds them in the same sequence
    from rapids_balance.centrality import _gpu

    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    G = _random_graph(9, 16, 121, directed, wmax=3)
    sub = dict(sources=[0, 2, 5, 7], targets=[1, 3, 4, 8], weight="weight", backend=gpu_backend)
    calls = [lambda: edge_betweenness_centrality(G, weight="weight", backend=gpu_backend),
             lambda: betweenness_centrality(G, weight="weight", backend=gpu_backend, endpoints=True),
             lambda: bmod.edge_betweenness_centrality_subset(G, **sub)]
    whole = [f() for f in calls]
    for size in (1, 3):
        monkeypatch.setattr(_gpu, "MAX_SOURCES", size)
        for f, ref in zip(calls, whole):
            assert f().equals(ref)


@pytest.mark.parametrize("directed", [False, True])
def test_gpu_sources_over_several_blocks_give_the_same_bits(gpu_backend, monkeypatch, directed):
    # large graphs split each source over k blocks, a launch per step of a level
    # (._gpu_split); every sum is the one-block kernel's, so the scores are the same bits
    from rapids_balance import backend
    from rapids_balance.centrality import _gpu_fold, _gpu_split

    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: vw)  # the simulator: few threads
    G = _random_graph(9, 16, 121, directed, wmax=3)
    sub = dict(sources=[0, 2, 5], targets=[1, 3, 4, 8], weight="weight", backend=gpu_backend)
    calls = [lambda: betweenness_centrality(G, weight="weight", backend=gpu_backend, endpoints=True,
                                            k=[1, 6]),
             lambda: bmod.edge_betweenness_centrality_subset(G, **sub)]
    whole = [f() for f in calls]
    reads = backend.launch_counts["host_reads"]
    monkeypatch.setattr(_gpu_fold, "blocks_per_source", lambda *a, **kw: 3)
    for f, ref in zip(calls, whole):
        assert f().equals(ref)
    # the host reads the running record after 4, then 8 more levels, not once a level: with
    # 9 vertices a source ends by level 9, so two reads at most per batch (one batch a call)
    assert _gpu_split.LEVELS_FIRST == 4
    assert 0 < backend.launch_counts["host_reads"] - reads <= 2 * len(calls)


def test_gpu_split_sources_count_levels_like_a_bfs(gpu_backend, monkeypatch):
    # a path from one end: n levels, one vertex each; the split kernels must run every
    # level (past the first chunk of levels) and phase 2 must walk them all back
    from rapids_balance import backend
    from rapids_balance.centrality import _gpu_fold

    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: vw)
    monkeypatch.setattr(_gpu_fold, "blocks_per_source", lambda *a, **kw: 2)
    G = nx.path_graph(7)
    reads = backend.launch_counts["host_reads"]
    r = _node_dict(betweenness_centrality(G, weight=None, backend=gpu_backend, k=[0],
                                          normalized=False))
    assert backend.launch_counts["host_reads"] - reads == 2  # levels 1-4, then 5-12
    # from vertex 0 each inner vertex v lies on the paths to the 6 - v vertices beyond it
    # (the lone source's own score is NaN, networkx's rescaling with one sampled source)
    assert r[6] == 0.0
    assert [r[v] / r[1] for v in range(1, 6)] == [(6 - v) / 5 for v in range(1, 6)]


def test_occupancy_model_fills_an_h100_at_1e8_edges():
    # 10**6 vertices, 10**8 undirected edges (2 * 10**8 CSR slots), edge scores, 80 GiB, 132 SMs
    from rapids_balance.centrality._gpu import (BLOCK_THREADS, REFERENCE_DEVICE, resident_blocks_per_sm,
                                                source_bytes, sources_in_flight)

    n, m = 10**6, 10**8
    batch = sources_in_flight(n, 2 * m, m, *REFERENCE_DEVICE)
    assert batch >= 4 * 132
    assert resident_blocks_per_sm(batch, 132, BLOCK_THREADS) >= 4
    # registers bound residency: 256 threads of 80 registers leave room for 3 blocks
    assert resident_blocks_per_sm(batch, 132, 256) == 3
    assert batch * source_bytes(n) <= REFERENCE_DEVICE[0]
    # 32 bytes a vertex per source (the candidate queues share the dependency row, no level
    # ends): still 4 resident blocks per SM at 3 x 10**6 vertices, where 44 bytes gave 3.2
    big = sources_in_flight(3 * n, 2 * m, m, *REFERENCE_DEVICE)
    assert source_bytes(n) <= 32 * n + 8 and resident_blocks_per_sm(big, 132, BLOCK_THREADS) >= 4
    # the old sizing, an accumulator row of n + m doubles per block in 16 GiB: 20 blocks
    assert 16 * 2**30 // (8 * (n + m) + 44 * n) < 132
    # memory, not a constant, bounds the batch: a quarter of the memory, fewer sources
    assert sources_in_flight(n, 2 * m, m, REFERENCE_DEVICE[0] // 4, 132) < batch
    assert sources_in_flight(10, 20, 10, 2**20, 132) >= 132  # small graphs: capped, not starved


@pytest.mark.parametrize("n", [10**6, 3 * 10**6, 10**7, 24 * 10**6, 10**8])
def test_occupancy_model_fills_an_h100_at_1e8_edges_whatever_the_vertices(n):
    # past about 3.3 x 10**6 vertices memory holds fewer than 4 x 132 sources: each source
    # then gets several blocks, so the launch still keeps 4 or more resident per SM
    from rapids_balance.centrality._gpu import (BLOCK_THREADS, REFERENCE_DEVICE, SPLIT_KERNEL_REGISTERS,
                                                blocks_per_source, resident_blocks_per_sm,
                                                sources_in_flight)

    m = 10**8
    for m_acc in (m, 0):
        fit = sources_in_flight(n, 2 * m, m_acc, *REFERENCE_DEVICE)
        for sources in (fit, max(1, fit // 3)):  # a full launch, and the last, short one
            k = blocks_per_source(n, 2 * m, sources, 132)
            regs = SPLIT_KERNEL_REGISTERS if k > 1 else None
            resident = resident_blocks_per_sm(sources, 132, BLOCK_THREADS,
                                              *(() if regs is None else (regs,)), blocks_each=k)
            assert resident >= 4, (n, m_acc, sources, k)
            assert (k == 1) == (sources >= 4 * 132)
            assert k <= -(-n // BLOCK_THREADS)


def test_few_sources_of_a_small_graph_keep_one_block_each():
    # the split kernels spend four launches a level: only a large graph sends a source there
    from rapids_balance.centrality._gpu import SPLIT_MIN_SLOTS, blocks_per_source

    assert blocks_per_source(1000, 8000, 3, 132) == 1
    assert blocks_per_source(82_168, 1_097_862, 64, 132) == 1       # 64 sources of Slashdot
    assert blocks_per_source(10**6, SPLIT_MIN_SLOTS, 3, 132) == 264  # 6 x 132 / 3
    assert blocks_per_source(10**6, SPLIT_MIN_SLOTS, 4 * 132, 132) == 1
    assert blocks_per_source(200, SPLIT_MIN_SLOTS, 3, 132) == 2      # one per 128 vertices at most


@pytest.mark.parametrize("directed", [False, True])
def test_gpu_lengths_below_the_last_bit_of_a_distance(gpu_backend, monkeypatch, directed):
    # 1e20 + 1 == 1e20: past the first edge every candidate rounds onto the bound, so no
    # level clears it; the kernel must settle as a heap would (least distance, then id),
    # not loop forever, and count only the edges into later-settled vertices
    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    G = (nx.DiGraph if directed else nx.Graph)()
    G.add_weighted_edges_from([(0, 1, 1e20), (1, 2, 1.0), (1, 3, 1.0), (3, 4, 0.5), (2, 4, 2.0),
                               (4, 5, 1e20), (5, 6, 3.0)])
    from rapids_balance.centrality import _gpu_fold

    for fn in (betweenness_centrality, edge_betweenness_centrality):
        gpu = fn(G, weight="weight", backend=gpu_backend)
        cpu = fn(G, weight="weight", backend="cpu")
        pd.testing.assert_frame_equal(gpu, cpu, check_exact=False, rtol=1e-12, atol=1e-15)
    if not directed:
        # the same heap order when each source runs over two blocks (block 0 settles alone)
        one = edge_betweenness_centrality(G, weight="weight", backend=gpu_backend, k=[0, 3])
        monkeypatch.setattr(_gpu_fold, "blocks_per_source", lambda *a, **kw: 2)
        assert edge_betweenness_centrality(G, weight="weight", backend=gpu_backend,
                                           k=[0, 3]).equals(one)
    # the heap order makes 2 -> 4 a shortest-path edge (4 pops after 2) but not 4 -> 2
    if not directed:
        e = edge_betweenness_centrality(G, weight="weight", backend="cpu", normalized=False)
        assert e.set_index(["src", "dst"]).loc[(2, 4)].iloc[0] > 0


def test_gpu_unweighted_levels_are_bfs(gpu_backend, monkeypatch):
    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    G = nx.petersen_graph()
    r = betweenness_centrality(G, weight=None, backend=gpu_backend, k=[0, 4, 7])
    _close(_node_dict(r), _nx_sources(G, [0, 4, 7], normalized=True, endpoints=False, weight=None))


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_real_gpu_matches_cpu_on_a_medium_graph(directed, monkeypatch):
    # default block size and virtual warp width, many blocks in flight
    G = nx.barabasi_albert_graph(3000, 4, seed=7)
    if directed:
        G = nx.DiGraph([(u, v) if (u + v) % 3 else (v, u) for u, v in G.edges])
    rng = np.random.default_rng(7)
    for u, v in G.edges:
        G[u][v]["weight"] = int(rng.integers(1, 11))
    for fn in (betweenness_centrality, edge_betweenness_centrality):
        gpu = fn(G, backend="gpu")
        cpu = fn(G, backend="cpu")
        np.testing.assert_allclose(gpu["betweenness_centrality"], cpu["betweenness_centrality"],
                                   rtol=1e-10, atol=1e-15)
        assert gpu.equals(fn(G, backend="gpu"))  # run to run: bit-identical
    # each source over 4 blocks (the kernels of graphs too large for a block per source)
    from rapids_balance.centrality import _gpu_fold

    whole = [fn(G, backend="gpu", k=64, seed=3) for fn in (betweenness_centrality,
                                                          edge_betweenness_centrality)]
    monkeypatch.setattr(_gpu_fold, "blocks_per_source", lambda *a, **kw: 4)
    for fn, ref in zip((betweenness_centrality, edge_betweenness_centrality), whole):
        assert fn(G, backend="gpu", k=64, seed=3).equals(ref)


def test_virtual_warp_width_rule():
    from rapids_balance.centrality._gpu import virtual_warp_width

    assert virtual_warp_width(1000, 3450) == 4      # rt-higgs-like
    assert virtual_warp_width(1000, 24_330) == 16   # sc-shipsec1-like
    assert virtual_warp_width(1000, 1_108_000) == 32  # gene networks


# ---------------------------------------------------------------------------
# real data (../shared/data), large: run with -m slow
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_bitcoin_abs_rating_matches_networkx_and_igraph(shared_data):
    import rapids_balance as rb

    g = rb.read_edgelist(shared_data / "soc-sign-bitcoinalpha.csv.gz", signed=False, component="all")
    sources = g.labels[::200].tolist()
    ours = betweenness_centrality(g, k=sources, weight="abs", normalized=False, backend="cpu")
    G = nx.Graph()
    G.add_nodes_from(g.labels.tolist())
    for u, v, w in zip(g.labels[g.edge_src].tolist(), g.labels[g.edge_dst].tolist(), g.weight.tolist()):
        G.add_edge(u, v, weight=abs(w))
    _close(_node_dict(ours), _nx_sources(G, sources, normalized=False, endpoints=False))
    ig = pytest.importorskip("igraph")
    H = ig.Graph(n=g.n, edges=np.stack([g.edge_src, g.edge_dst], 1).tolist())
    exact = betweenness_centrality(g, weight="abs", normalized=False, backend="cpu")
    ref = H.betweenness(weights=np.abs(g.weight).tolist(), directed=False)
    np.testing.assert_allclose(exact["betweenness_centrality"], ref, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------
# subsets of sources and targets (networkx's *_subset functions)
# ---------------------------------------------------------------------------

from rapids_balance.centrality import (  # noqa: E402
    betweenness_centrality_subset,
    edge_betweenness_centrality_subset,
)


def _subset_case(seed, directed, n=30, m=80):
    G = _random_graph(n, m, seed, directed, wmax=3, isolated=1)
    rng = np.random.default_rng(seed)
    nodes = np.asarray(list(G))
    return G, rng.choice(nodes, 6, replace=False).tolist(), rng.choice(nodes, 9, replace=False).tolist()


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weight", ["weight", None])
@pytest.mark.parametrize("normalized", [False, True])
def test_subset_matches_networkx(directed, weight, normalized):
    G, src, tgt = _subset_case(11 + directed, directed)
    kw = dict(normalized=normalized, weight=weight)
    ours = betweenness_centrality_subset(G, src, tgt, backend="cpu", progress=False, **kw)
    _close(_node_dict(ours), nx.betweenness_centrality_subset(G, src, tgt, **kw))
    e = edge_betweenness_centrality_subset(G, src, tgt, backend="cpu", progress=False, **kw)
    ref = nx.edge_betweenness_centrality_subset(G, src, tgt, **kw)
    if not directed:
        ref = {(min(u, v), max(u, v)): b for (u, v), b in ref.items()}
    _close(_edge_dict(e, directed), ref)


def test_subset_of_everything_is_the_full_computation():
    G = _random_graph(25, 60, 13, wmax=4)
    nodes = list(G)
    full = betweenness_centrality(G, weight="weight", normalized=False, backend="cpu")
    sub = betweenness_centrality_subset(G, nodes, nodes, weight="weight", backend="cpu")
    np.testing.assert_allclose(sub["betweenness_centrality"], full["betweenness_centrality"], rtol=1e-12)


def test_subset_bad_vertices_raise():
    from rapids_balance import InvalidParameterError

    G = _random_graph(10, 20, 14)
    with pytest.raises(InvalidParameterError, match="'sources' parameter"):
        betweenness_centrality_subset(G, [0, 99], [1], backend="cpu")
    with pytest.raises(InvalidParameterError, match="'targets' parameter"):
        edge_betweenness_centrality_subset(G, [0], [1, 1], backend="cpu")
    with pytest.raises(InvalidParameterError, match="'sources' parameter"):
        betweenness_centrality_subset(G, 3, [1], backend="cpu")


@pytest.mark.parametrize("directed", [False, True])
def test_gpu_subset_matches_networkx(gpu_backend, directed, monkeypatch):
    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    G, src, tgt = _subset_case(21 + directed, directed, n=9, m=16)
    src, tgt = src[:3], tgt[:5]
    ours = betweenness_centrality_subset(G, src, tgt, weight="weight", backend=gpu_backend, progress=False)
    _close(_node_dict(ours), nx.betweenness_centrality_subset(G, src, tgt, weight="weight"))
    e = edge_betweenness_centrality_subset(G, src, tgt, weight="weight", backend=gpu_backend,
                                           progress=False)
    ref = nx.edge_betweenness_centrality_subset(G, src, tgt, weight="weight")
    if not directed:
        ref = {(min(u, v), max(u, v)): b for (u, v), b in ref.items()}
    _close(_edge_dict(e, directed), ref)


# ---------------------------------------------------------------------------
# conventions shared with networkx / cuGraph
# ---------------------------------------------------------------------------

def test_weight_defaults_to_unweighted_as_networkx():
    G = _random_graph(30, 70, 31, wmax=9)
    _close(_node_dict(betweenness_centrality(G, backend="cpu", progress=False)), nx.betweenness_centrality(G))
    _close(_edge_dict(edge_betweenness_centrality(G, backend="cpu", progress=False), False),
           _nx_edge(G))


@pytest.mark.parametrize("make_seed", [lambda: __import__("random").Random(5),
                                       lambda: np.random.default_rng(5),
                                       lambda: np.random.RandomState(5)])
def test_random_state_seeds_draw_networkx_sources(make_seed):
    G = _random_graph(40, 100, 32, wmax=3)
    ours = betweenness_centrality(G, k=8, seed=make_seed(), weight="weight", backend="cpu", progress=False)
    _close(_node_dict(ours), nx.betweenness_centrality(G, k=8, seed=make_seed(), weight="weight"))
    e = edge_betweenness_centrality(G, k=8, seed=make_seed(), weight="weight", backend="cpu", progress=False)
    _close(_edge_dict(e, False), _nx_edge(G, k=8, seed=make_seed(), weight="weight"))


def test_bad_seed_names_every_accepted_kind():
    from rapids_balance import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="random.Random"):
        betweenness_centrality(_random_graph(5, 6, 1), k=2, seed="x", backend="cpu")


# ---------------------------------------------------------------------------
# the CPU queues: Dial's buckets (integer lengths) and the radix heap (others)
# ---------------------------------------------------------------------------

def _queue_of(G, weight="weight"):
    g, lengths = coerce_input(G, weight, None, for_edges=True)
    return "dial" if BCGraph.from_graph(g, lengths).nbuckets else "radix"


def _both_match_networkx(G, weight="weight"):
    ours = betweenness_centrality(G, weight=weight, backend="cpu", progress=False)
    _close(_node_dict(ours), nx.betweenness_centrality(G, weight=weight))
    e = edge_betweenness_centrality(G, weight=weight, backend="cpu", progress=False)
    _close(_edge_dict(e, G.is_directed()), _nx_edge(G, weight=weight))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("wmax", [10, 1000])
def test_dial_matches_networkx_on_integer_lengths(directed, wmax):
    # wide length ranges make many decrease-keys (stale bucket entries) and
    # distances far beyond the bucket count (the circular index wraps)
    G = _random_graph(60, 240, 41, directed, wmax=wmax)
    assert _queue_of(G) == "dial"
    _both_match_networkx(G)


@pytest.mark.parametrize("directed", [False, True])
def test_unweighted_long_paths_match_networkx(directed):
    # diameter 2 * 11: two buckets wrap around many times
    G = nx.grid_2d_graph(12, 12)
    G = nx.convert_node_labels_to_integers(G.to_directed() if directed else G)
    if directed:
        G.remove_edges_from([(u, v) for u, v in list(G.edges) if (u + v) % 5 == 0 and u < v])
    assert _queue_of(G, None) == "dial"
    _both_match_networkx(G, None)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300])
def test_radix_heap_matches_networkx_on_float_lengths(directed, scale):
    # random doubles (tiny and huge ones too: the heap keys are their bits)
    G = _random_graph(60, 240, 42, directed)
    rng = np.random.default_rng(7)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.5, 3.0)) * scale
    assert _queue_of(G) == "radix"
    _both_match_networkx(G)


@pytest.mark.parametrize("directed", [False, True])
def test_radix_heap_on_subnormal_lengths_equals_integer_lengths(directed):
    # k * 2**-1074 are subnormal doubles whose sums are exact: the radix heap
    # must see the same ties and give the Dial path's scores on the integers
    G = _random_graph(50, 180, 43, directed, wmax=6)
    H = G.copy()
    for u, v in H.edges:
        H[u][v]["weight"] = G[u][v]["weight"] * 2.0**-1074
    assert (_queue_of(G), _queue_of(H)) == ("dial", "radix")
    for fn in (betweenness_centrality, edge_betweenness_centrality):
        a = fn(G, weight="weight", backend="cpu", progress=False)
        b = fn(H, weight="weight", backend="cpu", progress=False)
        np.testing.assert_allclose(b["betweenness_centrality"], a["betweenness_centrality"],
                                   rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("lengths", ["integer", "float", "absorbed"])
@pytest.mark.parametrize("directed", [False, True])
def test_settle_order_is_fixed_by_the_data(lengths, directed):
    # Dial settles by distance; the radix heap pops the least (distance, id)
    # queued, as the GPU kernel does when a length vanishes below the last
    # bit of a distance
    from rapids_balance.centrality import _cpu

    G = _random_graph(40, 150, 44, directed, wmax=4)
    rng = np.random.default_rng(8)
    if lengths != "integer":
        for u, v in G.edges:
            G[u][v]["weight"] = float(rng.choice([1e20, 1.0, 0.5])) if lengths == "absorbed" \
                else float(rng.uniform(1, 2))
    g, lens = coerce_input(G, "weight", None, for_edges=True)
    bg = BCGraph.from_graph(g, lens)
    n, nnz = bg.n, bg.indices.size
    order, pstart = np.empty(n, np.int32), np.empty(n + 1, np.int64)
    pvert, pedge, sigma = np.empty(nnz + 1, np.int32), np.empty(nnz + 1, np.int32), np.zeros(n)
    enext, evert = np.empty(nnz + 1, np.int32), np.empty(nnz + 1, np.int32)
    args = (bg.indptr, bg.indices)
    for s in range(n):
        if bg.nbuckets:
            dist = np.full(n, 1 << 30, np.int32)
            w, rw = bg.wslot.astype(np.uint16), bg.rwslot.astype(np.uint16)
            count = _cpu._sssp_dial(s, *args, w, bg.slot_edge, bg.rindptr, bg.rindices, rw,
                                    bg.rslot_edge, bg.directed, True, bg.nbuckets - 1,
                                    np.int32(1 << 30), dist, sigma, order, np.empty(bg.nbuckets, np.int32),
                                    enext, evert, pstart, pvert, pedge)
            key = dist[order[:count]].astype(float)
            assert np.all(np.diff(key) >= 0)
        else:
            dist = np.full(n, np.inf)
            count = _cpu._sssp_radix(s, *args, bg.wslot, bg.slot_edge, bg.rindptr, bg.rindices,
                                     bg.rwslot, bg.rslot_edge, bg.directed, True, dist, sigma,
                                     np.zeros(n, np.int8), order, np.empty(65, np.int32), enext, evert,
                                     np.full(n, -1, np.int32), np.empty(n, np.int32), pstart, pvert, pedge)
            o = order[:count]
            # with absorbed lengths a vertex can join a distance after a larger
            # id left it, so only the distances are sorted there
            key = list(zip(dist[o], o)) if lengths == "float" else list(dist[o])
            assert key == sorted(key)
        ref = nx.single_source_dijkstra_path_length(G, s, weight="weight")
        assert sorted(order[:count].tolist()) == sorted(ref)
        np.testing.assert_allclose(dist[order[:count]].astype(float), [ref[v] for v in order[:count]])
        sigma[:] = 0.0
    assert (bg.nbuckets > 0) == (lengths == "integer")


@pytest.mark.parametrize("lengths", ["integer", "float"])
def test_both_queues_bit_identical_for_one_and_two_threads(lengths):
    import numba

    G = _random_graph(60, 220, 45, True, wmax=10)
    if lengths == "float":
        for u, v in G.edges:
            G[u][v]["weight"] = G[u][v]["weight"] / 3.0
    assert _queue_of(G) == ("dial" if lengths == "integer" else "radix")
    before = numba.get_num_threads()
    runs = []
    try:
        for t in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(t)
            runs.append([fn(G, weight="weight", backend="cpu", progress=False)
                         for fn in (betweenness_centrality, edge_betweenness_centrality)])
    finally:
        numba.set_num_threads(before)
    assert all(a.equals(b) for a, b in zip(*runs))


# ---------------------------------------------------------------------------
# node and edge tables from one pass
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [None, 7])
@pytest.mark.parametrize("directed", [False, True])
def test_node_and_edge_betweenness_equals_the_two_calls_and_networkx(weighted, k, directed):
    from rapids_balance.centrality import node_and_edge_betweenness

    G = nx.gnm_random_graph(30, 70, seed=3, directed=directed)
    rng = np.random.default_rng(5)
    for u, v in G.edges:
        G[u][v]["w"] = int(rng.integers(1, 6)) if weighted else 1
    w = "w" if weighted else None
    kw = dict(weight=w, seed=11, directed=directed, backend="cpu", progress=False)
    both = node_and_edge_betweenness(G, k, **kw)
    nodes = betweenness_centrality(G, k, **kw)
    edges = edge_betweenness_centrality(G, k, **kw)
    # one pass gives the same floats as the two separate passes
    pd.testing.assert_frame_equal(both.vertices, nodes)
    pd.testing.assert_frame_equal(both.edges, edges)
    if k is None:  # and the exact values are networkx's
        ref = nx.betweenness_centrality(G, weight=w)
        got = dict(zip(both.vertices["vertex"], both.vertices["betweenness_centrality"]))
        assert max(abs(got[v] - ref[v]) for v in ref) < 1e-12
        eref = nx.edge_betweenness_centrality(G, weight=w)
        for u, v, val in both.edges.itertuples(index=False):
            key = (u, v) if (u, v) in eref else (v, u)
            assert abs(val - eref[key]) < 1e-12



def test_sampled_sources_are_cut_into_batches_folded_along_a_fixed_tree():
    import rapids_balance as rb
    from rapids_balance.centrality.betweenness import (_MIN_BATCHES, SPLIT_EVERY, _batches,
                                                       _bc_partial, _check_params, _params,
                                                       _run, _setup)
    from rapids_balance.distributed import ordered_reduce

    g = rb.load_example("slashdot-1000")
    owner = "betweenness_centrality"
    p = _check_params(owner, dict(k=500, weight=None, seed=2, directed=None, backend="cpu",
                                  progress=False, client=None, source=None, target=None, sign=None))
    _, _, bg, sources, _ = _setup(owner, g, p, for_edges=False)
    params = _params(bg, "cpu", endpoints=False, edges=False)
    batches = _batches(sources, bg.n, bg.indices.size, 0, "cpu", params["chunk"])
    assert 1 < len(batches) <= _MIN_BATCHES  # k=500 is no longer one batch
    assert np.array_equal(np.concatenate(batches), sources)  # every source once, in order
    node, _ = _run(bg, sources, params, progress=False, client=None, desc="bc")
    want, _ = ordered_reduce([_bc_partial(bg, b, params) for b in batches],
                             split_every=SPLIT_EVERY)
    assert np.array_equal(node, want)  # the tree a cluster folds along, bit for bit
    assert node.sum() > 0


@pytest.mark.parametrize("case", ["dial", "radix", "bitset", "targets", "directed", "gpu"])
def test_leaves_computed_together_equal_each_leaf_alone(case, request):
    # the single process computes many leaves per kernel call; each leaf's partial must be the
    # one its own call gives (what a cluster task of one leaf returns), bit for bit, and a
    # subtree fold of them the fold of those partials along the tree
    from rapids_balance.distributed import ordered_reduce

    backend = request.getfixturevalue("gpu_backend") if case == "gpu" else "cpu"
    n, m = {"gpu": (12, 30), "bitset": (400, 1000)}.get(case, (90, 260))  # bitset: 64 per chunk
    G = _random_graph(n, m, 77,
                      directed=case == "directed", wmax=1 if case == "bitset" else 6)
    g, lengths = coerce_input(G, "weight", None, for_edges=True)
    bg = BCGraph.from_graph(g, lengths)
    tmask = None
    if case == "targets":
        tmask = (np.arange(bg.n) % 3 == 0).astype(np.int8)
    params = bmod._params(bg, backend, endpoints=case == "dial", edges=True, targets=tmask)
    if case == "radix":
        params["nbuckets"] = 0
    if case == "gpu":
        params.update(threads=8)
    assert params.get("bitset", False) == (case == "bitset")
    sources = np.arange(bg.n, dtype=np.int64)[::-1].copy()
    chunk = params["chunk"]
    for leaf_chunks, rows in ((1, 1), (1, 5), (2, 3), (3, 64)):
        leaf = leaf_chunks * chunk
        p = dict(params, leaf=leaf, rows=rows)
        got = list(bmod._bc_leaves(bg, sources, p))
        want = [bmod._bc_partial(bg, sources[i:i + leaf], params) for i in range(0, sources.size, leaf)]
        assert len(got) == len(want) > 1
        for (gn, ge), (wn, we) in zip(got, want):
            assert np.array_equal(gn, wn) and np.array_equal(ge, we)
        node, edge = bmod._bc_subtree(bg, sources, p)
        wn, we = ordered_reduce(want, split_every=bmod.SPLIT_EVERY)
        assert np.array_equal(node, wn) and np.array_equal(edge, we) and node.sum() > 0


# ---------------------------------------------------------------------------
# what a result says about its computation; the kernels a cluster's workers ready
# ---------------------------------------------------------------------------

def test_tables_say_how_they_were_computed():
    from rapids_balance.centrality import (betweenness_centrality_subset,
                                           edge_betweenness_centrality_subset,
                                           node_and_edge_betweenness)

    G = _random_graph(40, 90, 7)
    both = node_and_edge_betweenness(G, k=12, seed=2, weight="weight", backend="cpu")
    tables = {
        "node": (betweenness_centrality(G, backend="cpu"), dict(sources=40, sampled=False)),
        "edge": (edge_betweenness_centrality(G, k=10, seed=2, backend="cpu"),
                 dict(sources=10, sampled=True)),
        "both.vertices": (both.vertices, dict(sources=12, sampled=True)),
        "both.edges": (both.edges, dict(sources=12, sampled=True)),
        "subset": (betweenness_centrality_subset(G, [0, 1, 2], [5, 6], backend="cpu"),
                   dict(sources=3, sampled=False, targets=2)),
        "edge subset": (edge_betweenness_centrality_subset(G, [4], [7, 8, 9], backend="cpu"),
                        dict(sources=1, sampled=False, targets=3)),
    }
    for name, (table, want) in tables.items():
        info = dict(table.attrs["info"])
        seconds = info.pop("seconds")
        assert info == dict(backend="cpu", **want), name  # no worker without a client
        assert isinstance(seconds, float) and seconds > 0, name
    # each table its own copy: editing one's attrs leaves the other's as computed
    assert both.vertices.attrs == both.edges.attrs
    assert both.vertices.attrs["info"] is not both.edges.attrs["info"]


def test_cli_reports_the_backend_its_table_names(monkeypatch):
    from rapids_balance.centrality import _cli

    df = betweenness_centrality(_random_graph(10, 20, 3), backend="cpu")
    assert _cli._backend_used(df, "auto") == "cpu"
    df.attrs["info"]["backend"] = "gpu"  # a run on the GPU says so in its table
    assert _cli._backend_used(df, "cpu") == "gpu"
    assert _cli._backend_used(pd.DataFrame(), "cpu") == "cpu"  # no info: the request


_READY_PROBE = r"""
import json
import numba
import numpy as np
from rapids_balance.centrality import _cpu, betweenness as B
from rapids_balance.graph import build_graph

def signatures():
    return {k: set(map(str, f.signatures)) for k, f in vars(_cpu).items()
            if isinstance(f, numba.core.registry.CPUDispatcher)}

rng = np.random.default_rng(3)
out = []
for n, directed, lengths, endpoints, edges, targets in json.loads(CASES):
    g = build_graph(rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n), directed=directed)
    lens = None
    if lengths == "float":
        lens = rng.uniform(0.5, 2.0, g.m)
    elif lengths is not None:
        lens = rng.integers(1, lengths + 1, g.m).astype(float)
        lens[0] = lengths
    bg = B.BCGraph.from_graph(g, lens)
    tmask = (np.arange(bg.n) % 3 == 0).astype(np.int8) if targets else None
    params = B._params(bg, "cpu", endpoints=endpoints, edges=edges, targets=tmask)
    kind = dict(B._kernel_kind(bg, params))
    B._ready_betweenness(B._kernel_kind(bg, params))
    readied = signatures()
    B._run(bg, np.arange(40), params, progress=False, client=None, desc="probe")
    after = signatures()
    out.append({"path": "bitset" if kind.get("bitset") else "dial" if kind["nbuckets"] else "heap",
                "wide": kind["wide"], "new": sorted(k for k in after if after[k] - readied[k])})
print(json.dumps(out))
"""


def test_ready_run_compiles_every_signature_the_batches_use():
    """In a fresh process (nothing compiled or loaded yet), the warm-up on a tiny graph leaves
    nothing for the real graph's batches to compile, on every code path of the CPU kernels."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    # n, directed, lengths (None: unit; an int: integers up to it; "float"), endpoints,
    # edges, targets
    cases = [(400, False, None, False, True, False), (300, True, 9, True, False, False),
             (300, False, "float", False, True, True), (300, True, "float", False, False, False),
             (140_000, False, 4096, False, False, False)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
               CASES=json.dumps(cases), NUMBA_ENABLE_CUDASIM="0")
    proc = subprocess.run([sys.executable, "-c", "import os; CASES = os.environ['CASES']\n" + _READY_PROBE],
                          env=env, capture_output=True, text=True, timeout=600, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [(r["path"], r["wide"]) for r in got] == [("bitset", False), ("dial", False), ("heap", False),
                                                     ("heap", False), ("dial", True)]
    assert [r["new"] for r in got] == [[]] * len(cases)
