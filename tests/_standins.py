"""Stand-ins for cuDF, dask-cuDF and cuGraph: exactly the calls the library makes, on a fake device.

cuDF and cuGraph need a CUDA machine (their wheels are over a gigabyte), so
the device path is tested against these modules.  Their "device arrays" are
``array_api_strict`` arrays standing in for CuPy: code that turned them into
numpy would go through ``rapids_balance._xp.to_host`` (counted) or fail, so a
test passing here shows the data did not make a numpy round trip.

Each stand-in class implements only the methods named in
``rapids_balance.io._device.DEVICE_CALLS``; every call is appended to
:data:`CALLS` (``"cudf.Series.to_cupy"``, ...), so a test can compare the
calls made with the documented list.  Helpers whose names start with
``host_`` are the tests' own views of the data and are not recorded.

Every ``cudf.DataFrame(...)`` also records in :data:`BUILT` what each of its
columns was built from (``"device"``: an ``array_api_strict`` array;
``"cudf"``: a stand-in column; ``"host text"``: text, which CuPy cannot
hold; ``"host numbers"`` or ``"pandas"``: what a result table must not be
built from), so a test can check that result tables come from device
columns with no pandas object in between.  There is no ``from_pandas``.
"""

from __future__ import annotations

import sys
import types

import array_api_strict as xps
import numpy as np
import pandas as pd

CALLS: list[str] = []
BUILT: list[dict[str, str]] = []


def _record(name: str) -> None:
    CALLS.append(name)


def _device(a: np.ndarray):
    return xps.asarray(np.ascontiguousarray(a))


def _numpy(a) -> np.ndarray:
    # the stand-in's own device-to-"device" moves; the library never sees these
    return np.from_dlpack(a) if not isinstance(a, np.ndarray) else a


class Index:
    """cudf.Index of labels (text or numbers)."""

    def __init__(self, values: np.ndarray):
        self._values = np.asarray(values)

    def take(self, ids) -> "Index":
        _record("cudf.Index.take")
        return Index(self._values[_numpy(ids)])

    @property
    def values_host(self) -> np.ndarray:
        _record("cudf.Index.values_host")
        return self._values.copy()

    def __len__(self) -> int:
        return len(self._values)


class Series:
    """cudf.Series: a host array plus a null mask, handed out as array_api_strict arrays."""

    def __init__(self, values, nulls: np.ndarray | None = None):
        if isinstance(values, Index):
            values = values._values
        elif not isinstance(values, np.ndarray):
            values = _numpy(values)
        self._values = values
        self._nulls = np.zeros(values.shape[0], bool) if nulls is None else nulls

    @classmethod
    def host_from_pandas(cls, s: pd.Series) -> "Series":
        nulls = s.isna().to_numpy()
        if s.dtype.kind in "iufb" or isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and \
                getattr(s.dtype, "numpy_dtype", np.dtype(object)).kind in "iufb":
            np_dtype = getattr(s.dtype, "numpy_dtype", s.dtype)
            fill = 0 if np_dtype.kind in "iub" else np.nan
            values = s.to_numpy(dtype=np_dtype, na_value=fill) if nulls.any() else s.to_numpy(dtype=np_dtype)
        else:
            values = s.to_numpy(dtype=object)
        return cls(values, nulls)

    @property
    def dtype(self):
        _record("cudf.Series.dtype")
        return self._values.dtype

    @property
    def has_nulls(self) -> bool:
        _record("cudf.Series.has_nulls")
        return bool(self._nulls.any())

    def isna(self) -> "Series":
        _record("cudf.Series.isna")
        return Series(self._nulls.copy())

    def to_cupy(self):
        _record("cudf.Series.to_cupy")
        if self._nulls.any():
            raise ValueError("Column must have no nulls.")
        if self._values.dtype.kind == "O":
            raise TypeError("text columns have no CuPy form")
        return _device(self._values)

    def factorize(self, sort: bool = False):
        _record("cudf.Series.factorize")
        codes, uniques = pd.factorize(self._values, sort=sort)
        return _device(codes.astype(np.int64)), Index(np.asarray(uniques, dtype=self._values.dtype))

    def host_values(self) -> np.ndarray:
        return self._values

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
    """cudf.DataFrame: named Series."""

    def __init__(self, data: dict):
        _record("cudf.DataFrame")
        BUILT.append({k: _built_from(v) for k, v in data.items()})
        self._cols = {k: v if isinstance(v, Series) else Series(v) for k, v in data.items()}

    @classmethod
    def host_from_pandas(cls, df: pd.DataFrame) -> "DataFrame":
        out = cls.__new__(cls)
        out._cols = {k: Series.host_from_pandas(df[k]) for k in df.columns}
        return out

    @property
    def columns(self) -> list:
        _record("cudf.DataFrame.columns")
        return list(self._cols)

    def __getitem__(self, key) -> Series:
        _record("cudf.DataFrame.__getitem__")
        return self._cols[key]

    def __len__(self) -> int:
        return len(next(iter(self._cols.values()))) if self._cols else 0

    def host_to_pandas(self) -> pd.DataFrame:
        return pd.DataFrame({k: s.host_values() for k, s in self._cols.items()})


#: what the next ``read_csv`` raises instead of parsing (a test sets it: out of memory, an API change)
READ_CSV_RAISES: list[BaseException] = []


