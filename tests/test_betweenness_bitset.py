"""Unweighted betweenness through the bit-parallel BFS (blocks of up to 64 sources)."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from rapids_balance.centrality import _cpu
from rapids_balance.centrality import betweenness as bmod
from rapids_balance.centrality import (betweenness_centrality, edge_betweenness_centrality,
                                       node_and_edge_betweenness)
from rapids_balance.centrality._input import BCGraph, coerce_input

RTOL = 1e-9  # the tolerance of the weighted kernels' networkx tests


def _graph(kind: str, directed: bool) -> nx.Graph:
    """Unweighted graphs with many ties, several blocks of sources, unreachable pairs."""
    if kind == "gnm":  # 150 vertices: two full blocks of 64 and a partial one
        G = nx.gnm_random_graph(150, 420, seed=7, directed=directed)
    elif kind == "sparse":  # disconnected, isolated vertices
        G = nx.gnm_random_graph(90, 80, seed=8, directed=directed)
        G.add_nodes_from(range(90, 94))
    else:  # grid: long paths (diameter 22), 2**k path counts
        G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(12, 12))
        if directed:
            G = G.to_directed()
            G.remove_edges_from([(u, v) for u, v in list(G.edges) if (u + v) % 5 == 0 and u < v])
    return G


@pytest.fixture
def blocks(monkeypatch):
    """Records the source count of every bit-parallel batch the CPU runs."""
    seen = []
    real = _cpu._block_rows_bitset

    def spy(sources, width, *args):
        seen.append((sources.size, width))
        return real(sources, width, *args)

    monkeypatch.setattr(_cpu, "_block_rows_bitset", spy)
    return seen


def _assert_close(ours, ref):
    keys = list(ref)
    np.testing.assert_allclose([ours[k] for k in keys], [ref[k] for k in keys], rtol=RTOL, atol=1e-12)


def _nodes(df):
    return dict(zip(df["vertex"].tolist(), df["betweenness_centrality"].tolist()))


def _edges(df, directed):
    out = {}
    for s, d, b in df.itertuples(index=False):
        out[(s, d)] = b
        if not directed:
            out[(d, s)] = b
    return out


@pytest.mark.parametrize("kind", ["gnm", "sparse", "grid"])
@pytest.mark.parametrize("directed", [False, True])
def test_exact_node_and_edge_match_networkx(kind, directed, blocks):
    G = _graph(kind, directed)
    for normalized in (True, False):
        for endpoints in (False, True):
            ours = betweenness_centrality(G, normalized=normalized, endpoints=endpoints, backend="cpu",
                                          progress=False)
            _assert_close(_nodes(ours), nx.betweenness_centrality(G, normalized=normalized,
                                                                  endpoints=endpoints))
        e = edge_betweenness_centrality(G, normalized=normalized, backend="cpu", progress=False)
        _assert_close(_edges(e, directed), nx.edge_betweenness_centrality(G, normalized=normalized))
    assert blocks and all(w == 64 for _, w in blocks)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("endpoints", [False, True])
def test_sampled_sources_match_networkx(directed, endpoints, blocks):
    # a random.Random seed draws networkx's own sources (70: one full block, one partial)
    G = _graph("gnm", directed)
    for normalized in (True, False):
        ours = betweenness_centrality(G, k=70, seed=random.Random(3), normalized=normalized,
                                      endpoints=endpoints, backend="cpu", progress=False)
        ref = nx.betweenness_centrality(G, k=70, seed=random.Random(3), normalized=normalized,
                                        endpoints=endpoints)
        _assert_close(_nodes(ours), ref)
    e = edge_betweenness_centrality(G, k=70, seed=random.Random(4), backend="cpu", progress=False)
    _assert_close(_edges(e, directed), nx.edge_betweenness_centrality(G, k=70, seed=random.Random(4)))
    assert blocks


def test_path_counts_far_beyond_2_to_the_53():
    # 70 diamonds in series: 2**70 shortest paths end to end, counts no longer exact integers
    G = nx.Graph()
    for i in range(70):
        a, b, c, d = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        G.add_edges_from([(a, b), (a, c), (b, d), (c, d)])
    ours = betweenness_centrality(G, normalized=False, backend="cpu", progress=False)
    _assert_close(_nodes(ours), nx.betweenness_centrality(G, normalized=False))


@pytest.mark.parametrize("directed", [False, True])
def test_bit_identical_for_one_and_two_threads(directed):
    import numba

    G = _graph("gnm", directed)
    before = numba.get_num_threads()
    runs = []
    try:
        for t in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(t)
            runs.append([betweenness_centrality(G, endpoints=True, backend="cpu", progress=False),
                         edge_betweenness_centrality(G, backend="cpu", progress=False),
                         betweenness_centrality(G, k=100, seed=5, backend="cpu", progress=False)])
    finally:
        numba.set_num_threads(before)
    assert all(a.equals(b) for a, b in zip(*runs))


def test_dask_client_is_bit_identical_to_local():
    distributed = pytest.importorskip("distributed")
    G = _graph("gnm", True)
    local = edge_betweenness_centrality(G, backend="cpu", progress=False)
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=None) as client:
        remote = edge_betweenness_centrality(G, backend="cpu", progress=False, client=client)
    assert local.equals(remote)


def test_one_pass_equals_the_two_calls():
    G = _graph("sparse", True)
    both = node_and_edge_betweenness(G, backend="cpu", progress=False)
    assert both.vertices.equals(betweenness_centrality(G, backend="cpu", progress=False))
    assert both.edges.equals(edge_betweenness_centrality(G, backend="cpu", progress=False))


def _prepared(G):
    g, lengths = coerce_input(G, None, None, for_edges=True)
    return BCGraph.from_graph(g, lengths)


@pytest.mark.parametrize("directed", [False, True])
def test_block_widths_agree_with_one_bfs_per_source(directed):
    bg = _prepared(_graph("gnm", directed))
    src = np.arange(bg.n, dtype=np.int64)
    base = {"backend": "cpu", "endpoints": True, "edges": True}
    ref_node, ref_edge = bmod._bc_partial(bg, src, {**base, "chunk": 8})  # Dial's queue
    for width in (1, 8, 37, 64):
        node, edge = bmod._bc_partial(bg, src, {**base, "chunk": width, "bitset": True})
        np.testing.assert_allclose(node, ref_node, rtol=1e-12)
        np.testing.assert_allclose(edge, ref_edge, rtol=1e-12)


def test_repeated_sources_in_a_block_count_each_time():
    bg = _prepared(_graph("sparse", False))
    base = {"backend": "cpu", "endpoints": True, "edges": True, "chunk": 64}
    twice = bmod._bc_partial(bg, np.array([3, 9, 3, 40]), {**base, "bitset": True})
    once = bmod._bc_partial(bg, np.array([3, 9, 3, 40]), {**base, "chunk": 8})
    for a, b in zip(twice, once):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_dispatch_rule(monkeypatch):
    G = _graph("gnm", False)
    bg = _prepared(G)
    assert bmod._params(bg, "cpu", endpoints=False, edges=True)["bitset"]
    # weighted lengths, a target set or the GPU keep one search per source
    W = G.copy()
    nx.set_edge_attributes(W, 1, "weight")
    W.edges[next(iter(W.edges))]["weight"] = 2
    g, lengths = coerce_input(W, "weight", None, for_edges=True)
    assert "bitset" not in bmod._params(BCGraph.from_graph(g, lengths), "cpu", endpoints=False, edges=True)
    assert "bitset" not in bmod._params(bg, "cpu", endpoints=False, edges=True, targets=np.ones(bg.n, np.int8))
    assert "bitset" not in bmod._params(bg, "gpu", endpoints=False, edges=True)
    # the block narrows with the graph's size, then gives way to one BFS per source
    assert bmod._bitset_width(1000) == 64
    assert bmod._bitset_width(bmod._BITSET_BUDGET // (16 * 64) + 1) == 32
    assert bmod._bitset_width(bmod._BITSET_BUDGET // (16 * 8) + 1) == 0
    monkeypatch.setattr(bmod, "_BITSET_BUDGET", 16 * 8 * bg.n)
    assert bmod._params(bg, "cpu", endpoints=False, edges=False)["chunk"] == 8


def test_bitset_refuses_what_it_cannot_compute():
    bg = _prepared(_graph("sparse", False))
    with pytest.raises(ValueError, match="1 to 64 sources"):
        bmod._bc_partial(bg, np.arange(5), {"backend": "cpu", "chunk": 65, "bitset": True})
