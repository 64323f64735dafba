"""Checking a reference list: ``client.verify_citations(references)``.

Each reference (BibTeX, free text, CSL-JSON or a DataFrame row: see
:func:`~paperlens._given.read_references`) gets a status:

- ``"verified"``: a record says what the reference says (title, authors, year, venue, DOI,
  as far as it gives them);
- ``"mismatch"``: the reference names a record, but some of its fields differ from it (a year
  off, another first author, another venue, the DOI of another paper): ``differences`` holds
  each as ``(given, found)``;
- ``"not_found"``: no record is the work it describes (an invented reference, or one the
  service does not have);
- ``"ambiguous"``: several records fit it equally well; ``candidates`` holds them.

Requests: the DOIs of all references are looked up together (200 per ``/meta-search``
request); a DOI that resolves to a record whose title the reference does not contradict
settles the reference. Every other reference costs one ``/meta-search``, its title words,
for the :data:`FIELDS` the checks and the corrected BibTeX need. A list of 300 references
with DOIs costs 2 requests; without, 300 (10 minutes at the default 30 per minute).

The matching engine (:mod:`paperlens.matching`) scores the candidates; here they are read as
a verdict: the best one is the cited work when the titles agree in word order (0.95 or more
for "the same title"; a close title needs an agreeing first author or year, a partial one
both), and a tie between two such records is ``ambiguous``.

>>> checked = client.verify_citations(["Lindqvist G, Zhang T. Gate fidelity ... 1995."])
>>> checked[0].status, checked[0].differences
('mismatch', {'year': (1995, 1994)})
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from paperlens._contract import PAGE_SIZE_MAX
from paperlens._formats import CITATION_FIELDS
from paperlens._given import Given, read_references
from paperlens._ids import normalize_doi
from paperlens._operation import Call, Plan
from paperlens._progress import Listen
from paperlens.matching import TIE, Confidence, Evidence, rank, title_query

if TYPE_CHECKING:
    from paperlens.types import MetadataRecord

__all__ = ["FIELDS", "FIELD_NAMES", "Status", "Verification", "VerifiedReference", "verify_plan"]

Status = Literal["verified", "mismatch", "not_found", "ambiguous"]

#: The record fields asked for: what the checks read and the corrected BibTeX writes.
FIELDS = [*CITATION_FIELDS, "doc_id"]
#: The fields compared, in the order differences are reported.
FIELD_NAMES = ("title", "authors", "year", "venue", "doi")
#: Records asked for by the title query: enough for every same-titled work to be seen.
SEARCH_PAGE_SIZE = 50
#: Title agreement (words in order, typos forgiven) of the same title, a close and a partial one.
SAME_TITLE = 0.95
CLOSE_TITLE = 0.8
PARTIAL_TITLE = 0.5

_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")


@dataclass(frozen=True)
class VerifiedReference:
    """The verdict on one reference.

    Attributes:
        input: the reference as given (text, CSL-JSON item, DataFrame row as a dict, BibTeX entry).
        status: ``"verified"``, ``"mismatch"``, ``"not_found"`` or ``"ambiguous"``.
        record: the cited record (verified, mismatch), or None.
        differences: field (``title``, ``authors``, ``year``, ``venue``, ``doi``) to
            ``(given, found)``, for a mismatch.
        confidence: ``"high"``, ``"medium"`` or ``"low"``: how sure the status is.
        reasons: why, in words (``"year differs: cited 1995, record 1994"``).
        key: the citation key (BibTeX key, CSL ``id``), or None.
        candidates: the records that fit equally well (ambiguous).
    """

    input: Any
    status: Status
    record: MetadataRecord | None
    differences: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    confidence: Confidence = "low"
    reasons: list[str] = field(default_factory=list)
    key: str | None = None
    candidates: list[MetadataRecord] = field(default_factory=list)
    given: Given | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class Verification:
    """The answer of :meth:`Client.verify_citations <paperlens.Client.verify_citations>`:
    ``items`` (one :class:`VerifiedReference` per reference, in input order); iterating and
    indexing read them. ``counts``: references per status."""

    items: list[VerifiedReference]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[VerifiedReference]:
        return iter(self.items)

    def __getitem__(self, index: int) -> VerifiedReference:
        return self.items[index]

    @property
    def counts(self) -> dict[str, int]:
        """References per status, every status named (``{"verified": 28, "mismatch": 1, ...}``)."""
        counted = Counter(item.status for item in self.items)
        return {status: counted[status] for status in ("verified", "mismatch", "not_found", "ambiguous")}

    @property
    def all_verified(self) -> bool:
        return all(item.status == "verified" for item in self.items)

    def __repr__(self) -> str:
        counts = ", ".join(f"{status}={n}" for status, n in self.counts.items())
        return f"Verification({len(self.items)} references: {counts})"

    def rows(self) -> list[dict[str, Any]]:
        """One plain dict per reference (what ``to_pandas`` and the CLI's JSON show)."""
        return [_row(item) for item in self.items]

    def to_pandas(self) -> Any:
        """One row per reference, in input order (needs the ``pandas`` extra): ``key``,
        ``input``, ``status``, ``confidence``, ``differs`` (the field names), ``differences``,
        ``reasons`` and the record's ``unique_id``, ``doi``, ``title``, ``year``."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(_row_columns()))

    def to_bibtex(self) -> str:
        """The references as BibTeX, corrected: a verified or mismatched one is written from its
        record (its fields as the service has them) under its own key; any other is kept as
        given (a BibTeX entry as written, else a ``%`` comment) after a comment saying why."""
        from paperlens._formats import bibtex_entry

        used: set[str] = set()
        parts = []
        for item in self.items:
            if item.record is not None:
                parts.append(bibtex_entry(item.record, item.key, used))
                continue
            note = f"% {item.key or 'reference'}: {item.status}: {'; '.join(item.reasons[:1])}"
            raw = item.given.raw if item.given is not None else None
            parts.append(note + "\n" + (raw.strip() if raw else "% " + " ".join(_input_text(item).split())))
        return "\n\n".join(parts) + "\n" if parts else ""

    def _repr_html_(self) -> str:
        from paperlens._display import verification_html

        return verification_html(self)


def _row_columns() -> tuple[str, ...]:
    return (
        "key",
        "input",
        "status",
        "confidence",
        "differs",
        "differences",
        "reasons",
        "unique_id",
        "doi",
        "title",
        "year",
    )


def _row(item: VerifiedReference) -> dict[str, Any]:
    record = item.record
    return {
        "key": item.key,
        "input": _input_text(item),
        "status": item.status,
        "confidence": item.confidence,
        "differs": list(item.differences),
        "differences": {name: list(pair) for name, pair in item.differences.items()},
        "reasons": list(item.reasons),
        "unique_id": record.unique_id if record is not None else None,
        "doi": record.doi if record is not None else None,
        "title": record.title if record is not None else None,
        "year": record.publication_published_year if record is not None else None,
    }


def _input_text(item: VerifiedReference) -> str:
    if isinstance(item.input, str):
        return item.input
    given = item.given
    if given is None:
        return str(item.input)
    return given.citation.text


# -- the plan ------------------------------------------------------------------------------------


def verify_plan(
    references: Any, *, progress: bool = False, listen: Listen | None = None, rate: int | None = None
) -> Plan[Verification]:
    """The plan of ``client.verify_citations`` (see the module's documentation).

    Args:
        references: BibTeX text or a path, free-text citations, CSL-JSON items or a DataFrame.
        progress: a progress bar of the references checked, with the requests left and the
            time they take at ``rate``.
        listen: the client's transport events, so the bar shows pacing and retry waits.
        rate: the client's ``/meta-search`` requests per minute (None: not paced).

    Raises:
        ValidationError: before any request, for input that is none of these, malformed
            BibTeX (naming the entry and line), or an item with nothing to check.
    """
    given = read_references(references)
    dois = list(dict.fromkeys(g.doi for g in given if g.doi and _DOI_SHAPE.match(g.doi)))
    estimate = math.ceil(len(dois) / PAGE_SIZE_MAX) + sum(g.doi is None for g in given)
    bar = _bar(progress, len(given), estimate, listen, rate)
    try:
        by_doi: dict[str, MetadataRecord] = {}
        if dois:
            found = yield Call("lookup", (dois,), {"by": "doi", "fields": FIELDS})
            by_doi = {normalize_doi(doi): record for doi, record in found.found.items()}
        plans = [_plan_of(g, by_doi.get(g.doi or "")) for g in given]
        if bar is not None:
            bar.requests_left(len({p[1] for p in plans if p[1] is not None}))
        answers: dict[str, list[MetadataRecord]] = {}
        items = []
        for g, (known, query) in zip(given, plans, strict=True):
            records = [known] if known is not None else []
            if query is not None:
                if query not in answers:
                    page = yield Call("meta_search", (query,), {"fields": FIELDS, "page_size": SEARCH_PAGE_SIZE})
                    answers[query] = list(page.results)
                records += answers[query]
            items.append(_verdict(g, rank(g.citation, records), known))
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return Verification(items)


def _plan_of(given: Given, known: MetadataRecord | None) -> tuple[MetadataRecord | None, str | None]:
    """The DOI's record, and the title query still needed (None when the DOI settles it)."""
    if known is not None:
        evidence = rank(given.citation, [known])[0][0]
        if not evidence.titled or evidence.title >= CLOSE_TITLE:
            return known, None
    return known, title_query(given.citation)


# -- the verdict ---------------------------------------------------------------------------------


def _same_work(e: Evidence) -> bool:
    """The candidate is the cited work: a DOI nothing contradicts, the same title, a close
    title by the same first author with at most one other field off, or a partial one with
    the same first author and year and nothing off."""
    if e.doi and (not e.titled or e.title >= CLOSE_TITLE):
        return True
    if e.title >= SAME_TITLE:
        return True
    off = (e.year_off not in (None, 0)) + (e.venue is False) + e.authors_clash
    if e.title >= CLOSE_TITLE:
        return e.first_author is True and off <= 1
    return e.title >= PARTIAL_TITLE and e.first_author is True and e.year_off == 0 and off == 0


def _verdict(
    given: Given, scored: list[tuple[Evidence, MetadataRecord]], known: MetadataRecord | None
) -> VerifiedReference:
    base = {"input": given.input, "key": given.key, "given": given}
    # Of the records that may be the cited work, the one that differs in the fewest fields.
    fitting = sorted(
        ((len(_differences(given, r, e)), e, r) for e, r in scored if _same_work(e)), key=lambda t: (t[0], -t[1].score)
    )
    if not fitting:
        return VerifiedReference(**base, status="not_found", record=None, **_not_found(given, scored, known))
    fewest, evidence, record = fitting[0]
    tied = [r for n, e, r in fitting[1:] if n == fewest and evidence.score - e.score < TIE]
    if tied:
        candidates = [record, *tied]
        listed = "; ".join(_described(r) for r in candidates)
        reasons = [f"{len(candidates)} records fit it equally well: {listed}", "add the year, the authors or the DOI"]
        return VerifiedReference(**base, status="ambiguous", record=None, reasons=reasons, candidates=candidates)
    differences = _differences(given, record, evidence)
    said = [
        f"{_FIELD_WORDS[name]} differs: cited {_shown(a)}, record {_shown(b)}" for name, (a, b) in differences.items()
    ]
    if not differences:
        confidence: Confidence = "high" if evidence.doi or _strong(evidence) else "medium"
        lead = f"matches {record.unique_id}: {_agreeing(evidence)}"
        return VerifiedReference(
            **base, status="verified", record=record, confidence=confidence, reasons=[lead, *evidence.reasons]
        )
    sure = (evidence.doi and "doi" not in differences) or (evidence.title >= SAME_TITLE and len(differences) == 1)
    reasons = [*said, f"the cited work is {record.unique_id}: {_agreeing(evidence)}", *evidence.reasons]
    return VerifiedReference(
        **base,
        status="mismatch",
        record=record,
        differences=differences,
        confidence="high" if sure else "medium",
        reasons=reasons,
    )


def _not_found(
    given: Given, scored: list[tuple[Evidence, MetadataRecord]], known: MetadataRecord | None
) -> dict[str, Any]:
    reasons = []
    if given.doi and known is None:
        reasons.append(f"DOI {given.doi} resolves to no record")
    elif given.doi and known is not None:
        reasons.append(f"DOI {given.doi} belongs to another work: {known.title!r}")
    reasons.append("no record has this title" if given.citation.title is not None else "no title to search for")
    close = False
    if scored:
        evidence, record = scored[0]
        close = evidence.title >= PARTIAL_TITLE
        reasons.append(f"the closest is {_described(record)}: {', '.join(evidence.reasons)}")
    return {"reasons": reasons, "confidence": "medium" if close else "high"}


def _strong(e: Evidence) -> bool:
    return e.title >= SAME_TITLE and e.first_author is True and e.year_off == 0


def _agreeing(e: Evidence) -> str:
    agree = [
        name
        for name, holds in (
            ("DOI", e.doi),
            ("title", e.titled and e.title >= SAME_TITLE),
            ("first author", e.first_author is True),
            ("year", e.year_off == 0),
            ("venue", e.venue is True),
        )
        if holds
    ]
    return ", ".join(agree) + (" agree" if len(agree) > 1 else " agrees") if agree else "nothing else agrees"


_FIELD_WORDS = {"title": "title", "authors": "first author", "year": "year", "venue": "venue", "doi": "DOI"}


def _differences(given: Given, record: MetadataRecord, e: Evidence) -> dict[str, tuple[Any, Any]]:
    found_authors = [str(a.get("name") or "") for a in record.author or [] if isinstance(a, dict)]
    out: dict[str, tuple[Any, Any]] = {}
    if e.titled and given.title and e.title < SAME_TITLE:
        out["title"] = (given.title, record.title)
    if e.first_author is False or e.authors_clash:
        out["authors"] = (list(given.authors), found_authors)
    if e.year_off not in (None, 0):
        out["year"] = (given.year, record.publication_published_year)
    if e.venue is False:
        out["venue"] = (given.venue, record.publication_venue_name_unified)
    if given.doi and normalize_doi(given.doi) != normalize_doi(record.doi or ""):
        out["doi"] = (given.doi, record.doi)
    return out


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(value[:3]) + (" ..." if len(value) > 3 else "") if value else "none"
    return repr(value) if isinstance(value, str) else str(value)


def _described(record: MetadataRecord) -> str:
    first = next((str(a.get("name")) for a in record.author or [] if isinstance(a, dict) and a.get("name")), None)
    parts = [
        p for p in (first, str(record.publication_published_year or ""), record.publication_venue_name_unified) if p
    ]
    return f"{record.unique_id} ({', '.join(parts)}: {record.title!r})"


# -- progress ------------------------------------------------------------------------------------


class _Bar:
    """The references checked, and the requests left with the time the quota implies."""

    def __init__(self, total: int, estimate: int, listen: Listen | None, rate: int | None) -> None:
        from paperlens._progress import Progress

        self.rate = rate
        self.progress = Progress(total=total, unit="references", desc=self._desc(estimate), listen=listen)

    def _desc(self, requests: int) -> str:
        if not self.rate:
            return f"verifying ({requests} requests)"
        minutes = requests / self.rate
        span = f"{minutes:.0f} min" if minutes >= 1 else f"{minutes * 60:.0f} s"
        return f"verifying ({requests} requests, about {span} at {self.rate}/min)"

    def requests_left(self, n: int) -> None:
        self.progress.bar.set_description_str(self._desc(n), refresh=True)

    def update(self) -> None:
        self.progress.update()

    def close(self) -> None:
        self.progress.close()


def _bar(progress: bool, total: int, estimate: int, listen: Listen | None, rate: int | None) -> _Bar | None:
    return _Bar(total, estimate, listen, rate) if progress else None
