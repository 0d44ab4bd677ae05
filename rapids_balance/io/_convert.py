"""Conversions: networkx, cuGraph, DataFrames and vertex tables to and from our graphs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import GraphInputError, short_repr
from .._build import build_graph, check_build_options, exact_int_array
from .._containers import CleaningReport, Graph, SignedGraph
from ._device import CUGRAPH_MERGED_NOTE, attach_string_labels, cugraph_edges, frame_columns
from ._labels import _object_array, relabel_from_table  # noqa: F401 (relabel_from_table: its former home)
from ._roles import resolve_roles

__all__ = ["from_networkx", "to_networkx", "from_cugraph"]

_BUILD_OPTIONS = ("directed", "conflicts", "zero_sign", "component", "numbering", "name")


def _build_options(options: dict[str, Any], owner: str = "coerce_graph") -> dict[str, Any]:
    """The cleaning keywords of :func:`build_graph`, checked before any work."""
    unknown = set(options) - set(_BUILD_OPTIONS)
    if unknown:
        raise TypeError(f"{owner}() got unexpected keyword(s) {sorted(unknown)}; allowed: {_BUILD_OPTIONS}")
    check_build_options(owner, **{k: v for k, v in options.items() if k != "name"})
    return options


def _labels_array(items: list) -> np.ndarray:
    if items and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
        return exact_int_array(items)
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
    opts = _build_options(dict(options), "from_networkx")
    src, dst, sgn, wgt = [], [], [], []
    for u, v, data in G.edges(data=True):
        src.append(u)
        dst.append(v)
        for attr, store in ((sign, sgn), (weight, wgt)):
            if attr is None:
                continue
            try:
                store.append(data[attr])
            except KeyError:
                raise _missing_attribute(G, u, v, data, attr, "sign" if store is sgn else "weight") from None
    if not src:
        raise GraphInputError("the networkx graph has no edges")
    opts.setdefault("name", str(G.name) if getattr(G, "name", "") else "networkx")
    isolated = sum(1 for n in G.nodes if G.degree(n) == 0)
    report = CleaningReport(source=f"networkx.{type(G).__name__}")
    for role, attr in (("sign", sign), ("weight", weight)):
        if attr is not None:
            report.columns[role] = {"column": attr, "why": "edge attribute"}
    g = build_graph(_labels_array(src), _labels_array(dst),
                    sign=_attribute_values(sgn) if sign is not None else None,
                    weight=_attribute_values(wgt) if weight is not None else None,
                    graph_class=SignedGraph if sign is not None else Graph, report=report, **opts)
    if isolated:
        g.cleaning.notes.append(f"{isolated} node(s) without edges are not stored")
    return g


def _attribute_values(values: list) -> np.ndarray:
    # no dtype forced: booleans and text must reach build_graph's checks as they are
    out = np.asarray(values)
    return out if out.dtype.kind in "biuf" else np.asarray(values, dtype=object)


def _pm1_attributes(G: Any) -> list[str]:
    """Edge attributes whose every value is -1 or +1 (a sign stored under another name)."""
    seen: dict[str, bool] = {}
    for _, _, d in G.edges(data=True):
        for k, val in d.items():
            ok = isinstance(val, (int, float, np.integer, np.floating)) and not isinstance(val, bool) \
                and val in (-1, 1)
            seen[k] = seen.get(k, True) and ok
    return [k for k, ok in seen.items() if ok]


def _missing_attribute(G: Any, u: Any, v: Any, data: dict, attr: str, role: str) -> GraphInputError:
    hint = ""
    if role == "sign":
        pm1 = [k for k in _pm1_attributes(G) if k != attr]
        if pm1:
            hint = (f"; edge attribute {pm1[0]!r} holds only -1/+1 values: pass sign={pm1[0]!r} to use it "
                    "as the sign")
    return GraphInputError(
        f"networkx edge ({short_repr(u, 40)}, {short_repr(v, 40)}) has no {attr!r} attribute (its attributes: "
        f"{sorted(map(str, data))}){hint}; pass {role}=<attribute> naming the edge attribute"
        + (", or sign=None for an unsigned graph" if role == "sign" else ""))


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
    The graph stays on the device.  The edges are the edge list the graph
    was built from (``G.input_df``), its columns found by the names the
    graph records (``G.source_columns``, ``G.destination_columns``,
    ``G.weight_column``): the user's rows as given, with their own ids
    (integers of any size, or text), so repeated rows, pairs given both
    ways and conflicting signs are cleaned and counted as for a file.  A
    multi-GPU graph (``cugraph.dask``) keeps that list as a dask-cuDF
    frame, computed once.  A graph built from a CSR keeps none: its
    ``G.view_edge_list()`` is read, whose edges cuGraph has already merged
    (repeated rows keep the smallest value, a pair given both ways the
    average of its two values), and ``graph.cleaning.notes`` says so.  A
    directed cuGraph graph gives a directed :class:`Graph` when unsigned
    (``directed=`` overrides); signed graphs are undirected.  The columns
    are CuPy arrays and the graph is built in CuPy; results come back as
    cuDF DataFrames.

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
    opts = _build_options(dict(options), "from_cugraph")
    edges = cugraph_edges(G)
    cols = list(edges.frame.columns)
    # the user's name for the weight column still names it where cuGraph renamed it ("value")
    sign, weight = (edges.weight if k is not None and k not in cols and k == G.weight_column else k
                    for k in (sign, weight))
    # a cuGraph graph carries one value per edge (its weight): unless told otherwise, it is the sign
    one_value = sign is None and weight is None and edges.weight is not None
    res = resolve_roles(cols, {"source": edges.source, "target": edges.target,
                               "sign": edges.weight if one_value else sign, "weight": weight},
                        where="cugraph edge list", want_sign=None)
    for role in ("source", "target"):
        res.why[role] = "fixed by the cuGraph graph"
    if one_value:
        res.why["sign"] = "fixed by the cuGraph graph (its weight column)"
    u, v, s, w, text = frame_columns(edges.frame, source=res.source, target=res.target, sign=res.sign,
                                     weight=res.weight, where="cugraph edge list")
    notes = [f"read from the cuGraph graph's {edges.how}"]
    if edges.merged:
        notes.append(CUGRAPH_MERGED_NOTE)
        if s is not None:
            from array_api_compat import array_namespace

            xp = array_namespace(s)
            zeros = int(xp.sum(xp.astype(s == 0, xp.int64)))
            if zeros:
                notes.append(f"{zeros} edge(s) have the value 0 in cuGraph's merged edge list; each may be a "
                             "pair given with +1 and -1 that cuGraph averaged, not a sign of 0 (zero_sign= "
                             "decides what becomes of them)")
    if G.is_directed() and "directed" not in opts:
        if s is None:
            opts["directed"] = True
        else:
            notes.append("the cuGraph graph is directed; signed graphs are undirected, so each pair's rows "
                         "are merged by the cleaning rules")
    opts.setdefault("name", "cugraph")
    report = CleaningReport(source="cugraph", columns=res.report(), notes=notes)
    g = build_graph(u, v, sign=s, weight=w, graph_class=SignedGraph if s is not None else Graph,
                    report=report, **opts)
    if text is not None:
        attach_string_labels(g, text)
    return g
