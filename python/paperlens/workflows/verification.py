"""The code of :mod:`paperlens.verification`, the public module that re-exports it and documents it."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from paperlens.base import _checks as checks
from paperlens.base import _citation as cite
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.base._ids import normalize_doi
from paperlens.base._progress import Listen
from paperlens.machinery._operation import Call, Plan
from paperlens.results._formats import CITATION_FIELDS
from paperlens.workflows._given import Given, read_references
from paperlens.workflows.matching import TIE, Confidence, Evidence, rank, title_query

if TYPE_CHECKING:
    from paperlens.results.types import MetadataRecord

__all__ = ["FIELDS", "FIELD_NAMES", "STATUSES", "Status", "Verification", "VerifiedReference", "verify_plan"]

Status = Literal["verified", "mismatch", "not_found", "ambiguous", "unverifiable"]
#: Every status, in the order counts show them.
STATUSES = ("verified", "mismatch", "not_found", "ambiguous", "unverifiable")

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
        status: ``"verified"``, ``"mismatch"``, ``"not_found"``, ``"ambiguous"`` or
            ``"unverifiable"`` (see the module's documentation).
        record: the cited record (verified, mismatch), or None.
        differences: field (``title``, ``authors``, ``year``, ``venue``, ``doi``) to
            ``(given, found)``, for a mismatch.
        confidence: ``"high"``, ``"medium"`` or ``"low"``: how sure the status is.
        reasons: why, in words (``"year differs: cited 1995, record 1994"``).
        key: the citation key (BibTeX key, CSL ``id``), or None.
        candidates: the records that fit equally well (ambiguous).
        given: what was read from the reference (title, authors, year, venue, DOI, and a
            BibTeX entry as written).
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
        counted: Counter[str] = Counter(item.status for item in self.items)
        return {status: counted[status] for status in STATUSES}

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

        frame = pd.DataFrame(self.rows(), columns=list(_row_columns()))
        frame["year"] = frame["year"].astype("Int64")  # a year, not a float, beside the references not found
        return frame

    def to_bibtex(self) -> str:
        """The references as BibTeX, corrected where that is safe: a verified or mismatched
        reference whose record is the same work (its DOI agrees, or its title with the first
        author or the year) is written from the record under its own key, keeping the braces
        the given title put around words the record's title still holds (``{NOAA}``); any other
        is kept as given (a BibTeX entry as written, else a ``%`` comment) after a comment
        saying what was found. The ``@string`` definitions that kept entries use come first, and
        their ``crossref`` targets last (where BibTeX wants them), as written."""
        from paperlens.results._formats import bibtex_entry

        used: set[str] = set()
        parts: list[str] = []
        head: dict[str, None] = {}  # the @string definitions kept entries use, once each
        tail: dict[str, None] = {}  # their crossref targets: BibTeX wants them after the entries
        for item in self.items:
            given = item.given
            if item.record is not None and given is not None and _same_work_as(given, item.record):
                parts.append(_protected(bibtex_entry(item.record, item.key, used), given))
                continue
            note = f"% {item.key or 'reference'}: {item.status}: {'; '.join(item.reasons[:1])}"
            if item.record is not None:
                note += f"\n% kept as given: the record found, {_described(item.record)}, is not the same work"
            raw = given.raw if given is not None else None
            parts.append(note + "\n" + (raw.strip() if raw else "% " + " ".join(_input_text(item).split())))
            if raw and given is not None:
                head.update(dict.fromkeys(block.strip() for _, block in given.macros))
                tail.update(dict.fromkeys([given.parent.strip()] if given.parent is not None else []))
        parts = [*head, *parts, *tail]
        return "\n\n".join(parts) + "\n" if parts else ""

    def _repr_html_(self) -> str:
        from paperlens.results._display import verification_html

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
        references: BibTeX text, a path (read by what the file holds), free-text citations,
            CSL-JSON items or a DataFrame.
        progress: a progress bar of the references checked, with the requests left and the
            time they take at ``rate``.
        listen: the client's transport events, so the bar shows pacing and retry waits.
        rate: the client's ``/meta-search`` requests per minute (None: not paced).

    Raises:
        ValidationError: before any request, for input that is none of these, input that
            holds no reference, malformed BibTeX (naming the entry and line, or the budget it
            is over), or an item with nothing to check.
    """
    checks.flag("progress", progress)
    given = read_references(references)
    dois = list(dict.fromkeys(g.doi for g in given if g.doi and _DOI_SHAPE.match(g.doi)))
    estimate = math.ceil(len(dois) / PAGE_SIZE_MAX) + sum(g.doi is None and _searchable(g) for g in given)
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
            if known is None and not _searchable(g):
                items.append(_unverifiable(g))
                if bar is not None:
                    bar.update()
                continue
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


