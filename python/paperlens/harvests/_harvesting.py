"""What both harvests, :func:`~paperlens.harvest.harvest` and
:func:`~paperlens.harvest.harvest_corpus`, are made of: their result, the checkpoint, atomic
writes and the writers of JSONL and Parquet parts. ``paperlens.harvest`` and
``paperlens.corpus`` both import it; neither imports the other's helpers."""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from paperlens.storage._manifest import ManifestError, ManifestRecorder, now
from paperlens.storage._output_guard import HarvestError
from paperlens.storage._records import to_json
from paperlens.storage._store import LOCAL, Store, replace_atomically
from paperlens.storage._stored import checkpoint_beside, part_index, pyarrow_modules, record_key, stored_records

__all__ = [  # the helpers of paperlens.storage._stored are used through this module too
    "ChangedParametersError",
    "HarvestResult",
    "JsonlWriter",
    "ParquetParts",
    "Writer",
    "added_ids",
    "begin_update",
    "checkpoint_beside",
    "encode_chunk",
    "load_checkpoint",
    "new_run",
    "part_index",
    "pyarrow_modules",
    "record_key",
    "recorder",
    "sync_entries",
    "unheld",
    "write_atomically",
    "write_json_atomically",
]

if TYPE_CHECKING:
    from paperlens.storage._records import RecordSchema


@dataclass(frozen=True)
class SkippedFigure:
    """A figure a text links to that :func:`harvest_corpus` cannot write into the document's
    folder (so never fetches): the harvest goes on without it."""

    doc_id: str
    name: str
    """The name the text links to, as written there."""
    why: str
    """Why it cannot be written: ``holds a NUL byte``, ``would leave the document's folder``,
    ``clashes with the file figures/a``..."""


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
    skipped_figures: tuple[SkippedFigure, ...] = ()
    """:func:`harvest_corpus` with ``figures=True``: the figures that cannot be written (also
    in the manifest's ``skipped_figures`` and the records' ``missing_figures``), in order."""
    url: str | None = None
    """The ``out`` given when it was an fsspec URL (``s3://bucket/prefix``); ``out``,
    ``checkpoint`` and ``manifest`` are then the paths in that store (``bucket/prefix``)."""
    added: int = 0
    """Records the latest run entry wrote: the harvest's, or an update's new records (that of
    this call, or of the one it resumed or found finished)."""
    new_ids: tuple[str, ...] = ()
    """An update (``update=True``): the ``unique_id`` of each record it added, in order (a
    record without one by its ``doc_id``). Empty for the harvest itself, whose records are
    all new: :func:`~paperlens.harvest.read_records` gives them."""


def recorder(
    directory: PurePath,
    call: str,
    parameters: dict[str, Any],
    client: Any,
    name: str = "manifest.json",
    store: Store = LOCAL,
) -> ManifestRecorder:
    """The manifest of a harvest; one of another call or other parameters is a :class:`HarvestError`."""
    try:
        return ManifestRecorder(directory, call, parameters, client, name=name, store=store)
    except ManifestError as error:
        if error.changed:
            raise ChangedParametersError(str(error), changed=error.changed) from error
        raise HarvestError(str(error)) from error


