"""Array namespaces, and the few calls the array API standard does not cover.

Graph building (:mod:`rapids_balance._build`) is written against the array
API standard through ``array_api_compat``: ``xp`` is numpy on the CPU, CuPy
on the GPU, and ``array_api_strict`` in the tests (it allows only what the
standard defines, so the code cannot lean on numpy-only behaviour CuPy
lacks).  Everything the standard leaves out is one helper here, with its
numpy and CuPy versions side by side and a fallback for any other namespace
written with standard calls only (numpy | CuPy | other):

* :func:`stable_argsort`: numpy ``argsort(kind="stable")``, by a compiled
  counting sort for dense integer keys and 16-bit radix passes for other
  integer keys | ``cupy.argsort`` (always stable) | ``xp.argsort(stable=True)``;
* :func:`pair_order`: a compiled counting sort on the first code, then on the
  second within each group | :func:`stable_argsort` of the 64-bit key | the same;
* :func:`lexsort`: ``numpy.lexsort`` | ``cupy.lexsort`` (keys stacked in one
  2-D array) | one stable argsort per key;
* :func:`bincount`: ``numpy.bincount`` | ``cupy.bincount`` | sort and ``searchsorted``;
* :func:`gather` (``values[index]``): a compiled parallel loop for large inputs | ``take`` | ``take``;
* :func:`scatter` (``out[index] = values``): index assignment | index
  assignment | sort and ``searchsorted``;
* :func:`scatter_min`: ``numpy.minimum.at`` | ``cupyx.scatter_min`` | sort,
  first of each run;
* :func:`unique_inverse`: ``pandas.factorize`` then a sort of the distinct
  values | ``cupy.unique(return_inverse=True)`` | ``xp.unique_inverse``;
* :func:`connected_components`: compiled union-find (``scipy.sparse.csgraph``
  for small inputs) | hook and compress
  over :func:`scatter_min` | the same;
* :func:`to_host`: nothing to do | ``ndarray.get()`` | ``numpy.from_dlpack``.

:func:`to_host` is the one place an array of another namespace becomes a
numpy array; it records the size of each copy in :data:`host_copies` so
tests can check that nothing of size O(n) or O(m) left the device.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import array_api_compat
import numpy as np

__all__ = ["namespace", "is_numpy", "is_device_array", "to_host", "host_copies", "stable_argsort", "pair_order", "lexsort",
           "bincount", "gather", "scatter", "scatter_min", "unique_inverse", "connected_components"]

host_copies: list[int] = []
"""Sizes of the arrays :func:`to_host` copied off their device, in call order (tests clear and read it)."""


# -- namespaces ------------------------------------------------------------------

_NUMPY = array_api_compat.array_namespace(np.empty(0))


def namespace(*arrays: Any) -> ModuleType:
    """The array-API namespace of the device arrays among ``arrays``; numpy's when there are none.

    Host data of any kind (lists, numpy, pandas, ``None``) counts as numpy.
    """
    device = [a for a in arrays if is_device_array(a)]
    return array_api_compat.array_namespace(*device) if device else _NUMPY


def is_numpy(xp: ModuleType) -> bool:
    """True for numpy (plain or wrapped by ``array_api_compat``)."""
    return xp is np or array_api_compat.is_numpy_namespace(xp)


def _is_cupy(xp: ModuleType) -> bool:
    return array_api_compat.is_cupy_namespace(xp)


def is_device_array(x: Any) -> bool:
    """True for an array of a non-numpy array-API library (CuPy, array_api_strict, ...).

    Dask arrays, pandas objects, lists and numpy arrays are host data.
    """
    if x is None or array_api_compat.is_numpy_array(x) or array_api_compat.is_dask_array(x):
        return False
    return array_api_compat.is_cupy_array(x) or hasattr(x, "__array_namespace__")


def to_host(a: Any) -> np.ndarray:
    """``a`` as a numpy array: THE one device-to-host copy, recorded in :data:`host_copies`."""
    if array_api_compat.is_numpy_array(a):
        return a
    xp = array_api_compat.array_namespace(a)
    host_copies.append(int(array_api_compat.size(a) or 0))
    if _is_cupy(xp):
        return a.get()
    try:
        return np.from_dlpack(a)
    except (TypeError, RuntimeError, BufferError, AttributeError):
        return np.asarray(a)


# -- sorting -----------------------------------------------------------------------

def stable_argsort(x: Any) -> Any:
    """Indices that sort 1-D ``x``; equal keys keep their input order."""
    xp = array_api_compat.array_namespace(x)
    if is_numpy(xp):
        return _numpy_stable_argsort(x)
    if _is_cupy(xp):
        import cupy

        return cupy.argsort(x)  # CuPy's sort is always stable (its only kind)
    return xp.argsort(x, stable=True)


_RADIX_MIN_SIZE = 1 << 15
#: from this many items on, numpy inputs go to the compiled kernels of ``_host_sort``; below it
#: numpy's own calls take milliseconds, less than compiling those kernels on a fresh install's
#: first call (seconds of CPU per kernel)
COMPILED_MIN_SIZE = 1 << 18
_RADIX_MAX_PASSES = 3


def _numpy_stable_argsort(x: np.ndarray) -> np.ndarray:
    """numpy's stable argsort; non-negative integer keys of up to 48 bits by 16-bit LSD radix passes.

    numpy's stable sort is a radix sort for 16-bit keys but a merge sort
    (timsort) for wider ones; a few stable passes over 16-bit digits, least
    significant first, give the same permutation several times faster on
    the vertex-id keys graph building sorts.
    """
    if x.dtype.kind not in "iu" or x.dtype.itemsize <= 2 or x.size < _RADIX_MIN_SIZE:
        return np.argsort(x, kind="stable")
    lo, hi = int(x.min()), int(x.max())
    if lo >= 0 and hi < 2 * x.size + _RADIX_MIN_SIZE and x.size >= COMPILED_MIN_SIZE:
        # keys as dense as vertex ids: one counting sort
        from ._host_sort import counting_order

        return counting_order(x, hi + 1)
    passes = (max(hi.bit_length(), 1) + 15) // 16
    if lo < 0 or passes > _RADIX_MAX_PASSES:
        return np.argsort(x, kind="stable")
    order = None
    index_type = np.int32 if x.size < 2**31 else np.int64  # the running order in 4 bytes where it fits
    digits = _uint16_digits(x)
    for d in range(passes):
        digit = digits[:, d] if order is None else digits[:, d][order]
        step = np.argsort(digit, kind="stable")
        order = step.astype(index_type) if order is None else order[step]
    return order


def _uint16_digits(x: np.ndarray) -> np.ndarray:
    """The 16-bit digits of non-negative integers, least significant first, shape (size, k):
    a view of ``x`` on a little-endian machine (no copy), computed otherwise."""
    k = x.dtype.itemsize // 2
    x = np.ascontiguousarray(x)
    if x.dtype.byteorder == "<" or (x.dtype.byteorder in "=|" and sys.byteorder == "little"):
        return x.view(np.uint16).reshape(-1, k)
    return np.stack([((x >> (16 * d)) & 0xFFFF).astype(np.uint16) for d in range(k)], axis=1)


def pair_order(a: Any, b: Any, nu: int) -> Any:
    """``stable_argsort(a * nu + b)`` for integer codes ``a``, ``b`` in ``[0, nu)``: rows grouped by
    the pair ``(a, b)``, input order inside a pair.

    numpy: a counting sort on ``a``, then each group sorted on ``b`` (compiled,
    no 64-bit key); other namespaces sort the 64-bit key.
    """
    xp = array_api_compat.array_namespace(a, b)
    if is_numpy(xp) and a.size >= COMPILED_MIN_SIZE:
        from ._host_sort import pair_order as host_pair_order

        return host_pair_order(a, b, nu)
    return stable_argsort(xp.astype(a, xp.int64) * max(nu, 1) + xp.astype(b, xp.int64))


def lexsort(keys: tuple) -> Any:
    """``numpy.lexsort`` semantics: the LAST key is the primary one; stable."""
    xp = array_api_compat.array_namespace(*keys)
    if is_numpy(xp):
        return np.lexsort(keys)
    if _is_cupy(xp):
        import cupy

        return cupy.lexsort(cupy.stack([cupy.asarray(k, dtype=cupy.int64) for k in keys]))
    order = None
    for key in keys:  # least significant first, each pass stable
        if order is None:
            order = stable_argsort(key)
        else:
            order = xp.take(order, stable_argsort(xp.take(key, order)))
    return order


# -- counting and scattering -------------------------------------------------------

def bincount(x: Any, minlength: int) -> Any:
    """Occurrences of each value ``0..minlength-1`` in the non-negative integer array ``x`` (int64)."""
    xp = array_api_compat.array_namespace(x)
    if is_numpy(xp):
        return np.bincount(x, minlength=minlength).astype(np.int64, copy=False)
    if _is_cupy(xp):
        import cupy

        return cupy.bincount(x, minlength=minlength).astype(cupy.int64, copy=False)
    edges = xp.searchsorted(xp.sort(x), xp.arange(minlength + 1, dtype=x.dtype))
    return xp.astype(edges[1:] - edges[:-1], xp.int64)


def gather(values: Any, index: Any) -> Any:
    """``values[index]`` (``xp.take``); large numpy inputs by a compiled parallel loop that uses an
    int32 index as it is (numpy's ``take`` first widens it to a 64-bit copy)."""
    xp = array_api_compat.array_namespace(values, index)
    if is_numpy(xp) and index.size >= COMPILED_MIN_SIZE and values.ndim == 1 and index.dtype.kind in "iu":
        from ._host_sort import gather as host_gather

        return host_gather(values, index)
    return xp.take(values, index)


def scatter(out: Any, index: Any, values: Any) -> Any:
    """``out[index] = values``; returns the result, which may be ``out`` itself, changed.

    Repeated indices must carry equal values (which write wins is not defined).
    ``values`` may be a Python scalar.
    """
    xp = array_api_compat.array_namespace(out)
    if is_numpy(xp) or _is_cupy(xp):
        out[index] = values
        return out
    if index.shape[0] == 0:
        return out
    order = stable_argsort(index)
    sidx = xp.take(index, order)
    pos = xp.searchsorted(sidx, xp.arange(out.shape[0], dtype=sidx.dtype))
    safe = xp.clip(pos, 0, max(sidx.shape[0] - 1, 0))
    hit = (pos < sidx.shape[0]) & (xp.take(sidx, safe) == xp.arange(out.shape[0], dtype=sidx.dtype))
    if isinstance(values, (bool, int, float)):
        values = xp.asarray(values, dtype=out.dtype)
    else:
        values = xp.take(xp.take(values, order), safe)
    return xp.where(hit, values, out)


def scatter_min(out: Any, index: Any, values: Any) -> Any:
    """``out[i] = min(out[i], values[j] for every j with index[j] == i)``; returns the result.

    May change ``out`` in place (numpy, CuPy).  CuPy's atomic minimum takes
    32-bit and unsigned 64-bit values, so callers use int32 there.
    """
    xp = array_api_compat.array_namespace(out)
    if is_numpy(xp):
        np.minimum.at(out, index, values)
        return out
    if _is_cupy(xp):
        import cupyx

        cupyx.scatter_min(out, index, values)
        return out
    if index.shape[0] == 0:
        return out
    order = lexsort((values, index))  # by index, smallest value first
    sidx = xp.take(index, order)
    first = xp.concat([xp.ones(1, dtype=xp.bool), sidx[1:] != sidx[:-1]])
    best = scatter(xp.full(out.shape[0], xp.iinfo(out.dtype).max, dtype=out.dtype), sidx[first],
                   xp.take(values, order)[first])
    return xp.minimum(out, best)


# -- factorizing and components ----------------------------------------------------

def unique_inverse(x: Any) -> tuple[Any, Any]:
    """Sorted distinct values of 1-D ``x`` and the int64 code of each element."""
    xp = array_api_compat.array_namespace(x)
    if is_numpy(xp):
        import pandas as pd

        # hashing, then sorting only the distinct values: faster and much lighter than
        # numpy's sort-based unique or pandas' own sort=True (which reorders every code)
        codes, uniques = pd.factorize(x, sort=False)
        uniques = np.asarray(uniques)
        order = np.argsort(uniques, kind="stable")
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size, dtype=np.int64)
        codes = codes.astype(np.int64, copy=False)
        np.take(rank, codes, out=codes)
        return uniques[order], codes
    if _is_cupy(xp):
        import cupy

        uniques, codes = cupy.unique(x, return_inverse=True)
        return uniques, codes.astype(cupy.int64, copy=False).reshape(-1)
    values, codes = xp.unique_inverse(x)
    return values, xp.astype(codes, xp.int64)


