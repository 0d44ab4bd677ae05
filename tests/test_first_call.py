"""A first call compiles only what it reaches, and its summary lines say what their seconds hold.

The kernels a call compiles are read from numba's dispatchers (``.signatures``,
filled whether a kernel was compiled or loaded from the cache) in a fresh
process, so that other tests' calls do not count.  No timed assertions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import rapids_balance as rb
from rapids_balance.frustration_index._cli import _stopped_words

REPO = Path(__file__).resolve().parents[1]

_REACHED = """
import json, sys
import rapids_balance as rb
from rapids_balance.balancing import _cpu, _cycle, _harary, _layout, _trees
from rapids_balance import _host_sort
from rapids_balance.balancing import _result
g = rb.load_example("highland")
for n_trees, majority, method in {calls}:
    rb.balance(g, n_trees, majority=majority, method=method, backend="cpu", progress=False)
kernels = dict(block_bfs=_trees.bfs_block_counts, block_bfs_trees=_trees.bfs_block_into,
               block_counters=_cpu._block_counters, block_agreeable=_cpu.agreeable_lanes,
               sort_by_id=_trees._candidates_by_id, bfs_order=_layout._bfs_order,
               trees_pass=_cpu.trees_pass, cycle=_cycle.cycle_balance_into,
               agreeable_side=_harary.agreeable_side, bfs_tree=_trees.bfs_tree_into,
               next_candidates=_trees._next_candidates, counting_order=_host_sort._counting_order,
               gather=_host_sort._gather, fractions=_result._fractions_in_place,
               incident_sum=_result._incident_sum_host)
