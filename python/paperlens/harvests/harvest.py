"""The code of :mod:`paperlens.harvest`, the public module that re-exports it and documents it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from paperlens.base import _checks as checks
from paperlens.base._progress import Progress
from paperlens.base.filters import FilterSpec, SortSpec, filters_to_wire, sort_to_wire
from paperlens.clients.client import check_as_sent
from paperlens.harvests._executor import Executor, Future, check_executor, submitted
from paperlens.harvests._harvesting import (
    ChangedParametersError,
    HarvestResult,
    JsonlWriter,
    ParquetParts,
    SkippedFigure,
    Writer,
    added_ids,
    begin_update,
    checkpoint_beside,
    encode_chunk,
    load_checkpoint,
    new_run,
    recorder,
    sync_entries,
    unheld,
    write_json_atomically,
)
from paperlens.harvests.corpus import harvest_corpus
from paperlens.storage._manifest import MANIFEST_NAME, ManifestError, output_manifest
from paperlens.storage._output_guard import HarvestError, HarvestWriteError, OutputInUseError, guarded
from paperlens.storage._records import metadata_schema
from paperlens.storage._store import location
from paperlens.storage._stored import held_keys, own_schema, stored_records

if TYPE_CHECKING:
    from paperlens.clients.client import Client

__all__ = [
    "ChangedParametersError",
    "HarvestError",
    "HarvestResult",
    "HarvestWriteError",
    "OutputInUseError",
    "SkippedFigure",
    "harvest",
    "harvest_corpus",
    "manifest_path",
    "read_manifest",
    "read_records",
]

Format = Literal["parquet", "jsonl"]
# The checkpoint format of each output format; Parquet 3: one schema per harvest (the parts of a
# version 2 harvest took their columns from their own records and cannot be continued alike).
_VERSIONS = {"jsonl": 2, "parquet": 3}
_MAX_PAGE_SIZE = 200


def manifest_path(out: str | os.PathLike[str]) -> Path:
    """Where the manifest of :func:`harvest` into ``out`` lives: ``<out>.manifest.json``
    (:func:`harvest_corpus` writes ``manifest.json`` inside its output directory)."""
    out = Path(out)
    return out.with_name(out.name + ".manifest.json")


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
    executor: Executor | None = None,
    update: bool = False,
) -> HarvestResult:
    """Writes every record of a metadata search to ``out``, resumably.

    Args:
        client: a :class:`paperlens.Client`; its pacing (30 requests/minute to
            ``/meta-search`` by default) keeps the harvest within the quota.
        query, filters, sort, fields, collection: as for ``client.meta_search``.
        out: a directory (``format="parquet"``) or a file (``format="jsonl"``); Parquet may go
            to an fsspec URL (``s3://bucket/prefix``, needs ``pip install "paperlens[s3]"``):
            each part is written whole, the checkpoint and manifest after it.
        format: ``"parquet"`` (needs pyarrow) or ``"jsonl"``.
        chunk_size: records per chunk (rounded up to whole pages); one checkpoint per chunk.
        page_size: records per request (1-200; the most saves quota).
        limit: stop after this many records of the search.
        progress: a tqdm bar of records, showing pacing and retry waits.
        on_chunk: called after each chunk and its checkpoint are on disk.
        executor: encodes each chunk (a ``concurrent.futures`` executor, a
            ``dask.distributed.Client``) while this process fetches the next pages; pages
            follow one cursor, so the requests stay in this process, paced to the quota.
            The output equals a run without executor.
        update: on a finished output, search again and add only the records it does not
            hold (by ``unique_id``), as new parts of its schema (a living review; see
            :mod:`paperlens.harvest`). The other arguments must be those of the original
            call. An output not yet there is harvested; an unfinished one is resumed.

    Returns a :class:`HarvestResult` (``added`` and ``new_ids``: what the latest run entry
    added). Raises what the client raises (the checkpoint then holds every chunk written so
    far: call again to resume), :class:`~paperlens.ValidationError` (a ``ValueError``) for an
    ``out`` that is no path, :class:`ChangedParametersError` (a ``ValueError`` too) when
    the manifest, ``<out>.manifest.json``, records other parameters (before any request),
    :class:`HarvestError` when ``out`` holds something else than this harvest,
    :class:`OutputInUseError` when another run is writing ``out`` (one writer per output: the
    lock file ``<out>.lock``), and :class:`HarvestWriteError` (an ``OSError``) when the disk
    is full or ``out`` cannot be written: a JSONL file is cut back to its last checkpoint, so
    it stays readable.
    """
    checks.choice("format", format, ("parquet", "jsonl"))
    checks.count("chunk_size", chunk_size, 1)
    checks.count("limit", limit, 0, optional=True)
    checks.flag("progress", progress)
    checks.flag("update", update)
    if executor is not None:
        check_executor(executor)
    search: dict[str, Any] = {
        "query": query,
        "collection": collection,
        "filters": filters_to_wire(filters),
        "sort": sort_to_wire(sort),
        "fields": fields,
        "page_size": page_size,
    }
    # As the first page would be refused, before the output, its checkpoint or its manifest
    # is written: found later, it would leave them, and the corrected call would be a changed one.
    check_as_sent(client, "meta_search", search)
    store, path = location(out)
    if format == "jsonl" and not store.local:
        raise checks.invalid("out", 'an fsspec URL takes format="parquet" (an object cannot be appended to)', str(out))
    writer: Writer = JsonlWriter(Path(path))
    if format == "parquet":
        from paperlens.results._types_open_platform import MetadataRecord

        writer = ParquetParts(path, metadata_schema(MetadataRecord, fields, collection), store)
    ckpt_path = checkpoint_beside(path)
    fingerprint = _fingerprint(search, format, limit)
    where = path.with_name(path.name + ".manifest.json")
    parameters = {**search, "format": format, "limit": limit}
    manifest = recorder(where.parent, "harvest", parameters, client, where.name, store)
    state = load_checkpoint(ckpt_path, fingerprint, writer.out, writer.exists(), _VERSIONS[format], store)
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
        state["run"] = new_run("harvest", state)
        write_json_atomically(ckpt_path, state, store)
    else:
        writer.rewind(state)
        if isinstance(writer, ParquetParts):
            writer.schema = own_schema(store, path, state) or writer.schema
        if "request_log" in state:
            manifest.log.rewind(int(state["request_log"]))
        if update and state["next"] is None:
            begin_update(state)
            state["next"] = {"cursor": None}
            write_json_atomically(ckpt_path, state, store)
            resumed = False
    run = state["run"]

    def result() -> HarvestResult:
        finished = state["next"] is None
        return HarvestResult(
            out=Path(path),
            checkpoint=Path(ckpt_path),
            format=format,
            records=state["records"],
            chunks=state["chunks"],
            done=finished,
            resumed=resumed,
            manifest=Path(where),
            url=None if store.local else str(out),
            added=state["records"] - run["records_from"],
            new_ids=added_ids(store, path, format, state) if finished else (),
        )

    def save_manifest(*, boundary: bool) -> None:
        finished = state["next"] is None
        manifest.count("records", state["records"])
        manifest.count("chunks", state["chunks"])
        sync_entries(manifest, state, finished)
        if finished:
            manifest.recount()
        if boundary or finished:
            manifest.save(finished=finished)
        else:
            manifest.save_if_due()

    if state["next"] is None:
        if not store.exists(where):
            save_manifest(boundary=True)
        return result()
    held = held_keys(store, path, format, state) if run["kind"] == "update" else None
    save_manifest(boundary=True)  # this run counts in the manifest from its start
    bar = Progress(total=limit, unit="records", listen=client._listen, initial=run["read"]) if progress else None
    # Chunks encoded (on the executor) and not yet written: the future of their bytes, their
    # records, the cursor after them, the request ids of their pages and the records of the
    # search read up to them. With an executor one is encoded while the next pages arrive;
    # each is written, then checkpointed, in order.
    chunks: deque[tuple[Future | None, int, dict[str, Any] | None, list[str], int]] = deque()
    ahead = 0 if executor is None else 1

    def commit(
        future: Future | None, size: int, after: dict[str, Any] | None, request_ids: list[str], read: int
    ) -> None:
        if future is not None:
            writer.write_encoded(state["chunks"], future.result())
            state["chunks"] += 1
            state["records"] += size
        for request_id in request_ids:
            manifest.request(request_id)
        manifest.flush()
        state["request_log"] = manifest.log.position()
        state["next"] = after
        run["read"] = read
        state.update(writer.position())
        write_json_atomically(ckpt_path, state, store)
        save_manifest(boundary=False)
        if on_chunk is not None and (future is not None or after is None):
            on_chunk(result())

    try:
        buffer: list[dict[str, Any]] = []
        request_ids: list[str] = []
        taken = run["read"]  # records of the search read: written, in chunks in flight, in the buffer
        pager = client.iter_meta_search(**search, cursor=state["next"]["cursor"])
        for page in pager.pages():
            after = None if pager.next_cursor is None else {"cursor": pager.next_cursor}
            manifest.total(page.total_count)
            request_ids.append(page.request_id)
            records = [r.to_dict() for r in page.results]
            if limit is not None:
                records = records[: max(0, limit - taken)]
                if taken + len(records) >= limit:
                    after = None
            taken += len(records)
            if bar is not None:
                total = page.total_count if limit is None else min(limit, page.total_count or limit)
                bar.set_total(total)
                bar.update(len(records))
            if held is not None:
                records = unheld(records, held)
            buffer.extend(records)
            # An update checkpoints every page that leaves nothing pending: most pages add nothing.
            if len(buffer) >= chunk_size or after is None or (held is not None and not buffer):
                encoded = submitted(executor, encode_chunk, writer.schema, buffer) if buffer else None
                chunks.append((encoded, len(buffer), after, request_ids, taken))
                buffer, request_ids = [], []
                while len(chunks) > (0 if after is None else ahead):
                    commit(*chunks.popleft())
            if after is None:
                pager._raise_loop()  # a cursor loop ends the walk: said once every page is written
                break
    except BaseException:
        for future, *_ in chunks:
            if future is not None:
                future.cancel()
        writer.discard_uncommitted(Path(ckpt_path))
        with contextlib.suppress(Exception):  # the error that ended the run is the one to raise
            save_manifest(boundary=True)  # the counts of what is on disk
        raise
    finally:
        if bar is not None:
            bar.close()
    return result()


def _fingerprint(search: dict[str, Any], format: str, limit: int | None) -> str:
    blob = json.dumps({"params": search, "format": format, "limit": limit}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def read_records(
    out: str | os.PathLike[str], format: Format | None = None, run: int | None = None
) -> list[dict[str, Any]]:
    """The records a harvest wrote to ``out``, a local path or an fsspec URL (``s3://...``),
    in order (Parquet parts or JSONL lines); for a :func:`harvest_corpus` output, those of
    its ``records`` folder.

    Only what a checkpoint counts is read, so a harvest interrupted mid-chunk reads exactly
    what it will keep. Each record equals the ``to_dict()`` of the record that arrived, except
    that a property the service sent as null reads as absent from Parquet; the columns
    :func:`harvest_corpus` adds are left out.

    Args:
        out: the output.
        format: ``"parquet"`` or ``"jsonl"``; None: told by ``out`` (a file is JSONL).
        run: the records of one run entry of the manifest: ``0`` the harvest, ``1`` its
            first update..., ``-1`` the latest; None: all of them.

    Raises:
        FileNotFoundError: nothing is at ``out``.
        paperlens.ValidationError: ``run`` names no run entry of the output."""
    store, path = location(out)
    if not store.exists(path):
        raise FileNotFoundError(f"no harvest output at {store.name(path)}")
    fmt = format or ("jsonl" if store.is_file(path) else "parquet")
    try:
        state: dict[str, Any] = json.loads(store.read(checkpoint_beside(path)))
    except FileNotFoundError:
        state = {}
    records_path = path
    if fmt == "parquet" and store.is_file(path / MANIFEST_NAME) and store.exists(path / "records"):
        records_path = path / "records"  # a corpus: its records, counted by the corpus's checkpoint
    if fmt == "jsonl":
        span = (0, int(state["bytes"]) if "bytes" in state else None)
    else:
        span = (0, int(state["chunks"]) if "chunks" in state else None)
    if run is not None:
        span = _run_span(out, state, run)
    return list(stored_records(store, records_path, fmt, span))


def _run_span(out: str | os.PathLike[str], state: dict[str, Any], run: int) -> tuple[int, int | None]:
    """What run entry ``run`` of the output ``out`` wrote: its parts (Parquet) or bytes (JSONL)."""
    manifest = output_manifest(out, request_ids=False)
    entries = (manifest or {}).get("run_entries") or [{"chunks": [0, None], "bytes": [0, None]}]
    if isinstance(run, bool) or not isinstance(run, int) or not -len(entries) <= run < len(entries):
        shown = f"{len(entries)} run entr{'y' if len(entries) == 1 else 'ies'}"
        raise checks.invalid("run", f"must be an index of the output's run entries (it has {shown}) or None", run)
    index = run % len(entries)
    key = "bytes" if "bytes" in state else "chunks"
    start, end = entries[index].get(key, [0, None])
    if index == len(entries) - 1:  # the latest: up to the checkpoint, which a manifest may lag
        end = int(state[key]) if key in state else None
    return int(start), None if end is None else int(end)


def read_manifest(out: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of the harvest at ``out`` (a path or URL; that of :func:`harvest_corpus` in
    its directory, that of :func:`harvest` beside it, ``<out>.manifest.json``), as JSON, its
    ``request_ids`` read from the side file where it keeps them (see
    :mod:`paperlens.storage._manifest`); None when there is none.

    Raises:
        HarvestError: the manifest is not valid JSON."""
    try:
        return output_manifest(out)
    except ManifestError as error:
        raise HarvestError(str(error)) from error
