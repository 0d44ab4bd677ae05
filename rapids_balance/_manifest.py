"""The run manifest: ``run.json`` beside the results it describes.

:class:`RunManifest` collects what a reader of a results directory needs to
tell which run made it (command line, versions, parameters, seed, input
checksum, cleaning report, timings) and writes it as ``run.json`` (or
``<file>.run.json`` beside a single output file), atomically through
:func:`rapids_balance._files.atomic_open`.  The CLI's results folder
(:class:`rapids_balance._files.ResultsDir`) stages it with the tables, so it
always describes the tables beside it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import platform
import time
from collections.abc import Iterator
from typing import Any

from ._files import atomic_open

__all__ = ["file_sha256", "RunManifest"]


def file_sha256(source: Any) -> str:
    """Hex SHA-256 of a file (a path or anything with ``open("rb")``, such as a package resource)."""
    digest = hashlib.sha256()
    opener = source.open("rb") if hasattr(source, "open") and not isinstance(source, (str, os.PathLike)) \
        else open(source, "rb")
    with opener as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # not installed, or no metadata: the manifest just lacks the entry
        return None


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    item = getattr(value, "item", None)  # numpy scalars
    return _jsonable(item()) if callable(item) else str(value)


class RunManifest:
    """What made a results directory: written last, as ``run.json``.

    Fields: ``command``, ``argv``, ``version`` (rapids-balance), ``parameters``
    (every parsed option), ``seed``, ``input`` (``path``, ``bytes`` and
    ``sha256``, or ``example`` and the bundled file's checksum), ``graph``
    (name, vertices, edges), ``cleaning`` (the cleaning report),
    ``timings`` (``load_s``, ``compute_s``, ``write_s``: seconds),
    ``started_utc`` (ISO 8601), ``python``, ``numpy``, ``numba``, ``platform``,
    ``backend`` and ``outputs`` (the files written, relative to the
    manifest).  A results directory without ``run.json`` is from a run that
    did not finish.

    Parameters
    ----------
    command : str
        The sub-command (``"balance"``).
    argv : list of str
        The command line.
    parameters : dict
        The parsed options.
    """

    def __init__(self, command: str, argv: list[str], parameters: dict[str, Any]):
        from . import __version__

        self.data: dict[str, Any] = {
            "command": command,
            "argv": list(argv),
            "version": __version__,
            "parameters": _jsonable(parameters),
            "seed": parameters.get("seed"),
            "input": None,
            "graph": None,
            "cleaning": None,
            "timings": {},
            "started_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "numpy": _version("numpy"),
            "numba": _version("numba"),
            "platform": platform.platform(),
            "backend": None,
            "outputs": [],
        }

    @contextlib.contextmanager
    def timed(self, step: str) -> Iterator[None]:
        """Add the seconds the block takes to ``timings[step + "_s"]``."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            key = f"{step}_s"
            self.data["timings"][key] = round(self.data["timings"].get(key, 0.0)
                                              + time.perf_counter() - t0, 6)

    def record_input(self, *, path: str | None = None, example: str | None = None,
                     member: str | None = None, sha256: str | None = None, size: int | None = None) -> None:
        """The input file (path, size, SHA-256; ``member`` of a tar archive) or bundled example.

        ``sha256`` and ``size`` are those of the bytes the reader read (it hashes
        them as it reads), so the record describes what was loaded even if the
        file changed afterwards; without them a regular file is hashed here.
        """
        if example is not None:
            from .datasets import EXAMPLES, example_path

            self.data["input"] = {"example": example, "file": EXAMPLES[example][0],
                                  "sha256": sha256 or file_sha256(example_path(example))}
        elif path is not None and sha256 is not None:
            self.data["input"] = {"path": os.path.abspath(path) if os.path.isfile(path) else path,
                                  "bytes": size, "sha256": sha256}
        elif path is not None and os.path.isfile(path):
            self.data["input"] = {"path": os.path.abspath(path), "bytes": os.path.getsize(path),
                                  "sha256": file_sha256(path)}
        elif path is not None:  # a pipe read by a reader that does not hash: no checksum
            self.data["input"] = {"path": path, "sha256": None}
        if member is not None and self.data["input"] is not None:
            self.data["input"]["member"] = member

    def record_graph(self, graph: Any) -> None:
        """The graph's size and cleaning report."""
        self.data["graph"] = {"name": graph.name, "vertices": int(graph.n), "edges": int(graph.m)}
        self.data["cleaning"] = _jsonable(graph.cleaning.as_dict())

    def update(self, **fields: Any) -> None:
        """Set top-level fields (``seed``, ``backend``, ``outputs``, ...)."""
        self.data.update(_jsonable(fields))

    def write(self, path: str | os.PathLike) -> None:
        """Write the manifest as JSON, atomically."""
        with atomic_open(path, "w") as fh:
            json.dump(self.data, fh, indent=2)
            fh.write("\n")
