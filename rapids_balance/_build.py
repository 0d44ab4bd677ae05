"""Building a graph from raw edge columns: checks, cleaning, component, numbering, CSR.

One path for both backends, written against the array API standard
(``xp`` is numpy for host columns, CuPy for GPU columns, ``array_api_strict``
in the tests); the calls the standard lacks are the helpers of
:mod:`rapids_balance._xp`.  Columns of a device namespace stay there: the
cleaning, the factorization of numeric ids, the component and the CSR run
in that namespace and the graph keeps its arrays there.  Host columns of any
kind (strings, mixed types, ids past 64 bits) are first turned into exact
integer codes on the host (``pandas.factorize``), then take the same path.

Steps, each counted in the :class:`~rapids_balance.graph.CleaningReport`:

1. checks: signs and weights numeric and finite, ids integral (file rows
   and lines named in errors);
2. factorization: labels to dense codes in sorted label order;
3. self loops, then zero signs (``zero_sign``), then repeated pairs and
   pairs seen with both signs (``conflicts``), grouping rows by pair in
   input order (one stable sort);
4. connected components, and the largest one (``component``);
5. numbering (``numbering``) and the edge order ``(edge_src, edge_dst)``;
6. CSR (:func:`csr_arrays`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from . import _xp
from ._containers import CleaningReport, Graph, SignedGraph
from ._csr import _csr_general, csr_arrays  # noqa: F401 (the CSR is built in _csr)
from ._validation import check_bool, check_choice
from .errors import GraphFormatError, GraphInputError, short_repr

__all__ = ["build_graph", "build_from_columns", "check_build_options", "csr_arrays", "numeric_values", "exact_int_array",
           "RowWhere", "CONFLICT_RULES", "ZERO_SIGN_RULES", "COMPONENT_RULES", "NUMBERING_RULES", "ID_RULES"]

CONFLICT_RULES = ("first", "drop", "error")
ZERO_SIGN_RULES = ("positive", "drop", "error")
COMPONENT_RULES = ("largest", "all")
NUMBERING_RULES = ("sorted", "graphbplus")
ID_RULES = ("auto", "text")

RowWhere = Callable[[int], int]
"""Maps a 0-based data row to its 1-based line in the input file (file input only)."""


def _at_row(row: int, locate: RowWhere | None) -> str:
    return f"data row {row} (0-based)" if locate is None else f"data row {row} (line {locate(row)})"


def _row_error(source_name: str, message: str, row: int, locate: RowWhere | None,
               suffix: str = "") -> GraphInputError:
    """``message`` about one data row: a GraphFormatError with the line for file input."""
    if locate is None:
        return GraphInputError(f"{source_name}: {message} in {_at_row(row, None)}{suffix}")
    return GraphFormatError(f"{message} in data row {row} (0-based){suffix}", path=source_name,
                            line=locate(row))


def _first(xp: ModuleType, mask) -> int:
    """Index of the first True in a 1-D boolean array that has one (an O(1) read off the device)."""
    return int(xp.argmax(xp.astype(mask, xp.int8)))


def _count(xp: ModuleType, mask) -> int:
    """Number of True values (an O(1) read off the device)."""
    if _xp.is_numpy(xp):
        return int(np.count_nonzero(mask))
    # count_nonzero is only in the 2024.12 standard; a sum works with every version
    return int(xp.sum(xp.astype(mask, xp.int8), dtype=xp.int64))


def _integral_floats(a, source_name: str, locate: RowWhere | None):
    """Float ids that are whole numbers within int64, as int64 (exact: no rounding anywhere)."""
    xp = _xp.namespace(a)
    bad = ~xp.isfinite(a)
    if bool(xp.any(bad)):
        raise _row_error(source_name, "vertex id is NaN or infinite", _first(xp, bad), locate)
    bad = (a != xp.round(a)) | (xp.abs(a) >= 2.0**63)
    if bool(xp.any(bad)):
        r = _first(xp, bad)
        raise _row_error(source_name, f"vertex id {short_repr(float(a[r]))} is not an integer within "
                         "int64 (pass ids as integers or strings)", r, locate)
    return xp.astype(a, xp.int64)


def exact_int_array(values: list) -> np.ndarray:
    """Python ints as int64, else uint64, else exact Python ints (object)."""
    lo, hi = (min(values), max(values)) if values else (0, 0)
    if lo >= -(2**63) and hi < 2**63:
        return np.asarray(values, dtype=np.int64)
    if lo >= 0 and hi < 2**64:
        return np.asarray(values, dtype=np.uint64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _common_ints(a, b, source_name: str = "<arrays>"):
    """Two integer columns in one dtype that holds every value exactly (never float).

    On the host, ids that need more than 64 bits become exact Python ints
    (object); a device has no such dtype, so there they are an error.
    """
    if a.dtype == b.dtype:
        return a, b
    xp = _xp.namespace(a, b)
    lo = min(int(xp.min(a)) if a.shape[0] else 0, int(xp.min(b)) if b.shape[0] else 0)
    hi = max(int(xp.max(a)) if a.shape[0] else 0, int(xp.max(b)) if b.shape[0] else 0)
    if lo >= -(2**63) and hi < 2**63:
        return xp.astype(a, xp.int64), xp.astype(b, xp.int64)
    if lo >= 0:
        return xp.astype(a, xp.uint64), xp.astype(b, xp.uint64)
    if _xp.is_numpy(xp):
        return np.array(a.tolist(), dtype=object), np.array(b.tolist(), dtype=object)
    raise GraphInputError(f"{source_name}: vertex ids span {lo} to {hi}, more than one 64-bit integer type "
                          "holds; pass them as host arrays (exact Python integers) or as strings")


def _is_int_value(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _object_labels(both: np.ndarray, source_name: str, locate: RowWhere | None, n_src: int) -> np.ndarray:
    """Object labels checked for gaps; all-int columns become exact integer arrays.

    Typed labels keep their identity: the int ``1`` and the string ``"1"``
    are different vertices (as in networkx).  Only text files have the
    ``007`` / ``7`` question, settled by :func:`rapids_balance.read_edgelist`'s ``ids`` rule.
    """
    import pandas as pd

    miss = pd.isna(both)
    if miss.any():
        r = int(np.flatnonzero(miss)[0])
        raise _row_error(source_name, "missing vertex id (None/NaN)", r % n_src if n_src else r, locate)
    if all(_is_int_value(x) for x in both.tolist()):
        return exact_int_array(both.tolist())
    return both


def _factorize_labels(src, dst, source_name: str, *, locate: RowWhere | None = None):
    """Map labels (ints of any size, strings) to dense codes, exactly (no float round trip).

    Returns (uniques, codes_src, codes_dst); uniques are sorted (ints before
    strings when both occur), so internal ids follow label order.  Integer
    columns of different dtypes (int64 and uint64) are joined in a dtype
    that holds both exactly.
    """
    import pandas as pd

    src = np.asarray(src)
    dst = np.asarray(dst)
    n_src = src.size
    cols = []
    for a in (src, dst):
        if a.dtype.kind == "b":
            raise GraphInputError(f"{source_name}: vertex ids are booleans; use integers or strings")
        if a.dtype.kind == "f":
            a = _integral_floats(a, source_name, locate)
        elif a.dtype.kind not in "iu":
            a = a.astype(object)
        cols.append(a)
    src, dst = cols
    if src.dtype.kind in "iu" and dst.dtype.kind in "iu":
        src, dst = _common_ints(src, dst)
    else:
        both = _object_labels(np.concatenate([src.astype(object), dst.astype(object)]), source_name, locate,
                              n_src)
        src, dst = both[:n_src], both[n_src:]
    if src.dtype.kind in "iu":
        return _factorize_ints(_xp.namespace(), src, dst)
    try:
        codes, uniques = pd.factorize(both, sort=True)
    except TypeError as exc:
        raise GraphInputError(f"{source_name}: vertex ids of mixed, unorderable types ({exc}); convert "
                              "them to one type") from None
    del both
    uniques = np.asarray(uniques)
    if uniques.dtype.kind not in "iuO":
        uniques = uniques.astype(object)
    codes = _narrow_codes(_xp.namespace(), codes, uniques.size)
    return uniques, codes[:n_src], codes[n_src:]


def _factorize_ints(xp: ModuleType, src, dst):
    """(sorted distinct ids, codes of ``src``, codes of ``dst``) for integer columns of one dtype.

    Ids spanning a range not much longer than the columns (the usual 0..n-1
    or 1..n) are factorized with a presence table over the range: no
    hashing, no sort, and no concatenated copy of the columns.  Others go
    through :func:`rapids_balance._xp.unique_inverse`.
    """
    k = int(src.shape[0])
    lo = min(int(xp.min(src)), int(xp.min(dst)))
    span = max(int(xp.max(src)), int(xp.max(dst))) - lo + 1
    if span > 2 * k + 4096 or span >= 2**31:
        uniques, codes = _xp.unique_inverse(xp.concat([src, dst]))
        codes = _narrow_codes(xp, codes, int(uniques.shape[0]))
        return uniques, codes[:k], codes[k:]

    def offsets(col):  # id - lo, as an index below span (< 2**31 here)
        if lo:
            col = col - xp.asarray(lo, dtype=col.dtype)
        return xp.astype(col, xp.int64, copy=False)

    present = xp.zeros(span, dtype=xp.bool)
    present = _xp.scatter(present, offsets(src), True)
    present = _xp.scatter(present, offsets(dst), True)
    rank = xp.cumulative_sum(xp.astype(present, xp.int32), dtype=xp.int32) - 1
    index = xp.nonzero(present)[0]
    # int64 for signed ids, uint64 for unsigned ones: both hold every id exactly
    wide = xp.int64 if xp.isdtype(src.dtype, "signed integer") else xp.uint64
    uniques = xp.astype(index, wide) + xp.asarray(lo, dtype=wide)
    return uniques, _xp.gather(rank, offsets(src)), _xp.gather(rank, offsets(dst))


def _narrow_codes(xp: ModuleType, codes, n_codes: int):
    """Codes as int32 where they fit (internal ids are int32): half the memory of every row column."""
    return xp.astype(codes, xp.int32) if n_codes < 2**31 else xp.astype(codes, xp.int64)


def _py(x):
    """numpy scalar -> plain Python value, for readable messages."""
    return x.item() if isinstance(x, np.generic) else x


def numeric_values(values, what: str, source_name: str, *, finite: bool = True,
                   locate: RowWhere | None = None):
    """``values`` as a numeric array, or a :class:`GraphInputError` naming ``what``.

    Strings that parse as numbers are accepted.  Booleans are refused (is
    ``False`` a negative edge or a zero?): map them to numbers explicitly.
    With ``finite`` a NaN or infinite value is an error naming its data row
    (and its line, for file input).  An array of a device namespace is
    checked there and returned as it is (numbers only: no text to parse).
    """
    if _xp.is_device_array(values):
        return _device_numeric(values, what, source_name, finite=finite, locate=locate)
    v = np.asarray(values)
    if v.dtype.kind in "mM":
        raise GraphInputError(f"{source_name}: {what} holds dates or durations ({v.dtype}), not signs or "
                              "weights; name the right column, or convert it to numbers explicitly")
    if v.dtype.kind == "b" or (v.dtype.kind == "O" and v.size and isinstance(v.flat[0], (bool, np.bool_))):
        raise _booleans_error(what, source_name)
    if v.dtype.kind not in "iuf":
        try:
            v = v.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            bad = _first_non_numeric(v)
            if bad is None:
                raise GraphInputError(f"{source_name}: {what} is not numeric (dtype {v.dtype})") from None
            raise _row_error(source_name, f"{what} is not numeric: {short_repr(v[bad])}", bad,
                             locate) from None
    if finite and v.dtype.kind == "f":
        _check_finite(v, what, source_name, locate)
    return v


def _booleans_error(what: str, source_name: str) -> GraphInputError:
    return GraphInputError(
        f"{source_name}: {what} holds booleans (True/False); a sign or weight must be a number. "
        "Map them explicitly, e.g. signs = np.where(column, 1, -1) (True -> +1, False -> -1)")


def _check_finite(v, what: str, source_name: str, locate: RowWhere | None) -> None:
    xp = _xp.namespace(v)
    finite = xp.isfinite(v)
    if not bool(xp.all(finite)):
        bad = _first(xp, ~finite)
        raise _row_error(source_name, f"{what} is NaN or infinite ({float(v[bad])!r})", bad, locate)


def _device_numeric(v, what: str, source_name: str, *, finite: bool, locate: RowWhere | None):
    """:func:`numeric_values` for an array of a device namespace (numbers only: no text to parse)."""
    xp = _xp.namespace(v)
    if xp.isdtype(v.dtype, "bool"):
        raise _booleans_error(what, source_name)
    if not xp.isdtype(v.dtype, ("integral", "real floating")):
        raise GraphInputError(f"{source_name}: {what} is not numeric (dtype {v.dtype})")
    if finite and xp.isdtype(v.dtype, "real floating"):
        _check_finite(v, what, source_name, locate)
    return v


def _first_non_numeric(v: np.ndarray) -> int | None:
    import pandas as pd

    num = pd.to_numeric(pd.Series(v, dtype=object), errors="coerce")
    bad = np.flatnonzero(num.isna().to_numpy())
    return int(bad[0]) if bad.size else None


def _signs_from_values(values, source_name: str, locate: RowWhere | None = None):
    v = numeric_values(values, "sign column", source_name, locate=locate)
    xp = _xp.namespace(v)
    return xp.astype(xp.sign(v), xp.int8)


def _factorize_device_ids(src, dst, source_name: str, *, locate: RowWhere | None = None):
    """:func:`_factorize_labels` for numeric id columns of a device namespace, on the device.

    Returns (uniques, codes_src, codes_dst) in that namespace; uniques sorted.
    String ids have no device dtype here: factorize them first (cuDF does)
    and pass the codes.
    """
    xp = _xp.namespace(src, dst)
    cols = []
    for a in (src, dst):
        if xp.isdtype(a.dtype, "bool"):
            raise GraphInputError(f"{source_name}: vertex ids are booleans; use integers or strings")
        if xp.isdtype(a.dtype, "real floating"):
            a = _integral_floats(a, source_name, locate)
        elif not xp.isdtype(a.dtype, "integral"):
            raise GraphInputError(f"{source_name}: vertex ids of dtype {a.dtype} on the device; pass integer "
                                  "ids (factorize text ids first and pass the codes)")
        cols.append(a)
    return _factorize_ints(xp, *_common_ints(*cols, source_name))


def _int_labels(xp: ModuleType, labels):
    """Integer labels as int64, except uint64 labels past int64's range."""
    if labels.dtype == xp.uint64 and labels.shape[0] and int(xp.max(labels)) >= 2**63:
        return labels
    return xp.astype(labels, xp.int64)


