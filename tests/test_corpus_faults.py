"""Faults around the results: a folder replaced as a whole and claimed, temporary files never
reopened by name, no leftovers after SIGTERM, dangling links.

Every test builds a case of the hostile corpus from its description: a disk
that fills while the second table of an ``--overwrite`` run is written, a
kill at every step of the swap, two runs on one ``--out``, a temporary file
swapped for a symlink by another account, SIGTERM mid-write.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from rapids_balance import _files, cli

BALANCE = ["balance", "--example", "highland", "--trees", "3", "--quiet", "--backend", "cpu"]


def run_main(capsys, argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _snapshot(folder) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder))}


def _leftovers(folder) -> list[str]:
    return [e for e in os.listdir(folder) if e.startswith(".rapids-balance-")]


def _described_exactly(folder) -> dict:
    """``run.json`` is there and lists exactly the tables beside it."""
    manifest = json.loads((folder / "run.json").read_text())
    assert sorted(manifest["outputs"]) == sorted(set(os.listdir(folder)) - {"run.json"})
    return manifest


@pytest.fixture
def first_run(tmp_path, capsys):
    out = tmp_path / "o"
    code, _, err = run_main(capsys, [*BALANCE, "--seed", "1", "--out", out])
    assert code == 0, err
    return out


def test_disk_full_during_overwrite_keeps_the_old_results(first_run, capsys, monkeypatch):
    before = _snapshot(first_run)
    real = pd.DataFrame.to_csv

    def full_on_edges(self, fh=None, *args, **kwargs):
        if "agreement" in self.columns:  # the second table, the edges
            real(self.head(1), fh, *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, fh, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_on_edges)
    code, _, err = run_main(capsys, [*BALANCE, "--seed", "2", "--out", first_run, "--overwrite"])
    assert code == 2 and "No space left on device" in err, err
    assert str(first_run / "edges.csv") in err  # the results' name, not the staging folder's
    assert _snapshot(first_run) == before  # the complete old run, its run.json included
    assert _leftovers(first_run.parent) == []


def test_failed_parquet_to_csv_overwrite_keeps_the_parquet_run(tmp_path, capsys, monkeypatch):
    pytest.importorskip("pyarrow")
    out = tmp_path / "o"
    assert run_main(capsys, [*BALANCE, "--table-format", "parquet", "--out", out])[0] == 0
    before = _snapshot(out)
    assert "vertices.parquet" in before

    def fails(self, *args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(pd.DataFrame, "to_csv", fails)
    code, _, err = run_main(capsys, [*BALANCE, "--out", out, "--overwrite"])
    assert code == 2 and "Input/output error" in err
    assert _snapshot(out) == before and _leftovers(tmp_path) == []


def test_overwrite_replaces_the_folder_as_a_whole_and_keeps_the_users_files(first_run, capsys):
    (first_run / "notes.txt").write_text("mine\n")
    code, _, err = run_main(capsys, [*BALANCE, "--seed", "2", "--table-format", "csv", "--out", first_run,
                                     "--overwrite"])
    assert code == 0, err
    assert (first_run / "notes.txt").read_text() == "mine\n"
    manifest = json.loads((first_run / "run.json").read_text())
    assert manifest["seed"] == 2
    assert sorted(os.listdir(first_run)) == sorted([*manifest["outputs"], "run.json", "notes.txt"])
    assert _leftovers(first_run.parent) == []


def _dies_at_call(step):
    """Wrap functions so that the ``step``-th call among all of them (0-based) is a kill."""
    calls = {"n": 0}

    def dies_at(fn):
        def wrapper(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == step + 1:
                raise _Killed()
            return fn(*args, **kwargs)
        return wrapper
    return dies_at


@pytest.mark.parametrize("step", range(8))
def test_a_kill_while_updating_a_folder_with_the_users_files(first_run, capsys, monkeypatch, step):
    # a folder holding a file of the user's is never moved: updated in place, run.json last
    (first_run / "notes.txt").write_text("mine\n")
    dies_at = _dies_at_call(step)

    for name in ("rename", "replace", "unlink"):
        monkeypatch.setattr(_files.os, name, dies_at(getattr(os, name)))
    monkeypatch.setattr(_files.ResultsDir, "close", lambda self: None)
    monkeypatch.setattr(_files.Claim, "release", lambda self: None)
    try:
        cli.main([str(a) for a in [*BALANCE, "--seed", "2", "--out", first_run, "--overwrite"]])
    except _Killed:
        pass
    capsys.readouterr()
    monkeypatch.undo()
    cli._OPEN_RUNS.clear()
    assert (first_run / "notes.txt").read_text() == "mine\n"
    tables = set(os.listdir(first_run)) - {"notes.txt"} - set(_leftovers(first_run))
    if "run.json" in tables:  # whichever run it is, it describes exactly the tables there
        assert sorted(json.loads((first_run / "run.json").read_text())["outputs"]) == sorted(tables - {"run.json"})


def test_out_dot_updates_the_working_folder_in_place(tmp_path, capsys, monkeypatch):
    (tmp_path / "notes.txt").write_text("mine\n")
    monkeypatch.chdir(tmp_path)
    assert run_main(capsys, [*BALANCE, "--out", "."])[0] == 0
    assert run_main(capsys, [*BALANCE, "--seed", "4", "--out", ".", "--overwrite"])[0] == 0
    assert os.getcwd() == str(tmp_path) and os.path.samefile(".", tmp_path)  # the folder was not swapped
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["seed"] == 4
    assert sorted(os.listdir(tmp_path)) == sorted([*manifest["outputs"], "run.json", "notes.txt"])


class _Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, no cleanup."""


