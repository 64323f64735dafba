"""Resumable bulk harvests of metadata search results to Parquet or JSONL.

>>> from paperlens.harvest import harvest
>>> harvest(client, query="coral bleaching", out="bleaching", format="parquet")
HarvestResult(out=PosixPath('bleaching'), ..., format='parquet', records=97, chunks=1, done=True, ...)

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

import hashlib
import io
import json
import os
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from paperlens._checks import invalid
from paperlens._executor import Executor, Future, check_executor, submitted
from paperlens._harvesting import (
    HarvestResult,
    JsonlWriter,
    ParquetParts,
    Writer,
    checkpoint_beside,
    encode_chunk,
    load_checkpoint,
    part_index,
    pyarrow_modules,
    recorder,
    write_json_atomically,
)
from paperlens._output_guard import HarvestError, HarvestWriteError, OutputInUseError, guarded
from paperlens._progress import Progress
from paperlens._records import metadata_schema, read_table_records
from paperlens._store import location
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
        limit: stop after this many records in all.
        progress: a tqdm bar of records, showing pacing and retry waits.
        on_chunk: called after each chunk and its checkpoint are on disk.
        executor: encodes each chunk (a ``concurrent.futures`` executor, a
            ``dask.distributed.Client``) while this process fetches the next pages; pages
            follow one cursor, so the requests stay in this process, paced to the quota.
            The output equals a run without executor.

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
    store, path = location(out)
    if format == "jsonl" and not store.local:
        raise invalid("out", 'an fsspec URL takes format="parquet" (an object cannot be appended to)', str(out))
    writer: Writer = JsonlWriter(Path(path))
    if format == "parquet":
        from paperlens._types_open_platform import MetadataRecord

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
        write_json_atomically(ckpt_path, state, store)
    else:
        writer.rewind(state)

    def result() -> HarvestResult:
        return HarvestResult(
            out=Path(path),
            checkpoint=Path(ckpt_path),
            format=format,
            records=state["records"],
            chunks=state["chunks"],
            done=state["next"] is None,
            resumed=resumed,
            manifest=Path(where),
            url=None if store.local else str(out),
        )

    def save_manifest() -> None:
        manifest.count("records", state["records"])
        manifest.count("chunks", state["chunks"])
        manifest.save(finished=state["next"] is None)

    if state["next"] is None:
        if not store.exists(where):
            save_manifest()
        return result()
    bar = Progress(total=limit, unit="records", listen=client._listen, initial=state["records"]) if progress else None
    # Chunks encoded (on the executor) and not yet written: the future of their bytes, their
    # records, the cursor after them and the request ids of their pages. With an executor one
    # is encoded while the next pages arrive; each is written, then checkpointed, in order.
    chunks: deque[tuple[Future | None, int, dict[str, Any] | None, list[str]]] = deque()
    ahead = 0 if executor is None else 1

    def commit(future: Future | None, size: int, after: dict[str, Any] | None, request_ids: list[str]) -> None:
        if future is not None:
            writer.write_encoded(state["chunks"], future.result())
            state["chunks"] += 1
            state["records"] += size
        for request_id in request_ids:
            manifest.request(request_id)
        state["next"] = after
        state.update(writer.position())
        write_json_atomically(ckpt_path, state, store)
        save_manifest()
        if on_chunk is not None:
            on_chunk(result())

    try:
        buffer: list[dict[str, Any]] = []
        request_ids: list[str] = []
        taken = state["records"]  # records fetched: written, in chunks in flight, in the buffer
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
            buffer.extend(records)
            if len(buffer) >= chunk_size or after is None:
                encoded = submitted(executor, encode_chunk, writer.schema, buffer) if buffer else None
                chunks.append((encoded, len(buffer), after, request_ids))
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
        raise
    finally:
        if bar is not None:
            bar.close()
    return result()


def _fingerprint(search: dict[str, Any], format: str, limit: int | None) -> str:
    blob = json.dumps({"params": search, "format": format, "limit": limit}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def read_records(out: str | os.PathLike[str], format: Format | None = None) -> list[dict[str, Any]]:
    """The records a harvest wrote to ``out``, a local path or an fsspec URL (``s3://...``),
    in order (Parquet parts or JSONL lines).

    Only what a checkpoint counts is read, so a harvest interrupted mid-chunk reads exactly
    what it will keep. Each record equals the ``to_dict()`` of the record that arrived, except
    that a property the service sent as null reads as absent from Parquet; the columns
    :func:`harvest_corpus` adds are left out (``out / "records"`` reads its records).

    Raises:
        FileNotFoundError: nothing is at ``out``."""
    store, path = location(out)
    if not store.exists(path):
        raise FileNotFoundError(f"no harvest output at {store.name(path)}")
    fmt = format or ("jsonl" if store.is_file(path) else "parquet")
    try:
        state: dict[str, Any] = json.loads(store.read(checkpoint_beside(path)))
    except FileNotFoundError:
        state = {}
    if fmt == "jsonl":
        data = store.read(path)
        if "bytes" in state:
            data = data[: int(state["bytes"])]
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    _pa, pq = pyarrow_modules()
    parts = sorted(name for name in store.names(path) if part_index(name) >= 0)
    if "chunks" in state:
        parts = [name for name in parts if part_index(name) < int(state["chunks"])]
    records: list[dict[str, Any]] = []
    for name in parts:
        source = str(path / name) if store.local else io.BytesIO(store.read(path / name))
        records.extend(read_table_records(pq.read_table(source)))
    return records


def __getattr__(name: str) -> Any:
    # harvest_corpus lives in paperlens.corpus, which imports this module's helpers: it is
    # re-exported on first use, so either module may be imported first.
    if name == "harvest_corpus":
        from paperlens.corpus import harvest_corpus

        return harvest_corpus
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