def check_build_options(owner: str, *, directed: Any = False, conflicts: Any = "first",
                        zero_sign: Any = "positive", component: Any = "largest", numbering: Any = "sorted") -> None:
    """The cleaning keywords, checked before any work (one message style, see ``_validation``)."""
    check_bool(directed, "directed", owner)
    for arg, val, allowed in (("conflicts", conflicts, CONFLICT_RULES), ("zero_sign", zero_sign, ZERO_SIGN_RULES),
                              ("component", component, COMPONENT_RULES),
                              ("numbering", numbering, NUMBERING_RULES)):
        check_choice(val, arg, owner, allowed)


def build_graph(src, dst, sign=None, weight=None, *, directed: bool = False,
                conflicts: str = "first", zero_sign: str = "positive",
                component: str = "largest", numbering: str = "sorted",
                name: str = "", graph_class: type | None = None,
                report=None, locate: RowWhere | None = None):
    """Clean raw edge columns and build a :class:`~rapids_balance.graph.Graph` / ``SignedGraph``.

    Parameters
    ----------
    src, dst : array-like
        Edge endpoints as original labels (integers of any size, or strings),
        kept exactly: int64 and uint64 columns are joined without floats,
        and the int ``1`` and the string ``"1"`` are different vertices.
        Arrays of a device namespace (CuPy; any array-API library other
        than numpy) must hold numbers; they are cleaned there, and the
        graph keeps its arrays there (``graph.on_device``).
    sign : array-like, optional
        Numeric values whose sign is the edge sign (ratings work: sign(rating)).
    weight : array-like, optional
        Finite numeric edge weights.
    directed : bool
        Keep (u, v) and (v, u) apart.  Only for unsigned :class:`Graph`.
    conflicts : {"first", "drop", "error"}
        A pair seen with both signs keeps its first sign in input order
        (graphB+), is removed (Levorato instances), or raises.
    zero_sign : {"positive", "drop", "error"}
        Value 0 counts as a positive edge (graphB+), is removed, or raises.
    component : {"largest", "all"}
        Keep the largest connected component (as the papers do) or everything.
        Among equally large components the one whose first row comes first in
        the input wins (as in graphB+).
    numbering : {"sorted", "graphbplus"}
        Internal ids by sorted label, or graphB+'s first-appearance order over
        the unique edges sorted by (min label, max label, sign), redone within
        the largest component.
    name : str
        The graph's name.
    graph_class : type, optional
        ``Graph`` or ``SignedGraph`` (default: ``SignedGraph`` when ``sign`` is given).
    report : CleaningReport, optional
        A report already holding what the reader counted; filled in place.
    locate : callable, optional
        0-based data row -> 1-based file line, so errors name the line.

    Returns
    -------
    Graph or SignedGraph
        With ``.cleaning`` holding the counted :class:`CleaningReport`.

    Raises
    ------
    InvalidParameterError
        A cleaning keyword is not one of its documented values.
    GraphInputError
        Empty input, missing or non-integral ids, non-numeric / NaN /
        infinite / boolean signs or weights, nothing left after cleaning,
        ``conflicts="error"`` / ``zero_sign="error"`` violations (naming the
        data row, and the line for file input).

    Notes
    -----
    Host and device columns give the same graph, bit for bit, and the same
    report and errors.  On a device no array of size O(n) or O(m) is copied
    to the host: only counts, and the one row an error message names.

    Examples
    --------
    >>> g = build_graph([1, 2, 3], [2, 3, 1], sign=[1, -1, 1])
    >>> g.n, g.m, g.cleaning.self_loops
    (3, 3, 0)
    """
    return build_from_columns({"src": src, "dst": dst, "sign": sign, "weight": weight}, directed=directed,
                              conflicts=conflicts, zero_sign=zero_sign, component=component,
                              numbering=numbering, name=name, graph_class=graph_class, report=report,
                              locate=locate)


