"""Free-text citations matched to records: ``client.match_reference(text)``.

A citation is parsed (:func:`parse_reference`: authors, year, title, venue, DOI) and looked
for in as few requests as it takes, usually one:

1. a DOI, when the text has one: the record holding it (``client.lookup``; for a list of
   citations, all their DOIs in one lookup);
2. the title words as the ``/meta-search`` full-text query, within the year range
   ``year - 1 .. year + 1``;
3. only when no confident match yet: every record whose author field matches (``MATCH``) the first
   author's name within that year range, one page of the largest size, which finds a title
   too garbled for the full-text query;
4. only when still none: ``/agentic-search`` for the title (its vector recall forgives typos),
   then the records of the promising papers it names, in one ``/meta-search``.

A citation of a paper the service does not have costs all four (about 3.4 requests).

Each candidate is scored against the citation (title words, first author and other authors,
year distance, venue) into a :class:`ReferenceMatch` saying why. ``confidence="high"`` needs
the DOI, or a near-identical title, the first author and the year (within one), no venue or
co-authors that the record lacks, and a clear lead over every other candidate, so it is almost
never wrong (``benches/bench_matching.py`` measures it); ``"medium"`` is worth a look, ``"low"``
is a guess.

>>> text = "Lindqvist G, Zhang T. Gate fidelity under quantum advantage: a large-scale study. 1994."
>>> best = client.match_reference(text)[0]
>>> best.confidence, best.record.unique_id, best.reasons
('high', 'W4000000000', ['title words 8/8', 'first author Lindqvist', 'authors 2/2', 'year 1994 (+0)'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from paperlens import _checks as checks
from paperlens import _citation as cite
from paperlens._citation import Citation, parse_reference
from paperlens._contract import PAGE_SIZE_MAX
from paperlens._operation import Call, Plan
from paperlens._progress import Listen
from paperlens.filters import Filter

if TYPE_CHECKING:
    from paperlens.types import MetadataRecord

__all__ = ["Citation", "Confidence", "ReferenceMatch", "match_many_plan", "match_plan", "parse_reference"]

Confidence = Literal["high", "medium", "low"]

#: Records asked for by the title query: enough for every same-titled work to be seen.
TITLE_PAGE_SIZE = 50


# -- scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReferenceMatch:
    """A candidate record for a citation.

    Attributes:
        record: the matched record (``MetadataRecord``, the default field set).
        score: 0 to 1; how well the record agrees with the citation.
        confidence: ``"high"`` (the DOI, or title, first author and year agree and no other
            candidate comes close: almost never wrong), ``"medium"`` (probably; worth a
            look) or ``"low"`` (a guess).
        reasons: why, e.g. ``["DOI matches", "title words 9/10", "first author Smith",
            "year 2019 (+0)", "venue Nature"]``.
    """

    record: MetadataRecord
    score: float
    confidence: Confidence
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Evidence:
    title: float
    first_author: bool
    year_off: int | None
    doi: bool
    #: The citation names a venue, or co-authors, that the candidate does not have.
    clash: bool
    score: float
    reasons: list[str]


class _Reference:
    """A parsed citation, with its words ready for comparisons."""

    def __init__(self, citation: Citation) -> None:
        self.citation = citation
        self.title = cite.terms(citation.title or citation.text)
        self.title_set = frozenset(self.title)
        self.names = [cite.fold(a) for a in citation.authors]
        self.leading = self.names[:2]
        self.venue = cite.terms(citation.venue) if citation.venue else []
        self.squeezed = cite.fold("".join(citation.authors))


@dataclass(frozen=True)
class _Candidate:
    """The fields scored, from a record or from an ``agentic_search`` hit."""

    title: str
    authors: list[str]
    year: int | None
    venue: str | None
    doi: str | None = None

    @classmethod
    def of(cls, record: MetadataRecord) -> _Candidate:
        names = [str(a.get("name") or "") for a in record.author or [] if isinstance(a, dict)]
        return cls(
            record.title or "",
            names,
            record.publication_published_year,
            record.publication_venue_name_unified,
            record.doi,
        )


def _surname(name: str) -> str:
    parts = cite.fold(name).replace(",", " ").split()
    if len(parts) > 1 and cite.CJK.match(parts[0]):
        return parts[0]  # family name first
    return parts[-1] if parts else ""


def _has_author(ref: _Reference, name: str, pool: Sequence[str]) -> bool:
    surname = _surname(name)
    if cite.CJK.match(surname):
        return surname in ref.squeezed
    return bool(surname) and any(cite.near(surname, word) for word in pool)


def _authors(ref: _Reference, names: list[str]) -> tuple[float, bool, bool, list[str]]:
    """(0..1, the first author matches, the co-authors clash, reasons): the first author counts
    most; then the candidate's authors found in the citation and the citation's names found in
    the candidate (a list cut short by "et al." only for the names it shows). They clash when
    half the candidate's are missing from the citation, or the citation lists the authors in
    full and half its names are missing from the candidate."""
    if not ref.names or not names:
        return 0.3, False, False, []
    first = _has_author(ref, names[0], ref.leading)
    shown = names[:1] if ref.citation.et_al else names
    found = sum(_has_author(ref, n, ref.names) for n in shown)
    words = [w for n in names for w in cite.words(n)]
    known = sum(cite.CJK.match(w) is not None or cite.found(w, words, frozenset(words)) for w in ref.names)
    score = (0.6 if first else 0.0) + 0.2 * found / len(shown) + 0.2 * known / len(ref.names)
    surname = names[0] if cite.CJK.match(names[0]) else names[0].split()[-1]
    reasons = [f"first author {surname}" if first else "first author differs"]
    if len(shown) > 1:
        reasons.append(f"authors {found}/{len(shown)}")
    missing = not ref.citation.et_al and len(ref.names) >= 3 and known < len(ref.names) / 2
    clash = (len(shown) > 1 and found <= len(shown) / 2) or missing
    return score, first, clash, reasons


def _evidence(ref: _Reference, candidate: _Candidate) -> _Evidence:
    c = ref.citation
    doi = bool(c.doi and candidate.doi and c.doi.lower() == candidate.doi.lower())
    reasons = ["DOI matches"] if doi else []

    words = cite.terms(candidate.title)
    found = sum(cite.found(w, ref.title, ref.title_set) for w in words)
    recall = found / len(words) if words else 0.0
    covered = sum(cite.found(w, words, frozenset(words)) for w in ref.title)
    precision = covered / len(ref.title) if ref.title else 0.0
    title = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    reasons.append(f"title words {found}/{len(words)}")

    authors, first, clash, said = _authors(ref, candidate.authors)
    reasons += said

    year_off = None if c.year is None or candidate.year is None else candidate.year - c.year
    year = 0.4 if year_off is None else {0: 1.0, 1: 0.6, -1: 0.6}.get(year_off, 0.0)
    if year_off is not None:
        reasons.append(f"year {candidate.year} ({year_off:+d})")

    venue_words = cite.terms(candidate.venue or "")
    venue = 0.4
    if ref.venue and venue_words:
        venue = sum(any(cite.abbreviates(v, w) for w in venue_words) for v in ref.venue) / len(ref.venue)
        if venue >= 0.6:
            reasons.append(f"venue {candidate.venue}")
        else:
            clash = True
            reasons.append(f"venue differs ({candidate.venue})")

    score = 0.55 * title + 0.25 * authors + 0.12 * year + 0.08 * venue
    if doi:
        score = 0.5 + 0.5 * score
    return _Evidence(title, first, year_off, doi, clash, round(score, 4), reasons)


def _confidence(best: _Evidence, runner_up: float | None) -> Confidence:
    clear = runner_up is None or best.score - runner_up >= 0.08
    year_ok = best.year_off is None or abs(best.year_off) <= 1
    if best.doi and best.title >= 0.6:
        return "high"
    if best.title >= 0.8 and best.first_author and year_ok and clear and not best.clash:
        return "high"
    if best.title >= 0.6 and (best.first_author or (year_ok and best.year_off is not None)):
        return "medium"
    return "medium" if best.score >= 0.6 else "low"


def _ranked(ref: _Reference, records: Iterable[MetadataRecord], top: int) -> list[ReferenceMatch]:
    """The ``top`` best candidates (each record once), best first; only the best can be
    ``"high"``, and only with a clear lead."""
    unique: dict[str, MetadataRecord] = {}
    for record in records:
        unique.setdefault(record.unique_id or record.doc_id or str(id(record)), record)
    scored = sorted(((_evidence(ref, _Candidate.of(r)), r) for r in unique.values()), key=lambda p: -p[0].score)
    matches = []
    for rank, (evidence, record) in enumerate(scored[:top]):
        runner_up = scored[1][0].score if len(scored) > 1 else None
        confidence = _confidence(evidence, runner_up if rank == 0 else evidence.score)
        matches.append(ReferenceMatch(record, evidence.score, confidence, evidence.reasons))
    return matches


# -- plans --------------------------------------------------------------------------------------

#: Chunks asked of ``agentic_search`` (several may come from one paper).
AGENTIC_TOP_K = 20
#: Below this title agreement a hit is not worth fetching its record.
_PROMISING = 0.5


def _year_filters(year: int | None) -> list[Filter]:
    if year is None:
        return []
    return [Filter("publication_published_year", ">=", year - 1), Filter("publication_published_year", "<=", year + 1)]


def _query(ref: _Reference) -> str | None:
    """The title's words for the full-text query (no stop words: they only cost matches)."""
    words = [w for w in cite.WORD.findall(ref.citation.title or "") if w.lower() not in cite.STOP]
    return " ".join(words) or None


