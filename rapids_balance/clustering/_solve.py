"""``correlation_clustering``: VND, GRASP, ILS and multilevel drivers.

The GRASP and ILS drivers are a sequence of independent *restarts*
(:func:`_restart`), each a pure function of (graph, restart id, params); the
best imbalance wins, ties going to the smallest restart id.  A distributed
run maps the same restarts and reduces the same way (DESIGN.md, scale-out
hooks).

Inside a restart, the ILS (:func:`_ils_loop`) follows the paper's schedule
(perturbation level 1..``perturbation_max``, ``ils_max`` failed tries per
level); our defaults add plateau walks and, on dense graphs, the merge
neighbourhood (``CPUState.vnd_merge``).  A rejected perturbation is rolled
back (``CPUState.save`` / ``rollback``: undo of a short move log, or a copy
of the snapshot when the moves touched much of the graph).
"""

from __future__ import annotations

import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import pandas as pd

from .._display import Display
from .._output import frames_like_input, label_column, make_table
from .._progress import progress_bar
from ..backend import resolve_backend
from .._validation import (check_backend, check_progress, check_choice, check_count, check_int, check_number,
                           check_seed, check_time_limit, param_error)
from ..io._roles import check_roles
from ..errors import GraphInputError
from ..distributed._run import on_workers
from ..graph import Graph, graph_from_any
from ._restart import _deadline, _local_search, _restart
from .._deadline import NO_DEADLINE, passed
from ._multilevel import v_cycle
from ._objective import (
    ImbalanceResult,
    canonical,
    coerce_labels,
    imbalance,
    imbalance_value,
)
from ._state import CPUState, Level

__all__ = ["ClusteringResult", "correlation_clustering", "auto_method"]

METHODS = ("vnd", "grasp", "ils", "multilevel")
#: method="auto" runs ILS up to this many edges (or vertices below), multilevel above
AUTO_ILS_MAX_EDGES = 50_000
AUTO_ILS_MAX_VERTICES = 2_000
LOCAL_SEARCHES = ("auto", "best", "parallel")
CONSTRUCTIONS = ("auto", "grasp", "multilevel")
PERTURBATIONS = ("auto", "mixed", "vertex")
DEFAULT_ITERATIONS = {"vnd": 1, "grasp": 400, "ils": 10, "multilevel": 16}


@dataclass
class ClusteringResult(Display):
    """Outcome of :func:`correlation_clustering`.

    Attributes
    ----------
    labels : DataFrame
        Columns ``vertex`` (original labels) and ``cluster`` (0..c-1,
        numbered by first appearance in the graph's vertex order); cuDF
        for a cuDF input or a graph kept on the device, pandas otherwise.
    imbalance : float
        I(P) of ``labels``, recomputed from the edges.
    parts : ImbalanceResult
        The two parts of I(P), B(P) and the cluster count.
    history : pandas.DataFrame
        ``time_s``, ``iteration``, ``imbalance``: the best imbalance each time it improved.
    method, seed, iterations, elapsed_s, backend, params
        How the result was obtained.
    work : int
        Adjacency entries the CPU kernels scanned (label propagation,
        contraction, building and evaluating the sums; the moves of the
        best-move VND are not counted): a measure of the work done, for
        rates such as entries per second.
    info : dict
        ``seconds_compile``: compiling or loading the kernels before the
        clock started (0 once a process has them ready); ``seconds_search``:
        the rest of the call, which ``time_limit`` bounds.
    """

    labels: pd.DataFrame
    imbalance: float
    parts: ImbalanceResult
    history: pd.DataFrame
    method: str
    seed: int
    iterations: int
    elapsed_s: float
    backend: str
    params: dict[str, Any] = field(default_factory=dict)
    work: int = 0
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_clusters(self) -> int:
        return self.parts.n_clusters

    def _display(self):
        p = self.parts
        return ("ClusteringResult", [("imbalance I(P)", self.imbalance), ("negative inside", p.negative_inside),
                                     ("positive between", p.positive_between), ("clusters", self.n_clusters),
                                     ("method", self.method), ("seed", self.seed),
                                     ("iterations", self.iterations), ("seconds", self.elapsed_s),
                                     ("backend", self.backend)],
                [("labels", self.labels), ("history", self.history)])

    def __repr__(self) -> str:
        return (f"<ClusteringResult {self.method}: imbalance {self.imbalance:g}, "
                f"{self.n_clusters} clusters, {self.iterations} iteration{'' if self.iterations == 1 else 's'}, "
                f"{self.elapsed_s:.2f} s>")


# -- public entry point ----------------------------------------------------------------

