"""How a result shows itself: one text line in a terminal, its summary and the heads of its
tables in a notebook (``_repr_html_``, which Jupyter, VS Code and Colab call).

A result class lists what it shows in ``_display()`` -> ``(title, facts, tables)``:
``facts`` a list of ``(name, value)``, ``tables`` a list of ``(name, DataFrame)``.
:class:`Display` turns that into both forms, so the two never disagree.
"""

from __future__ import annotations

import html
from typing import Any

__all__ = ["Display", "HEAD_ROWS"]

#: rows of each table shown in a notebook
HEAD_ROWS = 5


def _value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.6g}" if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def _rows(table: Any) -> str:
    try:
        return f"{len(table):,} rows"
    except TypeError:  # a lazy (dask) table does not know its length without computing it
        return "lazy table"


def _head_html(table: Any) -> str:
    """The first rows as an HTML table: pandas as it is, cuDF copied to the host, dask not computed."""
    if type(table).__module__.startswith("dask"):
        return f"<pre>{html.escape(repr(table))}</pre>"
    head = table.head(HEAD_ROWS)
    if hasattr(head, "to_pandas"):  # cuDF: only the head leaves the device
        head = head.to_pandas()
    if hasattr(head, "to_html"):
        return head.to_html(max_cols=12, border=0)
    return f"<pre>{html.escape(repr(head))}</pre>"


class Display:
    """Mixin: ``_repr_html_`` and a one-line :meth:`summary_line` from ``_display()``."""

    def _display(self) -> tuple[str, list[tuple[str, Any]], list[tuple[str, Any]]]:
        raise NotImplementedError

    def summary_line(self) -> str:
        """The result in one line: its kind and its main figures."""
        title, facts, _ = self._display()
        return f"<{title}: " + ", ".join(f"{k} {_value(v)}" for k, v in facts) + ">"

    def _repr_html_(self) -> str:
        title, facts, tables = self._display()
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:left'>{html.escape(_value(v))}</td></tr>" for k, v in facts)
        parts = [f"<div class='rapids-balance-result'><strong>{html.escape(title)}</strong>",
                 f"<table>{rows}</table>"]
        for name, table in tables:
            if table is None:
                continue
            parts.append(f"<details open><summary><code>.{html.escape(name)}</code> ({_rows(table)}; "
                         f"the first {HEAD_ROWS})</summary>{_head_html(table)}</details>")
        parts.append("</div>")
        return "".join(parts)
