"""A free-text citation's words and parts: :func:`parse_reference` (authors, year, title, venue,
DOI) and the word helpers the matching scores with."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

__all__ = [
    "CJK",
    "STOP",
    "WORD",
    "Citation",
    "abbreviates",
    "fold",
    "found",
    "is_initials",
    "near",
    "parse_reference",
    "terms",
    "words",
]

# -- text ---------------------------------------------------------------------------------------

STOP = frozenset(
    (  # noqa: SIM905 (a word list)
        "a an and are as at be by for from has have in is it its of on or our that the their this to was we "
        "were which with what how does do can about between into via"
    ).split()
)
CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+")
WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lower case without accents (``Müller`` as ``muller``); CJK text unchanged."""
    stripped = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped).lower()


def words(text: str) -> list[str]:
    """The folded words of ``text``, CJK runs as their character pairs."""
    out: list[str] = []
    for word in WORD.findall(fold(text)):
        start = 0
        for run in CJK.finditer(word):
            out.extend(filter(None, [word[start : run.start()]]))
            chars = run.group()
            out.extend([chars] if len(chars) == 1 else [chars[i : i + 2] for i in range(len(chars) - 1)])
            start = run.end()
        out.extend(filter(None, [word[start:]]))
    return out


def terms(text: str) -> list[str]:
    """Content words: no stop words, a plural ``s`` dropped, each once in order."""
    terms = (w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words(text))
    return list(dict.fromkeys(t for t in terms if t not in STOP))


def near(a: str, b: str) -> bool:
    """Equal, or one typo apart (two in words of 8 letters or more); a swap of neighbours is one."""
    if a == b:
        return True
    if min(len(a), len(b)) < 4 or abs(len(a) - len(b)) > 2:
        return False
    limit = 1 if max(len(a), len(b)) < 8 else 2
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            row.append(cost)
        if min(row) > limit:
            return False
        before, previous = previous, row
    return previous[-1] <= limit


def found(word: str, pool: Sequence[str], pool_set: frozenset[str]) -> bool:
    return word in pool_set or any(near(word, other) for other in pool)


def abbreviates(short: str, word: str) -> bool:
    """``short`` is ``word`` or an abbreviation of it (``Mar.`` for ``Marine``)."""
    return (word.startswith(short) and (len(short) >= 3 or short == word)) or near(short, word)


# -- parsing ------------------------------------------------------------------------------------

