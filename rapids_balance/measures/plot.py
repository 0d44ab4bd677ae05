"""Pictures of the balance measures (matplotlib, imported when drawing).

:func:`triangle_types` (bars of the four types, balanced in blue,
unbalanced in red), :func:`unbalanced_distribution` (how many vertices sit
in how many unbalanced triangles) and :func:`triangle_picture`, both side by
side, the ``measures`` command's ``--plot``.  Save with
:func:`rapids_balance.plot.save`.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..plot import _new_axes, require_matplotlib
from ._triangles import TriangleResult

__all__ = ["triangle_types", "unbalanced_distribution", "triangle_picture"]

_BALANCED, _UNBALANCED = "#3b6ea8", "#c0392b"


def _triangles_of(result: Any, owner: str) -> TriangleResult:
    result = getattr(result, "triangles", result)  # a BalanceScores carries one
    if not isinstance(result, TriangleResult):
        raise param_error("result", owner, "a TriangleResult (signed_triangles) or BalanceScores", result)
    return result


def triangle_types(result: Any, *, ax: Any = None) -> Any:
    """Bars of the four signed triangle types, with the balance ratio in the title.

    Parameters
    ----------
    result : TriangleResult or BalanceScores
        From :func:`~rapids_balance.signed_triangles` or
        :func:`~rapids_balance.balance_scores`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    owner = "triangle_types"
    result = _triangles_of(result, owner)
    ax = _new_axes(ax, owner)
    counts = result.counts
    colors = [_BALANCED if b else _UNBALANCED for b in counts["balanced"]]
    ax.bar(counts["type"], counts["count"], color=colors)
    ax.set_xlabel("triangle type (signs of its edges)")
    ax.set_ylabel("triangles")
    ratio = result.balance_ratio
    ax.set_title(f"{result.n_triangles:,} triangles, balance ratio {ratio:.4f}"
                 + ("" if np.isfinite(ratio) else " (none)"))
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=_BALANCED, label="balanced"), Patch(color=_UNBALANCED, label="unbalanced")],
              frameon=False)
    return ax


def unbalanced_distribution(result: Any, *, bins: int = 30, ax: Any = None) -> Any:
    """Histogram of the unbalanced triangles per vertex (above 0; log-spaced bins for long tails).

    Parameters
    ----------
    result : TriangleResult or BalanceScores
        From :func:`~rapids_balance.signed_triangles` or
        :func:`~rapids_balance.balance_scores`.
    bins : int, default 30
        Number of bins, in ``[1, 10000]``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    owner = "unbalanced_distribution"
    result = _triangles_of(result, owner)
    bins = check_int(bins, "bins", owner, low=1, high=10000)
    ax = _new_axes(ax, owner)
    from ..backend import to_host

    unb = to_host(result.vertices["unbalanced"].values).astype(np.int64)
    zero = int((unb == 0).sum())
    pos = unb[unb > 0]
    if pos.size and pos.max() <= max(bins, 50):
        ax.hist(pos, bins=np.arange(0.5, pos.max() + 1.5), color=_UNBALANCED)
    elif pos.size:  # heavy tails: log-spaced bins on log axes
        edges = np.unique(np.geomspace(1, pos.max() + 1, bins + 1).round())
        ax.hist(pos, bins=edges, color=_UNBALANCED)
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("unbalanced triangles through the vertex")
    ax.set_ylabel("vertices")
    ax.set_title(f"{pos.size:,} vertices in an unbalanced triangle, {zero:,} in none")
    return ax


def triangle_picture(result: Any, *, bins: int = 30) -> Any:
    """:func:`triangle_types` and :func:`unbalanced_distribution` side by side.

    Parameters
    ----------
    result : TriangleResult or BalanceScores
    bins : int, default 30

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import rapids_balance as rb
    >>> from rapids_balance.measures.plot import triangle_picture
    >>> fig = triangle_picture(rb.signed_triangles(rb.load_example("highland")))  # doctest: +SKIP
    >>> rb.plot.save(fig, "triangles.png")  # doctest: +SKIP
    """
    owner = "triangle_picture"
    result = _triangles_of(result, owner)
    require_matplotlib(owner)
    size = (11.0, 4.2)
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=size)
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    triangle_types(result, ax=left)
    unbalanced_distribution(result, bins=bins, ax=right)
    return fig
