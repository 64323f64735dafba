"""One writer per output, and I/O failures that say what to do.

Every output of :func:`~paperlens.harvest.harvest`, :func:`~paperlens.harvest.harvest_corpus`
and a snowball ``checkpoint`` is locked for the whole run: an operating-system lock
(``flock``) on ``<out>.lock`` beside it, a file that records the holder's pid and host. The
system releases the lock when the process ends, however it ends (a ``kill -9`` included), so a
lock file left behind never blocks the next run; a run that ends normally removes it. Workers
forked during a run never hold the lock (its descriptor is closed in a forked child), and a lock
still held for a holder of this host that is dead is taken over. A second run into the same
output while the first holds it fails at once with :class:`~paperlens.harvest.OutputInUseError`,
before it reads or writes anything. One output has one lock whatever names it: the lock is
named after the resolved path, so a path, a path through a symbolic link and its ``file://`` URL
exclude each other.

The lock file is opened without following links and must be a plain file of this user's
with one link: a planted symbolic link (``out.jsonl.lock -> victim``) is refused with a
:class:`~paperlens.harvest.HarvestError` and its target left untouched. An output at an fsspec
URL (``s3://...``) is locked on this machine only, by a file named by the URL's hash in
``<temp>/paperlens-locks-<uid>``: a folder of this user's with mode 0700, refused when it is
not (another user may have made it first). An object store has no lock, so one writer per URL
across machines is the user's to ensure.

An ``OSError`` of a run (a full disk, a read-only folder, a permission refused) becomes a
:class:`~paperlens.harvest.HarvestWriteError`: still an ``OSError`` with its ``errno``, naming
the output the caller gave (never a temporary file) and saying that the same call, run again,
resumes. A Ctrl-C (``KeyboardInterrupt``) is not swallowed: it gains a note saying so (on
Python 3.10, which has no notes, the sentence goes to stderr); so does a
:class:`~paperlens.QuotaExhaustedError` met while writing an output, with the time after which
the same call resumes.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import getpass
import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from paperlens.base import _checks as checks
from paperlens.errors import PaperlensError, QuotaExhaustedError
from paperlens.storage._store import is_url, location

__all__ = [
    "RESUME",
    "HarvestError",
    "HarvestWriteError",
    "OutputInUseError",
    "OutputLock",
    "guarded",
    "guarded_plan",
    "lock_folder",
    "lock_path",
    "resumable",
    "write_error",
]

RESUME = "run the same call again to resume: it continues from the last checkpoint"
F = TypeVar("F", bound=Callable[..., Any])
_HOLDER_READS = 50  # a holder writes its pid right after it locks: a reader may see the file empty
_ATTEMPTS = 20  # lock files replaced under us (released, taken over) before giving up


# The errors of harvests (re-exported by paperlens.harvest, where they are documented).
class HarvestError(PaperlensError):
    """The output or checkpoint does not belong to this harvest, or cannot be used."""


class OutputInUseError(HarvestError):
    """Another run (a process holding ``<out>.lock``) is writing the same output.

    Attributes:
        out: the output.
        pid: the process id of the run holding it, when known.
        host: the host name of the run holding it, when known.
    """

    def __init__(self, message: str, *, out: Path | str, pid: int | None, host: str | None) -> None:
        super().__init__(message)
        self.out, self.pid, self.host = out, pid, host


class HarvestWriteError(HarvestError, OSError):
    """The output could not be written or read (a full disk, a read-only folder, no
    permission): everything committed before is kept, and the same call run again resumes.

    Attributes:
        errno: the operating system's error number (``errno.ENOSPC``...).
        out: the output the call was given (the path named in the message).
    """

    def __init__(self, message: str, *, errno: int | None, out: Path | str) -> None:
        super().__init__(message)
        self.errno, self.out = errno, out
        self.filename = str(out)

    def __str__(self) -> str:
        return str(self.args[0])


def lock_path(out: str | os.PathLike[str]) -> Path:
    """Where the lock of ``out`` lives: ``<out>.lock`` beside the output, named after its
    resolved path (a path, its resolved form and its ``file://`` URL share one lock); for
    another fsspec URL, a file named by the URL's hash in this user's private lock folder
    (see :func:`lock_folder`). An object store has no lock: this one keeps a second run of
    this machine out; one run per URL across machines is the user's to ensure."""
    local = _local_path(out)
    if local is None:
        digest = hashlib.sha256(str(out).rstrip("/").encode()).hexdigest()[:32]
        return lock_folder() / f"{digest}.lock"
    return local.with_name(local.name + ".lock")


def lock_folder() -> Path:
    """The folder of the locks of fsspec outputs: ``paperlens-locks-<uid>`` in the temporary
    folder, private to this user (mode 0700, checked before each use)."""
    user = os.geteuid() if hasattr(os, "geteuid") else getpass.getuser()
    return Path(tempfile.gettempdir()) / f"paperlens-locks-{user}"


def _local_path(out: str | os.PathLike[str]) -> Path | None:
    """The resolved local path of ``out`` (a ``file://`` URL included); None for another URL."""
    if is_url(out):
        if out.partition("://")[0].lower() not in ("file", "local"):
            return None
        store, path = location(out)
        if not store.local:
            return None
        out = Path(path)
    return Path(os.path.realpath(out))


class OutputLock:
    """The lock of one output, held from :meth:`acquire` to :meth:`release`.

    Its descriptor is never inherited: closed on ``exec`` (``O_CLOEXEC``) and in a forked
    child (``os.register_at_fork``), so workers forked during a run cannot keep it held
    after the run ends, however it ends."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out: Path | str = out if is_url(out) else Path(out)
        self.path = lock_path(out)
        self._private = _local_path(out) is None
        self._fd: int | None = None
        self._made: list[Path] = []  # folders made for the lock: removed again if left empty

    def acquire(self) -> None:
        """Takes the lock or raises :class:`~paperlens.harvest.OutputInUseError` at once;
        a :class:`~paperlens.harvest.HarvestError` when the lock file or its folder could be
        another user's trap (a symbolic link, another owner, a folder others may write)."""
        if self._private:
            _private_folder(self.path.parent)
        else:
            self._made = [p for p in reversed(self.path.parents) if not p.exists()][::-1]
            self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(_ATTEMPTS):
            fd = _open_lock(self.path, self.out)
            try:
                if _try_lock(fd):
                    # A holder releasing removes the file: locking a removed one would not exclude anybody.
                    if _same_file(fd, self.path):
                        break
                else:
                    holder = _holder(fd)
                    if not (_dead_here(holder) and _same_file(fd, self.path)):
                        raise _in_use(self.out, self.path, holder)
                    # Held by a dead run's orphans (forked before they could not inherit it): a
                    # new file of the same name is a new lock, which they do not hold.
                    self.path.unlink()
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        else:
            raise _in_use(self.out, self.path, {})
        self._fd = fd
        _held.add(self)
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        data = json.dumps(holder).encode() + b"\n"
        with contextlib.suppress(OSError):  # who holds it is told when the disk has room for it
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0) if hasattr(os, "pwrite") else os.write(fd, data)

    def release(self) -> None:
        fd = self._fd
        if fd is None:
            return
        if _same_file(fd, self.path):  # removed while locked, so nobody locks a stale inode
            with contextlib.suppress(OSError):
                self.path.unlink()
        made = self._made
        self._forget()
        for folder in made:  # deepest first; a run that wrote nothing leaves nothing
            with contextlib.suppress(OSError):
                folder.rmdir()

    def _forget(self) -> None:
        """Closes the descriptor without touching the file (a forked child's copy)."""
        _held.discard(self)
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd, self._made = None, []


