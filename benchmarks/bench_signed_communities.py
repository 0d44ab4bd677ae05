"""Signed communities beside leidenalg and SigNet, in the same run.

Peers (optional; each row says when one is missing):

* leidenalg's multiplex formulation of signed modularity: the positive and
  the negative layer as ``ModularityVertexPartition``s optimised together,
  with layer weights ``[1, -1]`` (the recipe given in its issue threads:
  ``Q+ - Q-``) and with ``[2w+, -2w-] / (2w+ + 2w-)`` (Gomez-Jensen-Arenas'
  Q exactly), default moves and ``consider_comms=ALL_COMMS``;
* SigNet's SPONGE (Cucuringu et al.), imported from a checkout of its public
  source given by ``--signet PATH`` (its ``signet`` package; needs scikit-learn).

Every partition, ours and the peers', is scored by our evaluators
(``rb.signed_modularity``, ``rb.imbalance``) and by the adjusted Rand index
against the planted groups where there are some.

Usage: python benchmarks/bench_signed_communities.py [--seeds 10] [--signet PATH]
       [--large] [--real [--networks N,..]] [--leiden-timeout S] [--objectives modularity,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _harness import SHARED_DATA, Report

import rapids_balance as rb


def _leiden_run(n, src, dst, sign, weights: str, all_comms: bool, seed: int):
    import igraph as ig
    import leidenalg as la

    layers = []
    for s in (1, -1):
        mask = sign == s
        h = ig.Graph(n=n, edges=list(zip(src[mask].tolist(), dst[mask].tolist())))
        layers.append(la.ModularityVertexPartition(h))
    mp, mn = float((sign > 0).sum()), float((sign < 0).sum())
    lw = [1.0, -1.0] if weights == "1,-1" else [mp / (mp + mn), -mn / (mp + mn)]
    opt = la.Optimiser()
    opt.set_rng_seed(seed)
    if all_comms:
        opt.consider_comms = la.ALL_COMMS
    t, c = time.perf_counter(), time.process_time()
    opt.optimise_partition_multiplex(layers, layer_weights=lw, n_iterations=-1)
    return np.asarray(layers[0].membership), time.perf_counter() - t, time.process_time() - c


def _leiden(g, weights: str, all_comms: bool, seed: int, timeout: float | None = None):
    """leidenalg in a process of its own (it cannot be stopped from Python): (labels,
    wall seconds, CPU seconds of its process), or (None, timeout, None) when it has not
    finished by then.  Its CPU seconds are its time on a machine shared with other work (it
    runs one thread)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, TimeoutError as Late

    pool = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"))
    job = pool.submit(_leiden_run, g.n, g.edge_src, g.edge_dst, g.sign, weights, all_comms, seed)
    try:
        return job.result(timeout=timeout)
    except Late:
        for proc in pool._processes.values():
            proc.kill()
        return None, timeout, None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _signet(g, k: int, sym: bool):
    import scipy.sparse as sp
    from signet.cluster import Cluster

    mats = []
    for s in (1, -1):
        mask = g.sign == s
        u, v = g.edge_src[mask], g.edge_dst[mask]
        mats.append(sp.csc_matrix((np.ones(2 * u.size), (np.r_[u, v], np.r_[v, u])),
                                  shape=(g.n, g.n)))
    c = Cluster((mats[0], mats[1]))
    t = time.perf_counter()
    lab = c.SPONGE_sym(k) if sym else c.SPONGE(k)
    return np.asarray(lab), time.perf_counter() - t


def _score(rep, name, g, truth, lab, seconds, method, **extra):
    q = rb.signed_modularity(g, lab).modularity
    imb = rb.imbalance(g, lab).imbalance
    row = dict(input=name, figure=method, value=round(seconds, 3), unit="s", modularity=q,
               imbalance=imb, communities=int(np.unique(lab).size), **extra)
    if truth is not None:
        row["ari"] = rb.adjusted_rand_index(truth, lab)
    rep.add(**row)


