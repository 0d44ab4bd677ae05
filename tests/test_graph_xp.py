"""Graph building through the array API: numpy and array_api_strict give the same graph.

``array_api_strict`` stands in for CuPy: it allows only what the array API
standard defines, so code that passes here relies on nothing numpy-specific.
References are independent of the library: the row-by-row Python cleaner of
test_graph_build (a dict per vertex pair, a union-find for components),
graphB+'s numbering transcribed there, numpy / scipy for the helpers of
``rapids_balance._xp``, and the build before the array-API rewrite (from
git) for the shared data files.
"""

from __future__ import annotations

import copy
import importlib.util
import subprocess
import sys
from pathlib import Path

import array_api_strict as xps
import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_components

from rapids_balance import _build, _xp
from rapids_balance.errors import GraphInputError
from rapids_balance.graph import Graph, SignedGraph, build_graph

from test_graph_build import _check_csr, _unique_largest, graphbplus_readgraph_numbering, reference_clean

NAMESPACES = ["numpy", "array_api_strict"]
_StrictArray = type(xps.asarray(0))
ARRAYS = ("edge_src", "edge_dst", "indptr", "indices", "slot_edge", "edge_slots", "sign", "weight", "zero_sign",
          "labels")


def _as(kind: str, a):
    if a is None:
        return None
    return np.asarray(a) if kind == "numpy" else xps.asarray(np.asarray(a))


def _dev(a):
    """``a`` on the stand-in device (an array_api_strict array)."""
    return _as("array_api_strict", a)


def _np(a):
    return None if a is None else (a if isinstance(a, np.ndarray) else np.from_dlpack(a))


def _assert_same_graph(got, want):
    assert type(got).__name__ == type(want).__name__
    assert (got.n, got.m, got.directed, got.name) == (want.n, want.m, want.directed, want.name)
    for name in ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if b is not None:
            assert a.dtype == b.dtype and a.shape == b.shape, name
            assert a.tolist() == b.tolist(), name
    assert got.cleaning.as_dict() == want.cleaning.as_dict()


def _edges_by_label(g):
    lab = g.labels.tolist()
    zero = g.zero_sign if g.zero_sign is not None else np.zeros(g.m, bool)
    out = {}
    for e in range(g.m):
        s = None if g.sign is None else (0 if zero[e] else int(g.sign[e]))
        out[(lab[g.edge_src[e]], lab[g.edge_dst[e]])] = (s, None if g.weight is None else float(g.weight[e]))
    return out


def _random_columns(seed, n_rows=60, n_labels=14, spread=7):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n_labels, n_rows) * spread + 3
    dst = rng.integers(0, n_labels, n_rows) * spread + 3
    sign = rng.choice([-2, -1, 0, 1, 3], n_rows)
    weight = np.round(rng.random(n_rows) * 10, 3)
    return src, dst, sign, weight


RULES = [dict(conflicts=c, zero_sign=z, component=comp) for c in ("first", "drop") for z in ("positive", "drop")
         for comp in ("largest", "all")]


@pytest.mark.parametrize("kind", NAMESPACES)
@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(r.values()))
@pytest.mark.parametrize("seed", range(3))
def test_signed_cleaning_matches_reference(kind, rules, seed):
    src, dst, sign, weight = _random_columns(seed, n_rows=40 + 10 * seed, n_labels=10 + 3 * seed)
    g = build_graph(_as(kind, src), _as(kind, dst), sign=_as(kind, sign), weight=_as(kind, weight), **rules)
    edges, cnt = reference_clean(src.tolist(), dst.tolist(), sign.tolist(), weight.tolist(), **rules)
    assert g.on_device == (kind != "numpy")
    assert _edges_by_label(g) == {k: (int(np.sign(s)), w) for k, (s, w) in edges.items()}
    for key, val in cnt.items():
        assert getattr(g.cleaning, key) == val, key
    assert g.labels.tolist() == sorted({x for e in edges for x in e})
    _check_csr(g)


@pytest.mark.parametrize("kind", NAMESPACES)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_unsigned_weighted_cleaning_matches_reference(kind, directed, seed):
    src, dst, _, weight = _random_columns(10 + seed, n_rows=50, n_labels=9)
    g = build_graph(_as(kind, src), _as(kind, dst), weight=_as(kind, weight), directed=directed, component="all")
    edges, cnt = reference_clean(src.tolist(), dst.tolist(), None, weight.tolist(), directed=directed, component="all")
    assert type(g) is Graph and g.sign is None
    assert _edges_by_label(g) == edges
    for key, val in cnt.items():
        assert getattr(g.cleaning, key) == val, key
    _check_csr(g)


