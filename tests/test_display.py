"""Results in a notebook: a one-line text repr and an HTML summary with the heads of the tables;
progress bars drawn by tqdm.auto inside a Jupyter kernel."""

from __future__ import annotations

import io
import re
import sys
import types

import pytest

import rapids_balance as rb
from rapids_balance import _progress
from rapids_balance._display import HEAD_ROWS
from rapids_balance.centrality.betweenness import node_and_edge_betweenness


@pytest.fixture(scope="module")
def results():
    g = rb.load_example("highland")
    cc = rb.correlation_clustering(g, method="vnd", seed=0, progress=False)
    fr = rb.frustration(g, 8, seed=0, backend="cpu", progress=False)
    return {
        "BalanceResult": (rb.balance(g, 20, seed=0, backend="cpu", progress=False), ["vertices", "edges"]),
        "FrustrationResult": (fr, ["switched", "best_state", "cloud", "history"]),
        "FrustrationBound": (rb.frustration_lower_bound(g, fr.best_state), ["cycles"]),
        "ExactResult": (rb.frustration_index_exact(g, time_limit=30), ["switched"]),
        "ClusteringResult": (cc, ["labels", "history"]),
        "ClusteringBound": (rb.clustering_lower_bound(g, cc.labels), ["cycles"]),
        "SignificanceResult": (rb.significance(g, "triangles", n_samples=9, progress=False),
                               ["null_distribution"]),
        "BetweennessResult": (node_and_edge_betweenness(g, progress=False), ["vertices", "edges"]),
        "BalanceScores": (rb.balance_scores(g, backend="cpu"), ["table"]),
    }


@pytest.mark.parametrize("kind", ["BalanceResult", "FrustrationResult", "FrustrationBound", "ExactResult",
                                  "ClusteringResult", "ClusteringBound", "SignificanceResult",
                                  "BetweennessResult", "BalanceScores"])
def test_html_shows_the_summary_and_the_heads_of_the_tables(results, kind):
    res, tables = results[kind]
    page = res._repr_html_()
    assert kind in page
    title, facts, _ = res._display()
    for name, _value in facts:
        assert f"<th style='text-align:left'>{name}</th>" in page
    for name in tables:
        table = getattr(res, name)
        assert f"<code>.{name}</code> ({len(table):,} rows" in page
        assert table.head(HEAD_ROWS).to_html(max_cols=12, border=0) in page  # the head, not the table
    assert page.count('class="dataframe"') == len(tables)
    text = repr(res)
    assert "\n" not in text and len(text) < 400 and "DataFrame" not in text


def test_clustering_repr_counts_one_iteration_in_the_singular(results):
    res = rb.correlation_clustering(rb.load_example("highland"), method="vnd", max_iterations=1,
                                    progress=False)
    assert "1 iteration," in repr(res)


def _fake_kernel(monkeypatch, class_name):
    # a Jupyter kernel's shell as IPython exposes it: Colab's and VS Code's derive from ZMQInteractiveShell
    base = type("ZMQInteractiveShell", (), {"config": {"IPKernelApp": {}}})
    shell = type(class_name, (base,), {})()
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a kernel's stderr is no terminal


@pytest.mark.parametrize("shell", ["ZMQInteractiveShell", "Shell"])
def test_progress_bar_in_a_notebook_kernel_is_tqdm_auto(monkeypatch, shell):
    from tqdm.auto import tqdm

    _fake_kernel(monkeypatch, shell)
    with _progress.progress_bar(10, "balance", None, unit="tree") as bar:
        assert isinstance(bar, tqdm)
        bar.update(10)
    with _progress.progress_bar(10, "balance", False) as bar:
        assert not isinstance(bar, tqdm)


def test_terminal_ipython_is_no_notebook(monkeypatch):
    shell = type("TerminalInteractiveShell", (), {"config": {"TerminalIPythonApp": {}}})()
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert not _progress._notebook()
