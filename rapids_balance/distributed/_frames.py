"""Result tables in the caller's flavour: pandas, cuDF, or a dask DataFrame.

Algorithms build their tables with pandas.  A caller whose input was a cuDF
table gets cuDF back; a caller who asks for ``as_dask=True`` gets the
per-edge tables as a ``dask.dataframe`` (partitioned by rows), which is what
a graph with hundreds of millions of edges needs downstream.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["is_cudf", "as_frame_like", "to_dask_frame", "convert_result_frames"]


def is_cudf(obj: Any) -> bool:
    """True for cuDF objects (checked by type, without importing cudf)."""
    return type(obj).__module__.split(".", 1)[0] in ("cudf", "dask_cudf")


def as_frame_like(df: Any, like: Any) -> Any:
    """``df`` (pandas) as cuDF when ``like`` is a cuDF object, else unchanged."""
    if not is_cudf(like) or is_cudf(df):
        return df
    try:
        import cudf
    except ImportError as exc:  # pragma: no cover - like is cuDF, so cudf imports
        raise ImportError("returning cuDF results needs cudf (the 'rapids' extra)") from exc
    return cudf.from_pandas(df)


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
        raise ImportError('as_dask=True needs dask.dataframe: pip install "rapids-balance[dask]"') from exc
    if npartitions is None:
        npartitions = max(1, -(-len(df) // int(rows_per_partition)))
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
        if not isinstance(val, pd.DataFrame):
            continue
        new = as_frame_like(val, like)
        if as_dask and f.name in dask_fields:
            new = to_dask_frame(new)
        if new is not val:
            object.__setattr__(result, f.name, new)  # works for frozen dataclasses too
    return result
