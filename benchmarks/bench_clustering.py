"""Correlation clustering: imbalance and time vs published figures.

1. Levorato et al. (SBPO 2015) random instances, n = 400 and 600 (Tables 2-3),
   and Slashdot first-n instances, n = 1000 ... 10000 (Tables 4-5): our ILS
   against the best of the paper's four published averages (SeqGRASP,
   SeqGRASP/CUDA VND, SeqILS, SeqILS/CUDA VND; 5 runs each, Core i7 + Tesla
   C2050).  The paper's time limit, for GRASP and ILS alike (section 4.1-4.2
   parameter tables), is 2 hours per run: ``--time-limit`` defaults to 7200 s.
   Our result is decided by an iteration budget (``--restarts`` ILS restarts,
   each a fixed perturbation schedule), so it is the same on any machine;
   the time limit is only a cap, and a row says when it cut the run short
   (``stopped_by_time_limit``: then the figure depends on the machine).  The random instance files list every pair twice,
   (i,j) and (j,i), and the paper's I(P) counts both copies (e.g. one cluster
   on file_400_0.1_0.2 gives 3192 = 2 x 1596 negative pairs), so for those
   rows our imbalance on the undirected graph is reported doubled.
2. Full Slashdot (soc-sign-Slashdot090221) and Epinions, graphB+ "keep"
   cleaning (the default): the default method (``method="auto"``, which picks the
   memetic multilevel search on these graphs) with a 10 s limit vs the figures
   of Hausberger, Faraj and Schulz's multilevel solver (arXiv 2208.13618,
   69,029 / 49,008 in about 1 s on a 2-core CPU; their 60 s memetic results
   68,309 / 48,817), plus the paper's VND alone
   (sparse sums) and a 2-cluster solution against graphB++'s published
   frustration estimate (1000 BFS trees: 117,587 / 100,450).  These rows are
   decided by the time limit (the target is a time: <= 10 s), so their
   figures depend on the machine and its load.  The default-method row
   carries a roofline (``benchmarks/_harness.py``): the adjacency entries
   the search's kernels scanned (``ClusteringResult.work``; the VND's moves
   are not counted, so a lower bound) per second, as a share of the
   machine's copy and gather rates measured in the same run.

Usage: python benchmarks/bench_clustering.py [--quick] [--restarts R] [--time-limit S]
       [--large-time-limit S] [--only 'n=400 d=0.8,first 1000']
"""

from __future__ import annotations

import argparse
import time

from _harness import SHARED_DATA, Report, graph_roofline

import rapids_balance as rb

