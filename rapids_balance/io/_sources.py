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
import hashlib
import io
import lzma
import os
import stat
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
    #: SHA-256 and size of the file's bytes as read (before decompression); None for buffers
    sha256: str | None = None
    raw_bytes: int | None = None

    def release(self) -> bool:
        """Drop ``data`` when it can be read again; whether it was dropped."""
        if self.reload is None:
            return False
        self.data = b""
        return True


#: the longest line an edge list may have (a 5,000-column header is ~50 kB); a longer one is
#: no edge list, and parsing it would take many times its size in memory
MAX_LINE_BYTES = 1 << 20
_CHUNK = 1 << 22


def memory_budget() -> int:
    """Bytes the reader may hold: the memory available now, within the process's address-space
    and cgroup limits (a file or its decompressed content larger than this is refused up front)."""
    budget = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    budget = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if budget is None:
        try:
            budget = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            budget = 1 << 62
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as fh:
                used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            budget = min(budget, max(soft - used, 0))
    except (ImportError, OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        if limit != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                budget = min(budget, max(int(limit) - int(fh.read()), 0))
    except (OSError, ValueError):
        pass
    return budget


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("kB", 1000)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _too_large(name: str, what: str, budget: int) -> MemoryError:
    return MemoryError(f"{name}: {what}, more than the {_size(budget)} of memory available; edge lists "
                       "are read whole into memory")


def _read_stream(fh: Any, name: str, digest: Any, budget: int) -> bytes:
    """A pipe or device read in chunks, hashed as read: an endless or binary stream stops early."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            return b"".join(parts)
        if total == 0 and chunk[:65536].count(0) == len(chunk[:65536]):
            raise GraphFormatError("binary data (only zero bytes at its start), not a text edge list",
                                   path=name)
        digest.update(chunk)
        total += len(chunk)
        if total > budget:
            raise _too_large(name, f"not a regular file, and still sending data after {_size(total)}", budget)
        parts.append(chunk)


def _read_raw(path_or_buffer: Any) -> tuple[str, bytes, str | None]:
    """Bytes, display name and SHA-256 (of a path: hashed from the very bytes read) of a path,
    a binary/text buffer, or raw bytes."""
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return "<bytes>", bytes(path_or_buffer), None
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = os.fspath(path_or_buffer)
        if os.path.isdir(path):
            raise GraphInputError(f"{path}: is a directory, not an edge-list file")
        with open(path, "rb") as fh:  # FileNotFoundError propagates with the path in it
            budget = memory_budget()
            st = os.fstat(fh.fileno())
            digest = hashlib.sha256()
            if not stat.S_ISREG(st.st_mode):
                return path, _read_stream(fh, path, digest, budget), digest.hexdigest()
            if st.st_size > budget:
                raise _too_large(path, f"the file is {_size(st.st_size)}", budget)
            try:
                raw = fh.read()
            except MemoryError:
                raise _too_large(path, f"reading the {_size(st.st_size)} file ran out of memory",
                                 budget) from None
            digest.update(raw)
            return path, raw, digest.hexdigest()
    if hasattr(path_or_buffer, "read"):
        name = getattr(path_or_buffer, "name", None)
        raw = path_or_buffer.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        return (str(name) if isinstance(name, (str, os.PathLike)) else "<buffer>"), raw, \
            hashlib.sha256(raw).hexdigest()
    raise GraphInputError(
        f"read_edgelist needs a path, a file object or bytes, got {type(path_or_buffer).__name__}; "
        "for DataFrames use SignedGraph.from_edgelist")


def check_line_length(data: bytes, name: str, limit: int | None = None) -> None:
    """Refuse a line longer than ``limit`` bytes (default :data:`MAX_LINE_BYTES`) before parsing.

    Every window of ``limit`` bytes must hold a line end, checked window by
    window with ``bytes.find`` (a few microseconds per megabyte).
    """
    limit = MAX_LINE_BYTES if limit is None else limit
    for start in range(0, max(len(data) - limit, 0), limit):
        if data.find(b"\n", start, start + limit) == -1 and data.find(b"\r", start, start + limit) == -1:
            line = data.count(b"\n", 0, start) + 1
            raise GraphFormatError(f"a line longer than {_size(limit)} (from byte {start:,} on, of "
                                   f"{_size(len(data))}): not an edge list (is it one record per line?)",
                                   path=name, line=line)


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


#: the decompressed content may take this share of the memory available at most: the reader
#: holds the content, a copy while its chunks are joined, and the parse's arrays beside them
_DECOMPRESSED_SHARE = 3


def _gzip_header_problem(raw: bytes) -> str | None:
    """What is wrong with a gzip member's fixed header (RFC 1952, section 2.3), or None."""
    if len(raw) < 18:
        return f"{len(raw)} bytes, shorter than a gzip header and trailer (18 bytes)"
    if raw[2] != 8:
        return f"compression method {raw[2]} after the gzip magic bytes (gzip has only 8, deflate)"
    if raw[3] & 0xE0:
        return f"reserved header flags set (flag byte {raw[3]:#04x})"
    return None


def _decompress_once(name: str, raw: bytes) -> tuple[bytes, str]:
    """One layer of gzip/bz2/xz, by magic bytes; ("", "") kind when none.

    Decompressed in chunks and stopped as soon as the content outgrows its
    share of the memory available (a 20 MB gzip can expand to gigabytes).  A
    gzip member's header is checked first and its trailer (the size modulo
    4 GiB, so a bomb can hide its size) is read only once the first chunk
    decompressed: junk after the magic bytes is reported as corrupt, not as
    a size its last four bytes happen to spell.
    """
    if raw[:2] == _GZIP_MAGIC:
        kind, opener = "gzip", lambda f, mode: gzip.GzipFile(fileobj=f, mode=mode)
        problem = _gzip_header_problem(raw)
        if problem is not None:
            raise GraphFormatError(f"corrupt gzip data: {problem}", path=name)
    elif raw[:3] == _BZ2_MAGIC:
        kind, opener = "bz2", bz2.BZ2File
    elif raw[:6] == _XZ_MAGIC:
        kind, opener = "xz", lzma.LZMAFile
    else:
        return raw, ""
    budget = memory_budget()
    limit = budget // _DECOMPRESSED_SHARE
    compressed = io.BytesIO(raw)
    parts: list[bytes] = []
    total = 0
    try:
        with opener(compressed, "rb") as fh:
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                if not parts and kind == "gzip" and int.from_bytes(raw[-4:], "little") > limit:
                    raise _too_large(name, f"gzip data whose trailer gives "
                                     f"{_size(int.from_bytes(raw[-4:], 'little'))} uncompressed", budget)
                parts.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise _too_large(name, f"{kind} data expanding past {_size(total)} after "
                                     f"{_size(compressed.tell())} of its {_size(len(raw))} (over "
                                     f"{total // max(compressed.tell(), 1):,} times its compressed size: a "
                                     "decompression bomb, or a file too large to read here)", budget)
        parts, data = [], b"".join(parts)
        return data, kind
    except MemoryError as exc:
        parts = []
        if str(exc).startswith(f"{name}:"):
            raise
        raise MemoryError(f"{name}: out of memory decompressing the {kind} data after {_size(total)} "
                          f"(read {_size(compressed.tell())} of its {_size(len(raw))})") from None
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
    name, raw, sha256 = _read_raw(path_or_buffer)
    data, compression = _decompress(name, raw)
    size, raw = len(raw), None
    src = source_from_bytes(name, data, compression, member=member)
    src.sha256, src.raw_bytes = sha256, size
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
        if inner[:4] != b"PAR1":
            check_line_length(inner, f"{name}:{member}")
        return Source(name=f"{name}:{member}", data=inner, compression=inner_comp or compression)
    if member is not None:
        raise GraphInputError(f"{name}: member={member!r} given but the file is not a tar archive")
    if data[:4] != b"PAR1":
        check_line_length(data, name)
    return Source(name=name, data=data, compression=compression)


def read_container(path_or_buffer: Any) -> tuple[str, bytes, str]:
    """(display name, decompressed bytes, compression) of a file, archive or not."""
    name, raw, _ = _read_raw(path_or_buffer)
    data, compression = _decompress(name, raw)
    return name, data, compression
