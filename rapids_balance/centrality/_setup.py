"""Around the Brandes passes: the call's parameters checked, the graph prepared, the
sources drawn and the scores rescaled, by networkx's rules (same draw for the same
seed, same normalisation), for :mod:`.betweenness` and the networkx backend.
"""

from __future__ import annotations

import math
import numbers
import random
import secrets
from typing import Any

import numpy as np

from .._validation import check_backend, check_bool, check_int, check_progress, check_seed, param_error
from ..backend import resolve_backend
from ..errors import GraphInputError, InvalidParameterError
from ..io._roles import check_roles
from ._input import BCGraph, coerce_input

# RNG stream of source sampling (see rapids_balance._random)
_SAMPLE_STREAM = 0xBC

# ---------------------------------------------------------------------------
# sources and normalisation
# ---------------------------------------------------------------------------

def _check_k(k: Any, owner: str) -> Any:
    """``k`` before the graph is read: None, an int >= 1, or a non-empty collection of labels."""
    if k is None:
        return None
    if isinstance(k, numbers.Integral) and not isinstance(k, bool):
        return check_int(k, "k", owner, low=1)
    if isinstance(k, (str, bytes)) or isinstance(k, (bool, numbers.Number)) or not hasattr(k, "__len__"):
        raise param_error("k", owner, "an int >= 1 (sources to sample), a sequence of vertex labels "
                          "or None", k)
    if len(k) == 0:
        raise param_error("k", owner, "an int >= 1, a non-empty sequence of vertex labels or None", k)
    return k


_SEED_MUST = ("an int in the range [0, 2**63 - 1], None, a random.Random, a numpy.random.Generator "
              "or a numpy.random.RandomState")


def _check_seed_like(seed: Any, owner: str) -> Any:
    """What networkx accepts as ``seed``: None, an int, or a random-number generator object."""
    if isinstance(seed, (random.Random, np.random.Generator, np.random.RandomState)):
        return seed
    try:
        return check_seed(seed, owner, allow_none=True)
    except InvalidParameterError:
        raise param_error("seed", owner, _SEED_MUST, seed) from None


def draw_like_networkx(seed: Any, n: int, k: int) -> np.ndarray:
    """Positions of ``seed.sample(list(G), k)`` in a population of ``n`` (networkx's draw).

    ``random.sample`` and networkx's wrappers of numpy generators pick
    positions from the population's length alone, so sampling ``range(n)``
    draws the positions networkx draws from ``list(G.nodes())``.
    """
    rng = seed
    if not isinstance(seed, random.Random):
        try:
            from networkx.utils import create_py_random_state
        except ImportError:
            raise ImportError("a numpy random generator as seed draws sources as networkx does, "
                              "which needs networkx: pip install 'rapids-balance[networkx]', or "
                              "pass an int seed") from None
        rng = create_py_random_state(seed)
    return np.asarray(rng.sample(range(n), k), dtype=np.int64).reshape(-1)


def _vertex_ids(g, labels: Any, name: str, owner: str, *, distinct: bool) -> np.ndarray:
    """Internal ids of a collection of vertex labels, or an InvalidParameterError naming ``name``."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise param_error(name, owner, "a sequence of vertex labels", labels)
    seq = list(labels.tolist() if hasattr(labels, "tolist") else labels)
    if not seq:
        return np.zeros(0, np.int64)
    try:
        ids = np.asarray(g.vertex_ids(seq), dtype=np.int64)
    except KeyError as exc:
        raise param_error(name, owner, f"labels of vertices of the graph ({exc.args[0]})", labels) from None
    if distinct and np.unique(ids).size != ids.size:
        raise param_error(name, owner, "a sequence of distinct vertex labels", labels)
    return ids


def _sources(g, k, seed, owner: str = "betweenness_centrality") -> tuple[np.ndarray, bool]:
    """(sorted internal source ids, sampled?); ``k`` and ``seed`` already checked."""
    n = g.n
    if k is None:
        return np.arange(n, dtype=np.int64), False
    if isinstance(k, numbers.Integral):
        k = int(k)
        if k > n:
            raise param_error("k", owner, f"an int in the range [1, {n}] (the number of vertices)", k)
        if seed is not None and not isinstance(seed, numbers.Integral):
            return np.sort(draw_like_networkx(seed, n, k)), True
        if seed is None:
            seed = secrets.randbits(63)
        from ._cpu import sample_sources

        return sample_sources(n, k, np.uint64(seed), _SAMPLE_STREAM), True
    # an explicit collection of source vertices (as cuGraph accepts)
    return np.sort(_vertex_ids(g, k, "k", owner, distinct=True)), True


def _rescale(values: np.ndarray, n: int, *, normalized: bool, directed: bool, endpoints: bool,
             k: int | None, is_source: np.ndarray | None) -> np.ndarray:
    """networkx's ``_rescale`` (3.5+), vectorised; same formulas, same order."""
    N = n if endpoints else n - 1
    if N < 2:
        return values
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        return values * scale if scale != 1 else values
    # sampled sources, endpoints excluded: a source cannot count itself
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        s_non = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else math.nan
        s_non = N / (K * correction)
    return values * np.where(is_source, s_src, s_non)


def _check_params(owner: str, p: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of the two public functions but the graph, before the graph is read."""
    out = dict(p)
    if "k" in p:
        out["k"] = _check_k(p["k"], owner)
    for name in ("normalized", "endpoints"):
        if name in p:
            check_bool(p[name], name, owner)
    if "progress" in p:
        check_progress(p["progress"], owner)
    w = p["weight"]
    if not (w is None or isinstance(w, str) or callable(w) or hasattr(w, "__len__")
            or hasattr(w, "__array__")):
        raise param_error("weight", owner, "a column or attribute name, 'abs', None, an array of "
                          "lengths or a callable", w)
    if "seed" in p:
        out["seed"] = _check_seed_like(p["seed"], owner)
    if p["directed"] is not None and not isinstance(p["directed"], (bool, np.bool_)):
        raise param_error("directed", owner, "True, False or None", p["directed"])
    check_backend(p["backend"], owner)
    from ..distributed._run import check_client_arg

    check_client_arg(p["client"], owner, p["backend"])
    return out
