"""Contraction of a clustered level into the next coarser one, and its imbalance."""

from __future__ import annotations

import numba
import numpy as np

from .._chunks import run_chunks
from .._deadline import NO_DEADLINE, overdue
from ._moves import members_by_cluster

# -- contraction ----------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _gather(v, stamp, skip, indptr, indices, a, lab, acc, seen, touched, nt):
    """Add v's signed weights per neighbour cluster into ``acc`` (scratch
    stamped with ``stamp``), listing new clusters in ``touched``; cluster
    ``skip`` and unassigned (< 0) neighbours are ignored.  Returns the count."""
    for p in range(indptr[v], indptr[v + 1]):
        k = lab[indices[p]]
        if k == skip or k < 0:
            continue
        if seen[k] != stamp:
            seen[k] = stamp
            acc[k] = 0.0
            touched[nt] = k
            nt += 1
        acc[k] += a[p]
    return nt


@numba.njit(cache=True, nogil=True)
def _contract_range(c0, c1, indptr, indices, a, lab, nc, mstart, members, bound, tmp_idx, tmp_a,
                    count, deadline, stop):
    """The coarse rows ``c0..c1-1`` of :func:`contract`, each written from
    ``bound[c]`` (the sum of its members' degrees: room enough) with its
    length in ``count[c]``.  Once ``deadline`` passes (the clock read every
    ``CHECK_WORK`` slots gathered) or another range set ``stop[0]``, it sets
    ``stop[0]`` and returns."""
    acc = np.zeros(nc, dtype=np.float64)
    seen = np.full(nc, -1, dtype=np.int64)
    touched = np.empty(nc, dtype=np.int64)
    # np.int64: a literal 0 passed on would compile overdue once more for Literal[int](0)
    work = np.int64(0)
    mark = np.int64(0)
    for c in range(c0, c1):
        late, mark = overdue(deadline, work, mark)
        if late or stop[0]:
            stop[0] = 1
            return
        work += bound[c + 1] - bound[c]
        nt = 0
        for q in range(mstart[c], mstart[c + 1]):
            nt = _gather(members[q], c, c, indptr, indices, a, lab, acc, seen, touched, nt)
        pos = bound[c]
        for t in range(nt):  # first-encounter order: sorting the rows cost 3x the gathering
            cu = touched[t]
            if acc[cu] != 0.0:
                tmp_idx[pos] = cu
                tmp_a[pos] = acc[cu]
                pos += 1
        count[c] = pos - bound[c]


def contract(indptr, indices, a, lab, nc, parts, deadline=NO_DEADLINE):
    """Coarse graph with one vertex per cluster of ``lab`` (ids 0..nc-1).

    Coarse edge weight = sum of the signed weights between the two clusters
    (only that net weight matters for the moves of the coarse vertices);
    edges inside a cluster and zero-sum edges are dropped.  A row lists its
    neighbours in the order its members' rows meet them (no kernel needs
    sorted rows: every choice among clusters breaks ties by id).  Coarse rows
    are built independently (with ``parts`` > 1 in that many ranges of equal
    slot counts, side by side on threads, each row in its own place), so the
    result does not depend on ``parts`` or the threads.  Once ``deadline``
    passes it stops and returns no level (``out_ptr`` of size 1, not
    ``nc + 1``): a contraction of the input level of 10^7 edges takes
    seconds, which a search cut by its limit has no time for.

    The ranges run as nogil kernels on threads (:mod:`rapids_balance._chunks`),
    not as a ``prange`` inside one kernel: numba's parfor passes would cost
    seconds of a first call's compiling.
    """
    nc = int(nc)
    mstart, members, bound = _row_bounds(indptr, lab, nc)
    tmp_idx = np.empty(indices.size, dtype=np.int32)
    tmp_a = np.empty(indices.size, dtype=np.float64)
    count = np.zeros(nc, dtype=np.int64)
    parts = max(1, min(int(parts), nc))
    cut = np.searchsorted(bound, np.arange(parts + 1) * (bound[nc] / parts))
    cut[0] = 0
    cut[parts] = nc
    stop = np.zeros(1, dtype=np.int64)
    deadline = float(deadline)
    run_chunks(lambda t: _contract_range(cut[t], cut[t + 1], indptr, indices, a, lab, nc, mstart,
                                         members, bound, tmp_idx, tmp_a, count, deadline, stop),
               parts)
    if stop[0]:
        return np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int32), np.empty(0, np.float64)
    return _packed_rows(tmp_idx, tmp_a, bound, count, nc)


@numba.njit(cache=True, nogil=True)
def _row_bounds(indptr, lab, nc):
    """Members by cluster, and where each coarse row may be written: after the sum of the
    earlier rows' members' degrees (``bound``, ``nc + 1`` entries)."""
    mstart, members = members_by_cluster(lab, nc)
    bound = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        deg = 0
        for q in range(mstart[c], mstart[c + 1]):
            v = members[q]
            deg += indptr[v + 1] - indptr[v]
        bound[c + 1] = bound[c] + deg
    return mstart, members, bound


@numba.njit(cache=True, nogil=True)
def _packed_rows(tmp_idx, tmp_a, bound, count, nc):
    """The coarse CSR: each row's ``count[c]`` entries moved from ``bound[c]`` to their place."""
    out_ptr = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        out_ptr[c + 1] = out_ptr[c] + count[c]
    out_idx = np.empty(out_ptr[nc], dtype=np.int32)
    out_a = np.empty(out_ptr[nc], dtype=np.float64)
    for c in range(nc):
        # loops, not slice copies: those compile numba's shape-error messages (integer
        # formatting, seconds of a first call)
        for j in range(count[c]):
            out_idx[out_ptr[c] + j] = tmp_idx[bound[c] + j]
            out_a[out_ptr[c] + j] = tmp_a[bound[c] + j]
    return out_ptr, out_idx, out_a


@numba.njit(cache=True, nogil=True)
def imbalance_slots(indptr, indices, a, labels):
    """I(P) up to the constant of contracted edges: half the sum over slots of
    positive cut and negative uncut weight (each edge has two slots)."""
    tot = 0.0
    for u in range(labels.size):
        for p in range(indptr[u], indptr[u + 1]):
            same = labels[u] == labels[indices[p]]
            w = a[p]
            if w < 0.0 and same:
                tot -= w
            elif w > 0.0 and not same:
                tot += w
    return 0.5 * tot
