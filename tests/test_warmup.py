"""warmup(): every capability runs once on the bundled graph (filling numba's cache)."""

from __future__ import annotations

import pytest

import rapids_balance as rb
from rapids_balance.cli import main


def test_warmup_runs_every_capability_and_reports_seconds():
    timings = rb.warmup()
    assert sorted(timings) == ["balance", "betweenness", "clustering", "frustration", "generators",
                              "significance"]
    assert all(isinstance(t, float) and t >= 0 for t in timings.values())


def test_warmup_command(capsys):
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "clustering:" in out and "kernels cached in" in out
    assert main(["warmup", "--quiet"]) == 0
    out = capsys.readouterr().out  # the total only, compilation and cache loads apart
    assert len(out.splitlines()) == 1 and out.startswith("warmup: ") and "s compiling kernels" in out


def test_warmup_checks_its_parameter():
    with pytest.raises(rb.InvalidParameterError, match="'verbose' parameter of warmup"):
        rb.warmup(verbose="yes")
