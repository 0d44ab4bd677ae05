"""Stand-ins for cuDF, dask-cuDF and cuGraph, written from their 26.10 sources.

cuDF and cuGraph need a CUDA machine, so the device path is tested against
these modules.  Each behaviour the library relies on is written from the
RAPIDS source and cites it (file:line, at the commits named below; both
repositories' ``VERSION`` reads ``26.10.00``):

* cuDF      rapidsai/cudf     6a22d1d2f908ba046c76aa7895fc7b78e53d8023
* dask-cuDF rapidsai/cudf     (the same commit, ``python/dask_cudf``)
* cuGraph   rapidsai/cugraph  528ddde979df2243bf51c116d89a0ecdf85a39ee

A stand-in class offers only names the real class has:
``tests/data/rapids_26_10_public_api.json`` lists the public attributes of
each real class (extracted from the sources by ``tools/rapids_public_api.py``)
and ``tests/test_standins.py`` checks that nothing here lies outside it, so
a call the real class cannot answer (``Index.values_host``, removed in cuDF
26.08) fails here with ``AttributeError`` too.  The tests build and read
these objects through module functions (:func:`from_pandas`,
:func:`host_view`), never through methods the real classes lack.

The "device arrays" are ``array_api_strict`` arrays standing in for CuPy:
code that turned them into numpy would go through
``rapids_balance._xp.to_host`` (counted) or fail.  Every library call is
appended to :data:`CALLS` (``"cudf.Series.to_cupy"``, ...); every
``cudf.DataFrame(...)`` records in :data:`BUILT` what each column was built
from (``"device"``, ``"cudf"``, ``"host text"``, ``"host numbers"``,
``"pandas"``).
"""

from __future__ import annotations

import sys
import types

import array_api_strict as xps
import numpy as np
import pandas as pd

CALLS: list[str] = []
BUILT: list[dict[str, str]] = []

#: cuDF's string dtype (cudf python/cudf/cudf/utils/dtypes.py:24 DEFAULT_STRING_DTYPE)
STRING_DTYPE = pd.StringDtype(na_value=np.nan)

#: the fields libcudf's CSV reader reads as null by default (cudf cpp/src/io/csv/reader_impl.cu:1113-1130)
CSV_DEFAULT_NA = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                  "<NA>", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"]


def _record(name: str) -> None:
    CALLS.append(name)


def _device(a: np.ndarray):
    return xps.asarray(np.ascontiguousarray(a))


def _numpy(a) -> np.ndarray:
    # the stand-in's own moves between its host store and its "device"; the library never sees these
    return np.from_dlpack(a) if not isinstance(a, np.ndarray) else a


class MixedTypeError(TypeError):
    """cudf.errors.MixedTypeError (cudf python/cudf/cudf/errors.py:9)."""


def _column(values) -> tuple[np.ndarray, np.ndarray]:
    """(values, nulls) of one column built from ``values``, as ``cudf.core.column.as_column`` builds it.

    An object array must be text (or empty, boolean, decimal, or "mixed" that
    Arrow converts): ``infer_dtype`` "mixed-integer" raises, and so does an
    object array of numbers (cudf python/cudf/cudf/core/column/column.py:3496-3519);
    "mixed" goes through ``pa.array`` (column.py:3548-3552), which refuses
    what Arrow cannot convert.
    """
    if isinstance(values, Series):
        return values._values, values._nulls
    if isinstance(values, Index):
        return values._values, np.zeros(len(values._values), bool)
    if not isinstance(values, np.ndarray):
        values = _numpy(values)
    if values.dtype.kind == "O":
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        if inferred in ("mixed-integer", "mixed-integer-float"):
            raise MixedTypeError("Cannot create column with mixed types")
        if inferred not in ("mixed", "decimal", "string", "empty", "boolean"):
            raise MixedTypeError(f"Cannot convert a {inferred} of object type")
        if inferred == "mixed":
            import pyarrow as pa

            pa.array(values, from_pandas=True)  # raises ArrowInvalid / ArrowTypeError as cuDF lets it
        nulls = pd.isna(values)
        return values, np.asarray(nulls, bool)
    return values, np.zeros(values.shape[0], bool)


def _dtype_of(values: np.ndarray):
    return STRING_DTYPE if values.dtype.kind == "O" else values.dtype


# ---------------------------------------------------------------------------
# cuDF
# ---------------------------------------------------------------------------