def build_from_columns(columns: dict, *, directed: bool = False, conflicts: str = "first",
                       zero_sign: str = "positive", component: str = "largest", numbering: str = "sorted",
                       name: str = "", graph_class: type | None = None, report=None,
                       locate: RowWhere | None = None):
    """:func:`build_graph` of ``columns`` ("src", "dst", "sign", "weight"; None where absent).

    The dict is emptied at the start and each column dropped once it is used
    up, so a caller that keeps no other reference to them (the file reader)
    frees the parsed table before the cleaning and the CSR need the memory.
    """
    check_build_options("build_graph", directed=directed, conflicts=conflicts, zero_sign=zero_sign,
                        component=component, numbering=numbering)
    if graph_class is None:
        graph_class = SignedGraph if columns.get("sign") is not None else Graph
    rep = report if report is not None else CleaningReport(source=name or "<arrays>")
    rep.conflict_rule, rep.zero_sign_rule = conflicts, zero_sign
    rep.component_rule, rep.numbering = component, numbering
    src_name = rep.source

    xp, src, dst, sign, weight = _where_columns_live(*(columns.pop(key) for key in ("src", "dst", "sign",
                                                                                  "weight")))
    on_device = not _xp.is_numpy(xp)
    k, k_dst = (int(src.shape[0]), int(dst.shape[0])) if on_device else (src.size, dst.size)
    if k_dst != k:
        raise GraphInputError(f"{src_name}: source and target have different lengths ({k} vs {k_dst})")
    rep.input_rows = int(k)
    if k == 0:
        raise GraphInputError(f"{src_name}: the edge list is empty")
    if directed and graph_class is SignedGraph:
        raise GraphInputError("signed graphs are undirected; pass directed=False")

    rows = _value_columns(xp, sign, weight, k, src_name, locate)
    del sign, weight
    factorize = _factorize_device_ids if on_device else _factorize_labels
    uniques, rows["a"], rows["b"] = factorize(src, dst, src_name, locate=locate)
    del src, dst
    nu = int(uniques.shape[0])
    rep.vertices_in_input = nu

    _clean_rows(xp, rows, nu, directed=directed, conflicts=conflicts, zero_sign=zero_sign, rep=rep,
                uniques=uniques, locate=locate)
    used = _keep_component(xp, rows, _endpoints(xp, rows, nu), nu, component, rep)
    u, v, label_index = _numbered_edges(xp, rows, used, numbering, directed)
    sgn, zero = _stored_signs(xp, rows.pop("sgn"), rep)
    labels = xp.take(uniques, label_index) if on_device else uniques[label_index]
    if on_device or labels.dtype.kind in "iu":
        labels = _int_labels(xp, labels)

    kwargs = dict(edge_src=u, edge_dst=v, n_vertices=int(label_index.shape[0]), labels=labels,
                  directed=directed, sign=sgn, weight=rows.pop("wgt"), zero_sign=zero, cleaning=rep, name=name)
    if graph_class is SignedGraph and sgn is None:
        raise GraphInputError(f"{src_name}: a signed graph needs a sign column")
    return graph_class(**kwargs)