@pytest.mark.parametrize("step", range(6))
def test_a_kill_at_any_step_of_the_swap_leaves_one_complete_run(first_run, capsys, monkeypatch, step):
    old = _snapshot(first_run)
    dies_at = _dies_at_call(step)

    for name in ("rename", "replace", "chmod"):
        monkeypatch.setattr(_files.os, name, dies_at(getattr(os, name)))
    monkeypatch.setattr(_files, "_exchange", dies_at(_files._exchange))
    monkeypatch.setattr(_files.shutil, "rmtree", dies_at(_files.shutil.rmtree))
    monkeypatch.setattr(_files.ResultsDir, "close", lambda self: None)  # a killed process cleans nothing
    monkeypatch.setattr(_files.Claim, "release", lambda self: None)
    try:
        cli.main([str(a) for a in [*BALANCE, "--seed", "2", "--out", first_run, "--overwrite"]])
    except _Killed:
        pass
    capsys.readouterr()
    monkeypatch.undo()
    manifest = _described_exactly(first_run)
    assert manifest["seed"] in (1, 2)
    if manifest["seed"] == 1:
        assert _snapshot(first_run) == old
    # the next run takes over the dead run's claim and clears its staging folders of results
    cli._OPEN_RUNS.clear()
    dead = _dead_pid()
    for entry in _leftovers(first_run.parent):  # what a killed process leaves: its pid in the names
        path = first_run.parent / entry
        if entry.startswith(".rapids-balance-lock-"):
            path.write_text(f"{dead} {platform.node()}\n")
        else:
            path.rename(first_run.parent / entry.replace(f"-{os.getpid()}-", f"-{dead}-"))
    code, _, err = run_main(capsys, [*BALANCE, "--seed", "3", "--out", first_run, "--overwrite"])
    assert code == 0, err
    assert _described_exactly(first_run)["seed"] == 3
    assert _leftovers(first_run.parent) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_second_run_on_the_same_out_is_refused_while_the_first_holds_it(tmp_path, capsys):
    out = tmp_path / "o"
    held = _files.Claim(str(out), "--out o")  # a run of this (alive) process holds the folder
    try:
        code, _, err = run_main(capsys, [*BALANCE, "--out", out])
        assert code == 2 and err.count("\n") == 1
        assert f"another run (process {os.getpid()}) is writing its results there" in err
        assert not out.exists()
    finally:
        held.release()
    assert run_main(capsys, [*BALANCE, "--out", out])[0] == 0
    assert _leftovers(tmp_path) == []


