"""Result tables in the caller's flavour: pandas, cuDF, or a dask DataFrame.

:func:`make_table` is the one place a result table is made from columns:
pandas from host (numpy) columns; cuDF straight from device (CuPy) columns,
with no pandas in between, when the graph lives on the device or the input
was cuDF.  A caller who asks for ``as_dask=True`` gets the per-edge tables
as a ``dask.dataframe`` (dask-cuDF for cuDF tables), partitioned by rows,
which is what a graph with hundreds of millions of edges needs downstream.

Results still built as pandas by a capability (frustration, betweenness,
clustering) are converted with :func:`as_frame_like` (``cudf.from_pandas``:
one host-to-device copy) when the input was on the device.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable

__all__ = ["is_cudf", "is_device_array", "wants_device", "make_table", "as_frame_like", "to_dask_frame",
           "convert_result_frames", "frames_like_input"]


def is_cudf(obj: Any) -> bool:
    """True for cuDF objects (checked by type, without importing cudf)."""
    return type(obj).__module__.split(".", 1)[0] in ("cudf", "dask_cudf")


def is_device_array(a: Any) -> bool:
    """An array that is not numpy: CuPy, or another array-API library's (see :mod:`rapids_balance._xp`)."""
    from ._xp import is_device_array as _is_device

    return _is_device(a)


def wants_device(like: Any) -> bool:
    """Results for ``like`` are device tables: a cuDF or cuGraph input, or a graph kept on the device."""
    return (is_cudf(like) or type(like).__module__.split(".", 1)[0] == "cugraph"
            or bool(getattr(like, "on_device", False)))


def _cudf_module():
    try:
        import cudf
    except ImportError as exc:
        from .errors import missing_extra

        raise missing_extra("cudf", "cuDF result tables") from exc
    return cudf


def _host(a: Any) -> Any:
    """A device column on the host: the array namespace helpers' one counted copy."""
    from . import _xp

    return _xp.to_host(a)


def make_table(columns: dict[str, Any], like: Any = None) -> Any:
    """A result table from named columns, in the flavour the input asks for.

    Parameters
    ----------
    columns : dict of str to array
        numpy arrays, device arrays (CuPy) or, for text labels kept on the
        device, cuDF columns; all of one length.
    like : object, optional
        The user's input or the graph: a cuDF input, or a graph kept on the
        device, asks for a cuDF table.

    Returns
    -------
    pandas.DataFrame or cudf.DataFrame
        cuDF when a column is a device array or ``like`` asks for it (built
        from the device columns, with no pandas in between), pandas
        otherwise.  Without cuDF installed, device columns are copied to the
        host once and a pandas table is returned.

    Examples
    --------
    >>> import numpy as np
    >>> make_table({"vertex": np.array([3, 7]), "status": np.array([0.5, 1.0])}).shape
    (2, 2)
    """
    device = wants_device(like) or any(is_device_array(c) or is_cudf(c) for c in columns.values())
    if device:
        try:
            cudf = _cudf_module()
        except ImportError:
            if is_cudf(like):
                raise
            columns = {k: _host(c) if is_device_array(c) else c for k, c in columns.items()}
        else:
            return cudf.DataFrame(columns)
    import pandas as pd

    return pd.DataFrame(columns)


def as_frame_like(df: Any, like: Any) -> Any:
    """``df`` (pandas) as cuDF when ``like`` asks for device tables (see :func:`wants_device`)."""
    if not wants_device(like) or is_cudf(df):
        return df
    if not is_cudf(like):
        try:
            _cudf_module()
        except ImportError:
            return df  # a device graph without cuDF: host tables
    return _cudf_module().from_pandas(df)