def _where_columns_live(src, dst, sign, weight):
    """(xp, src, dst, sign, weight): the ids decide where the graph is built.

    Device ids bring host signs and weights to the device; host ids bring
    device signs and weights to the host (through :func:`rapids_balance._xp.to_host`).
    """
    if _xp.is_device_array(src) or _xp.is_device_array(dst):
        xp = _xp.namespace(src, dst)
        sign, weight = (c if c is None or _xp.is_device_array(c) and _xp.namespace(c) is xp else xp.asarray(c)
                        for c in (sign, weight))
        return xp, xp.asarray(src), xp.asarray(dst), sign, weight
    sign, weight = (_xp.to_host(c) if _xp.is_device_array(c) else c for c in (sign, weight))
    return _xp.namespace(), np.asarray(src), np.asarray(dst), sign, weight


def _value_columns(xp: ModuleType, sign, weight, k: int, src_name: str, locate: RowWhere | None) -> dict:
    """The per-row columns "sgn" (int8 sign of each value) and "wgt" (float64), checked."""
    rows = {"sgn": None if sign is None else _signs_from_values(sign, src_name, locate), "wgt": None}
    if rows["sgn"] is not None and rows["sgn"].shape[0] != k:
        raise GraphInputError(f"{src_name}: sign column length {rows['sgn'].shape[0]} != {k} edges")
    if weight is not None:
        rows["wgt"] = xp.astype(numeric_values(weight, "weight column", src_name, locate=locate), xp.float64)
        if rows["wgt"].shape[0] != k:
            raise GraphInputError(f"{src_name}: weight column length {rows['wgt'].shape[0]} != {k} edges")
    return rows


