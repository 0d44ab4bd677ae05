"""Edge columns out of tables: pandas, polars, pyarrow, cuDF, Dask, dicts, tuples.

:func:`edgelist_columns` is the one place where a user's table becomes the
columns that :func:`rapids_balance.graph.build_graph` cleans.  Host tables
give numpy columns.  Device inputs stay on the device: cuDF columns come out
as CuPy arrays (through :mod:`rapids_balance.io._device`, the only module
that calls cuDF), CuPy arrays are passed on as they are, and the graph is
built in their array namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .. import _xp
from .._build import build_graph, check_build_options
from .._containers import CleaningReport, Graph, SignedGraph
from .._output import is_device_array
from ..errors import GraphInputError, short_repr
from . import _device
from ._device import attach_string_labels, frame_columns, host_labels
from ._roles import missing_column_error, resolve_roles

__all__ = ["edgelist_columns", "table_kind", "missing_column_error", "materialise", "table_columns",
           "table_to_graph"]


def table_kind(data: Any) -> str:
    """'pandas', 'polars', 'pyarrow', 'cudf', 'dask', 'mapping', 'sequence' or 'unknown'."""
    mod = type(data).__module__.split(".")[0]
    if isinstance(data, pd.DataFrame):
        return "pandas"
    if mod in ("polars", "pyarrow", "cudf", "dask", "dask_cudf"):
        return {"dask_cudf": "dask"}.get(mod, mod)
    if isinstance(data, Mapping):
        return "mapping"
    if isinstance(data, (tuple, list)):
        return "sequence"
    return "unknown"


def _narwhals(data: Any) -> Any:
    """A host table as a narwhals eager frame: pandas, polars, pyarrow (Table or RecordBatch), modin.

    narwhals (tested against each of these libraries by its own CI) gives the
    column names and each column as numpy; cuDF (whose columns go to the
    device without a host copy) and dask (computed with its own
    ``compute()``) are read before this.
    """
    import narwhals as nw

    if type(data).__name__ == "RecordBatch" and type(data).__module__.split(".")[0] == "pyarrow":
        import pyarrow as pa

        data = pa.Table.from_batches([data])  # narwhals reads Tables; the batch's buffers are shared
    return nw.from_native(data, eager_only=True)


def table_columns(data: Any, kind: str) -> list:
    """Column names of a materialised table (or the keys of a mapping)."""
    if kind == "mapping":
        return list(data.keys())
    if kind == "cudf":
        return list(data.columns)
    from narwhals.exceptions import DuplicateError

    try:
        return list(_narwhals(data).columns)
    except DuplicateError:  # the column-role check names the repeated names, as for a file's header
        return list(data.columns)


def _host(arr: Any) -> np.ndarray:
    """Device arrays (CuPy, __cuda_array_interface__) to numpy; anything else via asarray.

    Lists of Python ints past 2**53 stay exact (numpy would make them float64).
    """
    if isinstance(arr, (list, tuple)):
        out = np.asarray(arr)
        if out.dtype.kind == "f" and any(isinstance(x, int) and abs(x) > 2**53 for x in arr):
            exact = np.empty(len(arr), dtype=object)
            exact[:] = list(arr)
            return exact
        return out
    if type(arr).__module__.split(".")[0] in ("pandas", "polars", "pyarrow"):
        import narwhals as nw

        return nw.from_native(arr, series_only=True).to_numpy()
    return np.asarray(arr)


def _column_as_given(arr: Any) -> Any:
    """Device arrays stay where they are (CuPy; anything with ``__cuda_array_interface__`` is
    viewed as CuPy, without a copy); everything else becomes numpy."""
    if is_device_array(arr):
        return arr
    if hasattr(arr, "__cuda_array_interface__"):
        import cupy

        return cupy.asarray(arr)
    return _host(arr)


def _get_column(data: Any, kind: str, key: Any) -> np.ndarray:
    """One column as numpy: through narwhals for host tables (a nullable integer column without
    gaps keeps its integers exactly; one with gaps comes back as floats with NaN, which the
    missing-value check names)."""
    if kind == "mapping":
        return _column_as_given(data[key])
    return _narwhals(data).get_column(key).to_numpy()


def _cudf_columns(data: Any, available: list, *keys: Any) -> tuple:
    """cuDF edge columns as device arrays; text ids come back as host labels (CuPy has no strings)."""
    for role, key in zip(("source", "target", "sign", "weight"), keys):
        if key is not None and key not in available:
            raise missing_column_error(role, key, available)
    src, dst, sgn, wgt, text = _device.frame_columns(data, source=keys[0], target=keys[1], sign=keys[2],
                                                     weight=keys[3])
    if text is not None:
        host = host_labels(text)
        src, dst = host[_xp.to_host(src)], host[_xp.to_host(dst)]
    return src, dst, sgn, wgt


def _check_no_missing(arr: Any, what: str) -> None:
    if is_device_array(arr):
        return  # device columns have no missing values (cuDF nulls are refused when taken out)
    if arr.dtype.kind in "Of":  # only object and float columns can hold None/NaN/NA
        miss = pd.isna(arr)
        if miss.any():
            r = int(np.flatnonzero(miss)[0])
            raise GraphInputError(f"{what} has a missing value (NaN/None/null) in row {r} (0-based)")


def edgelist_columns(data: Any, *, source: Any = "source", target: Any = "target",
                     sign: Any = None, weight: Any = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Pull edge columns out of a table: numpy arrays, or device arrays for device inputs.

    Parameters
    ----------
    data : DataFrame, Table, mapping or tuple
        A pandas, polars (eager or lazy), pyarrow (Table/RecordBatch), cuDF or
        Dask DataFrame; a mapping of column name to array; or a tuple
        ``(sources, targets)``, ``(sources, targets, values)`` or
        ``(sources, targets, signs, weights)`` of arrays (CuPy accepted).
    source, target : str
        Names of the endpoint columns (ignored for tuples).
    sign, weight : str, optional
        Names of the sign and weight columns; ``None`` leaves them out.  For
        a 3-tuple the third array is returned as ``weight`` unless ``sign``
        is given (any value), in which case it is the sign.

    Returns
    -------
    src, dst : numpy.ndarray or device array
        Endpoint labels, as given (integers of any size or strings); device
        arrays (CuPy) for device inputs.
    sign, weight : numpy.ndarray, device array or None

    Raises
    ------
    GraphInputError
        A named column is missing (the message lists the available columns),
        a column has missing values, or the input type is not a table.

    Notes
    -----
    Dask DataFrames and polars LazyFrames are materialised (``.compute()`` /
    ``.collect()``; a dask-cuDF frame is computed once).  Device inputs stay
    on the device: numeric cuDF columns come back as CuPy arrays
    (``Series.to_cupy()``) and CuPy arrays in a tuple are returned as they
    are.  Text ids of a cuDF table are factorised on the device and returned
    as host labels (CuPy has no strings; :meth:`Graph.from_edgelist` keeps
    their codes on the device instead).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2], "b": [2, 3], "s": [1, -1]})
    >>> src, dst, sgn, w = edgelist_columns(df, source="a", target="b", sign="s")
    >>> sgn.tolist(), w
    ([1, -1], None)
    """
    data, kind = materialise(data)
    if kind == "sequence":
        arrays = [_column_as_given(a) for a in data]
        if len(arrays) not in (2, 3, 4):
            raise GraphInputError(f"a tuple of edge columns has 2, 3 or 4 arrays (src, dst[, sign][, weight]), "
                                  f"got {len(arrays)}")
        src, dst = arrays[0], arrays[1]
        sgn = wgt = None
        if len(arrays) == 3:
            if sign is not None:
                sgn = arrays[2]
            else:
                wgt = arrays[2]
        elif len(arrays) == 4:
            sgn, wgt = arrays[2], arrays[3]
        _check_no_missing(src, "source column tuple[0]")
        _check_no_missing(dst, "target column tuple[1]")
        return src, dst, sgn, wgt
    if kind == "unknown":
        raise _unsupported(data)
    available = table_columns(data, kind)
    if kind == "cudf":
        return _cudf_columns(data, available, source, target, sign, weight)
    out = []
    for role, key in (("source", source), ("target", target), ("sign", sign), ("weight", weight)):
        if key is None:
            out.append(None)
            continue
        if key not in available:
            raise missing_column_error(role, key, available)
        arr = _get_column(data, kind, key)
        _check_no_missing(arr, f"{role} column {key!r}")
        out.append(arr)
    return out[0], out[1], out[2], out[3]