class Index:
    """cudf.Index (cudf python/cudf/cudf/core/index.py:224, ``class Index(SingleColumnFrame)``)."""

    def __init__(self, data):
        self._values, _ = _column(data)

    def take(self, indices) -> "Index":
        # index.py:1646: the rows at ``indices``, a new Index
        _record("cudf.Index.take")
        return Index(self._values[_numpy(indices)])

    def to_numpy(self) -> np.ndarray:
        # frame.py:899-931: always a host copy; text comes back as Python str objects
        _record("cudf.Index.to_numpy")
        return self._values.copy()

    def __len__(self) -> int:
        return len(self._values)


class Series:
    """cudf.Series (cudf python/cudf/cudf/core/series.py): device values plus a null mask."""

    def __init__(self, data):
        self._values, self._nulls = _column(data)

    @property
    def dtype(self):
        # single_column_frame.py:140: the column's dtype; text is DEFAULT_STRING_DTYPE ("str")
        _record("cudf.Series.dtype")
        return _dtype_of(self._values)

    @property
    def has_nulls(self) -> bool:
        # series.py:1682-1684: a property
        _record("cudf.Series.has_nulls")
        return bool(self._nulls.any())

    def isna(self) -> "Series":
        # frame.py:1223: a boolean Series of the same length
        _record("cudf.Series.isna")
        return Series(self._nulls.copy())

    def to_cupy(self, dtype=None, copy: bool = False, na_value=None):
        # single_column_frame.py:148-178 -> frame.py:821-896: a CuPy array.  Text: string.py:454-460
        # raises TypeError.  Nulls with no na_value: numerical.py:150-170 turns an integer column into
        # float64 with NaN (booleans raise ValueError); no error for numbers.
        _record("cudf.Series.to_cupy")
        if self._values.dtype.kind == "O":
            raise TypeError(f"cupy does not support {STRING_DTYPE}")
        values = self._values
        if self._nulls.any():
            if na_value is not None:
                values = np.where(self._nulls, na_value, values).astype(values.dtype)
            elif values.dtype.kind == "b":
                raise ValueError(f"Column must have no nulls for dtype={values.dtype}")
            else:
                values = np.where(self._nulls, np.nan, values.astype(np.float64))
        return _device(values if dtype is None else values.astype(dtype))

    def factorize(self, sort: bool = False, use_na_sentinel: bool = True):
        # single_column_frame.py:318-362, column.py:2546-2564: (int64 CuPy codes, Index of uniques);
        # nulls get -1 and are not among the uniques
        _record("cudf.Series.factorize")
        keep = ~self._nulls if use_na_sentinel else np.ones(len(self._values), bool)
        uniques = pd.unique(self._values[keep])
        if sort:
            uniques = np.sort(uniques)
        codes = np.full(len(self._values), -1, np.int64)
        codes[keep] = pd.Index(uniques).get_indexer(self._values[keep])
        return _device(codes), Index(np.asarray(uniques, dtype=self._values.dtype))

    def __len__(self) -> int:
        return self._values.shape[0]


def _built_from(v) -> str:
    if isinstance(v, (Series, Index)):
        return "cudf"
    if isinstance(v, (pd.DataFrame, pd.Series, pd.Index)):
        return "pandas"
    if isinstance(v, np.ndarray):
        return "host text" if v.dtype.kind == "O" else "host numbers"
    return "device" if hasattr(v, "__array_namespace__") else type(v).__name__


class DataFrame:
    """cudf.DataFrame (cudf python/cudf/cudf/core/dataframe.py): named Series."""

    def __init__(self, data=None):
        # dataframe.py:1095: a dict of columns, each built by as_column (see _column)
        _record("cudf.DataFrame")
        data = {} if data is None else data
        BUILT.append({k: _built_from(v) for k, v in data.items()})
        self._cols = {k: Series(v) for k, v in data.items()}

    @property
    def columns(self) -> pd.Index:
        # dataframe.py:3250-3253: a pandas Index of the column names
        _record("cudf.DataFrame.columns")
        return pd.Index(list(self._cols), dtype=object)

    def __getitem__(self, key) -> Series:
        # dataframe.py:1592: a column name gives its Series; an unknown name raises KeyError
        _record("cudf.DataFrame.__getitem__")
        return self._cols[key]

    def __len__(self) -> int:
        return len(next(iter(self._cols.values()))) if self._cols else 0

    @property
    def attrs(self) -> dict:
        # indexed_frame.py:395-424: the frame's metadata dict, the very object (changed in
        # place); a new frame's is {} (indexed_frame.py:378-379)
        _record("cudf.DataFrame.attrs")
        return self.__dict__.setdefault("_attrs", {})


