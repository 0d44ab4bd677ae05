"""Getting the bytes of an edge list: paths, buffers, compression, tar archives.

Everything here works on whole files held in memory: the signed networks
people use fit comfortably (Epinions is 11 MB uncompressed), and having the
bytes at hand lets format detection look at the start of the file and lets
the error path re-scan lines to name the exact bad one.  A file read from
disk can be read again (:attr:`Source.reload`), so the reader drops its
bytes before building the graph and re-reads them only for an error.

Compression is detected from magic bytes, never from the file name, so a
gzip file called ``edges.csv`` reads the same as ``edges.csv.gz``.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import os
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import GraphFormatError, GraphInputError

__all__ = ["Source", "open_source", "source_from_bytes", "read_container", "archive_members", "is_tar"]

_GZIP_MAGIC = b"\x1f\x8b"
_BZ2_MAGIC = b"BZh"
_XZ_MAGIC = b"\xfd7zXZ\x00"


@dataclass
class Source:
    """The decompressed content of one edge-list file."""

    name: str                 # shown in errors and in the cleaning report
    data: bytes               # decompressed content
    compression: str = ""     # "gzip", "bz2", "xz", nested as "gzip inside gzip", or ""
    notes: list[str] = field(default_factory=list)
    #: reads the same content again (files on disk; None for buffers): lets the reader drop
    #: ``data`` before the graph build and re-read the file only if an error needs a line number
    reload: Callable[[], bytes] | None = field(default=None, repr=False)

    def release(self) -> bool:
        """Drop ``data`` when it can be read again; whether it was dropped."""
        if self.reload is None:
            return False
        self.data = b""
        return True


def _read_raw(path_or_buffer: Any) -> tuple[str, bytes]:
    """Bytes and display name of a path, a binary/text buffer, or raw bytes."""
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return "<bytes>", bytes(path_or_buffer)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = os.fspath(path_or_buffer)
        if os.path.isdir(path):
            raise GraphInputError(f"{path}: is a directory, not an edge-list file")
        with open(path, "rb") as fh:  # FileNotFoundError propagates with the path in it
            return path, fh.read()
    if hasattr(path_or_buffer, "read"):
        name = getattr(path_or_buffer, "name", None)
        raw = path_or_buffer.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        return (str(name) if isinstance(name, (str, os.PathLike)) else "<buffer>"), raw
    raise GraphInputError(
        f"read_edgelist needs a path, a file object or bytes, got {type(path_or_buffer).__name__}; "
        "for DataFrames use SignedGraph.from_edgelist")


#: layers of compression undone before giving up (a real file has one, rarely two)
_MAX_LAYERS = 4


def _decompress(name: str, raw: bytes) -> tuple[bytes, str]:
    """Undo gzip/bz2/xz by magic bytes, layer after layer (gzip inside gzip happens).

    Returns the content and the layers, outermost last (``"gzip inside gzip"``), or ``""``.
    """
    layers: list[str] = []
    data = raw
    while len(layers) < _MAX_LAYERS:
        data, kind = _decompress_once(name, data)
        if not kind:
            break
        layers.append(kind)
    else:
        if _magic(data):
            raise GraphFormatError(f"more than {_MAX_LAYERS} nested layers of compression", path=name)
    return data, " inside ".join(reversed(layers))


def _magic(raw: bytes) -> bool:
    return raw[:2] == _GZIP_MAGIC or raw[:3] == _BZ2_MAGIC or raw[:6] == _XZ_MAGIC


def _decompress_once(name: str, raw: bytes) -> tuple[bytes, str]:
    """One layer of gzip/bz2/xz, by magic bytes; ("", "") kind when none."""
    if raw[:2] == _GZIP_MAGIC:
        kind, opener = "gzip", gzip.decompress
    elif raw[:3] == _BZ2_MAGIC:
        kind, opener = "bz2", bz2.decompress
    elif raw[:6] == _XZ_MAGIC:
        kind, opener = "xz", lzma.decompress
    else:
        return raw, ""
    try:
        return opener(raw), kind
    except EOFError:
        raise GraphFormatError(
            f"truncated {kind} file: the compressed stream ends before its end marker "
            f"({len(raw)} bytes read); the download or copy was probably cut short",
            path=name) from None
    except (OSError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise GraphFormatError(f"corrupt {kind} data ({exc})", path=name) from None


def is_tar(data: bytes) -> bool:
    """True when ``data`` (already decompressed) is a tar archive."""
    # POSIX/GNU tar headers carry "ustar" at offset 257
    return len(data) >= 262 and data[257:262] == b"ustar"


def archive_members(data: bytes, name: str = "<archive>") -> list[str]:
    """Names of the regular files in a tar archive held in ``data``."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tf:
            return [m.name for m in tf.getmembers() if m.isfile()]
    except tarfile.TarError as exc:
        raise GraphFormatError(f"corrupt tar archive ({exc})", path=name) from None


def _extract_member(data: bytes, name: str, member: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tf:
        files = [m for m in tf.getmembers() if m.isfile()]
        match = [m for m in files if m.name == member]
        if not match:  # allow the bare file name without the archive's folder
            match = [m for m in files if os.path.basename(m.name) == member]
        if len(match) != 1:
            listing = ", ".join(m.name for m in files)
            why = "is not in" if not match else "matches several files in"
            raise GraphInputError(f"{name}: member {member!r} {why} the archive; members: {listing}")
        fh = tf.extractfile(match[0])
        return fh.read()


def open_source(path_or_buffer: Any, *, member: str | None = None) -> Source:
    """Read, decompress and (for tar archives) extract one edge-list file.

    Raises
    ------
    GraphInputError
        A tar archive without ``member`` (the message lists the members), an
        unknown member, ``member`` given for a plain file.
    GraphFormatError
        Truncated or corrupt compressed data.
    """
    name, data, compression = read_container(path_or_buffer)
    src = source_from_bytes(name, data, compression, member=member)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        src.reload = functools.partial(_reread, os.fspath(path_or_buffer), member)
    return src


def _reread(path: str, member: str | None) -> bytes:
    return open_source(path, member=member).data


def source_from_bytes(name: str, data: bytes, compression: str = "", *,
                      member: str | None = None) -> Source:
    """:func:`open_source` on content already read and decompressed."""
    if is_tar(data):
        if member is None:
            members = archive_members(data, name)
            raise GraphInputError(
                f"{name} is a tar archive with {len(members)} files; choose one with member=... "
                f"(CLI: --member). Members: {', '.join(members)}")
        inner = _extract_member(data, name, member)
        inner, inner_comp = _decompress(f"{name}:{member}", inner)
        return Source(name=f"{name}:{member}", data=inner, compression=inner_comp or compression)
    if member is not None:
        raise GraphInputError(f"{name}: member={member!r} given but the file is not a tar archive")
    return Source(name=name, data=data, compression=compression)


def read_container(path_or_buffer: Any) -> tuple[str, bytes, str]:
    """(display name, decompressed bytes, compression) of a file, archive or not."""
    name, raw = _read_raw(path_or_buffer)
    data, compression = _decompress(name, raw)
    return name, data, compression