def _settled(matches: list[ReferenceMatch]) -> bool:
    return bool(matches) and matches[0].confidence == "high"


def _search(ref: _Reference, top: int, known: MetadataRecord | None) -> Plan[list[ReferenceMatch]]:
    """Steps 2 to 4 of the module's description, after the DOI's record (``known``); each
    only while the best candidate is not ``"high"``."""
    c = ref.citation
    candidates = [known] if known is not None else []
    matches = _ranked(ref, candidates, top)
    query = _query(ref)
    if not _settled(matches) and query is not None:
        size = max(top, TITLE_PAGE_SIZE)
        page = yield Call("meta_search", (query,), {"filters": _year_filters(c.year) or None, "page_size": size})
        candidates.extend(page.results)
        matches = _ranked(ref, candidates, top)
    if not _settled(matches) and c.first_author is not None and cite.WORD.search(c.first_author):
        author = Filter("author", "match", c.first_author)
        page = yield Call("meta_search", (), {"filters": [author, *_year_filters(c.year)], "page_size": PAGE_SIZE_MAX})
        candidates.extend(page.results)
        matches = _ranked(ref, candidates, top)
    if not _settled(matches):
        candidates.extend((yield from _semantic(ref, {r.doc_id for r in candidates})))
        matches = _ranked(ref, candidates, top)
    return matches


