"""networkx's ``backend_info`` entry point: a plain dict, cheap to build.

networkx calls :func:`get_info` while it is imported, so this module
imports nothing heavy.
"""

from __future__ import annotations

from typing import Any

BACKEND_NAME = "rapids_balance"

_NOTE = ("Runs on the CPU (numba, sources in parallel) or the GPU; device chosen by "
         "nx.config.backends.rapids_balance.device ('auto', 'cpu' or 'gpu'). Edge lengths must be "
         "positive and finite: zero, negative, NaN or infinite weights raise "
         "rapids_balance.GraphInputError (a ValueError) instead of returning path counts that "
         "Dijkstra cannot guarantee.")
_SAMPLE_NOTE = " With k, the sources are the ones networkx draws from seed, so the numbers are networkx's."

FUNCTIONS = {
    "betweenness_centrality": _NOTE + _SAMPLE_NOTE,
    "edge_betweenness_centrality": _NOTE + _SAMPLE_NOTE,
    "betweenness_centrality_subset": _NOTE,
    "edge_betweenness_centrality_subset": _NOTE,
}


def get_info() -> dict[str, Any]:
    """What networkx shows about this backend (``nx.utils.backends.backend_info``)."""
    return {
        "backend_name": BACKEND_NAME,
        "project": "rapids-balance",
        "package": "rapids_balance",
        "short_summary": "Weighted betweenness centrality on the CPU (numba) and the GPU.",
        "functions": {name: {"additional_docs": doc} for name, doc in FUNCTIONS.items()},
        "default_config": {"device": "auto"},
    }
