"""The code of :mod:`paperlens.corpus`, the public module that re-exports it and documents it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Coroutine, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TypedDict, overload
from urllib.parse import quote

from paperlens.base._checks import flag, invalid
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.base._ids import normalize_id
from paperlens.base._progress import Progress
from paperlens.base.filters import Filter, FilterSpec, filters_to_wire
from paperlens.clients.client import check_as_sent
from paperlens.errors import NotFoundError, PermissionDeniedError, ValidationError
from paperlens.harvests._executor import Executor, check_executor, client_bytes, in_order, run_plan
from paperlens.harvests._harvesting import (
    HarvestResult,
    ParquetParts,
    SkippedFigure,
    added_ids,
    begin_update,
    checkpoint_beside,
    load_checkpoint,
    new_run,
    record_key,
    recorder,
    sync_entries,
    unheld,
    write_json_atomically,
)
from paperlens.machinery._operation import AsyncCaller, Call, Plan, workflow
from paperlens.machinery._pagination import Trail
from paperlens.storage._manifest import MANIFEST_NAME, ManifestRecorder
from paperlens.storage._output_guard import guarded_plan, resumable
from paperlens.storage._records import STRING, STRINGS, RecordSchema, metadata_schema
from paperlens.storage._store import location
from paperlens.storage._stored import held_keys, own_schema
from paperlens.workflows._corpus_rules import BY, TEXT_NAME, figure_links, figure_names
from paperlens.workflows._corpus_rules import checked_arguments as _checked
from paperlens.workflows._whole_text import whole_text

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's from Python 3.11

    from paperlens.clients.client import AsyncClient, Client

__all__ = ["BY", "harvest_corpus"]

# 2: the records' parts have one schema per harvest (those of 1 took their columns from their page).
_VERSION = 2
#: Documents an executor works on ahead of the one the driver writes next (memory: their texts
#: and figures wait in the driver until their turn).
_IN_FLIGHT = 32
#: The prefix of a folder named by its doc_id's hash.
_HASHED = "sha256-"


class _Options(TypedDict, total=False):
    """The arguments of :func:`harvest_corpus` that its two forms (a ``Client``'s, an
    ``AsyncClient``'s) share."""

    query: str | None
    ids: Iterable[str] | None
    by: str
    filters: FilterSpec | list[FilterSpec] | None
    texts: bool
    figures: bool
    limit: int | None
    progress: bool
    update: bool


@overload
def harvest_corpus(
    client: Client, out: str | os.PathLike[str], *, executor: Executor | None = None, **options: Unpack[_Options]
) -> HarvestResult: ...
@overload
def harvest_corpus(
    client: AsyncClient, out: str | os.PathLike[str], *, executor: None = None, **options: Unpack[_Options]
) -> Coroutine[Any, Any, HarvestResult]: ...
def harvest_corpus(
    client: Client | AsyncClient,
    out: str | os.PathLike[str],
    *,
    query: str | None = None,
    ids: Iterable[str] | None = None,
    by: str = "unique_id",
    filters: FilterSpec | list[FilterSpec] | None = None,
    texts: bool = True,
    figures: bool = False,
    limit: int | None = None,
    progress: bool = False,
    executor: Executor | None = None,
    update: bool = False,
) -> HarvestResult | Coroutine[Any, Any, HarvestResult]:
    """Harvests records and their full texts (and figures) into the directory ``out``, resumably.

    Records come from a metadata search (``query`` and/or ``filters``), or from a list of
    identifiers (``ids``, matched on the field ``by``, 200 per request). For each record with
    a ``doc_id`` the whole text is written as Markdown, one file per document; with
    ``figures=True`` the images its text links to (``![caption](figures/...)``) are
    downloaded beside it, so the Markdown shows them. Requests are paced by the client; run
    the same call again after an interruption and it continues (see :mod:`paperlens.corpus`).

    Args:
        client: a :class:`paperlens.Client` (returns the result) or
            :class:`paperlens.AsyncClient` (returns an awaitable of it; files are written in
            the event loop's thread).
        out: the output directory (created), or an fsspec URL of one (``s3://bucket/prefix``,
            ``memory://...``; needs ``pip install "paperlens[s3]"``): each object is written
            whole, ``manifest.json`` after the parts it counts. A local lock guards an output
            against a second run on this machine only (see the clusters guide).
        query: keywords of the search; not with ``ids``.
        ids: identifiers to harvest; duplicates (after normalising: DOIs lower-cased, without
            a ``https://doi.org/`` prefix; ISBNs without hyphens) are fetched once, and the
            ids no record matches are listed in ``HarvestResult.not_found`` and the manifest.
        by: the field ``ids`` name: ``"unique_id"``, ``"doc_id"``, ``"doi"`` or ``"isbn13"``.
        filters: ``meta_search`` filters, applied to the search or to the ids.
        texts: write the full texts (False: records only).
        figures: also download the figures of each text (needs ``texts``).
        limit: stop after this many records in all.
        progress: a tqdm bar of documents, showing pacing and retry waits.
        executor: fetches the documents (texts and figures) in parallel: a
            ``concurrent.futures`` executor or a ``dask.distributed.Client``. The client goes
            to its workers pickled (token included) and is rebuilt there once per process;
            this process still searches (the quota-bound requests), writes every file and
            the checkpoint, so the output equals a run without executor. At most 32
            documents are in flight. A ``Client`` only.
        update: on a finished output, search again (or match the ``ids`` again) and add only
            the records it does not hold (by ``unique_id``), as new parts of its schema, with
            the texts and figures of those alone (a living review; see
            :mod:`paperlens.harvest`). The other arguments must be those of the original
            call, or :class:`~paperlens.harvest.ChangedParametersError` (a ``ValueError``)
            names the difference before any request. ``not_found`` then lists the ids no
            record matches now.

    Returns:
        A :class:`~paperlens.harvest.HarvestResult`: counts of records, texts, figures and
        records without a text, the ids not found, the figures that cannot be written
        (``skipped_figures``), and where the manifest is.

    Raises:
        paperlens.ValidationError: a bad parameter (before any request), e.g. ``ids[3]``
            empty, an unknown ``by``, ``figures`` without ``texts``, ``query`` with ``ids``,
            an ``out`` that is no path.
        paperlens.harvest.HarvestError: ``out`` holds something else than this harvest, or
            its manifest records other parameters; its subclass
            :class:`~paperlens.harvest.OutputInUseError` when another run is writing ``out``,
            and :class:`~paperlens.harvest.HarvestWriteError` (an ``OSError``) when the disk
            is full or ``out`` cannot be written (call again to resume).
        paperlens.PaperlensError: what the client raises (a 403 or 404 of a text or figure
            is recorded instead); call again to resume.

    Example:
        >>> import pandas
        >>> from paperlens.harvest import harvest_corpus
        >>> result = harvest_corpus(client, "corpus", ids=["W4000000000", "W4000000003"])
        >>> frame = pandas.read_parquet(result.out / "records")
        >>> frame.loc[frame.text_status == "ok", "text_path"].tolist()  # documents/<doc_id>/text.md
        ['documents/66aa2aece45e6a7d.../text.md', 'documents/69d06a32ab9c.../text.md']
    """
    wanted = _checked(query, ids, by, texts, figures, limit)
    flag("progress", progress)
    flag("update", update)
    if wanted is None:
        check_as_sent(client, "meta_search", {"query": query, "filters": filters_to_wire(filters)})  # as harvest
    if executor is not None:
        if isinstance(client, AsyncCaller):
            raise invalid("executor", "needs a Client (an AsyncClient harvests in its event loop)")
        check_executor(executor)
    with resumable():
        return _harvest(  # type: ignore[no-any-return]
            client,
            out,
            query=query,
            ids=wanted,
            by=by,
            filters=filters_to_wire(filters),
            texts=texts,
            figures=figures,
            limit=limit,
            progress=progress,
            executor=executor,
            update=update,
        )


def folder_name(doc_id: str) -> str:
    """A file-system-safe folder name for ``doc_id``, one per doc_id: percent-encoded (a
    sha256 hex id is kept as it is), a name over 200 characters hashed to ``sha256-<hex>``.
    The escapes are of characters ``quote`` never escapes (``.`` and ``-``), so no doc_id,
    not even one that is literally ``sha256-<hex>``, is given another's folder."""
    name = quote(doc_id, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    elif name.startswith(_HASHED):
        name = "sha256%2D" + name[len(_HASHED) :]
    if len(name) > 200:
        name = _HASHED + hashlib.sha256(doc_id.encode("utf-8", "surrogatepass")).hexdigest()
    return name


class _Output:
    """The paths of a corpus harvest (in its store: a local folder or an fsspec URL) and the
    operations on its documents folder."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.store, self.out = location(out)
        self.url = None if self.store.local else str(out)
        self.records = self.out / "records"
        self.documents = self.out / "documents"
        self.checkpoint = checkpoint_beside(self.out)

    def exists(self) -> bool:
        return bool(self.store.names(self.out))

    def prepare(self) -> None:
        """Creates the folders; drops the temporary files and folders a killed run left
        (an object store has none: each object is written whole)."""
        self.store.make_dirs(self.documents)
        if not self.store.local:
            return
        out, documents = Path(self.out), Path(self.documents)
        for stray in documents.glob(".tmp-*"):
            shutil.rmtree(stray, ignore_errors=True)
        strays = [*out.glob(".manifest-*"), *out.parent.glob(f".{self.checkpoint.name}.*.tmp")]
        for stray in strays:
            stray.unlink(missing_ok=True)

    def folder(self, doc_id: str) -> PurePath:
        return self.documents / folder_name(doc_id)

    def written(self, folder: PurePath) -> bool:
        return self.store.has_folder(folder, TEXT_NAME)

    def relative(self, path: PurePath) -> str:
        return path.relative_to(self.out).as_posix()


@dataclass(frozen=True)
class Fetched:
    """A document as the service gave it: ``status`` (as the ``text_status`` column), the
    text, the figures it could fetch (by name) and the request ids of the text's pages."""

    status: str
    text: str = ""
    figures: dict[str, bytes] = field(default_factory=dict)
    request_ids: tuple[str, ...] = ()


def fetch_document(doc_id: str, figures: bool) -> Plan[Fetched]:
    """The text of ``doc_id`` and, with ``figures``, the figures it names (a 403 or 404 of
    the text is a status, of a figure a figure left out)."""
    try:
        text, request_ids = yield from whole_text(doc_id)
    except PermissionDeniedError:
        return Fetched("forbidden")
    except NotFoundError:
        return Fetched("not_found")
    except ValidationError:
        return Fetched("invalid_doc_id")  # one /content cannot be asked for (``..``, a backslash)
    found: dict[str, bytes] = {}
    for name in figure_names(text) if figures else ():
        try:
            resource = yield Call("resource", (name,))
        except (PermissionDeniedError, NotFoundError):
            continue  # recorded as a missing figure: the text names it, the folder lacks it
        found[name] = resource.data
    return Fetched("ok", text, found, request_ids)


@workflow
@guarded_plan("out", position=1)
def _harvest(
    client: Any,
    out: str | os.PathLike[str],
    *,
    query: str | None,
    ids: list[str] | None,
    by: str,
    filters: list[dict[str, Any]] | None,
    texts: bool,
    figures: bool,
    limit: int | None,
    progress: bool,
    executor: Executor | None,
    update: bool,
) -> Plan[HarvestResult]:
    output = _Output(out)
    if output.store.is_file(output.out):
        raise invalid("out", "must be a directory, not a file", str(out))
    parameters = {
        "query": query,
        "ids": None if ids is None else {"count": len(ids), "sha256": _digest(ids)},
        "by": by if ids is not None else None,
        "filters": filters,
        "texts": texts,
        "figures": figures,
        "limit": limit,
    }
    fingerprint = _digest([json.dumps(parameters, sort_keys=True)])[:32]
    manifest = recorder(output.out, "harvest_corpus", parameters, client, store=output.store)
    state = load_checkpoint(output.checkpoint, fingerprint, output.out, output.exists(), _VERSION, output.store)
    resumed = state is not None
    parts = ParquetParts(output.records, records_schema(texts, figures), output.store)
    if state is not None:
        parts.schema = own_schema(output.store, output.records, state) or parts.schema
        if update and state["next"] is None and state["pending"] is None:
            _begin_update(state, limit == 0 or ids == [])
            write_json_atomically(output.checkpoint, state, output.store)
            resumed = False
    if state is None:
        state = {
            "version": _VERSION,
            "fingerprint": fingerprint,
            "next": {"batch": 0, "cursor": None, "found": []},
            "pending": None,
            "records": 0,
            "chunks": 0,
            "texts": 0,
            "figures": 0,
            "missing_texts": 0,
            "not_found": [],
            "skipped_figures": [],
            "total_count": None,
        }
        if limit == 0 or ids == []:
            state["next"] = None
        state["run"] = new_run("harvest", state)
        write_json_atomically(output.checkpoint, state, output.store)
        parts.start()
    else:
        parts.rewind(state)
    output.prepare()
    harvest = _Harvest(client, output, manifest, state, ids, by, query, filters, texts, figures, limit, parts)
    harvest.executor = executor
    if state["run"]["kind"] == "update" and not harvest.done:
        harvest.held = held_keys(output.store, output.records, "parquet", state)
        for record in (state["pending"] or {}).get("records", []):
            harvest.held.add(record_key(record))
    if not harvest.done:
        harvest.save_manifest()  # this run counts in the manifest from its start
    bar = None
    if progress and not harvest.done:
        bar = Progress(total=harvest.expected(), unit="documents", listen=client._listen, initial=state["records"])
    try:
        while not harvest.done:
            if state["pending"] is None:
                yield from harvest.fetch_records()
                if bar is not None:
                    bar.set_total(harvest.expected())
            yield from harvest.write_documents(bar)
        harvest.check_loops()
    except BaseException:
        harvest.save_manifest()  # counts what is on disk, the documents of the unfinished page included
        raise
    finally:
        if bar is not None:
            bar.close()
    if manifest.manifest["finished"] is None or not manifest.manifest.get("run_entries", [{}])[-1].get("finished"):
        manifest.recount()
        harvest.save_manifest()
    return harvest.result(resumed)


def _begin_update(state: dict[str, Any], nothing: bool) -> None:
    """Turns the checkpoint of a finished corpus harvest into that of an update starting now."""
    begin_update(state)
    state["next"] = None if nothing else {"batch": 0, "cursor": None, "found": []}
    state["not_found"], state["total_count"] = [], None


class _Harvest:
    """One run of a corpus harvest: its state (the checkpoint's) and the steps of the plan."""

    def __init__(
        self,
        client: Any,
        output: _Output,
        manifest: ManifestRecorder,
        state: dict[str, Any],
        ids: list[str] | None,
        by: str,
        query: str | None,
        filters: list[dict[str, Any]] | None,
        texts: bool,
        figures: bool,
        limit: int | None,
        parts: ParquetParts,
    ) -> None:
        self.client, self.output, self.manifest, self.state = client, output, manifest, state
        self.ids, self.by, self.query, self.filters = ids, by, query, filters
        self.texts, self.figures, self.limit = texts, figures, limit
        self.parts = parts
        self.executor: Executor | None = None
        #: An update's keys of the records held (:func:`record_key`); None for the harvest.
        self.held: set[str] | None = None
        self.total_count: int | None = len(ids) if ids is not None else state.get("total_count")
        #: The text columns of the pending page's documents written so far.
        self.rows: list[dict[str, Any]] = []
        #: The figures of those documents that cannot be written (``SkippedFigure`` fields).
        self.skipped: list[dict[str, str]] = []
        state.setdefault("skipped_figures", [])  # a checkpoint of a version without them
        #: The cursors followed in this run, by batch of ids: one answered again ends the batch.
        self.trails: dict[int, Trail] = {}

    @property
    def done(self) -> bool:
        return self.state["next"] is None and self.state["pending"] is None

    def expected(self) -> int | None:
        total = self.total_count
        if self.limit is not None:
            return self.limit if total is None else min(self.limit, total)
        return total

    def check_loops(self) -> None:
        """Raises the loop of cursors that ended a batch early, if the service made one."""
        for trail in self.trails.values():
            trail.check()

    def fetch_records(self) -> Plan[None]:
        """The next page of records, kept in the checkpoint before any document is fetched."""
        state = self.state
        at, run = state["next"], state["run"]
        remaining = None if self.limit is None else self.limit - run["read"]
        size = PAGE_SIZE_MAX if remaining is None else max(1, min(PAGE_SIZE_MAX, remaining))
        filters = list(self.filters or [])
        batch: list[str] = []
        if self.ids is not None:
            batch = self.ids[at["batch"] * PAGE_SIZE_MAX : (at["batch"] + 1) * PAGE_SIZE_MAX]
            filters.insert(0, Filter(self.by, "in", batch).to_wire())
        page = yield Call(
            "meta_search", (self.query,), {"filters": filters or None, "page_size": size, "cursor": at["cursor"]}
        )
        records = [r.to_dict() for r in page.results]
        cursor = page.next_cursor if records else None
        trail = self.trails.setdefault(at["batch"], Trail("next_cursor", at["cursor"]))
        if cursor and not trail.follows(cursor, page.request_id):
            cursor = None  # this page's records are written; the loop is raised at the end
        pending: dict[str, Any] = {"request_id": page.request_id, "not_found": []}
        if self.ids is None:
            # Kept in the checkpoint: a resumed run may never fetch a page itself.
            self.total_count = state["total_count"] = page.total_count
            after = {"batch": 0, "cursor": cursor, "found": []} if cursor else None
        else:
            order = {value: index for index, value in enumerate(batch)}
            position = len(batch)
            records.sort(key=lambda r: order.get(normalize_id(str(r.get(self.by) or ""), self.by), position))
            found = [*at["found"], *(normalize_id(str(r.get(self.by) or ""), self.by) for r in records)]
            if cursor:
                after = {"batch": at["batch"], "cursor": cursor, "found": found}
            else:
                matched = set(found)
                pending["not_found"] = [value for value in batch if value not in matched]
                more = (at["batch"] + 1) * PAGE_SIZE_MAX < len(self.ids)
                after = {"batch": at["batch"] + 1, "cursor": None, "found": []} if more else None
        if remaining is not None and len(records) >= remaining:
            records, after = records[:remaining], None
        pending["read"] = run["read"] + len(records)
        if self.held is not None:
            records = unheld(records, self.held)
        pending["records"], pending["next"] = records, after
        # Kept as JSON, so a resumed run writes exactly what this one would have.
        state["pending"] = json.loads(json.dumps(pending, default=str))
        # Its request id goes to the manifest's side file before the checkpoint holds the page.
        self.manifest.request(page.request_id)
        self.manifest.flush()
        write_json_atomically(self.output.checkpoint, state, self.output.store)

    def write_documents(self, bar: Progress | None) -> Plan[None]:
        """The documents of the pending page, then its part file, manifest and checkpoint."""
        state, pending = self.state, self.state["pending"]
        rows = self.rows = []
        self.skipped = []
        records = pending["records"]
        if self.executor is None:
            for record in records:
                doc_id = self.to_fetch(record)
                fetched = None if doc_id is None else (yield from fetch_document(doc_id, self.figures))
                rows.append(self.row(record, fetched))
                if bar is not None:
                    bar.update(1)
        else:
            with contextlib.closing(self.fetched_on_executor(records)) as fetched_in_order:  # cancels the rest
                for record, fetched in zip(records, fetched_in_order, strict=True):
                    rows.append(self.row(record, fetched))
                    if bar is not None:
                        bar.update(1)
        if rows:
            self.parts.write_chunk(state["chunks"], pending["records"], rows)
            state["chunks"] += 1
        state["records"] += len(rows)
        for name, value in _document_counts(rows).items():
            state[name] += value
        self.rows = []
        state["not_found"].extend(pending["not_found"])
        state["skipped_figures"].extend(self.skipped)
        self.skipped = []
        state["run"]["read"] = pending.get("read", state["records"])
        state["next"], state["pending"] = pending["next"], None
        write_json_atomically(self.output.checkpoint, state, self.output.store)
        self.save_manifest(boundary=False)

    def fetched_on_executor(self, records: list[dict[str, Any]]) -> Generator[Fetched | None, None, None]:
        """:func:`fetch_document` of each record's document, on the executor, in order."""
        assert self.executor is not None
        pickled = client_bytes(self.client)
        wanted = (self.to_fetch(record) for record in records)  # read as tasks are submitted
        tasks = (None if doc_id is None else (pickled, fetch_document, doc_id, self.figures) for doc_id in wanted)
        return in_order(self.executor, run_plan, tasks, _IN_FLIGHT)

    def to_fetch(self, record: dict[str, Any]) -> str | None:
        """The ``doc_id`` whose document must be fetched for ``record`` (None: no text asked
        for, no usable ``doc_id``, or written already)."""
        doc_id = record.get("doc_id")
        if not self.texts or not isinstance(doc_id, str) or not doc_id:
            return None
        return None if self.output.written(self.output.folder(doc_id)) else doc_id

    def row(self, record: dict[str, Any], fetched: Fetched | None) -> dict[str, Any]:
        """The text columns of ``record``, its fetched document written first."""
        row: dict[str, Any] = {}
        if not self.texts:
            return row
        doc_id = record.get("doc_id")
        folder = self.output.folder(doc_id) if isinstance(doc_id, str) and doc_id else None
        status = "no_doc_id" if folder is None else "ok" if fetched is None else fetched.status
        if fetched is not None and folder is not None and status == "ok":
            for request_id in fetched.request_ids:
                self.manifest.request(request_id)
            if not self.output.written(folder):  # a doc_id twice in flight is fetched once
                self.output.store.write_folder(folder, {**fetched.figures, TEXT_NAME: fetched.text.encode()}, TEXT_NAME)
            self.manifest.flush(segment=False)  # durable with the document (an object store: with the page)
        row["text_status"] = status
        row["text_path"] = self.output.relative(folder / TEXT_NAME) if status == "ok" and folder else None
        if self.figures:
            row["figure_paths"], row["missing_figures"] = [], []
            if status == "ok" and folder is not None:
                store = self.output.store
                text = store.read(folder / TEXT_NAME).decode("utf-8") if fetched is None else fetched.text
                names, unwritable = figure_links(text)
                for name in names:
                    if name in fetched.figures if fetched is not None else store.is_file(folder / name):
                        row["figure_paths"].append(self.output.relative(folder / name))
                    else:
                        row["missing_figures"].append(name)
                row["missing_figures"].extend(unwritable)
                self.skipped.extend(
                    {"doc_id": str(doc_id), "name": name, "why": why} for name, why in unwritable.items()
                )
        return row

    def save_manifest(self, *, boundary: bool = True) -> None:
        """The manifest with the counts of what is on disk: the pages written, and the
        documents of the page being written. Saved at once at a run's start and end
        (``boundary``), within it every :data:`~paperlens.storage._manifest.SAVE_EVERY` seconds."""
        state = self.state
        for name in ("records", "chunks"):
            self.manifest.count(name, state[name])
        for name, value in _document_counts(self.rows).items():
            self.manifest.count(name, state[name] + value)
        self.manifest.count("not_found", len(state["not_found"]))
        self.manifest.total(self.total_count)
        self.manifest.manifest["not_found"] = list(state["not_found"])
        if self.figures:
            self.manifest.manifest["skipped_figures"] = [*state["skipped_figures"], *self.skipped]
        sync_entries(self.manifest, state, self.done)
        if boundary or self.done:
            self.manifest.save(finished=self.done)
        else:
            self.manifest.save_if_due()

    def result(self, resumed: bool) -> HarvestResult:
        state, run = self.state, self.state["run"]
        return HarvestResult(
            out=Path(self.output.out),
            checkpoint=Path(self.output.checkpoint),
            format="parquet",
            records=state["records"],
            chunks=state["chunks"],
            done=self.done,
            resumed=resumed,
            manifest=Path(self.output.out / MANIFEST_NAME),
            texts=state["texts"],
            figures=state["figures"],
            missing_texts=state["missing_texts"],
            not_found=tuple(state["not_found"]),
            skipped_figures=tuple(SkippedFigure(**skipped) for skipped in state["skipped_figures"]),
            url=self.output.url,
            added=state["records"] - run["records_from"],
            new_ids=added_ids(self.output.store, self.output.records, "parquet", state) if self.done else (),
        )


def _document_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """``texts``, ``missing_texts`` and ``figures`` of the text columns ``rows``."""
    return {
        "texts": sum(1 for row in rows if row.get("text_status") == "ok"),
        "missing_texts": sum(1 for row in rows if row.get("text_status") not in (None, "ok")),
        "figures": sum(len(row.get("figure_paths") or ()) for row in rows),
    }


def records_schema(texts: bool, figures: bool) -> RecordSchema:
    """The columns of ``records/``: the metadata record's, then the text columns the call adds."""
    added = {"text_status": STRING, "text_path": STRING} if texts else {}
    if figures:
        added.update(figure_paths=STRINGS, missing_figures=STRINGS)
    from paperlens.results._types_open_platform import MetadataRecord

    return metadata_schema(MetadataRecord, added=added)


def _digest(values: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(values).encode("utf-8")).hexdigest()
