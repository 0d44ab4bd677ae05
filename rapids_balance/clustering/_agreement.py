"""Agreement of two partitions: the adjusted Rand index (Hubert and Arabie 1985)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import GraphInputError

__all__ = ["adjusted_rand_index"]


def _comb2(x: np.ndarray) -> float:
    x = x.astype(np.float64)
    return float(np.sum(x * (x - 1.0)) / 2.0)


def adjusted_rand_index(a: Any, b: Any) -> float:
    """Adjusted Rand index of two labelings of the same items (1: identical up to names).

    Parameters
    ----------
    a, b : array-like
        One label per item, any hashable values, same length.

    Returns
    -------
    float
        ``(index - expected) / (max - expected)`` over pairs of items; 1.0
        when both put every item alone or both put all in one group.

    Examples
    --------
    >>> from rapids_balance.clustering import adjusted_rand_index
    >>> adjusted_rand_index([0, 0, 1, 1], ["x", "x", "y", "y"])
    1.0
    """
    a = np.asarray(a).reshape(-1)
    b = np.asarray(b).reshape(-1)
    if a.size != b.size:
        raise GraphInputError(f"adjusted_rand_index: the labelings differ in length "
                              f"({a.size} and {b.size})")
    n = a.size
    if n < 2:
        return 1.0
    ia = np.unique(a, return_inverse=True)[1].reshape(-1).astype(np.int64)
    ib = np.unique(b, return_inverse=True)[1].reshape(-1).astype(np.int64)
    cells = np.unique(ia * (int(ib.max()) + 1) + ib, return_counts=True)[1]
    index = _comb2(cells)
    sa = _comb2(np.bincount(ia))
    sb = _comb2(np.bincount(ib))
    total = n * (n - 1) / 2.0
    expected = sa * sb / total
    top = 0.5 * (sa + sb)
    if top == expected:
        return 1.0
    return float((index - expected) / (top - expected))
