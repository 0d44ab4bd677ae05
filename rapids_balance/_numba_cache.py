"""Where numba caches the compiled kernels, for installs whose folder is not writable.

Every CPU kernel is compiled with ``cache=True``.  numba writes the cache
beside the module (``__pycache__``) or in the user's cache folder
(``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``), and refuses to even
define a cached function when neither is writable ("cannot cache function
...: no locator available"): a system-wide install used by another account,
with a read-only or missing home, could not be imported at all.

:func:`configure` runs once at ``import rapids_balance``, before any kernel
is defined: when ``NUMBA_CACHE_DIR`` is not set and neither of numba's own
places is writable, it points numba at a per-user folder,
``$XDG_CACHE_HOME/rapids-balance/numba`` or else
``<tmp>/rapids-balance-<uid>/numba`` (created 0700, used only when it is a
real folder of this user's that no one else can enter), and says so once with a
:class:`CacheFallbackWarning`.  ``NUMBA_CACHE_DIR`` set by the user always
wins.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import warnings

__all__ = ["CacheFallbackWarning", "configure", "lock_cache_writes"]

_CONFIGURED: list[str | None] = []


class CacheFallbackWarning(UserWarning):
    """numba's cache went to a per-user folder because the install's folder is not writable."""


def _writable(folder: str) -> bool:
    """numba's own test: the folder can be created and holds a new file."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _numba_user_cache() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numba")


def _private_folder(root: str) -> str | None:
    """``root/numba``, when ``root`` is (or is created as) a real 0700 directory of this user's."""
    try:
        os.makedirs(os.path.dirname(root), exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(root, 0o700)
        st = os.lstat(root)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) \
            or st.st_mode & 0o077:
        return None  # a link, another account's folder, or one others can enter: not for our cache
    folder = os.path.join(root, "numba")
    return folder if _writable(folder) else None


def _fallback_roots() -> list[str]:
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [os.path.join(xdg, "rapids-balance"), os.path.join(tempfile.gettempdir(), f"rapids-balance-{uid}")]


def configure(package_dir: str | None = None) -> str | None:
    """Point numba's cache at a per-user folder when its usual places are not writable.

    Returns the folder chosen (None when numba's own choice stands).  Runs its
    checks once per process.
    """
    if _CONFIGURED:
        return _CONFIGURED[0]
    chosen = None
    package_dir = package_dir or os.path.dirname(os.path.abspath(__file__))
    if not os.environ.get("NUMBA_CACHE_DIR") and not _writable(os.path.join(package_dir, "__pycache__")) \
            and not _writable(_numba_user_cache()):
        chosen = next((f for f in map(_private_folder, _fallback_roots()) if f is not None), None)
        if chosen is not None:
            os.environ["NUMBA_CACHE_DIR"] = chosen
            config = sys.modules.get("numba.core.config")
            if config is not None:  # numba already imported: it read the environment then
                config.CACHE_DIR = chosen
            note = f"numba's compiled kernels are cached in {chosen}"
        else:
            note = "no folder is writable for numba's cache: kernels will fail to compile with cache=True"
        with contextlib.suppress(Exception):
            warnings.warn(f"rapids-balance: the installed package's folder and {_numba_user_cache()} are not "
                          f"writable, so {note} (set NUMBA_CACHE_DIR to choose another folder)",
                          CacheFallbackWarning, stacklevel=3)
    _CONFIGURED.append(chosen)
    return chosen


def lock_cache_writes() -> bool:
    """Make this process's writes to numba's cache safe beside other processes writing it.

    numba saves a kernel by reading the function's index file, adding the
    new signature under the first free data-file number and writing the
    index back, with no lock (numba issues #4807, #10128): two processes
    saving two signatures of one function at once (``warmup``'s processes;
    two closures of one ``def`` share an index too) both take number 1, and
    the index can end up naming the other signature's machine code.  Here
    each save holds an exclusive ``flock`` on a lock file in the cache
    folder while it reads, picks and writes, and writes the data file before
    the index names it.  Returns False, changing nothing, where that cannot
    be done (no ``fcntl``, or a numba whose cache file class differs): the
    caller then compiles in one process.
    """
    try:
        import fcntl
        from numba.core import caching
    except ImportError:
        return False
    cls = caching.IndexDataCacheFile
    if getattr(cls.save, "_locked", False):
        return True
    if not all(hasattr(cls, a) for a in ("_load_index", "_save_index", "_save_data", "_data_name")):
        return False

    def save(self, key, data):
        with open(os.path.join(self._cache_path, "rapids-balance-cache.lock"), "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                overloads = self._load_index()
                name = overloads.get(key)
                if name is None:
                    taken = set(overloads.values())
                    name = next(self._data_name(i) for i in range(1, len(taken) + 2)
                                if self._data_name(i) not in taken)
                self._save_data(name, data)  # first: a reader never finds a name without its data
                if overloads.get(key) != name:
                    overloads[key] = name
                    self._save_index(overloads)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    save._locked = True
    cls.save = save
    return True
