"""Weighted and unweighted betweenness: time and agreement with networkit, igraph, networkx.

Inputs, identical for every library:

* (a) a seeded Barabasi-Albert graph (20,000 vertices, 5 edges per new
  vertex, ~100,000 edges) and a seeded Erdos-Renyi G(n, m) graph of the same
  size, integer lengths 1..10 drawn with a seeded generator;
* (b) real graphs from ``../shared/data`` (largest component, undirected)
  with |rating| (Bitcoin) or 1 (the others) as length.

Default (quick): ``--k`` sources (default 500) drawn once with our seeded
sampler and given to every library that accepts a source set (ours, igraph;
networkx through its own per-source accumulation).  networkit has no
source-set option: its ``EstimateBetweenness`` with the same number of
samples is timed only (a different estimator, no value comparison).
``--full``: exact node and edge betweenness of the synthetic graphs and of
the small real graphs for ours, igraph (node and edge, two calls) and
networkit (node and edge in one run, all cores).  networkx is always timed
on ``--nx-sources`` sources and extrapolated linearly to the source count of
the row; its values are compared on those sources.

"max rel diff" = max over vertices (edges) of |ours - peer| / |peer|, over
entries with |peer| > 1e-9 max|peer|, after putting the peer's raw sums on
networkx's normalisation (normalized=True).

graph-tool (the issue's reference: 150 s for exact weighted node+edge BC of
the 20k BA graph on a quiet 2-core machine; networkit 270 s, igraph ~275 s
node only) is not installable here (conda-only, no PyPI wheel): its figure
is printed as a published reference beside our measured time, on a machine
that is *not* quiet (other jobs share the two cores; the load average is
printed with every row).

``--unweighted``: the same graphs without lengths (every library runs its
BFS betweenness); our rows are timed twice in the same run, with the
bit-parallel BFS over blocks of sources (the default for unit lengths) and
with one BFS per source (the kernel before it: "before" rows).

Run: ``python benchmarks/bench_betweenness.py [--full] [--k 500] [--only BA,ER,...] [--unweighted]``
(``--ours-only`` times this library alone, e.g. to re-time on a quieter machine;
``--node-only`` skips the edge rows and networkit; ``--leaf-calls R`` times only
the sampled rows with many leaves of the reduction tree per kernel call against one
call per leaf, R interleaved rounds).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from _harness import SHARED_DATA, Report, graph_roofline

import rapids_balance as rb
from rapids_balance.centrality import betweenness as bmod
from rapids_balance.graph import Graph

PUBLISHED_BA = {"graph-tool": 150.0, "networkit": 270.0, "igraph (node only)": 275.0, "networkx": 11000.0}

REAL = [  # (name, file, length rule)
    ("bitcoinalpha", "soc-sign-bitcoinalpha.csv.gz", "abs"),
    ("bitcoinotc", "soc-sign-bitcoinotc.csv.gz", "abs"),
    ("wiki-Elec", "wiki-Elec_graphB_SC21_edges.csv.gz", "one"),
    ("Slashdot", "soc-sign-Slashdot090221.txt.gz", "one"),
    ("Epinions", "soc-sign-epinions.txt.gz", "one"),
]
EXACT_REAL = {"bitcoinalpha", "bitcoinotc"}  # small enough for --full


def _load() -> str:
    try:
        return "load %.1f" % os.getloadavg()[0]
    except OSError:
        return ""


def _graph(name, n, edges, lengths) -> Graph:
    """Undirected graph, edges sorted; ``lengths`` None: unweighted."""
    a = np.minimum(edges[:, 0], edges[:, 1])
    b = np.maximum(edges[:, 0], edges[:, 1])
    o = np.lexsort((b, a))
    weight = None if lengths is None else np.asarray(lengths, float)[o]
    return Graph(edge_src=a[o], edge_dst=b[o], n_vertices=n, labels=np.arange(n), directed=False,
                 weight=weight, name=name if lengths is not None else f"{name} unweighted")


def synthetic(kind: str, n: int, per_vertex: int, seed: int, unweighted: bool = False) -> Graph:
    import networkx as nx

    if kind == "BA":
        G = nx.barabasi_albert_graph(n, per_vertex, seed=seed)
    else:
        m = n * per_vertex - per_vertex * per_vertex  # the BA edge count
        G = nx.gnm_random_graph(n, m, seed=seed)
    edges = np.array(G.edges(), dtype=np.int64)
    w = np.random.default_rng(seed).integers(1, 11, len(edges))
    return _graph(f"{kind}-{n}", n, edges, None if unweighted else w)


def real(name: str, file: str, rule: str, unweighted: bool = False) -> Graph:
    g = rb.read_edgelist(SHARED_DATA / file, signed=False, component="largest")
    lengths = np.ones(g.m) if rule == "one" or g.weight is None else np.abs(g.weight)
    edges = np.stack([g.edge_src, g.edge_dst], axis=1).astype(np.int64)
    return _graph(name, g.n, edges, None if unweighted else lengths)


# ---------------------------------------------------------------------------
# peers: raw sums over ordered (s, t) pairs from the given sources
# ---------------------------------------------------------------------------

def igraph_raw(g: Graph, sources, edges: bool):
    import igraph as ig

    G = ig.Graph(n=g.n, edges=np.stack([g.edge_src, g.edge_dst], 1).tolist())
    w = None if g.weight is None else g.weight.tolist()
    kw = {} if sources is None else {"sources": sources.tolist()}
    t = time.perf_counter()
    vals = G.edge_betweenness(weights=w, directed=False, **kw) if edges else \
        G.betweenness(weights=w, directed=False, **kw)
    # igraph counts each unordered pair once (also with sources): x2 = ordered
    return time.perf_counter() - t, 2.0 * np.asarray(vals)


def _nk_graph(g: Graph):
    import networkit as nk

    nk.setNumberOfThreads(os.cpu_count() or 1)
    if g.weight is None:
        G = nk.Graph(g.n)
        for u, v in zip(g.edge_src.tolist(), g.edge_dst.tolist()):
            G.addEdge(u, v)
        return G
    G = nk.Graph(g.n, weighted=True)
    for u, v, w in zip(g.edge_src.tolist(), g.edge_dst.tolist(), g.weight.tolist()):
        G.addEdge(u, v, w)
    return G


def networkit_exact(g: Graph):
    import networkit as nk

    G = _nk_graph(g)
    G.indexEdges()
    eid = np.empty(g.m, np.int64)
    pos = {(int(u), int(v)): i for i, (u, v) in enumerate(zip(g.edge_src, g.edge_dst))}
    G.forEdges(lambda u, v, w, i: eid.__setitem__(pos[(min(u, v), max(u, v))], i))
    t = time.perf_counter()
    B = nk.centrality.Betweenness(G, normalized=False, computeEdgeCentrality=True)
    B.run()
    el = time.perf_counter() - t
    return el, np.asarray(B.scores()), np.asarray(B.edgeScores())[eid]  # ordered-pair sums


def networkit_estimate(g: Graph, k: int, seed: int) -> float:
    import networkit as nk

    G = _nk_graph(g)
    nk.engineering.setSeed(seed, True)
    t = time.perf_counter()
    nk.centrality.EstimateBetweenness(G, k, False, True).run()
    return time.perf_counter() - t


def networkx_raw(g: Graph, sources, edges: bool):
    import networkx as nx
    from networkx.algorithms.centrality import betweenness as nb

    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    if g.weight is None:
        G.add_edges_from(zip(g.edge_src.tolist(), g.edge_dst.tolist()))
    else:
        G.add_weighted_edges_from(zip(g.edge_src.tolist(), g.edge_dst.tolist(), g.weight.tolist()))
    bc = dict.fromkeys(G, 0.0)
    if edges:
        bc.update(dict.fromkeys(G.edges(), 0.0))
    t = time.perf_counter()
    for s in sources.tolist():
        S, P, sigma, _ = nb._single_source_shortest_path_basic(G, s) if g.weight is None else \
            nb._single_source_dijkstra_path_basic(G, s, "weight")
        bc = nb._accumulate_edges(bc, S, P, sigma, s) if edges else nb._accumulate_basic(bc, S, P, sigma, s)[0]
    el = time.perf_counter() - t
    if edges:
        return el, np.array([bc[(u, v)] if (u, v) in bc else bc[(v, u)]
                             for u, v in zip(g.edge_src.tolist(), g.edge_dst.tolist())])
    return el, np.array([bc[v] for v in range(g.n)])


def _normalise(raw, g, sources, edges):
    k = None if sources is None else sources.size
    is_src = None
    if k is not None and not edges:
        is_src = np.zeros(g.n, bool)
        is_src[sources] = True
    return bmod._rescale(raw, g.n, normalized=True, directed=False, endpoints=edges, k=k, is_source=is_src)


def max_rel(ours, peer) -> float:
    peer = np.asarray(peer, float)
    big = np.abs(peer) > 1e-9 * max(np.abs(peer).max(), 1e-300)
    if not big.any():
        return float(np.abs(ours - peer).max())
    return float((np.abs(ours[big] - peer[big]) / np.abs(peer[big])).max())


# ---------------------------------------------------------------------------

def _weight(g: Graph):
    # "weight": the graph's lengths (the default, as in networkx, is unweighted)
    return None if g.weight is None else "weight"


def ours(g: Graph, sources, edges: bool, backend: str):
    k = None if sources is None else sources.tolist()
    t = time.perf_counter()
    if edges:
        r = rb.edge_betweenness_centrality(g, k=k, weight=_weight(g), backend=backend, progress=False)
    else:
        r = rb.betweenness_centrality(g, k=k, weight=_weight(g), backend=backend, progress=False)
    return time.perf_counter() - t, r["betweenness_centrality"].to_numpy()


def ours_before(g: Graph, sources, edges: bool, backend: str):
    """:func:`ours` with one BFS per source, the unweighted kernel before the bit-parallel one."""
    budget = bmod._BITSET_BUDGET
    bmod._BITSET_BUDGET = 0  # no block fits: the per-source kernel
    try:
        return ours(g, sources, edges, backend)
    finally:
        bmod._BITSET_BUDGET = budget


def ours_leaf_per_call(g: Graph, sources, edges: bool, backend: str):
    """:func:`ours` with one kernel call per leaf of the reduction tree (the loop before
    many leaves per call): the same leaves and tree, so the same bits."""
    cut = bmod._leaf_cut
    bmod._leaf_cut = lambda *a, **kw: (cut(*a, **kw)[0], 1)  # one chunk row per call: one leaf
    try:
        return ours(g, sources, edges, backend)
    finally:
        bmod._leaf_cut = cut


def bench_leaf_calls(rep: Report, g: Graph, *, k: int, seed: int, backend: str, repeat: int):
    """Many leaves per kernel call against one call per leaf, interleaved in one process:
    wall and CPU seconds, median of ``repeat`` rounds (a loaded machine moves single runs)."""
    sources = bmod._sources(g, min(k, g.n), seed)[0]
    name = f"{g.name} (n={g.n:,}, m={g.m:,})"
    for edges in (False, True):
        what = "edge" if edges else "node"
        times = {"many": [], "one": []}
        for _ in range(repeat):
            for key, fn in (("many", ours), ("one", ours_leaf_per_call)):
                c = time.process_time()
                t, v = fn(g, sources, edges, backend)
                times[key].append((t, time.process_time() - c, v))
        same = all(np.array_equal(a[2], b[2]) for a, b in zip(times["many"], times["one"]))
        med = {key: (float(np.median([x[0] for x in v])), float(np.median([x[1] for x in v])))
               for key, v in times.items()}
        rep.add(input=name, figure=f"{what} BC k={sources.size}, many leaves per call: median s",
                value=round(med["many"][0], 3), unit="s", peer="one kernel call per leaf (before)",
                peer_value=round(med["one"][0], 3), cpu_s=round(med["many"][1], 3),
                peer_cpu_s=round(med["one"][1], 3), bit_identical=same, repeat=repeat, load=_load(),
                wall_s={key: [round(x[0], 3) for x in v] for key, v in times.items()})


def bench_graph(rep: Report, g: Graph, *, exact: bool, k: int, seed: int, nx_sources: int, backend: str,
                skip_networkit: bool, peers: bool = True, skip_igraph: bool = False,
                node_only: bool = False):
    name = f"{g.name} (n={g.n:,}, m={g.m:,})"
    sources = None if exact else bmod._sources(g, min(k, g.n), seed)[0]
    n_src = g.n if exact else sources.size
    mode = "exact" if exact else f"k={n_src}"
    nx_src = bmod._sources(g, min(nx_sources, g.n), seed + 1)[0]
    total_ours = 0.0
    scores = {}
    for edges in (False,) if node_only else (False, True):
        what = "edge" if edges else "node"
        t_ours, v_ours = ours(g, sources, edges, backend)
        # roofline: each source's search relaxes every adjacency entry once
        roof = graph_roofline(g, n_src * g.indices.size, t_ours, "relaxations (sources x 2m)") \
            if backend == "cpu" else {}
        total_ours += t_ours
        scores[edges] = v_ours
        if g.weight is None and backend == "cpu":
            t_old, v_old = ours_before(g, sources, edges, backend)
            rep.add(input=name, figure=f"{what} BC {mode}, ours ({backend}) s", value=round(t_ours, 3),
                    unit="s", peer="ours before: one BFS per source", peer_value=round(t_old, 3),
                    max_rel_diff=max_rel(v_ours, v_old), load=_load(), **roof,
                    before_roofline=graph_roofline(g, n_src * g.indices.size, t_old,
                                                   "relaxations (sources x 2m)"))
        if not peers:
            rep.add(input=name, figure=f"{what} BC {mode}, ours ({backend}) s", value=round(t_ours, 3),
                    unit="s", load=_load(), **roof)
            continue
        if skip_igraph:
            rep.add(input=name, figure=f"{what} BC {mode}, ours ({backend}) s", value=round(t_ours, 3),
                    unit="s", load=_load(), **roof)
        else:
            t_ig, raw_ig = igraph_raw(g, sources, edges)
            diff = max_rel(v_ours, _normalise(raw_ig, g, sources, edges))
            rep.add(input=name, figure=f"{what} BC {mode}, ours ({backend}) s", value=round(t_ours, 3),
                    unit="s", peer="igraph (1 thread)", peer_value=round(t_ig, 3), max_rel_diff=diff,
                    load=_load(), **roof)
            rep.add(input=name, figure=f"{what} BC {mode}: max rel diff to igraph", value=diff, unit="rel")
        # networkx on a few sources, extrapolated; values compared on those sources
        t_nx, raw_nx = networkx_raw(g, nx_src, edges)
        _, v_small = ours(g, nx_src, edges, backend)
        diff_nx = max_rel(v_small, _normalise(raw_nx, g, nx_src, edges))
        rep.add(input=name, figure=f"{what} BC {mode}, ours ({backend}) s", value=round(t_ours, 3), unit="s",
                peer=f"networkx (extrapolated from {nx_src.size} sources)",
                peer_value=round(t_nx * n_src / nx_src.size, 1), max_rel_diff=diff_nx, load=_load())
        rep.add(input=name, figure=f"{what} BC, {nx_src.size} sources: max rel diff to networkx",
                value=diff_nx, unit="rel")
    if skip_networkit or not peers or node_only:
        return total_ours
    if exact:
        t_nk, nk_node, nk_edge = networkit_exact(g)
        diff = max(max_rel(scores[False], _normalise(nk_node, g, None, False)),
                   max_rel(scores[True], _normalise(nk_edge, g, None, True)))
        rep.add(input=name, figure=f"node+edge BC {mode}, ours ({backend}) s", value=round(total_ours, 3),
                unit="s", peer=f"networkit ({os.cpu_count()} threads)", peer_value=round(t_nk, 3),
                max_rel_diff=diff, load=_load())
        rep.add(input=name, figure="node+edge BC exact: max rel diff to networkit", value=diff, unit="rel")
        if backend == "cpu":
            # both tables from one pass (node_and_edge_betweenness), as networkit computes them
            t0 = time.perf_counter()
            both = rb.node_and_edge_betweenness(g, weight=_weight(g), backend=backend, progress=False)
            t_one = time.perf_counter() - t0
            same = bool(np.array_equal(both.vertices["betweenness_centrality"].to_numpy(), scores[False])
                        and np.array_equal(both.edges["betweenness_centrality"].to_numpy(), scores[True]))
            rep.add(input=name, figure=f"node+edge BC {mode}, one pass (node_and_edge_betweenness) s",
                    value=round(t_one, 3), unit="s", peer=f"networkit ({os.cpu_count()} threads)",
                    peer_value=round(t_nk, 3), equal_to_separate_calls=same, load=_load(),
                    **graph_roofline(g, n_src * g.indices.size, t_one, "relaxations (sources x 2m)"))
    else:
        t_nk = networkit_estimate(g, n_src, seed)
        rep.add(input=name, figure=f"node+edge BC {mode}, ours ({backend}) s", value=round(total_ours, 3),
                unit="s", peer=f"networkit EstimateBetweenness k={n_src} (node only, other estimator)",
                peer_value=round(t_nk, 3), load=_load())
    return total_ours


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="exact BC of the synthetic and small real graphs")
    ap.add_argument("--k", type=int, default=500, help="sampled sources in quick mode (default 500)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=20_000, help="synthetic graph vertices")
    ap.add_argument("--nx-sources", type=int, default=10)
    ap.add_argument("--only", default="", help="comma-separated input names (BA, ER, bitcoinalpha, ...)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--skip-networkit", action="store_true")
    ap.add_argument("--skip-igraph", action="store_true", help="no igraph rows (its exact runs take minutes)")
    ap.add_argument("--ours-only", action="store_true", help="time ours only (no peers, no comparison)")
    ap.add_argument("--unweighted", action="store_true",
                    help="the same graphs without lengths (BFS betweenness; ours also timed before/after)")
    ap.add_argument("--leaf-calls", type=int, default=0, metavar="R",
                    help="only: many leaves per kernel call against one per leaf, R interleaved rounds")
    ap.add_argument("--node-only", action="store_true", help="node betweenness rows only (no edge, no networkit)")
    ap.add_argument("--out", default=None, help="folder of the JSON result (default: the harness's)")
    args = ap.parse_args()
    backend = rb.resolve_backend(args.backend)
    uw = args.unweighted
    rep = Report("betweenness" + ("-unweighted" if uw else "") + ("-full" if args.full else "")
                 + ("-leaf-calls" if args.leaf_calls else "")
                 + ("-ours" if args.ours_only else ""),
                 description=("unweighted" if uw else "weighted")
                 + " betweenness centrality vs igraph, networkit, networkx", params=vars(args))
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    # warm-up: numba compilation (cached on disk after the first run) is not timed
    warm = synthetic("BA", 200, 3, 0, unweighted=uw)
    for sources in (None, np.arange(10)):
        for edges in (False, True):
            ours(warm, sources, edges, backend)
            if uw and backend == "cpu":
                ours_before(warm, sources, edges, backend)
    for kind in ("BA", "ER"):
        if only and kind not in only:
            continue
        g = synthetic(kind, args.n, 5, args.seed, unweighted=uw)
        if args.leaf_calls:
            bench_leaf_calls(rep, g, k=args.k, seed=args.seed, backend=backend, repeat=args.leaf_calls)
            continue
        tot = bench_graph(rep, g, exact=args.full, k=args.k, seed=args.seed, nx_sources=args.nx_sources,
                          backend=backend, skip_networkit=args.skip_networkit, peers=not args.ours_only,
                          skip_igraph=args.skip_igraph, node_only=args.node_only)
        if kind == "BA" and args.full and args.n == 20_000 and not uw and not args.node_only:
            for peer, val in PUBLISHED_BA.items():
                rep.add(input=f"{g.name} exact", figure=f"node+edge BC exact, ours ({backend}) s",
                        value=round(tot, 3), unit="s",
                        published=f"{peer}, issue figure, quiet 2-core machine", published_value=val)
    for name, file, rule in REAL:
        if only and name not in only:
            continue
        if not (SHARED_DATA / file).exists():
            print(f"skipping {name}: {file} not in {SHARED_DATA}")
            continue
        g = real(name, file, rule, unweighted=uw)
        bench_graph(rep, g, exact=args.full and name in EXACT_REAL, k=args.k, seed=args.seed,
                    nx_sources=args.nx_sources, backend=backend, skip_networkit=args.skip_networkit,
                    skip_igraph=args.skip_igraph, peers=not args.ours_only, node_only=args.node_only)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
