"""Compiled host kernels of graph building: each equals the numpy call it replaces, and a graph
built through them is bit for bit the graph built without them."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from rapids_balance import _csr, _host_sort, _xp
from rapids_balance._build import build_graph


@pytest.mark.parametrize("size,n_keys", [(1, 1), (7, 3), (5000, 40), (70_000, 70_000), (70_000, 9)])
def test_counting_order_is_the_stable_argsort(size, n_keys):
    keys = np.random.default_rng(size).integers(0, n_keys, size)
    assert np.array_equal(_host_sort.counting_order(keys, n_keys), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("size,nu", [(6, 3), (4000, 50), (70_000, 3000)])
def test_pair_order_is_the_stable_argsort_of_the_pair_key(size, nu):
    rng = np.random.default_rng(nu)
    a, b = rng.integers(0, nu, size).astype(np.int32), rng.integers(0, nu, size).astype(np.int32)
    want = np.argsort(a.astype(np.int64) * nu + b, kind="stable")
    assert np.array_equal(_host_sort.pair_order(a, b, nu), want)
    assert np.array_equal(_xp.pair_order(a, b, nu), want)  # numpy's sort below the compiled size


def test_component_labels_give_scipys_partition():
    rng = np.random.default_rng(3)
    n = 3000
    a, b = rng.integers(0, n, 2500), rng.integers(0, n, 2500)
    got = _host_sort.component_labels(a, b, n)
    want = connected_components(coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)), directed=False)[1]
    # the same partition: each label of one maps to exactly one label of the other
    pairs = set(zip(got.tolist(), want.tolist()))
    assert len(pairs) == len(set(got.tolist())) == len(set(want.tolist()))
    assert np.all(got <= np.arange(n))  # each labelled by its smallest vertex
    assert np.array_equal(got[got], got)


def test_gather_is_take_with_a_narrow_index():
    rng = np.random.default_rng(1)
    values, index = rng.integers(-9, 9, 500), rng.integers(0, 500, 70_000).astype(np.int32)
    assert np.array_equal(_host_sort.gather(values, index), values[index])
    assert np.array_equal(_xp.gather(values, index), values[index])


def test_undirected_csr_is_the_general_csr():
    rng = np.random.default_rng(7)
    n = 400
    pairs = np.unique(np.sort(rng.integers(0, n, (3000, 2)), axis=1), axis=0)
    src, dst = pairs[pairs[:, 0] < pairs[:, 1]].T.astype(np.int32)
    assert _host_sort.pairs_sorted(src, dst, directed=False)
    assert not _host_sort.pairs_sorted(dst, src, directed=False)
    got = _host_sort.undirected_csr(src, dst, n)
    want = _csr._csr_undirected_sorted(np, src, dst, n)
    for key in ("indptr", "indices", "slot_edge"):
        assert np.array_equal(got[key], want[key]), key


def _messy_edges(seed: int, m: int = 60_000):
    """Shuffled rows with repeats (some of the other sign), reversed pairs, self loops, zero signs,
    sparse ids and two equal components."""
    rng = np.random.default_rng(seed)
    n = m // 4
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    s = rng.choice([-1, 1], m)
    rep = rng.integers(0, m, m // 10)
    u, v = np.r_[u, v[rep], u[:300]], np.r_[v, u[rep], u[:300]]
    s = np.r_[s, np.where(rng.random(rep.size) < 0.3, -s[rep], s[rep]), np.ones(300, np.int64)]
    s[rng.integers(0, s.size, 100)] = 0
    u, v, s = np.r_[u, u + 10 * n], np.r_[v, v + 10 * n], np.r_[s, s]
    return u * 7 + 3, v * 7 + 3, s


def _digest(g) -> tuple:
    arrays = tuple(np.asarray(getattr(g, k)).tobytes() for k in
                   ("labels", "edge_src", "edge_dst", "sign", "indptr", "indices", "slot_edge", "edge_slots"))
    zero = None if g.zero_sign is None else g.zero_sign.tobytes()
    return arrays + (zero, tuple(sorted((k, str(v)) for k, v in vars(g.cleaning).items())))


@pytest.mark.parametrize("options", [{}, {"conflicts": "drop", "zero_sign": "drop", "numbering": "graphbplus"},
                                     {"component": "all"}])
@pytest.mark.parametrize("dense", [False, True])
def test_graph_is_the_same_without_the_compiled_kernels(monkeypatch, options, dense):
    u, v, s = _messy_edges(5)
    if dense:
        u, v = (u - 3) // 7, (v - 3) // 7
    monkeypatch.setattr(_xp, "COMPILED_MIN_SIZE", 1 << 15)  # the compiled kernels at this size
    monkeypatch.setattr(_csr, "_COMPILED_MIN_EDGES", 1 << 15)
    fast = build_graph(u, v, sign=s, **options)
    monkeypatch.setattr(_xp, "_RADIX_MIN_SIZE", 1 << 40)  # every numpy path, no compiled kernel
    monkeypatch.setattr(_xp, "COMPILED_MIN_SIZE", 1 << 40)
    monkeypatch.setattr(_csr, "_COMPILED_MIN_EDGES", 1 << 40)
    slow = build_graph(u, v, sign=s, **options)
    assert _digest(fast) == _digest(slow)
