"""warmup(): every capability runs once on the bundled graph (filling numba's cache)."""

from __future__ import annotations

import pytest

import rapids_balance as rb
from rapids_balance.cli import main


def test_warmup_runs_every_capability_and_reports_seconds():
    timings = rb.warmup()
    assert sorted(timings) == ["balance", "betweenness", "clustering", "frustration", "generators",
                              "measures", "significance"]
    assert all(isinstance(t, float) and t >= 0 for t in timings.values())


def test_warmup_command(capsys):
    assert main(["warmup"]) == 0
    cap = capsys.readouterr()  # the steps on stderr, the total alone on stdout
    assert "clustering:" in cap.err and "kernels cached in" in cap.err
    assert len(cap.out.splitlines()) == 1 and cap.out.startswith("warmup: ")
    assert main(["warmup", "--quiet"]) == 0
    out = capsys.readouterr().out  # the total only, compilation and cache loads apart
    assert len(out.splitlines()) == 1 and out.startswith("warmup: ") and "s compiling kernels" in out


def test_warmup_checks_its_parameter():
    with pytest.raises(rb.InvalidParameterError, match="'verbose' parameter of warmup"):
        rb.warmup(verbose="yes")
