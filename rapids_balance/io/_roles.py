"""Column roles: which column is the source, the target, the sign and the weight, and why.

One rule for files, DataFrames, tables and dicts:

* a role the user names (``source=``, ``target=``, ``sign=``, ``weight=``:
  a column name or a 0-based position) is that column;
* a file format whose layout fixes the columns (SNAP signed text, SNAP
  Bitcoin CSV, KONECT, Levorato ``.g`` / ``Mrel``, headerless ``u,v,sign``
  CSV) gives them by position;
* otherwise a column plays a role only when its name is a recognised one
  (:data:`SOURCE_NAMES`, :data:`TARGET_NAMES`, :data:`SIGN_NAMES`,
  :data:`WEIGHT_NAMES`, compared by :func:`normalise_name`: without case,
  spaces, underscores or punctuation, so ``From Node ID``, ``from_node_id``
  and ``FromNodeId`` are one name).  Endpoints that are not
  recognised by name are the two columns left once every other role is
  assigned, and only when exactly two are left.

A third column with an unrecognised name (``time``, ``trust``) is therefore
never silently the sign: a signed read stops with an error listing the
columns and the keyword to pass.  Each resolved role is recorded with its
reason in :attr:`rapids_balance.graph.CleaningReport.columns`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._containers import Graph, OnCluster
from .._validation import _is_int, param_error
from ..errors import GraphInputError, short_repr

__all__ = ["normalise_name", "recognised_role",
           "SOURCE_NAMES", "TARGET_NAMES", "SIGN_NAMES", "WEIGHT_NAMES", "Roles", "resolve_roles",
           "WHY_USER", "WHY_HEADER", "WHY_REMAINING", "why_format", "missing_column_error",
           "check_roles"]

# column names recognised when the caller names none, compared by normalise_name (the seed
# programs' headers: graphB+ "From Node ID, To Node ID, Edge Weight", its data "From_Tribe,To_Tribe,
# Weight" and "Voter ID,Nominee ID,Vote", ECL-SGB "From Node ID,To Node ID,Weight", SNAP "FromNodeId")
SOURCE_NAMES = ("source", "src", "from", "u", "from node", "from node id", "node1", "voter id", "from tribe",
                "source id", "start", "source node")
TARGET_NAMES = ("target", "dst", "to", "v", "to node", "to node id", "node2", "nominee id", "to tribe",
                "target id", "end", "destination", "target node")
SIGN_NAMES = ("sign", "signs", "polarity", "vote", "rating", "value", "edge sign")
WEIGHT_NAMES = ("weight", "weights", "w", "wgt", "edge weight")
#: sign names that beat graphB+'s layout (a weight header in the third column is the sign): graphB's
#: survey files add the original answer after it ("From Node ID,To Node ID,Edge Weight,Rating")
_STRONG_SIGN_NAMES = ("sign", "signs", "polarity", "edge sign")


def normalise_name(name: Any) -> str:
    """A column name as header recognition compares it: lower case, letters and digits only.

    ``"From Node ID"``, ``" from_node_id"``, ``"FromNodeId"`` and a name
    behind a stray byte-order mark all become ``"fromnodeid"``.
    """
    return "".join(ch for ch in str(name).casefold() if ch.isalnum())


_NORMALISED = {role: frozenset(normalise_name(n) for n in names) for role, names in
               (("source", SOURCE_NAMES), ("target", TARGET_NAMES), ("sign", SIGN_NAMES),
                ("weight", WEIGHT_NAMES))}


def recognised_role(name: Any) -> str | None:
    """The role whose recognised names include ``name`` (None: not a recognised name)."""
    key = normalise_name(name)
    for role, names in _NORMALISED.items():
        if key in names:
            return role
    return None


WHY_USER = "named by the user"
WHY_HEADER = "recognised header name"
WHY_REMAINING = "the only columns left for the endpoints"


def why_format(fmt: str) -> str:
    return f"fixed by the {fmt} format"


@dataclass
class Roles:
    """Resolved column keys (``None``: role not played) and why each was chosen."""

    source: Any = None
    target: Any = None
    sign: Any = None
    weight: Any = None
    why: dict[str, str] = field(default_factory=dict)
    unused: list = field(default_factory=list)

    def report(self) -> dict[str, dict[str, Any]]:
        """``{role: {"column": key, "why": reason}}`` for the cleaning report."""
        out = {}
        for role in ("source", "target", "sign", "weight"):
            key = getattr(self, role)
            if key is not None:
                out[role] = {"column": _plain(key), "why": self.why[role]}
        return out


def _plain(key: Any) -> Any:
    return key.item() if isinstance(key, np.generic) else key


#: a column list in a message shows this many names from its start (and the last two)
_LISTED = 12


def _listing(columns: list) -> str:
    """Columns for a message; a wide file's list is cut so the advice after it stays readable."""
    shown = [short_repr(_plain(c), 40) for c in (columns if len(columns) <= _LISTED + 2
                                                  else [*columns[:_LISTED], *columns[-2:]])]
    if len(columns) > _LISTED + 2:
        shown[_LISTED:_LISTED] = [f"... {len(columns) - _LISTED - 2} more ..."]
    return "[" + ", ".join(shown) + "]"