def _semantic(ref: _Reference, seen: set[str | None]) -> Plan[list[MetadataRecord]]:
    """Step 4: ``agentic_search`` for the title (its vector recall forgives what the keyword
    query cannot), then the records of the promising papers it names, in one request."""
    c = ref.citation
    years = {"publication_published_year": {"gte": c.year - 1, "lte": c.year + 1}} if c.year else None
    answer = yield Call("agentic_search", ((c.title or c.text)[:4096],), {"top_k": AGENTIC_TOP_K, "filters": years})
    wanted: dict[str, None] = {}
    for hit in answer.hits:
        if hit.doc_id and hit.doc_id not in seen:
            candidate = _Candidate(hit.title or "", list(hit.author or []), hit.publication_published_year, None)
            if _evidence(ref, candidate).title >= _PROMISING:
                wanted[hit.doc_id] = None
    if not wanted:
        return []
    page = yield Call("meta_search", (), {"filters": Filter("doc_id", "in", list(wanted)), "page_size": PAGE_SIZE_MAX})
    return list(page.results)


def _dois(refs: Iterable[_Reference]) -> Plan[dict[str, MetadataRecord]]:
    """The records of the citations' DOIs, by DOI as written, in one lookup."""
    dois = list(dict.fromkeys(r.citation.doi for r in refs if r.citation.doi))
    if not dois:
        return {}
    found = yield Call("lookup", (dois,), {"by": "doi"})
    return dict(found.found)


def match_plan(text: str, *, top: int) -> Plan[list[ReferenceMatch]]:
    """The plan of ``client.match_reference``: candidates for one citation, best first.

    Raises:
        ValidationError: ``text`` is empty or not a string, or ``top`` is not 1..200; before
            any request.
    """
    ref = _Reference(parse_reference(checks.non_empty_text("text", text)))
    checks.count("top", top, 1, maximum=PAGE_SIZE_MAX)
    known = yield from _dois([ref])
    return (yield from _search(ref, top, known.get(ref.citation.doi or "")))


def match_many_plan(
    texts: Iterable[str], *, top: int, progress: bool, listen: Listen | None = None
) -> Plan[list[list[ReferenceMatch]]]:
    """The plan of ``client.match_references``: :func:`match_plan` for each text, in order.
    A text given twice (up to whitespace) is matched once; the DOIs of all texts are looked
    up together first. ``progress=True`` shows a bar of the citations matched, with the pacing
    and retry waits of the client's transport (``listen``).

    Raises:
        ValidationError: ``texts`` is a string, or one of them is empty or not a string
            (named by position: ``texts[3]``), or ``top`` is not 1..200; before any request.
    """
    checks.not_one_string("texts", texts, "citations")
    given = [checks.non_empty_text(f"texts[{i}]", t) for i, t in enumerate(texts)]
    checks.count("top", top, 1, maximum=PAGE_SIZE_MAX)
    refs = {key: _Reference(parse_reference(t)) for key, t in ((" ".join(t.split()), t) for t in given)}
    known = yield from _dois(refs.values())
    bar = None
    if progress:
        from paperlens._progress import Progress

        bar = Progress(total=len(refs), unit="references", desc="matching", listen=listen)
    answers: dict[str, list[ReferenceMatch]] = {}
    try:
        for key, ref in refs.items():
            answers[key] = yield from _search(ref, top, known.get(ref.citation.doi or ""))
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return [list(answers[" ".join(t.split())]) for t in given]
