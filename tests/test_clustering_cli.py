"""``rapids-balance cluster``: runs, writes labels whose imbalance matches the summary."""

import pandas as pd

import rapids_balance as rb
from rapids_balance.cli import main


def test_cluster_cli_writes_labels(tmp_path, capsys):
    out = tmp_path / "labels.csv"
    rc = main(["cluster", "--example", "highland", "--method", "ils", "--max-iterations", "2",
               "--seed", "1", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    labels = pd.read_csv(out)
    g = rb.load_example("highland")
    value = rb.imbalance(g, labels).imbalance
    assert f"I(P) = {value:g}" in text
    # a bipartition is a partition, so the optimum is at most the exact frustration index, 7
    assert value <= 7


def test_cluster_cli_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\nx,y,z\n")
    assert main(["cluster", str(bad), "--quiet"]) == 2
    assert "error" in capsys.readouterr().err


def test_cluster_cli_paper_flags(tmp_path, capsys):
    """The paper-faithful ILS from the command line (no plateau walk, no merges)."""
    out = tmp_path / "labels.csv"
    rc = main(["cluster", "--example", "highland", "--max-iterations", "2", "--perturbation",
               "vertex", "--plateau", "off", "--merge-moves", "off", "--out", str(out), "--quiet"])
    assert rc == 0
    labels = pd.read_csv(out)
    assert rb.imbalance(rb.load_example("highland"), labels).imbalance <= 7
