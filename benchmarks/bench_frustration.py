"""Frustration index: tree samplers (graphB++), refinement, exact gaps, memory.

Rows:

* per input and sampler: the tree-only index (graphB++'s estimate) and wall
  time per tree, beside graphB++'s published 1000-tree figure (Table III of
  the paper; their "AB" (Aldous-Broder) column is a uniform spanning-tree
  sampler like our ``uniform``).  The quick default samples fewer trees than
  the paper's 1000 (``--trees``), so our tree-only figures are for fewer
  trees: more trees can only lower them.  CPU rows carry a roofline
  (``benchmarks/_harness.py``): adjacency entries of the trees (trees x 2m)
  per second, as a share of the machine's copy and gather rates over
  arrays of the graph's size, measured in the same run;
* graphB++ reproduction: Bitcoin OTC, graphB+ numbering, roots and seed 17,
  100 BFS trees: best 2,138 switches measured with the reference code;
* refined index (multilevel memetic search) and its wall time beside the
  issue's targets (2-core CPU, <= 60 s): Slashdot <= 74,000, Epinions <=
  54,000, wiki-Elec (graphB file) <= 16,500, Bitcoin OTC <= 1,150; and the
  best published figures (graphB++ 1000 BFS trees; BLP 40 h on Slashdot);
  beside it a proven lower bound (a packing of edge-disjoint unbalanced
  cycles around the refined state, ``frustration_lower_bound`` with its
  default steps; with ``--time-limit`` also limited to a quarter of it):
  the gap to the optimum is at most their difference, and a target below
  the bound cannot be met by any method;
* the certificate against the time given (``--skip`` all but ``bound`` for
  these rows alone): around the state of ``frustration(g, 16)``, the bound
  with its default steps (untimed) and with ``time_limit`` 10, 30 and 60 s
  (``--bound-limits``), each beside the refined index of that state and
  the issue's gap targets (Slashdot <= 1 %, Epinions and wiki-Elec <= 0.1 %);
* the converged default across seeds (``--skip`` all but ``seeds``): the
  untimed default ``frustration(g, seed=s)`` for ``--seeds`` seeds on
  Slashdot and Epinions, each with the Hamming distance of its state to
  seed 0's (the nearer of the state and its mirror image): different
  seeds that reach the same index from distant states say the search
  sits on a plateau that more of the same search does not leave;
* exact index (HiGHS with unbalanced-cycle cuts) and the heuristic's gap on
  small real graphs and on seeded near-balanced random graphs of about
  2,000 edges (a planted bipartition with 5-20 % of signs flipped);
* peak RSS of a 1000-tree Epinions cloud (tree-only), in a fresh process.

Compilation is excluded by a warm-up on a small graph.  The machine may be
shared: the load average is recorded with each row, and timings taken under
contention are inflated; refinement rows also record the process CPU time
(all threads), which contention does not inflate.

Run: ``python benchmarks/bench_frustration.py [--full] [--trees N]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from _harness import REPO, SHARED_DATA, Report, graph_roofline

import rapids_balance as rb
from rapids_balance.frustration_index import SAMPLERS, frustration_lower_bound

# graphB++ Table III, 1000 iterations (index); AB = Aldous-Broder (uniform trees)
PUBLISHED = {
    "wiki-Elec": {"bfs": 24_827, "rdfs": 51_197, "dfs": 50_617, "hybrid": 23_970,
                  "kruskal": 38_255, "uniform": 47_252},
    "Epinions": {"bfs": 100_450, "rdfs": 276_584, "dfs": 275_211, "hybrid": 118_588,
                 "kruskal": 200_264, "uniform": 246_941},
    "Slashdot": {"bfs": 117_587, "rdfs": 205_236, "dfs": 205_089, "hybrid": 115_932,
                 "kruskal": 188_495, "uniform": 198_785},
    # measured with the graphB++ reference code (issue 4), 1000 BFS trees
    "Bitcoin OTC": {"bfs": 1_927},
}
# index targets; wiki-Elec's earlier 16,500 is below the proven lower bound (16,730) of this file
TARGETS = {"Slashdot": 74_000, "Epinions": 54_000, "Bitcoin OTC": 1_150}
GAP_TARGETS = {"Slashdot": 3.0, "Epinions": 0.4, "wiki-Elec": 0.4}  # certified gap, % of the index
BLP = {"Slashdot": 77_283, "wiki-Elec": 29_257}  # graphB++ Table III baseline (40 h limit)
BOUND_GAP_TARGETS = {"Slashdot": 1.0, "Epinions": 0.1, "wiki-Elec": 0.1}  # %, within 60 s
BOUND_INPUTS = ("Slashdot", "Epinions", "wiki-Elec")
BOUND_SHARE = 0.25  # with --time-limit, the bound's own limit as a share of it (default steps)

INPUTS = [  # (name, shared-data file, large?, read options, sampler rows?)
    ("Bitcoin OTC", "soc-sign-bitcoinotc.csv.gz", False, {}, True),
    ("Bitcoin Alpha", "soc-sign-bitcoinalpha.csv.gz", False, {}, True),
    ("wiki-Elec", "wiki-Elec_graphB_SC21_edges.csv.gz", False, {}, True),
    # the same file with its 6,960 neutral (0) votes dropped instead of kept as positive edges
    ("wiki-Elec, 0 votes dropped", "wiki-Elec_graphB_SC21_edges.csv.gz", False,
     {"zero_sign": "drop"}, False),
    ("Slashdot", "soc-sign-Slashdot090221.txt.gz", True, {}, True),
    ("Epinions", "soc-sign-epinions.txt.gz", True, {}, True),
]
EXACT_INPUTS = [("Highland tribes", "highland_tribes_graphB_edges.csv.gz"),
                ("Sampson", "konect_out.moreno_sampson_sampson.gz"),
                ("Congress", "congress_nds-vu.csv.gz"),
                ("Bitcoin Alpha", "soc-sign-bitcoinalpha.csv.gz")]




def warm_up() -> None:
    g = rb.load_example("highland")
    for s in SAMPLERS:
        rb.frustration(g, 4, sampler=s, progress=False, refine=(s == "bfs"))
    rb.frustration_index_exact(g, time_limit=5)


def sampler_rows(rep: Report, name: str, g, samplers, trees: int, backend: str = "cpu") -> None:
    for s in samplers:
        t0 = time.perf_counter()
        res = rb.frustration(g, trees, sampler=s, refine=False, progress=False, backend=backend)
        sec = time.perf_counter() - t0
        pub = PUBLISHED.get(name, {}).get(s)
        rep.add(input=name, figure=f"tree index, {s}, {trees} trees{_on(backend)}", value=res.tree_index,
                unit="edges", published=f"graphB++ {s}, 1000 trees" if pub else None,
                published_value=pub, seconds=round(sec, 3),
                ms_per_tree=round(1000 * sec / max(trees, 1), 2), states=len(res.cloud),
                **(graph_roofline(g, trees * g.indices.size, sec, "adjacency entries (trees x 2m)")
                   if backend == "cpu" else {}))


def _on(backend: str) -> str:
    return "" if backend == "cpu" else f", {backend}"


def refine_row(rep: Report, name: str, g, trees: int, backend: str = "cpu",
               time_limit: float | None = None) -> None:
    t0, c0 = time.perf_counter(), time.process_time()
    if time_limit is not None:  # the defaults, stopped at the limit
        res = rb.frustration(g, time_limit=time_limit, progress=False, backend=backend)
        how = f"defaults, {time_limit:g} s limit{_on(backend)}"
    else:
        res = rb.frustration(g, trees, sampler="bfs", refine=True, progress=False, backend=backend)
        how = f"{trees} BFS trees + refine{_on(backend)}"
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    target = TARGETS.get(name)
    rep.add(input=name, figure=f"refined index ({how})",
            value=res.index,
            unit="edges", published="issue target (<=)" if target else None,
            published_value=target, seconds=round(sec, 2),
            seconds_refine=round(res.info["seconds_refine"], 2), tree_index=res.tree_index,
            cpu_seconds=round(cpu, 1),  # all threads; under contention wall > cpu / cores
            meets_target=None if target is None else res.index <= target)
    t0 = time.perf_counter()
    bound_limit = None if time_limit is None else BOUND_SHARE * time_limit
    lb = frustration_lower_bound(g, res.best_state, time_limit=bound_limit)
    rep.add(input=name, figure="lower bound: edge-disjoint unbalanced cycles around that state",
            value=lb.bound, unit="edges", peer="refined index (upper bound)", peer_value=res.index,
            gap=lb.gap, gap_percent=round(100 * lb.gap / max(res.index, 1), 3),
            gap_target_percent=GAP_TARGETS.get(name), seconds=round(time.perf_counter() - t0, 2),
            bound_time_limit=bound_limit,
            target_reachable=None if target is None else lb.bound <= target)
    pub = PUBLISHED.get(name, {}).get("bfs")
    if pub:
        rep.add(input=name, figure="refined index vs graphB++ 1000 BFS trees", value=res.index,
                unit="edges", published="graphB++ BFS 1000 trees", published_value=pub)
    if name in BLP:
        rep.add(input=name, figure="refined index vs BLP (Gurobi, 40 h limit)", value=res.index,
                unit="edges", published="graphB++ Table III BLP", published_value=BLP[name])


def bound_rows(rep: Report, name: str, g, limits: list[float]) -> None:
    """The bound around one refined state, untimed (default steps) and at each time limit."""
    state = rb.frustration(g, 16, progress=False).best_state
    for limit in [None, *limits]:
        t0, c0 = time.perf_counter(), time.process_time()
        lb = frustration_lower_bound(g, state, time_limit=limit)
        sec, cpu = time.perf_counter() - t0, time.process_time() - c0
        how = "default steps, no limit" if limit is None else f"time_limit={limit:g} s"
        gap = round(100 * lb.gap / max(lb.index, 1), 3)
        rep.add(input=name, figure=f"bound around the 16-tree refined state ({how})",
                value=lb.bound, unit="edges", lower_is_better=False,
                peer="refined index of that state (upper bound)", peer_value=lb.index,
                gap=lb.gap, gap_percent=gap, gap_target_percent=BOUND_GAP_TARGETS.get(name),
                meets_gap_target=gap <= BOUND_GAP_TARGETS.get(name, 100.0),
                time_limit=limit, seconds=round(sec, 2), cpu_seconds=round(cpu, 1),
                seconds_search=round(lb.info["seconds_search"], 2))


SEED_INPUTS = ("Slashdot", "Epinions")
CONVERGED_TARGETS = {"Slashdot": 74_000, "Epinions": 52_400}  # issue 30, the converged default (<=)


def seed_rows(rep: Report, name: str, g, seeds: int) -> None:
    """The untimed default's index for seeds 0 .. seeds - 1, each state's distance to seed 0's."""
    from rapids_balance.frustration_index._states import side_vector

    first, best = None, None
    for s in range(seeds):
        t0, c0 = time.perf_counter(), time.process_time()
        res = rb.frustration(g, seed=s, progress=False)
        sec, cpu = time.perf_counter() - t0, time.process_time() - c0
        side = side_vector(g, res.best_state)
        first = side if first is None else first
        differ = int((side != first).sum())
        rep.add(input=name, figure=f"refined index, untimed default, seed {s}", value=res.index,
                unit="edges", published="issue target, converged (<=)",
                published_value=CONVERGED_TARGETS[name],
                vertices_moved_from_seed_0=min(differ, g.n - differ),
                last_rounds=[int(v) for v in res.history["index"].to_numpy()[-3:]],
                seconds=round(sec, 1), cpu_seconds=round(cpu, 1))
        best = res if best is None or res.index < best.index else best
    # the untimed bound is reproducible: a target below it cannot be met by any method
    lb = frustration_lower_bound(g, best.best_state)
    rep.add(input=name, figure="lower bound around the best of those states (default steps)",
            value=lb.bound, unit="edges", lower_is_better=False,
            peer="best refined index of the seeds", peer_value=best.index,
            target=CONVERGED_TARGETS[name],
            target_below_bound=CONVERGED_TARGETS[name] < lb.bound)


