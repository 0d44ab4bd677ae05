"""Block Lanczos kernels of the walk score on the CPU (numba).

The stochastic Lanczos quadrature of :mod:`._walk` advances ``p`` probe
vectors together, stored as the columns of a C-ordered ``(n, p)`` array, so
one row of the block is ``p`` contiguous numbers: the sparse product reads
each matrix entry once and updates a whole row of the block with it, and
the vector updates stream through memory once per step.  Products and
updates run in parallel over rows (each row written by one thread); the
column sums (inner products and norms) are taken over fixed chunks of
:data:`CHUNK` rows and the chunks added in order, so every figure is the
same whatever the thread count.

Array programs (NumPy) made about fifteen passes over the ``(n, p)`` block
per step, each allocating a temporary; these kernels make four, in place.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

__all__ = ["CHUNK", "spmm", "column_dots", "subtract_dot", "subtract_norm", "normalise"]

#: rows per partial sum of a column reduction: fixed, so sums do not depend on the threads
CHUNK = 4096


@numba.njit(parallel=True, cache=True)
def spmm(indptr, indices, data, x, out):
    """``out = A @ x`` for a CSR matrix ``A`` and a C-ordered block ``x``."""
    n, p = x.shape
    for i in prange(n):
        for c in range(p):
            out[i, c] = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            a = data[k]
            for c in range(p):
                out[i, c] += a * x[j, c]


@numba.njit(cache=True, inline="always")
def _sum_chunks(part):
    nch, p = part.shape
    out = np.zeros(p)
    for ch in range(nch):
        for c in range(p):
            out[c] += part[ch, c]
    return out


@numba.njit(parallel=True, cache=True)
def column_dots(x, y):
    """``sum(x * y, axis=0)`` in fixed chunks (thread-count independent)."""
    n, p = x.shape
    nch = (n + CHUNK - 1) // CHUNK
    part = np.zeros((nch, p))
    for ch in prange(nch):
        for i in range(ch * CHUNK, min(n, (ch + 1) * CHUNK)):
            for c in range(p):
                part[ch, c] += x[i, c] * y[i, c]
    return _sum_chunks(part)


@numba.njit(parallel=True, cache=True)
def _subtract(w, q, q_prev, alpha, beta_prev, norm):
    """``w -= alpha * q (+ beta_prev * q_prev unless norm)`` in place; returns the column sums
    of ``w * w`` (norm) or ``q * w`` after it."""
    n, p = w.shape
    nch = (n + CHUNK - 1) // CHUNK
    part = np.zeros((nch, p))
    for ch in prange(nch):
        for i in range(ch * CHUNK, min(n, (ch + 1) * CHUNK)):
            for c in range(p):
                v = w[i, c] - alpha[c] * q[i, c]
                if not norm:
                    v -= beta_prev[c] * q_prev[i, c]
                w[i, c] = v
                part[ch, c] += v * (v if norm else q[i, c])
    return _sum_chunks(part)


def subtract_dot(w, q, q_prev, alpha, beta_prev):
    """``w -= alpha * q + beta_prev * q_prev`` in place; returns ``sum(q * w, axis=0)`` after it."""
    return _subtract(w, q, q_prev, alpha, beta_prev, False)


def subtract_norm(w, q, s):
    """``w -= s * q`` in place; returns the squared column norms of ``w`` after it."""
    return _subtract(w, q, q, s, s, True)


@numba.njit(parallel=True, cache=True)
def normalise(w, inv, out):
    """``out = w * inv`` column by column (``inv[c] = 0`` zeroes a finished column)."""
    n, p = w.shape
    for i in prange(n):
        for c in range(p):
            out[i, c] = w[i, c] * inv[c]