def missing_column_error(role: str, key: Any, available: list, where: str = "") -> GraphInputError:
    """'<role> column <key> not found (did you mean ...?); available columns: ...'."""
    import difflib

    low = {normalise_name(c): c for c in available}
    k = normalise_name(key)
    close = low.get(k)
    if close is None:
        near = [c for c in low if c.startswith(k)] or difflib.get_close_matches(k, list(low), n=1, cutoff=0.6)
        close = low[near[0]] if near else None
    hint = f" (did you mean {close!r}?)" if close is not None else ""
    prefix = f"{where}: " if where else ""
    return GraphInputError(f"{prefix}{role} column {short_repr(key)} not found{hint}; available columns: "
                           f"{', '.join(short_repr(_plain(c), 40) for c in available)}")


def _user_key(spec: Any, role: str, columns: list, header: bool, what: str, where: str) -> Any:
    """The column a user's ``spec`` (name or 0-based position) designates."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, (bool, np.bool_)):
        if not 0 <= spec < len(columns):
            listing = f" {_listing(columns)}" if header else ""
            raise GraphInputError(f"{where}: {role} column position {spec} is out of range; {what} has "
                                  f"{len(columns)} columns{listing} (positions count from 0)")
        return columns[int(spec)]
    if header and spec in columns:
        return spec
    if not header:
        raise GraphInputError(f"{where}: {role} column {short_repr(spec)}: {what} has no header; select "
                              f"columns by 0-based position (it has {len(columns)} columns)")
    raise missing_column_error(role, spec, columns, where=where)


def _by_name(role: str, columns: list, taken: set, where: str) -> Any:
    """The one column whose name is recognised for ``role`` (None if none; error if several)."""
    names = _NORMALISED[role]
    hits = [c for c in columns if c not in taken and normalise_name(c) in names]
    if len(hits) > 1:
        raise GraphInputError(
            f"{where}: ambiguous {role} column: {_listing(hits)} are all recognised {role} names; "
            f"choose one with {role}=<column> (CLI: --{role} COL)")
    return hits[0] if hits else None


def resolve_roles(columns: list, given: dict[str, Any], *, where: str, header: bool = True,
                  fmt: str | None = None, fixed_value: int | None = None, want_sign: bool | None = None,
                  value_as: str = "sign", weight_as_sign: bool = False, take_weight: bool = True,
                  what: str = "the table") -> Roles:
    """Decide which column plays which role (see the module docstring).

    Parameters
    ----------
    columns : list
        Column keys: names (``header=True``) or positions 0..k-1 (headerless files).
    given : dict
        Roles named by the user (name or 0-based position); ``None`` values are ignored.
    where : str
        Shown at the start of every message (file or table name).
    header : bool
        Whether the names in ``columns`` come from the data (a header or a table).
    fmt, fixed_value : str, int, optional
        A headerless format whose layout fixes the endpoints at 0 and 1 and,
        when ``fixed_value`` is given, the value column at that position.
    want_sign : bool or None
        True: a sign column is required; False: no sign (a value column is a
        weight); None: a sign only where one is named or recognised.
    value_as : {"sign", "weight"}
        What the format's fixed value column becomes.
    weight_as_sign : bool
        For a signed read of a header CSV: a recognised weight header is the
        sign when no sign header exists (graphB+ names its sign column ``Weight``).
    take_weight : bool
        Whether a recognised weight name is read as the weight of a signed
        graph (tables: yes; a signed file read: only when named).
    what : str
        How messages refer to the input ("the file", "the table").

    Raises
    ------
    GraphInputError
        A named column that does not exist, one column in two roles, an
        ambiguous set of recognised names, endpoints that cannot be told, or
        (``want_sign=True``) no sign column; each message lists the columns
        and the keyword to pass.
    """
    roles = Roles()
    given = {k: v for k, v in given.items() if v is not None}
    if header:
        dups = [c for c, k in Counter(columns).items() if k > 1]
        if dups:
            raise GraphInputError(f"{where}: duplicate column name(s) {_listing(dups)} in {_listing(columns)}; "
                                  "rename them so each column has one name")
    taken: dict[Any, str] = {}

    def assign(role: str, key: Any, why: str) -> None:
        if key in taken:
            raise GraphInputError(f"{where}: column {short_repr(_plain(key))} cannot be both the "
                                  f"{taken[key]} and the {role}; name another column with {role}=...")
        taken[key] = role
        setattr(roles, role, key)
        roles.why[role] = why

    for role in ("source", "target", "sign", "weight"):
        if role in given:
            assign(role, _user_key(given[role], role, columns, header, what, where), WHY_USER)

    if not header:
        _resolve_fixed(roles, columns, assign, fmt=fmt, fixed_value=fixed_value, want_sign=want_sign,
                       value_as=value_as)
    else:
        _resolve_named(roles, columns, assign, taken, where, want_sign, weight_as_sign, take_weight)
    if want_sign and roles.sign is None:
        raise GraphInputError(
            f"{where}: no sign column: {what} has columns {_listing(columns)} and "
            + ("none has a recognised sign name (sign, vote, rating, ...)" if header
               else f"its {fmt or 'headerless'} layout does not fix one")
            + "; name the column whose sign is the edge sign with sign=<column> (CLI: --sign COL), "
              "or read it unsigned (signed=False)")
    roles.unused = [c for c in columns if c not in taken]
    return roles


def _resolve_fixed(roles: Roles, columns: list, assign, *, fmt, fixed_value, want_sign, value_as) -> None:
    why = why_format(fmt or "headerless")
    for role, pos in (("source", 0), ("target", 1)):
        if getattr(roles, role) is None:
            assign(role, pos, why)
    if fixed_value is None or fixed_value >= len(columns) or fixed_value in (roles.source, roles.target):
        return
    if value_as == "sign" and want_sign is not False and roles.sign is None and roles.weight != fixed_value:
        assign("sign", fixed_value, why)
    elif value_as == "weight" and roles.weight is None and roles.sign != fixed_value:
        assign("weight", fixed_value, why)


_STRONG_NAMES = frozenset(normalise_name(n) for n in _STRONG_SIGN_NAMES)


def _graphbplus_layout(columns: list, weight_key: Any) -> bool:
    """graphB+'s header: a source name, a target name, then the weight (its sign column)."""
    return (len(columns) >= 3 and columns[2] == weight_key
            and recognised_role(columns[0]) == "source" and recognised_role(columns[1]) == "target")


