"""Command-line corpus: every user error exits 2 with one line, before any work; safe outputs.

Each case of ``CASES`` runs ``rapids_balance.cli.main`` and checks the exit
status, that stderr is exactly one line ``rapids-balance COMMAND: error: ...``
holding a fragment of the expected message, and that a run refused before
the work left no file behind.  The tests below it check atomic writes,
``--overwrite``, the ``run.json`` manifest, the component-rule summaries,
column roles, and (in real subprocesses) Ctrl-C and a closed stdout.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest

from rapids_balance import _files, cli

BIG = str(2**100)

# (id, argv with {tmp} for the test folder, exit status, fragment of the one-line message)
CASES = [
    ("trees-zero", "balance --example highland --trees 0 --out {tmp}/o",
     2, "The '--trees' parameter of balance must be an int in the range [1, 2**63 - 1]. Got 0 instead."),
    ("trees-negative", "frustration --example highland --trees -4 --out {tmp}/o",
     2, "'--trees' parameter of frustration"),
    ("trees-5000-digits", "balance --example highland --trees " + "9" * 5000 + " --out {tmp}/o",
     2, "argument --trees: integer too large (5000 characters)"),
    ("seed-200000-digits", "cluster --example highland --seed " + "7" * 200_000,
     2, "argument --seed: integer too large (200000 characters)"),
    ("trees-not-a-number", "balance --example highland --trees " + "x" * 3000 + " --out {tmp}/o",
     2, "argument --trees: invalid integer: 'xxxx"),
    ("seed-2**100-balance", "balance --example highland --seed " + BIG + " --out {tmp}/o",
     2, "The '--seed' parameter of balance must be an int in the range [0, 2**63 - 1]"),
    ("seed-2**100-cluster", "cluster --example highland --seed " + BIG,
     2, "The '--seed' parameter of cluster must be an int in the range [0, 2**63 - 1]"),
    ("seed-2**100-frustration", "frustration --example highland --seed " + BIG + " --out {tmp}/o",
     2, "The '--seed' parameter of frustration"),
    ("seed-2**100-betweenness", "betweenness {tmp}/g.csv --k 2 --seed " + BIG + " --out {tmp}/b.csv",
     2, "The '--seed' parameter of betweenness"),
    ("seed-negative", "cluster --example highland --seed -1", 2, "'--seed' parameter of cluster"),
    ("seed-float", "balance --example highland --seed 1.7 --out {tmp}/o",
     2, "argument --seed: invalid integer: '1.7'"),
    ("exact-negative", "frustration --example highland --exact -1 --out {tmp}/o",
     2, "The '--exact' parameter of frustration must be a finite number >= 0.0. Got -1.0"),
    ("exact-nan", "frustration --example highland --exact nan --out {tmp}/o", 2, "Got nan instead"),
    ("time-limit-nan", "cluster --example highland --time-limit nan",
     2, "'--time-limit' parameter of cluster"),
    ("time-limit-negative", "cluster --example highland --time-limit -2", 2, "Got -2.0 instead"),
    ("alpha-out-of-range", "cluster --example highland --alpha 1.5", 2, "'--alpha' parameter of cluster"),
    ("k-zero", "betweenness {tmp}/g.csv --k 0 --out {tmp}/b.csv", 2, "'--k' parameter of betweenness"),
    ("k-float", "betweenness {tmp}/g.csv --k 2.5 --out {tmp}/b.csv", 2, "argument --k: invalid integer"),
    ("batch-size-zero", "balance --example highland --batch-size 0 --out {tmp}/o",
     2, "'--batch-size' parameter of balance"),
    ("max-states-zero", "frustration --example highland --max-states 0 --out {tmp}/o",
     2, "'--max-states' parameter of frustration"),
    ("no-trees-no-refine", "frustration --example highland --trees 0 --no-refine --out {tmp}/o",
     2, "computes nothing"),
    ("roots-with-random-sampler", "balance --example highland --sampler bfs-random-root --roots graphbplus "
     "--out {tmp}/o", 2, "applies to --sampler bfs only"),
    ("endpoints-with-edges", "betweenness {tmp}/g.csv --edges --endpoints --out {tmp}/b.csv",
     2, "--endpoints applies to vertex scores"),
    ("unknown-format", "info {tmp}/g.csv --format nope", 2, "argument --format: invalid choice: 'nope'"),
    ("unknown-option", "info {tmp}/g.csv --nope", 2, "unrecognized arguments: --nope"),
    ("empty-column", "info {tmp}/g.csv --sign=", 2, "argument --sign: an empty column name"),
    ("out-is-a-file", "balance --example highland --out {tmp}/afile", 2, "exists and is not a directory"),
    ("out-below-a-file", "frustration --example highland --out {tmp}/afile/sub", 2, "is not a directory"),
    ("file-out-is-a-directory", "betweenness {tmp}/g.csv --out {tmp}/adir",
     2, "is a directory; give a file name"),
    ("file-out-missing-parent", "cluster --example highland --out {tmp}/missing/labels.csv",
     2, "missing does not exist; create it first"),
    ("graphbplus-missing-dir", "balance --example highland --trees 5 --out {tmp}/o --graphbplus "
     "{tmp}/missing/gb.txt", 2, "--graphbplus"),
    # (info --example without a NAME lists the examples: tests/test_cli_info.py)
    ("example-without-name", "balance --example --out {tmp}/o", 2, "--example needs a NAME, one of: highland ("),
    ("plot-unknown-format", "frustration --example highland --out {tmp}/o --plot {tmp}/p.foo",
     2, "'--plot' parameter of frustration must be a file path ending in .png, .svg or .pdf"),
    ("output-is-input", "betweenness {tmp}/g.csv --out {tmp}/g.csv --overwrite",
     2, "would replace the input file"),
    ("weight-on-a-signs-only-command", "balance --example highland --weight 2 --out {tmp}/o",
     2, "--weight: balance uses the edge signs only"),
    ("huge-count", "cluster --example highland --n-clusters " + BIG,
     2, "The '--n-clusters' parameter of cluster must be an int in the range [1, 2**31 - 1]"),
    ("input-in-out-dir", "balance {tmp}/done/vertices.csv --out {tmp}/done --overwrite",
     2, "would replace the input file"),
    ("same-file-twice", "balance --example highland --out {tmp}/o --graphbplus {tmp}/o/vertices.csv",
     2, "--out {tmp}/o writes the same file (vertices.csv)"),
    ("missing-input", "balance {tmp}/missing.csv --out {tmp}/o", 2, "input {tmp}/missing.csv: No such file"),
    ("input-is-a-directory", "info {tmp}/adir", 2, "is a directory, not an edge-list file"),
    ("unknown-example", "cluster --example nope", 2, "no example graph 'nope'; available: highland"),
    ("results-present", "balance --example highland --out {tmp}/done", 2,
     "already holds results (vertices.csv, run.json); pass --overwrite"),
    ("file-result-present", "cluster --example highland --out {tmp}/done/vertices.csv", 2,
     "already exists (vertices.csv); pass --overwrite"),
    ("no-sign-column", "balance {tmp}/two.csv --out {tmp}/o", 2, "two.csv"),
]


def _tree(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs} | \
        {os.path.relpath(d, root) + "/" for d, _, _ in os.walk(root)}


@pytest.fixture
def corpus_dir(tmp_path):
    (tmp_path / "g.csv").write_text("1,2,1\n2,3,-1\n3,1,1\n3,4,2\n")
    (tmp_path / "two.csv").write_text("1,2\n2,3\n")
    (tmp_path / "afile").write_text("not a directory\n")
    (tmp_path / "adir").mkdir()
    done = tmp_path / "done"
    done.mkdir()
    (done / "vertices.csv").write_text("vertex\n1\n")
    (done / "run.json").write_text("{}\n")
    return tmp_path


def run_main(capsys, argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused_before_work(capsys, corpus_dir, argv: str, code: int = 2) -> str:
    """Run ``argv`` (``{tmp}``: the test folder); check the refusal; return the stderr line.

    The run must exit with ``code``, print exactly one line ``rapids-balance
    COMMAND: error: ...`` (no traceback, a huge value cut), nothing on stdout,
    and leave the folder as it was (refused before any work).
    """
    before = _tree(corpus_dir)
    argv = argv.format(tmp=corpus_dir).split()
    got, out, err = run_main(capsys, argv)
    assert got == code, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"rapids-balance {argv[0]}: error: ") and len(err) < 700
    assert out == ""
    assert _tree(corpus_dir) == before
    return err


@pytest.mark.parametrize("case_id, argv, code, fragment", CASES, ids=[c[0] for c in CASES])
def test_user_error_exits_2_with_one_line_before_work(corpus_dir, capsys, case_id, argv, code, fragment):
    err = refused_before_work(capsys, corpus_dir, argv, code)
    assert fragment.format(tmp=corpus_dir) in err


def test_corpus_is_large_enough():
    assert len(CASES) >= 20


@pytest.mark.parametrize("argv, module, extra", [
    ("frustration --example highland --exact 10 --out {tmp}/o", "highspy", "exact"),
    ("balance --example highland --table-format parquet --out {tmp}/o", "pyarrow", "io"),
    ("betweenness {tmp}/g.csv --out {tmp}/b.parquet", "pyarrow", "io"),
    ("cluster --example highland --out {tmp}/labels.parquet", "pyarrow", "io"),
    ("frustration --example highland --plot {tmp}/p.png --out {tmp}/o", "matplotlib", "plot"),
])
def test_missing_extra_is_named_before_work(corpus_dir, capsys, monkeypatch, argv, module, extra):
    monkeypatch.setattr(cli, "_module_available", lambda name: name != module)
    err = refused_before_work(capsys, corpus_dir, argv)
    assert f"needs {module}" in err and f"pip install 'rapids-balance[{extra}]'" in err


def test_unwritable_out_directory_is_refused_before_work(corpus_dir, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(_files.tempfile, "mkstemp", refuse)  # as a read-only directory does
    code, _, err = run_main(capsys, ["balance", "--example", "highland", "--out", corpus_dir / "adir"])
    assert code == 2 and err.count("\n") == 1
    assert f"--out {corpus_dir / 'adir'}: cannot create files in" in err and "Permission denied" in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_input_is_refused_before_work(corpus_dir, capsys):
    (corpus_dir / "g.csv").chmod(0)
    code, _, err = run_main(capsys, ["info", corpus_dir / "g.csv"])
    assert code == 2 and "Permission denied" in err and "g.csv" in err


def test_no_gpu_is_refused_before_loading(corpus_dir, capsys, monkeypatch):
    from rapids_balance import backend
    from rapids_balance.errors import BackendUnavailableError

    def no_gpu(name="auto"):
        raise BackendUnavailableError("backend='gpu' but no usable GPU was found")

    monkeypatch.setattr(backend, "resolve_backend", no_gpu)
    monkeypatch.setattr(cli, "load_input", lambda *a, **k: pytest.fail("loaded before the check"))
    code, _, err = run_main(capsys, ["cluster", corpus_dir / "g.csv", "--backend", "gpu"])
    assert code == 2 and "no usable GPU" in err


def test_out_of_memory_and_interrupt_in_process(corpus_dir, capsys, monkeypatch):
    from rapids_balance.balancing import _engine

    def oom(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(_engine, "balance", oom)
    code, _, err = run_main(capsys, ["balance", "--example", "highland", "--out", corpus_dir / "o"])
    assert code == 2 and "out of memory while computing" in err and "--trees/--batch-size" in err
    assert not (corpus_dir / "o").exists()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_engine, "balance", interrupted)
    code, _, err = run_main(capsys, ["balance", "--example", "highland", "--out", corpus_dir / "o"])
    assert code == 130 and err == "rapids-balance balance: interrupted\n"


def test_internal_bug_keeps_its_traceback_and_debug_shows_user_errors(corpus_dir, capsys, monkeypatch):
    from rapids_balance.clustering import _solve

    def bug(*args, **kwargs):
        raise AttributeError("an internal bug")

    monkeypatch.setattr(_solve, "correlation_clustering", bug)
    with pytest.raises(AttributeError, match="an internal bug"):
        cli.main(["cluster", "--example", "highland", "--quiet"])
    code, _, err = run_main(capsys, ["--debug", "cluster", "--example", "highland", "--alpha", "3"])
    assert code == 2 and "Traceback" in err and err.rstrip().endswith("Got 3.0 instead.")


# ---------------------------------------------------------------------------
# safe outputs
# ---------------------------------------------------------------------------

def test_failure_mid_write_leaves_no_partial_file(corpus_dir, capsys, monkeypatch):
    real = pd.DataFrame.to_csv

    def disk_full(self, path=None, *args, **kwargs):
        real(self.head(1), path, *args, **kwargs)  # part of the table reaches the disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    out = corpus_dir / "o"
    code, _, err = run_main(capsys, ["balance", "--example", "highland", "--trees", "5", "--out", out,
                                     "--quiet", "--backend", "cpu"])
    assert code == 2 and err.count("\n") == 1
    assert f"cannot write {out / 'vertices.csv'}: No space left on device" in err
    assert not out.exists()  # no partial table, no temporary file, no run.json
    assert not [e for e in os.listdir(corpus_dir) if e.startswith(".rapids-balance-")]  # nor a claim


@pytest.mark.parametrize("stop", [RuntimeError("writer failed"), KeyboardInterrupt()])
def test_atomic_open_keeps_the_old_file_on_failure(tmp_path, stop):
    target = tmp_path / "t.txt"
    target.write_text("old\n")
    with pytest.raises(type(stop)):
        with _files.atomic_open(target) as fh:
            fh.write("half of the new")
            raise stop
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["t.txt"]


def test_temporary_file_is_owner_only_and_result_gets_the_usual_mode(tmp_path):
    old = os.umask(0)  # even with a permissive umask
    try:
        with _files.atomic_path(tmp_path / "r.csv") as tmp:
            assert os.stat(tmp).st_mode & 0o777 == 0o600
            assert os.path.basename(tmp).startswith(".") and tmp.endswith("-r.csv")
            with open(tmp, "w") as fh:
                fh.write("x\n")
        os.umask(0o022)
        with _files.atomic_path(tmp_path / "s.csv") as tmp:
            assert os.stat(tmp).st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "r.csv").st_mode & 0o777 == 0o666
    assert os.stat(tmp_path / "s.csv").st_mode & 0o777 == 0o644


def test_write_graphbplus_is_atomic(tmp_path, monkeypatch):
    import rapids_balance as rb

    res = rb.balance(rb.load_example("graphb-test-1a"), 3, progress=False, backend="cpu")

    def fails(src, dst):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(_files.os, "replace", fails)  # the text was written, the rename fails
    with pytest.raises(OSError, match="gb.txt: Input/output error"):
        res.write_graphbplus(tmp_path / "gb.txt")
    assert os.listdir(tmp_path) == []
    monkeypatch.undo()
    res.write_graphbplus(tmp_path / "gb.txt")
    assert (tmp_path / "gb.txt").read_text() == res.graphbplus_text() and os.listdir(tmp_path) == ["gb.txt"]


def test_second_run_into_the_same_directory_needs_overwrite(corpus_dir, capsys):
    out = corpus_dir / "o"
    argv = ["frustration", corpus_dir / "g.csv", "--trees", "5", "--out", out, "--quiet", "--backend", "cpu",
            "--bound"]
    assert run_main(capsys, argv)[0] == 0
    first = json.loads((out / "run.json").read_text())
    assert (out / "bound_cycles.csv").exists()
    code, _, err = run_main(capsys, argv)
    assert code == 2 and "already holds results" in err and "--overwrite" in err
    assert json.loads((out / "run.json").read_text()) == first  # untouched
    code, _, _ = run_main(capsys, argv[:-1] + ["--overwrite", "--seed", "3"])
    assert code == 0
    second = json.loads((out / "run.json").read_text())
    assert second["seed"] == 3 and second["parameters"]["overwrite"] is True
    # the earlier run's file that this run does not write is gone, so the folder is one run's
    assert not (out / "bound_cycles.csv").exists()
    assert sorted(os.listdir(out)) == sorted([*second["outputs"], "run.json"])


def test_single_file_output_needs_overwrite_and_gets_a_manifest(corpus_dir, capsys):
    out = corpus_dir / "bc.csv"
    argv = ["betweenness", corpus_dir / "g.csv", "--out", out, "--quiet", "--backend", "cpu",
            "--weight", "none"]
    assert run_main(capsys, argv)[0] == 0
    manifest = json.loads((corpus_dir / "bc.csv.run.json").read_text())
    assert manifest["command"] == "betweenness" and manifest["outputs"] == ["bc.csv"]
    code, _, err = run_main(capsys, argv)
    assert code == 2 and "already exists" in err
    assert run_main(capsys, argv + ["--overwrite"])[0] == 0


def test_run_json_fields_and_checksum(corpus_dir, capsys):
    src = corpus_dir / "g.csv"
    out = corpus_dir / "o"
    argv = ["balance", src, "--trees", "5", "--seed", "11", "--out", out, "--quiet", "--backend", "cpu"]
    assert run_main(capsys, argv)[0] == 0
    m = json.loads((out / "run.json").read_text())
    for key in ("command", "argv", "version", "parameters", "seed", "input", "cleaning", "timings",
                "started_utc", "python", "numpy", "numba", "backend", "outputs"):
        assert key in m, key
    assert m["argv"] == ["rapids-balance", *map(str, argv)]
    assert m["input"]["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert m["input"]["path"] == str(src)
    assert m["seed"] == 11 and m["parameters"]["trees"] == 5 and m["backend"] == "cpu"
    assert m["cleaning"]["input_rows"] == 4 and m["cleaning"]["component_rule"] == "largest"
    assert set(m["timings"]) == {"load_s", "compute_s", "write_s", "compile_s", "cache_load_s"}
    assert m["started_utc"].endswith("+00:00")
    assert sorted(m["outputs"]) == ["edges.csv", "vertices.csv"]
    example = ["cluster", "--example", "highland", "--out", corpus_dir / "l.csv", "--quiet",
               "--max-iterations", "1"]
    assert run_main(capsys, example)[0] == 0
    m = json.loads((corpus_dir / "l.csv.run.json").read_text())
    assert m["input"]["example"] == "highland" and len(m["input"]["sha256"]) == 64


# ---------------------------------------------------------------------------
# what the summaries tell, column roles
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("argv, told", [
    ("balance {g} --trees 5 --out {tmp}/o", "component rule 'largest': 2 vertices and 1 edges"),
    ("frustration {g} --trees 5 --out {tmp}/o", "component rule 'largest': 2 vertices and 1 edges"),
    ("cluster {g} --max-iterations 1", "component rule 'largest': 2 vertices and 1 edges"),
    ("betweenness {g} --weight none --out {tmp}/b.csv",
     "component rule 'all' (the default for betweenness): every component kept (2 in the input)"),
    ("betweenness {g} --weight none --component largest --out {tmp}/b.csv",
     "component rule 'largest': 2 vertices and 1 edges"),
    ("info {g}", "2 vertices and 1 edges outside the kept component"),
])
def test_every_summary_tells_the_component_rule(corpus_dir, capsys, argv, told):
    g = corpus_dir / "split.csv"
    g.write_text("1,2,1\n2,3,-1\n3,1,1\n7,8,1\n")
    argv = argv.format(g=g, tmp=corpus_dir).split()
    code, out, err = run_main(capsys, argv if argv[0] == "info" else argv + ["--backend", "cpu"])
    assert code == 0, err
    # the result is on stdout; the component line beside it on stderr (info's summary is its result)
    assert told in (out if argv[0] == "info" else err)


def test_column_roles_by_name_and_position(corpus_dir, capsys):
    path = corpus_dir / "roles.csv"
    path.write_text("source,target,time,trust\n1,2,1700000000,1\n2,3,1700000001,-1\n3,1,1700000002,-1\n")
    for spec in ("trust", "3"):
        code, out, err = run_main(capsys, ["info", path, "--sign", spec, "--json"])
        assert code == 0, err
        s = json.loads(out)
        assert (s["positive_edges"], s["negative_edges"]) == (1, 2)
    code, out, err = run_main(capsys, ["info", path, "--source", "target", "--target", "0", "--sign", "trust",
                                       "--json"])
    assert code == 0 and json.loads(out)["negative_edges"] == 2
    code, _, err = run_main(capsys, ["info", path, "--sign", "nope"])
    assert code == 2 and "nope" in err and err.count("\n") == 1


# ---------------------------------------------------------------------------
# real processes: Ctrl-C and a closed stdout
# ---------------------------------------------------------------------------

def _cli_process(*argv, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "rapids_balance", *map(str, argv)], **kwargs)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_sigint_exits_130_with_one_line(tmp_path):
    # the input is a named pipe this test holds open without writing: the command
    # is surely inside its run (waiting for data) when the signal arrives
    fifo = tmp_path / "edges.csv"
    os.mkfifo(fifo)
    proc = _cli_process("balance", fifo, "--trees", "5", "--out", tmp_path / "o",
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer = os.open(fifo, os.O_WRONLY)  # returns once the command opened the pipe
    try:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(writer)
    assert proc.returncode == 130
    assert err == "rapids-balance balance: interrupted\n" and out == ""
    assert not (tmp_path / "o").exists()


def test_closed_stdout_ends_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head -c1` that has already gone
    try:
        proc = _cli_process("info", "--example", "highland", "--json", stdout=write_end,
                            stderr=subprocess.PIPE, text=True)
        _, err = proc.communicate(timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == cli.EXIT_BROKEN_PIPE == 141
    assert err == ""


@pytest.mark.parametrize("argv", [
    "balance --example highland --trees 5 --out {tmp}/b --plot {tmp}/p.png",
    "frustration --example highland --trees 5 --bound --out {tmp}/f --plot {tmp}/p.svg",
    "betweenness --example highland --out {tmp}/bc.csv --plot {tmp}/p.pdf",
    "cluster --example highland --max-iterations 2 --out {tmp}/c.csv --plot {tmp}/p.png",
    "generate planted --edges 500 --out {tmp}/g.csv --plot {tmp}/p.png",
    "info --example bitcoin-otc --plot {tmp}/p.png",
])
def test_every_command_draws_its_picture(tmp_path, capsys, argv):
    pytest.importorskip("matplotlib")
    code, _, err = run_main(capsys, argv.format(tmp=tmp_path).split())
    assert code == 0, err
    picture = next(tmp_path.glob("p.*"))
    head = picture.read_bytes()[:8]
    assert head.startswith({".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}[picture.suffix])
    assert not list(tmp_path.glob(".rapids-balance-*"))  # no temporary file left


def test_id_rule_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "ids.csv"
    path.write_text("a,b,rating\n007,2,1\n7,3,-1\n2,3,1\n")
    code, out, _ = run_main(capsys, ["info", path])
    assert code == 0 and "vertices:            3" in out and "spellings merged (ids 'auto'): 1" in out
    assert "sign column: 'rating' (recognised header name)" in out
    code, out, _ = run_main(capsys, ["info", path, "--ids", "text"])
    assert code == 0 and "vertices:            4" in out and "spellings merged" not in out
