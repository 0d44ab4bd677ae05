"""Result tables in the caller's flavour: pandas, cuDF, or a dask DataFrame.

:func:`make_table` is the one place a result table is made from columns:
pandas from host (numpy) columns; cuDF straight from device (CuPy) columns,
with no pandas in between, when the graph lives on the device or the input
was cuDF.  A caller who asks for ``as_dask=True`` gets the per-edge tables
as a ``dask.dataframe`` (dask-cuDF for cuDF tables), partitioned by rows,
which is what a graph with hundreds of millions of edges needs downstream.

Where an algorithm ran on the host (frustration, betweenness, clustering,
balancing with ``backend="cpu"``) and the table goes to the device, its host
columns cross once, in :func:`to_device`, which records each move in
:data:`device_copies` (the mirror of ``_xp.host_copies``); vertex labels of
a graph kept on the device are taken there (:func:`label_column`), so only
the internal ids of the rows cross.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import weakref
from typing import Any, Callable

from ._validation import check_bool, param_error

__all__ = ["is_cudf", "is_device_array", "wants_device", "make_table", "label_column", "to_device",
           "device_copies", "device_namespace", "device_labels_column", "to_dask_frame", "convert_result_frames", "frames_like_input"]

device_copies: list[int] = []
"""Sizes of the host columns :func:`to_device` moved to the device for result tables, in call
order (tests clear and read it)."""


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


def _cupy_namespace() -> Any:
    """CuPy's array-API namespace: where cuDF keeps its columns (cuDF depends on CuPy)."""
    import array_api_compat
    import cupy

    return array_api_compat.array_namespace(cupy.empty(0))


def device_namespace(like: Any = None, columns: Any = ()) -> Any:
    """The array namespace of a device table's columns.

    That of a device column among ``columns``, else that of a graph kept
    on the device (``like``), else CuPy's (a cuDF input read into a host
    graph).
    """
    device = [c for c in columns if is_device_array(c)]
    if device:
        from array_api_compat import array_namespace

        return array_namespace(*device)
    if getattr(like, "on_device", False):
        return like.xp
    return _cupy_namespace()


def to_device(a: Any, xp: Any) -> Any:
    """A host (numpy) column in the device namespace ``xp``: THE one host-to-device move of a
    result column, recorded in :data:`device_copies`."""
    device_copies.append(int(a.size))
    return xp.asarray(a)


def _device_column(c: Any, xp: Callable[[], Any]) -> Any:
    """One column of a cuDF table: device columns as they are, host numbers moved by
    :func:`to_device`, host text (CuPy has no strings) handed to cuDF, which copies it (counted)."""
    if is_device_array(c) or is_cudf(c):
        return c
    import numpy as np

    a = np.asarray(c)
    if a.dtype.kind in "biuf":
        return to_device(a, xp())
    device_copies.append(int(a.size))
    if a.dtype.kind == "O":
        import pandas as pd

        kind = pd.api.types.infer_dtype(a, skipna=False)
        if kind not in ("string", "empty"):
            # cuDF builds an object column through Arrow, as text only (cudf core/column/column.py)
            from .errors import GraphInputError

            raise GraphInputError(
                f"a cuDF result column holds values of one type, but these labels are {kind!r} (integers "
                "mixed with text, or integers beyond 64 bits): cast the id columns to one type (e.g. "
                ".astype(str)) before building the graph")
        return a
    return a.astype(object)


def _has_cudf() -> bool:
    try:
        _cudf_module()
    except ImportError:
        return False
    return True


# graph -> device string labels (cuDF), for graphs whose ids were strings factorised on the device
_STRING_LABELS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def device_labels_column(graph: Any, ids: Any = None) -> Any:
    """The labels of internal ids ``ids`` (all vertices when None), where the graph keeps them.

    Text labels factorised on the device come back as a cuDF column; numeric
    labels as a device array of the graph's namespace.
    """
    text = _STRING_LABELS.get(graph)
    if text is not None:
        return text if ids is None else text.take(ids)
    labels = graph.device_labels()
    if ids is None:
        return labels
    from array_api_compat import array_namespace

    return array_namespace(labels).take(labels, ids)


def label_column(graph: Any, ids: Any = None) -> Any:
    """Original labels of internal ids ``ids`` (numpy; all vertices when None), for a result table.

    A graph kept on the device, with cuDF installed, gives them where they
    live (:func:`rapids_balance.io._device.device_labels_column`): only
    ``ids`` cross to the device.  Otherwise (or where its labels live on
    the host) the host labels.
    """
    if getattr(graph, "on_device", False) and _has_cudf():
        labels = device_labels_column(graph)
        if is_device_array(labels) or is_cudf(labels):
            if ids is None:
                return labels
            import numpy as np

            return device_labels_column(graph, to_device(np.asarray(ids, dtype=np.int64), graph.xp))
    return graph.labels if ids is None else graph.labels[ids]