class ChangedParametersError(HarvestError, ValueError):
    """The call's parameters differ from those its output's manifest records (an update must
    repeat the original call): raised before any request, naming each difference.

    Attributes:
        changed: the names of the parameters that differ."""

    def __init__(self, message: str, *, changed: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.changed = changed


def unheld(records: list[dict[str, Any]], held: set[str]) -> list[dict[str, Any]]:
    """The records whose :func:`record_key` is not in ``held``, each added to it (a record met
    twice in one search is taken once)."""
    fresh = []
    for record in records:
        key = record_key(record)
        if key not in held:
            held.add(key)
            fresh.append(record)
    return fresh


def shown_id(record: dict[str, Any]) -> str:
    """The id :attr:`HarvestResult.new_ids` gives a record: its ``unique_id`` (or ``doc_id``)."""
    for name in ("unique_id", "doc_id"):
        value = record.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def new_run(kind: str, state: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's record of a run entry that starts now (``kind``: ``"harvest"`` or
    ``"update"``) on an output in ``state``; its ``read`` counts the search's records read."""
    run = state.get("run")
    index = 0 if run is None else int(run["index"]) + 1
    return {
        "index": index,
        "kind": kind,
        "chunks_from": int(state.get("chunks", 0)),
        "bytes_from": int(state.get("bytes", 0)),
        "records_from": int(state.get("records", 0)),
        "read": 0,
    }


def begin_update(state: dict[str, Any]) -> None:
    """Starts the run entry of an update on the finished output whose checkpoint is ``state``."""
    state["run"] = new_run("update", state)


def added_ids(store: Store, records: PurePath, format: str, state: dict[str, Any]) -> tuple[str, ...]:
    """The ids (:func:`shown_id`) of the records in ``records`` that the checkpoint's current
    run added, when it is an update (a harvest's are none)."""
    run = state["run"]
    if run["kind"] != "update":
        return ()
    unit = "bytes" if "bytes" in state else "chunks"  # JSONL counts bytes, Parquet parts
    span = (run[f"{unit}_from"], int(state[unit]))
    return tuple(map(shown_id, stored_records(store, records, format, span)))


def _first_run(state: dict[str, Any]) -> dict[str, Any]:
    """The run entry of a harvest whose checkpoint predates run entries: the harvest itself
    (:func:`load_checkpoint` gives such a checkpoint this one)."""
    return {
        "index": 0,
        "kind": "harvest",
        "chunks_from": 0,
        "bytes_from": 0,
        "records_from": 0,
        "read": int(state.get("records", 0)),
    }


def sync_entries(manifest: ManifestRecorder, state: dict[str, Any], finished: bool) -> None:
    """Brings the manifest's ``run_entries`` in line with the checkpoint's current run (a
    manifest a ``kill -9`` left behind lags it; the times are the manifest's alone: a
    checkpoint holds none, so that a resumed run writes the same bytes as one never stopped)."""
    run = state["run"]
    entries: list[dict[str, Any]] = manifest.manifest.setdefault("run_entries", [])
    if not entries and run["index"] > 0:
        # An output of a paperlens before run entries: its harvest is the first.
        first = _entry(_first_run(state), state)
        first.update(
            started=manifest.manifest["started"],
            finished=manifest.manifest.get("finished"),
            chunks=[0, run["chunks_from"]],
            added=run["records_from"],
            requests=manifest.manifest.get("requests", 0),
        )
        if "bytes" in first:
            first["bytes"] = [0, run["bytes_from"]]
        entries.append(first)
    while len(entries) <= run["index"]:
        entries.append({"started": manifest.manifest["started"] if run["index"] == 0 else now(), "requests": 0})
    entry = entries[run["index"]]
    times = {"started": entry["started"], "finished": entry.get("finished") or (now() if finished else None)}
    requests = entry.get("requests", 0)
    entry.update(_entry(run, state), **times, requests=requests)


def _entry(run: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kind": run["kind"],
        "started": None,
        "finished": None,
        "added": int(state.get("records", 0)) - run["records_from"],
        "requests": 0,
        "chunks": [run["chunks_from"], int(state.get("chunks", 0))],
    }
    if "bytes" in state:
        entry["bytes"] = [run["bytes_from"], int(state["bytes"])]
    return entry


def load_checkpoint(
    path: PurePath, fingerprint: str, out: PurePath, exists: bool, version: int, store: Store = LOCAL
) -> dict[str, Any] | None:
    """The state a checkpoint holds, None when there is none yet (``exists``: whether ``out``
    holds something, which then cannot be resumed); a :class:`HarvestError` when it belongs
    to another harvest or cannot be read. A checkpoint that predates run entries gets its
    harvest's as the current one."""
    shown, at = store.name(out), store.name(path)
    try:
        raw = store.read(path).decode("utf-8")
    except FileNotFoundError:
        if exists:
            raise HarvestError(
                f"{shown} exists but has no checkpoint ({path.name}): it is not a resumable harvest; "
                f"choose another output or remove it"
            ) from None
        return None
    try:
        state: dict[str, Any] = json.loads(raw)
        if not isinstance(state, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        raise HarvestError(f"the checkpoint {at} is unreadable ({e}); remove it and the output to start over") from e
    if state.get("version") != version:
        raise HarvestError(
            f"{at} was written by another version of paperlens (checkpoint version {state.get('version')!r}, "
            f"this one continues version {version}); finish the harvest with that version, or remove {shown} "
            f"and the checkpoint to start over"
        )
    if state.get("fingerprint") != fingerprint:
        raise HarvestError(
            f"{at} belongs to a harvest with other parameters; "
            f"use another output, or remove {shown} and the checkpoint to start over"
        )
    if not state.get("run"):
        state["run"] = _first_run(state)
    return state


def write_json_atomically(path: PurePath, value: Any, store: Store = LOCAL) -> None:
    data = json.dumps(value, indent=1, default=str).encode()
    store.write(path, lambda file: file.write(data), prefix=f".{path.name}.")


def write_atomically(path: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``path``, syncs it, and renames it into place."""
    replace_atomically(path, lambda file: file.write(data), prefix=f".{path.name}.")


def encode_chunk(
    schema: RecordSchema | None, records: list[dict[str, Any]], added: list[dict[str, Any]] | None = None
) -> bytes:
    """The bytes of a chunk: a Parquet file of ``schema`` (with the paperlens columns
    ``added``), or JSONL lines when ``schema`` is None. A plain function of picklable
    arguments, so that a worker process can run it."""
    if schema is None:
        return b"".join(to_json(r).encode() + b"\n" for r in records)
    _pa, pq = pyarrow_modules()
    buffer = io.BytesIO()
    pq.write_table(schema.table(records, added), buffer)
    return buffer.getvalue()


class Writer:
    out: PurePath
    #: How chunks are encoded (:func:`encode_chunk`): None for JSONL.
    schema: RecordSchema | None = None

    def exists(self) -> bool:
        raise NotImplementedError

    def start(self) -> None:
        raise NotImplementedError

    def position(self) -> dict[str, Any]:
        """What the checkpoint records about the output besides the counts."""
        return {}

    def rewind(self, state: dict[str, Any]) -> None:
        """Drops whatever was written after the checkpoint."""
        raise NotImplementedError

    def write_encoded(self, index: int, data: bytes) -> None:
        """Writes chunk ``index``, encoded by :func:`encode_chunk`."""
        raise NotImplementedError

    def discard_uncommitted(self, checkpoint: Path) -> None:
        """After a failure: drops what was written after the checkpoint on disk, where a
        reader would see it (parts are not: a reader counts only checkpointed ones)."""


class JsonlWriter(Writer):
    out: Path

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

    def write_encoded(self, index: int, data: bytes) -> None:
        with open(self.out, "ab") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        self.size += len(data)


class ParquetParts(Writer):
    """Numbered Parquet part files, each with the columns of ``schema`` (see :mod:`paperlens.storage._records`),
    in a folder of ``store``."""

    def __init__(self, out: PurePath, schema: RecordSchema, store: Store = LOCAL) -> None:
        self.out = out
        self.schema: RecordSchema = schema
        self.store = store

    @staticmethod
    def part(index: int) -> str:
        return f"part-{index:05d}.parquet"

    def exists(self) -> bool:
        if self.store.is_file(self.out):
            raise HarvestError(
                f"{self.store.name(self.out)} is a file; format='parquet' writes part files into a directory"
            )
        return bool(self.store.names(self.out))

    def start(self) -> None:
        pyarrow_modules()
        self.exists()
        self.store.make_dirs(self.out)

    def rewind(self, state: dict[str, Any]) -> None:
        pyarrow_modules()
        self.store.make_dirs(self.out)
        chunks = int(state["chunks"])
        names = set(self.store.names(self.out))
        for index in range(chunks):
            if self.part(index) not in names:
                missing = self.store.name(self.out / self.part(index))
                raise HarvestError(f"{missing} is missing but its checkpoint counts it")
        # Parts written after the last checkpoint (and temporary files) were never counted.
        for name in names:
            stray = name.startswith(".part-") or (
                name.startswith("part-") and name.endswith(".parquet") and part_index(name) >= chunks
            )
            if stray:
                self.store.delete(self.out / name)

    def write_encoded(self, index: int, data: bytes) -> None:
        self.store.write(self.out / self.part(index), lambda file: file.write(data), prefix=".part-")

    def write_chunk(self, index: int, records: list[dict[str, Any]], added: list[dict[str, Any]] | None = None) -> None:
        self.write_encoded(index, encode_chunk(self.schema, records, added))