def _numbered_edges(xp: ModuleType, rows: dict, used, numbering: str, directed: bool):
    """(edge_src, edge_dst, code of each internal id): edges in internal ids, sorted by (src, dst).

    Takes "a", "b" and "row" out of ``rows`` and puts what is left in edge order.
    """
    if numbering == "graphbplus":
        new_id, label_index = _graphbplus_numbering(xp, rows, used, _count(xp, used), directed)
    else:
        label_index = xp.nonzero(used)[0]
        new_id = xp.cumulative_sum(xp.astype(used, xp.int64)) - 1  # read only at used vertices
    # internal ids are int32 (the Graph's dtype), so the Graph keeps these arrays without a copy
    new_id = xp.astype(new_id, xp.int32)
    u = _xp.gather(new_id, rows.pop("a"))
    v = _xp.gather(new_id, rows.pop("b"))
    del rows["row"]
    if not directed and numbering == "graphbplus":
        # (sorted numbering is monotone in the codes: undirected rows stay (min, max) pairs)
        u, v = xp.minimum(u, v), xp.maximum(u, v)
    if numbering == "graphbplus":
        # (sorted numbering is monotone in the codes: its rows are in (u, v) order already)
        n = int(label_index.shape[0])
        order = _xp.stable_argsort(xp.astype(u, xp.int64) * max(n, 1) + xp.astype(v, xp.int64))
        u, v = xp.take(u, order), xp.take(v, order)
        _reorder(xp, rows, order)
    return u, v, label_index


