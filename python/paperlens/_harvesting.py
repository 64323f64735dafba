"""What both harvests, :func:`~paperlens.harvest.harvest` and
:func:`~paperlens.harvest.harvest_corpus`, are made of: their result, the checkpoint, atomic
writes and the writers of JSONL and Parquet parts. ``paperlens.harvest`` and
``paperlens.corpus`` both import it; neither imports the other's helpers."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from paperlens._manifest import ManifestError, ManifestRecorder
from paperlens._output_guard import HarvestError
from paperlens._records import to_json

if TYPE_CHECKING:
    from paperlens._records import RecordSchema


@dataclass(frozen=True)
class HarvestResult:
    """What a :func:`harvest` or :func:`harvest_corpus` call left on disk."""

    out: Path
    checkpoint: Path
    format: str
    records: int
    """Records written in all runs of this harvest."""
    chunks: int
    done: bool
    """True when the search is exhausted or ``limit`` is reached (a call that cannot finish raises)."""
    resumed: bool
    """True when this call continued an earlier, interrupted run."""
    manifest: Path | None = None
    """The ``manifest.json`` of the output."""
    texts: int = 0
    """:func:`harvest_corpus`: documents written (one Markdown file each)."""
    figures: int = 0
    """:func:`harvest_corpus`: figure files written."""
    missing_texts: int = 0
    """:func:`harvest_corpus`: records written without a text (no usable ``doc_id``, or 403/404)."""
    not_found: tuple[str, ...] = ()
    """:func:`harvest_corpus` of ``ids``: the ids no record matched, in input order."""


def checkpoint_path(out: str | os.PathLike[str]) -> Path:
    """Where the checkpoint of a harvest into ``out`` lives: ``<out>.checkpoint.json``."""
    out = Path(out)
    return out.with_name(out.name + ".checkpoint.json")


def recorder(
    directory: Path, call: str, parameters: dict[str, Any], client: Any, name: str = "manifest.json"
) -> ManifestRecorder:
    """The manifest of a harvest; one of another call or other parameters is a :class:`HarvestError`."""
    try:
        return ManifestRecorder(directory, call, parameters, client, name=name)
    except ManifestError as error:
        raise HarvestError(str(error)) from error


def load_checkpoint(path: Path, fingerprint: str, out: Path, exists: bool, version: int) -> dict[str, Any] | None:
    """The state a checkpoint holds, None when there is none yet (``exists``: whether ``out``
    holds something, which then cannot be resumed); a :class:`HarvestError` when it belongs
    to another harvest or cannot be read."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if exists:
            raise HarvestError(
                f"{out} exists but has no checkpoint ({path.name}): it is not a resumable harvest; "
                f"choose another output or remove it"
            ) from None
        return None
    try:
        state: dict[str, Any] = json.loads(raw)
        if not isinstance(state, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        raise HarvestError(f"the checkpoint {path} is unreadable ({e}); remove it and the output to start over") from e
    if state.get("version") != version:
        raise HarvestError(
            f"{path} was written by another version of paperlens (checkpoint version {state.get('version')!r}, "
            f"this one continues version {version}); finish the harvest with that version, or remove {out} "
            f"and the checkpoint to start over"
        )
    if state.get("fingerprint") != fingerprint:
        raise HarvestError(
            f"{path} belongs to a harvest with other parameters; "
            f"use another output, or remove {out} and the checkpoint to start over"
        )
    return state


def write_json_atomically(path: Path, value: Any) -> None:
    write_atomically(path, json.dumps(value, indent=1, default=str).encode())


def write_atomically(path: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``path``, syncs it, and renames it into place."""
    replace_atomically(path, lambda file: file.write(data), prefix=f".{path.name}.")


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


class Writer:
    out: Path

    def exists(self) -> bool:
        return self.out.exists()

    def start(self) -> None:
        raise NotImplementedError

    def position(self) -> dict[str, Any]:
        """What the checkpoint records about the output besides the counts."""
        return {}

    def rewind(self, state: dict[str, Any]) -> None:
        """Drops whatever was written after the checkpoint."""
        raise NotImplementedError

    def write_chunk(self, index: int, records: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def discard_uncommitted(self, checkpoint: Path) -> None:
        """After a failure: drops what was written after the checkpoint on disk, where a
        reader would see it (parts are not: a reader counts only checkpointed ones)."""


class JsonlWriter(Writer):
    def __init__(self, out: Path) -> None:
        self.out = out
        self.size = 0

    def exists(self) -> bool:
        # Empty: a first run failed before its first checkpoint; it starts over.
        return self.out.exists() and (not self.out.is_file() or self.out.stat().st_size > 0)

    def start(self) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.out.touch()
        self.size = 0

    def discard_uncommitted(self, checkpoint: Path) -> None:
        try:
            committed = int(json.loads(checkpoint.read_text(encoding="utf-8"))["bytes"])
        except FileNotFoundError:
            committed = 0
        except (OSError, ValueError, KeyError, TypeError):
            return
        with contextlib.suppress(OSError), open(self.out, "r+b") as file:
            if os.fstat(file.fileno()).st_size > committed:
                file.truncate(committed)
                os.fsync(file.fileno())

    def position(self) -> dict[str, Any]:
        return {"bytes": self.size}

    def rewind(self, state: dict[str, Any]) -> None:
        self.size = int(state["bytes"])
        if not self.out.exists():
            if self.size:
                raise HarvestError(f"{self.out} is gone but its checkpoint says {self.size} bytes were written")
            self.start()
            return
        if self.out.stat().st_size < self.size:
            raise HarvestError(f"{self.out} is shorter than its checkpoint says ({self.size} bytes)")
        with open(self.out, "r+b") as file:
            file.truncate(self.size)

    def write_chunk(self, index: int, records: list[dict[str, Any]]) -> None:
        data = b"".join(to_json(r).encode() + b"\n" for r in records)
        with open(self.out, "ab") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        self.size += len(data)


class ParquetParts(Writer):
    """Numbered Parquet part files, each with the columns of ``schema`` (see :mod:`paperlens._records`)."""

    def __init__(self, out: Path, schema: RecordSchema) -> None:
        self.out = out
        self.schema = schema

    @staticmethod
    def part(index: int) -> str:
        return f"part-{index:05d}.parquet"

    def exists(self) -> bool:
        if self.out.exists() and not self.out.is_dir():
            raise HarvestError(f"{self.out} is a file; format='parquet' writes part files into a directory")
        return self.out.exists() and any(self.out.iterdir())

    def start(self) -> None:
        pyarrow_modules()
        if self.out.exists() and not self.out.is_dir():
            raise HarvestError(f"{self.out} is a file; format='parquet' writes part files into a directory")
        self.out.mkdir(parents=True, exist_ok=True)

    def rewind(self, state: dict[str, Any]) -> None:
        pyarrow_modules()
        self.out.mkdir(parents=True, exist_ok=True)
        chunks = int(state["chunks"])
        for index in range(chunks):
            if not (self.out / self.part(index)).exists():
                raise HarvestError(f"{self.out / self.part(index)} is missing but its checkpoint counts it")
        # Parts written after the last checkpoint (and temporary files) were never counted.
        for path in self.out.iterdir():
            stray = path.name.startswith(".part-") or (
                path.name.startswith("part-") and path.suffix == ".parquet" and part_index(path.name) >= chunks
            )
            if stray:
                path.unlink()

    def write_chunk(self, index: int, records: list[dict[str, Any]], added: list[dict[str, Any]] | None = None) -> None:
        _pa, pq = pyarrow_modules()
        table = self.schema.table(records, added)
        replace_atomically(self.out / self.part(index), lambda file: pq.write_table(table, file), prefix=".part-")


def part_index(name: str) -> int:
    try:
        return int(name.removeprefix("part-").removesuffix(".parquet"))
    except ValueError:
        return -1


def pyarrow_modules() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        hint = 'pip install "paperlens[pandas]" (or use format="jsonl")'
        raise ImportError(f'format="parquet" needs pyarrow: {hint}') from e
    return pa, pq