def _frame(columns: dict) -> DataFrame:
    """A stand-in frame made by a RAPIDS library itself (not a call of ours): not recorded."""
    out = DataFrame.__new__(DataFrame)
    out._cols = {k: v if isinstance(v, Series) else Series(v) for k, v in columns.items()}
    return out


def from_pandas(df: pd.DataFrame) -> DataFrame:
    """The tests' way in: a stand-in cuDF frame holding ``df``'s columns, nulls where pandas has NA."""
    cols = {}
    for k in df.columns:
        s = df[k]
        nulls = s.isna().to_numpy()
        np_dtype = getattr(s.dtype, "numpy_dtype", s.dtype)
        if isinstance(np_dtype, np.dtype) and np_dtype.kind in "iufb":
            fill = 0 if np_dtype.kind in "iub" else np.nan
            values = s.to_numpy(dtype=np_dtype, na_value=fill) if nulls.any() else s.to_numpy(dtype=np_dtype)
        else:
            values = s.to_numpy(dtype=object)
        col = Series(values)
        col._nulls = nulls
        cols[k] = col
    return _frame(cols)


def host_view(obj) -> pd.DataFrame:
    """The tests' view of a stand-in frame (cuDF or dask-cuDF) as pandas: not a call of the library's."""
    if isinstance(obj, DaskFrame):
        obj = obj._frame
    return pd.DataFrame({k: pd.Series(s._values).mask(s._nulls) if s._nulls.any() else s._values
                         for k, s in obj._cols.items()})


#: what the next ``read_csv`` raises instead of parsing (a test sets it: out of memory, an API change)
READ_CSV_RAISES: list[BaseException] = []


def read_csv(filepath_or_buffer, sep=",", delimiter=None, header="infer", names=None, skipinitialspace=False,
             na_values=None, keep_default_na=True, na_filter=True, skip_blank_lines=True, comment=None):
    """cudf.read_csv (cudf python/cudf/cudf/io/csv.py:48-82).

    * ``sep`` is the one delimiter character (csv.py:112-116, ``delimiter = str(delimiter)`` handed to
      libcudf as one char); there is no ``delim_whitespace``.
    * Given ``names``, each row's first ``len(names)`` fields are read; further fields are ignored
      without an error.
    * The fields in :data:`CSV_DEFAULT_NA` are nulls, in number and text columns alike
      (``keep_default_na``/``na_filter`` default True, csv.py:65-67; reader_impl.cu:1113-1137).
    """
    _record("cudf.read_csv")
    if READ_CSV_RAISES:
        raise READ_CSV_RAISES.pop()
    delimiter = sep if delimiter is None else delimiter
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(f"delimiter must be one character, got {delimiter!r}")
    na = (list(na_values or []) + (CSV_DEFAULT_NA if keep_default_na else [])) if na_filter else []
    frame = pd.read_csv(filepath_or_buffer, sep=delimiter, header=None if header == "infer" and names else
                        (0 if header == "infer" else header), names=names, comment=comment,
                        skip_blank_lines=skip_blank_lines, skipinitialspace=skipinitialspace,
                        keep_default_na=False, na_values=na, na_filter=na_filter,
                        usecols=None if names is None else list(range(len(names))))
    return from_pandas(frame)


def read_parquet(filepath_or_buffer) -> DataFrame:
    """cudf.read_parquet (cudf python/cudf/cudf/io/parquet.py:933)."""
    _record("cudf.read_parquet")
    return from_pandas(pd.read_parquet(filepath_or_buffer))


def concat(objs, axis=0, join="outer", ignore_index=False) -> Series:
    """cudf.concat (cudf python/cudf/cudf/core/reshape.py:174) of Series: one Series."""
    _record("cudf.concat")
    out = Series(np.concatenate([p._values for p in objs]))
    out._nulls = np.concatenate([p._nulls for p in objs])
    return out


# ---------------------------------------------------------------------------
# dask-cuDF
# ---------------------------------------------------------------------------

class DaskFrame:
    """dask_cudf.DataFrame (cudf python/dask_cudf/dask_cudf/_expr/collection.py): a lazy cuDF frame."""

    def __init__(self, frame: DataFrame, npartitions: int = 1):
        self._frame, self._npartitions, self._computed = frame, npartitions, 0

    @property
    def npartitions(self) -> int:
        return self._npartitions

    def compute(self) -> DataFrame:
        # dask's DataFrame.compute: the partitions, concatenated into one cuDF frame
        _record("dask_cudf.DataFrame.compute")
        self._computed += 1
        return self._frame


