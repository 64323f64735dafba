"""The code of :mod:`paperlens.matching`, the public module that re-exports it and documents it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from paperlens.base import _checks as checks
from paperlens.base import _citation as cite
from paperlens.base._citation import Citation, parse_reference
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.base._ids import normalize_doi
from paperlens.base._progress import Listen
from paperlens.base.filters import Filter
from paperlens.machinery._operation import Call, Plan

if TYPE_CHECKING:
    from paperlens.results.types import MetadataRecord

__all__ = [
    "Citation",
    "Confidence",
    "Evidence",
    "ReferenceMatch",
    "match_many_plan",
    "match_plan",
    "parse_reference",
    "rank",
    "title_query",
    "venue_agreement",
]

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
class Evidence:
    """How one candidate record agrees with a citation (what verification reads too).

    Attributes:
        title: 0..1, the titles' words in the same order (typos forgiven); 0 when the
            citation gives no title (``titled`` False).
        titled: the citation gives a title.
        first_author: the record's first author is the citation's; None when either has none.
        authors_clash: half the co-authors on one side are missing on the other.
        year_off: the record's year minus the citation's; None when either has none.
        doi: the citation's DOI is the record's.
        venue: the venues agree; None when either has none.
        clash: the citation names a venue, or co-authors, that the candidate does not have.
        score: 0..1, the ranking score.
        reasons: the evidence in words.
    """

    title: float
    titled: bool
    first_author: bool | None
    authors_clash: bool
    year_off: int | None
    doi: bool
    venue: bool | None
    clash: bool
    score: float
    reasons: list[str]


#: Words of a DOI and its URL, which are no title.
_DOI_WORDS = frozenset(["doi", "https", "http", "org", "dx", "www"])
#: Words citations add to a venue's name: "Proc. of the ...", "In: ...".
_VENUE_NOISE = frozenset(["proc", "proceeding", "in", "the"])
#: Venues agree when this share of the words on each side is found on the other.
VENUE_AGREES = 0.75
#: Words that say what kind of venue it is: "Transactions on X", "Journal of X" and "X
#: Letters" are three venues, however alike the rest.
_VENUE_KINDS = (
    "journal",
    "transaction",
    "letter",
    "review",
    "magazine",
    "bulletin",
    "annal",
    "communication",
    "conference",
    "symposium",
    "workshop",
)
#: Candidates whose scores are closer than this are a tie: the citation cannot tell them apart.
TIE = 0.005


class _Reference:
    """A parsed citation, with its words ready for comparisons."""

    def __init__(self, citation: Citation) -> None:
        self.citation = citation
        source = citation.title or citation.text.replace(citation.doi or "\0", " ")
        self.title = [w for w in cite.terms(source) if citation.title or w not in _DOI_WORDS]
        self.title_set = frozenset(self.title)
        self.names = [cite.fold(a) for a in citation.authors]
        # The first author's words: the record's first author must be among them.
        first = citation.first_author
        self.leading = [cite.fold(w) for w in first.split()] if first else self.names[:2]
        self.venue = [w for w in cite.terms(citation.venue) if w not in _VENUE_NOISE] if citation.venue else []
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
        return surname in "".join(pool)  # CJK names are not split into words reliably
    return bool(surname) and any(cite.near(surname, word) for word in pool)


def _authors(ref: _Reference, names: list[str]) -> tuple[float, bool | None, bool, list[str]]:
    """(0..1, the first author matches (None: nothing to compare), the co-authors clash,
    reasons): the first author counts most; then the candidate's authors found in the citation
    and the citation's names found in the candidate (a list cut short by "et al." only for the
    names it shows). They clash when half the candidate's are missing from the citation, or
    the citation lists the authors in full and half its names are missing from the candidate."""
    if not ref.names or not names:
        return 0.3, None, False, []
    first = _has_author(ref, names[0], ref.leading)
    shown = names[:1] if ref.citation.et_al else names
    found = sum(_has_author(ref, n, ref.names) for n in shown)
    words = [w for n in names for w in (*cite.words(n), _surname(n))]  # "o'brien" as well as "o", "brien"
    known = sum(cite.CJK.match(w) is not None or cite.found(w, words, frozenset(words)) for w in ref.names)
    score = (0.6 if first else 0.0) + 0.2 * found / len(shown) + 0.2 * known / len(ref.names)
    surname = names[0] if cite.CJK.match(names[0]) else names[0].split()[-1]
    reasons = [f"first author {surname}" if first else f"first author differs (record: {surname})"]
    if len(shown) > 1:
        reasons.append(f"authors {found}/{len(shown)}")
    missing = not ref.citation.et_al and len(ref.names) >= 3 and known < len(ref.names) / 2
    clash = (len(shown) > 1 and found <= len(shown) / 2) or missing
    return score, first, clash, reasons


def _in_order(a: list[str], b: list[str]) -> int:
    """How many words of ``a`` appear in ``b`` in the same order (typos forgiven): a title
    with its words rearranged is another title."""
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b, 1):
            row.append(previous[j - 1] + 1 if x == y or cite.near(x, y) else max(previous[j], row[j - 1]))
        previous = row
    return previous[-1]


def _covers(short: str, word: str) -> bool:
    return word.startswith(short) or cite.abbreviates(short, word)


def _kinds(words: Sequence[str]) -> set[str]:
    """The kinds the words name, in full or abbreviated (``J.``, ``Trans.``, ``Lett.``)."""
    return {kind for kind in _VENUE_KINDS for w in words if kind.startswith(w) and (len(w) >= 3 or w == "j")}


def venue_agreement(given: Sequence[str], found: Sequence[str]) -> float:
    """0..1, both ways: each given word abbreviates one of the record's (``J. Mar. Ecol.``) and
    each of the record's is abbreviated by a given one, so ``Marine Ecology Letters`` is not
    ``Journal of Marine Ecology``; 0 when both name a kind of venue (journal, transactions,
    letters, review, conference...) and the kinds differ."""
    if not given or not found:
        return 0.0
    kinds = _kinds(given), _kinds(found)
    if all(kinds) and kinds[0] != kinds[1]:
        return 0.0
    recall = sum(any(_covers(v, w) for w in found) for v in given) / len(given)
    precision = sum(any(_covers(v, w) for v in given) for w in found) / len(found)
    return min(recall, precision)


def _evidence(ref: _Reference, candidate: _Candidate) -> Evidence:
    c = ref.citation
    doi = bool(c.doi and candidate.doi and normalize_doi(c.doi) == normalize_doi(candidate.doi))
    reasons = ["DOI matches"] if doi else []

    words = cite.terms(candidate.title)
    titled = bool(ref.title)
    title = 2 * _in_order(ref.title, words) / (len(ref.title) + len(words)) if titled and words else 0.0
    found = sum(cite.found(w, ref.title, ref.title_set) for w in words)
    reasons.append(f"title words {found}/{len(words)}" if titled else "no title given")

    authors, first, authors_clash, said = _authors(ref, candidate.authors)
    reasons += said

    year_off = None if c.year is None or candidate.year is None else candidate.year - c.year
    year = 0.4 if year_off is None else {0: 1.0, 1: 0.6, -1: 0.6}.get(year_off, 0.0)
    if year_off is not None:
        reasons.append(f"year {candidate.year} ({year_off:+d})")

    venue_words = [w for w in cite.terms(candidate.venue or "") if w not in _VENUE_NOISE]
    venue, venue_score = None, 0.4
    if ref.venue and venue_words:
        venue_score = venue_agreement(ref.venue, venue_words)
        venue = venue_score >= VENUE_AGREES
        reasons.append(f"venue {candidate.venue}" if venue else f"venue differs (record: {candidate.venue})")

    # A DOI stands for the title a citation does not give.
    score = 0.55 * (title if titled else float(doi)) + 0.25 * authors + 0.12 * year + 0.08 * venue_score
    if doi:
        score = 0.5 + 0.5 * score
    clash = authors_clash or venue is False
    return Evidence(title, titled, first, authors_clash, year_off, doi, venue, clash, round(score, 4), reasons)


def _confidence(best: Evidence, runner_up: float | None) -> Confidence:
    year_ok = best.year_off is None or abs(best.year_off) <= 1
    contradicted = best.first_author is False or not year_ok or best.clash
    title_ok = not best.titled or best.title >= 0.6
    if best.doi and title_ok and not contradicted:
        return "high"  # a DOI that nothing in the citation contradicts
    if runner_up is not None and best.score - runner_up < TIE:
        return "low"
    clear = runner_up is None or best.score - runner_up >= 0.08
    if best.title >= 0.8 and best.first_author and year_ok and clear and not best.clash:
        return "high"
    if (best.doi and title_ok) or (best.title >= 0.8 and not (best.first_author is False and not year_ok)):
        return "medium"
    return "medium" if best.title >= 0.6 and not contradicted else "low"


def rank(citation: Citation, records: Iterable[MetadataRecord]) -> list[tuple[Evidence, MetadataRecord]]:
    """Every distinct record scored against ``citation``, best first."""
    return _scored(_Reference(citation), records)


def _scored(ref: _Reference, records: Iterable[MetadataRecord]) -> list[tuple[Evidence, MetadataRecord]]:
    unique: dict[str, MetadataRecord] = {}
    for record in records:
        unique.setdefault(record.unique_id or record.doc_id or str(id(record)), record)
    return sorted(((_evidence(ref, _Candidate.of(r)), r) for r in unique.values()), key=lambda p: -p[0].score)


def _ranked(ref: _Reference, records: Iterable[MetadataRecord], top: int) -> list[ReferenceMatch]:
    """The ``top`` best candidates (each record once), best first; only the best can be
    ``"high"``, and only with a clear lead; a best tied with the next is ``"low"``."""
    scored = _scored(ref, records)
    matches = []
    for rank, (evidence, record) in enumerate(scored[:top]):
        runner_up = scored[1][0].score if len(scored) > 1 else None
        confidence = _confidence(evidence, runner_up if rank == 0 else evidence.score)
        reasons = evidence.reasons
        if rank == 0 and runner_up is not None and evidence.score - runner_up < TIE and confidence != "high":
            other = scored[1][1].unique_id or scored[1][1].doc_id
            reasons = [*reasons, f"tied with {other}: the citation does not tell them apart"]
        matches.append(ReferenceMatch(record, evidence.score, confidence, reasons))
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


def title_query(citation: Citation) -> str | None:
    """The title's words for the full-text query (no stop words: they only cost matches)."""
    words = [w for w in cite.WORD.findall(citation.title or "") if w.lower() not in cite.STOP]
    return " ".join(words) or None


def _settled(matches: list[ReferenceMatch]) -> bool:
    return bool(matches) and matches[0].confidence == "high"


def _search(ref: _Reference, top: int, known: MetadataRecord | None) -> Plan[list[ReferenceMatch]]:
    """Steps 2 to 4 of the module's description, after the DOI's record (``known``); each
    only while the best candidate is not ``"high"``."""
    c = ref.citation
    candidates = [known] if known is not None else []
    matches = _ranked(ref, candidates, top)
    query = title_query(c)
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
    given = [checks.non_empty_text(f"texts[{i}]", t) for i, t in enumerate(checks.listed("texts", texts, "citations"))]
    checks.count("top", top, 1, maximum=PAGE_SIZE_MAX)
    checks.flag("progress", progress)
    refs = {key: _Reference(parse_reference(t)) for key, t in ((" ".join(t.split()), t) for t in given)}
    known = yield from _dois(refs.values())
    bar = None
    if progress:
        from paperlens.base._progress import Progress

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
