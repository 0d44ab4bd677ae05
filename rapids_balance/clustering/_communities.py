"""``signed_communities``: signed modularity, signed Potts and imbalance by a Leiden-style search.

One *pass* (:func:`_pass`): local moves on the level, Leiden's refinement
of the communities into positively connected sub-communities, contraction
of the sub-communities (the correlation-clustering engine's
``_contract.contract``), and the same on the coarse level starting from the
communities, until a level neither moves nor shrinks; the communities are
projected back to the input.  Passes repeat from the last result (Leiden's
iterations) while the objective improves.  Restarts draw different vertex
orders; the best wins, ties to the smaller restart.  At the end each
community whose positive part falls apart is split into its positive
components when that does not lower the objective.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import pandas as pd

from .._deadline import NO_DEADLINE, passed
from .._output import frames_like_input, label_column, make_table
from ..distributed._run import on_workers
from .._validation import (check_backend, check_bool, check_choice, check_int, check_seed,
                           check_time_limit, param_error)
from ..graph import Graph
from ..io._roles import check_roles
from . import _louvain as L
from ._contract import contract
from ._multilevel import coarsen
from ._objective import canonical, slot_weights
from ._state import Level
from ._signed_objective import (NULL_MODELS, OBJECTIVES, _signed_graph, check_resolution,
                                objective_value, search_form, strengths)

__all__ = ["CommunityResult", "signed_communities", "search_communities"]

MAX_SWEEPS = 100
ALL = np.empty(0, np.bool_)  # local_moves: every vertex queued at the start
MAX_LEVELS = 60
#: contractions of levels with fewer CSR slots run in one thread
PARALLEL_SLOTS = 1 << 20


@dataclass
class CommunityResult:
    """Outcome of :func:`signed_communities`.

    Attributes
    ----------
    labels : DataFrame
        ``vertex`` (original labels) and ``community`` (0..c-1, numbered by
        first appearance in the graph's vertex order); cuDF for a cuDF input
        or a graph kept on the device, pandas otherwise.
    value : float
        The objective of ``labels``, recomputed from the edges by the
        evaluator (:func:`signed_modularity`, :func:`signed_potts` or
        :func:`imbalance`).
    parts : object
        That evaluator's full result.
    objective, resolution, null, seed, backend, elapsed_s, params
        How it was obtained.
    n_communities : int
    communities : pandas.DataFrame
        One row per community: ``community``, ``size``, ``positive_inside``,
        ``negative_inside`` (weight of the edges inside it, by sign, absolute)
        and ``positive_between``, ``negative_between`` (weight of its edges
        to other communities).
    info : dict
        ``passes``, ``restarts``, ``levels`` (of the best restart's last
        pass), ``split`` (communities split into their positive components at
        the end), ``stopped_by_time``, ``best_restart``, ``best_start``
        (``"search"``, ``"init"``, ``"sponge"`` or ``"sponge_sym"``),
        ``spectral_k`` (None without ``spectral_start``).
    """

    labels: pd.DataFrame
    value: float
    parts: Any
    objective: str
    resolution: tuple[float, float]
    null: str | None
    seed: int
    backend: str
    elapsed_s: float
    n_communities: int
    communities: pd.DataFrame | None = None
    params: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"<CommunityResult {self.objective}: {self.value:g}, {self.n_communities} "
                f"communities, {self.elapsed_s:.2f} s>")


def _pass(indptr, indices, a, x, y, alpha, beta, labels, seed, stream, deadline, refine, extra):
    """One multilevel pass from ``labels``; returns (labels of the input level, levels)."""
    tol = L.TOL * max(1.0, float(np.abs(a).sum()))
    maps: list[np.ndarray] = []
    cur = (indptr, indices, a, x, y)
    lab = np.ascontiguousarray(labels, dtype=np.int64)
    for depth in range(MAX_LEVELS):
        ip, ix, aa, xx, yy = cur
        n = xx.size
        moves, _, _ = L.local_moves(ip, ix, aa, xx, yy, alpha, beta, lab, seed,
                                    stream * MAX_LEVELS + depth, MAX_SWEEPS, extra, tol, deadline,
                                    ALL)
        lab = canonical(lab).astype(np.int64)
        nc = int(lab.max()) + 1 if n else 0
        if passed(deadline) or nc == n:
            break
        sub = lab
        if refine:
            sub = canonical(L.refine(ip, ix, aa, xx, yy, alpha, beta, lab, seed,
                                     stream * MAX_LEVELS + depth + 7, tol, deadline)).astype(np.int64)
            if int(sub.max()) + 1 == n:  # nothing merged: contract the communities (Louvain)
                sub = lab
        ns = int(sub.max()) + 1
        if moves == 0 and ns == nc and depth > 0:
            break
        parts = numba.get_num_threads() if ix.size >= PARALLEL_SLOTS else 1
        cp, ci, ca = contract(ip, ix, aa, sub.astype(np.int32), ns, parts, deadline)
        if cp.size != ns + 1:
            break
        coarse = np.zeros(ns, np.int64)
        coarse[sub] = lab
        maps.append(sub)
        cur = (cp, ci, ca, np.bincount(sub, weights=xx, minlength=ns),
               np.bincount(sub, weights=yy, minlength=ns))
        lab = coarse
    for m in reversed(maps):
        lab = lab[m]
    return lab, len(maps) + 1


def _v_cycle(ip, ix, a, x, y, alpha, beta, seed, stream, deadline):
    """A first partition on the correlation-clustering engine's hierarchy: its
    size-constrained label propagation groups vertices that the signs tie together
    (``_multilevel.coarsen``), the coarsest level's vertices start alone, and the
    objective's own moves run on every level on the way down.  Single moves from
    singletons merge whole planted groups of a signed block model, a local optimum
    no single move leaves (a vertex's net weight to the union of its group and an
    enemy group is about zero); coarse vertices that lie inside one group do not."""
    level0 = Level(ip, ix, a)
    # uncapped, as the engine's first V-cycle (capped levels merged planted groups more
    # often: 20,000 vertices, 10 groups, degree 100: modularity ARI 0.72 capped, 0.80 not)
    levels, maps, _, _ = coarsen(level0, seed, stream, None, deadline, cap_levels=0)
    xs, ys = [x], [y]
    for m in maps:
        nc = int(m.max()) + 1 if m.size else 0
        xs.append(np.bincount(m, weights=xs[-1], minlength=nc))
        ys.append(np.bincount(m, weights=ys[-1], minlength=nc))
    tol = L.TOL * max(1.0, float(np.abs(a).sum()))
    lab = np.arange(levels[-1].n, dtype=np.int64)
    for depth in range(len(levels) - 1, -1, -1):
        lv = levels[depth]
        L.local_moves(lv.indptr, lv.indices, lv.a, xs[depth], ys[depth], alpha, beta, lab, seed,
                      stream * MAX_LEVELS + depth, MAX_SWEEPS, L.EXTRA, tol, deadline, ALL)
        if depth > 0:
            lab = lab[maps[depth - 1]]
    return canonical(lab).astype(np.int64)


#: power iterations of a split round's bisection
BISECT_ITERATIONS = 30


def _split_round(ip, ix, a, x, y, alpha, beta, lab, seed, stream, active=None):
    """Communities that are unions of better ones, each cut in two.

    Single moves and Leiden's aggregation leave a union of two communities whole
    when each member's net weight to it is about zero (two planted groups of a
    signed block model merged early: a member's positive weight to its own half
    cancels its negative weight to the other).  The sign of the leading
    eigenvector of the signed weights inside each community (``_louvain.bisect``)
    cuts it where it repels itself; a community is split when its two sides score
    better apart.  ``active``: the communities to try (all by default).
    Returns (labels, communities split, vertices of the split communities)."""
    if active is None:
        active = np.ones(lab.size, np.bool_)
    side = L.bisect(ip, ix, a, lab, active, seed, stream, BISECT_ITERATIONS)
    pieces = 2 * lab + side
    # a piece's id must be one of its vertices for split_gain: its first member
    first = np.full(2 * lab.size, -1, np.int64)
    first[pieces[::-1]] = np.arange(lab.size, dtype=np.int64)[::-1]
    comp = first[pieces]
    gain = L.split_gain(ip, ix, a, x, y, alpha, beta, lab, comp)
    tol = L.TOL * max(1.0, float(np.abs(a).sum()))
    accept = (gain > tol) & active
    if not accept.any():
        return lab, 0, None
    out = np.where(accept[lab], lab.size + comp, lab)
    return canonical(out).astype(np.int64), int(np.count_nonzero(accept)), accept[lab]


#: split rounds in a row at most (a union of 2^j communities needs j)
MAX_SPLIT_ROUNDS = 32


def _split_rounds(ip, ix, a, form, lab, seed, stream, extra, deadline):
    """Split rounds until one splits nothing (the pieces of a round's splits are
    tried again in the next, so a union of 2^j communities falls apart in j rounds),
    then the moves of the input level, from the vertices of the split communities.
    Returns (labels, communities split)."""
    tol = L.TOL * max(1.0, float(np.abs(a).sum()))
    total = 0
    active = None
    touched = np.zeros(lab.size, np.bool_)
    for j in range(MAX_SPLIT_ROUNDS):
        if passed(deadline):
            break
        new, n, fresh = _split_round(ip, ix, a, form.x, form.y, form.alpha, form.beta, lab,
                                     seed, stream * MAX_SPLIT_ROUNDS + j, active)
        if n == 0:
            break
        touched |= fresh
        active = np.zeros(lab.size, np.bool_)
        active[new[fresh]] = True
        lab = new
        total += n
    if total:
        L.local_moves(ip, ix, a, form.x, form.y, form.alpha, form.beta, lab, seed, stream,
                      MAX_SWEEPS, extra, tol, deadline, touched)
        lab = canonical(lab).astype(np.int64)
    return lab, total


def _split(indptr, indices, a, x, y, alpha, beta, lab):
    """Split communities into their positive components where that loses nothing."""
    comp = L.positive_parts(indptr, indices, a, lab)
    gain = L.split_gain(indptr, indices, a, x, y, alpha, beta, lab, comp)
    tol = L.TOL * max(1.0, float(np.abs(a).sum()))
    # a community falls apart when its members' parts differ
    high = np.full(lab.size, -1, np.int64)
    np.maximum.at(high, lab, comp)
    low = np.full(lab.size, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(low, lab, comp)
    broken = (high >= 0) & (high != low) & (gain >= -tol)
    if not broken.any():
        return lab, 0
    out = np.where(broken[lab], lab.size + comp, lab)
    return canonical(out).astype(np.int64), int(broken.sum())


#: share of vertices a restart moves away from the best partition (cycled through)
KICKS = (0.05, 0.1, 0.2, 0.4)


def _kick(best: np.ndarray, seed: int, r: int) -> np.ndarray:
    """The start of restart ``r`` > 0: the best partition with a share of its vertices
    moved, half of them alone and half to the community of a random vertex (a large
    community is a likely target: the kick a negative null term, which rewards
    communities without edges between their members, needs); a pure function of
    (seed, r)."""
    n = best.size
    share = KICKS[(r - 1) % len(KICKS)]
    u = L.draws(n, seed, 2 * r)
    pick = L.draws(n, seed, 2 * r + 1)
    target = np.minimum((pick * n).astype(np.int64), n - 1)
    out = np.where(u < share, best[target], best)
    out = np.where(u < 0.5 * share, n + np.arange(n), out)
    if r % 2 == 0:  # and the communities of two random vertices merged
        a, b = target[0], target[n // 2]
        out = np.where(out == out[b], out[a], out)
    return canonical(out).astype(np.int64)


def search_communities(graph: Graph, objective: str, gp: float, gn: float, null: str, *,
                       seed: int, restarts: int, max_passes: int, refine: bool, extra: int,
                       deadline: float, init: np.ndarray | None = None,
                       spectral: tuple[tuple[str, np.ndarray], ...] = ()
                       ) -> tuple[np.ndarray, dict]:
    """The search on a built graph; returns (internal labels, info).  ``spectral``: the
    starts of more restarts after the others, ``(name, labels)`` (SPONGE partitions)."""
    form = search_form(graph, objective, gp, gn, null)
    ip = np.asarray(graph.indptr)
    ix = np.asarray(graph.indices)
    a = slot_weights(graph)
    sign = -1.0 if objective == "imbalance" else 1.0
    # two passes over the edges less for each of the many evaluations below (n floats kept)
    k = strengths(graph) if objective != "imbalance" else None
    best, best_val, best_info = None, -np.inf, {}
    for r in range(restarts + len(spectral)):
        if r > 0 and passed(deadline):
            break
        if r >= restarts:
            lab = spectral[r - restarts][1].astype(np.int64)
        elif r == 0 and init is not None:
            lab = init.astype(np.int64)
        elif r == 0:
            lab = _v_cycle(ip, ix, a, form.x, form.y, form.alpha, form.beta, seed, 1, deadline)
        else:
            lab = _kick(best, seed, r)
        cur_val = -np.inf
        done = 0
        levels = 0
        splits = 0
        split_due = True
        for it in range(max_passes):
            if it > 0 and passed(deadline):
                break
            tried, n = split_due, 0
            if tried:
                lab, n = _split_rounds(ip, ix, a, form, lab, seed, 500 + r * 1009 + it, extra,
                                       deadline)
                splits += n
            # once a round finds no union, the next passes' merges seldom make one
            split_due = n > 0
            new, levels = _pass(ip, ix, a, form.x, form.y, form.alpha, form.beta, lab, seed,
                                1 + r * 1009 + it, deadline, refine, extra)
            val = sign * objective_value(graph, new, objective, gp, gn, null, k)[0]
            done += 1
            if val <= cur_val + 1e-12 * max(1.0, abs(cur_val)) and n == 0:
                if tried:
                    break
                # but they can: the passes since the last round may have merged groups (a
                # signed block model, n = 10^5: a union of three found only here), so one
                # more round before stopping
                split_due = True
                continue
            lab, cur_val = new, val
        if refine:
            lab, n_split = _split(ip, ix, a, form.x, form.y, form.alpha, form.beta, lab)
            cur_val = sign * objective_value(graph, lab, objective, gp, gn, null, k)[0]
        else:
            n_split = 0
        if best is None or cur_val > best_val:
            best, best_val = lab, cur_val
            start = spectral[r - restarts][0] if r >= restarts else \
                "init" if r == 0 and init is not None else "search"
            best_info = dict(passes=done, levels=levels, split=n_split, unions_split=splits,
                             best_restart=r, best_start=start)
    best_info["restarts"] = r + 1
    best_info["stopped_by_time"] = passed(deadline)
    return canonical(best), best_info


def community_search(graph: Graph, i: int, p: dict, deadline: float | None) -> dict:
    """Search ``i`` of a call on a cluster (see :func:`._scale_out.search_batch`): the
    caller's restarts from ``p["seed"]``; search 0 alone gets the caller's ``init`` and
    spectral start, so it is the single-process call."""
    first = i == 0
    lab, info = search_communities(
        graph, p["objective"], p["gp"], p["gn"], p["null"], seed=p["seed"],
        restarts=p["restarts"], max_passes=p["max_passes"], refine=p["refine"], extra=p["extra"],
        deadline=NO_DEADLINE if deadline is None else deadline,
        init=p["init"] if first else None, spectral=p["spectral"] if first else ())
    value = objective_value(graph, lab, p["objective"], p["gp"], p["gn"], p["null"])[0]
    lower = value if p["objective"] == "imbalance" else -value  # the searches' best is the lowest
    return {"labels": lab, "value": float(lower), "cycles": info["restarts"], "search": i,
            "info": info}


def community_table(graph: Graph, lab: np.ndarray) -> pd.DataFrame:
    """Size and positive / negative weight inside and between every community."""
    from ._objective import edge_weights

    nc = int(lab.max()) + 1 if lab.size else 0
    w = edge_weights(graph)
    cu, cv = lab[graph.edge_src], lab[graph.edge_dst]
    pos = graph.sign > 0
    inside = cu == cv

    def mass(mask, both):
        m = np.bincount(cu[mask], weights=w[mask], minlength=nc)
        if both:
            m += np.bincount(cv[mask], weights=w[mask], minlength=nc)
        return m

    return pd.DataFrame({"community": np.arange(nc), "size": np.bincount(lab, minlength=nc),
                         "positive_inside": mass(pos & inside, False),
                         "negative_inside": mass(~pos & inside, False),
                         "positive_between": mass(pos & ~inside, True),
                         "negative_between": mass(~pos & ~inside, True)})


def _spectral_starts(g: Graph, spectral_start: int | str | None, seed: int, owner: str
                     ) -> tuple[tuple[tuple[str, np.ndarray], ...], int | None]:
    """The SPONGE and SPONGE_sym partitions a search also starts from, and their k."""
    if spectral_start is None:
        return (), None
    from ._sponge import sponge

    if spectral_start != "auto" and spectral_start > g.n:
        raise param_error("spectral_start", owner, f"at most the {g.n} vertices", spectral_start)
    starts = []
    k = None if spectral_start == "auto" else spectral_start
    for variant in ("sponge", "sponge_sym"):
        res = sponge(g, k, variant=variant, seed=seed)
        k = res.k  # "auto": the Bethe Hessian's k, once
        lab = res.labels["community"]
        starts.append((variant, np.asarray(lab.to_numpy() if hasattr(lab, "to_numpy") else lab,
                                           np.int64)))
        if k < 2:  # one group: both variants give the same start
            break
    return tuple(starts), k


def _ready(weighted: bool) -> float:
    from .._ready import ready, tiny_signed_graph

    def job():
        tiny = tiny_signed_graph(weighted)
        for obj in OBJECTIVES:
            signed_communities(tiny, objective=obj, seed=0, restarts=1, backend="cpu")

    return ready(("signed_communities", weighted), job)


@on_workers
@frames_like_input(dask_fields=())
def signed_communities(graph: Any, *, objective: str = "modularity", resolution: Any = 1.0,
                       null: str = "erdos_renyi", seed: int = 0, restarts: int = 1,
                       max_passes: int = 10, refine: bool = True, extra_candidates: int = L.EXTRA,
                       time_limit: float | None = None, backend: str = "auto",
                       init: Any = None, spectral_start: int | str | None = None,
                       client: Any = None,
                       source: Any = None, target: Any = None, sign: Any = None,
                       weight: Any = None) -> CommunityResult:
    """Communities of a signed graph: signed modularity, signed Potts or imbalance.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph; edge weights (their absolute value) are
        used when present.
    objective : {"modularity", "potts", "imbalance"}, default "modularity"
        What to maximise: signed modularity Q (Gomez, Jensen and Arenas;
        :func:`signed_modularity`), the signed Potts quality F (Traag and
        Bruggeman; :func:`signed_potts`), or minimise the imbalance I(P)
        (correlation clustering; :func:`imbalance`).
    resolution : float or (float, float), default 1.0
        gamma for both signs, or (gamma+, gamma-), each in [0, 1e12].  A
        larger gamma+ gives smaller communities, a larger gamma- larger
        ones.  Ignored for ``"imbalance"``.
    null : {"erdos_renyi", "configuration", "constant"}, default "erdos_renyi"
        The Potts model's null model (see :func:`signed_potts`); only used
        with ``objective="potts"``.
    seed : int, default 0
        Seed of the vertex orders: an int in ``[0, 2**63 - 1]``.
    restarts : int, default 1
        Searches in a row: the first from the vertex order of ``seed``, each
        later one from the best partition so far with a share of its vertices
        moved (a kick); the best wins, ties to the first.  In ``[1, 10**6]``.
        A kick does not undo a first partition that mixes every group; a call
        with another ``seed`` is an independent search.
    max_passes : int, default 10
        Leiden iterations per restart (each from the last result), stopping
        early when one does not improve.  In ``[1, 10**6]``.
    refine : bool, default True
        Leiden's refinement (communities stay connected in their positive
        part); False: Louvain's aggregation.
    extra_candidates : int, default 4
        Non-neighbouring communities offered to each move when the
        objective rewards joining them (a negative null term); in
        ``[0, 1024]``.
    time_limit : float, optional
        Seconds (finite, >= 0) of search after the kernels are ready; the
        best partition found by then is returned (a pass cut short still
        gives a valid partition).
    backend : {"auto", "cpu"}
        The search runs on the CPU; ``"gpu"`` is refused.
    init : DataFrame, Series, dict or array, optional
        A starting partition (any form :func:`imbalance` takes).
    spectral_start : int or "auto", optional
        Two more restarts, from :func:`sponge`'s SPONGE and SPONGE_sym
        partitions into k groups (seeded with ``seed``); the best objective
        wins.  k given, or ``"auto"``: k from the signed Bethe Hessian, as
        ``sponge(k=None)``.  An over-estimate of the number of groups is
        fine: the search merges what should be together.  It helps where
        positive edges mostly join different groups, and where the graph is
        sparse (signed block models, 10 % flips, ARI without / with
        ``spectral_start``: n = 3,000, 15 groups, mean degree 120: 0.41 /
        0.99; 5 groups, mean degree 15: 0.11 / 0.70, from SPONGE's start,
        SPONGE_sym's finding nothing there).  In ``[2, n]``.  The embeddings are
        computed before ``time_limit``'s clock starts (they have no limit of
        their own); ``info["best_start"]`` says which start won
        (``"search"``, ``"init"``, ``"sponge"``, ``"sponge_sym"``) and
        ``info["spectral_k"]`` the k used.
    client : distributed.Client, optional
        Run :data:`~._scale_out.SEARCHES` independent searches on the
        cluster, one task each, search ``i`` seeded from ``(seed, i)`` and
        search 0 with ``seed`` itself (with ``init`` and the spectral start:
        the single-process call); each runs ``restarts`` restarts in a row and
        keeps ``time_limit`` on its worker, and the best objective wins (ties
        to the smallest search).  Without a time limit the result is the
        same for any number of workers and never worse than the call
        without a client.  ``graph`` may then also be a Dask DataFrame, a
        Parquet dataset or a :class:`~rapids_balance.ClusterGraph`, read on
        the workers.  ``info`` adds ``searches`` (how many ran),
        ``best_search``, ``restarts_all_searches``,
        ``seconds_compile_workers`` and ``seconds_cluster`` (the check of the
        workers and their loading of cached kernels, which count against
        ``time_limit``; their compiling does not).
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    CommunityResult
        ``labels`` (``vertex``, ``community``), ``value``, ``parts``, ``info``.

    Raises
    ------
    InvalidParameterError
        A parameter is out of range (before any work).
    GraphInputError
        The graph has no signs, or ``init`` does not fit it.

    Notes
    -----
    Every objective is searched in the form ``sum_{i<j same} [w_ij - alpha
    x_i x_j + beta y_i y_j]`` with community totals of ``x`` and ``y``,
    so a move's gain costs O(1) past its neighbours' sums.  Results depend
    only on ``seed`` and the iteration limits (the search is sequential);
    with ``time_limit`` the work done depends on the machine.

    References
    ----------
    .. [1] V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden:
       guaranteeing well-connected communities", Sci. Rep. 9, 5233 (2019).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> res = rb.signed_communities(rb.load_example("highland"), seed=0)
    >>> res.n_communities
    3
    """
    t0 = time.perf_counter()
    owner = "signed_communities"
    check_choice(objective, "objective", owner, OBJECTIVES)
    gp, gn = check_resolution(resolution, owner)
    check_choice(null, "null", owner, NULL_MODELS)
    seed = check_seed(seed, owner)
    restarts = check_int(restarts, "restarts", owner, low=1, high=10**6)
    max_passes = check_int(max_passes, "max_passes", owner, low=1, high=10**6)
    refine = check_bool(refine, "refine", owner)
    extra = check_int(extra_candidates, "extra_candidates", owner, low=0, high=1024)
    time_limit = check_time_limit(time_limit, owner)
    if spectral_start != "auto":
        spectral_start = check_int(spectral_start, "spectral_start", owner, low=2, high=2**31,
                                   allow_none=True)
    check_backend(backend, owner)
    if backend == "gpu":
        raise param_error("backend", owner, "'auto' or 'cpu' (the community search runs on the "
                          "CPU; it has no GPU path yet)", backend)
    from ..distributed._run import check_client_arg

    check_client_arg(client, owner, "cpu")
    # with a client: the check of its workers (a fresh worker imports the package to answer)
    cluster_s = 0.0 if client is None else time.perf_counter() - t0
    roles = dict(source=source, target=target, sign=sign, weight=weight)
    check_roles(graph, owner, roles)
    be = "cpu"
    g = _signed_graph(graph, owner, roles)
    start = None
    if init is not None:
        from ._objective import coerce_labels

        start = coerce_labels(g, init, "init")
    spectral, spectral_k = _spectral_starts(g, spectral_start, seed, owner)
    compile_s = _ready(g.weight is not None)
    workers_s = None
    if client is not None:  # the workers' kernels, before the clock starts
        from ..distributed._run import ready_on_workers

        workers_s = ready_on_workers(client, _ready, g.weight is not None)
        # the cluster's preparation counts (imports, cache loads), not its compiling
        cluster_s += workers_s.loading_s
    clock = time.perf_counter()
    deadline = NO_DEADLINE if time_limit is None else clock + max(time_limit - cluster_s, 0.0)
    if client is None:
        lab, info = search_communities(g, objective, gp, gn, null, seed=seed, restarts=restarts,
                                       max_passes=max_passes, refine=refine, extra=extra,
                                       deadline=deadline, init=start, spectral=spectral)
        info["spectral_k"] = spectral_k
    else:
        from ._scale_out import run_searches

        p = dict(objective=objective, gp=gp, gn=gn, null=null, seed=seed, restarts=restarts,
                 max_passes=max_passes, refine=refine, extra=extra, init=start, spectral=spectral)
        best, done = run_searches(client, g, p, community_search,
                                  deadline=None if time_limit is None else deadline,
                                  desc="community searches")
        lab = best["labels"]
        info = dict(best["info"], searches=best["searches"], best_search=best["search"],
                    restarts_all_searches=done, seconds_compile_workers=workers_s,
                    seconds_cluster=cluster_s, spectral_k=spectral_k)
    value, parts = objective_value(g, lab, objective, gp, gn, null)
    frame = make_table({"vertex": label_column(g), "community": lab.astype(np.int64)}, like=g)
    info.update(seconds_compile=compile_s, seconds_search=time.perf_counter() - clock)
    return CommunityResult(labels=frame, value=float(value), parts=parts, objective=objective,
                           resolution=(gp, gn), null=null if objective == "potts" else None,
                           seed=seed, backend=be, elapsed_s=time.perf_counter() - t0,
                           n_communities=int(lab.max()) + 1 if lab.size else 0,
                           communities=community_table(g, lab),
                           params=dict(restarts=restarts, max_passes=max_passes, refine=refine,
                                       extra_candidates=extra, time_limit=time_limit,
                                       spectral_start=spectral_start),
                           info=info)