def to_dask_frame(df: Any, npartitions: int | None = None, rows_per_partition: int = 1_000_000):
    """A pandas or cuDF table as a ``dask.dataframe`` split by rows.

    Parameters
    ----------
    df : pandas.DataFrame or cudf.DataFrame
    npartitions : int, optional
        Default: one partition per ``rows_per_partition`` rows (at least one).
    rows_per_partition : int

    Returns
    -------
    dask.dataframe.DataFrame
        Backed by cuDF partitions when ``df`` is cuDF.
    """
    try:
        import dask.dataframe as dd
    except ImportError as exc:
        from .errors import missing_extra

        raise missing_extra("dask", "as_dask=True (dask.dataframe)") from exc
    if npartitions is None:
        npartitions = max(1, -(-len(df) // int(rows_per_partition)))
    if is_cudf(df):
        import dask_cudf

        return dask_cudf.from_cudf(df, npartitions=int(npartitions), sort=False)
    return dd.from_pandas(df, npartitions=int(npartitions), sort=False)


def convert_result_frames(result: Any, like: Any = None, *, as_dask: bool = False,
                          dask_fields: tuple[str, ...] = ()) -> Any:
    """Convert the DataFrame fields of a result dataclass in place, and return it.

    Every pandas field becomes cuDF when ``like`` is cuDF; with ``as_dask``
    the fields named in ``dask_fields`` (the per-edge tables) become dask
    DataFrames.  Non-dataclass results are returned unchanged.
    """
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        return result
    import pandas as pd

    for f in dataclasses.fields(result):
        val = getattr(result, f.name)
        if not (isinstance(val, pd.DataFrame) or is_cudf(val)):
            continue
        new = as_frame_like(val, like)
        if as_dask and f.name in dask_fields:
            new = to_dask_frame(new)
        if new is not val:
            object.__setattr__(result, f.name, new)  # works for frozen dataclasses too
    return result


_AS_DASK_PARAM = """\
    as_dask : bool, default False
        Return {fields} as a ``dask.dataframe`` (very large graphs; needs the
        ``dask`` extra).  Every table is a cuDF DataFrame when the graph was
        handed in as a cuDF edge list, a pandas DataFrame otherwise.
"""


def _with_as_dask_doc(doc: str, fields: str) -> str:
    """``doc`` with the ``as_dask`` entry at the end of its Parameters section."""
    entry = _AS_DASK_PARAM.format(fields=fields)
    for header in ("    Returns\n    -------", "    Raises\n    ------", "    Notes\n    -----"):
        at = doc.find(header)
        if at != -1:
            return doc[:at].rstrip() + "\n" + entry + "\n" + doc[at:]
    return doc + "\n" + entry


def frames_like_input(dask_fields: tuple[str, ...] | None = None) -> Callable:
    """Decorator for public algorithms: tables come back in the input's flavour.

    The wrapped function's first argument is the graph input.  Its result is
    converted with :func:`convert_result_frames`; the wrapper adds the
    keyword ``as_dask`` (to the signature and to the Parameters section of
    the docstring) and checks it before the function runs.

    Parameters
    ----------
    dask_fields : tuple of str, optional
        ``None``: the function returns one table, which ``as_dask=True``
        turns into a dask DataFrame.  A tuple: the function returns a result
        dataclass whose named fields are per-edge tables; an empty tuple
        means it has none, and ``as_dask=True`` is refused before any work
        rather than ignored.
    """
    from ._validation import check_bool, param_error

    def deco(fn: Callable) -> Callable:
        owner = fn.__name__

        @functools.wraps(fn)
        def wrapper(graph, *args, as_dask: bool = False, **kwargs):
            if check_bool(as_dask, "as_dask", owner) and dask_fields == ():
                raise param_error("as_dask", owner, "False (this result has no per-edge table)", as_dask)
            result = fn(graph, *args, **kwargs)
            if dask_fields is None:
                out = as_frame_like(result, graph)
                return to_dask_frame(out) if as_dask else out
            return convert_result_frames(result, like=graph, as_dask=as_dask, dask_fields=dask_fields)

        if dask_fields is None:
            fields = "the table"
        elif dask_fields:
            fields = " and ".join(f"``{f}``" for f in dask_fields)
        else:
            fields = "nothing: this result has no per-edge table, and True is refused;"
        wrapper.__doc__ = _with_as_dask_doc(fn.__doc__ or "", fields)
        sig = inspect.signature(fn)
        wrapper.__signature__ = sig.replace(parameters=[
            *sig.parameters.values(),
            inspect.Parameter("as_dask", inspect.Parameter.KEYWORD_ONLY, default=False,
                              annotation="bool")])
        return wrapper

    return deco