def connected_components(a: Any, b: Any, n: int) -> Any:
    """Component label of each vertex ``0..n-1`` of the undirected edges ``(a[i], b[i])``.

    Only the partition is defined: labels are arbitrary ids below ``n``.
    numpy uses scipy; other namespaces hook every root onto the smallest
    root next to it and then compress paths, until nothing changes (each
    round at least halves the number of components that still have an edge
    leaving them).
    """
    xp = array_api_compat.array_namespace(a, b)
    if is_numpy(xp) and a.size >= COMPILED_MIN_SIZE:
        from ._host_sort import component_labels

        return component_labels(a, b, n)
    if is_numpy(xp):
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components as scipy_cc

        adj = sp.coo_matrix((np.ones(a.size, np.int8), (a, b)), shape=(n, n)).tocsr()
        return scipy_cc(adj, directed=False)[1]
    a = xp.astype(a, xp.int32)
    b = xp.astype(b, xp.int32)
    label = xp.arange(n, dtype=xp.int32)
    while True:
        la, lb = xp.take(label, a), xp.take(label, b)
        low, high = xp.minimum(la, lb), xp.maximum(la, lb)
        cross = low != high
        if not bool(xp.any(cross)):
            return label
        label = scatter_min(label, high[cross], low[cross])
        while True:  # path compression: every vertex points at its root
            up = xp.take(label, label)
            if bool(xp.all(up == label)):
                break
            label = up