# (n, d, d-): (SeqGRASP, SeqGRASP/CUDA, SeqILS, SeqILS/CUDA) average I(P) and time (s)
RANDOM = {
    (400, 0.1, 0.2): ((3192, 100.67), (3192.0, 2.99), (3192, 10.07), (3192, 10.69)),
    (400, 0.1, 0.5): ((5803.6, 565.66), (5796.7, 21.86), (5714.4, 443.81), (5750.4, 44.65)),
    (400, 0.1, 0.8): ((2338, 1409.42), (2357.0, 33.69), (2171.2, 1675.43), (2223.2, 78.06)),
    (400, 0.2, 0.2): ((6384, 132.25), (6384.0, 2.81), (6384, 14.18), (6384, 12.95)),
    (400, 0.2, 0.5): ((12840.4, 656.99), (12833.2, 28.46), (12734.8, 563.41), (12796.8, 49.54)),
    (400, 0.2, 0.8): ((5324.4, 3254.87), (5355.6, 53.40), (5152.8, 2709.74), (5222.8, 123.28)),
    (400, 0.5, 0.2): ((15960, 232.70), (15960.0, 3.64), (15960, 36.86), (15960, 19.65)),
    (400, 0.5, 0.5): ((34862.4, 1219.75), (34829.6, 68.51), (34675.2, 1302.08), (34826.4, 71.14)),
    (400, 0.5, 0.8): ((14636, 3606.43), (14667.6, 100.32), (14438.4, 5849.67), (14527.2, 226.57)),
    (400, 0.8, 0.2): ((25536, 346.12), (25536.0, 4.71), (25536, 60.71), (25536, 26.26)),
    (400, 0.8, 0.5): ((57466.8, 2535.17), (57437.0, 132.01), (57242.4, 2101.79), (57446, 97.54)),
    (400, 0.8, 0.8): ((24086.8, 3608.31), (24122.0, 157.46), (23886.4, 7030.23), (24002.4, 312.83)),
    (600, 0.1, 0.2): ((7188, 334.64), (7188.0, 4.65), (7188, 17.35), (7188, 14.86)),
    (600, 0.1, 0.5): ((13915.2, 1414.86), (13914.8, 44.62), (13756, 967.29), (13827.6, 75.80)),
    (600, 0.1, 0.8): ((5730.4, 3601.82), (5771.6, 77.31), (5453.6, 5078.13), (5558, 162.17)),
    (600, 0.2, 0.2): ((14376, 447.66), (14376.0, 5.07), (14376, 32.92), (14376, 18.89)),
    (600, 0.2, 0.5): ((30149.2, 2670.39), (30123.3, 89.50), (29958.8, 1495.55), (30057.2, 89.13)),
    (600, 0.2, 0.8): ((12613.6, 3605.18), (12642.3, 139.35), (12328.4, 7182.95), (12445.2, 269.33)),
    (600, 0.5, 0.2): ((35940, 905.51), (35940.0, 8.13), (35940, 83.27), (35940, 31.46)),
    (600, 0.5, 0.5): ((80670.8, 3602.54), (80654.4, 198.65), (80393.2, 3278.09), (80694.4, 130.38)),
    (600, 0.5, 0.8): ((33808.8, 3629.47), (33854.7, 293.85), (33503.6, 7200.54), (33670.8, 594.54)),
    (600, 0.8, 0.2): ((57504, 1423.95), (57504.0, 11.68), (57504, 133.27), (57504, 43.70)),
    (600, 0.8, 0.5): ((132176.8, 3603.92), (132108.4, 304.84), (131710.4, 5641.22), (132099.6, 171.88)),
    (600, 0.8, 0.8): ((55182, 3656.96), (55203.2, 427.06), (54851.2, 7200.52), (55021.2, 758.44)),
}
SLASHDOT_FIRST_N = {
    1000: ((600.0, 23.69), (600.0, 18.75), (600.2, 33.64), (600.2, 15.71)),
    2000: ((2186.0, 232.48), (2187.4, 73.93), (2187.5, 107.42), (2201.6, 38.15)),
    4000: ((6202.6, 1415.45), (6206.2, 335.88), (6218.6, 591.84), (6213.2, 105.96)),
    8000: ((16082.6, 7030.32), (16087.2, 2189.18), (16072.1, 2229.04), (16082.6, 604.51)),
    10000: ((20594.6, 7200.49), (20596.6, 2680.88), (20595.1, 3618.14), (20600.6, 1087.89)),
}
RESTARTS = 10  # the paper's ILS iter = 10
VARIANTS = ("SeqGRASP", "SeqGRASP/CUDA VND", "SeqILS", "SeqILS/CUDA VND")
MULTILEVEL_SOTA = {"slashdot": 69029, "epinions": 49008}      # Hausberger et al., ~1 s, 2 cores
MEMETIC_SOTA = {"slashdot": 68309, "epinions": 48817}         # Hausberger et al., memetic, 60 s
TARGET_10S = {"slashdot": 68300, "epinions": 48800}           # this release's targets, 10 s
GRAPHBPP_FRUSTRATION = {"slashdot": 117587, "epinions": 100450}  # graphB++, 1000 BFS trees
LARGE = {"slashdot": "soc-sign-Slashdot090221.txt.gz", "epinions": "soc-sign-epinions.txt.gz"}


def _best_published(figures):
    i = min(range(4), key=lambda j: figures[j][0])
    return figures[i][0], figures[i][1], VARIANTS[i]


def _selected(args, name):
    return args.only is None or any(part in name for part in args.only.split(","))