def from_cudf(data, npartitions=None, chunksize=None, sort=True, name=None) -> DaskFrame:
    """dask_cudf.from_cudf (cudf python/dask_cudf/dask_cudf/core.py:24-35)."""
    _record("dask_cudf.from_cudf")
    return DaskFrame(data, npartitions or 1)


def times_computed(frame: DaskFrame) -> int:
    """The tests' count of ``compute()`` calls on a stand-in dask-cuDF frame."""
    return frame._computed


# ---------------------------------------------------------------------------
# cuGraph
# ---------------------------------------------------------------------------

def _merge_edges(src: np.ndarray, dst: np.ndarray, w: np.ndarray | None, directed: bool):
    """The edges of cuGraph's graph as libcugraph stores them.

    * repeated (src, dst) rows: one is kept; for a symmetric (undirected) graph the smallest value
      (cugraph cpp/src/c_api/graph_sg.cpp:203-221, ``keep_min_value_edge`` when ``is_symmetric``),
      for a directed graph an arbitrary one (here the first);
    * undirected: ``symmetrize_edgelist`` (graph_sg.cpp:224-248) adds each pair's other direction, and
      a pair given both ways gets the average of its two values (cpp/src/structure/
      symmetrize_edgelist_impl.cuh:90-106, ``/ weight_t{2};  // average``).
    """
    vals = np.zeros(len(src)) if w is None else w
    frame = pd.DataFrame({"s": src, "d": dst, "w": vals})
    frame = (frame.groupby(["s", "d"], sort=True).min() if not directed
             else frame.groupby(["s", "d"], sort=True).first()).reset_index()
    if not directed:
        lower = frame[frame.s > frame.d].rename(columns={"s": "d", "d": "s"})
        upper = frame[frame.s <= frame.d]
        both = pd.concat([upper, lower]).groupby(["s", "d"], sort=True)["w"].mean().reset_index()
        loops = both[both.s == both.d]
        rest = both[both.s != both.d]
        mirrored = rest.rename(columns={"s": "d", "d": "s"})
        frame = pd.concat([loops, rest, mirrored]).sort_values(["s", "d"]).reset_index(drop=True)
    return (frame.s.to_numpy(src.dtype), frame.d.to_numpy(dst.dtype),
            None if w is None else frame.w.to_numpy(w.dtype))


class _Properties:
    # cugraph simpleGraph.py:79-89 (single-GPU) / simpleDistributedGraph.py:54-64 (multi-GPU)
    def __init__(self, directed: bool, multi_gpu: bool):
        self.directed = directed
        self.weighted = False
        if multi_gpu:
            self.renumber = False
        else:
            self.renumbered = False


class _EdgeList:
    # simpleGraph.py:42-67: columns "src", "dst" and "weights" (edgeWeightCol, simpleGraph.py:36)
    def __init__(self, frame: DataFrame, weights: bool):
        self.edgelist_df = frame
        self.weights = weights


