"""stdout holds each command's result line alone; everything else goes to stderr, and --quiet
silences it (so `rapids-balance ... > result.txt` captures the result and nothing else)."""

import pytest

from rapids_balance import _warmup
from rapids_balance.cli import build_parser


def _cli(argv, capsys):
    args = build_parser().parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr()


COMMANDS = {
    "balance": ["balance", "--example", "highland", "--trees", "10", "--out", "{tmp}/o", "--backend", "cpu"],
    "frustration": ["frustration", "--example", "highland", "--trees", "8", "--bound", "--out", "{tmp}/f",
                    "--backend", "cpu"],
    "betweenness": ["betweenness", "--example", "highland", "--out", "{tmp}/b.csv", "--backend", "cpu"],
    "cluster": ["cluster", "--example", "highland", "--method", "vnd", "--bound", "--out", "{tmp}/c.csv",
                "--backend", "cpu"],
    "generate": ["generate", "planted", "--edges", "200", "--seed", "1", "--out", "{tmp}/g.csv"],
    "measures": ["measures", "--example", "highland", "--out", "{tmp}/m", "--backend", "cpu"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_result_line_alone_on_stdout(tmp_path, capsys, name):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[name]]
    code, cap = _cli(argv, capsys)
    assert code == 0
    assert len(cap.out.splitlines()) == 1, cap.out
    assert "component rule" not in cap.out and "wrote " not in cap.out
    assert "wrote " in cap.err  # the other lines are still there, on stderr
    code, quiet = _cli(argv + ["--overwrite", "--quiet"], capsys)
    assert code == 0 and len(quiet.out.splitlines()) == 1 and quiet.err == ""


def test_cluster_result_line_says_what_the_five_lines_said(tmp_path, capsys):
    code, cap = _cli([a.replace("{tmp}", str(tmp_path)) for a in COMMANDS["cluster"]], capsys)
    line = cap.out.strip()
    for part in ("16 vertices", "58 edges", "imbalance I(P) =", "clusters", "method vnd", "seed 0",
                 "lower bound"):
        assert part in line
    assert "component rule" in cap.err and "balance B(P)" in cap.err


def test_an_optimal_index_is_called_optimal(tmp_path, capsys):
    # highland's frustration index is 7, which the bound certifies: no "at most 0 above the optimum"
    code, cap = _cli([a.replace("{tmp}", str(tmp_path)) for a in COMMANDS["frustration"]], capsys)
    assert "index 7" in cap.out and "the index is optimal" in cap.out
    assert "at most 0" not in cap.out + cap.err


def test_info_quiet_is_one_line(capsys):
    code, cap = _cli(["info", "--example", "highland", "--quiet"], capsys)
    assert code == 0 and cap.err == ""
    assert cap.out.splitlines() == ["highland: 16 vertices, 58 edges, 43 cycles, 50.00 % positive, 1 component"]
    code, full = _cli(["info", "--example", "highland"], capsys)
    assert "cleaning" in full.out and len(full.out.splitlines()) > 10


def test_warmup_reports_its_steps_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(_warmup, "_ORDER", ("tiny",))
    monkeypatch.setattr(_warmup, "_job_by_name", lambda name: (0.25, 0.0, 0.0))
    code, cap = _cli(["warmup", "--processes", "1"], capsys)
    assert code == 0 and cap.out.startswith("warmup: ") and len(cap.out.splitlines()) == 1
    assert "tiny: " in cap.err and "kernels cached in" in cap.err