def _paper_row(report, name, graph, figures, factor, args):
    value, secs, who = _best_published(figures)
    # a fixed restart budget decides the result; the paper's 2 h limit is only a cap
    res = rb.correlation_clustering(graph, method="ils", seed=args.seed, progress=False,
                                    time_limit=args.time_limit, max_iterations=args.restarts)
    ours = factor * res.imbalance
    report.add(input=name, figure="I(P), ILS" + (" (x2: pairs listed twice)" if factor == 2 else ""),
               value=ours, published=f"best published average ({who})", published_value=value,
               time_s=round(res.elapsed_s, 2), published_time_s=secs, clusters=res.n_clusters,
               target_met=ours <= value + 1e-9 and res.elapsed_s <= args.time_limit,
               restarts=res.iterations, restart_budget=args.restarts,
               stopped_by_time_limit=res.iterations < args.restarts
               or res.elapsed_s >= args.time_limit)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few instances only")
    ap.add_argument("--time-limit", type=float, default=7200.0,
                    help="cap per paper instance, seconds (default: the paper's 2 h)")
    ap.add_argument("--restarts", type=int, default=RESTARTS,
                    help="ILS restarts per paper instance (the budget that decides the result)")
    ap.add_argument("--only", default=None,
                    help="comma-separated substrings: run only the paper rows whose name has one")
    ap.add_argument("--large-time-limit", type=float, default=10.0,
                    help="limit for full Slashdot / Epinions, seconds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-paper", action="store_true")
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--skip-random", action="store_true")
    ap.add_argument("--name", default="clustering", help="report name (bench-results/NAME.json)")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "gpu"),
                    help="gpu: also time the VND pass of the large graphs on the GPU beside the CPU")
    args = ap.parse_args()
    report = Report(args.name, __doc__.split("\n\n")[0],
                    params={"time_limit": args.time_limit, "restarts": args.restarts,
                            "large_time_limit": args.large_time_limit,
                            "seed": args.seed, "quick": args.quick,
                            "note": "2-core machine shared with other jobs: times inflated"})
    # warm the numba caches so no row pays for compilation
    rb.correlation_clustering(rb.load_example("highland"), method="ils", progress=False)

    if not args.skip_paper:
        tar = SHARED_DATA / "levorato_cc_random_sg_bigger.tar.gz"
        keys = [] if args.skip_random else [(400, 0.1, 0.5), (600, 0.8, 0.5)] if args.quick else list(RANDOM)
        for n, d, dm in keys:
            if not _selected(args, f"random n={n} d={d} d-={dm}"):
                continue
            member = f"levorato_cc_random_sg_bigger/file_{n}_{d}_{dm}.g"
            g = rb.read_edgelist(tar, format="mrel", member=member)
            _paper_row(report, f"random n={n} d={d} d-={dm}", g, RANDOM[(n, d, dm)], 2, args)
        tar = SHARED_DATA / "levorato_cc_slashdot_first_n.tar.gz"
        for n in ([1000, 10000] if args.quick else list(SLASHDOT_FIRST_N)):
            if not _selected(args, f"Slashdot first {n}"):
                continue
            g = rb.read_edgelist(tar, format="levorato",
                                 member=f"slashdot-undirected-size{n}-part0.g")
            _paper_row(report, f"Slashdot first {n}", g, SLASHDOT_FIRST_N[n], 1, args)

    if not args.skip_large:
        for key, fname in LARGE.items():
            g = rb.read_edgelist(SHARED_DATA / fname)
            name = f"{key} ({g.n:,} v, {g.m:,} e)"
            res = rb.correlation_clustering(g, seed=args.seed, progress=False,
                                            time_limit=args.large_time_limit, max_iterations=1000)
            first = float(res.history["imbalance"].iloc[0])
            report.add(input=name, figure=f"I(P), default method ({res.method}), "
                       f"{args.large_time_limit:g} s limit",
                       value=res.imbalance, published="Hausberger et al. memetic (60 s)",
                       published_value=MEMETIC_SOTA[key], time_s=round(res.elapsed_s, 2),
                       multilevel_1s_value=MULTILEVEL_SOTA[key], target=TARGET_10S[key],
                       first_cycle_imbalance=first,
                       first_cycle_s=round(float(res.history["time_s"].iloc[0]), 2),
                       cycles=res.iterations, decided_by="time limit",
                       target_met=res.imbalance <= TARGET_10S[key]
                       and res.elapsed_s <= 1.05 * args.large_time_limit,
                       **graph_roofline(g, res.work, res.elapsed_s,
                                        "adjacency entries scanned (VND moves not counted)"))
            t0 = time.perf_counter()
            vnd = rb.correlation_clustering(g, method="vnd", local_search="best", progress=False,
                                            backend="cpu")
            t_cpu = time.perf_counter() - t0
            report.add(input=name, figure="I(P), paper VND from singletons (sparse sums)",
                       value=vnd.imbalance, published="Hausberger et al. multilevel (~1 s, 2 cores)",
                       published_value=MULTILEVEL_SOTA[key], time_s=round(t_cpu, 2))
            if args.backend != "cpu":
                # the GPU target: >= 10x our own CPU path per VND pass, same run
                rb.correlation_clustering(rb.load_example("highland"), method="vnd",
                                          local_search="best", progress=False, backend=args.backend)
                t0 = time.perf_counter()
                gv = rb.correlation_clustering(g, method="vnd", local_search="best", progress=False,
                                               backend=args.backend)
                t_gpu = time.perf_counter() - t0
                report.add(input=name, figure=f"VND from singletons, {args.backend} (s)",
                           value=round(t_gpu, 3), unit="s", peer="same VND on the CPU (s)",
                           peer_value=round(t_cpu, 3), speedup=round(t_cpu / t_gpu, 1),
                           same_imbalance=gv.imbalance == vnd.imbalance)
            two = rb.correlation_clustering(g, method="multilevel", n_clusters=2, seed=args.seed,
                                            progress=False, max_iterations=1000,
                                            time_limit=args.large_time_limit)
            report.add(input=name, figure="I(P) with 2 clusters (= frustration of that balanced state)",
                       value=two.imbalance, published="graphB++ frustration estimate, 1000 BFS trees",
                       published_value=GRAPHBPP_FRUSTRATION[key], time_s=round(two.elapsed_s, 2))
    report.finish()


if __name__ == "__main__":
    main()
