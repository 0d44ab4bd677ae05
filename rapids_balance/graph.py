"""Graph containers: one CSR story for signed and for weighted graphs.

:class:`Graph` holds a (possibly directed, possibly weighted) graph in CSR
form with the original vertex labels; :class:`SignedGraph` is the undirected
graph with a sign on every edge that the balancing, frustration and
clustering code works on.  Both are read-only once built.

Layout (``n`` vertices, ``m`` edges, internal ids ``0..n-1``):

* ``edge_src``, ``edge_dst`` (int32, length m): the edges.  Undirected graphs
  store each edge once with ``edge_src < edge_dst``; edges are sorted by
  ``(edge_src, edge_dst)``.
* ``indptr`` (int64, n+1), ``indices`` (int32): the adjacency.  An undirected
  edge fills two CSR slots, a directed one fills one (out-edges).  Each row is
  sorted by neighbour id.
* ``slot_edge`` (int32, one per slot): the edge id behind each CSR slot.
* ``edge_slots`` (int64, m x 2 undirected / m x 1 directed): the CSR slot(s)
  of each edge; for undirected edges column 0 is the slot in ``edge_src``'s
  row and column 1 the slot in ``edge_dst``'s row (a host graph derives it on first
  use: no search reads it).
* ``sign`` (int8, m, values +1/-1) for signed graphs; ``weight`` (float64, m)
  when the input had weights.
* ``labels``: original vertex label of each internal id (int64 or object).

Where the arrays live: a graph built from host columns keeps numpy arrays,
and :meth:`Graph.device_arrays` gives cached GPU copies for kernels.  A graph
built from device columns (CuPy; any array-API library other than numpy) is
built there by :func:`build_graph` and keeps its arrays there
(``graph.on_device``, ``graph.xp``): :meth:`Graph.device_arrays` and
:meth:`Graph.device_labels` return them without a copy, and the attributes
above stay numpy for CPU code, copied to the host on first use and cached.

This module is the data model's public face.  The containers live in
:mod:`rapids_balance._containers` and import nothing above them, the CSR
construction in :mod:`rapids_balance._csr`, :func:`build_graph` (cleaning,
component, numbering) in :mod:`rapids_balance._build`; here they are named
together with the ways in that need :mod:`rapids_balance.io`
(:meth:`Graph.from_edgelist`, :func:`graph_from_any`), so this module stands
above io (DESIGN.md, "Layers").
"""

from __future__ import annotations

from typing import Any

from ._build import (COMPONENT_RULES, CONFLICT_RULES, ID_RULES, NUMBERING_RULES,  # noqa: F401 (re-exported)
                     ZERO_SIGN_RULES, RowWhere, _py, build_graph, check_build_options, csr_arrays,
                     exact_int_array, numeric_values)
from ._containers import CleaningReport, ClusterGraph, Graph, SignedGraph
from .errors import GraphInputError

__all__ = ["Graph", "SignedGraph", "CleaningReport", "ClusterGraph", "build_graph"]


def _from_edgelist(cls, data: Any = None, *, source: Any = None, target: Any = None,
                   sign: Any = None, weight: Any = None, **options) -> "Graph":
    """Build a graph from an edge-list DataFrame or a mapping of arrays.

    Parameters
    ----------
    data : DataFrame, table, mapping or tuple
        A pandas, polars, pyarrow, cuDF or Dask table, a dict of arrays,
        or a tuple ``(sources, targets[, values])`` (``SignedGraph``
        reads the third array as the sign, ``Graph`` as the weight).
    source, target, sign, weight : str or int, optional
        The column playing each role, by name or 0-based position.
        Unnamed roles are taken only from recognised column names
        (``source``/``src``/``from``..., ``sign``/``vote``/``rating``...,
        ``weight``/``w``...); a column with any other name is never
        taken as the sign.  Endpoints may also be the only two columns
        left once the other roles are assigned.
    **options
        Those of :func:`build_graph` (``directed``, ``conflicts``,
        ``zero_sign``, ``component``, ``numbering``, ``name``).

    Returns
    -------
    Graph or SignedGraph
        ``graph.cleaning.columns`` says which column played which role and why.

    Raises
    ------
    GraphInputError
        No sign column for a ``SignedGraph`` (the message lists the
        columns and the keyword to pass), unknown or ambiguous columns,
        missing values, or anything :func:`build_graph` refuses.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"src": [1, 2, 3], "dst": [2, 3, 1], "trust": [5, -2, 1]})
    >>> g = SignedGraph.from_edgelist(df, sign="trust")
    >>> g.m, g.cleaning.columns["sign"]
    (3, {'column': 'trust', 'why': 'named by the user'})
    """
    from .io._frames import edgelist_columns, table_kind, table_to_graph

    roles = {"source": source, "target": target, "sign": sign, "weight": weight}
    if table_kind(data) == "sequence":
        if any(v is not None for v in roles.values()):
            raise GraphInputError("a tuple of arrays has no columns to name: pass "
                                  "(sources, targets[, values]) without source=/target=/sign=/weight=")
        src, dst, sgn, wgt = edgelist_columns(data)
        if cls is SignedGraph and sgn is None and wgt is not None:
            sgn, wgt = wgt, None  # a signed graph reads its sign from the value array
        return build_graph(src, dst, sign=sgn, weight=wgt, graph_class=cls, **options)
    return table_to_graph(data, roles=roles, want_sign=True if cls is SignedGraph else None,
                          graph_class=cls, options=options, owner=f"{cls.__name__}.from_edgelist")


# the table path needs io (pandas and the frame adapters), which builds on the containers:
# the constructor is given to the class here, in the module that offers every way in
Graph.from_edgelist = classmethod(_from_edgelist)


def graph_from_any(obj: Any, **options: Any) -> Graph:
    """Coerce user input to a Graph: :func:`rapids_balance.io.as_graph`, under its former name.

    Parameters
    ----------
    obj : Graph, str or path-like, DataFrame / table / mapping, tuple, networkx or cuGraph graph
        What :func:`rapids_balance.io.as_graph` takes.
    **options
        Its keywords (``source``, ``target``, ``sign``, ``weight``,
        ``signed`` and the cleaning options).

    Returns
    -------
    Graph or SignedGraph

    Examples
    --------
    >>> import pandas as pd
    >>> g = graph_from_any(pd.DataFrame({"src": [1, 2], "dst": [2, 3], "sign": [1, -1]}))
    >>> type(g).__name__, g.m
    ('SignedGraph', 2)
    """
    from .io import as_graph  # io loads pandas: only when something is coerced

    return as_graph(obj, **options)
