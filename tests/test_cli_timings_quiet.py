"""What a run prints and records: compilation measured apart, quiet by default, --quiet keeps the result."""

import argparse
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from rapids_balance import _progress
from rapids_balance._compile_clock import CompileClock
from rapids_balance.cli import Run, build_parser, component_summary
from rapids_balance.errors import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]


def _fresh_kernel():
    # a new function object each call: numba compiles it on its first call, with no cache
    @numba.njit(cache=False)
    def total(x):
        s = 0.0
        for v in x:
            s += v * v
        return s

    return total


def test_compile_clock_measures_a_compilation_and_nothing_else():
    kernel = _fresh_kernel()
    with CompileClock() as clock:
        kernel(np.ones(3))
    assert clock.compile_s > 0 and clock.seconds >= clock.compile_s
    with CompileClock() as again:
        kernel(np.ones(3))  # compiled already: dispatch only
    assert again.seconds == 0.0 and again.compile_s == 0.0


def test_run_step_records_compilation_apart(tmp_path):
    args = argparse.Namespace(command="test", path=None, example="graphb-test-1a", overwrite=False,
                              quiet=False, phase=None)
    run = Run(args, out_dir=str(tmp_path / "out"))
    kernel = _fresh_kernel()
    with run.compute():
        kernel(np.ones(3))
    timings = run.manifest.data["timings"]
    assert timings["compile_s"] > 0 and run.compile_s == pytest.approx(timings["compile_s"], abs=1e-5)
    assert {"compute_s", "cache_load_s"} <= set(timings)
    assert "compiling kernels, not counted above" in run.compile_note()
    run.compile_s = 0.0
    assert run.compile_note() == ""


def _cli(argv, capsys):
    args = build_parser().parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr()


def test_quiet_keeps_the_result_line_only(tmp_path, capsys):
    code, cap = _cli(["balance", "--example", "highland", "--trees", "10", "--out", str(tmp_path / "o"),
                      "--quiet", "--backend", "cpu"], capsys)
    assert code == 0
    assert cap.out.splitlines()[0].startswith("<SignedGraph 'highland'")
    assert len(cap.out.splitlines()) == 1 and "10 trees in" in cap.out
    assert cap.err == ""  # no progress, no 'wrote' lines
    timings = json.loads((tmp_path / "o" / "run.json").read_text())["timings"]
    assert {"load_s", "compile_s", "cache_load_s", "compute_s", "write_s"} <= set(timings)


@pytest.mark.parametrize("argv", [
    ["frustration", "--example", "highland", "--trees", "8", "--out", "{tmp}/f", "--quiet"],
    ["betweenness", "--example", "highland", "--out", "{tmp}/b.csv", "--quiet"],
    ["cluster", "--example", "highland", "--method", "vnd", "--out", "{tmp}/c.csv", "--quiet"],
    ["generate", "planted", "--edges", "200", "--seed", "1", "--out", "{tmp}/g.csv", "--quiet"],
])
def test_every_command_keeps_one_result_line_under_quiet(tmp_path, capsys, argv):
    code, cap = _cli([a.replace("{tmp}", str(tmp_path)) for a in argv], capsys)
    assert code == 0 and len(cap.out.strip().splitlines()) == 1 and cap.err == ""


def test_progress_is_off_when_stderr_is_not_a_terminal(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with _progress.progress_bar(10, "balance", None, unit="tree") as bar:
        bar.update(10)
    assert err.getvalue() == ""


def test_asked_progress_in_a_log_is_a_few_plain_lines(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with _progress.progress_bar(1000, "balance", True, unit="tree") as bar:
        for _ in range(1000):
            bar.update(1)
    lines = err.getvalue().splitlines()
    assert 1 <= len(lines) <= 3 and "\r" not in err.getvalue()
    assert lines[-1].startswith("balance: 1,000/1,000 tree (100 %)")
    assert all(ord(ch) < 128 for ch in err.getvalue())  # no block characters


def test_progress_parameter_is_validated():
    import rapids_balance as rb

    g = rb.load_example("graphb-test-1a")
    for bad in (1, "yes"):
        with pytest.raises(InvalidParameterError, match="progress"):
            rb.balance(g, 2, progress=bad)


def test_library_call_in_a_pipe_prints_nothing_on_stderr():
    code = textwrap.dedent("""
        import rapids_balance as rb
        g = rb.load_example("highland")
        rb.balance(g, n_trees=70, seed=0, backend="cpu")
        rb.frustration(g, n_trees=8, seed=0, backend="cpu")
        ex = rb.frustration_index_exact(g, time_limit=30)
        print(ex.index)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "7\n"  # no HiGHS banner
    assert out.stderr == ""  # no progress bars in a pipe


def test_component_line_when_nothing_is_left_out():
    import rapids_balance as rb

    line = component_summary(rb.load_example("highland"))
    assert "0 vertices" not in line and "nothing left out" in line
