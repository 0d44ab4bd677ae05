"""``rapids-balance betweenness`` against networkx on small files."""

from __future__ import annotations

import argparse

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from rapids_balance.centrality import _cli


def _main(argv):
    """Run the sub-command through its own parser (the full CLI needs every package)."""
    try:
        from rapids_balance.cli import main

        return main(argv)
    except ModuleNotFoundError:
        p = argparse.ArgumentParser()
        _cli.register(p.add_subparsers(dest="command"))
        args = p.parse_args(argv)
        return args.func(args)


@pytest.fixture
def rating_file(tmp_path):
    rng = np.random.default_rng(5)
    G = nx.gnm_random_graph(30, 70, seed=5, directed=True)
    rows = [(u, v, int(rng.choice([-3, -2, -1, 1, 2, 3]))) for u, v in G.edges]
    path = tmp_path / "ratings.csv"
    pd.DataFrame(rows, columns=["source", "target", "rating"]).to_csv(path, index=False)
    return path, rows


def _reference(rows, directed, length):
    G = nx.DiGraph() if directed else nx.Graph()
    for u, v, r in rows:
        if not G.has_edge(u, v):  # first row of a repeated pair wins, as read_edgelist
            G.add_edge(u, v, weight=length(r))
    return G


@pytest.mark.parametrize("directed", [False, True])
def test_cli_vertex_scores_with_abs_rating(rating_file, tmp_path, directed, capsys):
    path, rows = rating_file
    out = tmp_path / "bc.csv"
    argv = ["betweenness", str(path), "--weight", "abs", "--out", str(out), "--backend", "cpu"]
    # the directed run shows its result on stdout, the component rule and the files on stderr
    assert _main(argv + (["--directed"] if directed else ["--quiet"])) == 0
    captured = capsys.readouterr()
    assert (f"wrote {out}" in captured.err) == directed
    assert ("component rule 'all' (the default for betweenness)" in captured.err) == directed
    assert len(captured.out.splitlines()) == 1
    got = pd.read_csv(out)
    assert list(got.columns) == ["vertex", "betweenness_centrality"]
    ref = nx.betweenness_centrality(_reference(rows, directed, abs), weight="weight")
    np.testing.assert_allclose(got["betweenness_centrality"], [ref[v] for v in got["vertex"]], rtol=1e-9)


def test_cli_edge_scores_unweighted_sampled(rating_file, tmp_path):
    path, rows = rating_file
    out = tmp_path / "ebc.csv"
    assert _main(["betweenness", str(path), "--edges", "--weight", "none", "--k", "30", "--seed", "3",
                  "--out", str(out), "--quiet", "--backend", "cpu"]) == 0
    got = pd.read_csv(out)
    assert list(got.columns) == ["src", "dst", "betweenness_centrality"]
    G = _reference(rows, False, abs)
    ref = nx.edge_betweenness_centrality(G)  # k = n: every vertex is a source
    ref = {(min(u, v), max(u, v)): b for (u, v), b in ref.items()}
    np.testing.assert_allclose(got["betweenness_centrality"],
                               [ref[(s, d)] for s, d in zip(got["src"], got["dst"])], rtol=1e-9)


def test_cli_default_weight_on_signed_values_is_unweighted_and_said(rating_file, tmp_path, capsys):
    path, rows = rating_file
    out = tmp_path / "x.csv"
    assert _main(["betweenness", str(path), "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "unweighted (--weight auto" in summary and "--weight abs" in summary
    got = pd.read_csv(out).set_index("vertex")["betweenness_centrality"]
    ref = nx.betweenness_centrality(_reference(rows, False, lambda r: 1.0), weight=None)
    for v, val in ref.items():
        assert got[v] == pytest.approx(val, abs=1e-12)


def test_cli_refuses_signed_values_as_named_lengths(rating_file, tmp_path, capsys):
    path, _ = rating_file
    from rapids_balance import GraphInputError

    try:
        rc = _main(["betweenness", str(path), "--weight", "rating", "--out", str(tmp_path / "x.csv"),
                    "--quiet"])
    except GraphInputError as exc:  # only the standalone parser lets it through
        assert "--weight abs" in str(exc)
        return
    assert rc == 2
    assert "--weight abs" in capsys.readouterr().err




@pytest.mark.parametrize("bad", ["-2", "0", "-0.5"])
def test_cli_auto_weight_refuses_lengths_with_one_bad_value(tmp_path, capsys, bad):
    path = tmp_path / "lengths.csv"
    path.write_text(f"1,2,1.5\n2,3,2\n3,4,{bad}\n4,1,0.5\n1,3,3\n")
    out = tmp_path / "bc.csv"
    rc = _main(["betweenness", str(path), "--out", str(out), "--quiet", "--backend", "cpu"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert f"{float(bad):g} at line 3 of {path}" in err and "--weight none" in err and "--weight abs" in err
    assert not out.exists() and not (tmp_path / "bc.csv.run.json").exists()


@pytest.mark.parametrize("values, used, said", [
    ("1.5 2 4 0.5 3", "weight", "lengths from the value column (--weight auto: every value is positive)"),
    ("1 -1 1 -1 1", None, "unweighted (--weight auto: the value column holds signs -1/+1"),
])
def test_cli_auto_weight_choice_is_recorded_and_said(tmp_path, capsys, values, used, said):
    import json

    path = tmp_path / "g.csv"
    rows = zip([(1, 2), (2, 3), (3, 4), (4, 1), (1, 3)], values.split())
    path.write_text("".join(f"{u},{v},{x}\n" for (u, v), x in rows))
    out = tmp_path / "bc.csv"
    assert _main(["betweenness", str(path), "--out", str(out), "--backend", "cpu"]) == 0
    assert said in capsys.readouterr().out
    record = json.loads((tmp_path / "bc.csv.run.json").read_text())["weight"]
    assert record == {"option": "auto", "lengths": used, "rule": record["rule"]} and record["rule"].startswith(said)