@pytest.mark.parametrize("kind", NAMESPACES)
def test_largest_component_tie_goes_to_the_first_row(kind):
    # three components of 3 vertices; the one whose first row comes first is not the smallest label
    src, dst = [50, 7, 1, 51, 2, 8], [51, 8, 2, 52, 3, 9]
    g = build_graph(_as(kind, src), _as(kind, dst), sign=_as(kind, [1] * 6))
    assert g.labels.tolist() == [50, 51, 52]
    g = build_graph(_as(kind, src[1:]), _as(kind, dst[1:]), sign=_as(kind, [1] * 5))
    assert g.labels.tolist() == [7, 8, 9]


@pytest.mark.parametrize("kind", NAMESPACES)
@pytest.mark.parametrize("seed", range(6))
def test_graphbplus_numbering_matches_readgraph(kind, seed):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(10, 50))
    rows = [(int(a), int(b), int(c)) for a, b, c in zip(rng.integers(0, 20, n_rows) * 3 + 1,
                                                        rng.integers(0, 20, n_rows) * 3 + 1,
                                                        rng.choice([-1, 1], n_rows))]
    if not _unique_largest(rows):
        pytest.skip("tied components: graphB+ and the first-row rule may pick different ones")
    arr = np.array(rows)
    g = build_graph(_as(kind, arr[:, 0]), _as(kind, arr[:, 1]), sign=_as(kind, arr[:, 2]), numbering="graphbplus")
    assert g.labels.tolist() == graphbplus_readgraph_numbering(rows)
    _check_csr(g)


# -- numpy and array_api_strict give the same graph, bit for bit ----------------------

ID_KINDS = {
    "dense": lambda rng, k: rng.integers(0, 40, k),
    "sparse": lambda rng, k: rng.integers(0, 40, k) * 1_000_003 - 7,
    "int32": lambda rng, k: rng.integers(0, 40, k).astype(np.int32),
    "uint64-huge": lambda rng, k: (rng.integers(0, 40, k).astype(np.uint64) + np.uint64(2**63 + 5)),
    "float": lambda rng, k: rng.integers(0, 40, k).astype(np.float64) - 3.0,
}
OPTION_SETS = [dict(), dict(conflicts="drop", zero_sign="drop"), dict(numbering="graphbplus"),
               dict(component="all", numbering="graphbplus"), dict(component="all")]


@pytest.mark.parametrize("ids", sorted(ID_KINDS))
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(o.values()) or "defaults")
def test_device_build_is_bit_identical_to_numpy(ids, options):
    rng = np.random.default_rng(len(ids))
    k = 150
    src, dst = ID_KINDS[ids](rng, k), ID_KINDS[ids](rng, k)
    sign, weight = rng.choice([-1, 0, 1, 2], k), rng.random(k)
    want = build_graph(src, dst, sign=sign, weight=weight, **options)
    got = build_graph(_dev(src), _dev(dst), sign=_dev(sign),
                      weight=_dev(weight), **options)
    assert got.on_device and got.xp is xps
    _assert_same_graph(got, want)


@pytest.mark.parametrize("api_version", ["2023.12", "2024.12"])
def test_device_build_needs_only_the_2023_standard(api_version):
    rng = np.random.default_rng(9)
    src, dst, sign = rng.integers(0, 30, 120) * 3, rng.integers(0, 30, 120) * 3, rng.choice([-1, 0, 1], 120)
    want = build_graph(src, dst, sign=sign, conflicts="drop", numbering="graphbplus")
    with xps.ArrayAPIStrictFlags(api_version=api_version):
        got = build_graph(xps.asarray(src), xps.asarray(dst), sign=xps.asarray(sign), conflicts="drop",
                          numbering="graphbplus")
        _assert_same_graph(got, want)