class _SGImpl:
    """cugraph simpleGraphImpl (python/cugraph/cugraph/structure/graph_implementation/simpleGraph.py)."""

    def __init__(self, directed: bool):
        # simpleGraph.py:91-111
        self.edgelist = None
        self.input_df = None
        self.adjlist = None
        self.renumber_map = None
        self.properties = _Properties(directed, multi_gpu=False)
        self.source_columns = None
        self.destination_columns = None
        self.vertex_columns = None
        self.weight_column = None

    # -- building (simpleGraph.py:117-322) --------------------------------------------------------
    def _from_edgelist(self, input_df, source, destination, edge_attr, weight, edge_id, edge_type, renumber,
                       store_transposed, symmetrize, vertices):
        directed = self.properties.directed
        if directed and symmetrize:  # simpleGraph.py:131-140
            raise ValueError("The edgelist can only be symmetrized for undirected graphs.")
        if not directed and (symmetrize or symmetrize is None) and (
                edge_id is not None or edge_type is not None
                or (isinstance(edge_attr, list) and len(edge_attr) > 1)):  # simpleGraph.py:141-154
            raise ValueError("Edge list containing Edge Ids or Types can't be symmetrized. If the edges are "
                             "already symmetric, set the 'symmetrize' flag to False")
        s_col = source if isinstance(source, list) else [source]
        d_col = destination if isinstance(destination, list) else [destination]
        if isinstance(input_df, DaskFrame):  # simpleGraph.py:233-238: computed
            input_df = input_df._frame
        elif not isinstance(input_df, DataFrame):  # simpleGraph.py:239-240
            raise TypeError("input should be a cudf.DataFrame or a dask_cudf dataFrame")
        if not (set(s_col) <= set(input_df._cols) and set(d_col) <= set(input_df._cols)):
            raise ValueError("source column names and/or destination column names not found in input. "
                             "Recheck the source and destination parameters")  # simpleGraph.py:167-175
        self.vertex_columns = s_col + d_col
        if edge_attr is not None:  # simpleGraph.py:179-210
            if weight is not None or edge_id is not None or edge_type is not None:
                raise ValueError("If specifying edge_attr, cannot specify weight/edge_id/edge_type")
            if isinstance(edge_attr, str):
                weight, edge_attr = edge_attr, [edge_attr]
            if not set(edge_attr) <= set(input_df._cols):
                raise ValueError(f"edge_attr column {edge_attr} not found in input.Recheck the edge_attr "
                                 "parameter")
            self.properties.weighted = True
            if len(edge_attr) not in (1, 3):
                raise ValueError(f"Invalid number of edge attributes passed. {edge_attr}")
            if len(edge_attr) == 3:
                if not directed:
                    raise ValueError("User-provided edge ids and edge types are not permitted for an "
                                     "undirected graph.")
                weight, edge_id, edge_type = edge_attr
        else:
            edge_attr = [c for c in (weight, edge_id, edge_type) if c is not None]
            self.properties.weighted = weight is not None
        # simpleGraph.py:221-245: the input's columns, kept as given
        elist = _frame({c: input_df._cols[c] for c in self.vertex_columns + edge_attr})
        self.input_df = elist
        self.weight_column = weight
        self.source_columns = source
        self.destination_columns = destination
        if isinstance(source, list) and len(source) == 1:
            source, destination = source[0], destination[0]
        multi_column = isinstance(source, list)
        kinds = [elist._cols[c]._values.dtype for c in s_col + d_col]
        integer_ids = all(k in (np.int32, np.int64) for k in kinds)
        if renumber:
            # number_map.py:514-522: renumbered only for multi-column or non int32/int64 ids
            self.properties.renumbered = multi_column or not (
                elist._cols[s_col[0]]._values.dtype in (np.int32, np.int64))
        elif multi_column:  # simpleGraph.py:263-264
            raise ValueError("set renumber to True for multi column ids")
        elif not integer_ids:  # simpleGraph.py:265-275
            if any(k in (np.uint32, np.uint64) for k in kinds):
                raise ValueError("Unsigned integers are not supported as vertex ids.  Either convert to "
                                 "signed integers or set renumber=True")
            raise ValueError("set renumber to True for non integer columns ids")
        if multi_column:
            raise NotImplementedError("the stand-in does not model multi-column vertex ids")
        u, v = elist._cols[source]._values, elist._cols[destination]._values
        w = None if weight is None else elist._cols[weight]._values
        if w is not None:
            # simpleGraph.py:1358-1364: int32 weights become float32, int64 float64; libcugraph supports
            # float and double weights only (cpp/include/cugraph/graph_functions.hpp:1090)
            w = w.astype({np.dtype(np.int32): np.float32, np.dtype(np.int64): np.float64}.get(w.dtype, w.dtype))
            if w.dtype not in (np.float32, np.float64):
                raise TypeError(f"edge weights of dtype {w.dtype} are not supported (float32 or float64)")
        if self.properties.renumbered:
            # number_map.py:508-512: internal ids int64 when an int64 column is in the frame, else int32
            id_type = np.int64 if any(elist._cols[c]._values.dtype == np.int64 for c in elist._cols) else np.int32
            labels = pd.unique(np.concatenate([u, v]))
            self._external = labels
            lookup = pd.Index(labels)
            u, v = lookup.get_indexer(u).astype(id_type), lookup.get_indexer(v).astype(id_type)
        cols = {"src": u, "dst": v}
        if w is not None:
            cols["weights"] = w
        self.edgelist = _EdgeList(_frame(cols), w is not None)  # simpleGraph.py:297-299
        # simpleGraph.py:315-322 -> _make_plc_graph: drop multi-edges, symmetrize when undirected
        self._plc = _merge_edges(u, v, w, directed)

    def _from_adjlist(self, offset_col, index_col, value_col):
        # simpleGraph.py:577-600: no input edge list; symmetrized when undirected (symmetrize=None)
        self.adjlist = (offset_col, index_col, value_col)
        self.properties.weighted = value_col is not None
        off, ind = offset_col._values, index_col._values
        u = np.repeat(np.arange(len(off) - 1, dtype=ind.dtype), np.diff(off))
        w = None if value_col is None else value_col._values
        self._plc = _merge_edges(u, ind, w, self.properties.directed)

    # -- reading ----------------------------------------------------------------------------------
    def decompress_to_edgelist(self, return_unrenumbered_edgelist: bool = True) -> DataFrame:
        # simpleGraph.py:825-881: every stored edge (both directions of an undirected pair), columns
        # "src", "dst", "weight"; un-renumbered ids moved to the end (number_map.py:599-723)
        u, v, w = self._plc
        cols = {"src": u, "dst": v}
        if w is not None:
            cols["weight"] = w
        if self.properties.renumbered and return_unrenumbered_edgelist:
            for c in ("src", "dst"):
                cols[c] = self._external[cols.pop(c)]
        return _frame(cols)

    def view_edge_list(self) -> DataFrame:
        # simpleGraph.py:404-567
        src_col, dst_col = self.source_columns, self.destination_columns
        if isinstance(src_col, list) and len(src_col) == 1:
            src_col, dst_col = src_col[0], dst_col[0]
        integer_ids = self.input_df is not None and all(
            self.input_df._cols[c]._values.dtype in (np.int32, np.int64) for c in (src_col, dst_col))
        if integer_ids and self.properties.directed:
            frame = self.input_df  # simpleGraph.py:488-489: the input itself
        elif integer_ids:
            # simpleGraph.py:491-493, 504-517: the stored edges, upper triangle src <= dst
            full = self.decompress_to_edgelist()
            keep = full._cols["src"]._values <= full._cols["dst"]._values
            frame = _frame({k: s._values[keep] for k, s in full._cols.items()})
        elif self.properties.directed:
            frame = self.decompress_to_edgelist()  # simpleGraph.py:491-498
        else:
            # simpleGraph.py:519-542: upper triangle of the renumbered ids, then un-renumbered
            full = self.decompress_to_edgelist(return_unrenumbered_edgelist=False)
            keep = full._cols["src"]._values <= full._cols["dst"]._values
            cols = {k: s._values[keep] for k, s in full._cols.items()}
            if self.properties.renumbered:
                for c in ("src", "dst"):
                    cols[c] = self._external[cols.pop(c)]
            frame = _frame(cols)
        if src_col is None:  # simpleGraph.py:500-502
            src_col, dst_col = "src", "dst"
        # simpleGraph.py:544-555: "src"/"dst" renamed to the user's names; 562-565: "weights" renamed to
        # weight_column (the stored edges' value column is "weight", so it keeps that name)
        if frame is self.input_df:
            return frame
        names = {"src": src_col, "dst": dst_col}
        return _frame({names.get(k, k): s for k, s in frame._cols.items()})

    def view_adj_list(self):
        # simpleGraph.py:605-646 -> graph_primtypes_wrapper.pyx:40-52: the CSR of the stored input edge
        # list as given (not symmetrized), ids cast to int32, weights float32 unless float32/float64
        df = self.edgelist.edgelist_df._cols
        u, v = df["src"]._values.astype(np.int32), df["dst"]._values.astype(np.int32)
        w = None
        if "weights" in df:
            w = df["weights"]._values
            w = w if w.dtype in (np.float32, np.float64) else w.astype(np.float32)
        order = np.lexsort((v, u))
        n = int(max(u.max(), v.max())) + 1
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum(np.bincount(u, minlength=n), out=offsets[1:])
        return Series(offsets), Series(v[order]), None if w is None else Series(w[order])