def _searchable(given: Given) -> bool:
    """Worth a title search: a kind of work the service indexes, with a title to search for."""
    return given.kind is None and title_query(given.citation) is not None


def _unverifiable(given: Given) -> VerifiedReference:
    if given.kind is not None:
        doi = f" and its DOI {given.doi} resolves to no record" if given.doi else ""
        why = f"a {given.kind}: a kind of work the service does not index{doi}; check it by hand"
    else:
        why = "too little to search for: no title and no DOI"
    return VerifiedReference(
        given.input, "unverifiable", None, confidence="high", reasons=[why], key=given.key, given=given
    )


def _plan_of(given: Given, known: MetadataRecord | None) -> tuple[MetadataRecord | None, str | None]:
    """The DOI's record, and the title query still needed (None when the DOI settles it, or
    when there is nothing worth searching for)."""
    if not _searchable(given):
        return known, None
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
        ((_differences(given, r, e), e, r) for e, r in scored if _same_work(e)), key=lambda t: (len(t[0]), -t[1].score)
    )
    if not fitting:
        return VerifiedReference(**base, status="not_found", record=None, **_not_found(given, scored, known))
    differences, evidence, record = fitting[0]
    tied = [r for d, e, r in fitting[1:] if len(d) == len(differences) and evidence.score - e.score < TIE]
    if tied:
        candidates = [record, *tied]
        listed = "; ".join(_described(r) for r in candidates)
        reasons = [f"{len(candidates)} records fit it equally well: {listed}", "add the year, the authors or the DOI"]
        return VerifiedReference(**base, status="ambiguous", record=None, reasons=reasons, candidates=candidates)
    said = [_said(name, given, a, b) for name, (a, b) in differences.items()]
    sure = _identified(evidence, differences)
    if not differences:
        lead = f"matches {record.unique_id}: {_agreeing(evidence)}"
        return VerifiedReference(
            **base,
            status="verified",
            record=record,
            confidence="high" if sure else "medium",
            reasons=[lead, *evidence.reasons],
        )
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


def _identified(e: Evidence, differences: dict[str, tuple[Any, Any]]) -> bool:
    """The record is the cited work beyond doubt: the DOI agrees (and the title, when given),
    or the exact title with the first author or the year."""
    title = "title" not in differences
    if e.doi:
        return title or not e.titled
    return e.titled and title and (e.first_author is True or e.year_off == 0)


def _same_work_as(given: Given, record: MetadataRecord) -> bool:
    """What ``to_bibtex`` needs to write the record in the reference's place: the DOI agrees,
    or the title with the first author or the year."""
    evidence = rank(given.citation, [record])[0][0]
    return evidence.doi or (evidence.title >= SAME_TITLE and (evidence.first_author is True or evidence.year_off == 0))


def _protected(entry: str, given: Given) -> str:
    """``entry`` (written from the record) with the braces the given title put around words
    (``{NOAA}``, ``{HadCRUT5}``) around the same words of its title."""
    from paperlens.workflows._bibtex import braced_words

    groups = braced_words(given.raw or "", "title")
    if not groups:
        return entry
    lines = entry.split("\n")
    for n, line in enumerate(lines):
        if line.lstrip().startswith("title = {"):
            start, end = line.index("{") + 1, line.rindex("}")
            value = line[start:end]
            for group in groups:
                pattern = r"(?<![{\w])" + re.escape(group) + r"(?![\w}])"
                value = re.sub(pattern, "{" + group.replace("\\", "\\\\") + "}", value, flags=re.IGNORECASE)
            lines[n] = line[:start] + value + line[end:]
    return "\n".join(lines)


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


