"""balance(): the edge fractions and the vertex status written over their counters give the same
tables, and the same counters back, as tables built beside the counters."""

import pickle

import numpy as np
import pytest

from rapids_balance.balancing import _engine, _result, balance
from rapids_balance.generators import powerlaw_signed_graph


@pytest.fixture(scope="module")
def graph():
    return powerlaw_signed_graph(1500, seed=9)


@pytest.mark.parametrize("attributes", ["consensus", "datalab"])
def test_tables_and_counters_equal_those_built_beside_the_counters(graph, monkeypatch, attributes):
    got = balance(graph, n_trees=37, seed=3, attributes=attributes, progress=False, backend="cpu")
    assert isinstance(got.counters, _result.TableCounters)
    real = _result.compute_attributes
    monkeypatch.setattr(_engine, "compute_attributes",
                        lambda g, c, a, consume=False: real(g, c, a, consume=False))
    want = balance(graph, n_trees=37, seed=3, attributes=attributes, progress=False, backend="cpu")
    assert type(want.counters) is dict
    for table in ("vertices", "edges"):
        a, b = getattr(got, table), getattr(want, table)
        assert list(a.columns) == list(b.columns)
        for col in a.columns:
            assert a[col].dtype == b[col].dtype, col
            assert np.array_equal(a[col].to_numpy(), b[col].to_numpy()), (table, col)
    assert list(got.counters) == list(want.counters)
    for k, v in want.counters.items():
        assert got.counters[k].dtype == v.dtype and np.array_equal(got.counters[k], v), k
    assert got.frustration_mean == want.frustration_mean
    assert got.graphbplus_text() == want.graphbplus_text()


def test_counters_do_not_follow_edits_of_the_table_and_pickle_as_a_dict(graph):
    res = balance(graph, n_trees=10, seed=1, progress=False, backend="cpu")
    res.edges.loc[0, "in_tree"] = 123.0
    res.edges["negative"] *= 0
    res.vertices["status"] *= 0
    assert int(res.counters["in_tree"][0]) <= 10
    assert res.counters["negative"].any()
    assert res.counters["status2"].any() and res.counters["status2"].dtype == np.int64
    copy = pickle.loads(pickle.dumps(res.counters))
    assert type(copy) is dict and copy.keys() == res.counters.keys()
    assert all(np.array_equal(copy[k], res.counters[k]) for k in copy)
