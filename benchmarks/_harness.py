"""Shared benchmark harness: machine description, timing, table, JSON.

Every benchmark script builds a :class:`Report`, adds rows with
:meth:`Report.add` (each figure next to its peer measured in the same run,
or next to a published figure, clearly labelled), then calls
:meth:`Report.finish`, which prints a table and writes
``bench-results/<name>.json``.

Roofline: a row whose work is a graph kernel also says how far it is from
the machine's limits, measured in the same run over arrays of the graph's
size.  :func:`machine_rates` times a copy kernel (the streaming rate) and a
gather kernel (the random-access rate) with numba on all threads, best of a
few repetitions; :func:`roofline` turns a kernel's work count and seconds
into fields for :meth:`Report.add`::

    rates = machine_rates(2 * g.m, g.n)          # once per graph size, cached
    rep.add(input=..., figure=..., value=t, unit="s",
            **roofline(n_trees * 2 * g.m, t, "adjacency entries", rates))
    # the same for a graph object: rates over g.indices and g.n
    rep.add(..., **graph_roofline(g, n_trees * g.indices.size, t))

The row then carries ``work``, ``work_unit``, ``work_per_s``,
``share_of_stream`` and ``share_of_gather`` (achieved rate / limit) and the
rates themselves; the table prints them in a ``roofline`` column.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

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


def rss_bytes(peak: bool = False) -> int:
    """This process's resident set (``VmRSS``), or with ``peak`` its high-water mark (``VmHWM``).

    ``VmHWM`` belongs to the process's own address space: unlike
    ``ru_maxrss``, which a child started with ``subprocess`` inherits from its
    parent's peak (Linux keeps it across ``exec``), it starts afresh in every
    process and :func:`reset_peak_rss` resets it.  Linux only.
    """
    key = "VmHWM:" if peak else "VmRSS:"
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{key} not in /proc/self/status")


def reset_peak_rss() -> None:
    """Reset ``VmHWM`` to the current resident size (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


@contextmanager
def timer():
    """``with timer() as t: ...`` then ``t()`` gives elapsed seconds."""
    start = time.perf_counter()
    box = [None]
    yield lambda: box[0] if box[0] is not None else time.perf_counter() - start
    box[0] = time.perf_counter() - start


@numba.njit(parallel=True, cache=True)
def _copy(src: np.ndarray, dst: np.ndarray) -> None:
    for i in numba.prange(src.size):
        dst[i] = src[i]


@numba.njit(parallel=True, cache=True)
def _gather(values: np.ndarray, index: np.ndarray) -> int:
    total = 0
    for i in numba.prange(index.size):
        total += values[index[i]]
    return total


def _best_seconds(run, repeats: int, passes: int) -> float:
    """Best time of one pass: ``repeats`` timings of ``passes`` back-to-back calls."""
    run()  # compile / fault the pages in
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(passes):
            run()
        best = min(best, (time.perf_counter() - start) / passes)
    return best


@functools.lru_cache(maxsize=None)
def machine_rates(n_entries: int, n_vertices: int | None = None, repeats: int = 5) -> dict[str, Any]:
    """The machine's streaming and random-access rates over arrays of a graph's size.

    Parameters
    ----------
    n_entries : int
        Items streamed or gathered per repetition: a graph's adjacency
        entries (``2 * m`` for an undirected graph).
    n_vertices : int, optional
        Length of the array gathered from (a per-vertex array); default
        ``n_entries``.
    repeats : int
        Timed repetitions after a warm-up; the best is kept.

    Returns
    -------
    dict
        ``stream_per_s``: int32 entries copied per second (read + write, so
        ``stream_bytes_per_s`` = 8 x that); ``gather_per_s``: random reads of
        an int32 per-vertex array per second, indices streamed in order
        (the pattern of a kernel that looks up each neighbour); the sizes,
        numba's thread count and the load average while measuring.

    Notes
    -----
    Numba kernels on all threads (``numba.get_num_threads()``); a timing
    covers at least 2 * 10^7 entries (several passes over a small graph's
    arrays, which then sit in cache, as the kernel's would); cached per
    size, so a script measures each graph's limits once.  The gather's
    indices are uniform over the per-vertex array (seed 0): real neighbour
    lists have more locality, so a kernel can exceed this "limit" on
    small or well-ordered graphs (a share above 1).
    """
    n_vertices = int(n_entries if n_vertices is None else n_vertices)
    n_entries = int(n_entries)
    # small graphs: several passes per timing, so thread start-up does not count as bandwidth
    passes = max(1, 2 * 10**7 // max(n_entries, 1))
    stream_s = _best_seconds(functools.partial(_copy, np.arange(n_entries, dtype=np.int32),
                                               np.empty(n_entries, dtype=np.int32)), repeats, passes)
    gather_s = _best_seconds(functools.partial(
        _gather, np.ones(max(n_vertices, 1), dtype=np.int32),
        np.random.default_rng(0).integers(0, max(n_vertices, 1), n_entries, dtype=np.int32)), repeats, passes)
    return {"n_entries": n_entries, "n_vertices": n_vertices, "threads": numba.get_num_threads(),
            "stream_per_s": n_entries / stream_s, "stream_bytes_per_s": 8 * n_entries / stream_s,
            "gather_per_s": n_entries / gather_s, "load_avg": load_average()}


def roofline(work: float, seconds: float, unit: str, rates: dict[str, Any]) -> dict[str, Any]:
    """Fields for :meth:`Report.add`: a kernel's achieved rate and its share of the machine's limits.

    Parameters
    ----------
    work : float
        Units of work the kernel did (e.g. ``n_trees * 2 * m`` adjacency
        entries visited, ``n_sources * 2 * m`` relaxations).
    seconds : float
        Wall time of the kernel.
    unit : str
        What one unit of work is, e.g. ``"adjacency entries"``.
    rates : dict
        :func:`machine_rates` for the graph.

    Returns
    -------
    dict
        ``work``, ``work_unit``, ``work_per_s``, ``share_of_stream``,
        ``share_of_gather`` (achieved / limit: 1.0 means the kernel runs at
        the rate of the copy or gather kernel) and ``rates``.
    """
    per_s = work / seconds if seconds else float("nan")
    return {"work": work, "work_unit": unit, "work_per_s": per_s,
            "share_of_stream": per_s / rates["stream_per_s"],
            "share_of_gather": per_s / rates["gather_per_s"], "rates": rates}


def graph_roofline(graph: Any, work: float, seconds: float, unit: str = "adjacency entries") -> dict[str, Any]:
    """:func:`roofline` against :func:`machine_rates` over ``graph``'s adjacency (``indices``) and vertices."""
    return roofline(work, seconds, unit, machine_rates(int(graph.indices.size), int(graph.n)))


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
        path.write_text(json.dumps(portable(doc), indent=2, default=str))
        print()
        print(format_table(self.rows))
        print(f"\nwritten: {path}")
        return path


def _checkout_of(path: Path) -> Path | None:
    for parent in (path, *path.parents):
        if (parent / "pyproject.toml").is_file() and (parent / "rapids_balance").is_dir():
            return parent
    return None


def portable_path(text: str) -> str:
    """An absolute path as a results file may keep it: relative to its checkout
    (``<this checkout>`` or ``<other checkout>``), else ``<outside>/`` and its
    name, since where this machine keeps its files says nothing about the result."""
    path = Path(text)
    if not path.is_absolute() or len(path.parts) < 3:
        return text
    root = _checkout_of(path)
    if root is not None:
        label = "<this checkout>" if root.resolve() == REPO else "<other checkout>"
        rel = path.relative_to(root).as_posix()
        return label if rel == "." else f"{label}/{rel}"
    return f"<outside>/{path.name}"


def portable(obj: Any) -> Any:
    """``obj`` with every string that is an absolute path made :func:`portable_path`."""
    if isinstance(obj, dict):
        return {k: portable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [portable(v) for v in obj]
    if isinstance(obj, str) and obj.startswith("/") and "\n" not in obj and " " not in obj:
        return portable_path(obj)
    return obj


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
    if "work_per_s" in r:
        s += f" | roofline {_roof(r)}"
    return s


def _roof(r: dict[str, Any]) -> str:
    """'3.1e+08 adjacency entries/s = 12% stream, 85% gather'."""
    if "work_per_s" not in r:
        return ""
    return (f"{r['work_per_s']:.3g} {r['work_unit']}/s = {100 * r['share_of_stream']:.0f}% stream, "
            f"{100 * r['share_of_gather']:.0f}% gather")


def format_table(rows: list[dict[str, Any]]) -> str:
    cols = ["input", "figure", "value", "unit", "peer", "peer_value", "published", "published_value", "ratio"]
    cols = [c for c in cols if any(r.get(c) not in (None, "") for r in rows)]
    cells = [[_num(r.get(c)) if c != "ratio" or r.get(c) is None else f"{r[c]:.2f}" for c in cols] for r in rows]
    if any("work_per_s" in r for r in rows):
        cols.append("roofline")
        for row, r in zip(cells, rows):
            row.append(_roof(r))
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(cols)]
    line = " | ".join(c.ljust(w) for c, w in zip(cols, widths))
    sep = "-+-".join("-" * w for w in widths)
    body = "\n".join(" | ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells)
    return f"{line}\n{sep}\n{body}"
