"""Result tables follow the caller's flavour: pandas, cuDF in -> cuDF out, dask on request."""

import sys
import types

import pandas as pd
import pytest

import rapids_balance as rb
from rapids_balance._output import frames_like_input


def test_balance_as_dask_gives_the_same_edge_table():
    g = rb.load_example("highland")
    plain = rb.balance(g, 30, progress=False)
    lazy = rb.balance(g, 30, progress=False, as_dask=True)
    pytest.importorskip("dask.dataframe")
    assert type(lazy.edges).__module__.startswith("dask")
    pd.testing.assert_frame_equal(lazy.edges.compute().reset_index(drop=True), plain.edges)
    pd.testing.assert_frame_equal(lazy.vertices, plain.vertices)


def test_wrapper_hands_back_the_table_it_was_given(monkeypatch):
    # Tables are built in the input's flavour by make_table; the wrapper must not
    # convert them again (no pandas round trip, no cudf.from_pandas).
    fake = types.ModuleType("cudf")
    fake.from_pandas = lambda df: pytest.fail("from_pandas was called")
    monkeypatch.setitem(sys.modules, "cudf", fake)

    class FakeCudfFrame(pd.DataFrame):
        pass

    FakeCudfFrame.__module__ = "cudf.core.dataframe"
    table = FakeCudfFrame({"vertex": [1, 2], "x": [0.5, 0.25]})

    @frames_like_input()
    def algo(graph):
        return table if type(graph) is FakeCudfFrame else pd.DataFrame({"vertex": [1], "x": [1.0]})

    assert algo(FakeCudfFrame({"src": [1], "dst": [2]})) is table
    assert type(algo(pd.DataFrame({"src": [1], "dst": [2]}))) is pd.DataFrame


def test_as_dask_is_in_every_public_signature_and_docstring():
    import inspect

    for fn in (rb.balance, rb.frustration, rb.betweenness_centrality,
               rb.edge_betweenness_centrality, rb.correlation_clustering):
        p = inspect.signature(fn).parameters["as_dask"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is False
        doc = fn.__doc__
        # documented inside Parameters, i.e. before the Returns section
        assert -1 < doc.index("as_dask : bool") < doc.index("Returns\n")


class _Untouchable:
    """A graph input that fails the test if any work reads it."""

    def __getattr__(self, name):
        raise AssertionError(f"work started: graph.{name} was read")


def test_as_dask_is_refused_where_there_is_no_edge_table():
    g = rb.load_example("highland")
    with pytest.raises(ValueError, match="as_dask"):
        rb.correlation_clustering(g, method="vnd", progress=False, as_dask=True)
    # before any work: the graph is never looked at
    with pytest.raises(rb.InvalidParameterError, match="'as_dask' parameter of correlation_clustering"):
        rb.correlation_clustering(_Untouchable(), as_dask=True)


@pytest.mark.parametrize("fn", ["balance", "betweenness_centrality", "frustration"])
def test_as_dask_must_be_a_bool_before_any_work(fn):
    with pytest.raises(rb.InvalidParameterError, match=f"'as_dask' parameter of {fn}"):
        getattr(rb, fn)(_Untouchable(), as_dask="yes")


def test_make_table_flavours(monkeypatch):
    """numpy columns -> pandas; device columns -> cuDF; device columns without cuDF -> pandas, counted copies."""
    import array_api_strict as xps
    import numpy as np

    import _standins as standins
    from rapids_balance import _xp
    from rapids_balance._output import make_table

    cols = {"vertex": np.array([3, 7]), "x": np.array([0.5, 0.25])}
    assert isinstance(make_table(cols), pd.DataFrame)
    device = {"vertex": xps.asarray(cols["vertex"]), "x": xps.asarray(cols["x"])}
    monkeypatch.setitem(sys.modules, "cudf", None)  # cuDF not installed
    _xp.host_copies.clear()
    host = make_table(device)
    pd.testing.assert_frame_equal(host, pd.DataFrame(cols))
    assert _xp.host_copies == [2, 2]
    standins.install(monkeypatch)
    out = make_table(device)
    assert isinstance(out, standins.DataFrame) and "cudf.DataFrame" in standins.CALLS
    assert isinstance(make_table(cols, like=out), standins.DataFrame)  # a cuDF input asks for cuDF


def test_cudf_table_of_labels_cudf_cannot_hold_is_a_clear_error(monkeypatch):
    """cuDF builds an object column as text only (the stand-in refuses as cudf column.py:3496-3519
    does): labels mixing integers and text get an error saying what to do, not cuDF's."""
    import numpy as np

    import _standins as standins
    from rapids_balance._output import make_table

    standins.install(monkeypatch)
    mixed = np.array([1, "1"], dtype=object)
    with pytest.raises(rb.GraphInputError, match=r"'mixed-integer'.*astype\(str\)"):
        make_table({"vertex": mixed, "x": np.array([0.5, 1.0])}, like=standins.DataFrame({}))
    with pytest.raises(TypeError, match="mixed types"):
        standins.DataFrame({"vertex": mixed})  # what cuDF itself would have said
    assert isinstance(make_table({"vertex": np.array(["a", "b"], dtype=object)}, like=standins.DataFrame({})),
                      standins.DataFrame)