def read_csv(buffer, *, header=None, names=None, comment=None, skip_blank_lines=True, sep=",",
             skipinitialspace=False) -> DataFrame:
    """As cuDF reads: given ``names``, the first ``len(names)`` fields of each row, further fields
    ignored without an error (libcudf's row parser stops at the last named column).  ``sep`` is one
    character, as cuDF's (no ``delim_whitespace``: deprecated there, so not offered here)."""
    _record("cudf.read_csv")
    if READ_CSV_RAISES:
        raise READ_CSV_RAISES.pop()
    if not isinstance(sep, str) or len(sep) != 1:
        raise ValueError(f"sep must be one character, got {sep!r}")
    frame = pd.read_csv(buffer, sep=sep, header=header, names=names,
                        comment=comment, skip_blank_lines=skip_blank_lines, skipinitialspace=skipinitialspace,
                        keep_default_na=False, na_values=[""],
                        usecols=None if names is None else list(range(len(names))))
    return DataFrame.host_from_pandas(frame)


def read_parquet(buffer) -> DataFrame:
    _record("cudf.read_parquet")
    return DataFrame.host_from_pandas(pd.read_parquet(buffer))


def concat(parts, ignore_index: bool = False) -> Series:
    _record("cudf.concat")
    return Series(np.concatenate([p._values for p in parts]), np.concatenate([p._nulls for p in parts]))


# ---------------------------------------------------------------------------
# dask-cuDF
# ---------------------------------------------------------------------------

class DaskFrame:
    """dask_cudf.DataFrame: a cuDF frame behind ``compute()``; counts how often it is computed."""

    def __init__(self, frame: DataFrame, npartitions: int = 1):
        self._frame, self.npartitions, self.host_computed = frame, npartitions, 0

    def compute(self) -> DataFrame:
        _record("dask_cudf.DataFrame.compute")
        self.host_computed += 1
        return self._frame


def from_cudf(frame: DataFrame, npartitions: int = 1, sort: bool = True) -> DaskFrame:
    _record("dask_cudf.from_cudf")
    return DaskFrame(frame, npartitions)


# ---------------------------------------------------------------------------
# cuGraph
# ---------------------------------------------------------------------------

class Graph:
    """cugraph.Graph built from an edge list (``host_from_edges``), symmetrised when undirected."""

    def __init__(self, directed: bool = False):
        self._directed = directed

    @classmethod
    def host_from_edges(cls, df: pd.DataFrame, source: str, destination: str, edge_attr: str | None,
                        renumber: bool = True, directed: bool = False) -> "Graph":
        G = cls(directed)
        G._edges = df[[source, destination] + ([edge_attr] if edge_attr else [])].reset_index(drop=True)
        G._src, G._dst, G._attr, G._renumbered = source, destination, edge_attr, renumber
        return G

    @property
    def renumbered(self) -> bool:
        _record("cugraph.Graph.renumbered")
        return self._renumbered

    @property
    def source_columns(self) -> str:
        _record("cugraph.Graph.source_columns")
        return self._src

    @property
    def destination_columns(self) -> str:
        _record("cugraph.Graph.destination_columns")
        return self._dst

    def is_directed(self) -> bool:
        _record("cugraph.Graph.is_directed")
        return self._directed

    def view_edge_list(self) -> DataFrame:
        _record("cugraph.Graph.view_edge_list")
        return DataFrame.host_from_pandas(self._edges)

    def view_adj_list(self):
        _record("cugraph.Graph.view_adj_list")
        u = self._edges[self._src].to_numpy(np.int64)
        v = self._edges[self._dst].to_numpy(np.int64)
        w = self._edges[self._attr].to_numpy(np.float64) if self._attr else None
        if not self._directed:  # cuGraph stores an undirected edge in both rows
            u, v = np.concatenate([u, v]), np.concatenate([v, u])
            w = None if w is None else np.concatenate([w, w])
        order = np.lexsort((v, u))
        n = int(max(u.max(), v.max())) + 1
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(u, minlength=n), out=offsets[1:])
        return (Series(offsets), Series(v[order].astype(np.int32)),
                None if w is None else Series(w[order]))


def modules() -> dict[str, types.ModuleType]:
    """Fresh ``cudf`` / ``dask_cudf`` / ``cugraph`` module objects (install them in sys.modules)."""
    cudf = types.ModuleType("cudf")
    for name in ("DataFrame", "Series", "Index", "read_csv", "read_parquet", "concat"):
        obj = globals()[name]
        setattr(cudf, name, obj)
    dask_cudf = types.ModuleType("dask_cudf")
    dask_cudf.DataFrame, dask_cudf.from_cudf = DaskFrame, from_cudf
    cugraph = types.ModuleType("cugraph")
    cugraph.Graph = Graph
    return {"cudf": cudf, "dask_cudf": dask_cudf, "cugraph": cugraph}


# the library recognises these objects by the module their type comes from
for _cls, _mod in ((Index, "cudf.core.index"), (Series, "cudf.core.series"), (DataFrame, "cudf.core.dataframe"),
                   (DaskFrame, "dask_cudf.core"), (Graph, "cugraph.structure.graph_classes")):
    _cls.__module__ = _mod


def device_namespace():
    """The namespace of the stand-in device arrays (what CuPy's is on a GPU)."""
    import array_api_compat

    return array_api_compat.array_namespace(xps.asarray(0))


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


__all__ = ["CALLS", "BUILT", "install", "device_namespace", "DataFrame", "Series", "Index", "DaskFrame",
           "Graph"]