_DOI = re.compile(r"(?:https?://(?:dx\.|www\.)?doi\.org/|\bdoi:\s*)?(10\.\d{4,9}/[^\s\"'<>]+)", re.IGNORECASE)
_URL = re.compile(r"https?://\S+|\b(?:Retrieved|Available) from\b:?", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\w./-])(1[6-9]\d\d|20\d\d)[a-z]?(?![\w/-])")
_PAREN_YEAR = re.compile(r"\((?:[^()\d]*\s)?(1[6-9]\d\d|20\d\d)[a-z]?\)")
_QUOTED = re.compile(
    r"[\"\u201c\u201d\u00ab\u201e]([^\"\u201c\u201d\u00bb]{6,}?)[,.]?[\"\u201c\u201d\u00bb]"  # "Title", “Title”
    r"|(?<!\w)['\u2018]([^'\u2018\u2019]{6,}?)[,.]?['\u2019](?!\w)"  # 'Title', or in typographic single quotes
)
# "vol. 12", "pp. 45-67": a number follows (an initial "P." before "et al." is no page).
_BIBLIO = re.compile(
    r"\b(?:vol|no|pp|p|iss|art)\.\s*\d[\w\u2013-]*|\b\d+\s*\(\d{1,3}\)(?:\s*:\s*[\w\u2013-]+)?|[:,]\s*\d+\s*[\u2013-]\s*\d+"
    r"|;\s*\d+(?:\s*\(\d+\))?",
    re.IGNORECASE,
)
# "et al.", and GB/T 7714's 等, Japanese ほか / 他 and Korean 외 after a name list.
_ET_AL = re.compile(r"\bet\s*al\b\.?|(?<=[,\s])(?:等|ほか|他|외)(?=\s*[.,:(]|\s*$)", re.IGNORECASE)
# GB/T 7714's document type markers: [J] journal, [C] proceedings, [M] book, [EB/OL] web page...
_MARKER = re.compile(r"\[\s*(J|C|M|D|R|N|A|G|Z|S|P|DB|CP|DS|EB|[A-Z]{1,2}/OL)\s*\](?://|\.)?")
_MARKER_KINDS = {"EB/OL": "eb/ol", "DB/OL": "ds", "DS": "ds", "DB": "ds", "CP": "cp", "CP/OL": "cp", "S": "s", "P": "p"}
# Works the service does not index, as APA and others mark them.
_WEB = re.compile(
    r"\[(?:online|internet|web ?page|computer (?:software|program)|software|data ?set)\]|\bretrieved from\b"
    r"|\baccessed\b|\bavailable (?:online|at|from)\b",
    re.IGNORECASE,
)
_NO_DATE = re.compile(r"\(\s*n\.\s*d\.\s*\)|(?<!\w)n\.\s?d\.(?!\w)")
# A volume and its page as "Venue 30:683" or "30(2):683" writes them.
_VOLUME_PAGE = re.compile(r"\b(?!(?:1[6-9]|20)\d\d\b)\d+\s*(?:\(\d{1,3}\))?\s*:\s*[A-Za-z]?\d+(?:[\u2013-]\d+)?\b")
_PARTICLES = frozenset(
    ["van", "von", "de", "der", "den", "da", "del", "della", "di", "du", "la", "le", "ter", "dos", "das"]
)
_TITLE_WORDS = STOP - {"and"} | {"under", "towards", "toward", "using", "versus", "without", "through"}


def is_initials(word: str) -> bool:
    bare = word.strip(".-")
    return bool(bare) and (len(bare) <= 2 or (bare.isupper() and len(bare) <= 3)) and bare[:1].isupper()


def _looks_like_names(piece: str) -> bool:
    """Author names (``Lindqvist, G.``, ``J. Smith and A. Doe``), not a title in title case."""
    words = re.findall(r"[^\W\d_][\w'\u2019.-]*", piece)
    if not words or ":" in piece or re.search(r"[.?!]\s+\w\w", _ET_AL.sub("", piece)):
        return False  # several sentences, not one list of names
    if piece.isupper() and not any(is_initials(w) for w in words) and not CJK.search(piece):
        return False  # a title in capitals ("GATE FIDELITY"), not "SMITH J, DOE A"
    for word in words:
        low = word.lower().strip(".")
        if low in ("and", "et", "al") or low in _PARTICLES or is_initials(word):
            continue
        cjk = CJK.match(word)
        if CJK.search(word) and not cjk:
            return False  # Latin then CJK in one word ("T细胞", "QASMBenchに"): a title
        if low in _TITLE_WORDS or not (word[0].isupper() or cjk) or (cjk and len(word) > 6):
            return False
    separated = (
        "," in piece or "&" in piece or "\u30fb" in piece or " and " in piece or _ET_AL.search(piece) is not None
    )
    return separated or len(words) <= 3


@dataclass(frozen=True)
class Citation:
    """What :func:`parse_reference` read from a free-text citation.

    Attributes:
        text: the citation as given.
        authors: the author name words in order (surnames and given names; initials left out).
        first_author: the first author as ``author`` ``MATCH`` filters take it (a surname, or
            given name and surname), or None.
        et_al: the author list ends with "et al.".
        year: the publication year, or None.
        title: the title, or None when no part of the text looks like one.
        venue: what follows the title (journal, proceedings...), or None.
        doi: a DOI found in the text, or None.
        people: each author as written, without initials (``["Lindqvist", "Grace Zhang"]``).
        kind: what the text says the work is, when it says it: a GB/T 7714 marker
            (``eb/ol``, ``ds``, ``cp``, ``s``, ``p``) or ``online`` ("Retrieved from",
            ``[Online]``, "accessed" without a DOI), else None.
    """

    text: str
    authors: list[str] = field(default_factory=list)
    first_author: str | None = None
    et_al: bool = False
    year: int | None = None
    title: str | None = None
    venue: str | None = None
    doi: str | None = None
    people: list[str] = field(default_factory=list)
    kind: str | None = None


