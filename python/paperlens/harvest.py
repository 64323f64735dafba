"""Resumable bulk harvests of metadata search results to Parquet or JSONL.

>>> from paperlens.harvest import harvest
>>> harvest(client, query="protein folding", out="folding", format="parquet", progress=True)

Records are fetched page by page (cursor deep paging, paced to the client's quota) and
written in chunks: Parquet as numbered part files ``part-00000.parquet``... in the ``out``
directory, or JSONL appended to the ``out`` file. After each chunk is durably on disk
(fsync, then an atomic rename for Parquet), a checkpoint next to the output,
``<out>.checkpoint.json``, records where to continue. Run the same call again after an
interruption (Ctrl-C, a crash, an error of the service) and it resumes from the checkpoint:
a chunk written without its checkpoint is discarded and fetched again, so nothing is lost
or written twice. A finished harvest run again returns at once.

Beside the output, ``<out>.manifest.json`` records the call for a methods section: its
parameters, start and end times, the SDK version, the base URL (never the token), the
search's ``total_count``, the request id of every page written and the counts (see
:mod:`paperlens._manifest`). It sits beside the output rather than in it, so that a Parquet
directory holds only part files (``pandas.read_parquet(out)`` reads it whole). Running again
into the same output with other parameters raises :class:`HarvestError`.

Full-text corpora (records, one Markdown file per document and its figures) are harvested by
:func:`harvest_corpus` (:mod:`paperlens.corpus`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from paperlens._manifest import ManifestError, ManifestRecorder
from paperlens._output_guard import guarded
from paperlens._progress import Progress
from paperlens._records import RecordSchema, metadata_schema, read_table_records
from paperlens.errors import PaperlensError
from paperlens.filters import FilterSpec, SortSpec, filters_to_wire, sort_to_wire

if TYPE_CHECKING:
    from paperlens.client import Client
    from paperlens.corpus import harvest_corpus as harvest_corpus

__all__ = [
    "HarvestError",
    "HarvestResult",
    "HarvestWriteError",
    "OutputInUseError",
    "harvest",
    "harvest_corpus",
    "manifest_path",
    "read_records",
]

Format = Literal["parquet", "jsonl"]
# The checkpoint format of each output format; Parquet 3: one schema per harvest (the parts of a
# version 2 harvest took their columns from their own records and cannot be continued alike).
_VERSIONS = {"jsonl": 2, "parquet": 3}
_MAX_PAGE_SIZE = 200


class HarvestError(PaperlensError):
    """The output or checkpoint does not belong to this harvest, or cannot be used."""


class OutputInUseError(HarvestError):
    """Another run (a process holding ``<out>.lock``) is writing the same output.

    Attributes:
        out: the output.
        pid: the process id of the run holding it, when known.
        host: the host name of the run holding it, when known.
    """

    def __init__(self, message: str, *, out: Path, pid: int | None, host: str | None) -> None:
        super().__init__(message)
        self.out, self.pid, self.host = out, pid, host


class HarvestWriteError(HarvestError, OSError):
    """The output could not be written or read (a full disk, a read-only folder, no
    permission): everything committed before is kept, and the same call run again resumes.

    Attributes:
        errno: the operating system's error number (``errno.ENOSPC``...).
        out: the output the call was given (the path named in the message).
    """

    def __init__(self, message: str, *, errno: int | None, out: Path) -> None:
        super().__init__(message)
        self.errno, self.out = errno, out
        self.filename = str(out)

    def __str__(self) -> str:
        return str(self.args[0])


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


def manifest_path(out: str | os.PathLike[str]) -> Path:
    """Where the manifest of :func:`harvest` into ``out`` lives: ``<out>.manifest.json``
    (:func:`harvest_corpus` writes ``manifest.json`` inside its output directory)."""
    out = Path(out)
    return out.with_name(out.name + ".manifest.json")


def recorder(
    directory: Path, call: str, parameters: dict[str, Any], client: Any, name: str = "manifest.json"
) -> ManifestRecorder:
    """The manifest of a harvest; one of another call or other parameters is a :class:`HarvestError`."""
    try:
        return ManifestRecorder(directory, call, parameters, client, name=name)
    except ManifestError as error:
        raise HarvestError(str(error)) from error


@guarded("out")
def harvest(
    client: Client,
    query: str | None = None,
    *,
    out: str | os.PathLike[str],
    format: Format = "parquet",
    filters: FilterSpec | list[FilterSpec] | None = None,
    sort: SortSpec | list[SortSpec] | None = None,
    fields: list[str] | None = None,
    collection: str | None = None,
    chunk_size: int = 1000,
    page_size: int = _MAX_PAGE_SIZE,
    limit: int | None = None,
    progress: bool = False,
    on_chunk: Callable[[HarvestResult], None] | None = None,
) -> HarvestResult:
    """Writes every record of a metadata search to ``out``, resumably.

    Args:
        client: a :class:`paperlens.Client`; its pacing (30 requests/minute to
            ``/meta-search`` by default) keeps the harvest within the quota.
        query, filters, sort, fields, collection: as for ``client.meta_search``.
        out: a directory (``format="parquet"``) or a file (``format="jsonl"``).
        format: ``"parquet"`` (needs pyarrow) or ``"jsonl"``.
        chunk_size: records per chunk (rounded up to whole pages); one checkpoint per chunk.
        page_size: records per request (1-200; the most saves quota).
        limit: stop after this many records in all.
        progress: a tqdm bar of records, showing pacing and retry waits.
        on_chunk: called after each chunk and its checkpoint are on disk.

    Returns a :class:`HarvestResult`. Raises what the client raises (the checkpoint then
    holds every chunk written so far: call again to resume), :class:`HarvestError`
    when ``out`` holds something else than this harvest (or its manifest,
    ``<out>.manifest.json``, records other parameters), :class:`OutputInUseError` when
    another run is writing ``out`` (one writer per output: the lock file ``<out>.lock``),
    and :class:`HarvestWriteError` (an ``OSError``) when the disk is full or ``out`` cannot
    be written: a JSONL file is cut back to its last checkpoint, so it stays readable.
    """
    if format not in ("parquet", "jsonl"):
        raise ValueError(f"format must be 'parquet' or 'jsonl', got {format!r}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    search: dict[str, Any] = {
        "query": query,
        "collection": collection,
        "filters": filters_to_wire(filters),
        "sort": sort_to_wire(sort),
        "fields": fields,
        "page_size": page_size,
    }
    writer: Writer = (
        ParquetParts(Path(out), metadata_schema(fields, collection)) if format == "parquet" else JsonlWriter(Path(out))
    )
    ckpt_path = checkpoint_path(out)
    fingerprint = _fingerprint(search, format, limit)
    where = manifest_path(out)
    manifest = recorder(where.parent, "harvest", {**search, "format": format, "limit": limit}, client, where.name)
    state = load_checkpoint(ckpt_path, fingerprint, writer.out, writer.exists(), _VERSIONS[format])
    resumed = state is not None
    if state is None:
        writer.start()
        state = {
            "version": _VERSIONS[format],
            "fingerprint": fingerprint,
            "next": {"cursor": None},
            "records": 0,
            "chunks": 0,
        }
        state.update(writer.position())
        write_json_atomically(ckpt_path, state)
    else:
        writer.rewind(state)

    def result() -> HarvestResult:
        return HarvestResult(
            out=Path(out),
            checkpoint=ckpt_path,
            format=format,
            records=state["records"],
            chunks=state["chunks"],
            done=state["next"] is None,
            resumed=resumed,
            manifest=where,
        )

    def save_manifest() -> None:
        manifest.count("records", state["records"])
        manifest.count("chunks", state["chunks"])
        manifest.save(finished=state["next"] is None)

    if state["next"] is None:
        if not where.exists():
            save_manifest()
        return result()
    bar = Progress(total=limit, unit="records", listen=client._listen, initial=state["records"]) if progress else None
    try:
        buffer: list[dict[str, Any]] = []
        pager = client.iter_meta_search(**search, cursor=state["next"]["cursor"])
        for page in pager.pages():
            after = None if pager.next_cursor is None else {"cursor": pager.next_cursor}
            manifest.total(page.total_count)
            manifest.request(page.request_id)
            records = [r.to_dict() for r in page.results]
            if limit is not None:
                records = records[: max(0, limit - state["records"] - len(buffer))]
                if state["records"] + len(buffer) + len(records) >= limit:
                    after = None
            if bar is not None:
                total = page.total_count if limit is None else min(limit, page.total_count or limit)
                bar.set_total(total)
                bar.update(len(records))
            buffer.extend(records)
            if len(buffer) >= chunk_size or after is None:
                if buffer:
                    writer.write_chunk(state["chunks"], buffer)
                    state["chunks"] += 1
                    state["records"] += len(buffer)
                    buffer = []
                state["next"] = after
                state.update(writer.position())
                write_json_atomically(ckpt_path, state)
                save_manifest()
                if on_chunk is not None:
                    on_chunk(result())
            if after is None:
                break
    except BaseException:
        writer.discard_uncommitted(ckpt_path)
        raise
    finally:
        if bar is not None:
            bar.close()
    return result()


def _fingerprint(search: dict[str, Any], format: str, limit: int | None) -> str:
    blob = json.dumps({"params": search, "format": format, "limit": limit}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


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
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
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
        data = b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in records)
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
        fd, temp = tempfile.mkstemp(prefix=".part-", suffix=".tmp", dir=self.out)
        try:
            with os.fdopen(fd, "wb") as file:
                pq.write_table(table, file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.out / self.part(index))
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        sync_dir(self.out)


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


def read_records(out: str | os.PathLike[str], format: Format | None = None) -> list[dict[str, Any]]:
    """The records a harvest wrote to ``out``, in order (Parquet parts or JSONL lines).

    Only what a checkpoint counts is read, so a harvest interrupted mid-chunk reads exactly
    what it will keep. Each record equals the ``to_dict()`` of the record that arrived, except
    that a property the service sent as null reads as absent from Parquet; the columns
    :func:`harvest_corpus` adds are left out (``out / "records"`` reads its records)."""
    out = Path(out)
    fmt = format or ("parquet" if out.is_dir() else "jsonl")
    state: dict[str, Any] = {}
    ckpt = checkpoint_path(out)
    if ckpt.exists():
        state = json.loads(ckpt.read_text(encoding="utf-8"))
    if fmt == "jsonl":
        data = out.read_bytes()
        if "bytes" in state:
            data = data[: int(state["bytes"])]
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    _pa, pq = pyarrow_modules()
    parts = sorted((p for p in out.glob("part-*.parquet") if part_index(p.name) >= 0), key=lambda p: p.name)
    if "chunks" in state:
        parts = [p for p in parts if part_index(p.name) < int(state["chunks"])]
    records: list[dict[str, Any]] = []
    for part in parts:
        records.extend(read_table_records(pq.read_table(part)))
    return records


def __getattr__(name: str) -> Any:
    # harvest_corpus lives in paperlens.corpus, which imports this module's helpers: it is
    # re-exported on first use, so either module may be imported first.
    if name == "harvest_corpus":
        from paperlens.corpus import harvest_corpus

        return harvest_corpus
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