def _stored_signs(xp: ModuleType, sgn, rep):
    """(sign with 0 stored as +1, mask of the zeros or None), counting the zeros."""
    if sgn is None:
        return None, None
    zero = sgn == 0
    rep.zero_sign_edges = _count(xp, zero)
    sgn = xp.astype(xp.where(zero, xp.asarray(1, dtype=xp.int8), sgn), xp.int8)
    return sgn, zero if rep.zero_sign_edges else None


# -- cleaning --------------------------------------------------------------------------
# ``rows`` maps column name -> array, one entry per remaining input row: "a", "b"
# (pair codes; undirected pairs are (min, max)), "row" (0-based input row), "sgn"
# (raw sign, 0 kept) and "wgt" (None when absent).

def _keep(rows: dict, mask) -> dict:
    """Filter every column of ``rows`` in place (each old column is freed as it is replaced)."""
    xp = _xp.namespace(mask)
    if _count(xp, mask) == mask.shape[0]:  # a clean input keeps every row: no copies
        return rows
    for key, col in rows.items():
        rows[key] = None if col is None else col[mask]
    return rows


def _reorder(xp: ModuleType, rows: dict, order) -> dict:
    """Reorder every column of ``rows`` in place."""
    for key, col in rows.items():
        rows[key] = None if col is None else _xp.gather(col, order)
    return rows


