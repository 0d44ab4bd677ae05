"""Imbalance I(P) / balance B(P): checked against a plain-Python formula."""

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.errors import GraphInputError


def _graph(seed, n=12, m=30, weighted=False):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    data = {"source": src * 10 + 5, "target": dst * 10 + 5, "sign": rng.choice([-1, 1], m)}
    if weighted:
        data["weight"] = rng.uniform(0.5, 3.0, m)
        return rb.SignedGraph.from_edgelist(data, sign="sign", weight="weight")
    return rb.SignedGraph.from_edgelist(data, sign="sign")


def _python_imbalance(edges, cluster_of):
    """Equation (1) of Levorato et al., one edge at a time."""
    neg_in = pos_out = total = 0.0
    for u, v, s, w in edges:
        total += w
        same = cluster_of[u] == cluster_of[v]
        if s < 0 and same:
            neg_in += w
        if s > 0 and not same:
            pos_out += w
    return neg_in, pos_out, total


def _edges(g):
    df = g.edges_frame()
    w = df["weight"] if "weight" in df else np.ones(len(df))
    return list(zip(df["src"], df["dst"], df["sign"], w))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_imbalance_matches_python_formula(seed, weighted):
    g = _graph(seed, weighted=weighted)
    rng = np.random.default_rng(100 + seed)
    clusters = {lab: f"c{rng.integers(0, 4)}" for lab in g.labels.tolist()}
    res = rb.imbalance(g, clusters)
    neg_in, pos_out, total = _python_imbalance(_edges(g), clusters)
    assert res.negative_inside == pytest.approx(neg_in)
    assert res.positive_between == pytest.approx(pos_out)
    assert res.imbalance == pytest.approx(neg_in + pos_out)
    assert res.balance == pytest.approx(total - neg_in - pos_out)
    assert res.total_weight == pytest.approx(total)
    assert res.n_clusters == len(set(clusters.values()))


def test_label_formats_agree():
    g = _graph(5)
    rng = np.random.default_rng(7)
    arr = rng.integers(0, 3, g.n)
    as_dict = dict(zip(g.labels.tolist(), arr.tolist()))
    frame = pd.DataFrame({"vertex": g.labels[::-1], "cluster": arr[::-1]})
    series = pd.Series(arr, index=g.labels)
    values = {rb.imbalance(g, x).imbalance for x in (arr, as_dict, frame, series)}
    assert len(values) == 1


def test_trivial_partitions():
    g = _graph(3)
    neg = float((g.sign < 0).sum())
    pos = float((g.sign > 0).sum())
    assert rb.imbalance(g, np.zeros(g.n)).imbalance == neg           # one cluster
    assert rb.imbalance(g, np.arange(g.n)).imbalance == pos          # singletons


@pytest.mark.parametrize("bad", [
    np.zeros(3),                                              # wrong length
    {5: 0},                                                   # missing vertices
    pd.DataFrame({"vertex": [5], "group": [0]}),              # wrong columns
])
def test_bad_labels_raise(bad):
    g = _graph(4)
    with pytest.raises(GraphInputError):
        rb.imbalance(g, bad)


def test_unknown_vertex_named():
    g = _graph(4)
    labels = {lab: 0 for lab in g.labels.tolist()}
    labels.pop(g.labels[0].item())
    labels[-999] = 1
    with pytest.raises(GraphInputError, match="-999"):
        rb.imbalance(g, labels)


def test_edge_list_input_like_the_solver():
    # a plain edge-list DataFrame is read as correlation_clustering reads it
    df = pd.DataFrame({"src": [1, 2, 3, 1], "dst": [2, 3, 4, 4], "sign": [1, -1, 1, -1]})
    clusters = {1: "a", 2: "a", 3: "b", 4: "a"}
    res = rb.imbalance(df, clusters)
    neg_in, pos_out, _ = _python_imbalance(list(zip(df["src"], df["dst"], df["sign"], [1.0] * 4)),
                                           clusters)
    assert res.imbalance == neg_in + pos_out == 2.0