def run_graph(rep, name, g, truth, k, seed, args, objectives=("modularity", "potts", "imbalance"),
              leiden=True):
    for objective in objectives:
        for restarts in args.ours_restarts:
            t, c = time.perf_counter(), time.process_time()
            r = rb.signed_communities(g, objective=objective, seed=seed, restarts=restarts)
            _score(rep, name, g, truth, r.labels["community"].to_numpy(), time.perf_counter() - t,
                   f"ours signed_communities {objective}"
                   f"{f' restarts={restarts}' if restarts > 1 else ''}", objective_value=r.value,
                   cpu_seconds=round(time.process_time() - c, 2))
        if args.ours_spectral:
            t, c = time.perf_counter(), time.process_time()
            r = rb.signed_communities(g, objective=objective, seed=seed,
                                      spectral_start=args.ours_spectral)
            _score(rep, name, g, truth, r.labels["community"].to_numpy(), time.perf_counter() - t,
                   f"ours signed_communities {objective} spectral_start={args.ours_spectral}",
                   objective_value=r.value, best_start=r.info.get("best_start"),
                   spectral_k=r.info.get("spectral_k"), cpu_seconds=round(time.process_time() - c, 2))
    if k is not None and args.ours_sponge:
        for variant in ("sponge", "sponge_sym"):
            t = time.perf_counter()
            r = rb.sponge(g, k, variant=variant, seed=seed)
            _score(rep, name, g, truth, r.labels["community"].to_numpy(), time.perf_counter() - t,
                   f"ours {variant} (k given)")
    try:
        import leidenalg  # noqa: F401
    except ImportError:
        print("  leidenalg not installed: pip install leidenalg igraph", file=sys.stderr)
        leiden = False
    if leiden:
        for weights in args.leiden_weights.split(";"):
            for all_comms in (False, True):
                if all_comms and g.n > args.all_comms_max_n:
                    continue  # a scan of every community per move: hours at this size
                figure = (f"leidenalg multiplex [{weights}]{' ALL_COMMS' if all_comms else ''}")
                lab, s, cpu = _leiden(g, weights, all_comms, seed, args.leiden_timeout)
                if lab is None:
                    rep.add(input=name, figure=figure, value=None, unit="s",
                            note=f"not finished after {s:.0f} s (stopped)")
                    continue
                _score(rep, name, g, truth, lab, s, figure, cpu_seconds=round(cpu, 2))
    if args.signet and k is not None:
        sys.path.insert(0, args.signet)
        for sym in (False, True):
            lab, s = _signet(g, k, sym)
            _score(rep, name, g, truth, lab, s, f"SigNet SPONGE{'_sym' if sym else ''} (k given)")