def parse_reference(text: str) -> Citation:
    """Reads authors, year, title, venue and DOI from a citation in any common style (APA,
    MLA, Chicago, Harvard (``Venue 30:683``), IEEE, Vancouver, Nature, GB/T 7714 in Chinese and
    English (``等``, ``[J]``), Japanese (``・``, ``ほか``) and Korean (``외``) styles, or informal
    ``Smith et al., Nature 2019, coral bleaching``). Quoted text is the title; otherwise the
    leading run of name-like parts is the author list and the next sentence the title; a
    title-first line (``TITLE. Authors. Venue, year``) is read too. APA's "(n.d.)" is no title.

    >>> from paperlens.matching import parse_reference
    >>> c = parse_reference("Smith, J., & Doe, A. (2019). Coral bleaching at scale. Nature, 12(3), 4-9.")
    >>> c.authors, c.year, c.title, c.venue
    (['Smith', 'Doe'], 2019, 'Coral bleaching at scale', 'Nature')
    """
    work = " ".join(unicodedata.normalize("NFC", text).split())
    work = work.replace("\uff0c", ", ").replace("\u3002", ". ").replace("\uff0e", ". ").replace("\uff1a", ": ")
    doi_match = _DOI.search(work)
    doi = doi_match.group(1).rstrip(".,;)]") if doi_match else None
    if doi_match:
        work = work[: doi_match.start()] + " " + work[doi_match.end() :]
    marker = _MARKER.search(work)
    kind = _MARKER_KINDS.get(marker.group(1)) if marker else None
    if kind is None and doi is None and _WEB.search(work):
        kind = "online"
    work = " ".join(_MARKER.sub(". ", work).split())  # a marker ends the title
    work = _BIBLIO.sub(" ", _VOLUME_PAGE.sub(" ", _URL.sub(" ", work)))
    year_match = _PAREN_YEAR.search(work) or _last(_YEAR.finditer(work))
    year = int(year_match.group(1)) if year_match else None
    if year_match is None:
        year_match = _NO_DATE.search(work)  # where the year would be: it ends the author list

    quoted = _QUOTED.search(work)
    title: str | None
    venue: str | None
    if quoted:
        title = quoted.group(1) or quoted.group(2) or None
        names, rest = work[: quoted.start()], _cut(work[quoted.end() :], year_match, quoted.end())
        venue = next(filter(None, map(_venue, rest.split(","))), None)
    else:
        names, title, venue = _split_unquoted(work, year_match)
    people, et_al = _names(names)
    authors = [w for person in people for w in person.split()]
    return Citation(
        text=text,
        authors=authors,
        first_author=people[0] if people else None,
        et_al=et_al,
        year=year,
        title=_clean(title or "") or None,
        venue=venue or None,
        doi=doi,
        people=people,
        kind=kind,
    )


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    found = None
    for found in matches:  # noqa: B007 - the last one is wanted
        pass
    return found


def _cut(rest: str, year: re.Match[str] | None, offset: int) -> str:
    """``rest`` (starting at ``offset`` of the text) without the year."""
    if year is None or year.end() <= offset:
        return rest
    start, end = year.start() - offset, year.end() - offset
    return rest[:start] + " " + rest[end:]


def _clean(piece: str) -> str:
    piece = re.sub(r"^(?:[Ii]n:?\s+)?(?:[Pp]roc(?:eedings|\.)?(?:\s+of)?\s+)?", "", piece.strip(" .,;:()[]"))
    return piece.strip(" .,;:()[]")


def _venue(piece: str) -> str | None:
    """The venue, without a trailing volume or page numbers."""
    venue = _clean(re.sub(r"(?:(?:^|[\s,;:]+)\d[\d\s,;:()\u2013-]*)+$", "", _clean(piece)))
    return venue if re.search(r"[^\W\d_]", venue) else None


