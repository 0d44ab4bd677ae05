"""The frustration cloud of graphB++: distinct balanced states, counts, switches.

graphB++ (Alg. 2) keeps, for every distinct nearest balanced state, how many
trees produced it and how many edge signs it switches.  Here a state is the
canonical bit vector of :mod:`._states` (a bipartition up to swapping the
sides).  States are looked up by a 64-bit hash of the bits and *confirmed* by
comparing the bits, so two different states never merge, even when their
hashes collide.

Work is cut into fixed batches of tree ids.  :func:`_cloud_partial` turns one
batch into a :class:`CloudPart` (its distinct states in tree order) and
:func:`_merge_clouds` folds parts into a :class:`Cloud` in batch order.  The
single-process path and a Dask run use the same batches and the same fold, so
they give the same cloud.

Memory cap (graphB++ Alg. 3).  With ``max_states = K`` the cloud keeps the
``K`` states with the fewest switches (ties: the state found first).  The cap
is applied when a batch is merged, so counts inside a batch are exact and a
kept state keeps counting its repeats in later batches.  A state evicted
earlier and produced again later is treated as new: it re-enters (if it ranks
among the ``K`` best) with the count and first tree of its later occurrences
only, and the number of evictions is reported in ``Cloud.evicted``.  The
minimum number of switches, i.e. the frustration index estimate, is never
lost to the cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CloudPart", "Cloud", "build_part", "merge_part", "states_for_cap"]


@dataclass
class CloudPart:
    """Distinct states of one batch of trees, in order of first appearance."""

    words: np.ndarray        # (k, W) uint64 canonical bits
    hashes: np.ndarray       # (k,) uint64
    counts: np.ndarray       # (k,) int64 trees of the batch giving the state
    switches: np.ndarray     # (k,) int64
    first_tree: np.ndarray   # (k,) int64 global tree id of the first occurrence
    sampler: np.ndarray      # (k,) int8 sampler code of that tree
    n_trees: int             # trees in the batch
    best: int                # fewest switches of any tree of the batch
    dropped: int = 0         # distinct states of the batch cut by the cap


def _dedup(words, hashes, first_keys):
    """Group equal rows of ``words`` (bucketed by hash, confirmed exactly).

    Returns (representative row of each group in order of first appearance,
    group of every row).
    """
    buckets: dict[int, list[int]] = {}
    reps: list[int] = []
    group = np.empty(len(hashes), np.int64)
    for r, h in enumerate(hashes.tolist()):
        cand = buckets.setdefault(h, [])
        for g in cand:
            if np.array_equal(words[reps[g]], words[r]):
                group[r] = g
                break
        else:
            cand.append(len(reps))
            group[r] = len(reps)
            reps.append(r)
    return np.asarray(reps, dtype=np.int64), group


def _keep_best(switches, first_tree, k):
    """Indices of the ``k`` states with fewest switches (ties: earliest first tree)."""
    if k is None or switches.size <= k:
        return None
    order = np.lexsort((first_tree, switches))
    return np.sort(order[:k])


def build_part(words, hashes, switches, tree_ids, codes, max_states=None) -> CloudPart:
    """Deduplicate one batch's states into a :class:`CloudPart`.

    Capping a part loses nothing the merged cloud would keep: the part keeps
    every state with at most as many switches as its ``max_states``-th best,
    so a state it drops has strictly more switches than ``max_states`` states
    of the batch, which rank before it in the cloud too (ties on switches are
    kept because the cloud breaks them by first tree over all batches).
    """
    tree_ids = np.asarray(tree_ids, dtype=np.int64)
    reps, group = _dedup(words, hashes, tree_ids)
    counts = np.bincount(group, minlength=reps.size).astype(np.int64)
    part = CloudPart(words=words[reps], hashes=hashes[reps], counts=counts,
                     switches=switches[reps].astype(np.int64), first_tree=tree_ids[reps],
                     sampler=np.asarray(codes, dtype=np.int8)[reps], n_trees=int(tree_ids.size),
                     best=int(switches.min()) if switches.size else -1)
    keep = None
    if max_states is not None and part.switches.size > max_states:
        kth = np.partition(part.switches, max_states - 1)[max_states - 1]
        keep = np.flatnonzero(part.switches <= kth)
    if keep is not None and keep.size < part.counts.size:
        part.dropped = int(part.counts.size - keep.size)
        for name in ("words", "hashes", "counts", "switches", "first_tree", "sampler"):
            setattr(part, name, getattr(part, name)[keep])
    return part


@dataclass
class Cloud:
    """The merged cloud: parallel lists of states, a hash index, history."""

    max_states: int | None = None
    words: list = field(default_factory=list)
    hashes: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    switches: list = field(default_factory=list)
    first_tree: list = field(default_factory=list)
    sampler: list = field(default_factory=list)
    index: dict = field(default_factory=dict)   # hash -> list of positions
    n_trees: int = 0
    evicted: int = 0
    history: list = field(default_factory=list)  # (trees so far, best switches)

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def best(self) -> int:
        return int(min(self.switches)) if self.switches else -1

    def _find(self, h: int, w: np.ndarray) -> int:
        for pos in self.index.get(h, ()):
            if np.array_equal(self.words[pos], w):
                return pos
        return -1

    def _reindex(self) -> None:
        self.index = {}
        for pos, h in enumerate(self.hashes):
            self.index.setdefault(h, []).append(pos)

    def best_positions(self, k: int) -> list[int]:
        """Positions of the ``k`` states with fewest switches (ties: found first)."""
        order = np.lexsort((np.asarray(self.first_tree, np.int64),
                            np.asarray(self.switches, np.int64)))
        return order[:k].tolist()


def merge_part(cloud: Cloud, part: CloudPart) -> Cloud:
    """Fold one part into the cloud (in place), then apply the cap."""
    for r in range(part.counts.size):
        h = int(part.hashes[r])
        pos = cloud._find(h, part.words[r])
        if pos >= 0:
            cloud.counts[pos] += int(part.counts[r])
            continue
        cloud.index.setdefault(h, []).append(len(cloud.counts))
        cloud.words.append(part.words[r])
        cloud.hashes.append(h)
        cloud.counts.append(int(part.counts[r]))
        cloud.switches.append(int(part.switches[r]))
        cloud.first_tree.append(int(part.first_tree[r]))
        cloud.sampler.append(int(part.sampler[r]))
    cloud.n_trees += part.n_trees
    cloud.evicted += part.dropped
    keep = _keep_best(np.asarray(cloud.switches), np.asarray(cloud.first_tree), cloud.max_states)
    if keep is not None:
        cloud.evicted += len(cloud.counts) - keep.size
        for name in ("words", "hashes", "counts", "switches", "first_tree", "sampler"):
            vals = getattr(cloud, name)
            setattr(cloud, name, [vals[i] for i in keep.tolist()])
        cloud._reindex()
    cloud.history.append((cloud.n_trees, cloud.best))
    return cloud


#: history rows kept before thinning (a 10**12-tree run would otherwise keep one per batch)
HISTORY_ROWS = 4096


def thin_history(history: list, cap: int | None = None) -> None:
    """Keep ``history`` (``(trees so far, best)`` per batch) within ``cap`` rows, in place.

    Below the cap it is one row per batch.  Past it, half the rows that
    change nothing are dropped (the first and last rows and every row where
    the best improved are kept), so the rows left are the improvements and
    evenly thinned plateaus, and the memory stays bounded however many trees
    the run samples.  Deterministic: the same rows after the same batches,
    on one process or a cluster.
    """
    cap = HISTORY_ROWS if cap is None else cap
    if len(history) <= cap:
        return
    last = len(history) - 1
    keep = [row for i, row in enumerate(history)
            if i in (0, last) or row[1] != history[i - 1][1] or i % 2 == 0]
    if len(keep) > cap:  # improvements alone past the cap: thin them too
        keep = keep[:-1:2] + [history[-1]]
    history[:] = keep


def states_for_cap(n_vertices: int, max_states: int | None, memory_limit: int | None) -> int | None:
    """The state cap from ``max_states`` and/or ``memory_limit`` (bytes), whichever is tighter.

    A state costs its canonical bits (``ceil(n / 64)`` words) plus about 100
    bytes of bookkeeping.
    """
    caps = []
    if max_states is not None:
        if int(max_states) < 1:
            raise ValueError(f"max_states must be at least 1, got {max_states!r}")
        caps.append(int(max_states))
    if memory_limit is not None:
        per_state = 8 * ((int(n_vertices) + 63) // 64) + 100
        k = int(memory_limit) // per_state
        if k < 1:
            from .._validation import param_error

            raise param_error("memory_limit", "frustration", f"at least {per_state} bytes (one state "
                              f"of this graph of {int(n_vertices)} vertices)", memory_limit)
        caps.append(k)
    return min(caps) if caps else None
