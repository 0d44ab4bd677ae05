"""The one input rule of the balance measures: an undirected signed graph."""

from __future__ import annotations

from typing import Any

from ..errors import GraphInputError
from ..graph import Graph, graph_from_any

__all__ = ["signed_input"]


def signed_input(graph: Any, owner: str, roles: dict[str, Any]) -> Graph:
    """``graph`` as a built undirected signed Graph, or GraphInputError naming ``owner``.

    Tables and files are read as :func:`rapids_balance.read_edgelist` reads
    them (``roles``: the column-role keywords given).
    """
    g = graph_from_any(graph, signed=True, **roles)
    if g.directed:
        raise GraphInputError(f"{owner} needs an undirected signed graph; this graph is directed "
                              "(signed triangles, walks and degrees are defined on undirected graphs)")
    if g.sign is None:
        raise GraphInputError(f"{owner} needs a signed graph; this graph has no edge signs "
                              "(name the sign column with sign=...)")
    return g