def _clean_rows(xp: ModuleType, rows: dict, nu: int, *, directed: bool, conflicts: str, zero_sign: str,
                rep, uniques, locate: RowWhere | None) -> None:
    """Self loops, zero signs, repeated and conflicting pairs, in place on ``rows``.

    ``rows`` comes with the codes "a", "b" and the columns "sgn", "wgt" of
    every input row; one row per pair is left, sorted by pair (undirected
    pairs as (min, max)), with its input row number in "row".
    """
    src_name = rep.source
    k = rows["a"].shape[0]
    keep = rows["a"] != rows["b"]
    rep.self_loops = int(k - _count(xp, keep))
    if rows["sgn"] is not None:
        zmask = (rows["sgn"] == 0) & keep
        n_zero = _count(xp, zmask)
        if n_zero and zero_sign == "error":
            raise _row_error(src_name, "sign 0", _first(xp, zmask), locate,
                             " (zero_sign='error'; use 'positive' or 'drop')")
        if n_zero and zero_sign == "drop":
            rep.zero_sign_dropped = n_zero
            keep = keep & ~zmask
    rows["row"] = xp.arange(k, dtype=xp.int32 if k < 2**31 else xp.int64)
    _keep(rows, keep)
    if rows["a"].shape[0] == 0:
        raise GraphInputError(f"{src_name}: no edges remain after cleaning "
                              f"({rep.self_loops} self loops, {rep.zero_sign_dropped} zero signs dropped)")
    if not directed:
        rows["flip"] = rows["a"] > rows["b"]  # listed as (v, u): the reverse of the pair (min, max)
        rows["a"], rows["b"] = xp.minimum(rows["a"], rows["b"]), xp.maximum(rows["a"], rows["b"])
    # group rows by pair, input order inside a pair (one stable sort on one key)
    _reorder(xp, rows, _xp.pair_order(rows["a"], rows["b"], nu))
    a, b = rows["a"], rows["b"]
    n_kept = int(a.shape[0])
    first = xp.concat([xp.ones(1, dtype=xp.bool), (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
    del a, b
    starts = xp.nonzero(first)[0]
    n_groups = int(starts.shape[0])
    sel = first
    repeat = ~first  # rows after their pair's first: same sign (duplicates) unless marked below
    group = None
    if rows["sgn"] is not None or "flip" in rows:
        group = xp.cumulative_sum(xp.astype(first, xp.int32), dtype=xp.int32) - 1 if n_kept < 2**31 else \
            xp.cumulative_sum(xp.astype(first, xp.int64)) - 1
    if rows["sgn"] is not None:
        s = rows["sgn"]
        s = xp.where(s == 0, xp.asarray(1, dtype=s.dtype), s)  # 0 behaves as positive
        # a pair has both signs exactly when one of its rows differs from its first row
        differs = s != _xp.gather(xp.take(s, starts), group)
        del s
        conflict = _xp.scatter(xp.zeros(n_groups, dtype=xp.bool), group[differs], True)
        n_conf = _count(xp, conflict)
        rep.conflicting_pairs = n_conf
        if n_conf and conflicts == "error":
            raise _conflict_error(xp, rows, starts, conflict, n_conf, uniques, src_name, locate)
        if n_conf and conflicts == "drop":
            in_conf = _xp.gather(conflict, group)
            rep.conflict_rows_dropped = _count(xp, in_conf)
            sel = first & ~in_conf
            rep.duplicate_rows = _count(xp, ~in_conf) - _count(xp, sel)
            repeat = repeat & ~in_conf
        elif n_conf:
            rep.conflict_rows_ignored = _count(xp, differs)  # later rows against the pair's first sign
            repeat = repeat & ~differs
    if not rep.conflict_rows_dropped:
        rep.duplicate_rows = int(n_kept - n_groups - rep.conflict_rows_ignored)
    flip = rows.pop("flip", None)
    if flip is not None and rep.duplicate_rows:
        # a duplicate listed the other way round from its pair's first row: u rated v, then v rated u
        rep.reverse_rows = _count(xp, repeat & (flip != _xp.gather(xp.take(flip, starts), group)))
    _keep(rows, sel)
    if rows["a"].shape[0] == 0:
        raise GraphInputError(f"{src_name}: no edges remain after removing conflicting pairs")


def _label_at(uniques, code: int):
    """One original label, as a plain Python value (an O(1) read off the device)."""
    if isinstance(uniques, np.ndarray):
        return _py(uniques[code])
    return int(uniques[code])


def _conflict_error(xp: ModuleType, rows: dict, starts, conflict, n_conf: int, uniques, src_name: str,
                    locate: RowWhere | None) -> GraphInputError:
    gi = _first(xp, conflict)
    lo = int(starts[gi])
    hi = int(starts[gi + 1]) if gi + 1 < starts.shape[0] else int(rows["a"].shape[0])
    rows_g = [int(rows["row"][i]) for i in range(lo, min(hi, lo + 5))]
    lines = "" if locate is None else f", lines {[locate(r) for r in rows_g]}"
    return GraphInputError(
        f"{src_name}: {n_conf} vertex pairs appear with both signs, e.g. "
        f"({short_repr(_label_at(uniques, int(rows['a'][lo])), 40)}, "
        f"{short_repr(_label_at(uniques, int(rows['b'][lo])), 40)}) "
        f"in data rows {rows_g} (0-based{lines}; conflicts='error'; use 'first' or 'drop')")


def _endpoints(xp: ModuleType, rows: dict, nu: int):
    """Boolean mask of the codes that still have an edge."""
    used = xp.zeros(nu, dtype=xp.bool)
    used = _xp.scatter(used, rows["a"], True)
    return _xp.scatter(used, rows["b"], True)


def _keep_component(xp: ModuleType, rows: dict, used, nu: int, component: str, rep):
    """Count the components; with ``component="largest"`` keep the largest one (``rows`` in place).

    Returns the mask of the codes that keep an edge.  Ties go to the
    component whose first kept row comes first in the input (graphB+'s
    union-find keeps that one).
    """
    comp = _xp.connected_components(rows["a"], rows["b"], nu)
    sizes = _xp.bincount(comp[used], minlength=nu)
    rep.components = _count(xp, sizes > 0)
    if component != "largest":
        return used
    tied = sizes == xp.max(sizes)
    edge_comp = _xp.gather(comp, rows["a"])
    if _count(xp, tied) > 1:
        row = rows["row"]
        first_row = xp.where(xp.take(tied, edge_comp), row, xp.asarray(xp.iinfo(row.dtype).max, dtype=row.dtype))
        best = int(edge_comp[int(xp.argmin(first_row))])
    else:
        best = int(xp.argmax(sizes))
    keep_e = edge_comp == best
    n_used = _count(xp, used)
    used = used & (comp == best)
    rep.vertices_outside_component = int(n_used - _count(xp, used))
    rep.edges_outside_component = int(rows["a"].shape[0] - _count(xp, keep_e))
    _keep(rows, keep_e)
    return used


def _graphbplus_numbering(xp: ModuleType, rows: dict, used, n: int, directed: bool):
    """graphB+'s vertex numbering (see :func:`build_graph`): (new id per code, code per new id).

    Ids go to vertices in order of first appearance while walking the unique
    edges sorted by (min label, max label, sign); the reference code numbers
    the whole file this way, extracts the largest component and numbers it
    again the same way, which is the same as numbering the component directly
    because the walk order of its edges is unchanged.
    """
    a, b = rows["a"], rows["b"]
    lo, hi = xp.minimum(a, b), xp.maximum(a, b)  # codes are ranks of sorted labels: this sorts by label
    if directed:
        sgn = rows["sgn"] if rows["sgn"] is not None else xp.zeros(a.shape[0], dtype=xp.int8)
        o = _xp.lexsort((sgn, hi, lo))
        lo, hi = xp.take(lo, o), xp.take(hi, o)
    # undirected rows are unique (min, max) pairs already sorted: the walk order is theirs
    walk = xp.reshape(xp.stack([lo, hi], axis=1), (-1,))
    pos_dtype = xp.int32 if walk.shape[0] < 2**31 else xp.int64
    first_pos = xp.full(used.shape[0], walk.shape[0], dtype=pos_dtype)
    first_pos = _xp.scatter_min(first_pos, walk, xp.arange(walk.shape[0], dtype=pos_dtype))
    verts = xp.nonzero(used)[0]
    label_index = xp.take(verts, _xp.stable_argsort(first_pos[used]))
    new_id = xp.zeros(used.shape[0], dtype=xp.int64)
    new_id = _xp.scatter(new_id, label_index, xp.arange(n, dtype=xp.int64))
    return new_id, label_index
