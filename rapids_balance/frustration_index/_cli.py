"""``rapids-balance frustration``: frustration index, cloud and best balanced state of a file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .._validation import check_seed, check_time_limit
from ._frustration import _REFINE_MAX
from ..cli import (Run, add_backend_argument, add_input_arguments, add_output_arguments, add_plot_argument,
                   add_progress_arguments, check_count, check_run_options, component_summary, report, draw_plot,
                   float_arg, if_given, int_arg, progress_option, require_module, write_table)
from ._samplers import SAMPLERS

__all__ = ["register"]

TABLES = ("cloud.csv", "best_state.csv", "switched.csv", "history.csv")
# every file a run may write in --out (an earlier run's among them needs --overwrite)
KNOWN_FILES = (*TABLES, "bound_cycles.csv", "summary.json")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``frustration`` sub-command."""
    p = subparsers.add_parser(
        "frustration", help="frustration index estimate, frustration cloud, nearest balanced state",
        description="Sample spanning trees (graphB++), collect their distinct nearest balanced "
                    "states (the frustration cloud), refine the best by local search, and write "
                    "cloud.csv, best_state.csv, switched.csv, history.csv, summary.json and run.json "
                    "(command line, parameters, input checksum, cleaning report, timings) to --out DIR.  "
                    "--bound also proves a lower bound on any graph; --exact also proves the index of "
                    "a small graph by integer programming.")
    add_input_arguments(p, weight="frustration uses the edge signs only (edge weights would be ignored)")
    add_output_arguments(p, "output folder (created, with its parents, if needed)")
    p.add_argument("--trees", type=int_arg, default=None,
                   help="spanning trees to sample (default 1000, fewer above 64,000 edges)")
    p.add_argument("--sampler", choices=SAMPLERS, default="bfs", help="tree sampler (default bfs)")
    p.add_argument("--seed", type=int_arg, default=0,
                   help="tree i uses seed + i (an int in [0, 2**63 - 1]; default 0)")
    p.add_argument("--refine", dest="refine", action="store_true", default=True,
                   help="refine the best states by local search (default)")
    p.add_argument("--no-refine", dest="refine", action="store_false",
                   help="tree-only estimate, as graphB++")
    p.add_argument("--rounds", type=int_arg, default=None, help="refinement recombination rounds")
    p.add_argument("--max-states", type=int_arg, default=None, help="keep at most this many states "
                   "(the states with fewest switches; graphB++ Alg. 3)")
    p.add_argument("--memory-limit", type=int_arg, default=None, metavar="BYTES",
                   help="bytes the stored states may take")
    p.add_argument("--time-limit", type=float_arg, default=None, metavar="S",
                   help="return the best state found after S seconds (results then depend on "
                        "the machine's speed)")
    p.add_argument("--batch-size", type=int_arg, default=None, help="trees per batch (default 64)")
    p.add_argument("--roots", choices=("degree", "graphbplus"), default="degree",
                   help="BFS roots: by descending degree (default) or graphB+ v0.2's order")
    p.add_argument("--exact", type=float_arg, default=None, metavar="SECONDS",
                   help="also run the exact integer programme with this time limit (needs highspy)")
    p.add_argument("--bound", action="store_true",
                   help="also prove a lower bound: pack edge-disjoint unbalanced cycles around "
                        "the best state (writes bound_cycles.csv)")
    add_plot_argument(p, "the best index against the number of trees (with the lower bound when "
                         "--bound is given)")
    add_backend_argument(p)
    add_progress_arguments(p)
    p.set_defaults(func=_run)
    return p


def _check_options(args) -> None:
    """Every option, before the graph is loaded."""
    check_count(args.trees, "--trees", "frustration", low=0)
    check_seed(args.seed, "frustration", name="--seed")
    check_count(args.rounds, "--rounds", "frustration", low=0, high=_REFINE_MAX)
    check_count(args.max_states, "--max-states", "frustration", low=1)
    check_count(args.memory_limit, "--memory-limit", "frustration", low=1)
    check_count(args.batch_size, "--batch-size", "frustration", low=1)
    if_given(check_time_limit, args.exact, "frustration", name="--exact", allow_none=False)
    if_given(check_time_limit, args.time_limit, "frustration", name="--time-limit", allow_none=False)
    if args.trees == 0 and not args.refine:
        raise ValueError("--trees 0 with --no-refine computes nothing; sample trees or refine")
    if args.exact is not None:
        require_module("highspy", "--exact")
    check_run_options(args)


