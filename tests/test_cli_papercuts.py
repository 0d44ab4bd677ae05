"""Small things a first CLI run meets: each with the behaviour a user expects."""

import json

import pytest

from rapids_balance.cli import build_parser, main


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_frustration_with_no_trees_says_refinement_only(tmp_path, capsys):
    code, out, _ = _cli(capsys, "frustration", "--example", "highland", "--trees", "0", "--out", tmp_path / "f",
                        "--quiet", "--backend", "cpu")
    assert code == 0 and "None" not in out and "no trees sampled (--trees 0), refinement only" in out


def test_betweenness_seed_defaults_to_zero_like_every_command():
    for command in ("balance", "frustration", "cluster", "betweenness"):
        args = build_parser().parse_args([command, "--example", "highland", "--out", "x"])
        assert args.seed == 0, command


def test_betweenness_sample_is_the_same_without_a_seed(tmp_path, capsys):
    for name in ("a.csv", "b.csv"):
        assert _cli(capsys, "betweenness", "--example", "highland", "--k", "4", "--out", tmp_path / name,
                    "--quiet")[0] == 0
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert json.loads((tmp_path / "a.csv.run.json").read_text())["seed"] == 0


@pytest.mark.parametrize("majority, header", [
    ("larger", "original node ID, percentage node was on the larger Harary side"),
    ("agreeable", "original node ID, percentage node was in agreeable majority"),
])
def test_graphbplus_file_header_names_the_majority_rule(tmp_path, capsys, majority, header):
    gb = tmp_path / "gb.txt"
    assert _cli(capsys, "balance", "--example", "highland", "--trees", "5", "--out", tmp_path / "o",
                "--majority", majority, "--graphbplus", gb, "--quiet", "--backend", "cpu")[0] == 0
    assert gb.read_text().splitlines()[0] == header


def test_missing_sign_error_names_cli_options(tmp_path, capsys):
    src = tmp_path / "g.csv"
    src.write_text("source,target,time,trust\n1,2,3,4\n2,3,4,5\n")
    code, _, err = _cli(capsys, "balance", src, "--out", tmp_path / "o")
    assert code == 2 and "--sign COL" in err and "sign=<column>" not in err and "signed=False" not in err
    code, _, err = _cli(capsys, "info", src)
    assert code == 2 and "--unsigned" in err and "signed=False" not in err


def test_unknown_endpoints_error_names_cli_options(tmp_path, capsys):
    src = tmp_path / "g.csv"
    src.write_text("a,b,c,sign\n1,2,0,1\n2,3,0,-1\n3,4,0,1\n")
    code, _, err = _cli(capsys, "info", src)
    assert code == 2 and "--source COL --target COL" in err and "source=<column>" not in err


@pytest.mark.parametrize("option", [["--sign", "nope"], ["--weight", "7"]])
def test_example_column_errors_name_the_example_not_its_installed_path(tmp_path, capsys, option):
    import rapids_balance as rb
    from rapids_balance.cli import main
    from rapids_balance.datasets import example_path

    installed = str(example_path("highland"))
    assert main(["info", "--example", "highland", *option]) == 2
    err = capsys.readouterr().err
    assert "--example highland: " in err and installed not in err
    with pytest.raises(rb.GraphInputError, match="example 'highland': ") as exc:
        rb.load_example("highland", **{option[0][2:]: option[1] if option[1] == "nope" else int(option[1])})
    assert installed not in str(exc.value)
