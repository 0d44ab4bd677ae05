"""``rapids-balance communities``: labels written, values as the evaluators give them."""

import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.cli import main


def test_communities_cli_writes_labels_and_value(tmp_path, capsys):
    out = tmp_path / "communities.csv"
    rc = main(["communities", "--example", "highland", "--resolution", "1.0,0.5", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    labels = pd.read_csv(out)
    assert list(labels.columns) == ["vertex", "community"]
    q = rb.signed_modularity(rb.load_example("highland"), labels.set_index("vertex")["community"],
                             resolution=(1.0, 0.5)).modularity
    assert f"Q = {q:.10g}" in text
    assert (tmp_path / "communities.csv.run.json").exists()


def test_communities_cli_sponge_and_potts(capsys):
    assert main(["communities", "--example", "highland", "--method", "sponge", "--k", "3",
                 "--quiet"]) == 0
    assert "k = 3 (given)" in capsys.readouterr().out
    assert main(["communities", "--example", "highland", "--objective", "potts", "--null",
                 "constant", "--resolution", "0", "--quiet"]) == 0
    assert "signed Potts F (constant)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, name", [(["--resolution", "a"], "--resolution"),
                                        (["--resolution", "1,2,3"], "--resolution"),
                                        (["--restarts", "0"], "--restarts"),
                                        (["--k", "1", "--method", "sponge"], "--k"),
                                        (["--spectral-start", "1"], "--spectral-start"),
                                        (["--spectral-start", "3", "--method", "sponge"],
                                         "--spectral-start"),
                                        (["--time-limit", "-1"], "--time-limit")])
def test_communities_cli_bad_options(argv, name, capsys):
    assert main(["communities", "--example", "highland", *argv]) == 2
    assert name in capsys.readouterr().err


def test_communities_picture(tmp_path):
    pytest.importorskip("matplotlib")
    from rapids_balance import plot

    res = rb.signed_communities(rb.load_example("highland"), seed=0)
    ax = plot.community_mass(res)
    assert len(ax.patches) == 4 * res.n_communities
    t = res.communities
    # the bars are the table: inside + between over all communities counts each edge
    g = rb.load_example("highland")
    assert t["positive_inside"].sum() + t["positive_between"].sum() / 2 == (g.sign > 0).sum()
    assert t["negative_inside"].sum() + t["negative_between"].sum() / 2 == (g.sign < 0).sum()
    path = plot.main_picture(res, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0 and path is not None


@pytest.mark.parametrize("k", ["3", "auto"])
def test_communities_cli_spectral_start_is_the_python_call(tmp_path, k):
    out = tmp_path / "c.csv"
    assert main(["communities", "--example", "highland", "--spectral-start", k, "--seed", "2",
                 "--out", str(out), "--quiet"]) == 0
    want = rb.signed_communities(rb.load_example("highland"), seed=2,
                                 spectral_start=k if k == "auto" else int(k)).labels
    got = pd.read_csv(out)
    assert got["community"].tolist() == want["community"].tolist()
    assert got["vertex"].astype(str).tolist() == want["vertex"].astype(str).tolist()
