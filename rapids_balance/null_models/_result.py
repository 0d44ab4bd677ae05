"""The result of a significance test: observed value, null distribution, z-score, p-value."""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._display import Display

__all__ = ["SignificanceResult", "summarise", "ALTERNATIVES"]

ALTERNATIVES = ("less", "greater", "two-sided")


@dataclass(frozen=True)
class SignificanceResult(Display):
    """A statistic of a signed graph against its null distribution.

    Attributes
    ----------
    statistic : str
        The statistic's name (``"frustration"``, ``"triangles"``, ``"walk"``
        or the callable's name).
    null : str
        ``"shuffle"`` or ``"swap"``.
    observed : float
        The statistic on the graph.
    null_mean, null_std : float
        Mean and standard deviation (``ddof=1``) of the null samples.
    z_score : float
        ``(observed - null_mean) / null_std``; ``nan`` when the null
        samples are all equal to the observed value, ``+-inf`` when they are
        all equal to another value.
    p_value : float
        Empirical p-value, ``(1 + k) / (1 + n)`` with ``k`` the null samples
        at least as extreme as the observed value on the ``alternative``
        side (``<=`` for ``"less"``, ``>=`` for ``"greater"``; two-sided:
        twice the smaller one-sided p-value, at most 1).  Never 0: with
        ``n`` samples the smallest is ``1 / (n + 1)``.
    alternative : str
        ``"less"``, ``"greater"`` or ``"two-sided"``.
    n_samples : int
        Null samples drawn (fewer than asked when ``time_limit`` stopped the run).
    null_distribution : DataFrame
        ``sample`` (its id: the seed stream it used) and ``value``.
    seed : int
        The run's seed.
    elapsed_s : float
        Seconds for the whole test.
    stopped : str or None
        ``"time_limit"`` when the time limit stopped the sampling early.
    """

    statistic: str
    null: str
    observed: float
    null_mean: float
    null_std: float
    z_score: float
    p_value: float
    alternative: str
    n_samples: int
    null_distribution: Any
    seed: int
    elapsed_s: float
    stopped: str | None = None
    info: dict = dataclasses.field(default_factory=dict)

    def _display(self):
        facts = [("statistic", self.statistic), ("null", self.null), ("observed", self.observed),
                 ("null mean", self.null_mean), ("null std", self.null_std), ("z-score", self.z_score),
                 ("p-value", self.p_value), ("alternative", self.alternative), ("samples", self.n_samples)]
        if self.stopped:
            facts.append(("stopped", self.stopped))
        return "SignificanceResult", facts, [("null_distribution", self.null_distribution)]

    def __repr__(self) -> str:
        return self.summary_line()

    def plot(self, *, bins: int = 30, ax: Any = None) -> Any:
        """Histogram of the null distribution with the observed value
        (:func:`~rapids_balance.null_models.null_histogram`)."""
        from ._plot import null_histogram

        return null_histogram(self, bins=bins, ax=ax)


def p_value(observed: float, values: np.ndarray, alternative: str) -> float:
    """Empirical p-value (see :attr:`SignificanceResult.p_value`)."""
    n = values.size
    less = (1 + int(np.count_nonzero(values <= observed))) / (1 + n)
    greater = (1 + int(np.count_nonzero(values >= observed))) / (1 + n)
    if alternative == "less":
        return less
    if alternative == "greater":
        return greater
    return min(1.0, 2 * min(less, greater))


def summarise(statistic: str, null: str, observed: float, values: np.ndarray, alternative: str,
              seed: int, elapsed: float, stopped: str | None) -> SignificanceResult:
    """Mean, std, z-score and p-value of the null samples; the table."""
    import pandas as pd

    n = values.size
    mean = float(values.mean()) if n else float("nan")
    std = float(values.std(ddof=1)) if n > 1 else float("nan")
    if n > 1 and std == 0:
        z = float("nan") if observed == mean else float(np.sign(observed - mean) * np.inf)
    else:
        z = (observed - mean) / std if n > 1 else float("nan")
    frame = pd.DataFrame({"sample": np.arange(n, dtype=np.int64), "value": values})
    return SignificanceResult(statistic=statistic, null=null, observed=float(observed),
                              null_mean=mean, null_std=std, z_score=float(z),
                              p_value=p_value(observed, values, alternative), alternative=alternative,
                              n_samples=int(n), null_distribution=frame, seed=seed,
                              elapsed_s=float(elapsed), stopped=stopped)
