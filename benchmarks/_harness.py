"""Shared benchmark harness: machine description, timing, table, JSON.

Every benchmark script builds a :class:`Report`, adds rows with
:meth:`Report.add` (each figure next to its peer measured in the same run,
or next to a published figure, clearly labelled), then calls
:meth:`Report.finish`, which prints a table and writes
``bench-results/<name>.json``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))


def machine_info() -> dict[str, Any]:
    """CPU model and cores, GPU (if usable), memory, library versions."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_cores": os.cpu_count(),
        "cpu_model": _cpu_model(),
    }
    try:
        info["memory_gb"] = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    from rapids_balance.backend import gpu_status

    st = gpu_status()
    info["gpu"] = st.device if st.usable and not st.simulated else None
    versions = {}
    for mod in ("rapids_balance", "numpy", "numba", "pandas", "scipy", "cupy", "networkx",
                "networkit", "igraph", "graph_tool", "dask", "distributed", "highspy"):
        try:
            m = __import__(mod)
            versions[mod] = getattr(m, "__version__", "?")
        except Exception:
            continue
    info["versions"] = versions
    try:
        import numba

        info["numba_threads"] = numba.config.NUMBA_NUM_THREADS
    except Exception:
        pass
    return info


def load_average() -> float | None:
    """1-minute load average: how busy the machine was while a figure was taken."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@contextmanager
def timer():
    """``with timer() as t: ...`` then ``t()`` gives elapsed seconds."""
    start = time.perf_counter()
    box = [None]
    yield lambda: box[0] if box[0] is not None else time.perf_counter() - start
    box[0] = time.perf_counter() - start


@dataclass
class Report:
    name: str
    description: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    def add(self, *, input: str, figure: str, value: Any, unit: str = "",
            peer: str | None = None, peer_value: Any = None,
            published: str | None = None, published_value: Any = None,
            lower_is_better: bool = True, **extra: Any) -> dict[str, Any]:
        """One measured figure, with the peer measured in the same run and/or a
        published reference figure.  ``ratio`` = peer/ours for lower-is-better
        figures (>1 means we win), ours/peer otherwise."""
        row = {"input": input, "figure": figure, "value": value, "unit": unit,
               "peer": peer, "peer_value": peer_value,
               "published": published, "published_value": published_value}
        ref = peer_value if peer_value is not None else published_value
        if isinstance(value, (int, float)) and isinstance(ref, (int, float)) and value and ref:
            row["ratio"] = (ref / value) if lower_is_better else (value / ref)
        row.update(extra)
        row.setdefault("load_avg", load_average())
        self.rows.append(row)
        print("  " + _fmt_row(row), flush=True)
        return row

    def finish(self, out_dir: str | os.PathLike | None = None) -> Path:
        out_dir = Path(out_dir or REPO / "bench-results")
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{self.name}.json"
        doc = {"benchmark": self.name, "description": self.description,
               "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": machine_info(), "params": self.params, "rows": self.rows}
        path.write_text(json.dumps(doc, indent=2, default=str))
        print()
        print(format_table(self.rows))
        print(f"\nwritten: {path}")
        return path


def _num(v: Any) -> str:
    if isinstance(v, float):
        if v == 0 or 0.01 <= abs(v) < 1e6:
            return f"{v:,.3f}".rstrip("0").rstrip(".")
        return f"{v:.3g}"
    if isinstance(v, int):
        return f"{v:,}"
    return "" if v is None else str(v)


def _fmt_row(r: dict[str, Any]) -> str:
    s = f"{r['input']} | {r['figure']}: {_num(r['value'])} {r['unit']}".rstrip()
    if r.get("peer"):
        s += f" | {r['peer']}: {_num(r['peer_value'])}"
    if r.get("published"):
        s += f" | {r['published']}: {_num(r['published_value'])}"
    if "ratio" in r:
        s += f" | ratio {r['ratio']:.2f}"
    return s


def format_table(rows: list[dict[str, Any]]) -> str:
    cols = ["input", "figure", "value", "unit", "peer", "peer_value", "published", "published_value", "ratio"]
    cols = [c for c in cols if any(r.get(c) not in (None, "") for r in rows)]
    cells = [[_num(r.get(c)) if c != "ratio" or r.get(c) is None else f"{r[c]:.2f}" for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(cols)]
    line = " | ".join(c.ljust(w) for c, w in zip(cols, widths))
    sep = "-+-".join("-" * w for w in widths)
    body = "\n".join(" | ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells)
    return f"{line}\n{sep}\n{body}"