class _MGImpl:
    """cugraph simpleDistributedGraphImpl (graph_implementation/simpleDistributedGraph.py)."""

    def __init__(self, directed: bool):
        # simpleDistributedGraph.py:66-78
        self.edgelist = None
        self.renumber_map = None
        self.properties = _Properties(directed, multi_gpu=True)
        self.source_columns = None
        self.destination_columns = None
        self.weight_column = None
        self.vertex_columns = None

    def _from_edgelist(self, input_ddf, source, destination, edge_attr, weight, renumber):
        # simpleDistributedGraph.py:156-330
        if not isinstance(input_ddf, DaskFrame):
            raise TypeError("input should be a dask_cudf dataFrame")
        frame = input_ddf._frame
        if isinstance(edge_attr, str):
            weight = edge_attr
        cols = {source: frame._cols[source], destination: frame._cols[destination]}
        if weight is not None:  # simpleDistributedGraph.py:250-252, 279-281: renamed to "value"
            cols["value"] = frame._cols[weight]
            self.properties.weighted = True
        self.input_df = DaskFrame(_frame(cols), input_ddf.npartitions)  # simpleDistributedGraph.py:312
        self.source_columns = source
        self.destination_columns = destination
        self.weight_column = weight
        self.vertex_columns = [source, destination]

    @property
    def renumbered(self) -> bool:
        # simpleDistributedGraph.py:397-410
        return False


