"""Batches of consecutive work ids, made on demand.

Every capability cuts its work (tree ids, restart ids) into consecutive
ranges.  :class:`RangeBatches` is that cut as a lazy sequence, so a run of
``10**12`` trees holds one range at a time, not tens of GB of ranges before
the first tree is built; :class:`WorkerBatches` leaves the batch size to the
cluster at hand.
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

    def __getitem__(self, i: Any) -> range:
        i = int(i) + (len(self) if int(i) < 0 else 0)
        if not 0 <= i < len(self):
            raise IndexError("batch index out of range")
        return range(i * self.size, min((i + 1) * self.size, self.n))

    def __iter__(self) -> Iterator[range]:
        return (range(a, min(a + self.size, self.n)) for a in range(0, self.n, self.size))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # compares like a list

    def __repr__(self) -> str:
        return f"RangeBatches(n={self.n}, size={self.size})"


@dataclass(frozen=True)
class WorkerBatches:
    """``range(0, n)`` cut by the cluster: about ``per_worker`` batches per worker.

    Several batches per worker keep every worker busy to the end and make a
    lost worker cheap to redo.  ``max_size`` caps a batch (memory) unless that
    would make more than :data:`MAX_TASKS` batches.  Only for results the cut
    cannot change (integer counters, best-of with ties to the smallest id),
    never for floating-point sums.

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