def graphbplus_row(rep: Report) -> None:
    from rapids_balance.balancing import graphbplus_roots

    g = rb.read_edgelist(SHARED_DATA / "soc-sign-bitcoinotc.csv.gz", numbering="graphbplus")
    t0 = time.perf_counter()
    res = rb.frustration(g, 100, seed=17, roots=graphbplus_roots(g, 100), refine=False,
                         progress=False)
    rep.add(input="Bitcoin OTC", figure="tree index, graphB+ roots/seeds, 100 BFS trees",
            value=res.tree_index, unit="edges", peer="graphB++ reference code (measured)",
            peer_value=2138, seconds=round(time.perf_counter() - t0, 3))


def exact_rows(rep: Report, time_limit: float) -> None:
    for name, fname in EXACT_INPUTS:
        g = rb.read_edgelist(SHARED_DATA / fname)
        heur = rb.frustration(g, 100, progress=False)
        ex = rb.frustration_index_exact(g, time_limit=time_limit, start=heur.best_state)
        rep.add(input=name, figure="heuristic index (100 trees + refine)", value=heur.index,
                unit="edges", peer="exact (HiGHS)" + ("" if ex.optimal else " best, not proven"),
                peer_value=ex.index, exact_bound=ex.bound, exact_optimal=ex.optimal,
                exact_seconds=round(ex.seconds, 2),
                heuristic_gap=None if ex.index is None else heur.index - ex.index,
                proven_gap_to_bound=heur.index - ex.bound, cuts=ex.cuts)


