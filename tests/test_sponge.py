"""SPONGE / SPONGE_sym and the signed Bethe Hessian's choice of k."""

from __future__ import annotations

import numpy as np
import pytest

import rapids_balance as rb
from rapids_balance.errors import InvalidParameterError
from rapids_balance.generators import ssbm

scipy_linalg = pytest.importorskip("scipy.linalg")


def _dense_parts(g):
    n = g.n
    ap, an = np.zeros((n, n)), np.zeros((n, n))
    for e in range(g.m):
        u, v = int(g.edge_src[e]), int(g.edge_dst[e])
        target = ap if g.sign[e] > 0 else an
        target[u, v] = target[v, u] = 1.0
    return ap, an


@pytest.mark.parametrize("variant", ["sponge", "sponge_sym"])
def test_eigenvalues_of_the_generalised_problem(variant):
    g = ssbm(120, 3, 0.2, flip=0.1, seed=2).graph
    ap, an = _dense_parts(g)
    dp, dn = np.diag(ap.sum(1)), np.diag(an.sum(1))
    tp, tn = 0.7, 1.3
    if variant == "sponge":
        left, right = dp - ap + tn * dn, dn - an + tp * dp
    else:
        def sym(a):
            d = a.sum(1)
            s = np.diag(np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0))
            return np.eye(len(a)) - s @ a @ s
        left, right = sym(ap) + tn * np.eye(g.n), sym(an) + tp * np.eye(g.n)
    # the eigenvalues of right^-1 left, by a general (non-symmetric) solver
    ref = np.sort(np.linalg.eigvals(np.linalg.solve(right, left)).real)[:2]
    r = rb.sponge(g, 3, variant=variant, tau_positive=tp, tau_negative=tn)
    assert np.allclose(r.eigenvalues, ref, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("variant", ["sponge", "sponge_sym"])
@pytest.mark.parametrize("n", [600, 2400])  # dense and LOBPCG paths
def test_recovers_a_signed_block_model(variant, n):
    model = ssbm(n, 3, 40 / n, flip=0.05, seed=1)
    r = rb.sponge(model.graph, 3, variant=variant, seed=0)
    assert rb.adjusted_rand_index(model.groups, r.labels["community"]) > 0.95
    assert list(r.labels.columns) == ["vertex", "community"]


def test_bethe_hessian_counts_the_groups():
    from rapids_balance.clustering import bethe_hessian_k

    for k in (2, 3, 5):
        model = ssbm(1000, k, 0.06, flip=0.05, seed=k)
        assert bethe_hessian_k(model.graph)[0] == k
    # one positive block: k = 1
    ones = ssbm(800, 1, 0.05, flip=0.0, seed=3).graph
    assert bethe_hessian_k(ones)[0] == 1


def test_k_from_the_bethe_hessian_in_sponge():
    model = ssbm(900, 4, 0.06, flip=0.05, seed=7)
    r = rb.sponge(model.graph, seed=0)
    assert r.k == 4 and r.k_source == "bethe_hessian"
    assert rb.adjusted_rand_index(model.groups, r.labels["community"]) > 0.95


def test_same_seed_same_result():
    g = ssbm(2000, 3, 0.02, flip=0.1, seed=4).graph
    a, b = rb.sponge(g, 3, seed=5), rb.sponge(g, 3, seed=5)
    assert a.labels.equals(b.labels)


@pytest.mark.parametrize("kw, name", [
    (dict(k=1), "k"), (dict(k=100), "k"), (dict(variant="x"), "variant"),
    (dict(tau_positive=0), "tau_positive"), (dict(tau_negative=-1), "tau_negative"),
    (dict(k_max=0), "k_max"), (dict(seed=1.5), "seed"), (dict(backend="gpu"), "backend")])
def test_parameters(kw, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        rb.sponge(rb.load_example("highland"), **kw)


def test_bethe_hessian_asks_for_more_pairs_only_while_all_are_negative(monkeypatch):
    # above the dense size the sparse solver asks for a few eigenpairs, doubled while all are
    # negative: the count (11 here, doubled once) is the one of asking for all pairs at once
    from rapids_balance.clustering import _sponge

    g = ssbm(3000, 12, 0.1, flip=0.05, seed=1).graph
    assert g.n > _sponge.DENSE_MAX
    got = _sponge.bethe_hessian_k(g, k_max=20)
    assert got == (12, 11)
    monkeypatch.setattr(_sponge, "BETHE_FIRST", 21)
    assert _sponge.bethe_hessian_k(g, k_max=20) == got
