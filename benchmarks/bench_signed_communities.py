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

Usage: python benchmarks/bench_signed_communities.py [--seeds 3] [--signet PATH]
       [--large] [--real]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from _harness import SHARED_DATA, Report, rss_bytes, reset_peak_rss

import rapids_balance as rb


def _leiden(g, weights: str, all_comms: bool, seed: int):
    import igraph as ig
    import leidenalg as la

    layers = []
    for s in (1, -1):
        mask = g.sign == s
        h = ig.Graph(n=g.n, edges=list(zip(g.edge_src[mask].tolist(), g.edge_dst[mask].tolist())))
        layers.append(la.ModularityVertexPartition(h))
    mp, mn = float((g.sign > 0).sum()), float((g.sign < 0).sum())
    lw = [1.0, -1.0] if weights == "1,-1" else [mp / (mp + mn), -mn / (mp + mn)]
    opt = la.Optimiser()
    opt.set_rng_seed(seed)
    if all_comms:
        opt.consider_comms = la.ALL_COMMS
    t = time.perf_counter()
    opt.optimise_partition_multiplex(layers, layer_weights=lw, n_iterations=-1)
    return np.asarray(layers[0].membership), time.perf_counter() - t


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


def run_graph(rep, name, g, truth, k, seed, args):
    for objective in ("modularity", "potts", "imbalance"):
        t = time.perf_counter()
        r = rb.signed_communities(g, objective=objective, seed=seed)
        _score(rep, name, g, truth, r.labels["community"].to_numpy(), time.perf_counter() - t,
               f"ours signed_communities {objective}", objective_value=r.value)
    if k is not None:
        for variant in ("sponge", "sponge_sym"):
            t = time.perf_counter()
            r = rb.sponge(g, k, variant=variant, seed=seed)
            _score(rep, name, g, truth, r.labels["community"].to_numpy(), time.perf_counter() - t,
                   f"ours {variant} (k given)")
    try:
        import leidenalg  # noqa: F401
    except ImportError:
        print("  leidenalg not installed: pip install leidenalg igraph", file=sys.stderr)
    else:
        for weights in ("1,-1", "gja"):
            for all_comms in (False, True):
                if all_comms and g.n > 20_000:
                    continue  # a scan of every community per move: hours at this size
                lab, s = _leiden(g, weights, all_comms, seed)
                _score(rep, name, g, truth, lab, s, f"leidenalg multiplex [{weights}]"
                       f"{' ALL_COMMS' if all_comms else ''}")
    if args.signet and k is not None:
        sys.path.insert(0, args.signet)
        for sym in (False, True):
            lab, s = _signet(g, k, sym)
            _score(rep, name, g, truth, lab, s, f"SigNet SPONGE{'_sym' if sym else ''} (k given)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--signet", default=None, help="a checkout of SigNet's source (its root)")
    ap.add_argument("--large", action="store_true", help="also n = 10^5 and a 10^7-edge SSBM")
    ap.add_argument("--real", action="store_true", help="also Slashdot, Epinions, wiki-Elec")
    args = ap.parse_args()
    rep = Report("signed_communities", __doc__.splitlines()[0], params=vars(args))
    rb.signed_communities(rb.load_example("highland"))  # kernels ready
    for seed in range(args.seeds):
        m = rb.ssbm(5000, 15, 0.05, flip=0.1, seed=seed)
        run_graph(rep, f"SSBM n=5000 k=15 p=0.05 flip=0.1 seed={seed}", m.graph, m.groups, 15,
                  seed, args)
    if args.large:
        m = rb.ssbm(100_000, 15, 0.005, flip=0.1, seed=0)
        run_graph(rep, "SSBM n=1e5 k=15 p=0.005 flip=0.1", m.graph, m.groups, 15, 0, args)
        m = None
        reset_peak_rss()
        m = rb.ssbm(80_000, 15, 1e7 / (80_000 * 79_999 / 2), flip=0.1, seed=0)
        t = time.perf_counter()
        r = rb.signed_communities(m.graph, seed=0)
        s = time.perf_counter() - t
        rep.add(input=f"SSBM n=80000 k=15 {m.graph.m} edges flip=0.1", figure="ours modularity",
                value=round(s, 2), unit="s",
                ari=rb.adjusted_rand_index(m.groups, r.labels["community"]),
                peak_bytes_per_edge=rss_bytes(peak=True) / m.graph.m)
    if args.real:
        for name, path in (("Slashdot", "soc-sign-Slashdot090221.txt.gz"),
                           ("Epinions", "soc-sign-epinions.txt.gz"),
                           ("wiki-Elec", "wiki-Elec_votes_pm1.txt.gz")):
            f = SHARED_DATA / path
            if not f.exists():
                print(f"  {name}: {f.name} not found, skipped", file=sys.stderr)
                continue
            run_graph(rep, name, rb.read_edgelist(f), None, None, 0, args)
    rep.finish()


if __name__ == "__main__":
    main()