def _after_names(before: str, year: re.Match[str]) -> bool:
    """The year follows the author list: ``Smith, J. (2019)``, ``Smith, John. 2019.``, not
    ``Smith, Nature 2019``."""
    ended = year.group().startswith("(") or before.rstrip().endswith((".", ","))
    return ended and bool(before.strip()) and _looks_like_names(before)


def _split_unquoted(work: str, year: re.Match[str] | None) -> tuple[str, str | None, str | None]:
    """(author part, title, venue) of a citation without quotes."""
    et_al = _ET_AL.search(work)
    if et_al is not None and _looks_like_names(work[: et_al.end()]):
        names, rest = work[: et_al.end()], _cut(work[et_al.end() :], year, et_al.end())
    elif year is not None and _after_names(work[: year.start()], year):
        # Author-year styles: "Smith, J. (2019). Title. Venue."
        names, rest = work[: year.start()], work[year.end() :]
    else:
        names, rest = "", _cut(work, year, 0)
        colon = re.match(r"^([^:]{1,80}?)\s*:\s*(.+)$", rest)
        if colon is not None and CJK.search(colon.group(1)) and _looks_like_names(colon.group(1)):
            # Japanese: "山田太郎・鈴木花子: 題名, 雑誌名, 2019."
            names, rest = colon.group(1), colon.group(2).replace(",", ".", 1)
    pieces = [p for p in (_clean(p) for p in re.split(r"(?<=[.?!])\s+|\s+[.]\s+", rest)) if p]
    more = not names or _ends_in_initial(names)
    while more and len(pieces) > 1 and _looks_like_names(pieces[0]):
        # "Tanaka, D. & Rossi, U. Title": the list goes on after an initial's full stop.
        names += " " + pieces[0]
        more = _ends_in_initial(pieces.pop(0))
    if len(pieces) == 1 and "," in pieces[0]:
        # Informal: "Smith et al., Nature 2019, coral bleaching": the longest part is the title.
        parts = [p for p in (_clean(p) for p in pieces[0].split(",")) if p]
        title = max(parts, key=lambda p: len(words(p)))
        if not names and parts[0] is not title and _looks_like_names(parts[0]):
            names = parts.pop(0)  # "Smith, Nature 2019, coral bleaching"
        return names, title, _venue(", ".join(p for p in parts if p is not title))
    if not pieces:
        return names, None, None
    if not names and len(pieces) > 1 and re.search(r",|&|\band\b", pieces[1]) and _looks_like_names(pieces[1]):
        # Title first: "TITLE. Lindqvist G, Zhang T. Venue, 1994."
        return pieces[1], pieces[0], _venue(". ".join(pieces[2:]))
    return names, pieces[0], _venue(". ".join(pieces[1:]))


def _ends_in_initial(names: str) -> bool:
    words = names.split()
    return (bool(words) and is_initials(words[-1].rstrip(","))) or _ET_AL.search(names[-8:]) is not None


def _names(part: str) -> tuple[list[str], bool]:
    """(each person's name words, without initials; et al.) of an author list."""
    et_al = _ET_AL.search(part) is not None
    part = _ET_AL.sub(" ", part)
    people = [p for p in re.split(r"\s*(?:;|,|&|\u30fb|\band\b|\bund\b|\bet\b)\s*", part) if p.strip(" .")]
    names: list[str] = []
    for person in people:
        words = [w.strip(".()") for w in person.split() if not is_initials(w) or CJK.match(w)]
        words = [w for w in words if not any(ch.isdigit() for ch in w)]
        words = [w for w in words if w and w.lower() not in ("and", "et", "al")]
        written = person.split()
        if not words and len(written) > 1 and written[0].isupper() and len(written[0].strip(".")) > 1:
            words = [written[0].strip(".")]  # GB/T 7714's "DOE A": a short surname in capitals, then initials
        if words:
            names.append(" ".join(words))
    return names, et_al
