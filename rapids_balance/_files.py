"""Files the library writes: atomic writes, output-path checks, results folders swapped in whole.

Atomic writes
    :func:`atomic_open` (and :func:`atomic_path`) write into a temporary file
    created beside the target with :func:`tempfile.mkstemp` (exclusive
    creation, mode 0600, so no other account can read a half-written result)
    and rename it onto the target with :func:`os.replace` only when the
    writer finished.  An interrupted or failed write removes the temporary
    file, so a file with the target's name is always complete.  The
    finished file gets the mode a plain ``open()`` would give it (``0666``
    less the umask), or the mode of the file it replaces.  The temporary
    name keeps the target's name as its end (``.rapids-balance-XXXX-edges.csv``)
    so writers that infer a format or compression from the extension
    (pandas, matplotlib) behave as on the target.

Results folders
    :class:`ResultsDir` claims a results directory before the work
    (:class:`Claim`: an ``O_EXCL`` lock file beside it), stages the new
    results in an owner-only folder beside it and swaps that folder in as a
    whole, so a failure or a kill leaves either the old results or the new
    ones, each with its ``run.json``.

Output checks
    :func:`check_output_dir` and :func:`check_output_file` run before any
    work: they refuse a path of the wrong kind (a file where a directory is
    expected and the reverse), a missing parent directory (for files), a
    place where no file can be created (probed with a real temporary file),
    and results of an earlier run unless ``overwrite`` is given.

The run manifest that describes a results folder (``run.json``) is
:mod:`rapids_balance._manifest`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

__all__ = ["MANIFEST_NAME", "atomic_path", "atomic_open", "check_input_file", "check_output_dir",
           "check_output_file", "Claim", "ResultsDir", "StagedFile", "manifest_path_for_file"]

MANIFEST_NAME = "run.json"
_TEMP_PREFIX = ".rapids-balance-"


def _with_path(exc: OSError, what: str) -> OSError:
    """``exc`` again (same class) with a message that names the path and the action."""
    reason = exc.strerror or str(exc)
    try:
        return type(exc)(f"{what}: {reason}")
    except Exception:  # an OSError subclass with another constructor signature
        return OSError(f"{what}: {reason}")


def _umask_mode() -> int:
    """The mode ``open()`` gives a new file: 0666 less the process umask."""
    try:
        with open("/proc/self/status") as fh:  # read without changing it (thread-safe)
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _final_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777  # keep the mode of the file being replaced
    except OSError:
        return _umask_mode()


def _temp_file(path: str) -> tuple[int, str]:
    """An exclusively created 0600 temporary file beside ``path`` (fd, name)."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        return tempfile.mkstemp(dir=directory, prefix=_TEMP_PREFIX, suffix="-" + os.path.basename(path))
    except OSError as exc:
        raise _with_path(exc, f"cannot write {path}") from exc


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _commit(fd: int, tmp: str, path: str) -> None:
    """Give the temporary file its final mode through its descriptor and rename it onto ``path``.

    The name is never reopened: in a folder other accounts can write to, the
    temporary name may have been swapped for a symlink to one of the user's
    files, and a chmod or open by name would follow it.  The rename is made
    only while the name still is the file behind ``fd``.
    """
    try:
        os.fchmod(fd, _final_mode(path))
        st, now = os.fstat(fd), os.lstat(tmp)
        if (st.st_dev, st.st_ino) != (now.st_dev, now.st_ino):
            raise OSError(errno.EEXIST, f"the temporary file {tmp} was replaced by another file "
                          "while being written; nothing was written")
        os.replace(tmp, path)
    except OSError as exc:
        raise _with_path(exc, f"cannot write {path}") from exc


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """``open(path, mode, **kwargs)`` written atomically, through the temporary file's descriptor.

    The writer gets a file object on the descriptor :func:`tempfile.mkstemp`
    created (exclusively, mode 0600, beside ``path``); the finished file gets
    its final mode with ``fchmod`` and is renamed onto ``path``.  The
    temporary name is never opened again, so another account that swaps it
    for a symlink cannot redirect the write.

    Parameters
    ----------
    path : str or path-like
        The file to write.  Its directory must exist.
    mode : {"w", "wb"}
        Text or binary.
    **kwargs
        Passed to :func:`open` (``encoding``, ``newline``).

    Yields
    ------
    file object

    Raises
    ------
    OSError
        The temporary file cannot be created or renamed, or the writer
        failed with an ``OSError`` (disk full, ...): the message names
        ``path``.  Any exception (``KeyboardInterrupt`` included) removes the
        temporary file and leaves ``path`` as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = os.path.join(folder, "t.txt")
    ...     with atomic_open(target) as fh:
    ...         _ = fh.write("done")
    ...     print(open(target).read(), os.listdir(folder))
    done ['t.txt']
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a whole file: mode 'w' or 'wb', got {mode!r}")
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    path = os.fspath(path)
    fd, tmp = _temp_file(path)
    try:
        fh = os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        _remove_quietly(tmp)
        raise
    try:
        with fh:
            try:
                yield fh
                fh.flush()
            except OSError as exc:
                raise _with_path(exc, f"cannot write {path}") from exc
            _commit(fh.fileno(), tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside ``path`` for writers that only take a name; renamed onto ``path``.

    Prefer :func:`atomic_open` (every writer of the library uses it): this
    one hands the name to the writer, which opens it again.  It is kept for
    writers that cannot take a file object; the commit still never follows
    a swapped name (see :func:`_commit`).

    Yields
    ------
    str
        The temporary file's path (already created, empty, mode 0600).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = os.path.join(folder, "t.txt")
    ...     with atomic_path(target) as tmp:
    ...         _ = open(tmp, "w").write("done")
    ...     print(open(target).read(), os.listdir(folder))
    done ['t.txt']
    """
    path = os.fspath(path)
    fd, tmp = _temp_file(path)
    try:
        try:
            yield tmp
        except OSError as exc:
            raise _with_path(exc, f"cannot write {path}") from exc
        _commit(fd, tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------
# checks before work
# ---------------------------------------------------------------------------

def _shown(path: str, limit: int = 200) -> str:
    """A path for a message, cut when absurdly long."""
    path = os.fspath(path)
    return path if len(path) <= limit else f"{path[:limit - 50]}...({len(path)} characters)"


def _probe_writable(directory: str, what: str) -> None:
    """Create and remove a temporary file in ``directory`` (the honest writability test)."""
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=_TEMP_PREFIX, suffix=".probe")
    except OSError as exc:
        raise _with_path(exc, f"{what}: cannot create files in {_shown(directory)}") from exc
    os.close(fd)
    _remove_quietly(probe)


