"""Lower bounds from edge-disjoint unbalanced cycles: every cycle checked independently."""

import numpy as np
import pytest

from rapids_balance.errors import GraphInputError
from rapids_balance.frustration_index import frustration, frustration_lower_bound
from rapids_balance.graph import build_graph

from test_frustration_exact import brute_force_index, near_balanced, random_signed, recount


def check_cycles(graph, lb):
    """Each cycle is a simple closed cycle of graph edges with an odd number of negative
    edges, and no edge lies in two cycles; returns the number of cycles."""
    sign_of = {}
    for u, v, s in zip(graph.labels[graph.edge_src], graph.labels[graph.edge_dst], graph.sign):
        sign_of.setdefault(frozenset((u, v)), []).append(int(s))
    seen = {}
    for c, rows in lb.cycles.groupby("cycle"):
        deg = {}
        for u, v, s in zip(rows["src"], rows["dst"], rows["sign"]):
            key = frozenset((u, v))
            assert int(s) in sign_of[key], "not an edge of the graph"
            seen[(key, int(s))] = seen.get((key, int(s)), 0) + 1
            assert seen[(key, int(s))] <= sign_of[key].count(int(s)), "edge in two cycles"
            for w in key if len(key) == 2 else (u, u):
                deg[w] = deg.get(w, 0) + 1
        assert all(d == 2 for d in deg.values()), "not a simple closed cycle"
        assert (rows["sign"] < 0).sum() % 2 == 1, "cycle is balanced"
        # connected: walk the cycle from its first edge
        adj = {}
        for u, v in zip(rows["src"], rows["dst"]):
            adj.setdefault(u, []).append(v)
            adj.setdefault(v, []).append(u)
        start = rows["src"].iloc[0]
        stack, reached = [start], {start}
        while stack:
            for w in adj[stack.pop()]:
                if w not in reached:
                    reached.add(w)
                    stack.append(w)
        assert reached == set(adj)
    return lb.cycles["cycle"].nunique()


@pytest.mark.parametrize("seed", range(6))
def test_bound_below_brute_force_optimum(seed):
    g = random_signed(12 + seed, 0.35, 0.4, 200 + seed)
    opt = brute_force_index(g)
    rng = np.random.default_rng(seed)
    for side in (frustration(g, 4, seed=seed, progress=False).best_state,
                 rng.integers(0, 2, g.n)):
        lb = frustration_lower_bound(g, side)
        assert check_cycles(g, lb) == lb.bound <= opt <= lb.index
        assert lb.gap == lb.index - lb.bound


def test_bound_proves_near_balanced_optimum():
    g = near_balanced(300, 900, 0.05, 7)
    res = frustration(g, 8, progress=False)
    lb = frustration_lower_bound(g, res.best_state)
    assert check_cycles(g, lb) == lb.bound <= res.index == lb.index
    # sparse noise: a short cycle per flipped edge, so the packing closes the gap
    assert lb.gap == 0


def test_highland_tribes_bound_is_seven(shared_data):
    from rapids_balance.datasets import load_example

    g = load_example("highland")
    lb = frustration_lower_bound(g)  # default state: trees plus refinement
    assert check_cycles(g, lb) == lb.bound == lb.index == 7


def test_balanced_graph_has_bound_zero():
    # two camps, positive inside, negative across: nothing to switch, no unbalanced cycle
    g = build_graph([0, 1, 2, 0, 1, 3], [1, 2, 0, 3, 3, 4], sign=[1, 1, 1, -1, -1, 1])
    lb = frustration_lower_bound(g, [0, 1, 1, 0, 0])  # a poor state: 3 edges frustrated
    assert lb.bound == 0 == brute_force_index(g) and lb.index == 3 == lb.gap
    assert lb.cycles.empty and list(lb.cycles.columns) == ["cycle", "src", "dst", "sign"]


def test_bad_arguments():
    g = random_signed(8, 0.5, 0.5, 1)
    with pytest.raises(ValueError, match="max_length"):
        frustration_lower_bound(g, np.zeros(g.n), max_length=0)
    with pytest.raises(ValueError, match="entries"):
        frustration_lower_bound(g, np.zeros(g.n + 1))
    with pytest.raises(GraphInputError, match="signed"):
        frustration_lower_bound(build_graph([0, 1], [1, 2]))


@pytest.mark.slow
def test_wiki_elec_bound_exceeds_16500(shared_data):
    """The graphB wiki-Elec file (zeros kept as positive edges) has frustration index
    above 16,500: a packing of more edge-disjoint unbalanced cycles than that."""
    from rapids_balance.io import read_edgelist

    g = read_edgelist(shared_data / "wiki-Elec_graphB_SC21_edges.csv.gz")
    res = frustration(g, 16, progress=False)
    lb = frustration_lower_bound(g, res.best_state)
    assert recount(g, res.best_state) == res.index == lb.index
    assert check_cycles(g, lb) == lb.bound > 16_500


