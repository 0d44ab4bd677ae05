"""Pictures of results: one function per picture, each returning a matplotlib Axes.

Needs matplotlib (the ``plot`` extra: ``pip install 'rapids-balance[plot]'``),
imported only when a picture is drawn.  Every function takes the result
object and an optional ``ax=``; without one it makes a new figure.  When
``matplotlib.pyplot`` is already imported (a notebook, a script) the figure
is a pyplot figure, so it shows as usual; otherwise it is a plain
:class:`matplotlib.figure.Figure` on the Agg canvas, which needs no display.

=========================  ==============================================
result                     pictures
=========================  ==============================================
BalanceResult              :func:`status_histogram`, :func:`status_scatter`,
                           :func:`edge_shares`
FrustrationResult          :func:`frustration_convergence` (with an
                           optional FrustrationBound), :func:`cloud_growth`
betweenness table          :func:`betweenness_ccdf`, :func:`betweenness_top`
ClusteringResult           :func:`imbalance_history`, :func:`cluster_sizes`
a graph                    :func:`degree_ccdf`; small graphs:
                           :func:`signed_graph` with a bipartition or clusters
=========================  ==============================================

:func:`save` writes a picture (or a result's main picture,
:func:`main_picture`) to PNG, SVG or PDF by the file's suffix.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from ._validation import check_bool, check_choice, check_int, param_error
from .errors import missing_extra

__all__ = ["require_matplotlib", "check_picture_path", "status_histogram", "status_scatter",
           "edge_shares", "frustration_convergence", "cloud_growth", "betweenness_ccdf",
           "betweenness_top", "imbalance_history", "cluster_sizes", "degree_ccdf", "signed_graph",
           "main_picture", "save", "PICTURE_SUFFIXES"]

PICTURE_SUFFIXES = (".png", ".svg", ".pdf")
# the default size of signed_graph's refusal: beyond a few hundred vertices a
# drawing is a hairball and the layout takes long
MAX_DRAWN_VERTICES = 300
_SIZE = (6.4, 4.4)


# ---------------------------------------------------------------------------
# matplotlib, figures, files
# ---------------------------------------------------------------------------

def require_matplotlib(what: str = "plotting") -> Any:
    """Import matplotlib or raise ImportError with the install hint.

    Parameters
    ----------
    what : str
        What needed it, for the message (e.g. ``"--plot out.png"``).

    Returns
    -------
    module
        The ``matplotlib`` module.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise missing_extra("matplotlib", what) from None
    return matplotlib


def check_picture_path(path: Any, owner: str = "save", name: str = "path") -> str:
    """Check a picture file's suffix (``.png``, ``.svg`` or ``.pdf``) before any work.

    Parameters
    ----------
    path : str or os.PathLike
        The picture file.
    owner : str, default "save"
        The function or command named in the message.
    name : str, default "path"
        The parameter or option named in the message (e.g. ``"--plot"``).

    Returns
    -------
    str
        The suffix, lower case.

    Raises
    ------
    InvalidParameterError
        Another suffix, or not a path.
    """
    must = "a file path ending in .png, .svg or .pdf"
    if not isinstance(path, (str, os.PathLike)):
        raise param_error(name, owner, must, path)
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in PICTURE_SUFFIXES:
        raise param_error(name, owner, must, os.fspath(path))
    return suffix


def _new_axes(ax: Any, owner: str, figsize: tuple[float, float] = _SIZE):
    require_matplotlib(owner)
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise param_error("ax", owner, "a matplotlib Axes or None", ax)
        return ax
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize).add_subplot()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig.add_subplot()


def _expect(obj: Any, cls_names: tuple[str, ...], owner: str, name: str = "result") -> None:
    if type(obj).__name__ not in cls_names:
        raise param_error(name, owner, " or ".join(f"a {c}" for c in cls_names), obj)


def _frame_column(table: Any, owner: str, column: str | None) -> str:
    """The score column of a betweenness table (checked)."""
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise param_error("table", owner, "a pandas DataFrame from betweenness_centrality or "
                          "edge_betweenness_centrality", table)
    if column is None:
        scores = [c for c in table.columns if str(c).endswith("centrality")]
        if not scores:
            raise param_error("column", owner, "given when the table has no '*centrality' column",
                              column)
        column = scores[0]
    if column not in table.columns:
        raise param_error("column", owner, f"one of the table's columns {list(table.columns)}", column)
    return column


# ---------------------------------------------------------------------------
# balance
# ---------------------------------------------------------------------------

