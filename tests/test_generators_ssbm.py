"""Signed stochastic block models: layout, distributions, planted labels, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from rapids_balance.errors import InvalidParameterError
from rapids_balance.generators import polarized_ssbm, ssbm


def _layout_ok(g):
    src, dst = np.asarray(g.edge_src, np.int64), np.asarray(g.edge_dst, np.int64)
    assert (src < dst).all() and (dst < g.n).all()
    key = src * g.n + dst
    assert (np.diff(key) > 0).all()  # sorted, no duplicates


def test_ssbm_edges_signs_and_groups():
    n, k, p, flip = 3000, 7, 0.01, 0.15
    model = ssbm(n, k, p, flip=flip, seed=4)
    g = model.graph
    _layout_ok(g)
    pairs = n * (n - 1) / 2
    assert abs(g.m - p * pairs) < 5 * np.sqrt(pairs * p * (1 - p))
    groups = model.groups
    sizes = np.bincount(groups)
    assert sizes.size == k and sizes.max() - sizes.min() <= 1
    inside = groups[g.edge_src] == groups[g.edge_dst]
    wrong = inside != (g.sign > 0)
    assert model.flipped == int(wrong.sum())
    assert abs(wrong.mean() - flip) < 5 * np.sqrt(flip * (1 - flip) / g.m)
    # pairs inside and across groups are equally likely to be edges
    inside_pairs = float((sizes * (sizes - 1) / 2).sum())
    share = inside.sum() / g.m
    expect = inside_pairs / pairs
    assert abs(share - expect) < 5 * np.sqrt(expect * (1 - expect) / g.m)


def test_ssbm_degree_distribution_is_binomial():
    n, p = 4000, 0.005
    g = ssbm(n, 3, p, seed=11).graph
    deg = np.bincount(np.concatenate([g.edge_src, g.edge_dst]), minlength=n)
    assert abs(deg.mean() - p * (n - 1)) < 0.2
    assert abs(deg.var() - (n - 1) * p * (1 - p)) < 0.15 * (n - 1) * p


def test_ssbm_seeded():
    a, b, c = ssbm(800, 4, 0.02, seed=1), ssbm(800, 4, 0.02, seed=1), ssbm(800, 4, 0.02, seed=2)
    assert np.array_equal(a.graph.edge_src, b.graph.edge_src)
    assert np.array_equal(a.graph.edge_dst, b.graph.edge_dst)
    assert np.array_equal(a.graph.sign, b.graph.sign) and np.array_equal(a.groups, b.groups)
    assert not np.array_equal(a.groups, c.groups)


def test_ssbm_random_sizes_and_frame():
    model = ssbm(2000, 5, 0.01, sizes="random", seed=3, as_frame=True)
    assert list(model.partition.columns) == ["vertex", "group"]
    assert set(model.graph.columns) == {"src", "dst", "sign"}
    assert set(model.groups.tolist()) == set(range(5))


def test_polarized_ssbm():
    n, nc, size = 3000, 3, 300
    model = polarized_ssbm(n, nc, size, 0.02, flip=0.05, seed=5)
    g = model.graph
    _layout_ok(g)
    groups = model.groups
    assert (groups >= 0).sum() == nc * size
    assert np.array_equal(np.bincount(groups[groups >= 0]), np.full(2 * nc, size // 2))
    com = np.where(groups >= 0, groups // 2, -1)
    u, v = g.edge_src, g.edge_dst
    inside = (com[u] >= 0) & (com[u] == com[v])
    same = groups[u] == groups[v]
    wrong = inside & (same != (g.sign > 0))
    assert model.flipped == int(wrong.sum())
    assert wrong.sum() / inside.sum() < 0.1
    bg = ~inside
    assert abs((g.sign[bg] > 0).mean() - 0.5) < 5 * 0.5 / np.sqrt(bg.sum())


@pytest.mark.parametrize("kw, name", [
    (dict(n=1, k=1, p=0.1), "n"), (dict(n=10, k=11, p=0.1), "k"), (dict(n=10, k=2, p=1.5), "p"),
    (dict(n=10, k=2, p=0.1, flip=0.7), "flip"), (dict(n=10, k=2, p=0.1, seed=-3), "seed"),
    (dict(n=10, k=2, p=0.1, sizes="big"), "sizes"), (dict(n=10**6, k=2, p=0.5), "p")])
def test_ssbm_parameters(kw, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        ssbm(**kw)


def test_polarized_parameters():
    with pytest.raises(InvalidParameterError, match="'community_size'"):
        polarized_ssbm(100, 3, 40, 0.1)


@pytest.mark.slow
def test_ssbm_ten_million_edges():
    n = 200_000
    p = 1e7 / (n * (n - 1) / 2)
    g = ssbm(n, 10, p, seed=0).graph
    assert abs(g.m - 1e7) < 5 * np.sqrt(1e7)
