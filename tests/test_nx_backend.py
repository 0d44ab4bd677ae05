"""rapids-balance as a networkx backend: networkx's own tests and random graphs."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pytest

from rapids_balance.nx_backend._info import BACKEND_NAME, FUNCTIONS, get_info
from rapids_balance.nx_backend._interface import BackendInterface

BACKEND = {"backend": BACKEND_NAME}
NX_TEST_MODULES = ["networkx.algorithms.centrality.tests.test_betweenness_centrality",
                   "networkx.algorithms.centrality.tests.test_betweenness_centrality_subset"]

# a pytest plugin for the subprocess: counts the calls that reach the backend
_COUNTER = '''
import collections, json, os
from rapids_balance.nx_backend._info import FUNCTIONS
from rapids_balance.nx_backend._interface import BackendInterface

CALLS = collections.Counter()

def _counted(name, fn):
    def wrapper(*args, **kwargs):
        CALLS[name] += 1
        return fn(*args, **kwargs)
    return staticmethod(wrapper)

for _name in FUNCTIONS:
    setattr(BackendInterface, _name, _counted(_name, getattr(BackendInterface, _name)))

def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["RB_CALL_COUNTS"], "w") as fh:
        json.dump(dict(CALLS), fh)
'''


def test_backend_is_registered():
    assert BACKEND_NAME in nx.utils.backends.backends
    info = nx.utils.backends.backend_info[BACKEND_NAME]
    assert info == get_info() and set(info["functions"]) == set(FUNCTIONS)
    G = nx.path_graph(4)
    assert nx.betweenness_centrality(G, **BACKEND) == nx.betweenness_centrality(G)


def test_networkx_test_files_pass_through_the_backend(tmp_path):
    """networkx's own test files for the four functions, every call dispatched here."""
    (tmp_path / "rb_call_counter.py").write_text(textwrap.dedent(_COUNTER))
    counts, report = tmp_path / "calls.json", tmp_path / "junit.xml"
    env = dict(os.environ, NETWORKX_TEST_BACKEND=BACKEND_NAME, RB_CALL_COUNTS=str(counts),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    env.pop("NETWORKX_FALLBACK_TO_NX", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", *NX_TEST_MODULES, "-p", "rb_call_counter",
         "-p", "no:cacheprovider", "-q", f"--junitxml={report}", "-o", "addopts="],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    tests, failures, errors, skipped = (int(suite.get(a)) for a in ("tests", "failures", "errors", "skipped"))
    assert tests >= 90 and failures == errors == skipped == 0, proc.stdout[-2000:]
    calls = json.loads(counts.read_text())
    # every function of the backend served many of networkx's calls
    assert set(calls) == set(FUNCTIONS) and min(calls.values()) >= 10, calls


# ---------------------------------------------------------------------------
# the same calls on random graphs, compared with networkx itself
# ---------------------------------------------------------------------------

def _graph(kind: str, n: int, m: int, seed: int, weighted: bool, wmax: int = 4):
    rng = np.random.default_rng(seed)
    directed = kind in ("DiGraph", "MultiDiGraph")
    G = getattr(nx, kind)()
    G.add_nodes_from(rng.permutation(n).tolist())  # node order is not id order
    for _ in range(m):
        u, v = rng.integers(0, n, 2).tolist()
        d = {"weight": int(rng.integers(1, wmax + 1))} if weighted else {}
        if G.is_multigraph() or not G.has_edge(u, v):
            G.add_edge(u, v, **d)
    assert G.is_directed() == directed
    return G


def _assert_same(ours: dict, ref: dict):
    assert list(ours) == list(ref)  # same keys, same order (edge orientation and keys included)
    a = np.array(list(ours.values()), dtype=float)
    b = np.array(list(ref.values()), dtype=float)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert all(type(x) is float for x in ours.values())


KINDS = ["Graph", "DiGraph", "MultiGraph", "MultiDiGraph"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [True, False])
def test_exact_and_sampled_match_networkx(kind, weighted):
    G = _graph(kind, 30, 70, seed=len(kind) * 7 + weighted, weighted=weighted)
    w = "weight" if weighted else None
    for kw in ({}, {"normalized": False}, {"endpoints": True}, {"k": 7, "seed": 3},
               {"k": 5, "seed": random.Random(11), "endpoints": True, "normalized": False},
               {"k": 6, "seed": np.random.default_rng(2)}, {"k": 1, "seed": 4}):
        seed = kw.get("seed")
        ref_kw = dict(kw, seed=_copy_rng(seed))
        _assert_same(nx.betweenness_centrality(G, weight=w, **kw, **BACKEND),
                     nx.betweenness_centrality(G, weight=w, **ref_kw))
        ekw = {k: v for k, v in kw.items() if k != "endpoints"}
        ekw["seed"] = _copy_rng(seed)
        ref_ekw = dict(ekw, seed=_copy_rng(seed))
        _assert_same(nx.edge_betweenness_centrality(G, weight=w, **ekw, **BACKEND),
                     nx.edge_betweenness_centrality(G, weight=w, **ref_ekw))


def _copy_rng(seed):
    import copy

    return copy.deepcopy(seed)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [True, False])