def status_histogram(result: Any, *, bins: int = 40, ax: Any = None) -> Any:
    """Histogram of vertex status (share of trees that put the vertex in the majority).

    Parameters
    ----------
    result : BalanceResult
        From :func:`rapids_balance.balance`.
    bins : int, default 40
        Number of bins over [0, 1].
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``bins`` bars (patches) counting vertices.

    Raises
    ------
    InvalidParameterError
        Not a BalanceResult, or ``bins`` < 1.
    ImportError
        matplotlib is not installed.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> from rapids_balance import plot
    >>> res = rb.balance(rb.load_example("highland"), 50, progress=False)
    >>> ax = plot.status_histogram(res)
    """
    owner = "status_histogram"
    _expect(result, ("BalanceResult",), owner)
    bins = check_int(bins, "bins", owner, low=1)
    ax = _new_axes(ax, owner)
    status = result.vertices["status"].to_numpy()
    ax.hist(status, bins=bins, range=(0.0, 1.0), color="C0", edgecolor="white", linewidth=0.5)
    ax.set_xlabel("status (share of trees with the vertex in the majority)")
    ax.set_ylabel("vertices")
    ax.set_title(f"Vertex status over {result.n_trees} trees ({status.size} vertices)")
    return ax


def _label_column(ax: Any, picked: np.ndarray, xs: np.ndarray, ys: np.ndarray, names: Any) -> None:
    """Label the ``picked`` points from a column of evenly spaced names, each with a leader line.

    Hubs crowd into one spot of a status plot, so labels beside their dots
    overlap; here the names stand in a column at the side with fewer dots,
    ordered by height so the leader lines do not cross, spaced so they
    never touch.  The leader lines still meet where the hubs crowd, so each
    label, its line and a ring around its dot share a colour and the ring a
    shape of their own: the name of every ringed dot can be read off.
    """
    if picked.size == 0:
        return
    left = float(np.mean(xs[picked])) > 0.5 * sum(ax.get_xlim())
    column_x, ha = (0.03, "left") if left else (0.97, "right")
    by_height = picked[np.argsort(-ys[picked], kind="stable")]
    slots = np.linspace(0.92, 0.08, by_height.size) if by_height.size > 1 else np.array([0.5])
    height_pt = ax.bbox.height * 72.0 / ax.figure.dpi
    spacing_pt = 0.84 * height_pt / max(by_height.size - 1, 1)
    size = float(min(7.0, max(3.0, 0.8 * spacing_pt)))
    for k, (i, slot) in enumerate(zip(by_height, slots)):
        color = _LABEL_COLORS[k % len(_LABEL_COLORS)]
        marker = _LABEL_MARKERS[(k + k // len(_LABEL_COLORS)) % len(_LABEL_MARKERS)]
        ax.scatter([xs[i]], [ys[i]], s=70, marker=marker, facecolors="none", edgecolors=color,
                   linewidths=1.4, zorder=4)
        ax.annotate(str(names.iloc[i]), (xs[i], ys[i]), xytext=(column_x, slot), textcoords="axes fraction",
                    fontsize=size, ha=ha, va="center", color=color, zorder=5,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec=color, lw=0.6, alpha=0.9),
                    arrowprops=dict(arrowstyle="-", lw=0.7, color=color, shrinkA=0, shrinkB=5))


# label colours that stand out from the viridis dots, and ring shapes (a second cue)
_LABEL_COLORS = ("#d62728", "#ff7f0e", "#1f77b4", "#e377c2", "#8c564b", "#000000", "#9467bd",
                 "#bcbd22", "#17becf", "#7f7f7f")
_LABEL_MARKERS = ("o", "s", "^", "D", "v", "p", "h", "<", ">", "8")


def status_scatter(result: Any, *, y: str = "influence", top: int = 10, label_by: str = "degree",
                   ax: Any = None) -> Any:
    """Draw status against influence (or authority), one dot per vertex coloured by degree.

    The ``top`` vertices by ``label_by`` are labelled with their original
    labels, in a column at the side with leader lines to their dots (hubs
    share a small region of the plot, where labels beside the dots would
    overlap).

    Parameters
    ----------
    result : BalanceResult
        From :func:`rapids_balance.balance`.
    y : {"influence", "authority"}, default "influence"
        The vertical attribute.
    top : int, default 10
        How many vertices to label (0: none).
    label_by : {"degree", "status", "influence", "authority"}, default "degree"
        Which vertices are the top ones (ties: the first in vertex order).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        With a colour bar of the degree (log scale) beside it.

    Raises
    ------
    InvalidParameterError
        Not a BalanceResult, ``y`` or ``label_by`` not one of theirs, ``top`` < 0.
    ImportError
        matplotlib is not installed.
    """
    owner = "status_scatter"
    _expect(result, ("BalanceResult",), owner)
    check_choice(y, "y", owner, ("influence", "authority"))
    check_choice(label_by, "label_by", owner, ("degree", "status", "influence", "authority"))
    top = check_int(top, "top", owner, low=0)
    ax = _new_axes(ax, owner)
    from matplotlib.colors import LogNorm

    v = result.vertices
    xs, ys = v["status"].to_numpy(), v[y].to_numpy()
    degree = np.maximum(result.graph.degrees(), 1)
    order = np.argsort(degree, kind="stable")  # hubs drawn last, on top
    dots = ax.scatter(xs[order], ys[order], c=degree[order], s=10, cmap="viridis",
                      norm=LogNorm(vmin=1, vmax=max(2, int(degree.max()))), alpha=0.8, linewidths=0)
    ax.figure.colorbar(dots, ax=ax, label="degree")
    rank = degree if label_by == "degree" else v[label_by].to_numpy()
    _label_column(ax, np.argsort(-rank, kind="stable")[:top], xs, ys, v["vertex"])
    ax.set_xlabel("status")
    ax.set_ylabel(y)
    ax.set_title(f"Status and {y} ({len(v)} vertices; top {min(top, len(v))} by {label_by} labelled)",
                 fontsize=10)
    return ax


def edge_shares(result: Any, *, bins: int = 40, ax: Any = None) -> Any:
    """Draw the distributions of the per-edge shares: in a tree, negative, switched.

    Parameters
    ----------
    result : BalanceResult
        From :func:`rapids_balance.balance`.
    bins : int, default 40
        Bins over [0, 1].
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Three step histograms (one patch each) on a log count axis.

    Raises
    ------
    InvalidParameterError
        Not a BalanceResult, or ``bins`` < 1.
    ImportError
        matplotlib is not installed.
    """
    owner = "edge_shares"
    _expect(result, ("BalanceResult",), owner)
    bins = check_int(bins, "bins", owner, low=1)
    ax = _new_axes(ax, owner)
    e = result.edges
    for col, label in (("in_tree", "in the tree"), ("negative", "negative when balanced"),
                       ("switched", "switched")):
        ax.hist(e[col].to_numpy(), bins=bins, range=(0.0, 1.0), histtype="step", linewidth=1.5,
                label=label)
    ax.set_yscale("log")
    ax.set_xlabel("share of trees")
    ax.set_ylabel("edges")
    ax.set_title(f"Per-edge shares over {result.n_trees} trees ({len(e)} edges)")
    ax.legend()
    return ax


# ---------------------------------------------------------------------------
# frustration
# ---------------------------------------------------------------------------

def _tree_curve(result) -> tuple[np.ndarray, np.ndarray]:
    """Best tree index after each tree (from the cloud), or after each batch when states
    were evicted (an evicted state may have been the best of its time)."""
    cloud = result.cloud
    if result.info.get("evicted", 0) == 0 and len(cloud):
        first = cloud["first_tree"].to_numpy()
        order = np.argsort(first, kind="stable")
        trees = first[order] + 1
        best = np.minimum.accumulate(cloud["switches"].to_numpy()[order])
        change = np.r_[True, best[1:] != best[:-1]]  # the tree of each improvement
        last = int(result.info.get("trees", trees[-1]))
        return np.r_[trees[change], last], np.r_[best[change], best[-1]]
    h = result.history[result.history["stage"] == "trees"]
    return h["trees"].to_numpy(), h["index"].to_numpy()


def frustration_convergence(result: Any, bound: Any = None, *, ax: Any = None) -> Any:
    """Best frustration index against trees sampled, with the refinement and a lower bound.

    Parameters
    ----------
    result : FrustrationResult
        From :func:`rapids_balance.frustration`.
    bound : FrustrationBound or int, optional
        From :func:`rapids_balance.frustration_lower_bound` (or a proven
        bound as an int): drawn as a line, and the certified gap (best
        index minus bound: how far the index can be from the optimum) annotated.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The tree-only estimate as a step line, the refined index and the
        bound as horizontal lines.

    Raises
    ------
    InvalidParameterError
        Not a FrustrationResult, or ``bound`` of the wrong kind.
    ImportError
        matplotlib is not installed.

    Notes
    -----
    Without evicted states the tree curve is exact per tree (the best
    state's first tree); with a state cap it has one point per batch.
    """
    owner = "frustration_convergence"
    _expect(result, ("FrustrationResult",), owner)
    lower = _bound_value(bound, owner)
    ax = _new_axes(ax, owner)
    if result.tree_index is not None:
        xs, ys = _tree_curve(result)
        ax.step(xs, ys, where="post", color="C0", marker=".", markersize=4, label="best tree state")
        ax.set_xscale("log" if xs.size and xs[-1] > 50 * max(xs[0], 1) else "linear")
    if result.refined_index is not None:
        ax.axhline(result.refined_index, color="C1", ls="--", lw=1.5, zorder=3,
                   label=f"refined (local search): {result.refined_index}")
    if lower is not None:
        # a wide pale band under the refined line: where the two are equal both stay visible
        ax.axhline(lower, color="C2", ls="-", lw=7, alpha=0.35, label=f"lower bound: {lower}", zorder=1)
        gap = result.index - lower
        text = (f"index {result.index} = lower bound:\noptimal" if gap <= 0 else
                f"certified gap {gap}:\nindex {result.index} is at most {gap}\nabove the optimum")
        ax.annotate(text, xy=(0.98, 0.6), xycoords="axes fraction", ha="right", va="center", fontsize=8,
                    bbox=dict(boxstyle="round", fc="white", ec="0.7"))
    levels = [v for v in (result.refined_index, lower) if v is not None]
    if levels:
        # the horizontal lines sit inside the axes, not on its lower edge
        low, high = ax.get_ylim()
        margin = 0.08 * max(high - min(low, *levels), 1.0)
        ax.set_ylim(min(low, min(levels) - margin), max(high, max(levels) + margin))
    ax.set_xlabel("trees sampled")
    ax.set_ylabel("frustration index (edges switched)")
    ax.set_title(f"Frustration estimate: best index {result.index}")
    ax.legend(loc="best", fontsize=8)
    return ax


def _bound_value(bound: Any, owner: str) -> int | None:
    if bound is None:
        return None
    if type(bound).__name__ == "FrustrationBound":
        return int(bound.bound)
    return check_int(bound, "bound", owner, low=0)


def cloud_growth(result: Any, *, ax: Any = None) -> Any:
    """Distinct nearest balanced states (the frustration cloud) against trees sampled.

    Parameters
    ----------
    result : FrustrationResult
        From :func:`rapids_balance.frustration`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One step line: states first seen within the first t trees, among
        those the cloud kept (all of them unless a state cap evicted some;
        the title then says how many).

    Raises
    ------
    InvalidParameterError
        Not a FrustrationResult.
    ImportError
        matplotlib is not installed.
    """
    owner = "cloud_growth"
    _expect(result, ("FrustrationResult",), owner)
    ax = _new_axes(ax, owner)
    first = np.sort(result.cloud["first_tree"].to_numpy())
    trees = int(result.info.get("trees", first[-1] + 1 if first.size else 0))
    xs = np.r_[0, first + 1, trees]
    ys = np.r_[0, np.arange(1, first.size + 1), first.size]
    ax.step(xs, ys, where="post", color="C0", label="distinct states kept")
    ax.plot([0, trees], [0, trees], color="0.6", ls=":", lw=1, label="every tree a new state")
    evicted = int(result.info.get("evicted", 0))
    note = f"; {evicted} evicted by the state cap" if evicted else ""
    ax.set_xlabel("trees sampled")
    ax.set_ylabel("distinct states")
    ax.set_title(f"Frustration cloud: {first.size} states from {trees} trees{note}", fontsize=10)
    ax.set_ylim(0, max(1, first.size) * 1.1)
    ax.legend(loc="upper left", fontsize=8)
    return ax


# ---------------------------------------------------------------------------
# betweenness
# ---------------------------------------------------------------------------

def betweenness_ccdf(table: Any, *, column: str | None = None, ax: Any = None) -> Any:
    """Complementary cumulative distribution of betweenness on log-log axes.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`rapids_balance.betweenness_centrality` or
        :func:`rapids_balance.edge_betweenness_centrality`.
    column : str, optional
        The score column (default: the one named ``*centrality``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One line: the share of rows with a score >= x, for positive scores.

    Raises
    ------
    InvalidParameterError
        Not a DataFrame, or no such column.
    ImportError
        matplotlib is not installed.
    """
    owner = "betweenness_ccdf"
    column = _frame_column(table, owner, column)
    ax = _new_axes(ax, owner)
    scores = np.sort(table[column].to_numpy(dtype=np.float64))
    zeros = int(np.count_nonzero(scores <= 0))
    positive = scores[zeros:]
    # P(X >= x) at each sorted score (the first of tied scores carries their whole share)
    share = (scores.size - zeros - np.arange(positive.size)) / max(scores.size, 1)
    ax.plot(positive, share, color="C0", lw=1.5, drawstyle="steps-post")
    ax.set_xscale("log")
    ax.set_yscale("log")
    what = "edges" if "src" in table.columns else "vertices"
    ax.set_xlabel(column.replace("_", " "))
    ax.set_ylabel(f"share of {what} with at least x")
    ax.set_title(f"Betweenness tail ({scores.size} {what}; {zeros} with zero not shown)", fontsize=10)
    return ax


def betweenness_top(table: Any, *, k: int = 20, column: str | None = None, ax: Any = None) -> Any:
    """The ``k`` highest betweenness scores as a horizontal bar chart.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`rapids_balance.betweenness_centrality` (bars named by
        ``vertex``) or :func:`rapids_balance.edge_betweenness_centrality`
        (named ``src-dst``).
    k : int, default 20
        Bars to draw (fewer when the table is shorter).
    column : str, optional
        The score column (default: the one named ``*centrality``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``min(k, len(table))`` bars, the highest on top.

    Raises
    ------
    InvalidParameterError
        Not a DataFrame, no such column, ``k`` < 1.
    ImportError
        matplotlib is not installed.
    """
    owner = "betweenness_top"
    column = _frame_column(table, owner, column)
    k = check_int(k, "k", owner, low=1)
    ax = _new_axes(ax, owner, figsize=(6.4, max(2.5, 0.25 * min(k, len(table)) + 1.2)))
    best = table.nlargest(k, column, keep="first")
    if "vertex" in best.columns:
        names = [str(x) for x in best["vertex"]]
    else:
        names = [f"{s}-{d}" for s, d in zip(best["src"], best["dst"])]
    ax.barh(np.arange(len(best))[::-1], best[column].to_numpy(), color="C0",
            tick_label=names)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel(column.replace("_", " "))
    ax.set_title(f"Top {len(best)} by betweenness", fontsize=10)
    return ax


# ---------------------------------------------------------------------------
# clustering
# ---------------------------------------------------------------------------

def imbalance_history(result: Any, *, ax: Any = None) -> Any:
    """Best imbalance I(P) against time, one step each time it improved.

    Parameters
    ----------
    result : ClusteringResult
        From :func:`rapids_balance.correlation_clustering`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One step line (with markers) from the first recorded imbalance to the end of the run.

    Raises
    ------
    InvalidParameterError
        Not a ClusteringResult.
    ImportError
        matplotlib is not installed.
    """
    owner = "imbalance_history"
    _expect(result, ("ClusteringResult",), owner)
    ax = _new_axes(ax, owner)
    h = result.history
    xs = np.r_[h["time_s"].to_numpy(), max(result.elapsed_s, float(h["time_s"].max()) if len(h) else 0)]
    ys = np.r_[h["imbalance"].to_numpy(), result.imbalance]
    ax.step(xs, ys, where="post", color="C0", marker="o", markersize=3, markevery=list(range(len(h))))
    if ys.size and np.ptp(ys) == 0:
        # one value all along (a one-iteration run): an axis from 0, not a zoom on a flat line
        ax.set_ylim(0, max(1.0, 1.15 * float(ys[0])))
        ax.annotate(f"no change after the first solution ({result.iterations} iteration"
                    f"{'' if result.iterations == 1 else 's'})", xy=(0.5, 0.5), xycoords="axes fraction",
                    ha="center", va="center", fontsize=8, bbox=dict(boxstyle="round", fc="white", ec="0.7"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("best imbalance I(P)")
    ax.set_title(f"{result.method}: imbalance {result.imbalance:g}, {result.n_clusters} clusters",
                 fontsize=10)
    return ax


def cluster_sizes(result: Any, *, top: int = 50, ax: Any = None) -> Any:
    """Cluster sizes, largest first (rank against size).

    Parameters
    ----------
    result : ClusteringResult
        From :func:`rapids_balance.correlation_clustering`.
    top : int, default 50
        Bars for at most this many clusters (the title counts the rest).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``min(top, clusters)`` bars.

    Raises
    ------
    InvalidParameterError
        Not a ClusteringResult, ``top`` < 1.
    ImportError
        matplotlib is not installed.
    """
    owner = "cluster_sizes"
    _expect(result, ("ClusteringResult",), owner)
    top = check_int(top, "top", owner, low=1)
    ax = _new_axes(ax, owner)
    sizes = np.sort(np.bincount(result.labels["cluster"].to_numpy()))[::-1]
    sizes = sizes[sizes > 0]
    shown = sizes[:top]
    ax.bar(np.arange(1, shown.size + 1), shown, color="C0")
    if shown.size > 1 and shown[0] > 20 * shown[-1]:
        ax.set_yscale("log")
    ax.set_xlabel("cluster (largest first)")
    ax.set_ylabel("vertices")
    rest = f"; {sizes.size - shown.size} smaller not shown" if sizes.size > shown.size else ""
    ax.set_title(f"{sizes.size} clusters of {int(sizes.sum())} vertices{rest}", fontsize=10)
    return ax


def community_mass(result: Any, *, top: int = 30, ax: Any = None) -> Any:
    """Community sizes and the positive / negative weight inside and between them.

    One group of bars per community (largest first): the positive and the
    negative weight inside it, and the positive and negative weight of its
    edges to the rest; the title gives the sizes.  A good signed community
    has tall positive-inside and negative-between bars.

    Parameters
    ----------
    result : CommunityResult
        From :func:`rapids_balance.signed_communities`.
    top : int, default 30
        At most this many communities (the title counts the rest).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InvalidParameterError
        Not a CommunityResult, ``top`` < 1.
    ImportError
        matplotlib is not installed.
    """
    owner = "community_mass"
    _expect(result, ("CommunityResult",), owner)
    top = check_int(top, "top", owner, low=1)
    ax = _new_axes(ax, owner, figsize=(8.0, 4.0))
    t = result.communities.sort_values(["size", "community"], ascending=[False, True])
    shown = t.head(top)
    x = np.arange(len(shown))
    cols = (("positive_inside", "C2", "positive inside"), ("negative_inside", "C3", "negative inside"),
            ("positive_between", "C0", "positive between"),
            ("negative_between", "C1", "negative between"))
    for i, (col, color, name) in enumerate(cols):
        ax.bar(x + (i - 1.5) * 0.2, shown[col].to_numpy(), width=0.2, color=color, label=name)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{int(c)}\n({int(n)})" for c, n in zip(shown["community"], shown["size"])],
                       fontsize=7)
    ax.set_xlabel("community (vertices)")
    ax.set_ylabel("edge weight")
    ax.legend(fontsize=8)
    rest = f"; {len(t) - len(shown)} smaller not shown" if len(t) > len(shown) else ""
    ax.set_title(f"{result.objective}: {len(t)} communities, value {result.value:.6g}{rest}",
                 fontsize=10)
    return ax


# ---------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------

def degree_ccdf(graph: Any, *, ax: Any = None) -> Any:
    """Complementary cumulative degree distribution on log-log axes.

    Parameters
    ----------
    graph : Graph or SignedGraph (or anything :func:`rapids_balance.graph.graph_from_any` takes)
        The graph.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One line: the share of vertices with degree >= k.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    """
    from .graph import graph_from_any

    owner = "degree_ccdf"
    graph = graph_from_any(graph)
    ax = _new_axes(ax, owner)
    deg = graph.degrees() if not graph.directed else (
        np.bincount(graph.edge_src, minlength=graph.n) + np.bincount(graph.edge_dst, minlength=graph.n))
    values, counts = np.unique(deg[deg > 0], return_counts=True)
    at_least = counts[::-1].cumsum()[::-1] / max(graph.n, 1)
    ax.plot(values, at_least, color="C0", marker=".", markersize=3, lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("degree k")
    ax.set_ylabel("share of vertices with degree >= k")
    ax.set_title(f"Degrees of {graph.name or 'the graph'} ({graph.n} vertices, {graph.m} edges)",
                 fontsize=10)
    return ax


def _groups_of(graph, partition: Any, owner: str) -> tuple[np.ndarray, str]:
    """Group id per internal vertex from a result or a table, and what it is called."""
    import pandas as pd

    kind = type(partition).__name__
    if partition is None:
        return np.zeros(graph.n, np.int64), ""
    if kind == "FrustrationResult":
        table, col, what = partition.best_state, "side", "best balanced state"
    elif kind == "ClusteringResult":
        table, col, what = partition.labels, "cluster", "clusters"
    elif kind == "PlantedPartition":
        table, col, what = partition.partition, "group", "planted groups"
    elif kind == "BalanceResult":
        # the status majority: vertices in the majority in at least half the trees
        st = partition.vertices
        table = pd.DataFrame({"vertex": st["vertex"], "side": (st["status"] >= 0.5).astype(int)})
        col, what = "side", "majority (status >= 0.5)"
    elif isinstance(partition, pd.DataFrame):
        cols = [c for c in ("side", "cluster", "group") if c in partition.columns]
        if "vertex" not in partition.columns or not cols:
            raise param_error("partition", owner, "a table with 'vertex' and 'side', 'cluster' or "
                              "'group' columns", partition)
        table, col, what = partition, cols[0], cols[0]
    else:
        arr = np.asarray(partition)
        if arr.shape != (graph.n,) or arr.dtype.kind not in "biu":
            raise param_error("partition", owner, "a FrustrationResult, ClusteringResult, "
                              "PlantedPartition, BalanceResult, a vertex table or an integer array "
                              "with one entry per vertex", partition)
        return arr.astype(np.int64), "groups"
    ids = graph.vertex_ids(table["vertex"].tolist())
    out = np.zeros(graph.n, np.int64)
    out[ids] = table[col].to_numpy()
    return out, what


def _layout(graph, groups: np.ndarray, seed: int) -> np.ndarray:
    """Vertex positions: networkx's spring layout when installed, else :func:`_group_circles`."""
    try:
        import networkx as nx
    except ImportError:
        nx = None
    if nx is not None:
        G = nx.Graph()
        G.add_nodes_from(range(graph.n))
        # positive edges pull much harder, and the groups start apart, so they stay apart
        w = np.where(graph.sign > 0, 1.0, 0.05)
        G.add_weighted_edges_from(zip(graph.edge_src.tolist(), graph.edge_dst.tolist(), w.tolist()))
        start = _group_circles(groups)
        pos = nx.spring_layout(G, pos={i: start[i] for i in range(graph.n)}, seed=seed, weight="weight")
        return np.array([pos[i] for i in range(graph.n)])
    return _group_circles(groups)


def _group_circles(groups: np.ndarray) -> np.ndarray:
    """Each group on its own circle, the groups around a larger circle (deterministic)."""
    pos = np.zeros((groups.size, 2))
    labels = np.unique(groups)
    for gi, g in enumerate(labels):
        members = np.flatnonzero(groups == g)
        centre = 2.5 * np.array([np.cos(2 * np.pi * gi / labels.size), np.sin(2 * np.pi * gi / labels.size)]) \
            if labels.size > 1 else np.zeros(2)
        t = 2 * np.pi * np.arange(members.size) / max(members.size, 1)
        pos[members] = centre + np.c_[np.cos(t), np.sin(t)]
    return pos


def signed_graph(graph: Any, partition: Any = None, *, labels: bool | None = None,
                 max_vertices: int = MAX_DRAWN_VERTICES, seed: int = 0, ax: Any = None) -> Any:
    """Draw a small signed graph: positive edges solid, negative dashed, vertices by group.

    Parameters
    ----------
    graph : SignedGraph (or anything :func:`rapids_balance.graph.graph_from_any` takes)
        At most ``max_vertices`` vertices.
    partition : optional
        What colours the vertices: a FrustrationResult (its best balanced
        state: the Harary bipartition), a ClusteringResult, a
        PlantedPartition, a BalanceResult (majority by status), a table with
        ``vertex`` and ``side``/``cluster``/``group``, or an integer array
        per internal vertex.  None: one colour.
    labels : bool, optional
        Write vertex labels (default: when there are at most 40 vertices).
    max_vertices : int, default 300
        Larger graphs are refused: a drawing of thousands of vertices shows nothing.
    seed : int, default 0
        Seed of networkx's spring layout (deterministic).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Two line collections (positive, negative edges; a disagreeing edge,
        negative inside a group or positive across, is drawn red) and one
        scatter of vertices.

    Raises
    ------
    InvalidParameterError
        The graph has more than ``max_vertices`` vertices, or a parameter is wrong.
    GraphInputError
        The graph has no signs.
    ImportError
        matplotlib is not installed.

    Notes
    -----
    With networkx the layout is a spring layout in which positive edges
    pull five times harder than negative ones; without it, each group sits
    on its own circle.
    """
    from .errors import GraphInputError, InvalidParameterError
    from .graph import graph_from_any

    owner = "signed_graph"
    max_vertices = check_int(max_vertices, "max_vertices", owner, low=1)
    seed = check_int(seed, "seed", owner, low=0, high=2**32 - 1)
    if labels is not None:
        labels = check_bool(labels, "labels", owner)
    if hasattr(graph, "graph") and type(graph).__name__ in ("BalanceResult", "PlantedPartition"):
        graph = graph.graph
    graph = graph_from_any(graph)
    if graph.sign is None:
        raise GraphInputError("signed_graph draws signed graphs; this graph has no signs")
    if graph.n > max_vertices:
        raise InvalidParameterError(
            f"The 'graph' parameter of signed_graph must have at most {max_vertices} vertices "
            f"(max_vertices) to be drawn. Got a graph of {graph.n} vertices instead; draw a "
            f"subgraph, or use degree_ccdf for large graphs.")
    groups, what = _groups_of(graph, partition, owner)
    ax = _new_axes(ax, owner, figsize=(6.4, 6.0))
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    pos = _layout(graph, groups, seed)
    seg = np.stack([pos[graph.edge_src], pos[graph.edge_dst]], axis=1)
    pos_e = graph.sign > 0
    inside = groups[graph.edge_src] == groups[graph.edge_dst]
    bad = pos_e != inside if partition is not None else np.zeros(graph.m, bool)
    colours = np.where(bad, "tab:red", "0.45")
    ax.add_collection(LineCollection(seg[pos_e], colors=colours[pos_e], linewidths=1.0,
                                     linestyles="solid", zorder=1))
    colours = np.where(bad, "tab:red", "0.65")  # negative edges lighter: there are often many
    ax.add_collection(LineCollection(seg[~pos_e], colors=colours[~pos_e], linewidths=0.8,
                                     linestyles=(0, (4, 3)), zorder=1))
    ax.scatter(pos[:, 0], pos[:, 1], c=groups, cmap="tab10" if groups.max() < 10 else "tab20",
               vmin=0, vmax=max(9, int(groups.max())), s=110 if graph.n <= 40 else 40 if graph.n <= 100 else 15,
               edgecolors="black", linewidths=0.5, zorder=2)
    if labels if labels is not None else graph.n <= 40:
        for i, lab in enumerate(graph.labels.tolist()):
            ax.annotate(str(lab), pos[i], ha="center", va="center", fontsize=6, zorder=3)
    handles = [Line2D([], [], color="0.45", ls="-", label="positive edge"),
               Line2D([], [], color="0.65", ls="--", label="negative edge")]
    if partition is not None:
        handles.append(Line2D([], [], color="tab:red", label=f"disagrees with the {what}"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles),
              fontsize=7, frameon=False)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_axis_off()
    title = f"{graph.name or 'signed graph'}: {graph.n} vertices, {graph.m} edges"
    if partition is not None:
        title += f"\n{int(np.count_nonzero(bad))} edges disagree with the {what}"
    ax.set_title(title, fontsize=10)
    return ax


# ---------------------------------------------------------------------------
# one call per result: the CLI's --plot
# ---------------------------------------------------------------------------

def main_picture(result: Any, path: str | os.PathLike | None = None, **kwargs: Any) -> Any:
    """The main picture of a result, saved to ``path`` when given.

    ======================  ===================================
    result                  picture
    ======================  ===================================
    BalanceResult           :func:`status_scatter`
    FrustrationResult       :func:`frustration_convergence` (``bound=`` passes on)
    betweenness table       :func:`betweenness_ccdf`
    ClusteringResult        :func:`imbalance_history`
    CommunityResult         :func:`community_mass`
    PlantedPartition        :func:`signed_graph` when small, else :func:`degree_ccdf`
    Graph / SignedGraph     :func:`degree_ccdf`
    ======================  ===================================

    Parameters
    ----------
    result : object
        One of the results in the table above.
    path : str or os.PathLike, optional
        A ``.png``, ``.svg`` or ``.pdf`` file (checked before drawing).
    **kwargs
        Passed to the picture function.

    Returns
    -------
    matplotlib.axes.Axes
        The picture drawn (already saved when ``path`` was given).

    Raises
    ------
    InvalidParameterError
        An unknown result type or file suffix.
    ImportError
        matplotlib is not installed.
    """
    import pandas as pd

    if path is not None:
        check_picture_path(path, "main_picture")
    require_matplotlib("main_picture")
    kind = type(result).__name__
    table = {"BalanceResult": status_scatter, "FrustrationResult": frustration_convergence,
             "ClusteringResult": imbalance_history, "Graph": degree_ccdf, "SignedGraph": degree_ccdf,
             "CommunityResult": community_mass}
    if kind in table:
        ax = table[kind](result, **kwargs)
    elif kind == "PlantedPartition":
        small = hasattr(result.graph, "n") and result.graph.n <= MAX_DRAWN_VERTICES
        ax = signed_graph(result.graph, result, **kwargs) if small else degree_ccdf(result.graph, **kwargs)
    elif isinstance(result, pd.DataFrame):
        ax = betweenness_ccdf(result, **kwargs)
    else:
        raise param_error("result", "main_picture", "a BalanceResult, FrustrationResult, "
                          "ClusteringResult, PlantedPartition, graph or betweenness table", result)
    if path is not None:
        save(ax, path)
    return ax


def save(result_or_axes: Any, path: str | os.PathLike, *, dpi: int = 110, **kwargs: Any) -> str:
    """Write a picture to PNG, SVG or PDF (by the suffix of ``path``), atomically.

    Parameters
    ----------
    result_or_axes : matplotlib Axes or Figure, or a result
        A drawn picture, or a result whose :func:`main_picture` is drawn.
    path : str or os.PathLike
        Ends in ``.png``, ``.svg`` or ``.pdf``; checked before anything is drawn.
    dpi : int, default 110
        Resolution of PNG files.
    **kwargs
        Passed to :func:`main_picture` when a result is given.

    Returns
    -------
    str
        The path written.

    Raises
    ------
    InvalidParameterError
        Another suffix, or ``dpi`` < 10.
    ImportError
        matplotlib is not installed.
    """
    check_picture_path(path, "save")
    dpi = check_int(dpi, "dpi", "save", low=10)
    require_matplotlib("save")
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    ours = not isinstance(result_or_axes, (Axes, Figure))
    if isinstance(result_or_axes, Axes):
        fig = result_or_axes.figure
    elif isinstance(result_or_axes, Figure):
        fig = result_or_axes
    else:
        fig = main_picture(result_or_axes, **kwargs).figure
    fig.tight_layout()
    # no software name or timestamps in the files: the same picture gives the same bytes
    metadata = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}
    fmt = os.path.splitext(os.fspath(path))[1].lower()[1:]
    from ._files import atomic_open

    with atomic_open(path, "wb") as fh:  # a reader never sees a half-written picture
        fig.savefig(fh, format=fmt, dpi=dpi, metadata=metadata[fmt])
    if ours and "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close(fig)  # drawn only to be saved: do not keep it open in pyplot
    return os.fspath(path)