@pytest.mark.parametrize("numbering", ["sorted", "graphbplus"])
def test_device_directed_and_unsigned_bit_identical(numbering):
    rng = np.random.default_rng(5)
    src, dst, w = rng.integers(0, 30, 120), rng.integers(0, 30, 120), rng.random(120)
    for kw in (dict(directed=True, weight=w), dict(weight=w), dict()):
        want = build_graph(src, dst, numbering=numbering, component="all", **kw)
        dev = {k: _dev(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        got = build_graph(_dev(src), _dev(dst), numbering=numbering, component="all", **dev)
        _assert_same_graph(got, want)


ERROR_CASES = {
    "zero sign": (dict(src=[1, 2], dst=[2, 3], sign=[1, 0]), dict(zero_sign="error")),
    "conflict": (dict(src=[1, 2, 3, 9], dst=[2, 1, 1, 3], sign=[1, -1, 1, 1]), dict(conflicts="error")),
    "NaN sign": (dict(src=[1, 2], dst=[2, 3], sign=[1.0, np.nan]), dict()),
    "infinite weight": (dict(src=[1, 2], dst=[2, 3], weight=[1.0, np.inf]), dict()),
    "fractional id": (dict(src=[1.0, 2.5], dst=[2.0, 3.0], sign=[1, 1]), dict()),
    "NaN id": (dict(src=[1.0, np.nan], dst=[2.0, 3.0], sign=[1, 1]), dict()),
    "boolean ids": (dict(src=[True, False], dst=[False, True], sign=[1, 1]), dict()),
    "boolean sign": (dict(src=[1, 2], dst=[2, 3], sign=[True, False]), dict()),
    "lengths": (dict(src=[1, 2, 3], dst=[2, 3], sign=[1, 1, 1]), dict()),
    "sign length": (dict(src=[1, 2], dst=[2, 3], sign=[1, 1, 1]), dict()),
    "only loops": (dict(src=[1, 2], dst=[1, 2], sign=[1, 1]), dict()),
    "all conflicts dropped": (dict(src=[1, 2], dst=[2, 1], sign=[1, -1]), dict(conflicts="drop")),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_device_errors_are_the_host_errors(case):
    cols, options = ERROR_CASES[case]
    host = {k: np.asarray(v) for k, v in cols.items()}
    with pytest.raises(GraphInputError) as want:
        build_graph(host["src"], host["dst"], sign=host.get("sign"), weight=host.get("weight"), **options)
    with pytest.raises(GraphInputError) as got:
        build_graph(_dev(host["src"]), _dev(host["dst"]), sign=_dev(host.get("sign")),
                    weight=_dev(host.get("weight")), **options)
    assert str(got.value) == str(want.value)


def test_file_lines_in_device_errors():
    with pytest.raises(GraphInputError, match=r"line 12"):
        build_graph(xps.asarray([1, 2]), xps.asarray([2, 3]), sign=xps.asarray([1.0, float("nan")]),
                    locate=lambda row: 11 + row)


# -- nothing of size O(n) or O(m) leaves the device -------------------------------------

@pytest.fixture
def no_silent_host_copies(monkeypatch):
    """Count _xp.to_host and refuse every other way a strict array could become numpy."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("an array_api_strict array was turned into numpy outside _xp.to_host")
    monkeypatch.setattr(_StrictArray, "__array__", refuse, raising=False)
    _xp.host_copies.clear()
    yield _xp.host_copies
    _xp.host_copies.clear()


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(o.values()) or "defaults")
def test_device_build_makes_no_host_copy(no_silent_host_copies, options):
    src, dst, sign, weight = _random_columns(7, n_rows=200, n_labels=40)
    g = build_graph(xps.asarray(src), xps.asarray(dst), sign=xps.asarray(sign), weight=xps.asarray(weight),
                    **options)
    assert no_silent_host_copies == []
    d = g.device_arrays()
    assert all(type(a) is _StrictArray for a in d.values())
    assert d["indptr"] is g._xp_arrays["indptr"] and g.device_arrays() is d  # the graph's own arrays
    assert type(g.device_labels()) is _StrictArray and g.xp is xps
    assert no_silent_host_copies == []


def test_host_arrays_of_a_device_graph_are_copied_once(no_silent_host_copies):
    g = build_graph(xps.asarray([1, 2, 3, 4]), xps.asarray([2, 3, 1, 1]), sign=xps.asarray([1, -1, 1, 1]))
    indptr = g.indptr
    assert isinstance(indptr, np.ndarray) and not indptr.flags.writeable
    assert no_silent_host_copies == [g.n + 1]
    assert g.indptr is indptr and no_silent_host_copies == [g.n + 1]  # cached
    assert g.weight is None and no_silent_host_copies == [g.n + 1]  # nothing to copy
    assert g.labels.tolist() == [1, 2, 3, 4] and g.sign.dtype == np.int8
    assert no_silent_host_copies == [g.n + 1, g.n, g.m]


def test_host_graph_reports_numpy():
    g = build_graph([1, 2], [2, 3], sign=[1, -1])
    assert not g.on_device and _xp.is_numpy(g.xp) and g.device_labels() is g.labels


def test_mixed_columns_follow_the_ids():
    src, dst, sign = np.array([1, 2, 3]), np.array([2, 3, 1]), np.array([1, -1, 1])
    dev = build_graph(xps.asarray(src), xps.asarray(dst), sign=sign)
    assert dev.on_device and type(dev.device_arrays()["sign"]) is _StrictArray
    _xp.host_copies.clear()
    host = build_graph(src, dst, sign=xps.asarray(sign))
    assert not host.on_device and _xp.host_copies == [3]
    _assert_same_graph(dev, host)


def test_device_graph_with_host_text_labels():
    g = SignedGraph(edge_src=xps.asarray([0, 1]), edge_dst=xps.asarray([1, 2]), n_vertices=3,
                    labels=np.array(["a", "b", "c"], dtype=object), directed=False, sign=xps.asarray([1, -1]))
    assert g.on_device and g.device_labels().tolist() == ["a", "b", "c"]
    _check_csr(g)


# -- the helpers of _xp against numpy / scipy ------------------------------------------

@pytest.mark.parametrize("kind", NAMESPACES)
@pytest.mark.parametrize("size", [0, 1, 500, 70_000])
def test_xp_sorting_helpers(kind, size):
    rng = np.random.default_rng(size)
    key = rng.integers(0, max(size // 3, 1), size)
    wide = rng.integers(0, 2**40, size)
    for k in (key, wide, key.astype(np.int32)):
        assert _np(_xp.stable_argsort(_as(kind, k))).tolist() == np.argsort(k, kind="stable").tolist()
    keys = (rng.integers(-1, 2, size).astype(np.int8), key, key % 5)
    got = _xp.lexsort(tuple(_as(kind, k) for k in keys))
    assert _np(got).tolist() == np.lexsort(keys).tolist()


@pytest.mark.parametrize("kind", NAMESPACES)
def test_xp_counting_and_scatter_helpers(kind):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, 400)
    assert _np(_xp.bincount(_as(kind, x), minlength=60)).tolist() == np.bincount(x, minlength=60).tolist()
    idx = rng.permutation(100)[:30]
    vals = rng.integers(0, 9, 30)
    want = np.zeros(100, np.int64)
    want[idx] = vals
    assert _np(_xp.scatter(_as(kind, np.zeros(100, np.int64)), _as(kind, idx), _as(kind, vals))).tolist() == \
        want.tolist()
    marks = _xp.scatter(_as(kind, np.zeros(100, bool)), _as(kind, np.concatenate([idx, idx])), True)
    assert np.flatnonzero(_np(marks)).tolist() == sorted(idx.tolist())
    dup = rng.integers(0, 20, 300)
    low = np.full(25, 10**6, np.int64)
    np.minimum.at(low, dup, x[:300])
    got = _xp.scatter_min(_as(kind, np.full(25, 10**6, np.int64)), _as(kind, dup), _as(kind, x[:300]))
    assert _np(got).tolist() == low.tolist()


@pytest.mark.parametrize("kind", NAMESPACES)
def test_xp_unique_inverse_and_components(kind):
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 10**12, 300) // 10**10
    values, codes = _xp.unique_inverse(_as(kind, x))
    want_values, want_codes = np.unique(x, return_inverse=True)
    assert _np(values).tolist() == want_values.tolist() and _np(codes).tolist() == want_codes.tolist()
    n = 80
    a, b = rng.integers(0, n, 60), rng.integers(0, n, 60)
    labels = _np(_xp.connected_components(_as(kind, a), _as(kind, b), n))
    _, want = scipy_components(coo_matrix((np.ones(60), (a, b)), shape=(n, n)), directed=False)
    # the same partition: labels map one-to-one
    assert len(set(zip(labels.tolist(), want.tolist()))) == len(set(want.tolist())) == len(set(labels.tolist()))


@pytest.mark.parametrize("kind", NAMESPACES)
@pytest.mark.parametrize("directed", [False, True])
def test_closed_form_csr_equals_the_sorted_slots(kind, directed):
    rng = np.random.default_rng(3)
    u, v = rng.integers(0, 25, 90), rng.integers(0, 25, 90)
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
        u, v = u[u != v], v[u != v]
    o = np.lexsort((v, u))  # sorted, repeated pairs kept
    src, dst = _as(kind, u[o].astype(np.int32)), _as(kind, v[o].astype(np.int32))
    xp = _xp.namespace(src)
    fast = _build.csr_arrays(xp, src, dst, 25, directed)
    general = _build._csr_general(xp, src, dst, 25, directed)
    for key in ("indptr", "indices", "slot_edge", "edge_slots"):
        assert _np(fast[key]).tolist() == _np(general[key]).tolist(), key
        assert fast[key].dtype == general[key].dtype, key


def test_unsorted_edges_take_the_general_csr():
    rng = np.random.default_rng(4)
    u, v = rng.integers(0, 20, 60), rng.integers(0, 20, 60)
    keep = u != v
    g = Graph(edge_src=np.minimum(u, v)[keep], edge_dst=np.maximum(u, v)[keep], n_vertices=20,
              labels=np.arange(20), directed=False)
    assert g.indptr[-1] == 2 * g.m
    for r in range(20):
        assert np.all(np.diff(g.indices[g.indptr[r]:g.indptr[r + 1]]) >= 0), "rows sorted"
    for e in range(g.m):  # every edge sits once in each of its rows
        s0, s1 = g.edge_slots[e]
        assert g.indptr[g.edge_src[e]] <= s0 < g.indptr[g.edge_src[e] + 1]
        assert g.indices[s0] == g.edge_dst[e] and g.indices[s1] == g.edge_src[e]
        assert g.slot_edge[s0] == e == g.slot_edge[s1]


# -- the shared data files: the same graph as the build before the array-API rewrite -------

REFERENCE_COMMIT = "2e33a9d"  # the last tree whose graph.py built graphs with numpy only
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _reference_module(tmp_path):
    root = Path(__file__).resolve().parents[1]
    try:
        text = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:rapids_balance/graph.py"], cwd=root,
                              capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip(f"needs the git history with commit {REFERENCE_COMMIT} (the reference build)")
    path = tmp_path / "reference_graph.py"
    path.write_text(text)
    name = "rapids_balance._reference_graph"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_shared_files_bit_identical_to_the_reference_build(monkeypatch, tmp_path):
    if not SHARED.is_dir():
        pytest.skip(f"needs the public signed graphs in ../shared/data ({SHARED}), which is absent")
    import rapids_balance as rb
    from rapids_balance.io import _reader

    ref = _reference_module(tmp_path)
    classes = {Graph: ref.Graph, SignedGraph: ref.SignedGraph}
    real = build_graph
    compared = []

    def both(columns, **kw):  # the reader's call, as build_graph's arguments
        args = (columns.pop("src"), columns.pop("dst"))
        kw.update(sign=columns.pop("sign"), weight=columns.pop("weight"))
        want = ref.build_graph(*args, **{**copy.deepcopy(kw), "graph_class": classes[kw["graph_class"]]})
        got = real(*args, **kw)
        _assert_same_graph(got, want)  # the same class names and arrays, bit for bit
        if np.asarray(args[0]).dtype.kind in "iu" and got.m < 150_000:
            dev = real(xps.asarray(args[0]), xps.asarray(args[1]), **{
                **copy.deepcopy(kw), **{r: _dev(kw[r]) for r in ("sign", "weight") if kw[r] is not None}})
            _assert_same_graph(dev, got)
        compared.append(got.name)
        return got

    monkeypatch.setattr(_reader, "build_from_columns", both)
    files = [p for p in sorted(SHARED.iterdir()) if p.name != "README.md" and "_users" not in p.name]
    for path in files:
        if path.name.endswith(".tar.gz"):
            for member in _archive_members(path):
                rb.read_edgelist(path, member=member)
            continue
        for options in (dict(), dict(conflicts="drop", zero_sign="drop"), dict(numbering="graphbplus"),
                        dict(signed=False, directed=True, component="all")):
            rb.read_edgelist(path, **options)
    assert len(compared) >= 4 * 19


def _archive_members(path):
    import gzip
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(path.read_bytes()))) as tf:
        return [m.name for m in tf.getmembers() if m.isfile()]
