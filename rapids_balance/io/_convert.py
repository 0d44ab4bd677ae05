"""Conversions: networkx, cuGraph, DataFrames and vertex tables to and from our graphs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import GraphInputError
from ..graph import Graph, SignedGraph, build_graph
from ._frames import edgelist_columns, guess_columns, table_kind

__all__ = ["from_networkx", "to_networkx", "from_cugraph", "coerce_graph", "relabel_from_table"]

_BUILD_OPTIONS = ("directed", "conflicts", "zero_sign", "component", "numbering", "name")


def _build_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = set(options) - set(_BUILD_OPTIONS)
    if unknown:
        raise TypeError(f"unexpected option(s) {sorted(unknown)}; allowed: {_BUILD_OPTIONS}")
    return options


def _object_array(items: list) -> np.ndarray:
    # np.asarray would turn tuple labels into a 2-D array
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _labels_array(items: list) -> np.ndarray:
    if items and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
        lo, hi = min(items), max(items)
        if -(2**63) <= lo and hi < 2**63:
            return np.asarray(items, dtype=np.int64)
    return _object_array(items)


def from_networkx(G: Any, sign: str | None = "sign", weight: str | None = None, **options) -> Graph:
    """Build a graph from a networkx graph.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
        Nodes become the labels.  Directed and multi-edges are symmetrised
        and cleaned exactly as file rows are (edge order = ``G.edges`` order).
    sign : str or None, default "sign"
        Edge attribute holding the sign (its numeric sign is used).  ``None``
        builds an unsigned :class:`Graph`.
    weight : str or None
        Edge attribute holding a weight.
    **options
        ``conflicts``, ``zero_sign``, ``component``, ``numbering``, ``name``,
        ``directed`` (unsigned only), as in :func:`read_edgelist`.

    Returns
    -------
    SignedGraph or Graph

    Raises
    ------
    GraphInputError
        An edge lacks the ``sign`` (or ``weight``) attribute; the message
        names the edge.

    Notes
    -----
    Nodes without edges are not stored (a graph is its edge set); the count
    is noted in ``graph.cleaning.notes``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([("a", "b", {"sign": 1}), ("b", "c", {"sign": -1})])
    >>> from_networkx(G).m
    2
    """
    opts = _build_options(dict(options))
    src, dst, sgn, wgt = [], [], [], []
    for k, (u, v, data) in enumerate(G.edges(data=True)):
        src.append(u)
        dst.append(v)
        for attr, store in ((sign, sgn), (weight, wgt)):
            if attr is None:
                continue
            try:
                store.append(data[attr])
            except KeyError:
                raise GraphInputError(f"networkx edge ({u!r}, {v!r}) has no {attr!r} attribute "
                                      f"(its attributes: {sorted(data)}); pass sign=/weight= naming the "
                                      "attribute, or sign=None for an unsigned graph") from None
    if not src:
        raise GraphInputError("the networkx graph has no edges")
    opts.setdefault("name", str(G.name) if getattr(G, "name", "") else "networkx")
    isolated = sum(1 for n in G.nodes if G.degree(n) == 0)
    g = build_graph(_labels_array(src), _labels_array(dst),
                    sign=np.asarray(sgn, dtype=np.float64) if sign is not None else None,
                    weight=np.asarray(wgt, dtype=np.float64) if weight is not None else None,
                    graph_class=SignedGraph if sign is not None else Graph, **opts)
    g.cleaning.source = f"networkx.{type(G).__name__}"
    if isolated:
        g.cleaning.notes.append(f"{isolated} node(s) without edges are not stored")
    return g


def to_networkx(graph: Graph) -> Any:
    """The graph as a networkx ``Graph`` (``DiGraph`` when directed).

    Parameters
    ----------
    graph : Graph or SignedGraph

    Returns
    -------
    networkx.Graph or networkx.DiGraph
        Nodes are the original labels.  Edge attribute ``sign`` holds +1/-1
        (0 for edges whose input sign was 0, see ``graph.zero_sign``),
        ``weight`` the weight when the graph has one.

    Notes
    -----
    ``from_networkx(to_networkx(g), weight="weight" if g.weight is not None
    else None)`` rebuilds ``g`` (``from_networkx`` reads no weight unless
    asked to).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> G = to_networkx(rb.load_example("highland"))
    >>> G.number_of_nodes(), G.number_of_edges()
    (16, 58)
    """
    import networkx as nx

    H = nx.DiGraph() if graph.directed else nx.Graph()
    H.name = graph.name
    labels = graph.labels.tolist()
    H.add_nodes_from(labels)
    u = graph.edge_src.tolist()
    v = graph.edge_dst.tolist()
    attrs: dict[str, list] = {}
    if graph.sign is not None:
        s = graph.sign.astype(np.int64)
        if graph.zero_sign is not None:
            s = np.where(graph.zero_sign, 0, s)
        attrs["sign"] = s.tolist()
    if graph.weight is not None:
        attrs["weight"] = graph.weight.tolist()
    names = list(attrs)
    cols = [attrs[k] for k in names]
    H.add_edges_from((labels[a], labels[b], dict(zip(names, vals)))
                     for a, b, *vals in zip(u, v, *cols))
    return H


def _require_cugraph():
    try:
        import cugraph  # noqa: F401
    except ImportError as exc:
        raise ImportError("from_cugraph needs cuGraph (RAPIDS), which is not installed; install the "
                          "'rapids' extra (pip install 'rapids-balance[rapids]') on a CUDA machine, or "
                          "pass the edge list as a DataFrame instead") from exc
    return cugraph


def from_cugraph(G: Any, sign: str | None = None, weight: str | None = None, **options) -> Graph:
    """Build a graph from a cuGraph ``Graph`` (its edge list, with original vertex ids).

    Parameters
    ----------
    G : cugraph.Graph
    sign : str, optional
        Edge-list column holding the sign.  Default: the weight column
        (cuGraph graphs carry one value per edge), making a SignedGraph.
    weight : str, optional
        Edge-list column holding a weight; with ``sign=None`` and a weight
        name, an unsigned weighted :class:`Graph` is built.
    **options
        As in :func:`read_edgelist`.

    Returns
    -------
    SignedGraph or Graph
        Labels are cuGraph's original vertex ids; the edges are cleaned as
        file rows are (``graph.cleaning`` counts what was changed).

    Raises
    ------
    ImportError
        cuGraph is not installed (the message says how to install it).

    Notes
    -----
    The edge list is copied to the host once; the library's kernels build
    their own device arrays from it.  Results of the algorithms come back
    as pandas DataFrames (cuDF when the input was a cuDF edge list).

    Examples
    --------
    >>> import cudf, cugraph                                    # doctest: +SKIP
    >>> df = cudf.DataFrame({"src": [0, 1], "dst": [1, 2], "sign": [1.0, -1.0]})  # doctest: +SKIP
    >>> G = cugraph.Graph()                                     # doctest: +SKIP
    >>> G.from_cudf_edgelist(df, "src", "dst", edge_attr="sign")  # doctest: +SKIP
    >>> from_cugraph(G).m                                       # doctest: +SKIP
    2
    """
    _require_cugraph()
    opts = _build_options(dict(options))
    edges = G.view_edge_list()  # original vertex ids, also for renumbered graphs
    cols = list(edges.columns)
    guess = guess_columns(cols)
    src_col = getattr(G, "source_columns", None) or guess["source"]
    dst_col = getattr(G, "destination_columns", None) or guess["target"]
    src_col = src_col[0] if isinstance(src_col, list) else src_col
    dst_col = dst_col[0] if isinstance(dst_col, list) else dst_col
    value = next((c for c in cols if c not in (src_col, dst_col)), None)
    if sign is None and weight is None:
        sign = value
    u, v, s, w = edgelist_columns(edges, source=src_col, target=dst_col, sign=sign, weight=weight)
    opts.setdefault("name", "cugraph")
    return build_graph(u, v, sign=s, weight=w, graph_class=SignedGraph if s is not None else Graph, **opts)


def coerce_graph(obj: Any, *, signed: bool | None = None, **options) -> Graph:
    """Turn user input into a :class:`Graph` (used by every public algorithm).

    Accepts our graphs (returned as they are), DataFrames / tables / dicts of
    arrays (columns recognised by name: ``src``/``dst`` or ``source``/``target``
    or ``from``/``to`` ...; ``sign`` and/or ``weight``), networkx graphs
    (signed when edges have a ``sign`` attribute) and cuGraph graphs.

    Parameters
    ----------
    obj : Graph, DataFrame, mapping, networkx or cuGraph graph
    signed : bool, optional
        Force a signed (True) or unsigned (False) graph; default: signed when a
        sign column/attribute exists.
    **options
        Cleaning options, as in :func:`read_edgelist`.

    Raises
    ------
    GraphInputError
        The input type is not supported, or endpoint columns cannot be found.
    """
    if isinstance(obj, Graph):
        return obj
    mod = type(obj).__module__.split(".")[0]
    if mod == "networkx":
        has_sign = any("sign" in d for _, _, d in obj.edges(data=True))
        has_weight = any("weight" in d for _, _, d in obj.edges(data=True))
        use_sign = has_sign if signed is None else signed
        if use_sign:
            return from_networkx(obj, sign="sign" if has_sign else "weight",
                                 weight="weight" if has_sign and has_weight else None, **options)
        return from_networkx(obj, sign=None, weight="weight" if has_weight else None, **options)
    if mod == "cugraph":
        return from_cugraph(obj, **options)
    kind = table_kind(obj)
    if kind in ("pandas", "polars", "pyarrow", "cudf", "dask", "mapping"):
        if kind == "dask":
            obj = obj.compute()
        if kind == "polars" and not hasattr(obj, "get_column"):
            obj = obj.collect()
        cols = list(obj.column_names) if kind == "pyarrow" else list(obj.keys() if kind == "mapping"
                                                                      else obj.columns)
        guess = guess_columns(cols)
        if guess["source"] is None:
            raise GraphInputError(f"cannot tell the endpoint columns of this table (columns {cols}); "
                                  "name them src/dst or source/target, or use Graph.from_edgelist(...)")
        sgn_col, wgt_col = guess["sign"], guess["weight"]
        if signed is False:
            sgn_col, wgt_col = None, wgt_col if wgt_col is not None else sgn_col
        elif signed and sgn_col is None:
            sgn_col, wgt_col = wgt_col, None
        u, v, s, w = edgelist_columns(obj, source=guess["source"], target=guess["target"],
                                      sign=sgn_col, weight=wgt_col)
        return build_graph(u, v, sign=s, weight=w, graph_class=SignedGraph if s is not None else Graph,
                           **_build_options(dict(options)))
    if kind == "sequence":
        u, v, s, w = edgelist_columns(obj, sign=True if signed is not False else None)
        if signed is False:
            s, w = None, w if w is not None else s
        return build_graph(u, v, sign=s, weight=w, graph_class=SignedGraph if s is not None else Graph,
                           **_build_options(dict(options)))
    raise GraphInputError(f"cannot make a graph from {type(obj).__module__}.{type(obj).__name__}; pass a "
                          "SignedGraph/Graph, a DataFrame with src/dst/sign columns, a networkx or cuGraph graph")


def relabel_from_table(graph: Graph, table: Any) -> Graph:
    """The same graph with labels taken from a vertex table (id column, name column).

    ``table`` is a path (CSV with a header, compressed or not) or a DataFrame
    whose first column holds the ids used in the edge list and second column
    the names.  Ids absent from the table keep their id as label (as text).
    """
    import pandas as pd

    if isinstance(table, pd.DataFrame):
        frame = table
    else:
        from ._sources import open_source
        import io

        src = open_source(table)
        frame = pd.read_csv(io.BytesIO(src.data.removeprefix(b"\xef\xbb\xbf")), keep_default_na=False)
    if frame.shape[1] < 2:
        raise GraphInputError(f"a vertex table needs an id column and a name column, got {list(frame.columns)}")
    ids = frame.iloc[:, 0].tolist()
    names = frame.iloc[:, 1].astype(str).tolist()
    mapping = dict(zip(ids, names))
    labels = [mapping.get(lab, str(lab)) for lab in graph.labels.tolist()]
    missing = sum(1 for lab in graph.labels.tolist() if lab not in mapping)
    cls = type(graph)
    new = cls(edge_src=graph.edge_src, edge_dst=graph.edge_dst, n_vertices=graph.n,
              labels=_object_array(labels), directed=graph.directed, sign=graph.sign, weight=graph.weight,
              zero_sign=graph.zero_sign, cleaning=graph.cleaning, name=graph.name)
    new.cleaning.notes.append(f"labels from vertex table ({len(mapping)} rows); {missing} vertex id(s) "
                              "not in the table keep their id")
    return new