def test_claim_of_a_killed_run_is_taken_over(tmp_path, capsys):
    out = tmp_path / "o"
    lock = tmp_path / ".rapids-balance-lock-o"
    lock.write_text(f"{_dead_pid()} {platform.node()}\n")
    code, _, err = run_main(capsys, [*BALANCE, "--out", out])
    assert code == 0, err
    assert not lock.exists() and _described_exactly(out)


def test_two_runs_started_at_once_end_with_one_runs_folder(tmp_path):
    out = tmp_path / "o"
    procs = [subprocess.Popen([sys.executable, "-m", "rapids_balance", *BALANCE, "--seed", str(seed),
                               "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed in (1, 2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "another run" in refused or "already holds results" in refused
    manifest = _described_exactly(out)
    winner = next(i for i, (code, _) in enumerate(results) if code == 0)
    assert manifest["seed"] == (1, 2)[winner]
    assert _leftovers(tmp_path) == []


def test_dangling_out_link_is_named(tmp_path, capsys):
    link = tmp_path / "results"
    os.symlink(tmp_path / "gone", link)
    code, _, err = run_main(capsys, [*BALANCE, "--out", link])
    assert code == 2 and "is a dangling symbolic link" in err and "exists and is not a directory" not in err
    code, _, err = run_main(capsys, ["cluster", "--example", "highland", "--out", link, "--quiet"])
    assert code == 2 and "is a dangling symbolic link" in err


def test_out_link_to_a_folder_writes_into_the_folder(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    assert run_main(capsys, [*BALANCE, "--out", tmp_path / "link"])[0] == 0
    assert os.path.islink(tmp_path / "link") and _described_exactly(real)


# ---------------------------------------------------------------------------
# the temporary file is never reopened by name
# ---------------------------------------------------------------------------

def test_temporary_swapped_for_a_symlink_writes_nothing_into_its_target(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # a world-writable folder
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.chmod(victim, 0o600)
    real_mkstemp = _files.tempfile.mkstemp

    def attacker(*args, **kwargs):
        fd, name = real_mkstemp(*args, **kwargs)
        os.unlink(name)  # another account swaps the name for a link to one of the user's files
        os.symlink(victim, name)
        return fd, name

    monkeypatch.setattr(_files.tempfile, "mkstemp", attacker)
    with pytest.raises(OSError, match="was replaced by another file"):
        cli.write_table(pd.DataFrame({"vertex": [1, 2]}), str(shared / "t.csv"))
    assert victim.read_text() == "precious\n"
    assert os.stat(victim).st_mode & 0o777 == 0o600
    assert not (shared / "t.csv").exists()


def test_tables_and_pictures_are_written_through_the_descriptor(tmp_path, monkeypatch):
    import builtins

    opened: list[str] = []
    real_open = builtins.open

    def watch(file, *args, **kwargs):
        opened.append(os.fspath(file) if isinstance(file, (str, os.PathLike)) else "")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watch)
    cli.write_table(pd.DataFrame({"vertex": [1, 2]}), str(tmp_path / "t.csv"))
    from rapids_balance.generators._cli import write_edges

    write_edges(pd.DataFrame({"source": [1], "target": [2], "sign": [1]}), str(tmp_path / "e.csv.gz"))
    assert not [p for p in opened if ".rapids-balance-" in p]
    assert (tmp_path / "t.csv").read_text() == "vertex\n1\n2\n"
    assert pd.read_csv(tmp_path / "e.csv.gz").to_dict("list") == {"source": [1], "target": [2], "sign": [1]}


# ---------------------------------------------------------------------------
# SIGTERM
# ---------------------------------------------------------------------------

def test_sigterm_during_a_write_exits_143_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    real = pd.DataFrame.to_csv

    def terminated_midway(self, fh=None, *args, **kwargs):
        real(self.head(1), fh, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # what `timeout` sends
        return real(self, fh, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", terminated_midway)
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "o"
    code, _, err = run_main(capsys, [*BALANCE, "--out", out])
    assert code == 143 and err == "rapids-balance balance: terminated\n"
    assert os.listdir(tmp_path) == []  # no table, no temporary, no staging folder, no claim
    assert signal.getsignal(signal.SIGTERM) is before  # restored after the command


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_sigterm_in_a_real_process(tmp_path):
    fifo = tmp_path / "edges.csv"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "rapids_balance", "balance", str(fifo), "--trees", "5",
                             "--out", str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    writer = os.open(fifo, os.O_WRONLY)
    try:
        proc.send_signal(signal.SIGTERM)
        # the read may sit in a reader's own thread, where Python runs no handler until it
        # returns: end the input so that it does, and the pending SIGTERM is handled then
        time.sleep(0.5)
    finally:
        os.close(writer)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and err == "rapids-balance balance: terminated\n" and out == ""
    assert sorted(os.listdir(tmp_path)) == ["edges.csv"]


# ---------------------------------------------------------------------------
# a clean exit after an error, with pyarrow's threads alive
# ---------------------------------------------------------------------------

def test_console_exit_runs_atexit_then_skips_interpreter_teardown(monkeypatch, capsys):
    import atexit

    pytest.importorskip("pyarrow")
    events: list = []

    class Exited(BaseException):
        pass

    def fake_exit(code):
        events.append(("os._exit", code))
        raise Exited()

    monkeypatch.setattr(cli, "main", lambda: (print("summary"), 2)[1])
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: events.append(("atexit",)))
    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    with pytest.raises(Exited):
        cli.console_main()
    # the atexit handlers (Dask shutdown, shared-file removal) first, then an exit that does not
    # finalise the interpreter (where pyarrow's live threads could abort it)
    assert events == [("atexit",), ("os._exit", 2)]
    assert capsys.readouterr().out == "summary\n"


def test_bad_sign_error_exits_2_every_time(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("source,target,sign\n" + "".join(f"{i},{i + 1},1\n" for i in range(200)) + "5,6,2.5e\n")
    for _ in range(3):  # the abort was intermittent (about 1 run in 120): a few runs, bounded
        got = subprocess.run([sys.executable, "-m", "rapids_balance", "info", str(path)], capture_output=True,
                             text=True, timeout=300)
        assert got.returncode == 2, got.stderr
        assert got.stderr.count("\n") == 1 and "bad.csv" in got.stderr and "terminate" not in got.stderr


# ---------------------------------------------------------------------------
# a single output file and its FILE.run.json
# ---------------------------------------------------------------------------

CLUSTER = ["cluster", "--example", "highland", "--quiet", "--max-iterations", "1"]


def test_failed_overwrite_of_a_single_file_keeps_the_old_pair(tmp_path, capsys, monkeypatch):
    out = tmp_path / "labels.csv"
    assert run_main(capsys, [*CLUSTER, "--seed", "1", "--out", out])[0] == 0
    before = _snapshot(tmp_path)
    assert sorted(before) == ["labels.csv", "labels.csv.run.json"]

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    code, _, err = run_main(capsys, [*CLUSTER, "--seed", "2", "--out", out, "--overwrite"])
    assert code == 2 and f"cannot write {out}: No space left on device" in err, err
    assert _snapshot(tmp_path) == before  # the old table with its own run.json, nothing else
    monkeypatch.undo()
    assert run_main(capsys, [*CLUSTER, "--seed", "2", "--out", out, "--overwrite"])[0] == 0
    assert json.loads((tmp_path / "labels.csv.run.json").read_text())["seed"] == 2
    assert sorted(os.listdir(tmp_path)) == ["labels.csv", "labels.csv.run.json"]


def test_second_run_on_the_same_output_file_is_refused(tmp_path, capsys):
    out = tmp_path / "labels.csv"
    held = _files.Claim(str(out), "--out labels.csv")
    try:
        code, _, err = run_main(capsys, [*CLUSTER, "--out", out])
        assert code == 2 and "another run (process" in err and not out.exists()
    finally:
        held.release()
    assert os.listdir(tmp_path) == []