#: a timed search stops this many passes over the graph (timed by building its first
#: level) before its limit: the cost of its best, the output tables and the last sweep's
#: stop fit in them (10^7 edges: about one pass, the contractions stopping at the deadline
#: too; twice that for a machine whose load changes during the call), so the call returns
#: within its limit
RESERVE_PASSES = 2.0
MAX_ITERATIONS = 2**50   # restart ids r enter the kernels as 7919 * (r + 1), an int64
MAX_INT32 = 2**31 - 1    # cluster ids and perturbation levels are int32 in the kernels
INITS = ("singletons", "one")


def _check_optional_bool(value: Any, name: str, owner: str) -> bool | None:
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise param_error(name, owner, "True, False or None", value)


def _check_params(owner: str, p: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of :func:`correlation_clustering` but the graph, before the graph is read."""
    out = dict(p)
    check_choice(p["method"], "method", owner, ("auto", *METHODS))
    out["n_clusters"] = check_int(p["n_clusters"], "n_clusters", owner, low=1, high=MAX_INT32,
                                  allow_none=True)
    out["alpha"] = check_number(p["alpha"], "alpha", owner, low=0.0, high=1.0)
    out["max_iterations"] = check_count(p["max_iterations"], "max_iterations", owner,
                                        high=MAX_ITERATIONS, allow_none=True)
    out["time_limit"] = check_time_limit(p["time_limit"], owner)
    out["seed"] = check_seed(p["seed"], owner)
    init = p["init"]
    if init is not None:
        if p["method"] != "vnd":
            raise param_error("init", owner, "None unless method='vnd' (only the VND starts from "
                              "a given partition)", init)
        if isinstance(init, str):
            check_choice(init, "init", owner, INITS)
    check_backend(p["backend"], owner)
    check_progress(p["progress"], owner)
    from ..distributed._run import check_client_arg

    check_client_arg(p["client"], owner, p["backend"])
    check_choice(p["local_search"], "local_search", owner, LOCAL_SEARCHES)
    check_choice(p["construction"], "construction", owner, CONSTRUCTIONS)
    out["perturbation_max"] = check_int(p["perturbation_max"], "perturbation_max", owner, low=1,
                                        high=MAX_INT32)
    out["ils_max"] = check_int(p["ils_max"], "ils_max", owner, low=1, high=MAX_INT32, allow_none=True)
    check_choice(p["perturbation"], "perturbation", owner, PERTURBATIONS)
    out["plateau"] = _check_optional_bool(p["plateau"], "plateau", owner)
    out["merge_moves"] = _check_optional_bool(p["merge_moves"], "merge_moves", owner)
    return out


def auto_method(graph: Graph) -> str:
    """The method ``method="auto"`` runs on ``graph``.

    ILS (Levorato et al.) gives the best partitions on the paper's instances
    and on graphs up to a few tens of thousands of edges, where its restarts
    take seconds; dense graphs of a few thousand vertices also favour it
    (its whole-cluster merge moves).  Past that, one ILS restart on a
    500k-edge graph takes longer than the multilevel search needs to reach
    a lower imbalance (full Slashdot, 10 s: ILS about 70,800, multilevel
    about 68,420), so large sparse graphs get ``"multilevel"``.
    """
    small = graph.m <= AUTO_ILS_MAX_EDGES or graph.n <= AUTO_ILS_MAX_VERTICES
    return "ils" if small else "multilevel"


@on_workers
@frames_like_input(dask_fields=())
def correlation_clustering(graph: Any, *, method: str = "auto", n_clusters: int | None = None,
                           alpha: float = 1.0, max_iterations: int | None = None,
                           time_limit: float | None = None, seed: int = 0, init: Any = None,
                           backend: str = "auto", progress: bool | None = None, client: Any = None,
                           local_search: str = "auto", construction: str = "auto",
                           perturbation_max: int = 30, ils_max: int | None = None,
                           perturbation: str = "auto", plateau: bool | None = None,
                           merge_moves: bool | None = None, source: Any = None, target: Any = None,
                           sign: Any = None, weight: Any = None) -> ClusteringResult:
    """Partition a signed graph to minimise the imbalance I(P) (correlation clustering).

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        Undirected signed graph; edge weights are used when present.
    method : {"auto", "ils", "grasp", "vnd", "multilevel"}
        ``"auto"`` (default): ``"ils"`` up to 50,000 edges or 2,000 vertices,
        ``"multilevel"`` above (see :func:`auto_method`); the result's
        ``method`` says which ran.  ``"vnd"``: 1-opt local search from ``init``. ``"grasp"``: randomized
        greedy construction + VND, repeated. ``"ils"``: construction + VND +
        iterated perturbation (Levorato et al.). ``"multilevel"``: V-cycles of
        size-constrained label propagation, contraction and refinement in a
        memetic search (a population of four V-cycles whose pairs are
        combined by coarsening inside their overlay; beyond the paper), then
        an iterated search from the best (a ball of vertices peeled off
        its cluster, then a V-cycle).
        When ``time_limit`` leaves no room for four V-cycles (10^7 edges in
        30 s), V-cycles from the best clustering instead.
    n_clusters : int, optional
        Upper bound on the number of clusters, in ``[1, 2**31 - 1]`` (None:
        unbounded; 2 asks for a bipartition, i.e. a balanced state).
    alpha : float
        GRASP restricted-candidate-list parameter in [0, 1] (the paper: 1.0).
    max_iterations : int, optional
        ``"grasp"``: constructions (default 400); ``"ils"``: restarts (default
        10, the paper's ``iter``); ``"multilevel"``: rounds of the iterated
        search in a row without a better best before stopping (default 16;
        with ``n_clusters``, or when the population has no room in
        ``time_limit``: combinations, resp. V-cycles, in a row); ignored by
        ``"vnd"``.
        In ``[1, 2**50]`` (restart ids are int64 in the kernels); restarts
        run one at a time, so a large count costs time, not memory.
    time_limit : float, optional
        Seconds, a finite number >= 0, of search: the best clustering
        found when it expires is returned.  The clock starts once the
        graph is read and every kernel the search will call is compiled or
        loaded from numba's cache (a tiny run of the same method, once per
        process: tens of seconds in a fresh environment, under a second
        later; see :func:`rapids_balance.warmup`), so a first call gets its
        whole limit; ``info["seconds_compile"]`` reports that time and
        ``info["seconds_search"]`` the rest.  The local searches and the
        contractions of the multilevel method read the clock every thousand
        or so steps (or ~65,000 adjacency entries), and the search stops early enough
        for what follows it (a few passes over the graph, timed on the
        machine as it is, reserved from the limit), so the call returns
        within a few per cent of the limit; a search cut
        short still returns a valid clustering (the first restart or
        V-cycle, if the limit ends it, is no longer a 1-opt optimum).
        ``time_limit=0`` means the least useful work: exactly one restart
        (or V-cycle, or VND pass), stopped at its first clock read, so
        ``iterations`` is 1 and the clustering is valid but not optimised.
    seed : int
        Seed of every random choice: an int in ``[0, 2**63 - 1]`` (the rule
        of every seeded function; floats, bools and None are refused).
    init : DataFrame, Series, dict, array or {"singletons", "one"}, optional
        Start of ``"vnd"`` (default: singletons, or one cluster when
        ``n_clusters`` is set); see :func:`imbalance` for the label formats.
        Refused with the other methods, which do not use it.
    backend : {"auto", "cpu", "gpu"}
        Where the VND runs (``"gpu"``: move evaluation, best-move reduction and
        sum updates all on the device).
    progress : bool or None, default None
        Show a progress bar over restarts / cycles.  None: only when stderr is
        a terminal (a few plain lines in a log with True, nothing with False).
    client : dask.distributed.Client, optional
        Run the GRASP / ILS restarts on a Dask cluster (same result for the same
        seed).  ``"multilevel"`` runs 8 independent searches on the workers
        (search 0 with ``seed``, the others with seeds drawn from
        ``(seed, i)``), each keeping ``time_limit`` on its worker, and keeps
        the best (ties: the smallest search id): without a time limit the same
        result for any number of workers, never worse than the single-process
        call; searches that would start after the limit are skipped, and
        ``iterations`` counts the V-cycles of all searches.  ``"vnd"`` is one
        sequential search and runs locally, with a ``RuntimeWarning`` saying so.
        The workers' kernels are readied first, their seconds in
        ``info["seconds_compile_workers"]``; that and the check of the workers
        count against ``time_limit`` (a fresh worker imports the package and
        loads its cached kernels: ``info["seconds_cluster"]``), their
        compiling does not.
    local_search : {"auto", "best", "parallel"}
        ``"best"``: the paper's VND (globally best move first). ``"parallel"``:
        rounds applying every improving move that beats the moves of all its
        neighbours (an independent set, so the gains add up exactly), then a
        best-move pass; few, wide steps, the flavour for a GPU. ``"auto"``:
        ``"best"``.  Each flavour gives the same result on CPU and GPU.
    construction : {"auto", "grasp", "multilevel"}
        Start of each ILS restart (GRASP always uses its randomized greedy
        construction). ``"auto"``: even restarts use the paper's GRASP
        construction, odd restarts a multilevel V-cycle; the best restart wins.
    perturbation : {"auto", "mixed", "vertex"}
        ILS kicks. ``"vertex"``: move random vertices to random clusters (the
        paper). ``"mixed"``: the first kick of each perturbation may instead
        merge two clusters or split one, which the next VND does not simply
        undo (random n=400 d=0.8 d-=0.8: 23,910 instead of 23,968 in 60 s).
        ``"auto"``: mixed on graphs of density >= 5 %, else alternating
        (even restarts vertex kicks, odd restarts mixed).
    plateau : bool, optional
        ILS: also keep a perturbation whose VND ends at an *equal* imbalance
        (a walk across the plateau of equal-cost optima; it still counts as a
        failed try, so the schedule ends).  None: on.  The paper keeps strict
        improvements only (random n=400 d=0.8 d-=0.8, 6 restarts: mean 23,961
        without, 23,915 with, 23,873 with merges and ``ils_max=20``).
    merge_moves : bool, optional
        ILS: the VND after each perturbation has a second neighbourhood,
        merging two whole clusters (the best merge, when no 1-opt move
        improves), so a split that a merge would repair is repaired.  None:
        on graphs of density >= 5 %.  The paper's VND has 1-opt moves only.
    perturbation_max, ils_max : int
        ILS: maximum perturbation level (vertices moved at random, default
        30) and failed tries per level (None: 5 as in the paper, or 20 with
        plateau walks on graphs of density >= 5 %, where a walk needs more
        tries per level); both in ``[1, 2**31 - 1]``.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file: a column name or a
        0-based position (networkx: an edge attribute).  ``None``: taken from
        the format or a recognised header.  Refused with a built
        :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    ClusteringResult
        ``labels`` (DataFrame vertex, cluster), ``imbalance``, ``parts``, ``history``.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before the graph is
        read or any work starts).
    GraphInputError
        Unsigned graph, bad ``init``, or an ``init`` with more than ``n_clusters`` clusters.
    BackendUnavailableError
        ``backend="gpu"`` without a usable GPU.

    Notes
    -----
    The sums ``A_i[k]`` (signed weight from vertex i to cluster k) are kept
    sparse per vertex (only adjacent clusters) and updated after each move,
    so memory is O(n + m) whatever the number of clusters; the paper's dense
    n x c matrices limited it to 12,888 vertices.

    The paper's ILS exactly (SeqILS, section 4.2) is ``method="ils",
    construction="grasp", perturbation="vertex", plateau=False,
    merge_moves=False`` (``perturbation_max=30``, ``ils_max=5``,
    ``max_iterations=10``).  The defaults add, on dense graphs, the plateau
    walk and the merge neighbourhood, which reach the paper's best published
    averages on its random instances (Tables 2-3) within 10 restarts.

    Results depend only on ``seed`` and the iteration limits: the same on
    CPU and GPU and for any number of threads.  With ``time_limit`` the
    amount of work done, hence the result, depends on the machine's speed:
    only iteration limits are reproducible.

    References
    ----------
    .. [1] M. Levorato, L. Drummond, Y. Frota, R. Figueiredo, "A GPU-accelerated
       local search algorithm for the Correlation Clustering problem", SBPO 2015.
    .. [2] F. Hausberger, M. Faraj, C. Schulz, "A Distributed Multilevel Memetic
       Algorithm for Signed Graph Clustering", arXiv:2208.13618.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.SignedGraph.from_edgelist({"source": [0, 1, 2, 3], "target": [1, 2, 3, 0],
    ...                                   "sign": [1, 1, -1, 1]}, sign="sign")
    >>> res = rb.correlation_clustering(g, method="vnd", progress=False)
    >>> res.imbalance
    1.0
    """
    t0 = time.perf_counter()
    p = _check_params("correlation_clustering", dict(
        method=method, n_clusters=n_clusters, alpha=alpha, max_iterations=max_iterations,
        time_limit=time_limit, seed=seed, init=init, backend=backend, progress=progress,
        client=client, local_search=local_search, construction=construction,
        perturbation_max=perturbation_max, ils_max=ils_max, perturbation=perturbation,
        plateau=plateau, merge_moves=merge_moves))
    # with a client: the check of its workers (a fresh worker imports the package to answer)
    cluster_s = 0.0 if client is None else time.perf_counter() - t0
    roles = check_roles(graph, "correlation_clustering",
                        dict(source=source, target=target, sign=sign, weight=weight))
    be = resolve_backend(backend)
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None:
        raise GraphInputError("correlation clustering needs a signed graph (no sign column)")
    if method == "auto":
        method = auto_method(graph)
    if client is not None and method == "vnd":
        warnings.warn(
            "correlation_clustering(method='vnd', client=...): this method is one sequential "
            "search and runs in this process, not on the Dask workers; method='multilevel', "
            "'ils' or 'grasp' spreads its work over the cluster", RuntimeWarning, stacklevel=3)
    iterations = DEFAULT_ITERATIONS[method] if max_iterations is None else p["max_iterations"]
    time_limit, seed = p["time_limit"], p["seed"]
    compile_s = _ready(graph, method, p, be, client is not None)
    workers_s = None
    if client is not None and method != "vnd":  # the workers' kernels, before the clock starts
        from .._ready import tiny_signed_graph
        from ..distributed._run import ready_on_workers

        small = {k: p[k] for k in ("n_clusters", "local_search", "construction", "perturbation",
                                   "plateau", "merge_moves", "seed")}
        workers_s = ready_on_workers(client, _ready, tiny_signed_graph(graph.weight is not None),
                                     method, small, be, False)
        # the cluster's preparation counts (the workers' imports and cache loads), not its
        # compiling
        cluster_s += workers_s.loading_s
    clock = time.perf_counter()  # the limit counts from here: graph read, kernels ready
    level = Level.of_graph(graph)
    # what follows the search whatever it found (the last contraction or sweep it started,
    # the cost of its best, the output tables) is a pass or two over the graph: its time,
    # counted in passes like the one that just built the level, is taken out of the limit
    reserve = RESERVE_PASSES * (time.perf_counter() - clock)
    deadline = (None if time_limit is None
                else max(clock, clock + float(time_limit) - reserve - cluster_s))
    params = dict(method=method, seed=seed, max_clusters=p["n_clusters"] or 0,
                  alpha=p["alpha"], local_search=local_search, construction=construction,
                  perturbation_max=p["perturbation_max"], ils_max=p["ils_max"],
                  perturbation=perturbation, plateau=plateau, merge_moves=merge_moves, backend=be,
                  deadline=deadline, _level=level)
    history: list[tuple[float, int, float]] = []

    def record(it: int, value: float) -> None:
        history.append((time.perf_counter() - clock, it, value))

    if method == "vnd":
        labels = _vnd_start(graph, init, params["max_clusters"])
        st = CPUState(level, labels, params["max_clusters"], deadline=_deadline(params))
        _local_search(st, params)
        best = canonical(st.labels)
        done = 1
        record(0, imbalance_value(graph, best))
    elif method == "multilevel" and client is not None:  # independent searches on the workers
        from ._scale_out import multilevel_search, run_searches

        shipped = {k: v for k, v in params.items() if k not in ("_level", "deadline")}
        found, done = run_searches(client, graph, dict(shipped, multilevel=_run_multilevel,
                                                       patience=iterations),
                                   multilevel_search, deadline=deadline, progress=progress,
                                   desc="multilevel searches")
        best = found["labels"]
        for _, cycle, value in found["history"]:
            record(cycle, value)
    elif method == "multilevel":
        best, done = _run_multilevel(graph, level, params, iterations, deadline, progress, record)
    elif client is not None:  # GRASP/ILS restarts on Dask: same best, same history
        from ._scale_out import run_restarts

        best, _, done = run_restarts(client, graph, params, iterations, time_limit=time_limit,
                                     progress=progress, record=record)
    else:
        best, best_val, done = None, np.inf, 0
        with progress_bar(iterations, f"{method} restarts", progress) as bar:
            for r in range(iterations):
                if r > 0 and deadline is not None and time.perf_counter() > deadline:
                    break
                lab, val = _restart(graph, r, params)
                done += 1
                if val < best_val:  # ties keep the smaller restart id
                    best, best_val = lab, val
                    record(r, val)
                bar.update(1)
                bar.set_postfix_str(f"best {best_val:g}")
    parts = imbalance(graph, best)
    frame = make_table({"vertex": label_column(graph), "cluster": best.astype(np.int64)}, like=graph)
    hist = make_table({c: np.array([h[i] for h in history], dtype)
                       for i, (c, dtype) in enumerate((("time_s", np.float64), ("iteration", np.int64),
                                                       ("imbalance", np.float64)))}, like=graph)
    public = {k: v for k, v in params.items() if not k.startswith("_") and k != "deadline"}
    public["time_limit"] = time_limit
    public["max_iterations"] = iterations
    return ClusteringResult(labels=frame, imbalance=parts.imbalance, parts=parts, history=hist,
                            method=method, seed=seed, iterations=done,
                            elapsed_s=time.perf_counter() - t0, backend=be, params=public,
                            work=int(level.work[0]),
                            info={"seconds_compile": compile_s,
                                  "seconds_search": time.perf_counter() - clock,
                                  **({} if client is None else {"seconds_cluster": cluster_s}),
                                  **({} if workers_s is None
                                     else {"seconds_compile_workers": workers_s})})


def _ready(graph: Graph, method: str, p: dict[str, Any], backend: str, distributed: bool) -> float:
    """Compile (or load) every kernel this search calls, once per process and option set.

    A tiny run of the same method with the options that pick code paths
    (weights, backend, local search, construction, perturbation, plateau,
    merge moves, a cluster cap) on a planted graph; see
    :mod:`rapids_balance._ready`.  Returns its seconds (0.0 once ready).
    """
    from .._ready import Side, ready, tiny_backend, tiny_signed_graph

    weighted = graph.weight is not None
    opts = dict(local_search=p["local_search"], construction=p["construction"],
                perturbation=p["perturbation"], plateau=p["plateau"], merge_moves=p["merge_moves"])
    capped = bool(p["n_clusters"])
    key = ("clustering", method, backend, weighted, capped, distributed, *opts.values())

    def job():
        tiny = tiny_signed_graph(weighted)
        init = "one" if method == "vnd" else None
        # two restarts: "auto" construction alternates GRASP and multilevel V-cycles
        correlation_clustering(tiny, method=method, n_clusters=4 if capped else None,
                               max_iterations=2, time_limit=3600.0, seed=p["seed"], init=init,
                               perturbation_max=2, ils_max=2, backend=tiny_backend(backend),
                               progress=False,
                               **opts)

    side = None
    if backend == "cpu" and method != "vnd":
        # the constructions' kernels (about half of the compiling) in a second process while
        # this one compiles the local search's
        from . import _cpu
        from ._restart import classic_construction, ready_construction, ready_local_search

        grasp = method == "grasp" or capped or (method == "ils" and p["construction"] != "multilevel")
        levels = method == "multilevel" or classic_construction(method, p["construction"])
        maxc = 4 if capped else 0
        side = Side(f"{ready_construction.__module__}:{ready_construction.__name__}",
                    {"weighted": weighted, "max_clusters": maxc, "seed": p["seed"], "grasp": grasp,
                     "levels": levels},
                    _cpu.grasp_construct if grasp else _cpu.sweeps_dense,
                    lambda: ready_local_search(weighted, maxc, p["seed"], method, {**opts}))
    return ready(key, job, side)


def _vnd_start(graph: Graph, init: Any, max_clusters: int) -> np.ndarray:
    if init is None:
        init = "one" if max_clusters else "singletons"
    if isinstance(init, str):
        if init == "singletons":
            lab = np.arange(graph.n, dtype=np.int32)
        elif init == "one":
            lab = np.zeros(graph.n, dtype=np.int32)
        else:
            raise GraphInputError(f"init must be 'singletons', 'one' or labels, got {init!r}")
    else:
        lab = coerce_labels(graph, init, "init")
    if max_clusters and int(lab.max()) + 1 > max_clusters:
        raise GraphInputError(f"init has {int(lab.max()) + 1} clusters, more than "
                              f"n_clusters={max_clusters}")
    return lab


#: clusterings kept by the multilevel search (each first a V-cycle from singletons)
POPULATION = 4
BATCH = 2     # generations that start from the same population (and may run side by side)
#: from this many CSR slots V-cycles run one at a time: two side by side would double the
#: peak memory of a search (a V-cycle's hierarchy and sums: about 80 bytes per edge)
SIDE_BY_SIDE_MAX_SLOTS = 4_000_000
INJECT = 3    # every INJECT-th generation combines the best with a fresh V-cycle (diversity)
#: batches of combinations in a row without a better best that end the memetic phase (with a
#: longer memetic phase the iterated search that follows has less time: full Epinions, 10 s,
#: 48,805 after three, 48,800 after one)
MEMETIC_PATIENCE = 1
PEEL_MAX = 1000   # most vertices that a mutation of the iterated search peels off a cluster


def _pair(generation: int, size: int) -> tuple[int, int]:
    """Parents of ``generation`` (1, 2, ...) as ranks in a population of ``size``
    sorted best first: odd generations pair the best with the others in turn,
    even ones two others in turn (lexicographic order), so every pair comes up
    within ``size * (size - 1)`` generations.  A population of one pairs the
    best with itself (a plain V-cycle from it)."""
    if size < 2:
        return 0, 0
    others = [(i, j) for i in range(1, size) for j in range(i + 1, size)]
    if generation % 2 or not others:
        return 0, 1 + (generation // 2) % (size - 1)
    return others[(generation // 2 - 1) % len(others)]


def _run_multilevel(graph, level, params, patience, deadline, progress, record):
    """Memetic multilevel search until ``patience`` generations in a row bring
    no better best, or the deadline.

    ``POPULATION`` V-cycles from singletons (different seeded orders) form the
    population; each generation combines two of them (:func:`_pair`) with a
    V-cycle that coarsens inside their overlay and starts from the better one
    (:func:`._multilevel.v_cycle` with ``partner``), and the child replaces the
    worst member when it beats it and is new (:func:`_offer`).  Every
    ``INJECT``-th generation first makes a fresh V-cycle from singletons and
    combines the best with it, so the population does not close in on one
    lineage (full Slashdot, 10 s: 68,420; a chain of V-cycles from the best
    alone: 68,610).  The memetic phase ends after ``MEMETIC_PATIENCE``
    batches without a better best; the iterated search (:func:`_iterated`)
    then runs until ``patience`` rounds bring none (with ``n_clusters``,
    which a peeled ball could exceed, the memetic phase takes ``patience``
    and there is no iterated search).

    When the first V-cycle leaves no time for the rest of the population
    (:func:`_no_room_for_a_population`), the search is a chain of V-cycles
    from the best instead (:func:`_chain`).

    Generations go in batches of ``BATCH`` that all start from the same
    population and are offered to it in generation order, so the batch can
    run in threads (the kernels release the GIL) and the result is the same
    for any number of threads.  A cycle cut short by the deadline still
    returns a clustering no worse than its start, so the best is always
    valid.  Ties keep the older member (smaller cycle number).
    """
    seed, maxc = params["seed"], params["max_clusters"]
    local = _gpu_vnd(params) if params["backend"] == "gpu" else None
    dl = _deadline(params)
    pop: list[tuple[float, int, np.ndarray]] = []
    best_val = np.inf

    def add(lab: np.ndarray, cyc: int, val: float) -> None:
        nonlocal best_val
        pop.append((val, cyc, lab))
        pop.sort(key=lambda x: (x[0], x[1]))
        if val < best_val:
            best_val = val
            record(cyc, val)

    def cycle_of(cyc: int, start=None, partner=None) -> tuple[np.ndarray, float, int]:
        lab = canonical(v_cycle(level, seed, cyc, start, maxc, local, dl, partner))
        return lab, imbalance_value(graph, lab), cyc

    def children(generation: int, members: list[np.ndarray]):
        """The V-cycles of one generation (cycle numbers fixed by ``generation``)."""
        cyc = POPULATION + 2 * (generation - 1)
        i, j = _pair(generation, len(members))
        partner = members[j] if j != i else None
        out = []
        if INJECT and generation % INJECT == 0:
            out.append(cycle_of(cyc))
            i, partner = 0, out[-1][0]
        out.append(cycle_of(cyc + 1, members[i], partner))
        return out

    started = time.perf_counter()
    _offer(pop, *cycle_of(0), add)  # first, so numba's threading layer is known to _threads
    done = 1
    if _no_room_for_a_population(started, dl):
        return _chain(pop, cycle_of, add, patience, dl, progress)
    with progress_bar(0, "multilevel cycles", progress) as bar, \
            ThreadPoolExecutor(max_workers=_threads(params)) as pool:
        if not passed(dl):
            for lab, val, cyc in pool.map(cycle_of, range(1, POPULATION)):
                _offer(pop, lab, val, cyc, add)
                done += 1
        bar.update(done)
        generation, stale = 0, 0
        memetic = patience if maxc else min(patience, MEMETIC_PATIENCE)
        while stale < memetic and not passed(dl):
            members = [m[2] for m in pop]
            batch = range(generation + 1, generation + 1 + BATCH)
            for out in pool.map(lambda g: children(g, members), batch):
                before = best_val
                for lab, val, cyc in out:
                    _offer(pop, lab, val, cyc, add)
                done += len(out)
                stale = 0 if best_val < before else stale + 1
            generation += BATCH
            bar.update(BATCH)
            bar.set_postfix_str(f"best {best_val:g}")
        if not maxc:  # a peeled ball is a new cluster, which n_clusters may not allow
            done += _iterated(pop, level, seed, POPULATION + 2 * generation, cycle_of, add,
                              patience, dl, bar, pool)
    return pop[0][2], done


def _iterated(pop, level: Level, seed: int, cycle: int, cycle_of, add, patience: int,
              deadline: float, bar, pool) -> int:
    """Iterated multilevel search from the best: each round makes ``BATCH``
    mutations of the current clustering (:func:`_peel`) and a V-cycle from
    each (side by side in ``pool``), taken in cycle order: a result no worse
    than the current one becomes the current one (a walk across equal
    optima), a better one joins the population.  Stops after ``patience``
    rounds in a row without a better best, or at the deadline.  Returns the
    V-cycles done.

    A peeled ball lets the V-cycle, which coarsens inside the clusters of
    its start, group and move pieces that straddle the ball's border, which
    the combinations of the memetic phase, converged into one basin, no
    longer do (full Slashdot, 10 s: 68,393 instead of 68,421; 30 s: 68,386
    instead of 68,415).

    Two variants measured and left out.  Confining a round to the ball's
    neighbourhood (a V-cycle on a region of about 3,000 vertices with the
    rest contracted into fixed clusters: 30 ms instead of 250 ms on full
    Slashdot) found far less, 24 units in 263 rounds against about 120 in
    34 full V-cycles: the gains come from each V-cycle's fresh coarsening of
    the whole graph, not from the ball alone.  Peeling four disjoint balls
    in every other mutation gained about 9 on Slashdot with one thread but
    nothing beyond the seed-to-seed spread with two (seeds 0-2, 10 s:
    68,384 / 68,381 / 68,372 against 68,401 / 68,377 / 68,378; Epinions
    48,803 / 48,826 / 48,805 against 48,807 / 48,816 / 48,806).
    """
    done = stale = 0
    cur_val, cur = pop[0][0], pop[0][2]
    while level.n > 1 and stale < patience and not passed(deadline):
        before = pop[0][0]
        starts = [(c, _peel(level, cur, seed, c)) for c in range(cycle, cycle + BATCH)]
        for lab, val, cyc in pool.map(lambda cs: cycle_of(*cs), starts):
            done += 1
            if val <= cur_val:
                cur_val, cur = val, lab
            _offer(pop, lab, val, cyc, add)
        stale = 0 if pop[0][0] < before else stale + 1
        cycle += BATCH
        bar.update(BATCH)
        bar.set_postfix_str(f"best {pop[0][0]:g}")
    return done


def _peel(level: Level, labels: np.ndarray, seed: int, cycle: int) -> np.ndarray:
    """``labels`` with one ball made a new cluster: breadth-first over the
    positive edges inside one cluster, from a random vertex, up to a random
    size in ``[2, PEEL_MAX]`` (seeded by ``seed`` and ``cycle``)."""
    rng = np.random.default_rng([seed, cycle, 0x7065656C])
    ptr, idx, a = level.indptr, level.indices, level.a
    root = int(rng.integers(level.n))
    home, size = labels[root], int(rng.integers(2, PEEL_MAX + 1))
    ball, seen, head = [root], {root}, 0
    while head < len(ball) and len(ball) < size:
        v = ball[head]
        head += 1
        nb = idx[ptr[v]:ptr[v + 1]][a[ptr[v]:ptr[v + 1]] > 0]
        for u in rng.permutation(nb).tolist():
            if u not in seen and labels[u] == home:
                seen.add(u)
                ball.append(u)
                if len(ball) == size:
                    break
    lab = labels.copy()
    lab[np.array(ball)] = int(labels.max()) + 1
    return canonical(lab)


def _no_room_for_a_population(started: float, deadline: float) -> bool:
    """True when the time left would not take the other ``POPULATION - 1``
    V-cycles from singletons at the pace of the first one (started at
    ``started``): such cycles, cut by the deadline, would be lost work (10^7
    edges, 30 s)."""
    if deadline == NO_DEADLINE:
        return False
    now = time.perf_counter()
    return (POPULATION - 1) * (now - started) > deadline - now


def _chain(pop, cycle_of, add, patience: int, deadline: float,
           progress: bool) -> tuple[np.ndarray, int]:
    """V-cycles from the best clustering (each coarsens inside its clusters
    and never makes it worse, even when the deadline cuts it) until
    ``patience`` in a row bring nothing better, or the deadline.  Returns
    (best labels, V-cycles done, the first one included)."""
    cycle, stale = 1, 0
    with progress_bar(0, "multilevel cycles", progress) as bar:
        while stale < patience and not passed(deadline):
            before = pop[0][0]
            _offer(pop, *cycle_of(cycle, pop[0][2]), add)
            stale = 0 if pop[0][0] < before else stale + 1
            cycle += 1
            bar.update(1)
    return pop[0][2], cycle


def _threads(params: dict[str, Any]) -> int:
    """Threads for a batch of V-cycles: numba's count on the CPU backend (the
    GPU VND runs one at a time), one when numba's threading layer is the
    workqueue, which does not take parallel launches from several threads,
    and one on large graphs (``SIDE_BY_SIDE_MAX_SLOTS``)."""
    if params["backend"] == "gpu" or params["_level"].indices.size > SIDE_BY_SIDE_MAX_SLOTS:
        return 1
    try:
        if numba.threading_layer() == "workqueue":
            return 1
    except ValueError:  # no parallel kernel has run yet in this process
        return 1
    return max(1, min(BATCH, numba.get_num_threads()))


def _offer(pop, lab: np.ndarray, val: float, cycle: int, add) -> None:
    """``lab`` (canonical labels, imbalance ``val``) joins the population when
    there is room, or replaces its worst member when it beats it and no member
    has the same clustering."""
    if any(np.array_equal(lab, member[2]) for member in pop):
        return
    if len(pop) < POPULATION:
        add(lab, cycle, val)
    elif val < pop[-1][0]:
        pop.pop()
        add(lab, cycle, val)


def _gpu_vnd(params):
    """The input level's best-move VND on the device (same result as on the CPU)."""
    from ._gpu import GPUState

    maxc = params["max_clusters"]

    def run(level: Level, labels: np.ndarray) -> np.ndarray:
        gs = GPUState(level, labels, maxc)
        gs.vnd_best()
        return gs.host_labels()

    return run