def _unsupported(data: Any) -> GraphInputError:
    return GraphInputError(
        f"cannot read edges from a {type(data).__module__}.{type(data).__name__}; pass a pandas/polars/"
        "pyarrow/cuDF DataFrame, a dict of arrays or a tuple (src, dst[, values])")


def materialise(data: Any) -> tuple[Any, str]:
    """(table, kind) with Dask frames computed and polars LazyFrames collected."""
    kind = table_kind(data)
    if kind == "dask":
        data = data.compute()
        kind = table_kind(data)
    if kind == "polars" and hasattr(data, "collect") and not hasattr(data, "get_column"):
        data = data.collect()
    return data, kind


def table_to_graph(data: Any, *, roles: dict[str, Any], want_sign: bool | None, graph_class: type | None,
                   options: dict[str, Any], owner: str = "from_edgelist"):
    """A table (pandas, polars, pyarrow, cuDF, Dask, mapping) to a cleaned graph.

    Column roles follow :func:`~rapids_balance.io._roles.resolve_roles`:
    named, or recognised by name, never a column taken by position.  The
    cleaning report records each role and its reason.
    """
    check_build_options(owner, **{k: v for k, v in options.items() if k not in ("name",)})
    data, kind = materialise(data)
    if kind in ("sequence", "unknown"):
        raise _unsupported(data)
    where = options.get("name") or f"<{kind} table>"
    columns = table_columns(data, kind)
    res = resolve_roles(columns, roles, where=where, header=True, want_sign=want_sign,
                        what="the mapping" if kind == "mapping" else "the table")
    text = None
    if kind == "cudf":
        src, dst, sgn, wgt, text = frame_columns(data, source=res.source, target=res.target, sign=res.sign,
                                                 weight=res.weight, where=where)
    else:
        src, dst, sgn, wgt = edgelist_columns(data, source=res.source, target=res.target, sign=res.sign,
                                              weight=res.weight)
    report = CleaningReport(source=where, columns=res.report())
    if res.unused:
        report.notes.append(f"column(s) {', '.join(short_repr(c, 40) for c in res.unused)} not used "
                            "(name them with sign=/weight= to use them)")
    if graph_class is None:
        graph_class = SignedGraph if sgn is not None else Graph
    graph = build_graph(src, dst, sign=sgn, weight=wgt, graph_class=graph_class, report=report, **options)
    if text is not None:
        attach_string_labels(graph, text)
    return graph