print(json.dumps({{k: len(v.signatures) for k, v in kernels.items()}}))
"""


def _reached(cache: Path, calls: list[tuple[int, str, str]]) -> dict[str, int]:
    """Signatures of the kernels after ``calls`` (balance's n_trees, majority, method) in a fresh
    process on an empty numba cache: a kernel loaded from the cache brings the kernels it calls
    inside its own machine code, so only compiling fills every callee's signatures."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _REACHED.format(calls=calls)], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=900, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_main_job_compiles_neither_the_cycle_walk_nor_the_other_majority_rule(tmp_path):
    # 128 trees: two full blocks, no tree left for the per-tree kernels
    got = _reached(tmp_path, [(128, "larger", "path-sign")])
    assert got["block_bfs"] == got["block_counters"] == 1
    assert got["next_candidates"] == 1  # not one per literal count
    assert got["block_agreeable"] == got["agreeable_side"] == 0
    # counting needs neither the trees' arrays nor their levels sorted by id, and a shallow
    # graph is told from a deep one without a compiled BFS
    assert got["block_bfs_trees"] == got["sort_by_id"] == got["bfs_order"] == 0
    assert got["trees_pass"] == got["cycle"] == got["bfs_tree"] == 0
    # a small graph is built and tabled by numpy: no compiled sort, gather or table kernel
    assert got["counting_order"] == got["gather"] == got["fractions"] == got["incident_sum"] == 0


def test_the_agreeable_rule_and_the_cycle_walk_compile_when_asked(tmp_path):
    got = _reached(tmp_path, [(128, "agreeable", "path-sign"), (3, "larger", "cycle")])
    assert got["block_agreeable"] == 1 and got["agreeable_side"] >= 1 and got["block_bfs"] == 1
    assert got["trees_pass"] == 1 and got["cycle"] == 1


def _result(stages, trees=40, n_trees=100, refined=7, stopped="time_limit"):
    return SimpleNamespace(info={"stopped_stages": stages, "trees": trees, "stopped": stopped},
                           params={"n_trees": n_trees}, refined_index=refined)


def test_frustration_line_names_the_stage_the_limit_stopped():
    words = _stopped_words(_result(["trees"]), None)
    assert "tree sampling stopped at its share of the time limit after 40 of 100 trees" in words
    assert "the refinement finished within the limit" in words
    assert "the refinement stopped at the time limit" in _stopped_words(_result(["refine"], 100), None)
    both = _stopped_words(_result(["trees", "refine"]), None)
    assert "its share" in both and "the refinement stopped at the time limit" in both
    # no refinement: the trees had the whole limit
    assert "stopped at the time limit after 40 of 100" in _stopped_words(_result(["trees"], refined=None),
                                                                         None)
    assert _stopped_words(_result([], stopped=None), None) == ""


def test_frustration_reports_which_stage_a_zero_limit_cut():
    g = rb.load_example("highland")
    res = rb.frustration(g, 50, time_limit=0, backend="cpu", progress=False)
    assert res.info["stopped"] == "time_limit"
    assert "trees" in res.info["stopped_stages"] and res.info["trees"] < 50


def test_cluster_line_leaves_compiling_out_and_says_so(tmp_path, capsys, monkeypatch):
    from rapids_balance import _compile_clock
    from rapids_balance.cli import main

    # numba's events seen as a day of compiling: the printed search time is the call's elapsed
    # time less that (floored at 0), and the line says the compiling is not counted in it
    monkeypatch.setattr(_compile_clock.CompileClock, "seconds", property(lambda self: 86400.0))
    monkeypatch.setattr(_compile_clock.CompileClock, "compile_s", property(lambda self: 86400.0))
    assert main(["cluster", "--example", "highland", "--max-iterations", "2", "--backend", "cpu"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "iterations in" in ln)
    assert "in 0.00 s" in line and "compiling kernels, not counted above" in line


@pytest.mark.parametrize("processes", [0, 1.5, "2"])
def test_warmup_refuses_a_bad_process_count(processes):
    with pytest.raises(rb.InvalidParameterError, match="'processes' parameter of warmup"):
        rb.warmup(processes=processes)


_WIDE = """
import json
import rapids_balance as rb
from rapids_balance._ready import tiny_signed_graph
from rapids_balance.frustration_index import _refine
_refine.compile_wide_levels(tiny_signed_graph(), {max_sum})
print(json.dumps(sorted({{str(sig[2].dtype) for sig in _refine._match.signatures}})))
"""


@pytest.mark.parametrize("max_sum, widths", [(120, []), (30_000, []), (None, ["int32"])])
def test_the_refinement_compiles_the_sum_widths_the_graph_can_reach(max_sum, widths):
    # a coarse edge sums fine edges: below 2**15 edges no level needs int32 sums, and the
    # signs and the narrower sums share int16 (the search's own run compiles it)
    out = subprocess.run([sys.executable, "-c", _WIDE.format(max_sum=max_sum)], cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                         timeout=900, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == widths


_IMPORTS = """
import importlib.util, json, sys
import rapids_balance as rb
rb.balance(rb.load_example("highland"), 8, progress=False)
print(json.dumps({"distributed": "distributed" in sys.modules, "numba.cuda": "numba.cuda" in sys.modules,
                  "cupy": importlib.util.find_spec("cupy") is not None}))
"""


def test_a_call_without_dask_or_a_gpu_imports_neither():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}  # the real probe
    out = subprocess.run([sys.executable, "-c", _IMPORTS], cwd=REPO, env=dict(env, PYTHONPATH=str(REPO)),
                         capture_output=True, text=True, timeout=900, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["distributed"] is False
    if not got["cupy"]:  # without CuPy the probe stops before numba.cuda
        assert got["numba.cuda"] is False


@pytest.mark.parametrize("n_trees, batch, timed, single, capped", [
    (1000, 64, True, False, False), (1000, 64, False, False, False), (129, 64, False, False, False),
    (65, 128, False, False, False), (7, 64, True, False, False), (200, 64, True, True, False),
    (193, 64, False, False, True), (130, 65, False, False, True), (5, 64, False, False, False)])
def test_the_tree_by_tree_bfs_is_ready_where_a_chunk_ends_in_a_lone_tree(n_trees, batch, timed,
                                                                          single, capped):
    from rapids_balance.balancing._trees import block_split
    from rapids_balance.frustration_index._frustration import (NO_DEADLINE, FrustrationParams, _batches,
                                                               _chunks, _lone_tree)

    # the chunks the sampling makes, batch by batch (the first chunk of all alone when single):
    # a chunk whose trees do not all fit blocks has a tree for the tree-by-tree BFS
    params = FrustrationParams(n_trees=n_trees, batch_size=batch, max_states=4 if capped else None)
    sizes = []
    for i, b in enumerate(_batches(params)):
        sizes += [len(c) for c in _chunks(b, params, 1.0 if timed else NO_DEADLINE, 5875,
                                          single and i == 0)]
    assert sum(sizes) == n_trees
    assert _lone_tree(params, 5875, timed, single) == any(block_split(t) < t for t in sizes)
