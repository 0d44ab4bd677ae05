"""Bad parameters of every public algorithm: refused up front, with the parameter named.

Each case names a function, the keyword arguments it gets, and a fragment
of the message (the parameter's name, quoted as the message quotes it).
The graph handed in is a *tripwire*: any attribute access on it fails the
test, so a case passes only if the parameter was refused before the graph
was coerced or any work started.  A few cases need the graph itself (``k``
above the number of vertices, an unknown root): they get a real graph and
still must fail before any tree or source is processed.

The second half checks that large counts are cut into batches made one at a
time (issue: ``--trees 1000000000000`` built every batch first).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance.balancing import _engine
from rapids_balance.distributed._run import RangeBatches
from rapids_balance.distributed._run import MAX_TASKS, WorkerBatches, check_task_count
from rapids_balance.errors import InvalidParameterError
from rapids_balance.frustration_index import _frustration
from rapids_balance.graph import build_graph

NAN = float("nan")
BIG = 2**100


class Tripwire:
    """A graph argument that fails the test as soon as anything looks at it."""

    def __getattr__(self, name):
        raise AssertionError(f"the graph was touched ({name!r}) before the parameters were checked")

    def __len__(self):
        raise AssertionError("the graph was touched (len) before the parameters were checked")

    def __iter__(self):
        raise AssertionError("the graph was touched (iter) before the parameters were checked")


FUNCS = {
    "balance": rb.balance,
    "frustration": rb.frustration,
    "frustration_index_exact": rb.frustration_index_exact,
    "frustration_lower_bound": rb.frustration_lower_bound,
    "betweenness_centrality": rb.betweenness_centrality,
    "edge_betweenness_centrality": rb.edge_betweenness_centrality,
    "correlation_clustering": rb.correlation_clustering,
    "imbalance": lambda g, **kw: rb.imbalance(g, kw.pop("labels", [0]), **kw),
}

# (function, keyword arguments, message fragment)
BAD = [
    # seeds: one rule everywhere
    ("balance", {"seed": 1.7}, "'seed' parameter of balance must be an int in the range [0, 2**63 - 1]"),
    ("balance", {"seed": BIG}, "'seed' parameter of balance must be an int in the range [0, 2**63 - 1]"),
    ("balance", {"seed": None}, "'seed' parameter of balance"),
    ("balance", {"seed": -1}, "'seed' parameter of balance"),
    ("balance", {"seed": True}, "'seed' parameter of balance"),
    ("frustration", {"seed": BIG}, "'seed' parameter of frustration must be an int in the range [0, 2**63 - 1]"),
    ("frustration", {"seed": 2**63}, "'seed' parameter of frustration"),
    ("frustration", {"seed": None}, "'seed' parameter of frustration"),
    ("frustration_lower_bound", {"seed": 0.5}, "'seed' parameter of frustration_lower_bound"),
    ("correlation_clustering", {"seed": BIG},
     "'seed' parameter of correlation_clustering must be an int in the range [0, 2**63 - 1]"),
    ("correlation_clustering", {"seed": 1.7}, "'seed' parameter of correlation_clustering"),
    ("correlation_clustering", {"seed": None}, "'seed' parameter of correlation_clustering"),
    ("betweenness_centrality", {"k": 2, "seed": BIG}, "'seed' parameter of betweenness_centrality"),
    ("betweenness_centrality", {"k": 2, "seed": 2.0}, "'seed' parameter of betweenness_centrality"),
    ("edge_betweenness_centrality", {"k": 2, "seed": -5}, "'seed' parameter of edge_betweenness_centrality"),
    # counts
    ("balance", {"n_trees": 0}, "'n_trees' parameter of balance must be an int in the range [1, 2**63 - 1]"),
    ("balance", {"n_trees": 2**63}, "'n_trees' parameter of balance"),
    ("balance", {"n_trees": 10.0}, "'n_trees' parameter of balance"),
    ("balance", {"batch_size": 0}, "'batch_size' parameter of balance"),
    ("balance", {"roots": []}, "'roots' parameter of balance"),
    ("balance", {"roots": "ab"}, "'roots' parameter of balance"),
    ("frustration", {"n_trees": -1}, "'n_trees' parameter of frustration"),
    ("frustration", {"n_trees": 0, "refine": False}, "'n_trees' parameter of frustration"),
    ("frustration", {"max_states": 0}, "'max_states' parameter of frustration"),
    ("frustration", {"memory_limit": -1}, "'memory_limit' parameter of frustration"),
    ("frustration", {"batch_size": 0}, "'batch_size' parameter of frustration"),
    ("frustration", {"refine": -3}, "'refine' parameter of frustration"),
    ("frustration", {"refine": {"rounds": -1}}, "'refine[rounds]' parameter of frustration"),
    ("frustration", {"refine": {"population": 10**9}}, "'refine[population]' parameter of frustration"),
    ("frustration", {"refine": {"speed": 3}}, "'refine' parameter of frustration"),
    ("frustration", {"refine": "yes"}, "'refine' parameter of frustration"),
    ("frustration_lower_bound", {"max_length": 0}, "'max_length' parameter of frustration_lower_bound"),
    ("betweenness_centrality", {"k": 2.5}, "'k' parameter of betweenness_centrality must be an int >= 1"),
    ("betweenness_centrality", {"k": 0}, "'k' parameter of betweenness_centrality"),
    ("betweenness_centrality", {"k": []}, "'k' parameter of betweenness_centrality"),
    ("edge_betweenness_centrality", {"k": "7"}, "'k' parameter of edge_betweenness_centrality"),
    ("correlation_clustering", {"max_iterations": 0}, "'max_iterations' parameter of correlation_clustering"),
    ("correlation_clustering", {"max_iterations": 2**60}, "'max_iterations' parameter"),
    ("correlation_clustering", {"n_clusters": 0}, "'n_clusters' parameter of correlation_clustering"),
    ("correlation_clustering", {"perturbation_max": -3}, "'perturbation_max' parameter"),
    ("correlation_clustering", {"ils_max": 0}, "'ils_max' parameter of correlation_clustering"),
    ("correlation_clustering", {"alpha": 1.5}, "'alpha' parameter of correlation_clustering"),
    ("correlation_clustering", {"alpha": NAN}, "'alpha' parameter of correlation_clustering"),
    # time limits: finite and >= 0
    ("correlation_clustering", {"time_limit": NAN}, "'time_limit' parameter of correlation_clustering must be a "
     "finite number >= 0"),
    ("correlation_clustering", {"time_limit": -1}, "'time_limit' parameter of correlation_clustering"),
    ("correlation_clustering", {"time_limit": float("inf")}, "'time_limit' parameter"),
    ("frustration_index_exact", {"time_limit": NAN}, "'time_limit' parameter of frustration_index_exact"),
    ("frustration_index_exact", {"time_limit": -2.0}, "'time_limit' parameter of frustration_index_exact"),
    ("frustration_index_exact", {"time_limit": "60"}, "'time_limit' parameter of frustration_index_exact"),
    ("frustration_index_exact", {"threads": -1}, "'threads' parameter of frustration_index_exact"),
    # choices and flags
    ("balance", {"sampler": "dfs"}, "'sampler' parameter of balance must be one of"),
    ("balance", {"method": "spanning"}, "'method' parameter of balance"),
    ("balance", {"majority": "smaller"}, "'majority' parameter of balance"),
    ("balance", {"attributes": "other"}, "'attributes' parameter of balance"),
    ("balance", {"backend": "tpu"}, "'backend' parameter of balance"),
    ("balance", {"progress": "no"}, "'progress' parameter of balance"),
    ("balance", {"client": "tcp://127.0.0.1:8786"}, "'client' parameter of balance"),
    ("frustration", {"sampler": "bogus"}, "'sampler' parameter of frustration"),
    ("frustration", {"backend": None}, "'backend' parameter of frustration"),
    ("frustration_index_exact", {"solver": "gurobi"}, "'solver' parameter of frustration_index_exact"),
    ("frustration_index_exact", {"cuts": 1}, "'cuts' parameter of frustration_index_exact"),
    ("betweenness_centrality", {"normalized": "yes"}, "'normalized' parameter of betweenness_centrality"),
    ("betweenness_centrality", {"endpoints": None}, "'endpoints' parameter of betweenness_centrality"),
    ("betweenness_centrality", {"directed": 1}, "'directed' parameter of betweenness_centrality"),
    ("betweenness_centrality", {"weight": 3.0}, "'weight' parameter of betweenness_centrality"),
    ("edge_betweenness_centrality", {"backend": "GPU"}, "'backend' parameter of edge_betweenness_centrality"),
    ("correlation_clustering", {"method": "kmeans"}, "'method' parameter of correlation_clustering"),
    ("correlation_clustering", {"local_search": "first"}, "'local_search' parameter"),
    ("correlation_clustering", {"construction": "random"}, "'construction' parameter"),
    ("correlation_clustering", {"perturbation": "edge"}, "'perturbation' parameter"),
    ("correlation_clustering", {"plateau": 1}, "'plateau' parameter of correlation_clustering"),
    ("correlation_clustering", {"init": "one"}, "'init' parameter of correlation_clustering must be None unless"),
    ("correlation_clustering", {"method": "vnd", "init": "two"}, "'init' parameter of correlation_clustering"),
    # column roles: names or positions
    ("balance", {"sign": 1.5}, "'sign' parameter of balance must be a column name"),
    ("frustration", {"source": -1}, "'source' parameter of frustration"),
    ("betweenness_centrality", {"target": ["b"]}, "'target' parameter of betweenness_centrality"),
    ("correlation_clustering", {"weight": True}, "'weight' parameter of correlation_clustering"),
    ("imbalance", {"sign": ""}, "'sign' parameter of imbalance"),
    ("frustration_index_exact", {"source": 2.0}, "'source' parameter of frustration_index_exact"),
]


@pytest.mark.parametrize("func, kwargs, fragment", BAD,
                         ids=[f"{f}-{'-'.join(map(str, kw))}-{i}" for i, (f, kw, _) in enumerate(BAD)])
def test_bad_parameter_is_refused_before_the_graph_is_read(func, kwargs, fragment):
    with pytest.raises(InvalidParameterError) as info:
        FUNCS[func](Tripwire(), **kwargs)
    assert fragment in str(info.value)
    assert str(info.value).endswith("instead.")
    # InvalidParameterError is both: callers catching either keep working
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


@pytest.fixture(scope="module")
def graph():
    # a 4-cycle with a chord: connected, signed, unbalanced
    return build_graph([0, 1, 2, 3, 0], [1, 2, 3, 0, 2], sign=[1, 1, -1, 1, -1])


@pytest.fixture(scope="module")
def table():
    return pd.DataFrame({"a": [0, 1, 2, 3, 0], "b": [1, 2, 3, 0, 2], "s": [1, 1, -1, 1, -1]})


ROLE_FUNCS = ["balance", "frustration", "frustration_index_exact", "frustration_lower_bound",
              "correlation_clustering", "imbalance"]


@pytest.mark.parametrize("func", ROLE_FUNCS)
@pytest.mark.parametrize("role", ["source", "target", "sign", "weight"])
def test_column_roles_with_a_built_graph_are_refused(graph, func, role):
    kw = {role: "a"} if func != "imbalance" else {role: "a", "labels": [0, 0, 1, 1]}
    with pytest.raises(InvalidParameterError, match=f"'{role}' parameter of .* already built"):
        FUNCS[func](graph, **kw)


@pytest.mark.parametrize("func", ["betweenness_centrality", "edge_betweenness_centrality"])
def test_betweenness_roles_with_a_built_graph_are_refused(graph, func):
    for role in ("source", "target", "sign"):
        with pytest.raises(InvalidParameterError, match=f"'{role}' parameter of {func} .* already built"):
            FUNCS[func](graph, **{role: 0})
    # weight keeps its own meaning there: lengths of a built graph's edges
    FUNCS[func](graph, weight=np.ones(graph.m), progress=False, backend="cpu")


def test_parameters_that_need_the_graph_fail_before_work(graph, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("work started before the parameters were checked")

    monkeypatch.setattr(_engine, "_balance_partial", no_work)
    monkeypatch.setattr(_frustration, "_cloud_partial", no_work)
    cases = [
        (rb.balance, {"roots": [99]}, "'roots' parameter of balance must be labels of vertices"),
        (rb.frustration, {"roots": ["x"]}, "'roots' parameter of frustration"),
        (rb.frustration, {"memory_limit": 5}, "'memory_limit' parameter of frustration must be at least"),
        (rb.betweenness_centrality, {"k": 5}, "'k' parameter of betweenness_centrality must be an int in "
         "the range [1, 4]"),
        (rb.betweenness_centrality, {"k": [0, 0]}, "'k' parameter of betweenness_centrality must be a "
         "sequence of distinct"),
        (rb.edge_betweenness_centrality, {"k": [7]}, "'k' parameter of edge_betweenness_centrality"),
    ]
    for func, kw, fragment in cases:
        if func in (rb.betweenness_centrality, rb.edge_betweenness_centrality):
            kw = {**kw, "weight": None}
        with pytest.raises(InvalidParameterError) as info:
            func(graph, progress=False, backend="cpu", **kw)
        assert fragment in str(info.value), str(info.value)


def test_time_limit_overflow_and_long_values_are_short(graph):
    with pytest.raises(InvalidParameterError) as info:
        rb.correlation_clustering(Tripwire(), time_limit=10**400)
    assert "'time_limit'" in str(info.value) and len(str(info.value)) < 200


# --- accepted -------------------------------------------------------------------------

def test_accepted_edge_values(graph):
    cpu = {"backend": "cpu", "progress": False}
    ref = rb.balance(graph, 4, seed=3, **cpu)
    same = rb.balance(graph, np.int32(4), seed=np.int64(3), batch_size=np.uint8(3), **cpu)
    pd.testing.assert_frame_equal(ref.vertices, same.vertices)
    for seed in (0, 2**63 - 1, np.uint64(2**63 - 1)):
        assert rb.balance(graph, 3, seed=seed, **cpu).n_trees == 3
        assert rb.frustration(graph, 3, seed=seed, **cpu).index == 1
        assert rb.correlation_clustering(graph, method="ils", max_iterations=2, seed=seed,
                                         **cpu).imbalance >= 1
        assert rb.frustration_lower_bound(graph, seed=seed).bound == 1
        assert len(rb.betweenness_centrality(graph, k=2, seed=seed, weight=None, **cpu)) == 4
    # betweenness keeps networkx's seed=None (a fresh sample)
    assert len(rb.betweenness_centrality(graph, k=2, seed=None, weight=None, **cpu)) == 4
    assert len(rb.edge_betweenness_centrality(graph, k=np.int64(2), seed=None, weight=None, **cpu)) == 5
    # a zero time limit is a limit: the first restart still completes
    res = rb.correlation_clustering(graph, method="grasp", time_limit=0, max_iterations=50, **cpu)
    assert res.iterations == 1
    assert rb.frustration(graph, 0, refine={"rounds": 1, "population": 2}, **cpu).refined_index == 1
    assert rb.frustration_index_exact(graph, time_limit=np.float32(5), threads=np.int64(1)).index == 1


def test_refine_seed_near_the_top_of_the_range_runs_the_multilevel_search():
    # enough vertices to coarsen (derived seeds pass 2**64 and wrap)
    rng = np.random.default_rng(5)
    n = 150
    src = np.arange(n)
    dst = (src + 1) % n
    extra_s, extra_d = rng.integers(0, n, 200), rng.integers(0, n, 200)
    g = build_graph(np.r_[src, extra_s], np.r_[dst, extra_d],
                    sign=np.where(rng.random(n + 200) < 0.3, -1, 1))
    res = rb.frustration(g, 4, seed=2**63 - 1, backend="cpu", progress=False)
    assert res.refined_index is not None and res.index <= res.tree_index


# --- large counts are not materialised --------------------------------------------------

HUGE = 10**12  # as a list of batch ranges: > 24 GB for any batch size up to 256


def test_range_batches_are_lazy():
    tracemalloc.start()
    try:
        batches = RangeBatches(HUGE, 64)
        first, last = batches[0], batches[-1]
        n = len(batches)
        it = iter(batches)
        firsts = [next(it), next(it)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert first == range(0, 64) and firsts == [range(0, 64), range(64, 128)]
    assert last == range(HUGE - 64, HUGE) and n == HUGE // 64
    assert peak < 1 << 20
    assert list(RangeBatches(10, 4)) == [range(0, 4), range(4, 8), range(8, 10)]
    assert list(RangeBatches(0, 4)) == [] and len(RangeBatches(0, 4)) == 0
    with pytest.raises(IndexError):
        RangeBatches(10, 4)[3]


class _Stop(Exception):
    pass


def _first_batch_then_stop(seen):
    def part(graph, ids, params, **kwargs):
        seen.append(ids)
        raise _Stop
    return part


@pytest.mark.parametrize("module, hook, call, first", [
    (_engine, "_balance_partial", lambda g: rb.balance(g, HUGE, backend="cpu", progress=False,
                                                        batch_size=256), range(0, 256)),
    (_frustration, "_cloud_partial", lambda g: rb.frustration(g, HUGE, refine=False, backend="cpu",
                                                               progress=False), range(0, 64)),
], ids=["balance", "frustration"])
def test_a_huge_tree_count_starts_work_without_listing_batches(graph, monkeypatch, module, hook, call,
                                                                first):
    # the search's kernels made ready first (a tiny run of its own, before the clock)
    if module is _frustration:
        rb.frustration(graph, 1, refine=False, backend="cpu", progress=False)
    seen = []
    monkeypatch.setattr(module, hook, _first_batch_then_stop(seen))
    tracemalloc.start()
    try:
        with pytest.raises(_Stop):
            call(graph)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == [first]
    assert peak < 64 << 20


def test_clustering_with_a_huge_iteration_count_stops_at_its_time_limit(graph):
    res = rb.correlation_clustering(graph, method="grasp", max_iterations=2**50, time_limit=0,
                                    backend="cpu", progress=False)
    assert res.iterations == 1 and res.params["max_iterations"] == 2**50


def test_balance_partial_works_through_a_long_range_in_chunks(graph):
    params = _engine.BalanceParams(n_trees=20, backend="cpu", batch_size=3)
    whole = _engine.BalanceParams(n_trees=20, backend="cpu", batch_size=20)
    a = _engine._balance_partial(graph, range(2, 19), params)
    b = _engine._balance_partial(graph, np.arange(2, 19), whole)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_worker_batches_stay_few_for_a_huge_count():
    batches = WorkerBatches(HUGE, max_size=256, per_worker=2).for_workers(4)
    assert len(batches) <= MAX_TASKS
    assert batches[0].start == 0 and batches[-1].stop == HUGE
    assert sum(len(b) for b in batches[:3]) == 3 * batches[0].stop
    # small runs keep the memory cap per batch
    small = WorkerBatches(10_000, max_size=256, per_worker=2).for_workers(4)
    assert max(len(b) for b in small) <= 256 and sum(len(b) for b in small) == 10_000
    with pytest.raises(InvalidParameterError, match="tasks"):
        check_task_count(MAX_TASKS + 1, "frustration(n_trees=...)")


# --- column roles reach the reader ---------------------------------------------------------

ROLE_MODULES = {
    "balance": "rapids_balance.graph",
    "frustration": "rapids_balance.frustration_index._frustration",
    "frustration_index_exact": "rapids_balance.frustration_index._exact",
    "frustration_lower_bound": "rapids_balance.frustration_index._bound",
    "correlation_clustering": "rapids_balance.clustering._solve",
    "imbalance": "rapids_balance.clustering._objective",
}


@pytest.mark.parametrize("func", ROLE_FUNCS)
def test_column_roles_are_passed_to_the_reader(func, table, monkeypatch):
    import importlib

    seen = {}

    def reader(obj, **kwargs):
        seen.update(kwargs)
        raise _Stop

    monkeypatch.setattr(importlib.import_module(ROLE_MODULES[func]), "graph_from_any", reader)
    with pytest.raises(_Stop):
        FUNCS[func](table, source="a", target=1, sign="s")
    assert seen == {"signed": True, "source": "a", "target": 1, "sign": "s"}


@pytest.mark.parametrize("func", ["betweenness_centrality", "edge_betweenness_centrality"])
def test_betweenness_roles_are_passed_to_the_reader(func, table, monkeypatch):
    from rapids_balance.centrality import betweenness

    seen = {}

    def reader(obj, weight, directed, *, for_edges, **roles):
        seen.update(roles, weight=weight)
        raise _Stop

    monkeypatch.setattr(betweenness, "coerce_input", reader)
    with pytest.raises(_Stop):
        FUNCS[func](table, source=0, target="b", weight=None, progress=False)
    assert seen == {"source": 0, "target": "b", "weight": None}


def test_column_roles_pick_the_sign_column_end_to_end():
    # the third column is not the sign: naming the roles must read "trust", by name or position
    df = pd.DataFrame({"u": [0, 1, 2, 3, 0], "v": [1, 2, 3, 0, 2], "time": [7, 8, 9, 10, 11],
                       "trust": [1, 1, -1, 1, -1]})
    ref = build_graph(df.u, df.v, sign=df.trust)
    cpu = {"backend": "cpu", "progress": False}
    want = rb.frustration(ref, 8, **cpu).index
    assert want == 1
    for roles in ({"source": "u", "target": "v", "sign": "trust"}, {"source": 0, "target": 1, "sign": 3}):
        assert rb.frustration(df, 8, **roles, **cpu).index == want
        got = rb.balance(df, 4, **roles, **cpu).vertices
        pd.testing.assert_frame_equal(got, rb.balance(ref, 4, **cpu).vertices)
        assert rb.imbalance(df, [0, 0, 1, 1], **roles).imbalance == rb.imbalance(ref, [0, 0, 1, 1]).imbalance
