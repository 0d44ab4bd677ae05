"""A scan over resolutions: warm starts between neighbouring points, stability across seeds.

Each resolution is searched with every seed; a seed's search starts from its
own partition at the previous resolution (``init``), so a point costs the
moves from a nearby optimum instead of a search from singletons.  The
stability of a point is the mean adjusted Rand index between the seeds'
partitions: communities that only one vertex order finds are not to be
trusted.  Signed community detection is also known to find communities where
there are none: with ``significance=n`` each point's best partition is
tested against ``n`` null graphs (:func:`community_significance`).  The scan
lives beside the null models because it uses them; its searches are the
clustering layer's.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._deadline import NO_DEADLINE
from .._validation import check_bool, check_choice, check_int, check_seed, param_error
from ..clustering._agreement import adjusted_rand_index
from ..clustering._communities import search_communities
from ..clustering._objective import canonical
from ..clustering._signed_objective import (NULL_MODELS, OBJECTIVES, _signed_graph,
                                            check_resolution, objective_value)
from ._communities import community_significance
from ._nulls import NULLS

__all__ = ["ResolutionScan", "resolution_scan"]


@dataclass
class ResolutionScan:
    """Outcome of :func:`resolution_scan`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per resolution: ``gamma_positive``, ``gamma_negative``,
        ``value`` (best over the seeds), ``n_communities`` (of the best),
        ``stability`` (mean ARI between the seeds' partitions; 1.0 with one
        seed), ``seconds``; with ``significance``: ``z_score`` and
        ``p_value`` of the best partition (:func:`community_significance`).
    partitions : list of numpy.ndarray
        The best partition at each resolution (internal vertex order).
    objective, null, seeds, elapsed_s
    """

    table: pd.DataFrame
    partitions: list
    objective: str
    null: str
    seeds: tuple
    elapsed_s: float
    params: dict[str, Any] = field(default_factory=dict)


def resolution_scan(graph: Any, resolutions: Any, *, objective: str = "modularity",
                    null: str = "erdos_renyi", seeds: Any = (0, 1, 2), restarts: int = 1,
                    significance: int = 0, significance_null: str = "shuffle",
                    significance_search: bool = True, source: Any = None, target: Any = None, sign: Any = None,
                    weight: Any = None) -> ResolutionScan:
    """Communities at each of several resolutions, with their stability across seeds.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
    resolutions : sequence
        Resolutions in scan order (each a number or a pair (gamma+, gamma-));
        neighbours should be close, as each point starts from the last.
    objective : {"modularity", "potts"}, default "modularity"
    null : {"erdos_renyi", "configuration", "constant"}
        The Potts null model.
    seeds : sequence of int, default (0, 1, 2)
        One search per seed at each point (1 to 64 distinct seeds).
    restarts : int, default 1
        Restarts of each search, 1 .. 10**6.
    significance : int, default 0
        Null graphs per point (0: no test; at most 10**6): each point's best
        partition is tested with :func:`community_significance` (seeded with
        the first seed), adding ``z_score`` and ``p_value`` to the table.
    significance_null : {"shuffle", "swap"}, default "shuffle"
        The null model of that test.
    significance_search : bool, default True
        The test's ``search``: the partition against the search's best on
        every null graph (True; the question a found partition must answer)
        or against its own value there (False; cheaper).
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    ResolutionScan

    Examples
    --------
    >>> import rapids_balance as rb
    >>> scan = rb.resolution_scan(rb.load_example("highland"), [0.5, 1.0, 2.0], seeds=(0, 1))
    >>> scan.table["n_communities"].tolist()
    [3, 3, 4]
    """
    t0 = time.perf_counter()
    owner = "resolution_scan"
    check_choice(objective, "objective", owner, tuple(o for o in OBJECTIVES if o != "imbalance"))
    check_choice(null, "null", owner, NULL_MODELS)
    try:
        points = [check_resolution(r, owner, name="resolutions") for r in resolutions]
    except TypeError:
        raise param_error("resolutions", owner, "a sequence of resolutions", resolutions) from None
    if not points:
        raise param_error("resolutions", owner, "a non-empty sequence of resolutions", resolutions)
    try:
        seeds = tuple(check_seed(s, owner, name="seeds") for s in seeds)
    except TypeError:
        raise param_error("seeds", owner, "a sequence of int seeds", seeds) from None
    if not 1 <= len(seeds) <= 64 or len(set(seeds)) != len(seeds):
        raise param_error("seeds", owner, "1 to 64 distinct seeds", seeds)
    restarts = check_int(restarts, "restarts", owner, low=1, high=10**6)
    significance = check_int(significance, "significance", owner, low=0, high=10**6)
    check_choice(significance_null, "significance_null", owner, NULLS)
    significance_search = check_bool(significance_search, "significance_search", owner)
    g = _signed_graph(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    rows, best_parts = [], []
    last: dict[int, np.ndarray] = {}
    for gp, gn in points:
        t = time.perf_counter()
        found = []
        for s in seeds:
            lab, _ = search_communities(g, objective, gp, gn, null, seed=s, restarts=restarts,
                                        max_passes=10, refine=True, extra=4,
                                        deadline=NO_DEADLINE, init=last.get(s))
            last[s] = lab
            found.append((objective_value(g, lab, objective, gp, gn, null)[0], lab))
        value, best = max(found, key=lambda f: f[0])  # ties: the first seed
        ari = [adjusted_rand_index(a[1], b[1]) for a, b in itertools.combinations(found, 2)]
        rows.append(dict(gamma_positive=gp, gamma_negative=gn, value=float(value),
                         n_communities=int(best.max()) + 1 if best.size else 0,
                         stability=float(np.mean(ari)) if ari else 1.0,
                         seconds=time.perf_counter() - t))
        if significance:
            test = community_significance(g, best, objective=objective, resolution=(gp, gn),
                                          potts_null=null, null=significance_null,
                                          search=significance_search, n_samples=significance,
                                          seed=seeds[0], progress=False)
            rows[-1].update(z_score=test.z_score, p_value=test.p_value)
        best_parts.append(canonical(best))
    return ResolutionScan(table=pd.DataFrame(rows), partitions=best_parts, objective=objective,
                          null=null, seeds=seeds, elapsed_s=time.perf_counter() - t0,
                          params=dict(restarts=restarts, significance=significance,
                                      significance_null=significance_null,
                                      significance_search=significance_search))
