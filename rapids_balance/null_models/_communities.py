"""community_significance(): a partition's objective against the null models.

Signed community detection finds communities in graphs that have none: a
search maximises its objective over very many partitions, so even random
signs give a high optimum.  Two questions, one driver
(:func:`~rapids_balance.null_models.significance` with the partition's
objective as the statistic, so batches, seeds, Dask and ``time_limit`` are
the same):

* ``search=False``: does *this* partition fit the signs better than it fits
  signs placed by chance?  Its objective on the graph against its
  objective on every null sample (the same vertices, so the same
  partition applies);
* ``search=True``: is it better than what the search finds where there is
  nothing to find?  Its objective against the best objective the search
  reaches on every null sample.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from .._deadline import NO_DEADLINE
from .._validation import check_bool, check_choice, check_int, check_seed
from ..clustering._communities import search_communities
from ..clustering._objective import coerce_labels
from ..clustering._signed_objective import (NULL_MODELS, OBJECTIVES, _signed_graph,
                                            check_resolution, objective_value)
from ._result import SignificanceResult, summarise
from ._nulls import NULLS
from ._significance import MAX_SAMPLES, significance

__all__ = ["community_significance"]

OWNER = "community_significance"
#: the objective's side: a higher Q or F, a lower imbalance is a better partition
SIDE = {"modularity": "greater", "potts": "greater", "imbalance": "less"}


def partition_value(graph, *, labels, objective, gp, gn, potts_null) -> float:
    """The objective of the fixed partition ``labels`` on ``graph`` (a module-level
    function, so a Dask worker can import the statistic)."""
    return float(objective_value(graph, labels, objective, gp, gn, potts_null)[0])


def best_value(graph, *, objective, gp, gn, potts_null, seed) -> float:
    """The objective of the search's partition on ``graph`` (one restart, seeded)."""
    lab, _ = search_communities(graph, objective, gp, gn, potts_null, seed=seed, restarts=1,
                                max_passes=10, refine=True, extra=4, deadline=NO_DEADLINE)
    return float(objective_value(graph, lab, objective, gp, gn, potts_null)[0])


def community_significance(graph: Any, partition: Any, *, objective: str = "modularity",
                           resolution: Any = 1.0, potts_null: str = "erdos_renyi",
                           null: str = "shuffle", search: bool = False, n_samples: int = 100,
                           seed: int = 0, swaps_per_edge: int = 10, batch_size: int | None = None,
                           client: Any = None, progress: bool | None = None,
                           time_limit: float | None = None, source: Any = None,
                           target: Any = None, sign: Any = None,
                           weight: Any = None) -> SignificanceResult:
    """Test a partition's signed community objective against a null model.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph.
    partition : DataFrame, Series, dict or array
        The communities: a :class:`CommunityResult`'s ``labels`` frame
        (``vertex``, ``community``), a frame with ``vertex`` and ``cluster``,
        a Series or dict from vertex label to community, or an array in the
        graph's vertex order.
    objective : {"modularity", "potts", "imbalance"}, default "modularity"
        The statistic: signed modularity Q, the signed Potts quality F or
        the imbalance I(P) of the partition.
    resolution : float or (float, float), default 1.0
        (gamma+, gamma-) of Q and F.
    potts_null : {"erdos_renyi", "configuration", "constant"}, default "erdos_renyi"
        The Potts model's null model (``objective="potts"`` only).
    null : {"shuffle", "swap"}, default "shuffle"
        The null model of the graphs (:func:`significance`): signs permuted
        over the fixed edges, or double-edge swaps within one sign (every
        vertex keeps its positive and negative degree).
    search : bool, default False
        False: the partition's objective on every null sample.  True: the
        best objective :func:`signed_communities` finds on every null sample
        (one restart, seeded; much slower), so the test asks whether the
        partition beats the communities one finds where there are none.
    n_samples, seed, swaps_per_edge, batch_size, client, progress, time_limit
        As :func:`significance`: the same seed gives the same null values,
        with or without a Dask ``client``.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    SignificanceResult
        ``observed`` (the partition's objective), ``null_mean``,
        ``null_std``, ``z_score``, ``p_value`` (one-sided: a higher Q or F,
        a lower imbalance), ``null_distribution``; ``statistic`` names the
        objective.

    Raises
    ------
    InvalidParameterError
        A parameter is out of range (before any work).
    GraphInputError
        The graph is unsigned or directed, or ``partition`` does not fit it.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> g = rb.load_example("highland")
    >>> found = rb.signed_communities(g, seed=0)
    >>> res = rb.community_significance(g, found.labels, n_samples=200, seed=0, progress=False)
    >>> res.p_value < 0.01
    True
    """
    t0 = time.perf_counter()
    check_choice(objective, "objective", OWNER, OBJECTIVES)
    gp, gn = check_resolution(resolution, OWNER)
    check_choice(potts_null, "potts_null", OWNER, NULL_MODELS)
    search = check_bool(search, "search", OWNER)
    check_choice(null, "null", OWNER, NULLS)
    check_int(n_samples, "n_samples", OWNER, low=1, high=MAX_SAMPLES)
    seed = check_seed(seed, OWNER)
    g = _signed_graph(graph, OWNER, dict(source=source, target=target, sign=sign, weight=weight))
    labels = coerce_labels(g, partition, "partition").astype(np.int64)
    common = dict(objective=objective, gp=gp, gn=gn, potts_null=potts_null)
    observed = partition_value(g, labels=labels, **common)
    if search:
        stat = functools.partial(best_value, seed=seed, **common)
    else:
        stat = functools.partial(partition_value, labels=labels, **common)
    stat.__name__ = f"{objective} ({'best found' if search else 'of the partition'})"
    res = significance(g, stat, null, n_samples=n_samples, seed=seed,
                       alternative=SIDE[objective], swaps_per_edge=swaps_per_edge,
                       batch_size=batch_size, backend="cpu", client=client, progress=progress,
                       time_limit=time_limit)
    if not search:
        return res
    # the driver scored the search's best on the graph; the test is about the partition
    return summarise(res.statistic, null, observed, res.null_distribution["value"].to_numpy(),
                     SIDE[objective], seed, time.perf_counter() - t0, res.stopped)
