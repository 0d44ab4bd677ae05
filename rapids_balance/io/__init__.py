"""Loading signed and weighted graphs: files, DataFrames, networkx, cuGraph.

Public entry points
-------------------
read_edgelist
    A file (graphB+ CSV, SNAP, SNAP Bitcoin, KONECT, Levorato ``.g``,
    XPRESS-like ``Mrel``, NDS-VU CSV, Parquet; gzip/bz2/xz; tar members) to a
    :class:`~rapids_balance.graph.SignedGraph` or
    :class:`~rapids_balance.graph.Graph`, with a counted cleaning report.
edgelist_columns
    Endpoint/sign/weight columns out of pandas, polars, pyarrow, cuDF or
    Dask tables, dicts and tuples (used by ``Graph.from_edgelist``).
as_graph
    Anything a user passes (a built graph, a path, a table, a tuple of arrays,
    networkx or cuGraph graph) to a Graph: the one entry every algorithm uses.
coerce_graph
    The same, with the column roles as keywords (used by ``as_graph``).
from_networkx, to_networkx, from_cugraph
    Converters.

Column roles follow one rule everywhere (:mod:`rapids_balance.io._roles`):
a column is the source, target, sign or weight when the user names it
(``source=``, ``target=``, ``sign=``, ``weight=``: a name or a 0-based
position), when the file format fixes it, or when its name is a recognised
one; never by position alone.  ``graph.cleaning.columns`` records each role
and why.
"""

from __future__ import annotations

from ._convert import from_cugraph, from_networkx, to_networkx
from ._entry import as_graph, coerce_graph, read_edgelist
from ._formats import FORMATS
from ._frames import edgelist_columns
from ._labels import relabel_from_table

__all__ = ["read_edgelist", "edgelist_columns", "as_graph", "coerce_graph", "from_networkx", "to_networkx",
           "from_cugraph", "relabel_from_table", "FORMATS"]
