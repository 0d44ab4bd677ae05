"""The ways into a graph: :func:`read_edgelist` (a file) and :func:`as_graph` (anything).

Each picks the reader or converter for what it is given: the host reader
(:mod:`._reader`) or cuDF's (:mod:`._device`) for a file; a table, a
networkx or cuGraph graph, a tuple of arrays or a path for
:func:`coerce_graph`.  :func:`as_graph` is the one entry every algorithm
uses to turn what a user passes into a Graph.
"""

from __future__ import annotations

import os
from typing import Any

from .._build import build_graph
from .._containers import ClusterGraph, Graph, GraphOnCluster, OnCluster, SignedGraph
from .._validation import check_backend
from ..errors import GraphInputError
from ._convert import _build_options, _pm1_attributes, from_cugraph, from_networkx
from ._device import read_with_backend
from ._frames import edgelist_columns, table_kind, table_to_graph
from ._parts import dataset_parts, frame_parts, is_dataset_path
from ._reader import check_read_options, graph_from_source
from ._roles import WHY_USER, check_roles
from ._sources import open_source

__all__ = ["read_edgelist", "as_graph", "coerce_graph"]


def read_edgelist(path_or_buffer: Any, *, format: str = "auto", source: Any = None, target: Any = None,
                  sign: Any = None, weight: Any = None, signed: bool | None = True, directed: bool = False,
                  conflicts: str = "first", zero_sign: str = "positive", component: str = "largest",
                  numbering: str = "sorted", ids: str = "auto", member: str | None = None,
                  vertex_table: Any = None, name: str | None = None, backend: str = "cpu") -> Graph:
    """Read a signed (or weighted) edge list from a file into a graph.

    Parameters
    ----------
    path_or_buffer : str, path-like, file object or bytes
        The file.  gzip, bz2 and xz compression are recognised by their
        magic bytes (not the file name); a tar archive (compressed or not)
        needs ``member``.  A folder or a glob (``"edges/part-*.parquet"``) is
        a Parquet dataset: its files (a folder walked, names starting with
        ``.`` or ``_`` skipped) are read one by one in path order and joined,
        the same graph as their rows in one file; every file's footer is
        checked first (a file that is not Parquet, a missing column, text
        signs, a column typed differently between files or null values are
        named with the file and column before any file is read).  Given with
        ``client=`` to a capability, or to
        :func:`rapids_balance.cluster_graph`, a dataset is read by
        the Dask workers instead.
    format : str, default "auto"
        One of ``"graphb"`` (CSV with a header line, e.g.
        ``From_Tribe,To_Tribe,Weight``), ``"csv"`` (headerless ``u,v,sign``,
        e.g. NDS-VU; BOM and CRLF accepted), ``"snap"`` (whitespace separated,
        ``#`` comments), ``"bitcoin"`` (SNAP ``source,target,rating,time``),
        ``"konect"`` (``%`` header lines), ``"levorato"`` (``.g``: ``n m`` then
        exactly ``m`` edge lines), ``"mrel"`` (XPRESS-like ``Mrel: [ (i,j)w ...]``)
        or ``"parquet"``.  ``"auto"`` detects the format from the content.
    source, target : str or int, optional
        Endpoint columns: a header name (``graphb``, ``parquet``) or a 0-based
        position (any format).  Default: the first two columns of a headerless
        format; for a file with a header, recognised names (``source``/``target``,
        ``src``/``dst``, ``from``/``to``, ...), else the only two columns left
        once the other roles are assigned (otherwise an error asks for them).
    sign : str or int, optional
        Column whose *sign* is the edge sign (so ratings work: Bitcoin ratings
        -10..10 give sign(rating)).  Default: the column the format fixes
        (third column of SNAP signed text, SNAP Bitcoin, KONECT, Levorato
        ``.g`` / ``Mrel`` and headerless 3-column CSV), or a header named
        ``sign``/``vote``/``rating``/``polarity``/``value`` (``weight`` too, as
        graphB+ names its sign column ``Weight``).  Any other column is
        never taken as the sign without being named: a header
        ``source,target,time,trust`` raises :class:`GraphInputError` listing the
        columns and asking for ``sign=``.
    weight : str or int, optional
        Weight column.  With ``signed=True`` the default is no weight; with
        ``signed=False`` it is the format's value column or a recognised
        ``weight``/``sign`` header when the file has one (unweighted
        otherwise).  The special value ``"abs"`` gives the absolute value of
        the sign/value column (e.g. the magnitude of a Bitcoin rating).
    signed : bool or None, default True
        Return a :class:`SignedGraph` (undirected, sign per edge).  False
        returns a :class:`Graph` with optional weights (for betweenness);
        None gives a signed graph when a sign column is named, fixed by the
        format or recognised, else an unsigned one.
    directed : bool, default False
        Only with ``signed=False``: keep (u, v) and (v, u) apart.
    conflicts : {"first", "drop", "error"}, default "first"
        Pairs seen with both signs: keep the first sign in file order
        (graphB+ rule; reproduces the published statistics), remove the pair
        (Levorato instances' rule), or raise.
    zero_sign : {"positive", "drop", "error"}, default "positive"
        Sign-0 rows (e.g. neutral votes): kept as positive edges and flagged
        in ``graph.zero_sign`` (graphB+), removed, or an error.
    component : {"largest", "all"}, default "largest"
        Keep the largest connected component (as the papers do) or everything.
    numbering : {"sorted", "graphbplus"}, default "sorted"
        Internal ids in label order, or graphB+'s first-appearance order.
    ids : {"auto", "text"}, default "auto"
        How vertex ids are compared (see Notes): ``"auto"`` reads ids that
        are all integer literals as integers (``007`` and ``7`` are vertex 7,
        counted in ``graph.cleaning.id_spellings_merged``); ``"text"`` keeps
        every id as the text written in the file (``007`` and ``7`` differ).
    member : str, optional
        File inside a tar archive (full path or base name).
    vertex_table : path or DataFrame, optional
        A vertex table such as graphB+'s ``*_users.csv`` (first column the id
        used in the edge list, second column a name): the graph's labels
        become those names (ids absent from the table keep their id).
    name : str, optional
        Graph name (default: the file name without suffixes).
    backend : {"cpu", "gpu", "auto"}, default "cpu"
        ``"gpu"`` (and ``"auto"`` on a machine with a usable GPU) parses the
        file with ``cudf.read_csv`` / ``cudf.read_parquet`` after the same
        format detection, and builds the graph on the device (CuPy).  Files
        cuDF cannot read by the host rules (text ids, ``.g`` / Mrel files,
        bad lines) and machines without cuDF use the host reader, with the
        same graph and errors; ``graph.cleaning.notes`` says which ran.

    Returns
    -------
    SignedGraph or Graph
        ``graph.cleaning`` is the :class:`CleaningReport`: source file, comment
        lines, every row accounted for, and notes on anything the file said
        that is not an edge (declared sizes, ignored trailing lines).

    Raises
    ------
    GraphFormatError
        The file cannot be parsed: the message names the file and line
        (ragged line, non-numeric, NaN, infinite, boolean or missing sign,
        an id of more than 4,000 digits, truncated gzip, binary data, empty
        or header-only file, duplicate header names, a vertex table passed
        as edge list).  Long values are shown cut short.
    GraphInputError
        Missing, misnamed, ambiguous or unnamed columns (the message lists
        those available and the keyword to pass), a tar archive without
        ``member`` (lists the members), nothing left after cleaning.
    InvalidParameterError
        A keyword (``format``, ``conflicts``, ``zero_sign``, ``component``,
        ``numbering``, ``ids``, ``signed``, ``directed``, ...) has a wrong value.

    Notes
    -----
    **Column roles.** ``graph.cleaning.columns`` records which column played
    which role and why ("named by the user", "fixed by the <format> format",
    "recognised header name"); a header line is counted in
    ``graph.cleaning.header_lines`` and noted.  A first line is a header
    only when a field of it is text where the next line has a number (or
    all its fields are text and one is a recognised column name): a data
    row, quoted or not, is never taken as a header.

    **Vertex ids** are exact: integers of any size (ids past int64 are kept
    as uint64 or Python ints, never through floats) or strings; they are
    factorised (``pandas.factorize``) to internal ids ``0..n-1`` in label
    order and kept in ``graph.labels``.  The rule for text: when every id
    in the two endpoint columns is an integer literal, ids are integers, so
    ``007``, ``+7`` and ``7`` are one vertex; each such merge is counted in
    ``graph.cleaning.id_spellings_merged`` with an example in the notes.
    When any id is not an integer literal (``alice``, ``1.0``), every id is
    text, compared as written.  ``ids="text"`` always compares ids as text.
    Parquet columns are typed: ids are taken as stored.

    Also decoded: gzip/bz2/xz (nested compression too, e.g. gzip inside
    gzip) and UTF-16 text; each is noted in the report.  Files are read
    whole into memory.  Comma-separated files are parsed with pyarrow's
    multi-threaded CSV reader when pyarrow is installed (the ``io``
    extra) and its table holds exactly the values pandas' C engine would
    read; anything else (text ids, gaps, ragged or quoted-comma lines,
    whitespace-separated formats) is parsed by pandas' C engine, which
    names the bad line.  Both give the same graph and the same errors.
    Integer columns that fit are held as int32, and a file's text is
    released before the graph is built (an error found then re-reads the
    file to name its line): a 10^7-edge CSV peaks under 100 bytes per edge
    above the process's baseline.  Epinions (841k lines) loads in about a
    second.

    Lines after the declared ``m`` edges of a ``.g`` file are never read as
    edges (the KONECT highland copy ends with a path query ``3 16``); they are
    counted in ``graph.cleaning.notes``.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> from importlib.resources import files
    >>> g = rb.read_edgelist(files("rapids_balance") / "data" / "highland_tribes_graphB_edges.csv.gz")
    >>> g.n, g.m, g.cleaning.duplicate_rows
    (16, 58, 58)
    """
    check_read_options("read_edgelist", format=format, signed=signed, directed=directed, member=member,
                       name=name, conflicts=conflicts, zero_sign=zero_sign, component=component,
                       numbering=numbering, ids=ids)
    check_roles(None, "read_edgelist", dict(source=source, target=target, sign=sign, weight=weight))
    check_backend(backend, "read_edgelist")
    if is_dataset_path(path_or_buffer):  # a folder or a glob: a Parquet dataset, file by file
        return dataset_parts(path_or_buffer, format=format, source=source, target=target, sign=sign,
                             weight=weight, signed=signed, directed=directed, conflicts=conflicts,
                             zero_sign=zero_sign, component=component, numbering=numbering,
                             name=name, member=member, vertex_table=vertex_table,
                             backend=backend).read_all()
    src = open_source(path_or_buffer, member=member)
    if backend != "cpu":  # cuDF's parsers and a graph on the device (io/_device.py)
        return read_with_backend(src, backend, dict(
            format=format, source=source, target=target, sign=sign, weight=weight, signed=signed,
            directed=directed, conflicts=conflicts, zero_sign=zero_sign, component=component,
            numbering=numbering, ids=ids, vertex_table=vertex_table, name=name))
    return graph_from_source(src, format=format, source=source, target=target, sign=sign, weight=weight,
                             signed=signed, directed=directed, conflicts=conflicts, zero_sign=zero_sign,
                             component=component, numbering=numbering, ids=ids, vertex_table=vertex_table,
                             name=name)


