"""The host side of GPU betweenness: batches of sources folded into one device accumulator.

A batch runs in the block-per-source kernel (``._gpu._bc_kernel``, one
launch) or, where device memory holds too few sources to fill the GPU, with
each source over several blocks (``._gpu_split``); the occupancy model of
``._gpu`` (:func:`~._gpu.sources_in_flight`, :func:`~._gpu.blocks_per_source`)
decides.  Either way the two fold kernels then add each source's node and
edge shares to the accumulators in source order.
"""

from __future__ import annotations

import numpy as np

from ._gpu import (MAX_THREADS, _bc_kernel, _k_fold_edges, _k_fold_nodes, blocks_per_source,
                   device_limits)
from ._gpu_split import N_COUNTERS, N_MINIMA, split_sources


def _fold_tables(g, dev: dict) -> None:
    """Edge -> its CSR slots (``eptr``, ``eslots``) and slot -> its row, for the edge fold."""
    if "eslots" in dev:
        return
    from ..backend import to_device

    slot_edge = np.asarray(g.slot_edge, dtype=np.int64)
    eslots = np.argsort(slot_edge, kind="stable").astype(np.int32)
    eptr = np.zeros(g.m + 1, np.int64)
    np.cumsum(np.bincount(slot_edge, minlength=g.m), out=eptr[1:])
    slot_row = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(np.asarray(g.indptr)))
    dev.update(eptr=to_device(eptr, "gpu"), eslots=to_device(eslots, "gpu"),
               slot_row=to_device(slot_row, "gpu"))


class BetweennessFold:
    """Device accumulators of one betweenness computation, fed batch after batch.

    ``add(sources)`` runs Brandes' two phases for each source, one thread
    block a source (:func:`._gpu._bc_kernel`, one launch) or ``k`` blocks a
    source (:func:`._gpu_split.split_sources`, a launch per step of a level),
    then folds each source's node and edge shares into the accumulators in
    source order (:func:`._gpu._k_fold_nodes`, :func:`._gpu._k_fold_edges`).
    The sum is a left fold over the sources, so it is the same for any batch
    size and any ``k``.  ``result()`` reads the accumulators back (the only
    device-to-host copy).

    ``g`` is a prepared :class:`~rapids_balance.centrality._input.BCGraph`;
    ``tmask`` (int8 per vertex, or ``None`` for all) marks the targets, as in
    the CPU kernel's ``_accumulate``; ``batch`` is the most sources one
    ``add`` takes; ``blocks`` fixes ``k`` (``None``: the occupancy model's
    :func:`._gpu.blocks_per_source` for the device, per batch).
    """

    def __init__(self, g, batch: int, endpoints: bool, want_edges: bool, vw: int, threads: int,
                 tmask: np.ndarray | None = None, blocks: int | None = None):
        from ..backend import array_module, kernel_view, to_device

        if threads > MAX_THREADS or threads & (threads - 1) or threads % vw:
            raise ValueError(f"threads={threads} must be a power of two <= {MAX_THREADS} "
                             f"and a multiple of the virtual warp width {vw}")
        if blocks is not None and int(blocks) < 1:
            raise ValueError(f"blocks={blocks} must be at least 1")
        dev = g.device()
        if want_edges:
            _fold_tables(g, dev)
        n, m = g.n, g.m
        xp = array_module("gpu")
        mask = np.zeros(1, np.int8) if tmask is None or tmask.size == 0 else tmask
        self.n, self.batch, self.threads, self.vw = n, int(batch), threads, vw
        self.endpoints, self.want_edges = bool(endpoints), bool(want_edges)
        self.blocks = None if blocks is None else int(blocks)
        self.node = xp.zeros(n, dtype=np.float64)
        self.edge = xp.zeros(m if want_edges else 0, dtype=np.float64)
        rows = max(self.batch, 1)
        work = dict(dist=xp.empty((rows, n), np.float64), sigma=xp.empty((rows, n), np.float64),
                    delta=xp.empty((rows, n), np.float64), state=xp.empty((rows, n), np.int32),
                    stack=xp.empty((rows, n), np.int32), settled=xp.zeros(rows, np.int32))
        # numba's views, taken once for the whole computation (a launch converts nothing)
        self.v = {k: kernel_view(a) for k, a in {**dev, **work, "node": self.node,
                                                 "edge": self.edge}.items()}
        self.v["tmask"] = kernel_view(to_device(np.ascontiguousarray(mask, dtype=np.int8), "gpu"))
        self._rows = work
        self._scratch: dict | None = None
        self._nnz = int(g.indices.size)
        self._sms = None if self.blocks is not None else device_limits()[1]

    def blocks_for(self, sources: int) -> int:
        """Thread blocks each of ``sources`` sources gets in one ``add``."""
        if self.blocks is not None:
            return self.blocks
        return blocks_per_source(self.n, self._nnz, sources, self._sms, self.threads)

    def _split_scratch(self) -> dict:
        """A source's counters and minima for the split kernels, and the host's running record."""
        if self._scratch is None:
            from ..backend import array_module, kernel_view

            xp = array_module("gpu")
            rows = max(self.batch, 1)
            run = xp.zeros(2, np.int32)
            self._scratch = {"ctr": kernel_view(xp.zeros((rows, N_COUNTERS), np.int32)),
                             "minima": kernel_view(xp.zeros((rows, N_MINIMA), np.float64)),
                             "run": run}
        return self._scratch

    def add(self, sources: np.ndarray) -> None:
        """Fold the shares of ``sources`` (at most ``batch`` of them) into the accumulators."""
        from ..backend import kernel_view, launch_config, to_device

        B = int(sources.size)
        if B == 0:
            return
        if B > self.batch:
            raise ValueError(f"{B} sources in a batch of at most {self.batch}")
        v = self.v
        src = kernel_view(to_device(np.ascontiguousarray(sources, dtype=np.int32), "gpu"))
        rows = {k: (v[k] if B == self.batch else kernel_view(a[:B]))
                for k, a in self._rows.items()}
        k = self.blocks_for(B)
        if k == 1:
            _bc_kernel[B, self.threads](
                src, self.n, v["indptr"], v["indices"], v["wslot"], v["rindptr"], v["rindices"],
                v["rwslot"], v["minw"], self.want_edges, v["tmask"], self.vw, rows["dist"],
                rows["sigma"], rows["delta"], rows["state"], rows["stack"], rows["settled"])
        else:
            split_sources(v, rows, src, k, self.threads, self.vw, self.want_edges,
                          self._split_scratch())
        _k_fold_nodes[launch_config(self.n)](src, rows["delta"], rows["state"], rows["settled"],
                                            self.endpoints, v["node"])
        if self.want_edges:
            _k_fold_edges[launch_config(self.edge.size)](
                src, v["eptr"], v["eslots"], v["slot_row"], v["indices"], v["wslot"],
                v["rindptr"], v["rindices"], v["rwslot"], v["tmask"], rows["dist"],
                rows["sigma"], rows["delta"], rows["state"], v["edge"])

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """The accumulated (node, edge) scores as host arrays."""
        from ..backend import to_host

        return to_host(self.node), to_host(self.edge)