#: The locks this process holds, closed in a forked child (which never releases them).
_held: weakref.WeakSet[OutputLock] = weakref.WeakSet()


def _forget_in_child() -> None:
    for lock in list(_held):
        lock._forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)

_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NONBLOCK", 0)  # a planted FIFO must not block the open
    | getattr(os, "O_BINARY", 0)
)


def _open_lock(path: Path, out: Path | str) -> int:
    """The lock file's descriptor, refusing a file that is not a plain one of this user's."""
    try:
        fd = os.open(path, _OPEN_FLAGS, 0o600)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.EMLINK) and not path.is_symlink():
            raise
        fd = -1
    why = "is a symbolic link" if fd < 0 or path.is_symlink() else _not_plain(os.fstat(fd))
    if why is None:
        return fd
    if fd >= 0:
        os.close(fd)
    raise HarvestError(
        f"the lock file {path} {why}: paperlens never writes through it (it could stand for any file); "
        f"remove it once no run writes {out}, and look into who made it"
    )


def _not_plain(info: os.stat_result) -> str | None:
    """Why a lock file may not be used, or None."""
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_nlink != 1:
        return f"has {info.st_nlink} hard links"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"belongs to uid {info.st_uid}, not to this user (uid {os.geteuid()})"
    return None


def _private_folder(folder: Path) -> None:
    """Makes ``folder`` (mode 0700), or checks that the one there is this user's alone."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    why = None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        why = "is not a folder" if not stat.S_ISLNK(info.st_mode) else "is a symbolic link"
    elif hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        why = f"belongs to uid {info.st_uid}, not to this user (uid {os.geteuid()})"
    elif hasattr(os, "geteuid") and info.st_mode & 0o077:
        why = f"has mode {stat.S_IMODE(info.st_mode):04o}, not 0700 (others may write into it)"
    if why is not None:
        raise HarvestError(
            f"the lock folder {folder} {why}: another user could plant links in it; remove it "
            f"(paperlens makes it again, private) or set TMPDIR to a folder of your own"
        )


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # a byte far past the holder's record, which stays readable
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(fd: int, path: Path) -> bool:
    try:
        named = os.lstat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _holder(fd: int) -> dict[str, Any]:
    """The holder's record (``pid``, ``host``), ``{}`` when it cannot be read."""
    for _ in range(_HOLDER_READS):
        os.lseek(fd, 0, os.SEEK_SET)
        with contextlib.suppress(ValueError):
            holder = json.loads(os.read(fd, 4096) or b"{}")
            if isinstance(holder, dict) and holder:
                return holder
        time.sleep(0.01)
    return {}