def as_graph(obj: Any, *, source: Any = None, target: Any = None, sign: Any = None,
             weight: Any = None, **options) -> Graph:
    """Coerce user input (our graphs, files, DataFrames, networkx, cuGraph) to a Graph.

    Parameters
    ----------
    obj : Graph, str or path-like, DataFrame / table / mapping, tuple, networkx or cuGraph graph
        A built graph is returned as it is; a path is read with
        :func:`rapids_balance.read_edgelist`.
    source, target, sign, weight : str or int, optional
        The columns (names or 0-based positions; networkx: edge attributes)
        that play each role, as in :func:`rapids_balance.read_edgelist`;
        ``None`` leaves the choice to the input's format or recognised
        names.  A column is never taken as the sign by position alone.
    **options
        ``signed`` (True: a sign column is required, and its absence is an
        error listing the columns and the keyword to pass), and the cleaning
        options of :func:`rapids_balance.read_edgelist`.

    Returns
    -------
    Graph or SignedGraph

    Raises
    ------
    GraphInputError
        See :func:`rapids_balance.io.coerce_graph`.

    Examples
    --------
    >>> import pandas as pd
    >>> g = as_graph(pd.DataFrame({"src": [1, 2], "dst": [2, 3], "sign": [1, -1]}))
    >>> type(g).__name__, g.m
    ('SignedGraph', 2)
    """
    if isinstance(obj, Graph):
        return obj
    roles = {k: v for k, v in (("source", source), ("target", target), ("sign", sign),
                               ("weight", weight)) if v is not None}
    return coerce_graph(obj, **roles, **options)