def huge_row(rep, seed: int = 0) -> None:
    """The 10^7-edge planted SSBM in a process of its own, so that its peak resident set
    (``VmHWM``: generation, graph and search; Python and numba included) is the whole
    process's and nothing else's."""
    import json
    import subprocess

    code = ("import sys, time, json; sys.path.insert(0, sys.argv[1]); "
            "from _harness import rss_bytes; import rapids_balance as rb; "
            "rb.signed_communities(rb.load_example('highland')); "
            "t = time.perf_counter(); "
            "m = rb.ssbm(80_000, 15, 1e7 / (80_000 * 79_999 / 2), flip=0.1, seed=int(sys.argv[2])); "
            "tg = time.perf_counter() - t; t = time.perf_counter(); "
            "r = rb.signed_communities(m.graph, seed=int(sys.argv[2])); "
            "s = time.perf_counter() - t; "
            "print(json.dumps(dict(m=m.graph.m, generate_s=tg, search_s=s, peak=rss_bytes(peak=True), "
            "ari=rb.adjusted_rand_index(m.groups, r.labels['community']), "
            "communities=r.n_communities, modularity=r.value)))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(seed)],
                         capture_output=True, text=True, check=True)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    rep.add(input=f"SSBM n=80000 k=15 {d['m']} edges flip=0.1 seed={seed}",
            figure="ours signed_communities modularity", value=round(d["search_s"], 2), unit="s",
            generate_s=round(d["generate_s"], 2), ari=d["ari"], communities=d["communities"],
            modularity=d["modularity"], peak_bytes=d["peak"],
            peak_bytes_per_edge=round(d["peak"] / d["m"], 1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=1, help="SSBM n=5000 seeds (0: none)")
    ap.add_argument("--leiden-seeds", type=int, default=1,
                    help="leidenalg on the first this many SSBM seeds only")
    ap.add_argument("--leiden-weights", default="gja;1,-1",
                    help="layer weights of leidenalg's rows, ';'-separated: '1,-1' and/or 'gja'")
    ap.add_argument("--leiden-timeout", type=float, default=None,
                    help="seconds after which a leidenalg run is stopped (a row says so)")
    ap.add_argument("--all-comms-max-n", type=int, default=20_000,
                    help="leidenalg's ALL_COMMS only up to this many vertices")
    ap.add_argument("--objectives", default="modularity,potts,imbalance")
    ap.add_argument("--ours-restarts", default="1", type=lambda v: [int(x) for x in v.split(",")],
                    help="rows of ours with these restarts (comma-separated)")
    ap.add_argument("--ours-spectral", type=lambda v: v if v == "auto" else int(v), default=None,
                    help="also a row of ours with spectral_start=K")
    ap.add_argument("--no-ours-sponge", dest="ours_sponge", action="store_false")
    ap.add_argument("--signet", default=None, help="a checkout of SigNet's source (its root)")
    ap.add_argument("--large", action="store_true",
                    help="also n = 10^5 (mean degree 250, as n = 5000 at p = 0.05) and a "
                         "10^7-edge SSBM (time, ARI, peak bytes per edge)")
    ap.add_argument("--large-parts", default="1e5,1e7", help="with --large: which of them")
    ap.add_argument("--large-seeds", type=int, default=1,
                    help="with --large: SSBM seeds 0..N-1 at n = 10^5")
    ap.add_argument("--sparse", action="store_true",
                    help="also SSBMs below and just above the Kesten-Stigum bound (mean degree "
                         "50 at n = 20,000; 120 at n = 3,000)")
    ap.add_argument("--sparse-sizes", default="20000,3000", help="with --sparse: which of them")
    ap.add_argument("--real", action="store_true", help="also Slashdot, Epinions, wiki-Elec")
    ap.add_argument("--networks", default="Slashdot,Epinions,wiki-Elec",
                    help="with --real: which of them")
    ap.add_argument("--out", default=None, help="folder of the JSON (default bench-results)")
    args = ap.parse_args()
    rep = Report("signed_communities", __doc__.splitlines()[0], params=vars(args))
    rb.signed_communities(rb.load_example("highland"))  # kernels ready
    objectives = tuple(args.objectives.split(","))
    for seed in range(args.seeds):
        m = rb.ssbm(5000, 15, 0.05, flip=0.1, seed=seed)
        run_graph(rep, f"SSBM n=5000 k=15 p=0.05 flip=0.1 seed={seed}", m.graph, m.groups, 15,
                  seed, args, objectives, leiden=seed < args.leiden_seeds)
    if args.sparse:
        for n, d in [(n, d) for n, d in ((20_000, 50), (3_000, 120)) if str(n) in args.sparse_sizes]:
            m = rb.ssbm(n, 15, d / (n - 1), flip=0.1, seed=0)
            name = f"SSBM n={n} k=15 mean degree {d} flip=0.1 seed=0"
            _score(rep, name, m.graph, m.groups, m.groups, 0.0, "planted groups")
            run_graph(rep, name, m.graph, m.groups, 15, 0, args, objectives, leiden=False)
    parts = args.large_parts.split(",") if args.large else ()
    for seed in range(args.large_seeds) if "1e5" in parts else ():
        m = rb.ssbm(100_000, 15, 250 / 99_999, flip=0.1, seed=seed)
        run_graph(rep, f"SSBM n=1e5 k=15 p=0.0025 (mean degree 250) flip=0.1 seed={seed}",
                  m.graph, m.groups, 15, seed, args, objectives, leiden=False)
        m = None
        rep.finish(args.out)  # each seed's rows kept as it ends: a seed takes minutes
    if "1e7" in parts:
        huge_row(rep)
    if args.real:
        for name, path in (("Slashdot", "soc-sign-Slashdot090221.txt.gz"),
                           ("Epinions", "soc-sign-epinions.txt.gz"),
                           ("wiki-Elec", "wiki-Elec_votes_pm1.txt.gz")):
            f = SHARED_DATA / path
            if name not in args.networks.split(","):
                continue
            if not f.exists():
                print(f"  {name}: {f.name} not found, skipped", file=sys.stderr)
                continue
            g = rb.read_edgelist(f)
            run_graph(rep, f"{name} (n={g.n}, m={g.m})", g, None, None, 0, args, objectives)
    rep.finish(args.out)


if __name__ == "__main__":
    main()
