"""significance(): a balance statistic against null models, sample by sample.

Samples are independent work: :func:`null_batch` turns a range of sample
ids into their statistic values (a pure function of the graph, the ids and
the parameters, each sample drawing from its own counter-based stream), and
the values are concatenated in sample order.  Batches run one after the
other here, or on a Dask cluster through
:func:`rapids_balance.distributed._run.run_batches` (``fold``: concatenate in
batch order): the same seed gives the same values however they are cut.
"""

from __future__ import annotations

import time
from collections import namedtuple
from typing import Any

import numpy as np

from .._progress import progress_bar
from .._validation import (check_backend, check_choice, check_int, check_progress, check_seed,
                           check_time_limit)
from ..errors import GraphInputError
from ..distributed._run import on_workers
from ..graph import graph_from_any
from ..io._roles import check_roles
from ._nulls import NULLS, sample_seed, shuffled_signs, swapped_graph, with_signs
from ._result import ALTERNATIVES, SignificanceResult, summarise
from ._statistics import resolve_statistic

__all__ = ["significance", "null_batch"]

OWNER = "significance"
MAX_SAMPLES = 10**9
MAX_SWAPS_PER_EDGE = 10**6
DEFAULT_BATCH = 16
# what backend="gpu" moves to the device: the frustration index (its own GPU path, per
# sample) and the triangle ratio (the shuffle null's samples batched on the device)
GPU_STATISTICS = ("frustration", "triangles")

NullParams = namedtuple("NullParams", ["statistic", "null", "seed", "swaps_per_edge", "backend"])
NullParams.__doc__ = "What every batch needs: the statistic (name or callable), the null model, seeds."


def _named(statistic: Any, *names: str) -> bool:
    """Whether ``statistic`` is one of the named statistics (a callable never is, whatever its name)."""
    return isinstance(statistic, str) and statistic in names


class _Sampler:
    """Null samples of one graph; the fixed-topology fast path is prepared once."""

    def __init__(self, graph, params: NullParams):
        self.graph, self.params = graph, params
        self.stat = resolve_statistic(params.statistic, OWNER)
        self.fast = (self.stat.on_topology(graph)
                     if params.null == "shuffle" and self.stat.on_topology is not None else None)
        self.device = None
        if params.backend == "gpu" and params.null == "shuffle" and _named(params.statistic, "triangles"):
            from ._gpu import TriangleShuffles
            from ._statistics import triangle_list

            self.device = TriangleShuffles(graph, triangle_list(graph))

    def __call__(self, ids) -> np.ndarray:
        g, p = self.graph, self.params
        if self.device is not None:  # the whole batch at once, the same values as below
            return self.device([sample_seed(p.seed, i) for i in ids])
        out = np.empty(len(ids), np.float64)
        for j, i in enumerate(ids):
            s = sample_seed(p.seed, i)
            stat_seed = s >> 1  # the statistic's own draws (seeds are < 2**63)
            if p.null == "shuffle":
                sign = shuffled_signs(g.sign, s)
                out[j] = (self.fast(sign, stat_seed) if self.fast is not None
                          else self.stat.value(with_signs(g, sign), stat_seed, p.backend))
            else:
                out[j] = self.stat.value(swapped_graph(g, s, p.swaps_per_edge), stat_seed,
                                         p.backend)
        return out


def null_batch(graph, ids, params: NullParams) -> np.ndarray:
    """Statistic values of the null samples ``ids`` (a range), in order; pure."""
    return _Sampler(graph, params)(ids)


def _concatenate(parts: list) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.float64)


