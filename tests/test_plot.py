"""Pictures of results (rapids_balance.plot), rendered headless to PNG.

Each picture is checked for its axes labels and for what it draws, against
numbers recomputed from the result: bar heights, line end points, numbers
of segments.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import rapids_balance as rb  # noqa: E402
from rapids_balance import plot  # noqa: E402
from rapids_balance.errors import InvalidParameterError  # noqa: E402
from rapids_balance.generators import planted_partition_graph  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """Pictures are pyplot figures when pyplot is loaded (another test may load it): close them."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture(scope="module")
def highland():
    return rb.load_example("highland")


@pytest.fixture(scope="module")
def balanced(highland):
    return rb.balance(highland, 40, progress=False)


@pytest.fixture(scope="module")
def frustrated(highland):
    return rb.frustration(highland, 64, batch_size=8, progress=False)


@pytest.fixture(scope="module")
def clustered(highland):
    return rb.correlation_clustering(highland, seed=0, progress=False)


@pytest.fixture(scope="module")
def node_bc(highland):
    return rb.betweenness_centrality(highland, weight=None, progress=False)


@pytest.fixture(scope="module")
def edge_bc(highland):
    return rb.edge_betweenness_centrality(highland, weight=None, progress=False)


def _png(ax, tmp_path, name="p.png"):
    path = tmp_path / name
    plot.save(ax, path)
    assert path.read_bytes()[:8] == PNG_MAGIC
    return path


def test_status_histogram(balanced, tmp_path):
    ax = plot.status_histogram(balanced, bins=10)
    _png(ax, tmp_path)
    assert len(ax.patches) == 10
    heights = [p.get_height() for p in ax.patches]
    assert sum(heights) == len(balanced.vertices)
    expected, _ = np.histogram(balanced.vertices["status"], bins=10, range=(0, 1))
    assert heights == expected.tolist()
    assert ax.get_xlabel().startswith("status") and ax.get_ylabel() == "vertices"


@pytest.mark.parametrize("y", ["influence", "authority"])
def test_status_scatter(balanced, tmp_path, y):
    ax = plot.status_scatter(balanced, y=y, top=3, label_by=y)
    _png(ax, tmp_path)
    dots = ax.collections[0]
    xy = dots.get_offsets()
    assert len(xy) == len(balanced.vertices)
    # the same points as the table, in some order
    got = sorted(map(tuple, np.asarray(xy).round(12)))
    want = sorted(zip(balanced.vertices["status"].round(12), balanced.vertices[y].round(12)))
    assert got == want
    assert ax.get_xlabel() == "status" and ax.get_ylabel() == y
    assert len(ax.texts) == 3
    top = balanced.vertices.nlargest(3, y, keep="first")["vertex"].astype(str).tolist()
    assert sorted(t.get_text() for t in ax.texts) == sorted(top)
    assert len(ax.figure.axes) == 2  # with the degree colour bar


def test_edge_shares(balanced, tmp_path):
    ax = plot.edge_shares(balanced, bins=5)
    _png(ax, tmp_path)
    assert len(ax.patches) == 3  # one step outline per share
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "in the tree", "negative when balanced", "switched"]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "share of trees"


def test_frustration_convergence_with_bound(highland, frustrated, tmp_path):
    bound = rb.frustration_lower_bound(highland, frustrated.best_state)
    ax = plot.frustration_convergence(frustrated, bound)
    _png(ax, tmp_path)
    assert len(ax.lines) == 3  # tree curve, refined line, bound line
    tree = ax.lines[0]
    ys = np.asarray(tree.get_ydata())
    assert ys[-1] == frustrated.tree_index
    assert np.all(np.diff(ys) <= 0)  # a best-so-far never rises
    assert np.asarray(tree.get_xdata())[-1] == frustrated.info["trees"]
    assert ax.lines[1].get_ydata()[0] == frustrated.refined_index
    assert ax.lines[2].get_ydata()[0] == bound.bound
    gap = frustrated.index - bound.bound
    words = "optimal" if gap == 0 else f"certified gap {gap}"
    assert any(words in t.get_text() for t in ax.texts)
    assert not any("at most 0" in t.get_text() for t in ax.texts)
    assert ax.get_xlabel() == "trees sampled"