_FIELD_WORDS = {"title": "title", "authors": "authors", "year": "year", "venue": "venue", "doi": "DOI"}


def _differences(given: Given, record: MetadataRecord, e: Evidence) -> dict[str, tuple[Any, Any]]:
    """Every given field that does not agree with the record (the module's documentation)."""
    found_authors = [str(a.get("name") or "") for a in record.author or [] if isinstance(a, dict)]
    out: dict[str, tuple[Any, Any]] = {}
    if given.title and record.title and not same_title(given.title, record.title):
        out["title"] = (given.title, record.title)
    if author_gaps(given, found_authors) is not None:
        out["authors"] = (list(given.authors), found_authors)
    if e.year_off not in (None, 0):
        out["year"] = (given.year, record.publication_published_year)
    if e.venue is False:
        out["venue"] = (given.venue, record.publication_venue_name_unified)
    if given.doi and normalize_doi(given.doi) != normalize_doi(record.doi or ""):
        out["doi"] = (given.doi, record.doi)
    return out


def _said(name: str, given: Given, cited: Any, found: Any) -> str:
    if name == "authors":
        return author_gaps(given, found) or f"authors differ: cited {_shown(cited)}, record {_shown(found)}"
    return f"{_FIELD_WORDS[name]} differs: cited {_shown(cited)}, record {_shown(found)}"


def same_title(given: str, found: str) -> bool:
    """The titles are the same words in the same order (case, punctuation, accents, LaTeX and
    "&" for "and" aside); a title given without the record's subtitle (what follows a ``:``,
    ``?`` or ``.``) agrees too."""
    mine = _title_words(given)
    if mine == _title_words(found):
        return True
    cuts = [m.start() for m in re.finditer(r"[:?!.](?:\s|$)", found)]
    return bool(mine) and any(mine == _title_words(found[:at]) for at in cuts)


def _title_words(title: str) -> list[str]:
    """The words compared, hyphenated ones kept whole: "large-scale" is not "large scale"."""
    return [w for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", cite.fold(title.replace("&", " and "))) if w != "and"]


def _person(name: str) -> list[str]:
    """A name's words, folded: ``"Becker, Ximena"`` and ``"Ximena Becker"`` alike."""
    return cite.words(name.replace(",", " "))


def _family_of(name: str) -> str:
    """The family name of a name as given (``"Family, Given"``, ``"Given Family"``, CJK)."""
    if "," in name:
        return " ".join(cite.words(name.split(",", 1)[0]))
    parts = _person(name)
    if not parts:
        return ""
    return parts[0] if cite.CJK.match(parts[0]) else parts[-1]


def _is_person(family: str, name: str) -> bool:
    words = _person(name)
    if cite.CJK.match(family) or not words:
        return bool(family) and (family in "".join(words) or "".join(words) in family)
    last = words[0] if cite.CJK.match(words[0]) else words[-1]
    return cite.near(family, last) or family == " ".join(words[-len(family.split()) :])


def author_gaps(given: Given, found: list[str]) -> str | None:
    """What is wrong with the given authors against the record's, in words, or None when they
    agree: the first author another, a given name the record lacks, or, without "et al.",
    authors missing (how many, and who)."""
    if not given.authors or not found:
        return None
    matched: list[int] = []
    extra: list[str] = []
    for name in given.authors:
        family = _family_of(name)
        at = next((n for n, other in enumerate(found) if n not in matched and _is_person(family, other)), None)
        if at is not None:
            matched.append(at)
        elif not any(family in _person(other) for other in found):  # not a given name split off
            extra.append(name)
    if (matched and matched[0] != 0) or not matched:
        return f"first author differs: cited {_shown(list(given.authors))}, record {_shown(found)}"
    if extra:
        return f"authors differ: {', '.join(extra)} not among the record's {_shown(found)}"
    missing = [name for n, name in enumerate(found) if n not in matched]
    if missing and not given.citation.et_al:
        whom = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        plural = "s" if len(missing) > 1 else ""
        return (
            f"{len(missing)} author{plural} missing: {whom} (cited {len(matched)} of {len(found)}"
            ' without "et al." or "and others")'
        )
    return None


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
        from paperlens.base._progress import Progress

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
