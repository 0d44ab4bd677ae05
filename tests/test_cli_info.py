"""``rapids-balance info``: in-process through cli.main and as ``python -m rapids_balance``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from rapids_balance import cli

_ALL_COMMANDS_PRESENT = all(importlib.util.find_spec(m.rsplit("._cli", 1)[0]) is not None
                            and importlib.util.find_spec(m) is not None for m in cli._COMMAND_MODULES)


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """cli.main(argv) -> (exit code, stdout, stderr); only the io command if siblings are missing."""
    if not _ALL_COMMANDS_PRESENT:
        monkeypatch.setattr(cli, "_COMMAND_MODULES", ("rapids_balance.io._cli",))

    def run(*argv):
        code = cli.main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


def test_info_human_output(run_cli, shared_data):
    code, out, _ = run_cli("info", shared_data / "soc-sign-bitcoinotc.csv.gz")
    assert code == 0
    assert "vertices:            5,875" in out and "edges:               21,489" in out
    assert "fundamental cycles:  15,615" in out and "(86.42 %)" in out
    assert "max degree:          795" in out and "components:          1" in out
    assert "pairs with both signs 358" in out and "input rows 35,592" in out


def test_info_json_is_summary(run_cli, shared_data):
    code, out, _ = run_cli("info", shared_data / "wiki-Elec_graphB_SC21_edges.csv.gz", "--json")
    s = json.loads(out)
    assert code == 0 and (s["vertices"], s["edges"], s["cycles"]) == (7_539, 112_058, 104_520)
    assert s["zero_sign_edges"] == 6_897 and s["cleaning"]["self_loops"] == 65


def test_info_options_pass_through(run_cli, shared_data):
    code, out, _ = run_cli("info", shared_data / "soc-sign-bitcoinotc.csv.gz", "--json",
                           "--conflicts", "drop", "--component", "all", "--numbering", "graphbplus")
    s = json.loads(out)
    assert s["cleaning"]["conflict_rule"] == "drop" and s["cleaning"]["numbering"] == "graphbplus"
    assert s["components"] > 1 and s["cleaning"]["conflict_rows_dropped"] > 0
    code, out, _ = run_cli("info", shared_data / "konect_out.moreno_sampson_sampson.gz", "--json",
                           "--zero-sign", "drop")
    assert json.loads(out)["zero_sign_edges"] == 0


def test_info_tar_lists_members_and_reads_one(run_cli, shared_data):
    path = shared_data / "levorato_cc_slashdot_first_n.tar.gz"
    code, out, _ = run_cli("info", path)
    lines = [ln for ln in out.splitlines() if ln.startswith("slashdot-undirected")]
    assert code == 0 and len(lines) == 10
    assert any("size1000" in ln and "997 vertices" in ln and "5,991 edges" in ln for ln in lines)
    code, out, _ = run_cli("info", path, "--member", "slashdot-undirected-size200-part0.g")
    assert code == 0 and "vertices:            198" in out and "outside the kept component" in out


def test_info_example_and_notes(run_cli):
    code, out, _ = run_cli("info", "--example", "highland")
    assert code == 0 and "vertices:            16" in out
    assert "same sign, 58 rows: 58 rows list a pair the other way round" in out  # graphB+ lists both ways


def test_info_example_without_a_name_lists_the_examples(run_cli):
    code, out, err = run_cli("info", "--example")
    assert code == 0 and err == ""
    assert "highland" in out and "bitcoin-otc" in out and "slashdot-1000" in out


def test_info_errors_exit_2_with_message(run_cli, shared_data, tmp_path):
    code, _, err = run_cli("info", shared_data / "highland_tribes_graphB_users.csv.gz")
    assert code == 2 and "vertex table" in err and "highland_tribes_graphB_users.csv.gz" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,1\n2,3,x\n")
    code, _, err = run_cli("info", bad)
    assert code == 2 and "line 2" in err and "'x'" in err
    code, _, err = run_cli("info", tmp_path / "missing.csv")
    assert code == 2 and "missing.csv" in err
    code, _, err = run_cli("info", "--example", "nope")
    assert code == 2 and "available" in err


def test_info_unsigned(run_cli, tmp_path):
    p = tmp_path / "w.txt"
    p.write_text("1 2 0.5\n2 3 2.0\n")
    code, out, _ = run_cli("info", p, "--unsigned")
    assert code == 0 and "weights:             0.5 .. 2" in out


@pytest.mark.skipif(not _ALL_COMMANDS_PRESENT, reason="another package's _cli module is not written yet")
def test_python_dash_m(shared_data):
    proc = subprocess.run([sys.executable, "-m", "rapids_balance", "info", "--json",
                           str(shared_data / "konect_ucidata-gama_highland.txt.gz")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert (s["vertices"], s["edges"], s["cycles"]) == (16, 58, 43)
    assert any("'3 16'" in n for n in s["cleaning"]["notes"])