class Graph:
    """cugraph.Graph (cugraph python/cugraph/cugraph/structure/graph_classes.py:30)."""

    def __init__(self, m_graph=None, directed=False):
        # graph_classes.py:54-56
        self._Impl = None
        self._directed = directed

    def __getattr__(self, name):
        # graph_classes.py:82-98: attributes of the implementation, then of its properties
        if name == "_Impl":
            raise AttributeError(name)
        if hasattr(self._Impl, name):
            _record(f"cugraph.Graph.{name}")
            return getattr(self._Impl, name)
        if hasattr(getattr(self._Impl, "properties", None), name):
            _record(f"cugraph.Graph.{name}")
            return getattr(self._Impl.properties, name)
        raise AttributeError(name)

    def from_cudf_edgelist(self, input_df, source="source", destination="destination", edge_attr=None,
                           weight=None, edge_id=None, edge_type=None, renumber=True, store_transposed=False,
                           symmetrize=None, vertices=None):
        # graph_classes.py:103-212
        if self._Impl is None:
            self._Impl = _SGImpl(self._directed)
        elif not isinstance(self._Impl, _SGImpl):
            raise RuntimeError("Graph is already initialized")
        elif self._Impl.edgelist is not None or self._Impl.adjlist is not None:
            raise RuntimeError("Graph already has values")
        self._Impl._from_edgelist(input_df, source, destination, edge_attr, weight, edge_id, edge_type,
                                  renumber, store_transposed, symmetrize, vertices)

    def from_cudf_adjlist(self, offset_col, index_col, value_col=None, renumber=True, store_transposed=False,
                          symmetrize=None):
        # graph_classes.py:214-293
        if self._Impl is None:
            self._Impl = _SGImpl(self._directed)
        elif self._Impl.edgelist is not None or self._Impl.adjlist is not None:
            raise RuntimeError("Graph already has values")
        self._Impl._from_adjlist(offset_col, index_col, value_col)

    def from_dask_cudf_edgelist(self, input_ddf, source="source", destination="destination", edge_attr=None,
                                weight=None, edge_id=None, edge_type=None, renumber=True,
                                store_transposed=False):
        # graph_classes.py:295-370
        if self._Impl is None:
            self._Impl = _MGImpl(self._directed)
        elif not isinstance(self._Impl, _MGImpl):
            raise RuntimeError("Graph is already initialized")
        self._Impl._from_edgelist(input_ddf, source, destination, edge_attr, weight, renumber)

    def is_directed(self) -> bool:
        # graph_classes.py:694-699
        _record("cugraph.Graph.is_directed")
        return self._directed

    def is_renumbered(self) -> bool:
        # graph_classes.py:701-705
        _record("cugraph.Graph.is_renumbered")
        return self._Impl.properties.renumbered

    def is_weighted(self) -> bool:
        # graph_classes.py:707-711
        _record("cugraph.Graph.is_weighted")
        return self._Impl.properties.weighted

    def is_multi_gpu(self) -> bool:
        # graph_classes.py:725-730
        _record("cugraph.Graph.is_multi_gpu")
        return isinstance(self._Impl, _MGImpl)


def modules() -> dict[str, types.ModuleType]:
    """Fresh ``cudf`` / ``dask_cudf`` / ``cugraph`` module objects (install them in sys.modules)."""
    cudf = types.ModuleType("cudf")
    for name in ("DataFrame", "Series", "Index", "read_csv", "read_parquet", "concat"):
        setattr(cudf, name, globals()[name])
    dask_cudf = types.ModuleType("dask_cudf")
    dask_cudf.DataFrame, dask_cudf.from_cudf = DaskFrame, from_cudf
    cugraph = types.ModuleType("cugraph")
    cugraph.Graph = Graph
    return {"cudf": cudf, "dask_cudf": dask_cudf, "cugraph": cugraph}