def _nearest_existing(path: str) -> str:
    p = os.path.abspath(path)
    while not os.path.lexists(p):
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    return p


def check_input_file(path: str | os.PathLike, what: str = "input") -> None:
    """Refuse a missing, unreadable or directory input before any work.

    A regular file is opened and closed (the honest readability test); a
    pipe or device (``<(zcat x.gz)``) is only looked up, since opening it
    would consume the stream.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError, OSError
        With a message naming ``what`` and the path.
    """
    path = os.fspath(path)
    label = f"{what} {_shown(path)}"
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _with_path(exc, label) from exc
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{label}: is a directory, not an edge-list file")
    if stat.S_ISREG(st.st_mode):
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            raise _with_path(exc, label) from exc


def _refuse_dangling_link(path: str, label: str) -> None:
    """A symlink whose target does not exist: said as such (not "exists and is not a directory")."""
    if os.path.islink(path) and not os.path.exists(path):
        raise FileNotFoundError(f"{label}: is a dangling symbolic link (to {_shown(os.readlink(path))}, "
                                "which does not exist); remove the link or give another path")


def check_output_dir(path: str | os.PathLike, *, option: str, names: Iterable[str],
                     overwrite: bool) -> None:
    """Refuse an unusable results directory before any work.

    Parameters
    ----------
    path : str or path-like
        The directory; it need not exist (it is created, with its parents,
        when the results are written).
    option : str
        The option that named it, for messages (``"--out"``).
    names : iterable of str
        Every file name the command may write there (the manifest is added).
    overwrite : bool
        Whether results of an earlier run may be replaced.

    Raises
    ------
    NotADirectoryError
        ``path`` (or one of its existing parents) is a file.
    FileExistsError
        The directory holds ``run.json`` or one of ``names`` and
        ``overwrite`` is false.
    IsADirectoryError
        One of ``names`` is a directory there.
    PermissionError, OSError
        No file can be created there (or in its nearest existing parent).
    """
    path = os.fspath(path)
    label = f"{option} {_shown(path)}"
    if not path:
        raise FileNotFoundError(f"{option}: an empty path is not a directory")
    _refuse_dangling_link(path, label)
    if os.path.lexists(path) and not os.path.isdir(path):
        raise NotADirectoryError(f"{label}: exists and is not a directory; give a directory for the results")
    if os.path.isdir(path):
        names = [*names, MANIFEST_NAME]
        blocking = [n for n in names if os.path.isdir(os.path.join(path, n))]
        if blocking:
            raise IsADirectoryError(f"{label}: {blocking[0]} there is a directory, where a result file "
                                    "would be written")
        present = [n for n in names if os.path.lexists(os.path.join(path, n))]
        if present and not overwrite:
            raise FileExistsError(f"{label} already holds results ({', '.join(present)}); pass --overwrite "
                                  "to replace them, or choose another directory")
        _probe_writable(path, label)
        return
    parent = _nearest_existing(path)
    if not os.path.isdir(parent):
        raise NotADirectoryError(f"{label}: {_shown(parent)} is not a directory")
    _probe_writable(parent, label)


