"""Batches of consecutive work ids, generated on demand.

Every capability cuts its work (tree ids, restart ids) into consecutive
ranges.  :class:`RangeBatches` is that cut as a lazy sequence: it knows its
length and computes the ``i``-th range when asked, so a run of ``10**12``
trees holds one range at a time, never a list of ``10**12 / batch_size``
ranges (which would need tens of GB before the first tree is built).
:class:`WorkerBatches` is a cut left to the cluster: its size is chosen
from the number of workers when the run starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["RangeBatches", "WorkerBatches", "MAX_TASKS", "check_task_count"]

#: most batches one run submits: the scheduler holds state for every task it knows
MAX_TASKS = 200_000


def check_task_count(n_batches: int, what: str) -> None:
    """Refuse, before anything is submitted, a run of more than :data:`MAX_TASKS` batches."""
    if n_batches > MAX_TASKS:
        from ..errors import InvalidParameterError

        raise InvalidParameterError(
            f"{what} would submit {n_batches} tasks to the Dask cluster, more than its limit of "
            f"{MAX_TASKS} (the scheduler keeps state for every task); pass a larger batch_size "
            "or split the run")


class RangeBatches(Sequence):
    """``range(0, n)`` cut into consecutive ranges of ``size`` ids (the last may be shorter).

    Parameters
    ----------
    n : int
        Number of ids (``>= 0``).
    size : int
        Ids per batch (``>= 1``).

    Examples
    --------
    >>> list(RangeBatches(10, 4))
    [range(0, 4), range(4, 8), range(8, 10)]
    >>> len(RangeBatches(10**12, 64))
    15625000000
    """

    __slots__ = ("n", "size")

    def __init__(self, n: int, size: int):
        n, size = int(n), int(size)
        if size < 1:
            raise ValueError(f"batch_size must be at least 1, got {size}")
        if n < 0:
            raise ValueError(f"the number of ids must be >= 0, got {n}")
        self.n, self.size = n, size

    def __len__(self) -> int:
        return -(-self.n // self.size)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        k = len(self)
        i = int(i)
        if i < 0:
            i += k
        if not 0 <= i < k:
            raise IndexError("batch index out of range")
        a = i * self.size
        return range(a, min(a + self.size, self.n))

    def __iter__(self) -> Iterator[range]:
        for a in range(0, self.n, self.size):
            yield range(a, min(a + self.size, self.n))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RangeBatches):
            return (self.n, self.size) == (other.n, other.size) or (len(self) == len(other) == 0)
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compares like a list

    def __repr__(self) -> str:
        return f"RangeBatches(n={self.n}, size={self.size})"


@dataclass(frozen=True)
class WorkerBatches:
    """``range(0, n)`` cut by the cluster: about ``per_worker`` batches per worker.

    Several batches per worker keep every worker busy to the end and make a
    lost worker cheap to redo.  ``max_size`` caps a batch (memory) unless
    that would make more than :data:`MAX_TASKS` batches, when batches grow
    instead (the per-batch functions work through a large batch in chunks).

    Use it only where the cut cannot change the result (integer counters,
    best-of with ties to the smallest id), never for floating-point sums,
    whose batches must be those of the single-process path.

    Parameters
    ----------
    n : int
        Number of ids (``>= 0``).
    max_size : int, optional
        Most ids per batch.
    per_worker : int
        Batches per worker (``>= 1``).

    Examples
    --------
    >>> WorkerBatches(30, per_worker=2).for_workers(2)
    RangeBatches(n=30, size=8)
    >>> WorkerBatches(30, max_size=4).for_workers(1)
    RangeBatches(n=30, size=4)
    """

    n: int
    max_size: int | None = None
    per_worker: int = 4

    def for_workers(self, workers: int) -> RangeBatches:
        """The cut for a cluster of ``workers`` workers."""
        n = int(self.n)
        size = -(-n // (int(self.per_worker) * max(1, int(workers))))
        if self.max_size is not None:
            size = max(min(size, int(self.max_size)), -(-n // MAX_TASKS))
        return RangeBatches(n, max(1, size))
