"""``rapids-balance frustration`` end to end on bundled and written files."""

import json

import pandas as pd

from rapids_balance.cli import main


def test_cli_example_writes_cloud_state_and_exact(tmp_path):
    out = tmp_path / "out"
    rc = main(["frustration", "--example", "highland", "--trees", "30", "--sampler", "hybrid",
               "--out", str(out), "--exact", "20", "--plot", str(tmp_path / "p.svg"), "--bound",
               "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["index"] == 7 and summary["exact"]["index"] == 7 and summary["exact"]["optimal"]
    cloud = pd.read_csv(out / "cloud.csv")
    assert cloud["count"].sum() == 30 and len(cloud) == summary["states"]
    state = pd.read_csv(out / "best_state.csv")
    switched = pd.read_csv(out / "switched.csv")
    assert len(state) == 16 and len(switched) == 7
    assert "<svg" in (tmp_path / "p.svg").read_text()[:400]
    assert summary["lower_bound"]["bound"] == 7 and summary["lower_bound"]["gap"] == 0
    assert pd.read_csv(out / "bound_cycles.csv")["cycle"].nunique() == 7


def test_cli_file_no_refine_max_states(tmp_path):
    edges = tmp_path / "g.csv"
    edges.write_text("src,dst,sign\n1,2,1\n2,3,1\n3,1,-1\n3,4,-1\n4,5,1\n5,3,1\n")
    out = tmp_path / "o"
    rc = main(["frustration", str(edges), "--trees", "10", "--sampler", "uniform", "--no-refine",
               "--max-states", "2", "--seed", "3", "--out", str(out), "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["refined_index"] is None and summary["index"] == summary["tree_index"] == 2  # two unbalanced triangles
    assert len(pd.read_csv(out / "cloud.csv")) <= 2


def test_cli_errors_are_reported(tmp_path, capsys):
    rc = main(["frustration", "--example", "highland", "--trees", "-1", "--out", str(tmp_path)])
    assert rc == 2 and "--trees" in capsys.readouterr().err
    rc = main(["frustration", "--example", "highland", "--out", str(tmp_path), "--memory-limit", "1"])
    assert rc == 2 and "memory_limit" in capsys.readouterr().err


def test_cli_time_limit_is_checked_and_passed_on(tmp_path, capsys):
    out = tmp_path / "t"
    rc = main(["frustration", "--example", "highland", "--trees", "20", "--time-limit", "1000",
               "--out", str(out), "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"] is None and summary["trees"] == 20 and summary["index"] == 7
    rc = main(["frustration", "--example", "highland", "--time-limit", "-1", "--out",
               str(tmp_path / "u"), "--quiet"])
    assert rc != 0
    assert "--time-limit" in capsys.readouterr().err


def test_summary_seconds_leave_the_compiling_out():
    """summary.json's ``seconds`` exclude what its ``compile_seconds`` hold (the line says "not
    counted above"): here 0.5 s of a wait for a side process compiling, a compile event."""
    import time
    from types import SimpleNamespace

    from numba.core import event

    import rapids_balance as rb
    from rapids_balance._compile_clock import SIDE_EVENT
    from rapids_balance.frustration_index._cli import _compute

    def compiling_frustration(graph, *args, **kwargs):
        with event.trigger_event(SIDE_EVENT):
            time.sleep(0.5)
        return rb.frustration(graph, *args, **kwargs)

    args = SimpleNamespace(roots=None, trees=8, refine=False, rounds=None, sampler="bfs", seed=0,
                           max_states=None, memory_limit=None, time_limit=None, backend="cpu",
                           quiet=True, progress=False, batch_size=None, exact=None, bound=False)
    g = rb.load_example("highland")
    start = time.perf_counter()
    _, summary = _compute(g, args, compiling_frustration)
    wall = time.perf_counter() - start
    assert summary["compile_seconds"] >= 0.5
    assert summary["seconds"] <= wall - 0.5 + 0.001  # rounding to ms