def near_balanced_rows(rep: Report, time_limit: float) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from test_frustration_exact import near_balanced

    for n, noise in ((500, 0.05), (1000, 0.10), (400, 0.15), (200, 0.20)):
        g = near_balanced(n, 2000, noise, 1)
        t0 = time.perf_counter()
        heur = rb.frustration(g, 50, progress=False)
        th = time.perf_counter() - t0
        ex = rb.frustration_index_exact(g, time_limit=time_limit, start=heur.best_state)
        rep.add(input=f"near-balanced n={n} m={g.m} noise={noise}",
                figure="heuristic index (50 trees + refine)", value=heur.index, unit="edges",
                peer="exact (HiGHS)" + ("" if ex.optimal else " best, not proven"),
                peer_value=ex.index, heuristic_seconds=round(th, 2), exact_bound=ex.bound,
                exact_optimal=ex.optimal, exact_seconds=round(ex.seconds, 2), cuts=ex.cuts,
                heuristic_gap=None if ex.index is None else heur.index - ex.index)


def memory_row(rep: Report, trees: int) -> None:
    code = ("import resource, rapids_balance as rb;"
            f"g = rb.read_edgelist({str(SHARED_DATA / 'soc-sign-epinions.txt.gz')!r});"
            f"r = rb.frustration(g, {trees}, refine=False, progress=False);"
            "print(r.tree_index, len(r.cloud), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(REPO), check=True).stdout.split()
    idx, states, kb = int(out[0]), int(out[1]), int(out[2])
    rep.add(input="Epinions", figure=f"peak RSS, {trees} BFS trees, tree-only cloud",
            value=round(kb / 1024, 1), unit="MiB", published="issue limit (<)",
            published_value=2048, tree_index=idx, states=states,
            seconds=round(time.perf_counter() - t0, 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="1000 trees per sampler, as the paper")
    ap.add_argument("--trees", type=int, default=None, help="trees per sampler on small inputs")
    ap.add_argument("--large-trees", type=int, default=None, help="trees per sampler on "
                    "Slashdot and Epinions")
    ap.add_argument("--inputs", nargs="*", default=None, help="subset of input names")
    ap.add_argument("--exact-time", type=float, default=120.0, help="ILP time limit (s)")
    ap.add_argument("--skip", nargs="*", default=[],
                    choices=("samplers", "refine", "bound", "seeds", "graphbplus", "exact",
                             "memory"))
    ap.add_argument("--bound-limits", nargs="*", type=float, default=[10.0, 30.0, 60.0],
                    help="bound rows: time limits (s), beside the untimed default")
    ap.add_argument("--seeds", type=int, default=4,
                    help="seed rows: seeds of the untimed default per input")
    ap.add_argument("--out", default=None, help="JSON folder (default bench-results/)")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="refine rows: frustration's defaults with this limit (s) instead of "
                    "16 trees + refine")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "gpu", "auto"),
                    help="backend of the sampler and refine rows (default cpu)")
    args = ap.parse_args()
    small = args.trees or (1000 if args.full else 100)
    large = args.large_trees or (1000 if args.full else 16)
    rep = Report("frustration", description=__doc__.split("\n\n")[0],
                 params={"trees_small": small, "trees_large": large, "full": args.full,
                         "exact_time": args.exact_time, "backend": args.backend,
                         "time_limit": args.time_limit,
                         "note": "2-core machine shared with other jobs: times inflated"})
    warm_up()
    if "graphbplus" not in args.skip:
        graphbplus_row(rep)
    for name, fname, is_large, opts, with_samplers in INPUTS:
        if args.inputs and name not in args.inputs:
            continue
        g = rb.read_edgelist(SHARED_DATA / fname, **opts)
        if "samplers" not in args.skip and with_samplers:
            sampler_rows(rep, name, g, SAMPLERS, large if is_large else small, args.backend)
        if "refine" not in args.skip:
            refine_row(rep, name, g, 16, args.backend, args.time_limit)
        if "bound" not in args.skip and name in BOUND_INPUTS:
            bound_rows(rep, name, g, args.bound_limits)
        if "seeds" not in args.skip and name in SEED_INPUTS:
            seed_rows(rep, name, g, args.seeds)
    if "exact" not in args.skip:
        exact_rows(rep, args.exact_time)
        near_balanced_rows(rep, args.exact_time)
    if "memory" not in args.skip:
        memory_row(rep, 1000)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
