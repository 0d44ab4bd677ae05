"""``rapids-balance cluster`` (correlation clustering) and ``rapids-balance communities``
(signed modularity, signed Potts, SPONGE) of a signed graph file."""

from __future__ import annotations

import argparse
from typing import Any

from .._validation import check_number, check_seed, check_time_limit
from ._solve import MAX_INT32, MAX_ITERATIONS
from .._compile_clock import CompileClock
from ..cli import (Run, add_backend_argument, add_input_arguments, add_output_arguments, add_plot_argument,
                   add_progress_arguments, check_count, check_run_options, component_summary, report, draw_plot,
                   float_arg, if_given, int_arg, progress_option, require_table_writer, write_table)

__all__ = ["register"]


def register(subparsers: Any) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add the ``cluster`` and ``communities`` sub-commands."""
    return _register_cluster(subparsers), _register_communities(subparsers)


def _register_cluster(subparsers: Any) -> argparse.ArgumentParser:
    from ._solve import LOCAL_SEARCHES, METHODS

    p = subparsers.add_parser(
        "cluster", help="correlation clustering (minimise the imbalance I(P))",
        description="Partition a signed graph into clusters minimising the imbalance: negative "
                    "edges inside clusters plus positive edges between them (Levorato et al.'s "
                    "VND/GRASP/ILS, or the multilevel solver for large graphs).  With --out FILE, "
                    "also writes FILE.run.json (command line, parameters, input checksum, cleaning "
                    "report, timings).")
    add_input_arguments(p)
    p.add_argument("--method", choices=("auto", *METHODS), default="auto",
                   help="search method: auto (default: ils up to 50,000 edges or 2,000 vertices, "
                        "multilevel above), ils, grasp, vnd or multilevel")
    p.add_argument("--n-clusters", type=int_arg, default=None, help="at most this many clusters")
    p.add_argument("--alpha", type=float_arg, default=1.0, help="GRASP alpha in [0, 1] (default 1.0)")
    p.add_argument("--max-iterations", type=int_arg, default=None,
                   help="restarts (grasp/ils) or stale V-cycles (multilevel)")
    p.add_argument("--time-limit", type=float_arg, default=None, metavar="S",
                   help="return the best clustering found after S seconds (results then depend on "
                        "speed)")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="random seed (an int in [0, 2**63 - 1]; default 0)")
    p.add_argument("--local-search", choices=LOCAL_SEARCHES, default="auto",
                   help="VND flavour: best (paper), parallel rounds, or auto")
    p.add_argument("--perturbation", choices=("auto", "mixed", "vertex"), default="auto",
                   help="ILS kicks: vertex moves only (the paper), also cluster merges/splits, "
                        "or auto (by density)")
    p.add_argument("--plateau", choices=("auto", "on", "off"), default="auto",
                   help="ILS: keep perturbations that end at an equal imbalance (auto: on; "
                        "off: the paper)")
    p.add_argument("--merge-moves", choices=("auto", "on", "off"), default="auto",
                   help="ILS: VND also merges whole clusters (auto: on dense graphs; off: the paper)")
    add_backend_argument(p)
    add_output_arguments(p, "write vertex,cluster as CSV (.parquet: Parquet; its directory must "
                         "exist); default: summary only", required=False, metavar="FILE")
    p.add_argument("--bound", action="store_true",
                   help="also prove a lower bound on the optimum (cycles with one negative edge "
                        "packed around the clustering) and report the certified gap")
    p.add_argument("--bound-time-limit", type=float_arg, default=None, metavar="S",
                   help="seconds for the bound (default: no limit)")
    p.add_argument("--bound-method", choices=("auto", "packing", "lp"), default="auto",
                   help="the bound: packed cycles, the cycle LP by cutting planes (highspy; "
                        "graphs up to 2,000 vertices and 40,000 edges), or auto (lp up to 1,000 "
                        "vertices and 2,000 edges when highspy is installed)")
    add_plot_argument(p, "the imbalance against time")
    add_progress_arguments(p)
    p.set_defaults(func=_run)
    return p


def _switch(value: str) -> bool | None:
    return None if value == "auto" else value == "on"


def _check_options(args) -> None:
    """Every option, before the graph is loaded."""
    check_count(args.n_clusters, "--n-clusters", "cluster", low=1, high=MAX_INT32)
    check_number(args.alpha, "--alpha", "cluster", low=0.0, high=1.0)
    check_count(args.max_iterations, "--max-iterations", "cluster", low=1, high=MAX_ITERATIONS)
    if_given(check_time_limit, args.time_limit, "cluster", name="--time-limit", allow_none=False)
    check_seed(args.seed, "cluster", name="--seed")
    if_given(check_time_limit, args.bound_time_limit, "cluster", name="--bound-time-limit",
             allow_none=False)
    if args.out is not None:
        require_table_writer(args.out, "--out")
    if args.bound:
        from ._bound import resolve_method

        args.bound_method = resolve_method(args.bound_method, "cluster", name="--bound-method")
    check_run_options(args)


def _run(args) -> int:
    from ._solve import correlation_clustering

    _check_options(args)
    run = Run(args, files={"--out": args.out, "--plot": args.plot}, manifest_beside=args.out)
    graph = run.load()
    if args.bound:
        from ._bound import method_for

        bound_method = method_for(graph, args.bound_method, "cluster", name="--bound-method")
    with run.compute():
        with CompileClock() as clock:  # the search's own time leaves numba's compiling out
            res = correlation_clustering(graph, method=args.method, n_clusters=args.n_clusters,
                                         alpha=args.alpha, max_iterations=args.max_iterations,
                                         time_limit=args.time_limit, seed=args.seed,
                                         local_search=args.local_search, perturbation=args.perturbation,
                                         plateau=_switch(args.plateau),
                                         merge_moves=_switch(args.merge_moves), backend=args.backend,
                                         progress=progress_option(args))
        search_s = max(res.elapsed_s - clock.seconds, 0.0)
        bound = None
        if args.bound:
            from ._bound import clustering_lower_bound

            bound = clustering_lower_bound(graph, res.labels, method=bound_method,
                                           seed=args.seed, time_limit=args.bound_time_limit)
    if args.out or args.plot:
        with run.writing():
            if args.out:
                write_table(res.labels, run.wrote(args.out))
            draw_plot(run, args, res)
    if args.out:
        run.finish(seed=res.seed, backend=res.backend)
    p = res.parts
    certificate = ""
    if bound is not None:
        certificate = (f"; lower bound {bound.bound:g} ({bound.method}, {bound.elapsed_s:.2f} s), "
                       + ("optimal" if bound.gap <= 0 else
                          f"certified gap {bound.gap:g} ({100 * bound.relative_gap:.2f} % of I(P))"))
    print(f"{graph.name or args.path}: {graph.n:,} vertices, {graph.m:,} edges; imbalance I(P) = "
          f"{p.imbalance:g} (negative inside {p.negative_inside:g}, positive between "
          f"{p.positive_between:g}), {p.n_clusters:,} clusters; method {res.method} (backend "
          f"{res.backend}, seed {res.seed}), {res.iterations} iteration"
          f"{'' if res.iterations == 1 else 's'} in {search_s:.2f} s{certificate}{run.compile_note()}")
    report(args, component_summary(graph),
           f"balance B(P) = {p.balance:g} of {p.total_weight:g}")
    if not args.quiet:
        run.report_written()
    return 0


# -- communities -----------------------------------------------------------------------------

COMMUNITY_METHODS = ("leiden", "sponge", "sponge_sym")


def _register_communities(subparsers: Any) -> argparse.ArgumentParser:
    from ._signed_objective import NULL_MODELS, OBJECTIVES

    p = subparsers.add_parser(
        "communities", help="signed communities (signed modularity, signed Potts, SPONGE)",
        description="Communities of a signed graph: a Leiden-style search for signed modularity "
                    "(Gomez-Jensen-Arenas), the signed Potts model (Traag-Bruggeman) or the "
                    "imbalance, with a resolution; or SPONGE spectral clustering (Cucuringu et "
                    "al.), k chosen by the signed Bethe Hessian unless given.  With --out FILE, "
                    "also writes FILE.run.json.")
    add_input_arguments(p)
    p.add_argument("--method", choices=COMMUNITY_METHODS, default="leiden",
                   help="leiden (default: the search for --objective), sponge or sponge_sym")
    p.add_argument("--objective", choices=OBJECTIVES, default="modularity",
                   help="leiden: what to optimise (default modularity)")
    p.add_argument("--resolution", default="1.0", metavar="G[,G-]",
                   help="leiden: gamma for both signs, or gamma+,gamma- (default 1.0)")
    p.add_argument("--null", choices=NULL_MODELS, default="erdos_renyi",
                   help="leiden with --objective potts: the null model (default erdos_renyi)")
    p.add_argument("--restarts", type=int_arg, default=1, help="leiden: restarts (default 1)")
    p.add_argument("--spectral-start", type=_k_or_auto, default=None, metavar="K",
                   help="leiden: two more restarts, from SPONGE's and SPONGE_sym's K groups, "
                        "or 'auto' (K from the signed Bethe Hessian): sparse graphs, block "
                        "models whose positive edges mostly join different groups")
    p.add_argument("--k", type=int_arg, default=None,
                   help="sponge: number of groups (default: from the signed Bethe Hessian)")
    p.add_argument("--time-limit", type=float_arg, default=None, metavar="S",
                   help="leiden: return the best partition found after S seconds")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="random seed (an int in [0, 2**63 - 1]; default 0)")
    add_output_arguments(p, "write vertex,community as CSV (.parquet: Parquet); default: "
                         "summary only", required=False, metavar="FILE")
    add_plot_argument(p, "community sizes and the positive / negative weight inside and "
                         "between communities (leiden)")
    add_progress_arguments(p)
    p.set_defaults(func=_run_communities)
    return p


def _resolution(text: str):
    from .._validation import param_error
    from ._signed_objective import check_resolution

    parts = str(text).split(",")
    try:
        values = [float(x) for x in parts]
    except ValueError:
        raise param_error("--resolution", "communities", "a number or two numbers gamma+,gamma-",
                          text) from None
    return check_resolution(values[0] if len(values) == 1 else values, "communities",
                            name="--resolution")


def _k_or_auto(text: str) -> int | str:
    """argparse type of ``--spectral-start``: an integer or ``auto``."""
    return "auto" if text.strip().lower() == "auto" else int_arg(text)


def _run_communities(args) -> int:
    from .._validation import param_error

    owner = "communities"
    res = _resolution(args.resolution)
    check_count(args.restarts, "--restarts", owner, low=1, high=10**6)
    check_count(args.k, "--k", owner, low=2, high=MAX_INT32)
    if args.spectral_start != "auto":
        check_count(args.spectral_start, "--spectral-start", owner, low=2, high=MAX_INT32)
    if_given(check_time_limit, args.time_limit, owner, name="--time-limit", allow_none=False)
    check_seed(args.seed, owner, name="--seed")
    if args.method != "leiden" and args.spectral_start is not None:
        raise param_error("--spectral-start", owner, "given with --method leiden only (sponge "
                          "takes its groups from --k)", args.spectral_start)
    if args.method != "leiden" and args.plot is not None:
        raise param_error("--plot", owner, "given with --method leiden only (the picture needs "
                          "the community table of the search)", args.plot)
    if args.out is not None:
        require_table_writer(args.out, "--out")
    check_run_options(args)
    run = Run(args, files={"--out": args.out, "--plot": args.plot}, manifest_beside=args.out)
    graph = run.load()
    with run.compute():
        if args.method == "leiden":
            from ._communities import signed_communities

            result = signed_communities(graph, objective=args.objective, resolution=res,
                                        null=args.null, seed=args.seed, restarts=args.restarts,
                                        time_limit=args.time_limit,
                                        spectral_start=args.spectral_start)
        else:
            from ._sponge import sponge

            result = sponge(graph, args.k, variant=args.method, seed=args.seed)
    if args.out or args.plot:
        with run.writing():
            if args.out:
                write_table(result.labels, run.wrote(args.out))
            draw_plot(run, args, result)
    if args.out:
        run.finish(seed=args.seed, backend="cpu")
    report(args, f"graph: {graph.n:,} vertices, {graph.m:,} edges", component_summary(graph))
    if args.method == "leiden":
        what = {"modularity": "signed modularity Q", "potts": f"signed Potts F ({args.null})",
                "imbalance": "imbalance I(P)"}[args.objective]
        print(f"{what} = {result.value:.10g}  ({result.n_communities:,} communities, resolution "
              f"{result.resolution[0]:g},{result.resolution[1]:g}, {result.elapsed_s:.2f} s"
              f"{run.compile_note()})")
    else:
        print(f"{args.method}: k = {result.k} ({result.k_source}), "
              f"{result.n_communities:,} communities, {result.elapsed_s:.2f} s")
    if not args.quiet:
        run.report_written()
    return 0
