"""Local-search state on the CPU: a graph level plus a clustering and its sums.

:class:`Level` is a graph in CSR form with one signed weight per slot (the
input graph, or a contracted one).  :class:`CPUState` owns the arrays of
:mod:`._cpu` and offers the moves the metaheuristics need: the paper's
best-move VND (alone, or with the cluster-merge neighbourhood),
label-propagation sweeps, parallel rounds, perturbation, undo and
snapshot rollback.  :class:`rapids_balance.clustering._gpu.GPUState` offers the same
local searches with every array on the device.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _cpu
from .._deadline import NO_DEADLINE, passed

_EMPTY_I32 = np.zeros(0, dtype=np.int32)
_EMPTY_BOOL = np.zeros(0, dtype=np.bool_)
_EMPTY_I64 = np.zeros(0, dtype=np.int64)


@dataclass
class Level:
    """A graph level: CSR (``indptr`` int64, ``indices`` int32) and signed slot weights ``a``.

    ``work`` counts the adjacency entries the CPU kernels scanned (label
    propagation, contraction, building and evaluating the sums): one
    counter shared by a level and the levels contracted from it.
    """

    indptr: np.ndarray
    indices: np.ndarray
    a: np.ndarray
    work: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))

    def __post_init__(self) -> None:
        # the kernels only read the CSR: read-only views on every level, so a coarse level's
        # arrays have the input graph's numba type (read-only) and the kernels compile once
        for name in ("indptr", "indices"):
            arr = getattr(self, name)
            if arr.flags.writeable:
                arr = arr.view()
                arr.flags.writeable = False
                setattr(self, name, arr)

    def count(self, entries: int) -> None:
        """Add ``entries`` scanned adjacency entries to :attr:`work`."""
        self.work[0] += entries

    @classmethod
    def of_graph(cls, graph) -> "Level":
        """The input graph as the finest level (weights signed by the edge signs)."""
        from ._objective import slot_weights

        return cls(np.asarray(graph.indptr), np.asarray(graph.indices), slot_weights(graph))

    @property
    def n(self) -> int:
        return self.indptr.size - 1

    @property
    def tol(self) -> float:
        # gains smaller than this are rounding noise, never an improvement
        return 1e-9 * (float(np.abs(self.a).max()) if self.a.size else 1.0)


def propagate(level: Level, labels: np.ndarray, seed: int, stream: int, max_sweeps: int,
              min_moves: int = 1, constraint: np.ndarray | None = None, max_clusters: int = 0,
              deadline: float = NO_DEADLINE, vertex_weight: np.ndarray | None = None,
              max_weight: int = 0, info: dict | None = None) -> np.ndarray:
    """Label-propagation sweeps of :meth:`CPUState.sweeps` (same moves on integer
    weights) without building the sparse sums: for coarsening and the
    multilevel refinement, where nothing else needs them.  With
    ``max_weight`` > 0 no cluster grows past that total ``vertex_weight``.
    Returns new labels; ``info["converged"]`` says whether the last sweep
    found no move (then the labels are a 1-opt local optimum)."""
    n = level.n
    lab = np.ascontiguousarray(labels, dtype=np.int32).copy()
    csize = np.zeros(n, np.int32)
    free = np.zeros(n, np.int32)
    nfree = np.zeros(1, np.int64)
    nclus = np.zeros(1, np.int64)
    _cpu.reset_clusters(lab, csize, free, nfree, nclus)
    if constraint is None:
        cons = ccons = _EMPTY_I32
    else:
        cons = np.ascontiguousarray(constraint, dtype=np.int32)
        ccons = np.zeros(n, np.int32)
        ccons[lab] = cons  # every cluster holds vertices of one constraint class
    _, _, scanned, converged = _cpu.sweeps_dense(
        max_sweeps, seed, stream, level.indptr, level.indices, level.a, lab, csize, free, nfree,
        nclus, int(max_clusters or 0), level.tol, constraint is not None, cons, ccons, min_moves,
        deadline, _EMPTY_I64 if vertex_weight is None else vertex_weight, int(max_weight))
    level.count(scanned)
    if info is not None:
        info["converged"] = bool(converged)
    return lab


class CPUState:
    """A clustering of a :class:`Level` with its sparse sums (CPU arrays).

    The local searches stop early at ``deadline`` (``time.perf_counter()``
    seconds), leaving a valid clustering no worse than where they started.
    """

    def __init__(self, level: Level, labels: np.ndarray, max_clusters: int = 0,
                 log_capacity: int = 0, deadline: float = NO_DEADLINE):
        self.level = level
        self.deadline = deadline
        n = level.n
        self.n = n
        self.maxc = int(max_clusters or 0)
        self.tol = level.tol
        self.labels = np.ascontiguousarray(labels, dtype=np.int32).copy()
        self.csize = np.zeros(n, np.int32)
        self.free = np.zeros(n, np.int32)
        self.nfree = np.zeros(1, np.int64)
        self.nclus = np.zeros(1, np.int64)
        slots = level.indices.size
        self.tid = np.zeros(slots, np.int32)
        self.tsum = np.zeros(slots, np.float64)
        self.tcnt = np.zeros(slots, np.int32)
        self.tlen = np.zeros(n, np.int32)
        self.bd = np.zeros(n, np.float64)
        self.bk = np.zeros(n, np.int32)
        self.size = 1 << max(1, int(np.ceil(np.log2(max(n, 2)))))
        self.tree_d = np.zeros(2 * self.size, np.float64)
        self.tree_v = np.zeros(2 * self.size, np.int32)
        self.log_v = np.zeros(log_capacity, np.int32)
        self.log_k = np.zeros(log_capacity, np.int32)
        self.nlog = np.zeros(1, np.int64)
        self.dirty = np.zeros(n, np.bool_)
        self.dlist = np.zeros(n, np.int32)
        self._saved: tuple[np.ndarray, ...] | None = None
        self.reset(self.labels)

    # -- whole-state operations ------------------------------------------
    def reset(self, labels: np.ndarray) -> None:
        """Take ``labels`` (ids in 0..n-1) and rebuild sizes, stack, sums, best moves."""
        self.labels[:] = labels
        _cpu.reset_clusters(self.labels, self.csize, self.free, self.nfree, self.nclus)
        lv = self.level
        _cpu.build_tables(lv.indptr, lv.indices, lv.a, self.labels, self.tid, self.tsum, self.tcnt,
                          self.tlen, _EMPTY_BOOL)
        lv.count(lv.indices.size)
        self._tree_ready = False

    def _ensure_tree(self) -> None:
        if not self._tree_ready:
            allow = self.maxc <= 0 or self.nclus[0] < self.maxc
            _cpu.eval_all(self.level.indptr, self.labels, self.tid, self.tsum, self.tlen, allow,
                          self.tol, False, _EMPTY_I32, _EMPTY_I32, self.bd, self.bk)
            _cpu.tree_build(self.tree_d, self.tree_v, self.size, self.bd, self.n)
            self.level.count(self.level.indices.size)  # at most every table entry
            self._tree_ready = True

    def imbalance(self) -> float:
        lv = self.level
        return float(_cpu.imbalance_slots(lv.indptr, lv.indices, lv.a, self.labels))

    # -- local searches ------------------------------------------------------
    def vnd_best(self, max_moves: int = 2**62) -> tuple[int, float]:
        """The paper's VND: best improving move first until a local optimum."""
        self._ensure_tree()
        lv = self.level
        return _cpu.vnd_best(lv.indptr, lv.indices, lv.a, self.labels, self.csize, self.free,
                             self.nfree, self.nclus, self.maxc, self.tid, self.tsum, self.tcnt,
                             self.tlen, self.bd, self.bk, self.tree_d, self.tree_v, self.size,
                             self.tol, max_moves, self.log_v, self.log_k, self.nlog,
                             self.deadline)

    def vnd_merge(self) -> tuple[int, float]:
        """VND over two neighbourhoods: 1-opt moves (best first), and when none
        improves, the best merge of two whole clusters; until neither improves."""
        moves, gain = self.vnd_best()
        lv = self.level
        while not passed(self.deadline):
            s, ka, kb = _cpu.best_merge(lv.indptr, self.labels, self.tid, self.tsum, self.tlen,
                                        self.csize, self.tol)
            if ka < 0:
                return moves, gain
            _cpu.merge_clusters(ka, kb, lv.indptr, lv.indices, lv.a, self.labels, self.csize,
                                self.free, self.nfree, self.nclus, self.maxc, self.tid, self.tsum,
                                self.tcnt, self.tlen, self.bd, self.bk, self.tree_d, self.tree_v,
                                self.size, self.tol, self.log_v, self.log_k, self.nlog, self.dirty,
                                self.dlist)
            m2, g2 = self.vnd_best()
            moves += 1 + m2
            gain += g2 - s
        return moves, gain

    def sweeps(self, seed: int, stream: int, max_sweeps: int = 100, min_moves: int = 1,
               constraint: np.ndarray | None = None) -> tuple[int, float]:
        """Label-propagation sweeps (first improvement, seeded random order)."""
        lv = self.level
        if constraint is None:
            cons = ccons = _EMPTY_I32
        else:
            cons = np.ascontiguousarray(constraint, dtype=np.int32)
            ccons = np.zeros(self.n, np.int32)
            ccons[self.labels] = cons  # every cluster holds vertices of one constraint class
        out = _cpu.sweeps(max_sweeps, seed, stream, lv.indptr, lv.indices, lv.a, self.labels,
                          self.csize, self.free, self.nfree, self.nclus, self.maxc, self.tid,
                          self.tsum, self.tcnt, self.tlen, self.tol, constraint is not None,
                          cons, ccons, self.bd, self.bk, min_moves, self.deadline)
        self._tree_ready = False
        return out

    def parallel(self, max_rounds: int = 2**62) -> tuple[int, float]:
        """Rounds of non-conflicting improving moves until a local optimum."""
        lv = self.level
        mover = np.zeros(self.n, np.bool_)
        mark = np.zeros(self.n, np.bool_)
        touched = np.zeros(2 * self.n, np.int32)
        moves = 0
        gain = 0.0
        allow = self.maxc <= 0 or self.nclus[0] < self.maxc
        _cpu.eval_all(lv.indptr, self.labels, self.tid, self.tsum, self.tlen, allow, self.tol,
                      False, _EMPTY_I32, _EMPTY_I32, self.bd, self.bk)
        self.rounds = 0
        for _ in range(max_rounds):
            if passed(self.deadline):
                break
            self.rounds += 1
            _cpu.select_movers(lv.indptr, lv.indices, self.bd, self.bk, mover)
            mv, g, nt = _cpu.apply_round(lv.indptr, lv.indices, self.labels, self.csize, self.free,
                                         self.nfree, self.nclus, self.maxc, self.bd, self.bk,
                                         mover, mark, touched)
            if mv == 0:
                break
            moves += mv
            gain += g
            now = self.maxc <= 0 or self.nclus[0] < self.maxc
            if now != allow or nt > self.n // 4:
                allow = now
                _cpu.build_tables(lv.indptr, lv.indices, lv.a, self.labels, self.tid, self.tsum,
                                  self.tcnt, self.tlen, mark)
                _cpu.eval_all(lv.indptr, self.labels, self.tid, self.tsum, self.tlen, allow,
                              self.tol, False, _EMPTY_I32, _EMPTY_I32, self.bd, self.bk)
            else:
                _cpu.refresh_list(lv.indptr, lv.indices, lv.a, self.labels, self.tid, self.tsum,
                                  self.tcnt, self.tlen, allow, self.tol, touched, nt, mark,
                                  self.bd, self.bk)
            mark[touched[:nt]] = False
        self._tree_ready = False
        return moves, gain

    # -- ILS support -----------------------------------------------------------
    def start_log(self) -> None:
        self.nlog[0] = 0

    def log_overflowed(self) -> bool:
        return bool(self.nlog[0] > self.log_v.size)

    def perturb(self, level: int, seed: int, stream: int, counter: int, kinds: int = 3) -> float:
        """``level`` kicks; ``kinds`` = 1: single-vertex moves only, 3: also merges and splits."""
        self._ensure_tree()
        lv = self.level
        return float(_cpu.perturb(level, kinds, seed, stream, counter, lv.indptr, lv.indices, lv.a,
                                  self.labels, self.csize, self.free, self.nfree, self.nclus,
                                  self.maxc, self.tid, self.tsum, self.tcnt, self.tlen, self.bd,
                                  self.bk, self.tree_d, self.tree_v, self.size, self.tol,
                                  self.log_v, self.log_k, self.nlog, self.dirty, self.dlist))

    _SNAPSHOT = ("labels", "csize", "free", "nfree", "nclus", "tid", "tsum", "tcnt", "tlen", "bd",
                 "bk", "tree_d", "tree_v")

    def save(self) -> None:
        """Snapshot the whole state (clustering, sums, best moves) for :meth:`rollback`."""
        self._ensure_tree()
        self._saved = tuple(getattr(self, name).copy() for name in self._SNAPSHOT)

    def rollback(self) -> None:
        """Return to the last :meth:`save`, by undoing the logged moves when they are
        few, else by copying the snapshot back (cheaper on dense graphs, where a
        split cluster and the VND after it touch every table)."""
        lv = self.level
        if (not self.log_overflowed()
                and 8 * _cpu.logged_degree(lv.indptr, self.log_v, self.nlog) < lv.indices.size):
            self.undo()
            return
        for name, arr in zip(self._SNAPSHOT, self._saved):
            getattr(self, name)[:] = arr
        self.nlog[0] = 0
        self._tree_ready = True

    def undo(self) -> None:
        self._ensure_tree()
        lv = self.level
        _cpu.undo(lv.indptr, lv.indices, lv.a, self.labels, self.csize, self.free, self.nfree,
                  self.nclus, self.maxc, self.tid, self.tsum, self.tcnt, self.tlen, self.bd,
                  self.bk, self.tree_d, self.tree_v, self.size, self.tol, self.log_v, self.log_k,
                  self.nlog, self.dirty, self.dlist)
