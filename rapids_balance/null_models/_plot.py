"""The picture of a significance test: the null distribution and the observed value."""

from __future__ import annotations

from typing import Any

from .._validation import check_int

__all__ = ["null_histogram"]


def null_histogram(result: Any, *, bins: int = 30, ax: Any = None) -> Any:
    """Histogram of the null samples with the observed value as a vertical line.

    Parameters
    ----------
    result : SignificanceResult
        From :func:`rapids_balance.significance`.
    bins : int, default 30
        Number of bins (>= 1).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The bars (patches) count null samples; one line marks the observed value.

    Raises
    ------
    InvalidParameterError
        Not a SignificanceResult, or ``bins`` < 1.
    ImportError
        matplotlib is not installed.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> from rapids_balance.null_models import null_histogram
    >>> res = rb.significance(rb.load_example("highland"), "triangles", n_samples=50,
    ...                       progress=False)
    >>> ax = null_histogram(res)
    """
    from ..plot import _expect, _new_axes

    owner = "null_histogram"
    _expect(result, ("SignificanceResult",), owner)
    bins = check_int(bins, "bins", owner, low=1)
    ax = _new_axes(ax, owner)
    values = result.null_distribution["value"].to_numpy()
    ax.hist(values, bins=bins, color="C0", edgecolor="white", linewidth=0.5, label="null samples")
    ax.axvline(result.observed, color="C3", linewidth=2, label=f"observed {result.observed:.4g}")
    ax.set_xlabel(f"{result.statistic} ({result.null} null)")
    ax.set_ylabel("samples")
    ax.set_title(f"{result.n_samples} null samples: z = {result.z_score:.3g}, "
                 f"p = {result.p_value:.3g} ({result.alternative})")
    ax.legend(loc="best", fontsize="small")
    return ax