def _run(args) -> int:
    from ._frustration import frustration

    _check_options(args)
    run = Run(args, out_dir=args.out, known=KNOWN_FILES, files={"--plot": args.plot})
    graph = run.load()
    with run.compute():
        res, summary = _compute(graph, args, frustration)
    names = [*TABLES, *(["bound_cycles.csv"] if args.bound else []), "summary.json"]
    with run.writing(names):
        for name, frame in zip(TABLES, (res.cloud, res.best_state, res.switched, res.history)):
            write_table(frame, run.path(name))
        if args.bound:
            write_table(summary.pop("_bound_cycles"), run.path("bound_cycles.csv"))
        _write_json(summary, run.path("summary.json"))
        bound = summary.get("lower_bound", {}).get("bound")
        draw_plot(run, args, res, **({} if bound is None else {"bound": bound}))
    run.finish(seed=args.seed, backend=res.info.get("backend"))
    ref = "" if res.refined_index is None else f", refined {res.refined_index}"
    if res.tree_index is None and res.info.get("start") not in (None, "trees"):
        trees = f"no time for a tree: started from the {res.info['start']} state{ref}"
    elif res.tree_index is None:  # --trees 0: the refinement's own start, no tree was sampled
        trees = f"no trees sampled (--trees 0), refinement only{ref}"
    else:
        trees = (f"{res.info['trees']} {args.sampler} trees, {len(res.cloud)} states; "
                 f"tree index {res.tree_index}{ref}")
    certificates = ""
    if "lower_bound" in summary:
        b = summary["lower_bound"]
        certificates += (f"; lower bound {b['bound']} edge-disjoint unbalanced cycles: "
                         + ("the index is optimal" if b["gap"] <= 0 else
                            f"the index is at most {b['gap']} above the optimum"))
    if "exact" in summary:
        e = summary["exact"]
        certificates += (f"; exact {e['index']}" + (" (optimal)" if e["optimal"] else
                                                    f" (not proven optimal, bound {e['bound']})"))
    print(f"{graph.name or args.path}: {graph.n} vertices, {graph.m} edges; "
          f"{trees}; index {res.index} ({summary['seconds']:.2f} s{_stopped_words(res, args)}){certificates}"
          f"{run.compile_note()}")
    report(args, component_summary(graph))
    if not args.quiet:
        run.report_written()
    return 0


def _stopped_words(res, args) -> str:
    """Which stage the time limit stopped, and why, for the summary line ('' when none)."""
    stages = res.info.get("stopped_stages", [])
    words = []
    if "trees" in stages:
        share = "its share of the time limit" if res.refined_index is not None else "the time limit"
        words.append(f"tree sampling stopped at {share} after {res.info['trees']} of "
                     f"{res.params['n_trees']} trees")
    if "refine" in stages:
        words.append("the refinement stopped at the time limit")
    elif "trees" in stages and res.refined_index is not None:
        words.append("the refinement finished within the limit")
    if not words and res.info.get("stopped"):
        words.append("stopped at the time limit")
    return "".join(f", {w}" for w in words)


def _compute(graph, args, frustration) -> tuple[Any, dict]:
    """The frustration result and summary.json's content (with the bound's cycles, if asked)."""
    import time

    from .._compile_clock import CompileClock

    roots = None
    if args.roots == "graphbplus":
        from ..balancing._roots import graphbplus_roots

        from ._frustration import default_trees

        trees = default_trees(graph.m) if args.trees is None else args.trees
        roots = graphbplus_roots(graph, max(trees, 1))
    refine = args.refine if args.rounds is None or not args.refine else args.rounds

    with CompileClock() as clock:
        start = time.perf_counter()
        res = frustration(graph, args.trees, sampler=args.sampler, seed=args.seed, refine=refine,
                          max_states=args.max_states, memory_limit=args.memory_limit,
                          time_limit=args.time_limit, backend=args.backend, progress=progress_option(args),
                          roots=roots, batch_size=args.batch_size)
        seconds = time.perf_counter() - start
    seconds -= clock.seconds  # compilation is reported apart (the clock's sums close on exit)
    summary = {"graph": graph.name, "vertices": graph.n, "edges": graph.m, "index": res.index,
               "tree_index": res.tree_index, "refined_index": res.refined_index,
               "seconds": round(seconds, 3), "compile_seconds": round(clock.seconds, 3),
               **{k: v for k, v in res.info.items() if not k.startswith("seconds")},
               "params": res.params}
    if args.exact is not None:
        from ._exact import frustration_index_exact

        ex = frustration_index_exact(graph, time_limit=args.exact, start=res.best_state)
        summary["exact"] = {"index": ex.index, "bound": ex.bound, "gap": ex.gap,
                            "optimal": ex.optimal, "status": ex.status, "seconds": ex.seconds}
    if args.bound:
        from ._bound import frustration_lower_bound

        t0 = time.perf_counter()
        lb = frustration_lower_bound(graph, res.best_state)
        summary["lower_bound"] = {"bound": lb.bound, "gap": lb.gap,
                                  "seconds": round(time.perf_counter() - t0, 3)}
        summary["_bound_cycles"] = lb.cycles
    return res, summary


def _write_json(data: dict, path: str) -> None:
    from .._files import atomic_open

    with atomic_open(path, "w") as fh:
        json.dump(data, fh, indent=2, default=str)