def test_subsets_match_networkx(kind, weighted):
    G = _graph(kind, 25, 60, seed=len(kind) * 5 + weighted, weighted=weighted)
    w = "weight" if weighted else None
    nodes = list(G)
    for sources, targets in ((nodes[:5], nodes[3:12]), (nodes[::3], nodes[1::2]), (nodes, nodes),
                             ([nodes[0], nodes[0]], [nodes[1], "not a node"])):
        for normalized in (False, True):
            for fn in (nx.betweenness_centrality_subset, nx.edge_betweenness_centrality_subset):
                _assert_same(fn(G, sources, targets, normalized=normalized, weight=w, **BACKEND),
                             fn(G, sources, targets, normalized=normalized, weight=w))


def test_networkx_exceptions_are_kept():
    G = nx.cycle_graph(5)
    for fn in (nx.betweenness_centrality, nx.edge_betweenness_centrality):
        with pytest.raises(ValueError, match="larger"):
            fn(G, k=6, **BACKEND)
        with pytest.raises(ValueError, match="negative"):
            fn(G, k=-1, **BACKEND)
        with pytest.raises(ZeroDivisionError):
            fn(G, k=0, **BACKEND)
    for fn in (nx.betweenness_centrality_subset, nx.edge_betweenness_centrality_subset):
        with pytest.raises(KeyError):
            fn(G, [0, 99], [1], **BACKEND)
        with pytest.raises(KeyError):
            fn(G, [99], [1])  # what networkx itself raises


def test_same_sources_as_networkx_for_a_seeded_draw():
    # a seeded Random drawn by the backend leaves it where networkx leaves it
    G = _graph("Graph", 40, 90, seed=5, weighted=True)
    r1, r2 = random.Random(8), random.Random(8)
    nx.betweenness_centrality(G, k=9, seed=r1, weight="weight", **BACKEND)
    nx.betweenness_centrality(G, k=9, seed=r2, weight="weight")
    assert r1.random() == r2.random()


def test_zero_length_is_an_error_not_a_wrong_count():
    from rapids_balance import GraphInputError

    G = nx.Graph([(0, 1, {"weight": 0}), (1, 2, {"weight": 1})])
    with pytest.raises(GraphInputError, match="zero length"):
        nx.betweenness_centrality(G, weight="weight", **BACKEND)


def test_changed_weights_are_read_again():
    # networkx caches converted graphs and cannot see attribute changes: lengths are read per call
    G = nx.Graph([(0, 1, {"weight": 1}), (1, 2, {"weight": 1}), (0, 2, {"weight": 1})])
    a = nx.betweenness_centrality(G, weight="weight", **BACKEND)
    G[0][2]["weight"] = 5
    b = nx.betweenness_centrality(G, weight="weight", **BACKEND)
    assert a[1] == 0.0 and b[1] == 1.0


def test_interface_converts_both_ways():
    G = nx.path_graph(3)
    H = BackendInterface.convert_from_nx(G, edge_attrs=None, name="betweenness_centrality")
    assert BackendInterface.convert_to_nx(H) is G and H.__networkx_backend__ == BACKEND_NAME
    assert BackendInterface.betweenness_centrality(H) == nx.betweenness_centrality(G)
    assert BackendInterface.betweenness_centrality(nx.Graph()) == {}


def test_device_setting_runs_the_gpu_kernels(gpu_backend, monkeypatch):
    from rapids_balance.centrality import betweenness as bmod

    monkeypatch.setattr(bmod, "_gpu_threads", lambda vw: 8)
    monkeypatch.setattr(nx.config.backends[BACKEND_NAME], "device", gpu_backend)
    calls = []
    real, real_fold = bmod._bc_partial, bmod._gpu_fold
    # the CPU computes batch partials; the GPU folds every batch into one device accumulator
    monkeypatch.setattr(bmod, "_bc_partial", lambda g, s, p: calls.append(p["backend"]) or real(g, s, p))
    monkeypatch.setattr(bmod, "_gpu_fold", lambda g, p, b: calls.append(p["backend"]) or real_fold(g, p, b))
    G = _graph("MultiDiGraph", 9, 18, seed=3, weighted=True)
    _assert_same(nx.edge_betweenness_centrality(G, weight="weight", **BACKEND),
                 nx.edge_betweenness_centrality(G, weight="weight"))
    _assert_same(nx.betweenness_centrality_subset(G, [0, 1, 2], [5, 6, 7], weight="weight", **BACKEND),
                 nx.betweenness_centrality_subset(G, [0, 1, 2], [5, 6, 7], weight="weight"))
    assert calls and set(calls) == {"gpu"}