def test_frustration_convergence_tree_only_and_capped(highland, tmp_path):
    res = rb.frustration(highland, 64, batch_size=8, refine=False, max_states=2, progress=False)
    assert res.info["evicted"] > 0
    ax = plot.frustration_convergence(res)
    _png(ax, tmp_path)
    assert len(ax.lines) == 1 and not ax.texts
    # with evictions the curve is the per-batch history
    h = res.history[res.history["stage"] == "trees"]
    assert np.asarray(ax.lines[0].get_ydata()).tolist() == h["index"].tolist()


def test_cloud_growth(frustrated, tmp_path):
    ax = plot.cloud_growth(frustrated)
    _png(ax, tmp_path)
    assert len(ax.lines) == 2  # the cloud and the every-tree-new diagonal
    ys = np.asarray(ax.lines[0].get_ydata())
    assert ys[-1] == len(frustrated.cloud)
    assert np.all(np.diff(ys) >= 0)
    assert ax.get_ylabel() == "distinct states"


def test_betweenness_ccdf(node_bc, tmp_path):
    ax = plot.betweenness_ccdf(node_bc)
    _png(ax, tmp_path)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    line = ax.lines[0]
    xs, ys = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    scores = node_bc["betweenness_centrality"].to_numpy()
    assert xs.size == np.count_nonzero(scores > 0)
    for x, y in zip(xs, ys):  # y = share of vertices scoring at least x (ties share one x)
        assert y <= np.mean(scores >= x) + 1e-12
    assert ys[-1] == pytest.approx(1 / scores.size)


def test_betweenness_ccdf_with_zero_scores():
    import pandas as pd

    table = pd.DataFrame({"vertex": range(6),
                          "betweenness_centrality": [0.2, 0.0, 0.5, 0.1, 0.0, 0.2]})
    ax = plot.betweenness_ccdf(table)
    line = ax.lines[0]
    assert np.asarray(line.get_xdata()).tolist() == [0.1, 0.2, 0.2, 0.5]
    # share with a score >= x: 4/6 at 0.1, 3/6 at the first 0.2, 1/6 at 0.5
    assert np.asarray(line.get_ydata()) == pytest.approx([4 / 6, 3 / 6, 2 / 6, 1 / 6])
    assert "2 with zero not shown" in ax.get_title()


@pytest.mark.parametrize("which", ["node", "edge"])
def test_betweenness_top(node_bc, edge_bc, tmp_path, which):
    table = node_bc if which == "node" else edge_bc
    ax = plot.betweenness_top(table, k=5)
    _png(ax, tmp_path)
    assert len(ax.patches) == 5
    widths = sorted((p.get_width() for p in ax.patches), reverse=True)
    assert widths == pytest.approx(sorted(table["betweenness_centrality"], reverse=True)[:5])
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert len(names) == 5 and (which == "node" or all("-" in n for n in names))


def test_imbalance_history(clustered, tmp_path):
    ax = plot.imbalance_history(clustered)
    _png(ax, tmp_path)
    ys = np.asarray(ax.lines[0].get_ydata())
    assert ys[-1] == clustered.imbalance
    assert np.all(np.diff(ys) <= 0)
    assert ax.get_xlabel() == "time (s)"


def test_cluster_sizes(clustered, tmp_path):
    ax = plot.cluster_sizes(clustered)
    _png(ax, tmp_path)
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == clustered.n_clusters
    assert sum(heights) == len(clustered.labels)
    assert heights == sorted(heights, reverse=True)


def test_degree_ccdf_of_generated_graph(tmp_path):
    from rapids_balance.generators import powerlaw_signed_graph

    g = powerlaw_signed_graph(3000, seed=2)
    ax = plot.degree_ccdf(g)
    _png(ax, tmp_path)
    ys = np.asarray(ax.lines[0].get_ydata())
    assert ys[0] == pytest.approx(1.0) and np.all(np.diff(ys) < 0)
    assert np.asarray(ax.lines[0].get_xdata())[-1] == g.degrees().max()


