"""GPU (numba-cuda) kernels of the 1-opt local search.

Everything stays on the device: the sparse sums (:mod:`._tables`, the same
``@numba.njit`` bodies as the CPU kernels, called as device functions), move
evaluation, the best-move reduction and the sum updates.  The best-move VND
runs all its moves in one launch of one block (``k_vnd``: reduce, relabel,
update, re-evaluate, separated by block barriers), and the host reads (moves,
gain) once at the end; the paper lost 95 % of its time copying the sum
matrices instead, and a launch and two host reads per move would cost more
than the move.

Kernels run under numba's CUDA simulator when ``NUMBA_ENABLE_CUDASIM=1``
(tests use graphs of tens of vertices there).  Results equal the CPU path
exactly: same table operations in the same order, same tie-breaking.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from numba import cuda, float64, int32

from ..backend import (array_module, device_function, gpu_kernel, host_read, kernel_view, launch_config,
                       simulator_enabled, to_host)
from . import _tables
from ._state import Level
from ._tables import NEW_CLUSTER


table_add = device_function(_tables.table_add)
table_sub = device_function(_tables.table_sub)
best_move = device_function(_tables.best_move)
relabel = device_function(_tables.relabel)
is_mover = device_function(_tables.is_mover)
better = device_function(_tables.better)

# the simulator runs each thread as a Python thread: keep its reduction block small
_REDUCE_THREADS = 32 if simulator_enabled() else 256


@gpu_kernel
def k_build(indptr, indices, a, labels, tid, tsum, tcnt, tlen, mark, use_mark):
    u = cuda.grid(1)
    if u < labels.size:
        if use_mark and not mark[u]:
            return
        # the loop of _tables.rebuild_table written out: under the simulator
        # a shared body cannot call another compiled one
        tlen[u] = 0
        for p in range(indptr[u], indptr[u + 1]):
            table_add(tid, tsum, tcnt, tlen, indptr, u, labels[indices[p]], a[p])


@gpu_kernel
def k_eval(indptr, labels, tid, tsum, tlen, allow_new, tol, bd, bk):
    u = cuda.grid(1)
    if u < labels.size:
        best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, False, labels,
                  labels, bd, bk)


@gpu_kernel
def k_eval_around(vbuf, indptr, indices, labels, tid, tsum, tlen, allow_new, tol, bd, bk):
    # thread 0: the moved vertex; thread i > 0: its (i-1)-th neighbour
    i = cuda.grid(1)
    v = vbuf[0]
    s = indptr[v]
    if i <= indptr[v + 1] - s:
        u = v if i == 0 else indices[s + i - 1]
        best_move(u, labels[u], indptr, tid, tsum, tlen, allow_new, tol, False, labels,
                  labels, bd, bk)


@cuda.jit(device=True)
def _block_argmin(bd, sd, sv):
    """The best move of ``bd`` (lowest gain, then lowest vertex) into ``sd[0], sv[0]``, reduced by
    the whole block (every thread calls it; it ends on a barrier)."""
    t = cuda.threadIdx.x
    n = bd.size
    best_d = 0.0
    best_v = n
    for i in range(t, n, _REDUCE_THREADS):
        if better(bd[i], i, best_d, best_v):
            best_d = bd[i]
            best_v = i
    sd[t] = best_d
    sv[t] = best_v
    cuda.syncthreads()
    step = _REDUCE_THREADS // 2
    while step > 0:
        if t < step and better(sd[t + step], sv[t + step], sd[t], sv[t]):
            sd[t] = sd[t + step]
            sv[t] = sv[t + step]
        cuda.syncthreads()
        step //= 2


@gpu_kernel(layout="fixed")
def k_argmin(bd, out_d, out_v):
    # one block; (gain, vertex) is a total order, so any reduction order
    # gives the same winner as the CPU segment tree
    sd = cuda.shared.array(_REDUCE_THREADS, float64)
    sv = cuda.shared.array(_REDUCE_THREADS, int32)
    _block_argmin(bd, sd, sv)
    if cuda.threadIdx.x == 0:
        out_d[0] = sd[0]
        out_v[0] = sv[0]


@gpu_kernel(layout="fixed")
def k_relabel(vbuf, bk, labels, csize, free, nfree, nclus, moved):
    if cuda.grid(1) == 0:
        v = vbuf[0]
        moved[0] = labels[v]
        moved[1] = relabel(v, bk[v], labels, csize, free, nfree, nclus)


@gpu_kernel
def k_update_neighbours(vbuf, moved, indptr, indices, a, tid, tsum, tcnt, tlen):
    # a vertex appears once in v's row, so each thread owns one table
    i = cuda.grid(1)
    v = vbuf[0]
    s = indptr[v]
    if i < indptr[v + 1] - s:
        u = indices[s + i]
        table_sub(tid, tsum, tcnt, tlen, indptr, u, moved[0], a[s + i])
        table_add(tid, tsum, tcnt, tlen, indptr, u, moved[1], a[s + i])


@gpu_kernel
def k_select(indptr, indices, bd, bk, mover, want_new):
    u = cuda.grid(1)
    if u < bd.size:
        m = is_mover(u, indptr, indices, bd, bk)
        mover[u] = m
        want_new[u] = 1 if (m and bk[u] == NEW_CLUSTER) else 0


@gpu_kernel
def k_apply(indptr, indices, labels, bk, mover, rank, room, free, top, mark):
    # new clusters take stack ids in vertex order (rank = exclusive prefix
    # count), as the CPU's sequential loop does
    v = cuda.grid(1)
    if v < labels.size and mover[v]:
        k2 = bk[v]
        if k2 == NEW_CLUSTER:
            r = rank[v]
            if r >= room:
                mover[v] = False
                return
            k2 = free[top - 1 - r]
        labels[v] = k2
        for p in range(indptr[v], indptr[v + 1]):
            mark[indices[p]] = True


@gpu_kernel(layout="fixed")
def k_vnd(max_moves, maxc, allow0, tol, indptr, indices, a, labels, tid, tsum, tcnt, tlen, bd, bk,
          csize, free, nfree, nclus, out):
    """The best-move VND, every move in this one launch (one block, no host round trip).

    Per move, the steps of ``k_argmin``, ``k_relabel``, ``k_update_neighbours``
    and ``k_eval_around`` (or ``k_eval`` when the cluster cap opens or closes)
    in that order, separated by block barriers: the same operations on the same
    tables as those launches, so the same moves.  Every thread takes the same
    branch: each decision reads shared memory or tables after a barrier.
    ``out`` gets (moves, gain).
    """
    sd = cuda.shared.array(_REDUCE_THREADS, float64)
    sv = cuda.shared.array(_REDUCE_THREADS, int32)
    sm = cuda.shared.array(2, int32)
    t = cuda.threadIdx.x
    n = bd.size
    allow = allow0
    moves = 0
    gain = 0.0
    while moves < max_moves:
        _block_argmin(bd, sd, sv)
        d = sd[0]
        v = sv[0]
        if not d < -tol:
            break
        if t == 0:
            sm[0] = labels[v]
            sm[1] = relabel(v, bk[v], labels, csize, free, nfree, nclus)
        cuda.syncthreads()
        s = indptr[v]
        deg = indptr[v + 1] - s
        for i in range(t, deg, _REDUCE_THREADS):
            u = indices[s + i]
            table_sub(tid, tsum, tcnt, tlen, indptr, u, sm[0], a[s + i])
            table_add(tid, tsum, tcnt, tlen, indptr, u, sm[1], a[s + i])
        cuda.syncthreads()
        moves += 1
        gain += d
        now = True
        if maxc > 0:
            now = nclus[0] < maxc
        if now != allow:
            allow = now
            for u in range(t, n, _REDUCE_THREADS):
                best_move(u, labels[u], indptr, tid, tsum, tlen, allow, tol, False, labels, labels, bd, bk)
        else:
            for i in range(t, deg + 1, _REDUCE_THREADS):
                u = v if i == 0 else indices[s + i - 1]
                best_move(u, labels[u], indptr, tid, tsum, tlen, allow, tol, False, labels, labels, bd, bk)
        cuda.syncthreads()
    if t == 0:
        out[0] = moves
        out[1] = gain


_KERNELS = dict(build=k_build, eval=k_eval, eval_around=k_eval_around, argmin=k_argmin,
                relabel=k_relabel, update=k_update_neighbours, select=k_select, apply=k_apply, vnd=k_vnd)


class GPUState:
    """A clustering of a :class:`Level` with its sums, all on the device."""

    def __init__(self, level: Level, labels: np.ndarray, max_clusters: int = 0):
        self.k = _KERNELS
        self.xp = array_module("gpu")
        xp = self.xp
        self.level = level
        self.n = level.n
        self.maxc = int(max_clusters or 0)
        self.tol = level.tol
        self.h_indptr = level.indptr
        # own (writable) copies: the simulator writes kernel arguments back
        self.indptr = xp.array(level.indptr, dtype=np.int64)
        self.indices = xp.array(level.indices, dtype=np.int32)
        self.a = xp.array(level.a, dtype=np.float64)
        n, slots = self.n, level.indices.size
        self.labels = xp.array(np.ascontiguousarray(labels, dtype=np.int32))
        self.tid = xp.zeros(max(slots, 1), dtype=np.int32)
        self.tsum = xp.zeros(max(slots, 1), dtype=np.float64)
        self.tcnt = xp.zeros(max(slots, 1), dtype=np.int32)
        self.tlen = xp.zeros(n, dtype=np.int32)
        self.bd = xp.zeros(n, dtype=np.float64)
        self.bk = xp.zeros(n, dtype=np.int32)
        self.mark = xp.zeros(n, dtype=np.bool_)
        self.nfree = xp.zeros(1, dtype=np.int64)
        self.nclus = xp.zeros(1, dtype=np.int64)
        self.csize = xp.zeros(n, dtype=np.int32)
        self.free = xp.zeros(n, dtype=np.int32)
        # numba's views of the arrays above, taken once: every launch of every search
        # passes these (the arrays are only ever updated in place), so none converts anything
        self.v = SimpleNamespace(**{name: kernel_view(getattr(self, name)) for name in (
            "indptr", "indices", "a", "labels", "tid", "tsum", "tcnt", "tlen", "bd", "bk", "mark",
            "nfree", "nclus", "csize", "free")})
        self._reset_clusters()
        blocks, threads = launch_config(n)
        v = self.v
        self.k["build"][blocks, threads](v.indptr, v.indices, v.a, v.labels, v.tid, v.tsum, v.tcnt,
                                         v.tlen, v.mark, False)

    def _reset_clusters(self) -> None:
        """Sizes, free stack (empty ids, smallest on top), count: as the CPU's reset_clusters."""
        xp = self.xp
        self.csize[:] = xp.bincount(self.labels, minlength=self.n)
        empty = xp.nonzero(self.csize == 0)[0][::-1].astype(np.int32)
        self.free[:] = 0
        self.free[: empty.size] = empty
        self.nfree[0] = empty.size
        self.nclus[0] = self.n - int(empty.size)

    def _allow_new(self) -> bool:
        return self.maxc <= 0 or int(host_read(self.nclus)[0]) < self.maxc

    def _eval_all(self, allow: bool) -> None:
        blocks, threads = launch_config(self.n)
        v = self.v
        self.k["eval"][blocks, threads](v.indptr, v.labels, v.tid, v.tsum, v.tlen, allow, self.tol,
                                        v.bd, v.bk)

    def host_labels(self) -> np.ndarray:
        return to_host(self.labels).astype(np.int32)

    def vnd_best(self, max_moves: int = 2**62) -> tuple[int, float]:
        """The paper's VND on the device: evaluate, reduce, update, repeat -- in one launch.

        One block runs every move (``k_vnd``); the host reads (moves, gain)
        once at the end.  :meth:`vnd_best_stepwise` is the same search with
        one launch per step, kept as the reference the tests compare with.
        """
        xp = self.xp
        allow = self._allow_new()
        self._eval_all(allow)
        out = xp.zeros(2, dtype=np.float64)
        v = self.v
        self.k["vnd"][1, _REDUCE_THREADS](
            np.int64(min(max_moves, 2**62)), np.int64(self.maxc), allow, self.tol, v.indptr,
            v.indices, v.a, v.labels, v.tid, v.tsum, v.tcnt, v.tlen, v.bd, v.bk, v.csize, v.free,
            v.nfree, v.nclus, out)
        moves, gain = to_host(out)
        return int(moves), float(gain)

    def vnd_best_stepwise(self, max_moves: int = 2**62) -> tuple[int, float]:
        """:meth:`vnd_best` with one launch per step and two host reads per move."""
        xp, k, v = self.xp, self.k, self.v
        allow = self._allow_new()
        self._eval_all(allow)
        out_d = xp.zeros(1, dtype=np.float64)
        vbuf = xp.zeros(1, dtype=np.int32)
        moved = xp.zeros(2, dtype=np.int32)
        out_v, vbuf_v, moved_v = map(kernel_view, (out_d, vbuf, moved))
        moves, gain = 0, 0.0
        while moves < max_moves:
            k["argmin"][1, _REDUCE_THREADS](v.bd, out_v, vbuf_v)
            d = float(host_read(out_d)[0])
            if not d < -self.tol:
                break
            u = int(host_read(vbuf)[0])
            deg = int(self.h_indptr[u + 1] - self.h_indptr[u])
            k["relabel"][1, 1](vbuf_v, v.bk, v.labels, v.csize, v.free, v.nfree, v.nclus, moved_v)
            if deg:
                b, t = launch_config(deg)
                k["update"][b, t](vbuf_v, moved_v, v.indptr, v.indices, v.a, v.tid, v.tsum, v.tcnt,
                                  v.tlen)
            moves += 1
            gain += d
            now = self._allow_new() if self.maxc > 0 else True
            if now != allow:
                allow = now
                self._eval_all(allow)
            else:
                b, t = launch_config(deg + 1)
                k["eval_around"][b, t](vbuf_v, v.indptr, v.indices, v.labels, v.tid, v.tsum, v.tlen,
                                       allow, self.tol, v.bd, v.bk)
        return moves, gain

    def parallel(self, max_rounds: int = 2**62) -> tuple[int, float]:
        """Rounds of non-conflicting improving moves, every step on the device."""
        xp, k, v = self.xp, self.k, self.v
        blocks, threads = launch_config(self.n)
        mover = xp.zeros(self.n, dtype=np.bool_)
        want_new = xp.zeros(self.n, dtype=np.int64)
        rank = xp.zeros(self.n, dtype=np.int64)
        mover_v, want_v, rank_v = map(kernel_view, (mover, want_new, rank))
        moves, gain = 0, 0.0
        allow = self._allow_new()
        self._eval_all(allow)
        for _ in range(max_rounds):
            k["select"][blocks, threads](v.indptr, v.indices, v.bd, v.bk, mover_v, want_v)
            xp.cumsum(want_new, out=rank)
            rank -= want_new
            room = self.n if self.maxc <= 0 else self.maxc - int(host_read(self.nclus)[0])
            top = int(host_read(self.nfree)[0])
            self.mark[:] = False
            k["apply"][blocks, threads](v.indptr, v.indices, v.labels, v.bk, mover_v, rank_v, room,
                                        v.free, top, v.mark)
            mv = int(host_read(mover.sum()))
            if mv == 0:
                break
            moves += mv
            gain += float(to_host(self.bd[mover].sum()))
            self._reset_clusters()
            k["build"][blocks, threads](v.indptr, v.indices, v.a, v.labels, v.tid, v.tsum, v.tcnt,
                                        v.tlen, v.mark, True)
            allow = self._allow_new()
            self._eval_all(allow)
        return moves, gain
