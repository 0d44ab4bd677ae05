"""The stand-ins offer nothing the real RAPIDS 26.10 classes lack, and behave as their sources say.

``tests/data/rapids_26_10_public_api.json`` holds the public attributes of
each real class, extracted from the cuDF and cuGraph sources (commits and
versions recorded in the file) by ``tools/rapids_public_api.py``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import _standins as standins

API = json.loads((Path(__file__).parent / "data" / "rapids_26_10_public_api.json").read_text())


def _real(name: str) -> set[str]:
    return set(API["classes"][name]["public"])


def _public(obj) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def test_the_public_api_file_is_the_26_10_line():
    assert API["cudf"]["version"] == "26.10.00" and API["cugraph"]["version"] == "26.10.00"


@pytest.mark.parametrize("cls, real", [(standins.DataFrame, "cudf.DataFrame"), (standins.Series, "cudf.Series"),
                                       (standins.Index, "cudf.Index")])
def test_cudf_standins_offer_only_real_attributes(cls, real):
    assert _public(cls) <= _real(real), _public(cls) - _real(real)


def _graph_surface(G) -> set[str]:
    """Everything ``G.<name>`` answers: the class, then what ``__getattr__`` forwards
    (cugraph graph_classes.py:82-98: the implementation, then its properties)."""
    return _public(type(G)) | _public(G._Impl) | _public(G._Impl.properties)


def test_cugraph_standin_offers_only_real_attributes():
    G = standins.cugraph_graph(pd.DataFrame({"s": [0, 1], "d": [1, 2], "w": [1.0, -1.0]}), "s", "d", "w")
    assert _graph_surface(G) <= _real("cugraph.Graph (single-GPU)"), \
        _graph_surface(G) - _real("cugraph.Graph (single-GPU)")
    M = standins.Graph()
    M.from_dask_cudf_edgelist(standins.DaskFrame(standins.from_pandas(pd.DataFrame({"s": [0], "d": [1]}))),
                              source="s", destination="d")
    assert _graph_surface(M) <= _real("cugraph.Graph (multi-GPU)"), \
        _graph_surface(M) - _real("cugraph.Graph (multi-GPU)")
    with pytest.raises(AttributeError):
        M.view_adj_list  # a multi-GPU graph has no CSR view


def test_dask_cudf_standin_offers_only_real_attributes():
    # dask_cudf.DataFrame is dask's DataFrame over cuDF partitions (cudf python/dask_cudf/dask_cudf/
    # _expr/collection.py); its public surface is dask's
    dd = pytest.importorskip("dask.dataframe")
    assert _public(standins.DaskFrame) <= _public(dd.DataFrame)


def test_calls_removed_from_26_10_are_absent():
    assert "values_host" not in _real("cudf.Index") and "values_host" not in _real("cudf.Series")
    with pytest.raises(AttributeError):
        standins.Index(np.array(["a", "b"], dtype=object)).values_host


def test_text_column_has_the_string_dtype_and_no_cupy_form():
    s = standins.from_pandas(pd.DataFrame({"a": ["x", "y"]}))["a"]
    assert s.dtype == standins.STRING_DTYPE and s.dtype.kind == "O"
    with pytest.raises(TypeError):
        s.to_cupy()


def test_to_cupy_turns_nulls_of_an_integer_column_into_nan():
    """cudf numerical.py:150-170: no error, a float64 column with NaN (the library checks nulls first)."""
    s = standins.from_pandas(pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64")}))["a"]
    out = np.from_dlpack(s.to_cupy())
    assert out.dtype == np.float64 and np.isnan(out[1])


def test_factorize_gives_int64_codes_and_an_index():
    s = standins.from_pandas(pd.DataFrame({"a": ["b", "a", "b"]}))["a"]
    codes, uniques = s.factorize(sort=True)
    assert np.from_dlpack(codes).dtype == np.int64 and np.from_dlpack(codes).tolist() == [1, 0, 1]
    assert isinstance(uniques, standins.Index) and uniques.to_numpy().tolist() == ["a", "b"]


def test_dataframe_refuses_object_columns_arrow_cannot_hold():
    """cudf column.py:3496-3519: mixed ints and text, or numbers of object dtype, are refused."""
    with pytest.raises(TypeError, match="mixed types"):
        standins.DataFrame({"v": np.array([1, "1"], dtype=object)})
    with pytest.raises(TypeError, match="integer of object type"):
        standins.DataFrame({"v": np.array([2**70, 3], dtype=object)})
    standins.DataFrame({"v": np.array(["a", "b"], dtype=object)})


def test_read_csv_reads_na_spellings_as_nulls():
    frame = standins.read_csv(io.BytesIO(b"1,NA,x\n2,nan,NULL\n3,4,y\n"), header=None, names=["a", "b", "c"])
    assert frame["b"].has_nulls and frame["c"].has_nulls and not frame["a"].has_nulls
    with pytest.raises(ValueError):
        standins.read_csv(io.BytesIO(b"1 2\n"), sep="  ")


EDGES = pd.DataFrame({"s": np.array([5, 2, 1, 2, 1], np.int64), "d": np.array([2, 5, 2, 1, 2], np.int64),
                      "w": np.array([1, 1, 1, -1, 3], np.int64)})


def test_cugraph_merges_duplicates_and_averages_both_directions():
    """graph_sg.cpp:203-221 keeps the smaller of repeated rows; symmetrize_edgelist_impl.cuh:94-97
    averages a pair given both ways: (1, 2) rows 1, 3 -> 1; with (2, 1, -1) -> 0."""
    G = standins.cugraph_graph(EDGES, "s", "d", "w")
    view = standins.host_view(G.view_edge_list())
    assert list(view.columns) == ["s", "d", "weight"]  # the value column is "weight", not "w"
    assert view.values.tolist() == [[1, 2, 0.0], [2, 5, 1.0]]  # the upper triangle, each pair once
    assert view["weight"].dtype == np.float64  # int64 weights become float64 (simpleGraph.py:1363-1364)


def test_cugraph_reports_integer_ids_as_not_renumbered():
    """number_map.py:514-522: int32/int64 ids are never renumbered in Python, whatever ``renumber``."""
    G = standins.cugraph_graph(EDGES, "s", "d", "w", renumber=True)
    assert G.renumbered is False and G.is_renumbered() is False
    T = standins.cugraph_graph(EDGES.astype({"s": str, "d": str}), "s", "d", "w")
    assert T.renumbered is True


def test_cugraph_csr_is_the_input_as_given_in_int32():
    """graph_primtypes_wrapper.pyx:40-52: the stored edges unsymmetrised, ids cast to int32, weights
    float32 unless they are float32/float64."""
    G = standins.cugraph_graph(EDGES, "s", "d", "w", renumber=False)
    offsets, indices, weights = G.view_adj_list()
    assert offsets._values.dtype == np.int32 and indices._values.dtype == np.int32
    assert weights._values.dtype == np.float64  # int64 weights were float64 by then
    assert len(indices) == len(EDGES)  # not symmetrised: (2, 5) and (5, 2) are the rows as given
    big = standins.cugraph_graph(pd.DataFrame({"s": np.array([2**31 + 1], np.int64), "d": np.array([0])}),
                                 "s", "d", renumber=False)
    assert big.edgelist.edgelist_df["src"]._values.astype(np.int32)[0] < 0  # what the int32 cast does


def test_cugraph_refuses_what_it_refuses():
    with pytest.raises(ValueError, match="non integer"):
        standins.cugraph_graph(EDGES.astype({"s": str, "d": str}), "s", "d", renumber=False)
    with pytest.raises(ValueError, match="not found"):
        standins.cugraph_graph(EDGES, "x", "d")
    with pytest.raises(ValueError, match="Unsigned"):
        standins.cugraph_graph(EDGES.astype({"s": np.uint64, "d": np.uint64}), "s", "d", renumber=False)
