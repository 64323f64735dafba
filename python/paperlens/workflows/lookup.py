"""The code of :mod:`paperlens.lookup`, the public module that re-exports it and documents it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paperlens.base import _checks as checks
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.base._ids import normalize_doi, normalize_id, strip_doi
from paperlens.base._progress import Listen
from paperlens.base.filters import Filter
from paperlens.machinery._operation import Call, Plan
from paperlens.machinery._pagination import Trail
from paperlens.results._citable import Citable

if TYPE_CHECKING:
    from paperlens.results.types import MetadataRecord

__all__ = ["LOOKUP_FIELDS", "Lookup", "lookup_plan", "normalize_doi", "normalize_id"]

#: The identifier fields ``lookup`` can search by.
LOOKUP_FIELDS = ("doi", "unique_id", "doc_id", "isbn13")

_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")
_ISBN13_SHAPE = re.compile(r"^\d{13}$")


def _checked_id(value: Any, position: int, by: str) -> str:
    param = f"ids[{position}]"
    normal = normalize_id(checks.non_empty_text(param, value), by)
    if not normal:
        raise checks.invalid(param, "must not be empty", value)
    if by == "doi" and not _DOI_SHAPE.match(normal):
        rule = "must be a DOI: 10.<registrant>/<suffix>, optionally as a doi.org URL or with doi:"
        raise checks.invalid(param, rule, value)
    if by == "isbn13" and not _ISBN13_SHAPE.match(normal):
        raise checks.invalid(param, "must be an ISBN-13: 13 digits, hyphens and spaces allowed", value)
    return normal


def _checked_by(by: Any) -> str:
    return checks.choice("by", by, LOOKUP_FIELDS)


def _checked_fields(fields: Any, by: str) -> list[str] | None:
    """The projection asked for, with the ``by`` field added so answers can be matched back."""
    if fields is None:
        return None  # the default field set holds every LOOKUP_FIELDS field
    fields = checks.listed("fields", fields, "field names")
    if not all(isinstance(f, str) for f in fields):
        raise checks.invalid("fields", "must be a list of field names", fields)
    return fields if by in fields else [*fields, by]


@dataclass(frozen=True, repr=False)
class Lookup(Citable):
    """The answer of :meth:`Client.lookup <paperlens.Client.lookup>`.

    Attributes:
        ids: the ids as given, in order.
        by: the field they were looked up by.
        records: one entry per input id, in input order: its record, or ``None``.
        found: each id that has a record (as given), to its record.
        not_found: the ids with no record, in input order, each once.
        request_ids: the request id of every ``/meta-search`` page answered, in order.

    Iterating yields :attr:`records`; ``to_bibtex()``, ``to_ris()`` and ``to_csl_json()``
    export the records found (each once, in input order); ``to_pandas()`` gives them as a
    DataFrame with the input id in a leading ``input_id`` column.

    The records carry the fields asked for with ``fields`` (the service's default set when
    ``None``); for citations with volume, issue and pages, pass
    ``fields=paperlens.export.CITATION_FIELDS``.
    """

    ids: list[str]
    by: str
    records: list[MetadataRecord | None]
    found: dict[str, MetadataRecord] = field(default_factory=dict)
    not_found: list[str] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[MetadataRecord | None]:
        return iter(self.records)

    def __repr__(self) -> str:
        return f"Lookup(by={self.by!r}, ids={len(self.ids)}, found={len(self.found)}, not_found={len(self.not_found)})"

    def _citable_rows(self) -> list[Any]:
        seen: set[int] = set()
        rows = []
        for record in self.records:
            if record is not None and id(record) not in seen:
                seen.add(id(record))
                rows.append(record)
        return rows

    def to_pandas(self) -> Any:
        """The records found as a pandas DataFrame (one row per input id that has one, in input
        order), the id as given in a leading ``input_id`` column (needs the ``pandas`` extra)."""
        from paperlens.results.pandas import to_pandas

        pairs = [(i, r) for i, r in zip(self.ids, self.records, strict=True) if r is not None]
        frame = to_pandas([r for _, r in pairs]) if pairs else to_pandas([])
        frame.insert(0, "input_id", [i for i, _ in pairs])
        return frame


def lookup_plan(
    ids: Iterable[str],
    *,
    by: str = "doi",
    fields: list[str] | None = None,
    progress: bool = False,
    listen: Listen | None = None,
) -> Plan[Lookup]:
    """The :data:`~paperlens.machinery._operation.Plan` of ``client.lookup``: checks every id before any
    request, then asks for the distinct ones in chunks of :data:`PAGE_SIZE_MAX`.

    Args:
        ids: identifiers (a list, or any iterable: it is read once, before any request).
        by: the field to look them up by: ``"doi"``, ``"unique_id"``, ``"doc_id"`` or ``"isbn13"``.
        fields: the projection (``by`` is added to it); ``None`` for the service's default set.
        progress: a progress bar of the ids answered (needs the ``progress`` extra).
        listen: the client's transport events, so the bar shows pacing and retry waits.

    Returns:
        A :class:`Lookup`.

    Raises:
        ValidationError: ``by`` is unknown, ``fields`` is not a list of names, or an id is
            empty, not a string, or (``by="doi"``) not shaped like a DOI, (``by="isbn13"``)
            not 13 digits; the message names its position (``ids[3]``). Nothing was sent.
    """
    by = _checked_by(by)
    checks.flag("progress", progress)
    given = checks.listed("ids", ids, "identifiers")
    projection = _checked_fields(fields, by)
    normal = [_checked_id(value, i, by) for i, value in enumerate(given)]
    wanted = list(dict.fromkeys(normal))
    answers: dict[str, MetadataRecord] = {}
    request_ids: list[str] = []
    bar = _progress_bar(progress, len(wanted), listen)
    try:
        for start in range(0, len(wanted), PAGE_SIZE_MAX):
            chunk = wanted[start : start + PAGE_SIZE_MAX]
            found = yield from _chunk_plan(chunk, given, normal, by, projection, request_ids)
            answers.update(found)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    records = [answers.get(n) for n in normal]
    found_by_id = {value: record for value, record in zip(given, records, strict=True) if record is not None}
    missing = list(dict.fromkeys(value for value, record in zip(given, records, strict=True) if record is None))
    return Lookup(ids=given, by=by, records=records, found=found_by_id, not_found=missing, request_ids=request_ids)


def _chunk_plan(
    chunk: list[str], given: list[str], normal: list[str], by: str, fields: list[str] | None, request_ids: list[str]
) -> Plan[dict[str, MetadataRecord]]:
    """One chunk of distinct normalised ids: one page, and the next ones only when the
    answer holds more records than a page (each page's request id appended to ``request_ids``)."""
    values = _filter_values(chunk, given, normal, by)
    wanted = set(chunk)
    found: dict[str, MetadataRecord] = {}
    kwargs: dict[str, Any] = {"filters": [Filter(by, "in", values)], "fields": fields, "page_size": PAGE_SIZE_MAX}
    received = 0
    trail = Trail("next_cursor")
    while True:
        page = yield Call("meta_search", kwargs=kwargs)
        if page.request_id:
            request_ids.append(page.request_id)
        received += len(page.results)
        for record in page.results:
            value = getattr(record, by, None)
            key = normalize_id(value, by) if isinstance(value, str) else None
            if key in wanted and key not in found:
                found[key] = record
        total = page.total_count or 0
        if not page.results or not page.next_cursor or received >= total:
            return found
        if not trail.follows(page.next_cursor, page.request_id):
            trail.check()
        kwargs = {**kwargs, "cursor": page.next_cursor}


def _filter_values(chunk: list[str], given: list[str], normal: list[str], by: str) -> list[str]:
    """The normalised ids, and for DOIs also each one as given (prefix and whitespace
    removed) where its case differs: a service that compares DOIs case-sensitively finds
    either spelling, at no extra request."""
    values = dict.fromkeys(chunk)
    if by == "doi":
        wanted = set(chunk)
        for value, key in zip(given, normal, strict=True):
            if key in wanted:
                values.setdefault(strip_doi(value))
    return list(values)


def _progress_bar(progress: bool, total: int, listen: Listen | None) -> Any:
    if not progress:
        return None
    from paperlens.base._progress import Progress

    return Progress(total=total, unit="ids", listen=listen)