def coerce_graph(obj: Any, *, signed: bool | None = None, source: Any = None, target: Any = None,
                 sign: Any = None, weight: Any = None, **options) -> Graph:
    """Turn user input into a :class:`Graph` (used by every public algorithm).

    Accepts our graphs (returned as they are), a file (a path: read with
    :func:`read_edgelist`), DataFrames / tables / dicts of arrays, tuples of
    arrays, networkx graphs and cuGraph graphs.

    Parameters
    ----------
    obj : Graph, str or path-like, DataFrame, mapping, tuple, networkx or cuGraph graph
    signed : bool, optional
        Require a signed graph (True) or build an unsigned one (False);
        default: signed when a sign column / attribute is named or recognised.
    source, target, sign, weight : str or int, optional
        The column (name or 0-based position; for networkx: the edge
        attribute) playing each role.  Unnamed roles come from the file
        format or from recognised names only (see :func:`read_edgelist`).
    **options
        Cleaning options, as in :func:`read_edgelist` (``conflicts``,
        ``zero_sign``, ``component``, ``numbering``, ``directed``, ``name``;
        for files also ``format``, ``member``, ``ids``).  Typed inputs keep
        their ids as stored (the int ``1`` and the string ``"1"`` differ).

    Returns
    -------
    Graph or SignedGraph

    Raises
    ------
    GraphInputError
        The input type is not supported, the columns cannot be told apart,
        or ``signed=True`` and no sign column / attribute exists (the
        message lists what exists and the keyword to pass).
    InvalidParameterError
        A cleaning option has a wrong value.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"source": [1, 2], "target": [2, 3], "time": [10, 20], "trust": [1, -1]})
    >>> coerce_graph(df, sign="trust").sign.tolist()
    [1, -1]
    """
    if isinstance(obj, Graph):
        return obj
    roles = {"source": source, "target": target, "sign": sign, "weight": weight}
    if isinstance(obj, OnCluster):
        # an input the workers read raises there; one the client holds is built here, handed back
        local = _on_cluster(obj.obj, signed, roles, options)
        raise GraphOnCluster(graph=coerce_graph(local, signed=signed, **roles, **options))
    if isinstance(obj, (str, os.PathLike)):
        return read_edgelist(obj, signed=signed, **{k: v for k, v in roles.items() if v is not None}, **options)
    mod = type(obj).__module__.split(".")[0]
    if mod == "networkx":
        return _coerce_networkx(obj, signed, roles, options)
    if mod == "cugraph":
        return from_cugraph(obj, sign=sign, weight=weight, **options)
    opts = _build_options(dict(options))
    kind = table_kind(obj)
    if kind in ("pandas", "polars", "pyarrow", "cudf", "dask", "mapping"):
        return table_to_graph(obj, roles=roles, want_sign=signed,
                              graph_class=Graph if signed is False else (SignedGraph if signed else None),
                              options=opts, owner="coerce_graph")
    if kind == "sequence":
        if any(val is not None for val in roles.values()):
            raise GraphInputError("a tuple of arrays has no columns to name: pass (sources, targets[, values]) "
                                  "without source=/target=/sign=/weight=, or a DataFrame")
        u, v, s, w = edgelist_columns(obj, sign=True if signed is not False else None)
        if signed is False:
            s, w = None, w if w is not None else s
        return build_graph(u, v, sign=s, weight=w, graph_class=SignedGraph if s is not None else Graph, **opts)
    raise GraphInputError(f"cannot make a graph from {type(obj).__module__}.{type(obj).__name__}; pass a "
                          "SignedGraph/Graph, a file path, a DataFrame with src/dst/sign columns, a networkx "
                          "or cuGraph graph")