def check_output_file(path: str | os.PathLike, *, option: str, overwrite: bool,
                      manifest: bool = False, created_dir: str | None = None) -> None:
    """Refuse an unusable output file before any work.

    Parameters
    ----------
    path : str or path-like
        The file.  Its directory must exist (or be ``created_dir``, a
        results directory the same command creates).
    option : str
        The option that named it, for messages (``"--out"``).
    overwrite : bool
        Whether an existing file may be replaced.
    manifest : bool, default False
        The command also writes :func:`manifest_path_for_file` beside it.
    created_dir : str, optional
        A directory that the command creates before writing this file.

    Raises
    ------
    IsADirectoryError
        ``path`` is a directory (or ends with a separator).
    FileNotFoundError, NotADirectoryError
        Its directory does not exist / is not a directory.
    FileExistsError
        The file (or its manifest) exists and ``overwrite`` is false.
    PermissionError, OSError
        No file can be created in its directory.
    """
    path = os.fspath(path)
    label = f"{option} {_shown(path)}"
    if not path:
        raise FileNotFoundError(f"{option}: an empty path is not a file name")
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise IsADirectoryError(f"{label}: is a directory; give a file name")
    _refuse_dangling_link(path, label)
    parent = os.path.dirname(os.path.abspath(path))
    if created_dir is not None and os.path.abspath(created_dir) == parent and not os.path.lexists(parent):
        check_output_dir(parent, option=option, names=(), overwrite=True)
        return
    if not os.path.lexists(parent):
        raise FileNotFoundError(f"{label}: directory {_shown(parent)} does not exist; create it first")
    if not os.path.isdir(parent):
        raise NotADirectoryError(f"{label}: {_shown(parent)} is not a directory")
    present = [p for p in (path, manifest_path_for_file(path) if manifest else None)
               if p is not None and os.path.lexists(p)]
    if present and not overwrite:
        raise FileExistsError(f"{label} already exists"
                              + (f" ({', '.join(os.path.basename(p) for p in present)})" if manifest else "")
                              + "; pass --overwrite to replace it, or choose another name")
    _probe_writable(parent, label)


