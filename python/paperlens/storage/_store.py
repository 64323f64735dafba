"""Where a harvest writes: a local folder, or an fsspec URL (``s3://bucket/prefix``,
``memory://...``; ``file://`` is a local folder).

Both stores keep a harvest's promise that a reader sees no partial file:

- local: every file is written to a temporary file beside it, synced, and renamed into
  place; a document folder is filled as a temporary folder renamed into place.
- fsspec (an object store): every object is written whole by one PUT (S3 and its
  compatible stores make an object visible only once it is complete, and a new PUT
  replaces it at once); a document folder has no rename, so its files go first and its
  ``text.md`` last: a folder counts as written once its ``text.md`` exists.

The fsspec modules are imported only for a URL (``pip install "paperlens[s3]"``).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath, PurePosixPath
from typing import Any, BinaryIO, TypeGuard

__all__ = ["FsspecStore", "LocalStore", "Store", "is_url", "location", "replace_atomically", "sync_dir"]


def is_url(out: object) -> TypeGuard[str]:
    """Whether ``out`` names an fsspec location (``scheme://...``) rather than a local path."""
    return isinstance(out, str) and "://" in out


def location(out: str | os.PathLike[str]) -> tuple[Store, PurePath]:
    """The store ``out`` is in and its path there."""
    if not is_url(out):
        return LOCAL, Path(out)
    try:
        from fsspec.core import url_to_fs
        from fsspec.implementations.local import LocalFileSystem
    except ImportError as e:
        raise ImportError(f'an output URL ({out}) needs fsspec: pip install "paperlens[s3]"') from e
    fs, path = url_to_fs(out)
    if isinstance(fs, LocalFileSystem):
        return LOCAL, Path(path)
    return FsspecStore(fs), PurePosixPath(path)


def replace_atomically(path: Path, write: Callable[[BinaryIO], object], *, prefix: str) -> None:
    """Lets ``write`` fill a temporary file beside ``path`` (named ``prefix...tmp``), syncs it,
    and renames it into place: ``path`` is whole or as it was, never partly written."""
    fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def sync_dir(directory: Path) -> None:
    """Makes a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Store:
    """The file operations a harvest needs, on paths of this store."""

    local = False

    def name(self, path: PurePath) -> str:
        """How ``path`` is named in messages (a URL for a remote store)."""
        raise NotImplementedError

    def exists(self, path: PurePath) -> bool:
        raise NotImplementedError

    def is_file(self, path: PurePath) -> bool:
        raise NotImplementedError

    def names(self, folder: PurePath) -> list[str]:
        """The names directly in ``folder`` ([] when it does not exist)."""
        raise NotImplementedError

    def read(self, path: PurePath) -> bytes:
        """The bytes of ``path``; ``FileNotFoundError`` when there is none."""
        raise NotImplementedError

    def write(self, path: PurePath, fill: Callable[[BinaryIO], object], *, prefix: str) -> None:
        """Writes the file ``fill`` writes, visible whole or not at all (``prefix``: the
        local temporary file's)."""
        raise NotImplementedError

    def delete(self, path: PurePath) -> None:
        """Removes a file if it is there."""
        raise NotImplementedError

    def make_dirs(self, folder: PurePath) -> None:
        raise NotImplementedError

    def write_folder(self, folder: PurePath, files: Mapping[str, bytes], last: str) -> None:
        """Writes the folder ``folder`` of ``files`` (relative names), ``last`` among them,
        so that it is seen complete or not at all (see :meth:`has_folder`)."""
        raise NotImplementedError

    def has_folder(self, folder: PurePath, last: str) -> bool:
        """Whether :meth:`write_folder` of ``folder`` finished."""
        raise NotImplementedError


class LocalStore(Store):
    local = True

    def name(self, path: PurePath) -> str:
        return str(path)

    def exists(self, path: PurePath) -> bool:
        return Path(path).exists()

    def is_file(self, path: PurePath) -> bool:
        return Path(path).is_file()

    def names(self, folder: PurePath) -> list[str]:
        try:
            return [entry.name for entry in Path(folder).iterdir()]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def read(self, path: PurePath) -> bytes:
        return Path(path).read_bytes()

    def write(self, path: PurePath, fill: Callable[[BinaryIO], object], *, prefix: str) -> None:
        replace_atomically(Path(path), fill, prefix=prefix)

    def delete(self, path: PurePath) -> None:
        Path(path).unlink(missing_ok=True)

    def make_dirs(self, folder: PurePath) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)

    def write_folder(self, folder: PurePath, files: Mapping[str, bytes], last: str) -> None:
        folder = Path(folder)
        temp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
        try:
            folders = {temp}
            for name in sorted(files, key=lambda name: name == last):
                dest = temp / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                folders.update(p for p in dest.parents if p.is_relative_to(temp))
                with open(dest, "wb") as file:
                    file.write(files[name])
                    file.flush()
                    os.fsync(file.fileno())
            for path in folders:
                sync_dir(path)
            os.rename(temp, folder)
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        sync_dir(folder.parent)

    def has_folder(self, folder: PurePath, last: str) -> bool:
        return Path(folder).exists()


class FsspecStore(Store):
    """An fsspec file system (an object store: directories are prefixes, made on write)."""

    def __init__(self, fs: Any) -> None:
        self.fs = fs

    def name(self, path: PurePath) -> str:
        return str(self.fs.unstrip_protocol(str(path)))

    def exists(self, path: PurePath) -> bool:
        return bool(self.fs.exists(str(path)))

    def is_file(self, path: PurePath) -> bool:
        return bool(self.fs.isfile(str(path)))

    def names(self, folder: PurePath) -> list[str]:
        self.fs.invalidate_cache(str(folder))  # another process may have written there
        try:
            entries = self.fs.ls(str(folder), detail=False)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [PurePosixPath(entry).name for entry in entries if PurePosixPath(entry) != PurePosixPath(folder)]

    def read(self, path: PurePath) -> bytes:
        return bytes(self.fs.cat_file(str(path)))

    def write(self, path: PurePath, fill: Callable[[BinaryIO], object], *, prefix: str) -> None:
        buffer = io.BytesIO()
        fill(buffer)
        self.fs.pipe_file(str(path), buffer.getvalue())
        self.fs.invalidate_cache(str(path.parent))

    def delete(self, path: PurePath) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm_file(str(path))
        self.fs.invalidate_cache(str(path.parent))

    def make_dirs(self, folder: PurePath) -> None:
        self.fs.makedirs(str(folder), exist_ok=True)

    def write_folder(self, folder: PurePath, files: Mapping[str, bytes], last: str) -> None:
        for name in sorted(files, key=lambda name: name == last):
            self.fs.pipe_file(str(folder / name), files[name])
        self.fs.invalidate_cache(str(folder))

    def has_folder(self, folder: PurePath, last: str) -> bool:
        return self.is_file(folder / last)


LOCAL = LocalStore()