def _on_cluster(obj: Any, signed: bool | None, roles: dict[str, Any], options: dict[str, Any]) -> Any:
    """An input the workers of a cluster read (a Dask DataFrame, a Parquet dataset) or hold (a
    :class:`ClusterGraph`): its parts, checked, handed back in :class:`GraphOnCluster`.  Any
    other input is returned, to be read here."""
    given = {k: v for k, v in roles.items() if v is not None}
    if isinstance(obj, ClusterGraph):
        if given:
            raise GraphInputError(f"{', '.join(f'{k}=' for k in given)} name(s) columns of an edge "
                                  "list; the graph is built already (a ClusterGraph)")
        raise GraphOnCluster(handle=obj)
    if table_kind(obj) == "dask":
        opts = _build_options(dict(options))
        raise GraphOnCluster(parts=frame_parts(
            obj, roles=roles, want_sign=signed, options=opts,
            graph_class=Graph if signed is False else (SignedGraph if signed else None)))
    if is_dataset_path(obj):
        check_read_options("read_edgelist", signed=signed, **{k: v for k, v in options.items()
                                                              if k not in ("vertex_table",)})
        raise GraphOnCluster(parts=dataset_parts(obj, signed=signed, **given, **options))
    return obj


def _coerce_networkx(G: Any, signed: bool | None, roles: dict[str, Any], options: dict[str, Any]) -> Graph:
    """networkx: ``sign=`` / ``weight=`` name edge attributes; 'sign' and 'weight' are recognised."""
    for role in ("source", "target"):
        if roles[role] is not None:
            raise GraphInputError(f"a networkx graph has no columns: {role}= does not apply (its nodes "
                                  "are the vertices; sign= and weight= name edge attributes)")
    attrs = set()
    for _, _, d in G.edges(data=True):
        attrs.update(d)
    sign, weight = roles["sign"], roles["weight"]
    if sign is None and signed is not False and "sign" in attrs:
        sign = "sign"
    if weight is None and "weight" in attrs and sign != "weight":
        weight = "weight"
    if signed is False:
        if roles["sign"] is not None:
            raise GraphInputError("sign= names a sign attribute, but signed=False asks for an unsigned graph")
        sign = None
    elif signed and sign is None:
        pm1 = [k for k in _pm1_attributes(G) if k != "sign"]
        hint = (f"; edge attribute {pm1[0]!r} holds only -1/+1 values: pass sign={pm1[0]!r} to use it as "
                "the sign") if pm1 else ""
        raise GraphInputError(f"the networkx graph has no 'sign' edge attribute (its edge attributes: "
                              f"{sorted(map(str, attrs))}){hint}; name the sign attribute with sign=<attribute>")
    g = from_networkx(G, sign=sign, weight=weight, **options)
    if roles["sign"] is not None:
        g.cleaning.columns["sign"]["why"] = WHY_USER
    if roles["weight"] is not None:
        g.cleaning.columns["weight"]["why"] = WHY_USER
    if sign is None and signed is None:
        pm1 = _pm1_attributes(G)
        if pm1:
            g.cleaning.notes.append(f"edge attribute {pm1[0]!r} holds only -1/+1 values and there is no "
                                    f"'sign' attribute: pass sign={pm1[0]!r} to read it as the sign")
    return g