# ---------------------------------------------------------------------------
# results written as a whole: claimed before the work, staged, swapped in
# ---------------------------------------------------------------------------

_LOCK_PREFIX = _TEMP_PREFIX + "lock-"
_STAGE_PREFIX = _TEMP_PREFIX + "stage-"


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (another account's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another account's process (EPERM): alive
        return True
    return True


def _lock_owner(lock: str) -> tuple[int | None, bool]:
    """(process id, whether that process is gone) of a claim file; (None, False) when unreadable."""
    try:
        with open(lock, encoding="ascii", errors="replace") as fh:
            pid_text, _, host = fh.read().strip().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return None, False
    return pid, host == platform.node() and not pid_alive(pid)


class Claim:
    """An exclusive claim on an output path: a lock file created with ``O_EXCL`` beside it.

    Two runs started at once on the same output cannot both hold it: the
    second is refused before its work, naming the first one's process.  A
    claim left by a process that is gone (killed with SIGKILL) is taken
    over.  :meth:`release` removes the file.

    Parameters
    ----------
    path : str
        The output (a results directory or a single file).
    label : str
        How messages name it (``"--out results"``).
    folder : str, optional
        Where the lock file goes; default: ``path``'s directory.
    """

    def __init__(self, path: str, label: str, folder: str | None = None):
        folder = folder if folder is not None else os.path.dirname(os.path.abspath(path))
        name = "run" if folder == os.path.abspath(path) else os.path.basename(os.path.abspath(path))
        self.lock: str | None = os.path.join(folder, _LOCK_PREFIX + name)
        for attempt in range(2):
            try:
                fd = os.open(self.lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                             0o600)
            except FileExistsError:
                pid, gone = _lock_owner(self.lock)
                if gone and attempt == 0:
                    _remove_quietly(self.lock)
                    continue
                who = f"process {pid}" if pid is not None else f"see {self.lock}"
                self.lock = None
                raise FileExistsError(f"{label}: another run ({who}) is writing its results there; wait "
                                      "for it to finish or choose another place") from None
            except OSError as exc:
                self.lock = None
                raise _with_path(exc, f"{label}: cannot claim it") from exc
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(f"{os.getpid()} {platform.node()}\n")
            return

    def release(self) -> None:
        """Remove the lock file (once)."""
        if self.lock is not None:
            _remove_quietly(self.lock)
            self.lock = None


def _make_dirs(path: str) -> list[str]:
    """``os.makedirs(path)``, returning the directories it created (outermost first)."""
    missing = []
    p = path
    while not os.path.lexists(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except FileExistsError:
            pass
        except OSError as exc:
            raise _with_path(exc, f"cannot create {_shown(d)}") from exc
    return list(reversed(missing))


def _dir_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return _umask_mode() | ((_umask_mode() & 0o444) >> 2)  # 0777 less the umask


def _exchange(a: str, b: str) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # the file system cannot: two renames instead
    raise OSError(err, os.strerror(err), b)


class ResultsDir:
    """A results directory replaced as a whole, never table by table.

    :meth:`claim` (before the work) takes an exclusive :class:`Claim` on the
    directory; :meth:`stage` creates a fresh owner-only (0700) directory
    beside it, where every table and ``run.json`` are written;
    :meth:`commit` gives it the directory's mode and swaps it with the old
    directory in one step (``renameat2(RENAME_EXCHANGE)``; where the file
    system cannot, two renames), then removes the old one.  A failure
    or a kill at any point leaves the complete old results or the complete
    new ones under the name, each with the ``run.json`` that describes it.

    A directory that also holds files of the user's (``--out .``, a project
    folder), that is the working directory, a mount point, or whose parent
    is not writable is never moved: the staging folder is made inside it,
    and the commit removes the old ``run.json`` first, moves the new tables
    in and the new ``run.json`` last.  A run cut short there leaves tables
    without a ``run.json``, which marks an unfinished run, never tables
    described by another run's ``run.json``.

    Parameters
    ----------
    path : str or path-like
        The directory (a symbolic link to a directory is followed).
    label : str
        How messages name it (``"--out results"``).
    """

    def __init__(self, path: str | os.PathLike, label: str):
        self.path = os.path.realpath(os.fspath(path))
        self.label = label
        self.staged: str | None = None
        self.in_place = False
        self._parent_writable = True
        self._known: set[str] = {MANIFEST_NAME}
        self._claim: Claim | None = None
        self._created: list[str] = []

    def claim(self, known: Iterable[str] = ()) -> None:
        """Create the parents, take the claim, and remove staging folders of runs that are gone."""
        parent = os.path.dirname(self.path)
        self._created = _make_dirs(parent)
        self._parent_writable = os.access(parent, os.W_OK | os.X_OK)
        lock_folder = parent if self._parent_writable or not os.path.isdir(self.path) else self.path
        try:
            self._claim = Claim(self.path, self.label, lock_folder)
        except BaseException:
            self._remove_created()
            raise
        self._known = {*known, MANIFEST_NAME}
        self._remove_stale_stages(self._known)

    def _remove_stale_stages(self, ours: set[str]) -> None:
        """Staging folders of this directory left by killed runs, when they hold results only."""
        suffix = "-" + os.path.basename(self.path)
        for folder in (os.path.dirname(self.path), self.path):
            with contextlib.suppress(OSError):
                for entry in os.listdir(folder):
                    if not (entry.startswith(_STAGE_PREFIX) and entry.endswith(suffix)):
                        continue
                    pid = entry[len(_STAGE_PREFIX):].split("-", 1)[0]
                    stale = os.path.join(folder, entry)
                    if pid.isdigit() and not pid_alive(int(pid)) and set(os.listdir(stale)) <= ours:
                        shutil.rmtree(stale, ignore_errors=True)

    def _swappable(self) -> bool:
        """Whether the directory can be replaced as a whole: it holds nothing but results (no
        file of the user's: their folder is never moved), is no mount point, not the working
        directory or one above it, and its parent is writable."""
        if not os.path.isdir(self.path):
            return True
        if not self._parent_writable or os.path.ismount(self.path):
            return False
        cwd = os.path.realpath(os.getcwd())
        if cwd == self.path or cwd.startswith(self.path.rstrip(os.sep) + os.sep):
            return False
        try:
            entries = os.listdir(self.path)
        except OSError:
            return False
        return all(e in self._known or e.startswith(_TEMP_PREFIX) for e in entries)

    def stage(self) -> str:
        """A fresh 0700 folder for the new results (beside the directory, or inside it)."""
        self.in_place = not self._swappable()
        folder = self.path if self.in_place else os.path.dirname(self.path)
        try:
            self.staged = tempfile.mkdtemp(dir=folder, prefix=f"{_STAGE_PREFIX}{os.getpid()}-",
                                           suffix="-" + os.path.basename(self.path))
        except OSError as exc:
            raise _with_path(exc, f"cannot write {_shown(self.path)}") from exc
        return self.staged

    def commit(self, known: Iterable[str]) -> None:
        """Put the staged results in place of the directory's (see the class notes)."""
        staged, ours = self.staged, {*known, MANIFEST_NAME}
        assert staged is not None
        try:
            if self.in_place:
                self._commit_in_place(staged, ours)
                return
            old_exists = os.path.isdir(self.path)
            if old_exists:
                for entry in os.listdir(self.path):
                    if entry not in ours and not os.path.lexists(os.path.join(staged, entry)):
                        os.rename(os.path.join(self.path, entry), os.path.join(staged, entry))
            os.chmod(staged, _dir_mode(self.path))
            if not old_exists:
                os.rename(staged, self.path)
            elif _exchange(staged, self.path):
                shutil.rmtree(staged, ignore_errors=True)  # the old results, now under the staging name
            else:
                aside = tempfile.mkdtemp(dir=os.path.dirname(self.path),
                                         prefix=f"{_STAGE_PREFIX}{os.getpid()}-",
                                         suffix="-" + os.path.basename(self.path))
                os.replace(self.path, aside)
                os.rename(staged, self.path)
                shutil.rmtree(aside, ignore_errors=True)
        except OSError as exc:
            raise _with_path(exc, f"cannot write {_shown(self.path)}") from exc
        self.staged = None

    def _commit_in_place(self, staged: str, ours: set[str]) -> None:
        manifest = os.path.join(self.path, MANIFEST_NAME)
        _remove_quietly(manifest)  # first: the old tables no longer claim a description
        new = [e for e in os.listdir(staged) if e != MANIFEST_NAME]
        for name in ours - {MANIFEST_NAME} - set(new):
            if os.path.isfile(os.path.join(self.path, name)):
                os.unlink(os.path.join(self.path, name))
        for entry in new:
            os.replace(os.path.join(staged, entry), os.path.join(self.path, entry))
        if os.path.lexists(os.path.join(staged, MANIFEST_NAME)):
            os.replace(os.path.join(staged, MANIFEST_NAME), manifest)
        os.rmdir(staged)
        self.staged = None

    def _remove_created(self) -> None:
        for d in reversed(self._created):
            with contextlib.suppress(OSError):
                os.rmdir(d)  # only when still empty
        self._created = []

    def close(self) -> None:
        """Remove an uncommitted staging folder and the claim (safe to call more than once)."""
        if self.staged is not None:
            shutil.rmtree(self.staged, ignore_errors=True)
            self.staged = None
        if self._claim is not None:
            self._claim.release()
            self._claim = None
        if not os.path.lexists(self.path):
            self._remove_created()


class StagedFile:
    """A single output file and its ``FILE.run.json``, staged beside and put in place together.

    Both are written into a fresh owner-only folder beside the file; the
    commit removes the old manifest, then renames the new file and the new
    manifest in.  A failure while writing leaves the old pair untouched; a
    kill between the renames leaves the new file without a manifest (an
    unfinished run), never described by the old one.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = os.path.abspath(os.fspath(path))
        self.manifest = manifest_path_for_file(self.path)
        self.staged: str | None = None

    def stage(self) -> str:
        try:
            self.staged = tempfile.mkdtemp(dir=os.path.dirname(self.path), prefix=f"{_STAGE_PREFIX}{os.getpid()}-",
                                           suffix="-" + os.path.basename(self.path))
        except OSError as exc:
            raise _with_path(exc, f"cannot write {_shown(self.path)}") from exc
        return self.staged

    def where(self, path: str) -> str:
        """Where ``path`` is written now (the staging folder for the file and its manifest)."""
        if self.staged is not None and os.path.abspath(path) in (self.path, self.manifest):
            return os.path.join(self.staged, os.path.basename(path))
        return path

    def commit(self) -> None:
        staged = self.staged
        assert staged is not None
        try:
            new_file = os.path.join(staged, os.path.basename(self.path))
            new_manifest = os.path.join(staged, os.path.basename(self.manifest))
            if os.path.lexists(new_file):
                os.chmod(new_file, _final_mode(self.path))
            _remove_quietly(self.manifest)  # first: the old manifest describes the old file only
            if os.path.lexists(new_file):
                os.replace(new_file, self.path)
            if os.path.lexists(new_manifest):
                os.replace(new_manifest, self.manifest)
        except OSError as exc:
            raise _with_path(exc, f"cannot write {_shown(self.path)}") from exc
        shutil.rmtree(staged, ignore_errors=True)
        self.staged = None

    def close(self) -> None:
        if self.staged is not None:
            shutil.rmtree(self.staged, ignore_errors=True)
            self.staged = None


def manifest_path_for_file(path: str | os.PathLike) -> str:
    """The manifest of a single-file output: ``<file>.run.json``."""
    return os.fspath(path) + "." + MANIFEST_NAME