def make_table(columns: dict[str, Any], like: Any = None, copy: bool = True) -> Any:
    """A result table from named columns, in the flavour the input asks for.

    Parameters
    ----------
    columns : dict of str to array
        numpy arrays, device arrays (CuPy) or, for text labels kept on the
        device, cuDF columns; all of one length.
    like : object, optional
        The user's input or the graph: a cuDF input, or a graph kept on the
        device, asks for a cuDF table.
    copy : bool, default True
        ``False`` lets a pandas table keep the given numpy arrays instead of
        copying them (pandas 3 copies dict inputs by default): for fresh
        arrays nobody else holds, it halves the table's peak memory.

    Returns
    -------
    pandas.DataFrame or cudf.DataFrame
        cuDF when a column is a device array or ``like`` asks for it (built
        from the device columns, with no pandas in between; host columns
        cross once, through :func:`to_device`), pandas otherwise.  Without
        cuDF installed, device columns are copied to the host once and a
        pandas table is returned.

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
            xp = functools.cache(lambda: device_namespace(like, columns.values()))
            return cudf.DataFrame({k: _device_column(c, xp) for k, c in columns.items()})
    import pandas as pd

    return pd.DataFrame(columns, copy=copy)


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
    """With ``as_dask``, turn the fields named in ``dask_fields`` (the per-edge tables) of a
    result dataclass into dask DataFrames, in place, and return it.

    The tables themselves are already in the input's flavour (cuDF for a
    device input): the capabilities build them with :func:`make_table`.
    ``like`` is kept for the callers' symmetry.  Non-dataclass results are
    returned unchanged.
    """
    if not as_dask or not dataclasses.is_dataclass(result) or isinstance(result, type):
        return result
    import pandas as pd

    for name in dask_fields:
        val = getattr(result, name)
        if isinstance(val, pd.DataFrame) or is_cudf(val):
            object.__setattr__(result, name, to_dask_frame(val))  # works for frozen dataclasses too
    return result


_AS_DASK_PARAM = """\
    as_dask : bool, default False
        Return {fields} as a ``dask.dataframe`` (very large graphs; needs the
        ``dask`` extra).  Every table is a cuDF DataFrame when the graph was
        handed in as a cuDF edge list, a pandas DataFrame otherwise.  With
        ``client=`` and a graph on the cluster (a ``ClusterGraph``, a Dask
        DataFrame, a Parquet dataset) or a built ``Graph``, the whole call
        runs on a worker and the tables' partitions are made there.
"""


def _with_as_dask_doc(doc: str, fields: str) -> str:
    """``doc`` with the ``as_dask`` entry at the end of its Parameters section."""
    entry = _AS_DASK_PARAM.format(fields=fields)
    for header in ("    Returns\n    -------", "    Raises\n    ------", "    Notes\n    -----"):
        at = doc.find(header)
        if at != -1:
            return doc[:at].rstrip() + "\n" + entry + "\n" + doc[at:]
    return doc + "\n" + entry


def _one_device(graph: Any):
    """The call's one current device: that of a graph kept on the device (CuPy and numba-cuda made
    to agree on it, :func:`rapids_balance.backend.device_scope`); nothing to select otherwise."""
    import contextlib
    import inspect

    # asked of the graph's class first: an input that is not a graph (a path, a table, anything
    # answering every attribute) is read only by the function, after its parameters are checked
    if inspect.getattr_static(type(graph), "on_device", None) is None or not graph.on_device:
        return contextlib.nullcontext()
    from .backend import device_scope

    return device_scope(*graph.device_arrays().values())


def frames_like_input(dask_fields: tuple[str, ...] | None = None) -> Callable:
    """Decorator for public algorithms: ``as_dask`` for their per-edge tables.

    The wrapped function's first argument is the graph input; it builds its
    tables with :func:`make_table`, so they already come in the input's
    flavour.  With ``as_dask=True`` its per-edge tables become dask
    DataFrames (:func:`convert_result_frames`); the wrapper adds the
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
    def deco(fn: Callable) -> Callable:
        owner = fn.__name__

        @functools.wraps(fn)
        def wrapper(graph, *args, as_dask: bool = False, **kwargs):
            if check_bool(as_dask, "as_dask", owner) and dask_fields == ():
                raise param_error("as_dask", owner, "False (this result has no per-edge table)", as_dask)
            with _one_device(graph):
                result = fn(graph, *args, **kwargs)
            if dask_fields is None:
                return to_dask_frame(result) if as_dask else result
            return convert_result_frames(result, like=graph, as_dask=as_dask, dask_fields=dask_fields)

        if dask_fields is None:
            fields = "the table"
        elif dask_fields:
            fields = " and ".join(f"``{f}``" for f in dask_fields)
        else:
            fields = "nothing: this result has no per-edge table, and True is refused;"
        wrapper.__doc__ = _with_as_dask_doc(fn.__doc__ or "", fields)
        wrapper.dask_fields = dask_fields  # read by the call that runs it on a cluster's workers
        sig = inspect.signature(fn)
        wrapper.__signature__ = sig.replace(parameters=[
            *sig.parameters.values(),
            inspect.Parameter("as_dask", inspect.Parameter.KEYWORD_ONLY, default=False,
                              annotation="bool")])
        return wrapper

    return deco