def test_signed_graph_with_bipartition(highland, frustrated, tmp_path):
    ax = plot.signed_graph(highland, frustrated)
    _png(ax, tmp_path)
    positive, negative, dots = ax.collections
    assert len(positive.get_segments()) == int((highland.sign > 0).sum())
    assert len(negative.get_segments()) == int((highland.sign < 0).sum())
    assert len(dots.get_offsets()) == highland.n
    red = sum(np.allclose(c[:3], (0.839, 0.153, 0.157), atol=0.01)
              for coll in (positive, negative) for c in coll.get_colors())
    assert red == frustrated.index  # exactly the frustrated edges are drawn red
    assert len(ax.texts) == highland.n  # labels on a graph this small


def test_signed_graph_clusters_planted_and_fallback_layout(monkeypatch, tmp_path):
    pp = planted_partition_graph(200, n_groups=3, flip=0.1, mean_degree=4, seed=4)
    ax = plot.signed_graph(pp.graph, pp)
    _png(ax, tmp_path)
    assert f"{pp.disagreements} edges disagree" in ax.get_title()
    # without networkx: the deterministic circle layout
    monkeypatch.setitem(sys.modules, "networkx", None)
    a1 = plot.signed_graph(pp.graph, pp)
    a2 = plot.signed_graph(pp.graph, pp)
    assert np.array_equal(a1.collections[2].get_offsets(), a2.collections[2].get_offsets())


def test_signed_graph_refuses_big_graphs():
    big = planted_partition_graph(2000, seed=1).graph
    with pytest.raises(InvalidParameterError, match=r"at most 300 vertices .* 5\d\d vertices"):
        plot.signed_graph(big)
    ax = plot.signed_graph(big, max_vertices=big.n, labels=False)
    assert not ax.texts


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_main_picture_and_save_by_suffix(frustrated, tmp_path, suffix):
    path = tmp_path / f"main{suffix}"
    plot.main_picture(frustrated, path)
    head = path.read_bytes()[:16]
    assert {".png": head.startswith(PNG_MAGIC), ".svg": b"<?xml" in head or b"<svg" in head,
            ".pdf": head.startswith(b"%PDF")}[suffix]


def test_save_result_directly(balanced, clustered, node_bc, tmp_path):
    for i, res in enumerate((balanced, clustered, node_bc)):
        plot.save(res, tmp_path / f"r{i}.png")
        assert (tmp_path / f"r{i}.png").stat().st_size > 1000


def test_bad_arguments_refused_before_drawing(balanced, frustrated, node_bc, tmp_path):
    with pytest.raises(InvalidParameterError, match=r"'path' parameter of save .*\.png, \.svg or \.pdf"):
        plot.save(balanced, tmp_path / "x.jpg")
    assert not (tmp_path / "x.jpg").exists()
    with pytest.raises(InvalidParameterError, match="'path' parameter of main_picture"):
        plot.main_picture(balanced, "out.gif")
    with pytest.raises(InvalidParameterError, match="'result' parameter of status_histogram must be a BalanceResult"):
        plot.status_histogram(frustrated)
    with pytest.raises(InvalidParameterError, match="'y' parameter of status_scatter"):
        plot.status_scatter(balanced, y="degree")
    with pytest.raises(InvalidParameterError, match="'bins' parameter"):
        plot.status_histogram(balanced, bins=0)
    with pytest.raises(InvalidParameterError, match="'column' parameter of betweenness_ccdf"):
        plot.betweenness_ccdf(node_bc, column="nope")
    with pytest.raises(InvalidParameterError, match="'ax' parameter"):
        plot.edge_shares(balanced, ax="left")
    with pytest.raises(InvalidParameterError, match="'bound' parameter"):
        plot.frustration_convergence(frustrated, bound=-1)
    with pytest.raises(InvalidParameterError, match="'result' parameter of main_picture"):
        plot.main_picture(42)


def test_given_axes_are_drawn_on(balanced, clustered):
    from matplotlib.figure import Figure

    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plot.status_histogram(balanced, ax=left) is left
    assert plot.cluster_sizes(clustered, ax=right) is right
    assert left.patches and right.patches


