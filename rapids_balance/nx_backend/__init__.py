"""rapids-balance as a networkx backend (``backend="rapids_balance"``).

networkx finds it through the ``networkx.backends`` and
``networkx.backend_info`` entry points; nothing here is imported until
networkx dispatches a call::

    import networkx as nx
    nx.betweenness_centrality(G, weight="weight", k=500, seed=1, backend="rapids_balance")

or, for every call of a program, ``NETWORKX_BACKEND_PRIORITY=rapids_balance``
(``nx.config.backend_priority = ["rapids_balance"]``).  Implemented:
``betweenness_centrality``, ``edge_betweenness_centrality``,
``betweenness_centrality_subset`` and ``edge_betweenness_centrality_subset``,
returning networkx's dicts with networkx's numbers.  The interface object is
:class:`rapids_balance.nx_backend._interface.BackendInterface`.
"""
