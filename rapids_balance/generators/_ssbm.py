"""Signed stochastic block models with planted labels: the SSBM and the polarized SSBM.

The edges are an Erdos-Renyi G(n, p) graph, drawn row by row by geometric
skips (each row's draws are hashes of (seed, row, draw), so a count pass
and a fill pass see the same edges, rows run in parallel, and the graph is
the same on any thread count); signs follow the planted groups (positive
inside, negative across), each flipped with probability ``flip``, as in
Cucuringu et al.'s SSBM (SigNet's ``SSBM`` with ``pin = pout = p`` and
``eta = flip``).  The polarized SSBM plants ``n_communities`` communities
of two opposing factions each in a background whose edges have random
signs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
from numba import prange

from .._random import hash64, uniform01
from .._validation import check_bool, check_choice, check_int, check_number, check_seed, param_error
from ..graph import CleaningReport, SignedGraph

__all__ = ["SignedBlockModel", "ssbm", "polarized_ssbm", "SIZES"]

SIZES = ("equal", "random")
EDGE_STREAM = 0x55B1
GROUP_STREAM = 0x55B2
SIGN_STREAM = 0x55B3
MAX_VERTICES = 2**31 - 2
MAX_EDGES = 2**31 - 1


@dataclass
class SignedBlockModel:
    """A signed block-model graph and its planted groups.

    Attributes
    ----------
    graph : SignedGraph or pandas.DataFrame
        The graph (vertices ``0..n-1``, isolated ones included), or its edge
        table ``src``, ``dst``, ``sign`` with ``as_frame=True``.
    partition : pandas.DataFrame
        ``vertex``, ``group``: the planted group of every vertex (``-1``
        for the background of a polarized SSBM).
    flipped : int
        Edges whose sign disagrees with the planted groups (flipped ones;
        background edges are not counted).
    params : dict
    """

    graph: Any
    partition: Any
    flipped: int
    params: dict = field(default_factory=dict)

    @property
    def groups(self) -> np.ndarray:
        """The planted group of vertex ``0..n-1``."""
        return self.partition["group"].to_numpy()

    def __repr__(self) -> str:
        g = self.graph
        size = f"{g.n} vertices, {g.m} edges" if isinstance(g, SignedGraph) else f"{len(g)} edges"
        return f"<SignedBlockModel: {size}, {self.flipped} flipped>"


@numba.njit(cache=True)
def _row(u, n, logq, seed, dst, pos, fill):
    """Pairs (u, v > u) of G(n, p) by geometric skips; returns how many."""
    v = np.int64(u)
    j = 0
    k = 0
    while True:
        r = uniform01(seed, EDGE_STREAM, (np.uint64(u) << np.uint64(32)) | np.uint64(j))
        j += 1
        # skip ~ Geometric(p): floor(log(1 - U) / log(1 - p)) failures before the next edge
        v += 1 + int(math.floor(math.log1p(-r) / logq))
        if v >= n:
            return k
        if fill:
            dst[pos + k] = v
        k += 1


@numba.njit(parallel=True, cache=True)
def _count(n, logq, seed, counts):
    dummy = np.empty(0, np.int32)
    for u in prange(n):
        counts[u] = _row(u, n, logq, seed, dummy, 0, False)


@numba.njit(parallel=True, cache=True)
def _fill(n, logq, seed, offsets, src, dst):
    for u in prange(n):
        k = _row(u, n, logq, seed, dst, offsets[u], True)
        for j in range(k):
            src[offsets[u] + j] = u


@numba.njit(parallel=True, cache=True)
def _signs(src, dst, group, faction, flip, seed, out):
    """Sign per edge: by faction inside a group (polarized) or by group; -1 groups are
    background (random signs); flipped with probability ``flip``.  Returns nothing;
    ``out`` holds the signs."""
    for e in prange(src.size):
        u = src[e]
        v = dst[e]
        key = (np.uint64(u) << np.uint64(32)) | np.uint64(v)
        gu = group[u]
        gv = group[v]
        if gu < 0 or gv < 0 or (faction.size > 0 and gu != gv):
            out[e] = 1 if uniform01(seed, SIGN_STREAM, key) < 0.5 else -1
            continue
        same = faction[u] == faction[v] if faction.size > 0 else gu == gv
        s = 1 if same else -1
        if uniform01(seed, SIGN_STREAM, key) < flip:
            s = -s
        out[e] = s


@numba.njit(cache=True)
def _keys(n, seed):
    out = np.empty(n, np.uint64)
    for v in range(n):
        out[v] = hash64(seed, GROUP_STREAM, v)
    return out


def _edges(n: int, p: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    if p <= 0.0 or n < 2:
        return np.empty(0, np.int32), np.empty(0, np.int32)
    counts = np.empty(n, np.int64)
    logq = math.log1p(-p) if p < 1.0 else -np.inf
    _count(n, logq, seed, counts)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    m = int(offsets[-1])
    if m > MAX_EDGES:
        raise param_error("p", "ssbm", f"small enough for at most 2**31 - 1 edges (drew {m})", p)
    src = np.empty(m, np.int32)
    dst = np.empty(m, np.int32)
    _fill(n, logq, seed, offsets, src, dst)
    return src, dst


def _groups(n: int, k: int, sizes: str, seed: int) -> np.ndarray:
    """Planted groups: equal sizes (a seeded permutation cut in k blocks) or i.i.d. uniform."""
    keys = _keys(n, seed)
    if sizes == "random":
        return ((keys >> np.uint64(32)) * np.uint64(k) >> np.uint64(32)).astype(np.int64)
    order = np.argsort(keys, kind="stable")
    group = np.empty(n, np.int64)
    group[order] = np.arange(n, dtype=np.int64) * k // n
    return group


def _finish(n, src, dst, sign, group, as_frame, name, params, counted) -> SignedBlockModel:
    import pandas as pd

    inside = (group[src] >= 0) & (group[src] == group[dst]) if counted is None else counted
    flipped = int(np.count_nonzero(inside != (sign > 0)) if counted is None
                  else np.count_nonzero(counted))
    partition = pd.DataFrame({"vertex": np.arange(n, dtype=np.int64), "group": group})
    if as_frame:
        graph: Any = pd.DataFrame({"src": src.astype(np.int64), "dst": dst.astype(np.int64),
                                   "sign": sign})
    else:
        report = CleaningReport(source=f"<generated {name}>", input_rows=int(src.size),
                                vertices_in_input=n)
        report.notes.append(f"generated by rapids_balance.generators ({name}): "
                            + ", ".join(f"{k}={v}" for k, v in params.items()))
        graph = SignedGraph(edge_src=src, edge_dst=dst, n_vertices=n,
                            labels=np.arange(n, dtype=np.int64), directed=False, sign=sign,
                            weight=None, cleaning=report, name=name)
    return SignedBlockModel(graph=graph, partition=partition, flipped=flipped, params=params)


def _check(owner, n, p, flip, seed, as_frame):
    n = check_int(n, "n", owner, low=2, high=MAX_VERTICES)
    p = check_number(p, "p", owner, low=0.0, high=1.0)
    if p * n * (n - 1) / 2.0 > 0.9 * MAX_EDGES:
        raise param_error("p", owner, f"small enough for about {MAX_EDGES} edges at most "
                          f"(n = {n})", p)
    flip = check_number(flip, "flip", owner, low=0.0, high=0.5)
    return n, p, flip, check_seed(seed, owner), check_bool(as_frame, "as_frame", owner)


def ssbm(n: int, k: int, p: float, flip: float = 0.1, *, sizes: str = "equal", seed: int = 0,
         as_frame: bool = False) -> SignedBlockModel:
    """A signed stochastic block model: k planted groups in G(n, p), signs flipped at random.

    Parameters
    ----------
    n : int
        Vertices, 2 .. 2**31 - 2 (all kept, isolated ones too).
    k : int
        Planted groups, 1 .. n.
    p : float
        Edge probability of every pair, in [0, 1] (about ``p n^2 / 2`` edges,
        at most 2**31 - 1).
    flip : float, default 0.1
        Probability that an edge's sign disagrees with the groups (positive
        inside, negative across), in [0, 0.5].
    sizes : {"equal", "random"}, default "equal"
        Group sizes: equal (``n // k`` or one more, vertices assigned by a
        seeded permutation) or each vertex's group uniform at random.
    seed : int, default 0
        An int in ``[0, 2**63 - 1]``; the same seed gives the same graph on
        any thread count.
    as_frame : bool, default False
        Return the edge table (``src``, ``dst``, ``sign``) instead of the graph.

    Returns
    -------
    SignedBlockModel
        ``graph``, ``partition`` (``vertex``, ``group``), ``flipped``.

    References
    ----------
    .. [1] M. Cucuringu, P. Davies, A. Glielmo, H. Tyagi, "SPONGE: A generalized
       eigenproblem for clustering signed networks", AISTATS 2019.

    Examples
    --------
    >>> from rapids_balance.generators import ssbm
    >>> model = ssbm(1000, 5, 0.02, flip=0.1, seed=1)
    >>> sorted(set(model.groups.tolist()))
    [0, 1, 2, 3, 4]
    """
    owner = "ssbm"
    n, p, flip, seed, as_frame = _check(owner, n, p, flip, seed, as_frame)
    k = check_int(k, "k", owner, low=1, high=n)
    check_choice(sizes, "sizes", owner, SIZES)
    group = _groups(n, k, sizes, seed)
    src, dst = _edges(n, p, seed)
    sign = np.empty(src.size, np.int8)
    _signs(src, dst, group, np.empty(0, np.int64), flip, seed, sign)
    params = dict(n=n, k=k, p=p, flip=flip, sizes=sizes, seed=seed)
    return _finish(n, src, dst, sign, group, as_frame, f"ssbm-{n}-{k}-seed{seed}", params, None)


def polarized_ssbm(n: int, n_communities: int, community_size: int, p: float, flip: float = 0.1,
                   *, seed: int = 0, as_frame: bool = False) -> SignedBlockModel:
    """A polarized SSBM: communities of two opposing factions in a random-sign background.

    ``n_communities`` communities of ``community_size`` vertices each (a
    seeded random choice of vertices) are split into two equal factions:
    inside a community, edges within a faction are positive and edges
    across its factions negative, each flipped with probability ``flip``.
    Every other edge (touching the background, or joining two communities)
    gets a random sign.  Edges: G(n, p).

    Parameters
    ----------
    n : int
        Vertices, 2 .. 2**31 - 2.
    n_communities, community_size : int
        ``n_communities * community_size <= n``; sizes at least 2.
    p, flip, seed, as_frame
        As in :func:`ssbm`.

    Returns
    -------
    SignedBlockModel
        ``partition["group"]``: ``2 c + f`` for faction f of community c,
        ``-1`` for the background; ``flipped`` counts the edges inside
        communities whose sign disagrees with the factions.

    Examples
    --------
    >>> from rapids_balance.generators import polarized_ssbm
    >>> model = polarized_ssbm(2000, 3, 200, 0.02, seed=1)
    >>> int((model.groups >= 0).sum())
    600
    """
    owner = "polarized_ssbm"
    n, p, flip, seed, as_frame = _check(owner, n, p, flip, seed, as_frame)
    nc = check_int(n_communities, "n_communities", owner, low=1, high=n)
    size = check_int(community_size, "community_size", owner, low=2, high=n)
    if nc * size > n:
        raise param_error("community_size", owner, f"at most n / n_communities = {n // nc}", size)
    order = np.argsort(_keys(n, seed), kind="stable")
    community = np.full(n, -1, np.int64)
    faction = np.zeros(n, np.int64)
    rank = np.arange(nc * size, dtype=np.int64)
    community[order[:nc * size]] = rank // size
    faction[order[:nc * size]] = (rank % size) * 2 // size
    src, dst = _edges(n, p, seed)
    sign = np.empty(src.size, np.int8)
    _signs(src, dst, community, faction, flip, seed, sign)
    group = np.where(community >= 0, 2 * community + faction, -1)
    inside = (community[src] >= 0) & (community[src] == community[dst])
    wrong = inside & ((faction[src] == faction[dst]) != (sign > 0))
    params = dict(n=n, n_communities=nc, community_size=size, p=p, flip=flip, seed=seed)
    return _finish(n, src, dst, sign, group, as_frame, f"polarized-ssbm-{n}-seed{seed}", params,
                   wrong)