@on_workers
def significance(graph: Any, statistic: Any = "frustration", null: str = "shuffle", *,
                 n_samples: int = 100, seed: int = 0, alternative: str | None = None,
                 swaps_per_edge: int = 10, batch_size: int | None = None, backend: str = "auto",
                 client: Any = None, progress: bool | None = None, time_limit: float | None = None,
                 source: Any = None, target: Any = None, sign: Any = None,
                 weight: Any = None) -> SignificanceResult:
    """Test a balance statistic of a signed graph against a null model.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph.
    statistic : {"frustration", "triangles", "walk"} or callable, default "frustration"
        ``"frustration"``: the refined frustration index
        (:func:`~rapids_balance.frustration` with 8 trees, a population of
        4 states and one recombination round per graph); ``"triangles"``:
        the triangle balance ratio (share of triangles with an even number
        of negative edges);
        ``"walk"``: the walk balance score (needs
        ``rapids_balance.measures.walk_balance``); or ``f(graph) -> float``
        on a :class:`~rapids_balance.graph.SignedGraph` (module-level, so a
        Dask worker can import it).
    null : {"shuffle", "swap"}, default "shuffle"
        ``"shuffle"``: the signs permuted over the fixed edges (same topology,
        same number of negative edges).  ``"swap"``: double-edge swaps within
        one sign, which keep every vertex's positive and negative degree and
        the graph simple (``swaps_per_edge`` attempts per edge).
    n_samples : int, default 100
        Null samples, in ``[1, 10**9]``.
    seed : int, default 0
        An int in ``[0, 2**63 - 1]``.  Sample ``i`` draws from a stream
        derived from ``(seed, i)`` alone.
    alternative : {"less", "greater", "two-sided"}, optional
        The side of the p-value.  Default: the side where the statistic
        means *more balanced than chance* (``"less"`` for frustration,
        ``"greater"`` for the triangle and walk scores; ``"two-sided"`` for
        a callable).
    swaps_per_edge : int, default 10
        Swap attempts per edge of the ``"swap"`` null, in ``[1, 10**6]``.
    batch_size : int, optional
        Samples per batch (one Dask task each), >= 1.  Default 16.  The
        result does not depend on it.
    backend : {"auto", "cpu", "gpu"}, default "auto"
        Where the frustration statistic runs, and where the triangle
        statistic's shuffle samples run (a batch at a time: shuffles and
        triangle types on the device, the same values as the CPU's).  The
        swap null's rewiring and the walk statistic run on the CPU.
    client : distributed.Client, optional
        Spread the batches over a Dask cluster; the values are the same as
        without one.
    progress : bool, optional
        A progress bar over the samples, with the time left.  ``None`` (the
        default): a bar only when stderr is a terminal or in a notebook, so
        scripts and logs stay quiet; ``True``: always report; ``False``: never.
    time_limit : float, optional
        Seconds (a number >= 0): sampling stops after the batch that passes
        it, and the result holds the samples done (a prefix of the ones
        asked for: ``stopped`` says so).  With ``client`` no batch is
        submitted past it (the first always is; batches already running
        finish), so the result is again a prefix.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.  Refused with a
        built :class:`~rapids_balance.graph.Graph`.

    Returns
    -------
    SignificanceResult
        ``observed``, ``null_mean``, ``null_std``, ``z_score``, ``p_value``,
        the ``null_distribution`` table and a ``plot()`` method.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value, or ``statistic="walk"`` is
        not available (checked before the graph is read).
    GraphInputError
        The graph is unsigned or directed, or the statistic is undefined on
        it (no triangles).

    Notes
    -----
    The p-value is empirical: ``(1 + k) / (1 + n)`` with ``k`` the null
    samples at least as extreme as the observed value (Davison and Hinkley;
    North et al. 2002), so it is valid with any number of samples and never
    0.  Under the null hypothesis (the observed graph is itself a draw of
    the null model) it is uniform, up to the ties of a discrete statistic,
    which make it conservative.  The shuffle null asks whether the signs sit
    on the edges in a more balanced way than chance given the topology; the
    swap null keeps each vertex's numbers of friends and enemies (agents
    who distrust many keep doing so) and asks whether *who* they are is
    more balanced than chance.  The frustration statistic is a heuristic
    upper bound computed the same way on the graph and on every sample.

    References
    ----------
    .. [1] B. V. North, D. Curtis, P. C. Sham, "A note on the calculation of
       empirical P values from Monte Carlo procedures", American Journal of
       Human Genetics 71 (2002).
    .. [2] R. Milo, N. Kashtan, S. Itzkovitz, M. E. J. Newman, U. Alon, "On the
       uniform generation of random graphs with prescribed degree sequences",
       arXiv cond-mat/0312028 (2003).
    .. [3] E. Estrada, M. Benzi, "Walk-based measure of balance in signed
       networks", Physical Review E 90 (2014).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> res = rb.significance(rb.load_example("highland"), "triangles", n_samples=200,
    ...                       seed=1, progress=False)
    >>> res.p_value < 0.05
    True
    """
    n_samples = check_int(n_samples, "n_samples", OWNER, low=1, high=MAX_SAMPLES)
    null = check_choice(null, "null", OWNER, NULLS)
    seed = check_seed(seed, OWNER)
    if alternative is not None:
        alternative = check_choice(alternative, "alternative", OWNER, ALTERNATIVES)
    swaps_per_edge = check_int(swaps_per_edge, "swaps_per_edge", OWNER, low=1,
                               high=MAX_SWAPS_PER_EDGE)
    batch_size = check_int(batch_size, "batch_size", OWNER, low=1, high=MAX_SAMPLES,
                           allow_none=True) or DEFAULT_BATCH
    backend = check_backend(backend, OWNER)
    progress = check_progress(progress, OWNER)
    time_limit = check_time_limit(time_limit, OWNER)
    stat = resolve_statistic(statistic, OWNER)
    from ..distributed._run import RangeBatches, check_client_arg, check_task_count

    check_client_arg(client, OWNER, backend)
    batches = RangeBatches(n_samples, batch_size)
    if client is not None:
        check_task_count(len(batches), OWNER)
    roles = check_roles(graph, OWNER, dict(source=source, target=target, sign=sign, weight=weight))
    start = time.perf_counter()
    graph = graph_from_any(graph, signed=True, **roles)
    if graph.sign is None or graph.directed:
        raise GraphInputError(f"{OWNER} needs an undirected signed graph (a sign on every edge)")
    stat.check(graph)
    from ..backend import resolve_backend

    params = NullParams(statistic, null, seed, swaps_per_edge,
                        resolve_backend(backend) if _named(statistic, *GPU_STATISTICS) else "cpu")
    observed = stat.value(graph, seed, params.backend)
    deadline = np.inf if time_limit is None else start + time_limit
    stopped = None
    if client is not None:
        from ..distributed._run import ready_on_workers, run_batches, wall_deadline

        # every worker compiles (or loads) the statistic's kernels at once, before its batches
        workers_s = ready_on_workers(client, _ready_null, params)
        # batches in order, none submitted past the deadline: a prefix, as in one process
        values = run_batches(client, graph, null_batch, batches, params, fold=_concatenate,
                             progress=progress, desc="significance",
                             until=None if time_limit is None else wall_deadline(deadline))
        if values.size < n_samples:
            stopped = "time_limit"
    else:
        sampler = _Sampler(graph, params)
        parts = []
        with progress_bar(n_samples, f"null samples ({stat.name}, {null})", progress,
                          unit="sample") as bar:
            for ids in batches:
                parts.append(sampler(ids))
                bar.update(len(ids))
                if time.perf_counter() > deadline and ids.stop < n_samples:
                    stopped = "time_limit"
                    break
        values = _concatenate(parts)
    res = summarise(stat.name, null, observed, values, alternative or stat.side, seed,
                    time.perf_counter() - start, stopped)
    if client is not None:
        res.info["seconds_compile_workers"] = workers_s
    return res


def _ready_null(params: NullParams) -> float:
    """A worker's kernels for ``params``' statistic and null model, compiled or loaded once per
    process: two null samples of a tiny graph (:mod:`rapids_balance._ready`); its seconds."""
    from .._ready import ready, tiny_backend, tiny_signed_graph

    if not isinstance(params.statistic, str):  # a user's function: its own kernels, if any
        return 0.0
    tiny = params._replace(backend=tiny_backend(params.backend))
    key = ("significance", tiny.statistic, tiny.null, tiny.backend)
    return ready(key, lambda: null_batch(tiny_signed_graph(), range(2), tiny))