# the library recognises these objects by the module their type comes from
for _cls, _mod in ((Index, "cudf.core.index"), (Series, "cudf.core.series"), (DataFrame, "cudf.core.dataframe"),
                   (DaskFrame, "dask_cudf._expr.collection"), (Graph, "cugraph.structure.graph_classes")):
    _cls.__module__ = _mod


def device_namespace():
    """The namespace of the stand-in device arrays (what CuPy's is on a GPU)."""
    import array_api_compat

    return array_api_compat.array_namespace(xps.asarray(0))


class OutOfMemoryError(MemoryError):
    """cupy.cuda.memory.OutOfMemoryError (cupy/cupy cupy/cuda/memory.pyx:55-81, 15.0.0a1 at 6b6d956):
    a ``MemoryError`` that CuPy's memory pools raise when an allocation fails (memory.pyx:1479,
    1528, 1560, 1875, 1900), after freeing their cached blocks and trying again."""

    def __init__(self, size, total, limit=0):
        self._size, self._total, self._limit = size, total, limit
        msg = "Out of memory allocating {:,} bytes".format(size)  # memory.pyx:69-72
        if total != -1:
            msg += " (allocated so far: {:,} bytes).".format(total)
        super().__init__(msg)


OutOfMemoryError.__module__ = "cupy.cuda.memory"


class SmallDevice:
    """The stand-in device's namespace on a device with ``free`` bytes of memory.

    An array a namespace function returns (``asarray``, ``nonzero``,
    ``cumulative_sum``, ``astype``, ``concat``, ...) that is larger than
    ``free`` raises :class:`OutOfMemoryError`, as CuPy's pool does for an
    allocation it cannot serve; the sizes refused are kept in ``refused``
    and the largest array served in ``largest``.  Arrays made by operators
    (``b == 10``, ``~mask``) are not counted: each is no larger than the
    chunk the namespace moved to the device.
    """

    def __init__(self, free: int):
        self._xp, self.free, self.refused, self.largest = device_namespace(), free, [], 0

    def _allocate(self, out):
        for a in out if isinstance(out, tuple) else (out,):
            if isinstance(a, type(xps.asarray(0))):
                size = _numpy(a).nbytes
                if size > self.free:
                    self.refused.append(size)
                    raise OutOfMemoryError(size, -1)
                self.largest = max(self.largest, size)
        return out

    def __getattr__(self, name):
        attr = getattr(self._xp, name)
        if not callable(attr) or isinstance(attr, type):
            return attr
        return lambda *args, **kwargs: self._allocate(attr(*args, **kwargs))


def small_device(monkeypatch, free: int) -> SmallDevice:
    """Make the device namespace the library asks for (CuPy's) a :class:`SmallDevice` of ``free`` bytes."""
    from rapids_balance import _output

    device = SmallDevice(free)
    monkeypatch.setattr(_output, "_cupy_namespace", lambda: device)
    return device


def install(monkeypatch) -> dict[str, types.ModuleType]:
    """Put the stand-ins in ``sys.modules`` for one test; clears :data:`CALLS` and :data:`BUILT`.

    Result tables of a cuDF input read into a host graph put their columns
    in CuPy's namespace: here the stand-in device's.
    """
    from rapids_balance import _output

    mods = modules()
    for name, mod in mods.items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.setattr(_output, "_cupy_namespace", device_namespace)
    CALLS.clear()
    BUILT.clear()
    READ_CSV_RAISES.clear()
    return mods


def cugraph_graph(df: pd.DataFrame, source: str, destination: str, edge_attr: str | None = None, *,
                  directed: bool = False, renumber: bool = True) -> Graph:
    """A stand-in cuGraph graph built as a user builds one: ``Graph(directed=...)`` then
    ``from_cudf_edgelist`` on a cuDF frame (the calls are the user's, so they are not recorded)."""
    G = Graph(directed=directed)
    G.from_cudf_edgelist(from_pandas(df), source=source, destination=destination, edge_attr=edge_attr,
                         renumber=renumber)
    CALLS.clear()
    return G


__all__ = ["CALLS", "BUILT", "install", "device_namespace", "OutOfMemoryError", "SmallDevice", "small_device", "from_pandas", "host_view", "times_computed",
           "cugraph_graph", "DataFrame", "Series", "Index", "DaskFrame", "Graph", "MixedTypeError"]