def _dead_here(holder: dict[str, Any]) -> bool:
    """Whether the holder is a process of this host that no longer runs."""
    pid = holder.get("pid")
    if holder.get("host") != socket.gethostname() or not isinstance(pid, int) or pid <= 0 or sys.platform == "win32":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def _in_use(out: Path | str, path: Path, holder: dict[str, Any]) -> Exception:
    pid, host = holder.get("pid", "?"), holder.get("host", "?")
    return OutputInUseError(
        f"{out} is being written by another run (pid {pid} on host {host}, which holds {path}); "
        f"wait for it to end, or choose another output",
        out=out,
        pid=pid if isinstance(pid, int) else None,
        host=host if isinstance(host, str) else None,
    )


def write_error(out: Path | str, error: OSError) -> Exception:
    """The :class:`~paperlens.harvest.HarvestWriteError` of ``error`` met while writing ``out``."""
    reason = error.strerror or str(error)
    code = f" [Errno {error.errno}]" if error.errno is not None else ""
    return HarvestWriteError(
        f"cannot write {out}: {reason}{code}; once fixed (free disk space, a writable folder), {RESUME}",
        errno=error.errno,
        out=out,
    )


@contextlib.contextmanager
def writing(out: Path | str) -> Iterator[None]:
    """Holds the lock of ``out``; an ``OSError`` inside becomes a ``HarvestWriteError``."""
    lock = OutputLock(out)
    try:
        lock.acquire()
        yield
    except OSError as error:
        if isinstance(error, HarvestError):
            raise
        raise write_error(out, error) from error
    except QuotaExhaustedError as error:
        when = f"{error.retry_at:%Y-%m-%d %H:%M:%S} UTC"
        _tell(error, f"paperlens: the quota is exhausted until {when}; after that time, {RESUME}")
        raise
    finally:
        lock.release()


def _tell(error: BaseException, note: str) -> None:
    """Adds ``note`` to ``error`` (to stderr on Python 3.10, which has no notes)."""
    if sys.version_info >= (3, 11):
        error.add_note(note)
    else:
        print(note, file=sys.stderr)


@contextlib.contextmanager
def resumable() -> Iterator[None]:
    """A ``KeyboardInterrupt`` inside goes on, telling that the same call resumes."""
    try:
        yield
    except KeyboardInterrupt as interrupt:
        _tell(interrupt, f"paperlens: interrupted; {RESUME}")
        raise


def _output(args: tuple[Any, ...], kwargs: dict[str, Any], name: str, position: int | None) -> Path | str | None:
    given = position is not None and position < len(args)
    out = kwargs.get(name, args[position] if given else None)  # type: ignore[index]
    if out is None:
        return None
    text = checks.path(name, out)
    return text if is_url(text) else Path(text)


def guarded(name: str, position: int | None = None) -> Callable[[F], F]:
    """Runs the decorated call holding the lock of its output (argument ``name``, or positional
    ``position``), with :func:`writing` and :func:`resumable`."""

    def decorate(call: F) -> F:
        @functools.wraps(call)
        def run(*args: Any, **kwargs: Any) -> Any:
            out = _output(args, kwargs, name, position)
            with resumable(), writing(out) if out is not None else contextlib.nullcontext():
                return call(*args, **kwargs)

        return run  # type: ignore[return-value]

    return decorate


def guarded_plan(name: str, position: int | None = None) -> Callable[[F], F]:
    """:func:`guarded` for a :data:`~paperlens.machinery._operation.Plan`: the lock is held while the
    plan runs (from its first step until it returns or is closed). No lock when the output
    is None (a snowball without a checkpoint)."""

    def decorate(define: F) -> F:
        @functools.wraps(define)
        def plan(*args: Any, **kwargs: Any) -> Any:
            out = _output(args, kwargs, name, position)
            if out is None:
                return (yield from define(*args, **kwargs))
            with writing(out):
                return (yield from define(*args, **kwargs))

        return plan  # type: ignore[return-value]

    return decorate
