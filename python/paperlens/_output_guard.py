"""One writer per output, and I/O failures that say what to do.

Every output of :func:`~paperlens.harvest.harvest`, :func:`~paperlens.harvest.harvest_corpus`
and a snowball ``checkpoint`` is locked for the whole run: an operating-system lock
(``flock``) on ``<out>.lock`` beside it, a file that records the holder's pid and host. The
system releases the lock when the process ends, however it ends (a ``kill -9`` included), so a
lock file left behind never blocks the next run; a run that ends normally removes it. A second
run into the same output while the first holds it fails at once with
:class:`~paperlens.harvest.OutputInUseError`, before it reads or writes anything.
An output at an fsspec URL (``s3://...``) is locked on this machine only (a lock file in its
temporary folder, named by the URL's hash): an object store has no lock, so one writer per URL
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
import functools
import hashlib
import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from paperlens._store import is_url
from paperlens.errors import PaperlensError, QuotaExhaustedError

__all__ = [
    "RESUME",
    "HarvestError",
    "HarvestWriteError",
    "OutputInUseError",
    "OutputLock",
    "guarded",
    "guarded_plan",
    "lock_path",
    "resumable",
    "write_error",
]

RESUME = "run the same call again to resume: it continues from the last checkpoint"
F = TypeVar("F", bound=Callable[..., Any])
_HOLDER_READS = 50  # a holder writes its pid right after it locks: a reader may see the file empty


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
    """Where the lock of ``out`` lives: ``<out>.lock``; for an fsspec URL, a file of this
    machine's temporary folder named by the URL's hash (an object store has no lock: this one
    keeps a second run of this machine out; one run per URL across machines is the user's
    to ensure)."""
    if is_url(out):
        digest = hashlib.sha256(str(out).rstrip("/").encode()).hexdigest()[:32]
        return Path(tempfile.gettempdir()) / "paperlens-locks" / f"{digest}.lock"
    out = Path(out)
    return out.with_name(out.name + ".lock")


class OutputLock:
    """The lock of one output, held from :meth:`acquire` to :meth:`release`."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out: Path | str = out if is_url(out) else Path(out)
        self.path = lock_path(out)
        self._file: IO[bytes] | None = None
        self._made: list[Path] = []  # folders made for the lock: removed again if left empty

    def acquire(self) -> None:
        """Takes the lock or raises :class:`~paperlens.harvest.OutputInUseError` at once."""
        self._made = [p for p in reversed(self.path.parents) if not p.exists()][::-1]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            file = open(self.path, "a+b", buffering=0)  # noqa: SIM115 (kept open while the lock is held)
            try:
                if not _try_lock(file):
                    raise _in_use(self.out, self.path, file)
                # A holder releasing removes the file: locking a removed one would not exclude anybody.
                if _same_file(file, self.path):
                    break
            except BaseException:
                file.close()
                raise
            file.close()
        self._file = file
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        with contextlib.suppress(OSError):  # who holds it is told when the disk has room for it
            os.ftruncate(file.fileno(), 0)
            os.write(file.fileno(), json.dumps(holder).encode() + b"\n")

    def release(self) -> None:
        if self._file is None:
            return
        with contextlib.suppress(OSError):  # removed while locked, so nobody locks a stale inode
            self.path.unlink()
        self._file.close()
        self._file = None
        for folder in self._made:  # deepest first; a run that wrote nothing leaves nothing
            with contextlib.suppress(OSError):
                folder.rmdir()


def _try_lock(file: IO[bytes]) -> bool:
    if sys.platform == "win32":  # a byte far past the holder's record, which stays readable
        import msvcrt

        file.seek(1 << 20)
        try:
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(file: IO[bytes], path: Path) -> bool:
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(file.fileno())
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _in_use(out: Path | str, path: Path, file: IO[bytes]) -> Exception:
    holder: dict[str, Any] = {}
    for _ in range(_HOLDER_READS):
        file.seek(0)
        with contextlib.suppress(ValueError):
            holder = json.loads(file.read(4096) or b"{}")
        if holder:
            break
        time.sleep(0.01)
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
    return None if out is None else out if is_url(out) else Path(out)


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
    """:func:`guarded` for a :data:`~paperlens._operation.Plan`: the lock is held while the
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