def test_missing_matplotlib_names_the_extra(monkeypatch, balanced):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'rapids-balance\[plot\]'"):
        plot.require_matplotlib("--plot x.png")
    with pytest.raises(ImportError, match="rapids-balance"):
        plot.status_histogram(balanced)


def test_status_scatter_top_labels_do_not_overlap(tmp_path):
    import rapids_balance as rb

    res = rb.balance(rb.load_example("bitcoin-otc"), n_trees=20, seed=0, backend="cpu", progress=False)
    ax = plot.status_scatter(res, top=10)
    from matplotlib.text import Text

    ax.figure.canvas.draw()
    boxes = [Text.get_window_extent(t) for t in ax.texts]  # the text alone, not its leader line
    assert len(boxes) == 10
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not boxes[a].overlaps(boxes[b]), (ax.texts[a].get_text(), ax.texts[b].get_text())
    ax.figure.savefig(tmp_path / "status.png")


def test_status_scatter_each_label_names_its_own_dot():
    # the leader lines of the hubs meet in one corner: each label, its line and a ring around its
    # dot share a colour (and the ring a shape), so every name can be matched to its dot
    from matplotlib.colors import to_rgba

    res = rb.balance(rb.load_example("bitcoin-otc"), n_trees=20, seed=0, backend="cpu", progress=False)
    ax = plot.status_scatter(res, top=10)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    labels = ax.texts
    rings = ax.collections[1:]  # the first collection is the dots
    assert len(labels) == len(rings) == 10
    v = res.vertices
    colours = set()
    for text, ring in zip(labels, rings):
        colour = to_rgba(text.get_color())
        assert to_rgba(text.arrow_patch.get_edgecolor()) == colour  # the leader line
        assert tuple(ring.get_edgecolor()[0]) == colour  # the ring
        x, y = ring.get_offsets()[0]
        row = v[v["vertex"].astype(str) == text.get_text()].iloc[0]
        assert (x, y) == (row["status"], row["influence"])  # the ring is on the named dot
        assert tuple(text.xy) == (x, y)  # and the leader line ends there
        colours.add(colour)
    assert len(colours) == 10
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in labels]  # label boxes, drawn
    axes_box = ax.get_window_extent(renderer)
    for a in range(len(boxes)):
        assert axes_box.contains(boxes[a].x0, boxes[a].y0) and axes_box.contains(boxes[a].x1, boxes[a].y1)
        for b in range(a + 1, len(boxes)):
            assert not boxes[a].overlaps(boxes[b]), (labels[a].get_text(), labels[b].get_text())


def test_frustration_refined_index_and_equal_bound_can_be_told_apart(highland, frustrated):
    bound = rb.frustration_lower_bound(highland, frustrated.best_state)
    assert bound.bound == frustrated.refined_index  # highland: the bound proves the index optimal
    ax = plot.frustration_convergence(frustrated, bound)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    refined, lower = ax.lines[1], ax.lines[2]
    # drawn on the same height, the bound is a band at least three times as wide as the dashed line
    assert lower.get_linewidth() >= 3 * refined.get_linewidth()
    assert refined.get_color() != lower.get_color() and refined.get_linestyle() != lower.get_linestyle()
    assert refined.get_zorder() > lower.get_zorder()  # the thin line on top of the band
    # the lines lie inside the axes, clear of its edge (not hidden in the frame)
    low, high = ax.get_ylim()
    assert (bound.bound - low) / (high - low) >= 0.04
    band = lower.get_window_extent(renderer)
    assert band.y0 > ax.get_window_extent(renderer).y0
    assert any("optimal" in t.get_text() for t in ax.texts)


def test_imbalance_history_of_a_one_iteration_run(highland):
    res = rb.correlation_clustering(highland, method="vnd", seed=0, max_iterations=1, progress=False)
    assert res.iterations == 1 and len(res.history) == 1
    ax = plot.imbalance_history(res)
    low, high = ax.get_ylim()
    # an axis from zero, not a zoom of +-5 % on one value (ticks 1.900 .. 2.100)
    assert low == 0 and high >= res.imbalance > low
    assert any("1 iteration" in t.get_text() for t in ax.texts)