def _resolve_named(roles: Roles, columns: list, assign, taken: dict, where: str, want_sign,
                   weight_as_sign: bool, take_weight: bool) -> None:
    # value columns first, so endpoints can be "the two remaining columns"
    sign_hit = _by_name("sign", columns, set(taken), where) if roles.sign is None else None
    weight_hit = _by_name("weight", columns, set(taken), where) if roles.weight is None else None
    if (want_sign and weight_as_sign and roles.sign is None and weight_hit is not None
            and _graphbplus_layout(columns, weight_hit)
            and (sign_hit is None or normalise_name(sign_hit) not in _STRONG_NAMES)):
        assign("sign", weight_hit, WHY_HEADER + " (graphB+ layout: the weight in the third column is the sign)")
        sign_hit = weight_hit = None
    if want_sign is False:
        if roles.weight is None and (weight_hit if weight_hit is not None else sign_hit) is not None:
            assign("weight", weight_hit if weight_hit is not None else sign_hit, WHY_HEADER)
    else:
        if roles.sign is None and sign_hit is not None:
            assign("sign", sign_hit, WHY_HEADER)
        elif roles.sign is None and want_sign and weight_as_sign and weight_hit is not None:
            assign("sign", weight_hit, WHY_HEADER + " (a 'weight' header is the sign column of graphB+ CSV)")
            weight_hit = None
        if (want_sign is None or take_weight) and roles.weight is None and weight_hit is not None:
            assign("weight", weight_hit, WHY_HEADER)
    value_names = _NORMALISED["sign"] | _NORMALISED["weight"]
    for role in ("source", "target"):
        if getattr(roles, role) is None:
            hit = _by_name(role, columns, set(taken), where)
            if hit is not None:
                assign(role, hit, WHY_HEADER)
    missing = [r for r in ("source", "target") if getattr(roles, r) is None]
    if missing:
        left = [c for c in columns if c not in taken and normalise_name(c) not in value_names]
        if len(left) != len(missing):
            raise GraphInputError(
                f"{where}: cannot tell the {' and '.join(missing)} column{'s' if len(missing) > 1 else ''} "
                f"among {_listing(columns)}: no recognised name (source/target, src/dst, from/to, ...) "
                f"and {len(left)} unassigned columns; name them with "
                + " and ".join(f"{r}=<column>" for r in missing)
                + " (CLI: " + " ".join(f"--{r} COL" for r in missing) + ")")
        for role, key in zip(missing, left):
            assign(role, key, WHY_REMAINING)


def _role_ok(value: Any) -> bool:
    if isinstance(value, str):
        return value != ""
    return _is_int(value) and value >= 0


def check_roles(graph: Any, owner: str, roles: dict[str, Any]) -> dict[str, Any]:
    """Column-role keywords (``source=``, ``target=``, ``sign=``, ``weight=``): names or positions.

    Each role is ``None`` (chosen by the input's format or recognised
    header), a column name (a non-empty ``str``) or a 0-based position (an
    int >= 0).  Every role must be ``None`` when ``graph`` is already a
    built graph: it would be ignored.  Returns the roles that were given
    (not ``None``), positions as plain ints.
    """
    given = {}
    for name, value in roles.items():
        if value is None:
            continue
        if not _role_ok(value):
            raise param_error(name, owner, "a column name (str), a 0-based column position (int >= 0) "
                              "or None", value)
        given[name] = value if isinstance(value, str) else int(value)
    if isinstance(graph, OnCluster):  # a call about to run on a cluster's workers: its input
        graph = graph.obj
    if isinstance(graph, Graph) and given:
        name, value = next(iter(given.items()))
        raise param_error(name, owner, "None when the graph is already built (a Graph or SignedGraph "
                          "has no columns; column roles apply to tables and files)", value)
    return given