def test_exchanges_and_plateau_search_add_cycles(monkeypatch):
    """Greedy packing <= one-for-two exchanges <= plateau search, strictly more on
    these graphs (around random states, where the greedy packing leaves frustrated
    edges without a cycle), and every cycle still valid."""
    from rapids_balance.frustration_index import _bound

    gained = np.zeros(2, int)
    for seed in (0, 3, 7):
        g = random_signed(60, 0.1, 0.4, 300 + seed)
        side = np.random.default_rng(seed).integers(0, 2, g.n)
        monkeypatch.setattr(_bound, "AUGMENT_PASSES", 0)
        greedy = frustration_lower_bound(g, side, steps=0)
        monkeypatch.setattr(_bound, "AUGMENT_PASSES", 5)
        exchanged = frustration_lower_bound(g, side, steps=0)
        searched = frustration_lower_bound(g, side, steps=20_000)
        assert check_cycles(g, exchanged) == exchanged.bound >= greedy.bound
        assert check_cycles(g, searched) == searched.bound >= exchanged.bound
        gained += [exchanged.bound - greedy.bound, searched.bound - exchanged.bound]
    assert (gained > 0).all()


def test_level_prefers_free_paths():
    """A vertex of the level being built, reached first over a packed cycle's edge, is
    marked free once a free edge reaches it too: paths through it may then cross another
    cycle (a -> x holds cycle 0's edge; b -> x is free)."""
    from rapids_balance._cycle_packing import _expand

    # vertices 0 (a), 1 (b), 2 (x); edges 0: a-x, 1: b-x
    indptr = np.array([0, 1, 2, 4], np.int64)
    idx = np.array([2, 2, 0, 1], np.int64)
    slot_edge = np.array([0, 1, 0, 1], np.int64)
    frustrated = np.zeros(2, bool)
    owner = np.array([0, -1], np.int64)
    tabu = np.zeros(1, np.int64)
    q = np.array([0, 1, -1], np.int64)
    dist = np.array([1, 1, -1], np.int64)
    par = np.full(3, -1, np.int64)
    pedge = np.full(3, -1, np.int64)
    via = np.array([-1, -1, -1], np.int64)
    qn, work, a, *_ = _expand(indptr, idx, slot_edge, frustrated, owner, tabu, 1, True, q, 0, 2, 2,
                        dist, par, pedge, via, np.full(3, -1, np.int64), np.full(3, -1, np.int64))
    assert (qn, work, a) == (3, 2, -1) and q[2] == 2 and dist[2] == 2
    assert via[2] == -1 and par[2] == 1 and pedge[2] == 1


def _check_packing(g, side, ptr, edges):
    """Each cycle of ``(ptr, edges)`` is closed and simple, with exactly one edge ``side``
    frustrates (so an odd number of negative edges), and no edge is in two cycles."""
    x = np.where(np.asarray(side) > 0, -1, 1)
    frustrated = g.sign * x[g.edge_src] * x[g.edge_dst] < 0
    assert np.unique(edges).size == edges.size, "edge in two cycles"
    for i in range(ptr.size - 1):
        cyc = edges[ptr[i]:ptr[i + 1]]
        assert frustrated[cyc].sum() == 1 and (g.sign[cyc] < 0).sum() % 2 == 1
        ends = np.bincount(np.concatenate([g.edge_src[cyc], g.edge_dst[cyc]]))
        assert set(np.unique(ends[ends > 0])) == {2}, "not a simple closed cycle"
    return ptr.size - 1


def test_widening_search_keeps_cycles_valid_and_only_adds():
    """The timed bound's schedule (a reach that doubles as the steps do, long tenure),
    run by steps: every cycle valid, and more steps never fewer cycles (one trajectory)."""
    from rapids_balance._cycle_packing import pack_cycles

    for seed in (0, 5):
        g = random_signed(80, 0.08, 0.4, 400 + seed)
        side = np.random.default_rng(seed).integers(0, 2, g.n)
        x = np.where(side > 0, -1, 1)
        frustrated = g.sign * x[g.edge_src] * x[g.edge_dst] < 0
        fe = np.flatnonzero(frustrated).astype(np.int64)
        adj = (g.indptr, g.indices, g.slot_edge)
        sizes = []
        for steps in (0, 3_000, 12_000):
            ptr, edges = pack_cycles(adj, adj, frustrated, fe, g.edge_src[fe].astype(np.int64),
                                     g.edge_dst[fe].astype(np.int64), max_length=8,
                                     augment_length=8, passes=2, steps=steps, seed=seed,
                                     deadline=np.inf, stall=2**62, tenure=500, reach=4,
                                     grow_after=1_000)
            sizes.append(_check_packing(g, side, ptr, edges))
        assert sizes[0] <= sizes[1] <= sizes[2] and sizes[0] < sizes[2]


def test_timed_search_keeps_cycles_valid():
    """The timed schedule through the public function: every cycle checked, and the
    bound between 0 and the index (whatever the machine's speed)."""
    g = random_signed(50, 0.12, 0.4, 77)
    side = np.random.default_rng(3).integers(0, 2, g.n)
    lb = frustration_lower_bound(g, side, time_limit=0.5)
    assert check_cycles(g, lb) == lb.bound <= lb.index
    assert lb.bound > 0
