"""The citation formats, BibTeX, RIS and CSL-JSON, of records and of everything that holds
them: the public module is :mod:`paperlens.export` (documented there). A conversion: results
and paginators are seen through ``paperlens.results._result`` and hooks (``_citable_rows``), never as
concrete classes."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from paperlens.base._lazy import is_data_frame
from paperlens.base._unicode import well_formed
from paperlens.results._result import Result, rows_field

__all__ = ["CITATION_FIELDS", "KINDS", "to_bibtex", "to_csl_json", "to_ris"]

#: The record fields the exports read: pass as ``fields=`` to ``meta_search``, ``iter_meta_search``
#: or ``lookup`` (volume, issue and pages are not in the service's default set).
CITATION_FIELDS = [
    "unique_id",
    "doi",
    "title",
    "author",
    "type",
    "metadata_type",
    "publication_published_year",
    "publication_published_date",
    "publication_venue_name_unified",
    "publication_venue_type",
    "publication_venue_issn",
    "publication_publisher",
    "publication_venue_biblio_volume",
    "publication_venue_biblio_issue",
    "publication_venue_biblio_pages",
    "isbn13",
    "isbns",
    "locations",
    "access_oa_url",
]


class Kind(NamedTuple):
    """One kind of work in the three formats, and where BibTeX puts its venue."""

    bibtex: str
    ris: str
    csl: str
    venue: str | None  # the BibTeX field of the venue name


_ARTICLE = Kind("article", "JOUR", "article-journal", "journal")
_PAPER = Kind("inproceedings", "CPAPER", "paper-conference", "booktitle")
_BOOK = Kind("book", "BOOK", "book", "series")
_CHAPTER = Kind("incollection", "CHAP", "chapter", "booktitle")
_THESIS = Kind("phdthesis", "THES", "thesis", "school")
_REPORT = Kind("techreport", "RPRT", "report", "institution")
_PREPRINT = Kind("misc", "UNPB", "article", "howpublished")
_DATASET = Kind("misc", "DATA", "dataset", "howpublished")
_OTHER = Kind("misc", "GEN", "document", "howpublished")

#: The kind of each record ``type`` (Crossref's and OpenAlex's names).
KINDS: dict[str, Kind] = {
    "article": _ARTICLE,
    "journal-article": _ARTICLE,
    "review": _ARTICLE,
    "letter": _ARTICLE,
    "editorial": _ARTICLE,
    "proceedings-article": _PAPER,
    "conference-paper": _PAPER,
    "book": _BOOK,
    "monograph": _BOOK,
    "edited-book": _BOOK,
    "reference-book": _BOOK,
    "book-chapter": _CHAPTER,
    "book-section": _CHAPTER,
    "book-part": _CHAPTER,
    "dissertation": _THESIS,
    "thesis": _THESIS,
    "report": _REPORT,
    "preprint": _PREPRINT,
    "posted-content": _PREPRINT,
    "dataset": _DATASET,
}
#: The kind of a record whose type is missing or unknown, by its venue type.
_BY_VENUE = {"journal": _ARTICLE, "conference": _PAPER, "book series": _BOOK, "repository": _PREPRINT}

_CJK = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003ffff]")
_PARTICLES = frozenset("van von der den de del della di da du dos das la le ter ten bin al el".split())  # noqa: SIM905
_STOPWORDS = frozenset("a an the on of in for and to with from at by via toward towards is are".split())  # noqa: SIM905
_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_SPECIAL = re.compile("[" + re.escape("".join(_LATEX)) + "]")
#: What a verbatim field (``doi``, ``url``) cannot hold as itself: a brace (BibTeX counts them,
#: escaped or not), a backslash (biblatex and readers take ``\_`` for an escape) and whitespace
#: (BibTeX collapses it). A URI holds none of them unencoded (RFC 3986), so they are written
#: percent-encoded: the same URL.
_NOT_VERBATIM = re.compile(r"[{}\\\s]")
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=`)(?=`)")
_PAGE_RANGE = re.compile(r"^\s*([^-\u2010-\u2015\s]+)\s*[-\u2010-\u2015]+\s*([^-\u2010-\u2015\s]+)\s*$")


# -- the three formats -------------------------------------------------------------------------


def to_bibtex(obj: Any) -> str:
    """BibTeX entries of the records in ``obj`` (see the module's documentation for what it
    accepts), one per record, separated by blank lines; ``""`` when there are none.

    Args:
        obj: a record, records, a page, a paginator, a ``Lookup``, ``Deduped`` or a DataFrame.

    Returns:
        UTF-8 text for BibTeX (biber) or bibtexparser: ``@article{lindqvist2019coral, ...}``.

    Raises:
        TypeError: ``obj`` holds something other than records (or is an ``AsyncPaginator``).

    >>> page = client.meta_search("coral bleaching", page_size=2)
    >>> print(paperlens.to_bibtex(page))
    @misc{okafor2002bleaching,
      author = {Okafor, Pedro and Zhang, Lucas and Kim, Lucas and Lindqvist, Olivia and O'Brien, Tamara},
      ...
    @article{hansen1991marine,
      ...
    """
    entries = [_bibtex_entry(work) for work in works(obj)]
    return "\n\n".join(entries) + "\n" if entries else ""


def bibtex_entry(record: Any, key: str | None, used: set[str]) -> str:
    """The BibTeX entry of one record under ``key`` (kept as given), or under its own key
    made unique among ``used`` when None."""
    work = _work(_rows(record)[0])
    work.key = key if key is not None else _unique_key(work.key, used)
    used.add(work.key)
    return _bibtex_entry(work)


def to_ris(obj: Any) -> str:
    """RIS references of the records in ``obj`` (as :func:`to_bibtex` accepts): ``TY`` first,
    ``ER`` last, one tag a line (``AU`` once per author).

    Returns:
        The RIS text (for Zotero, EndNote, rispy); ``""`` when there are no records.

    Raises:
        TypeError: as :func:`to_bibtex`.

    >>> record = client.meta_search("coral bleaching", page_size=1).results[0]
    >>> print(paperlens.to_ris(record))
    TY  - DATA
    ID  - okafor2002bleaching
    AU  - Okafor, Pedro
    ...
    ER  -
    """
    return "\n".join(_ris_entry(work) for work in works(obj))


def to_csl_json(obj: Any) -> list[dict[str, Any]]:
    """CSL-JSON items (the Citation Style Language's input schema) of the records in ``obj``
    (as :func:`to_bibtex` accepts), for citeproc processors, Pandoc and Zotero.

    Returns:
        One dict per record: ``id``, ``type``, ``title``, ``author`` (``family``/``given`` or
        ``literal``), ``issued`` (``date-parts``), ``container-title``, ``DOI``, ``URL``,
        ``volume``, ``issue``, ``page``, ``publisher``, ``ISBN``, ``ISSN``: those the record has.

    Raises:
        TypeError: as :func:`to_bibtex`.

    >>> import json
    >>> lookup = client.lookup(["10.5056/pl.2002.1824", "10.5056/pl.1991.1673"])
    >>> with open("refs.json", "w", encoding="utf-8") as out:
    ...     json.dump(paperlens.to_csl_json(lookup), out, ensure_ascii=False)
    >>> for item in paperlens.to_csl_json(lookup):
    ...     print(item["type"], item["title"])
    dataset Bleaching and coral reef: evidence from Global Coral Reef Monitoring Network
    article-journal Marine biodiversity and bleaching: evidence from NOAA Coral Reef Watch
    """
    return [_csl_item(work) for work in works(obj)]


# -- records to works ----------------------------------------------------------------------------


@dataclass
class Name:
    """A person as the formats need: ``family`` and ``given``, or a ``literal`` name."""

    family: str = ""
    given: str = ""
    literal: str = ""


@dataclass
class Work:
    """One record, read for citation; ``key`` is unique among the works of one export."""

    key: str
    kind: Kind
    title: str | None = None
    authors: list[Name] = field(default_factory=list)
    year: int | None = None
    month: int | None = None
    day: int | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    url: str | None = None
    publisher: str | None = None
    isbn: str | None = None
    issn: str | None = None


def works(obj: Any) -> list[Work]:
    """The records of ``obj`` read as :class:`Work` items with unique keys, in order."""
    used: set[str] = set()
    seen: set[str] = set()
    result = []
    for row in _rows(obj):
        unique_id = row.get("unique_id")
        if isinstance(unique_id, str) and unique_id:
            if unique_id in seen:
                continue
            seen.add(unique_id)
        work = _work(row)
        work.key = _unique_key(work.key, used)
        result.append(work)
    return result


def _rows(obj: Any) -> list[dict[str, Any]]:
    """The wire dicts of the records ``obj`` holds."""
    if obj is None:
        return []
    if isinstance(obj, dict):
        return [_item_dict(obj)]
    if isinstance(obj, Result):
        name = rows_field(obj)
        return [_item_dict(obj)] if name is None else _rows(getattr(obj, name))
    citable_rows = getattr(type(obj), "_citable_rows", None)
    if citable_rows is not None:
        return _rows(citable_rows(obj))
    if is_data_frame(obj):
        return [frame_row(row) for row in obj.to_dict("records")]
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        rows: list[dict[str, Any]] = []
        for item in obj:
            if item is not None:
                rows.extend(_rows(item))
        return rows
    raise TypeError(f"cannot export a {type(obj).__name__}: give records, a page, a paginator or a DataFrame")


def _item_dict(item: Any) -> dict[str, Any]:
    row: dict[str, Any] = item if isinstance(item, dict) else item.to_dict()
    # A relation item names its work by one identifier: {"id": ..., "id_type": "doi"}.
    id_type, ident = row.get("id_type"), row.get("id")
    if isinstance(id_type, str) and isinstance(ident, str) and id_type not in row:
        row = {**row, id_type: ident}
    return row


def frame_row(row: dict[str, Any]) -> dict[str, Any]:
    return {name: _frame_value(value) for name, value in row.items()}


def _frame_value(value: Any) -> Any:
    """A cell as the wire had it: missing values as None, arrays as lists, dates as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _frame_value(value.tolist())
    if isinstance(value, list):
        return [_frame_value(v) for v in value]
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "isoformat") and not isinstance(value, str):
        return value.isoformat()[:10]
    return value


def _text(value: Any) -> str | None:
    """A value as one line of text that UTF-8 can encode (an unpaired surrogate as U+FFFD), or
    None when empty."""
    if value is None:
        return None
    text = " ".join(well_formed(str(value)).split())
    return text or None


def _first(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return next((v for v in value if _text(v)), None)
    return value


def _work(row: dict[str, Any]) -> Work:
    year, month, day = _date(row)
    venue = _text(row.get("publication_venue_name_unified"))
    if venue is None:
        location = _first(row.get("locations"))
        venue = _text(location.get("source_name")) if isinstance(location, dict) else None
    publisher = row.get("publication_publisher")
    if isinstance(publisher, (list, tuple)):
        publisher = "; ".join(p for p in (_text(v) for v in publisher) if p)
    work = Work(
        key="",
        kind=_kind(row),
        title=_text(row.get("title")),
        authors=[name for name in map(author_name, _list(row.get("author"))) if name is not None],
        year=year,
        month=month,
        day=day,
        venue=venue,
        volume=_text(row.get("publication_venue_biblio_volume")),
        issue=_text(row.get("publication_venue_biblio_issue")),
        pages=_text(row.get("publication_venue_biblio_pages")),
        doi=_doi(row.get("doi")),
        url=_url(row),
        publisher=_text(publisher),
        isbn=_text(row.get("isbn13")) or _text(_first(row.get("isbns"))),
        issn=_text(_first(row.get("publication_venue_issn"))),
    )
    work.key = _key(work)
    return work


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _kind(row: dict[str, Any]) -> Kind:
    work_type = str(row.get("type") or "").strip().lower()
    if work_type in KINDS:
        return KINDS[work_type]
    venue_type = str(row.get("publication_venue_type") or "").strip().lower()
    if venue_type in _BY_VENUE:
        return _BY_VENUE[venue_type]
    return _BOOK if row.get("metadata_type") == "ebook" else _OTHER


def _date(row: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    year = row.get("publication_published_year")
    year = year if isinstance(year, int) and not isinstance(year, bool) else None
    match = re.match(r"^(\d{4})-(\d{2})-(\d{2})", str(row.get("publication_published_date") or ""))
    if match is None:
        return year, None, None
    y, m, d = (int(g) for g in match.groups())
    # The service writes a year-only date as January 1st: that day is no information.
    if (m, d) == (1, 1):
        return year or y, None, None
    return year or y, m, d


def _doi(value: Any) -> str | None:
    from paperlens.base._ids import strip_doi

    text = _text(value)
    return strip_doi(text) if text else None


def _url(row: dict[str, Any]) -> str | None:
    for location in _list(row.get("locations")):
        if isinstance(location, dict) and _text(location.get("landing_page_url")):
            return _text(location["landing_page_url"])
    return _text(row.get("access_oa_url"))


def author_name(author: Any) -> Name | None:
    """A person from an ``author`` item (``{"name": ...}`` or a plain name). A name with "&"
    is an organisation's, kept literal; "Family, Given" is read as such; CJK names as family
    name first (without a space: one literal name); other names as given names then family
    name, with its particles (van, de...)."""
    raw = author.get("name") if isinstance(author, dict) else author
    name = _text(raw)
    if name is None:
        return None
    if "&" in name:  # an organisation
        return Name(literal=name)
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return Name(family=family, given=given) if family else Name(literal=name)
    parts = name.split(" ")
    if _CJK.search(name):
        return Name(family=parts[0], given=" ".join(parts[1:])) if len(parts) > 1 else Name(literal=name)
    if len(parts) == 1:
        return Name(family=name)
    start = len(parts) - 1
    while start > 1 and parts[start - 1].lower() in _PARTICLES:
        start -= 1
    return Name(family=" ".join(parts[start:]), given=" ".join(parts[:start]))


# -- citation keys -------------------------------------------------------------------------------


def _ascii(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _key(work: Work) -> str:
    author = work.authors[0] if work.authors else None
    family = _ascii(author.family or author.literal) if author else ""
    words = (_ascii(w) for w in re.findall(r"\w+", work.title or ""))
    word = next((w for w in words if not w.isdigit() and w not in _STOPWORDS), "")
    return f"{family or 'anon'}{work.year if work.year is not None else 'nd'}{word}"


def _unique_key(key: str, used: set[str]) -> str:
    candidate, n = key, 0
    while candidate in used:
        n += 1
        candidate = key + _letters(n)
    used.add(candidate)
    return candidate


def _letters(n: int) -> str:
    """1 -> a, 26 -> z, 27 -> aa."""
    text = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def _page_range(pages: str | None) -> tuple[str | None, str | None]:
    if pages is None:
        return None, None
    match = _PAGE_RANGE.match(pages)
    return (match.group(1), match.group(2)) if match else (pages, None)


# -- BibTeX ----------------------------------------------------------------------------------


def latex_escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped (``50% & {x}`` -> ``50\% \& \{x\}``);
    other characters, CJK and emoji included, are kept as they are."""
    return _LATEX_SPECIAL.sub(lambda m: _LATEX[m.group()], text)


def _verbatim(text: str) -> str:
    """``text`` for a field that biber and biblatex keep verbatim (``doi``, ``url``): as it is,
    ``_ % # ~ & $ ^`` included, but for :data:`_NOT_VERBATIM`'s characters, percent-encoded."""
    return _NOT_VERBATIM.sub(lambda m: "".join(f"%{byte:02X}" for byte in m.group().encode()), text)


def _tex_text(text: str) -> str:
    """``text`` escaped (:func:`latex_escape`) for a field that TeX typesets: ``--``, ``''`` and
    ````` `` ````` split by ``{}`` so that they are not read as a dash or a curly quote."""
    return _LIGATURE.sub("{}", latex_escape(text))


def _bibtex_name(name: Name) -> str:
    if name.literal:
        return "{" + _tex_text(name.literal) + "}"
    family = _tex_text(name.family)
    if " and " in f" {name.family} ".lower():
        family = "{" + family + "}"
    return f"{family}, {_tex_text(name.given)}" if name.given else family


#: BibTeX's month macros, which every standard style prints as the month's name (a number in
#: braces would print as is: "12 1993").
_MONTH_MACROS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _bibtex_entry(work: Work) -> str:
    kind = work.kind
    first, last = _page_range(work.pages)
    month = _MONTH_MACROS[work.month - 1] if work.month is not None and 1 <= work.month <= 12 else None
    # Each value as written: in braces, but a month as its macro (no braces).
    fields: list[tuple[str, str | None]] = [
        ("author", _braced(" and ".join(_bibtex_name(n) for n in work.authors))),
        ("title", _braced(work.title and _tex_text(work.title))),
        ("year", _braced(None if work.year is None else str(work.year))),
        ("month", month),
        (kind.venue or "note", _braced(work.venue and _tex_text(work.venue))),
        ("volume", _braced(work.volume and _tex_text(work.volume))),
        ("number", _braced(work.issue and _tex_text(work.issue))),
        ("pages", _braced(first and (f"{latex_escape(first)}--{latex_escape(last)}" if last else latex_escape(first)))),
        ("publisher", _braced(work.publisher and _tex_text(work.publisher))),
        ("isbn", _braced(work.isbn and latex_escape(work.isbn))),
        ("issn", _braced(work.issn and latex_escape(work.issn))),
        ("doi", _braced(work.doi and _verbatim(work.doi))),
        ("url", _braced(work.url and _verbatim(work.url))),
    ]
    body = ",\n".join(f"  {name} = {value}" for name, value in fields if value)
    return f"@{kind.bibtex}{{{work.key},\n{body}\n}}" if body else f"@{kind.bibtex}{{{work.key},\n}}"


def _braced(value: str | None) -> str | None:
    return "{" + value + "}" if value else None


# -- RIS -------------------------------------------------------------------------------------


def _ris_name(name: Name) -> str:
    if name.literal:
        return name.literal
    return f"{name.family}, {name.given}" if name.given else name.family


def _ris_entry(work: Work) -> str:
    first, last = _page_range(work.pages)
    lines: list[tuple[str, str | None]] = [("TY", work.kind.ris), ("ID", work.key)]
    lines += [("AU", _ris_name(n)) for n in work.authors]
    lines += [
        ("TI", work.title),
        ("PY", None if work.year is None else str(work.year)),
        ("DA", _ris_date(work)),
        ("JO" if work.kind is _ARTICLE else "T2", work.venue),
        ("VL", work.volume),
        ("IS", work.issue),
        ("SP", first),
        ("EP", last),
        ("PB", work.publisher),
        ("SN", work.isbn or work.issn),
        ("DO", work.doi),
        ("UR", work.url),
    ]
    return "".join(f"{tag}  - {value}\n" for tag, value in lines if value) + "ER  - \n"


def _ris_date(work: Work) -> str | None:
    if work.year is None or work.month is None:
        return None
    return f"{work.year:04d}/{work.month:02d}/{work.day or 1:02d}"


# -- CSL-JSON --------------------------------------------------------------------------------


def _csl_name(name: Name) -> dict[str, str]:
    if name.literal:
        return {"literal": name.literal}
    return {"family": name.family, "given": name.given} if name.given else {"family": name.family}


def _csl_item(work: Work) -> dict[str, Any]:
    item: dict[str, Any] = {"id": work.key, "type": work.kind.csl}
    parts = [p for p in (work.year, work.month, work.day) if p is not None] if work.year is not None else []
    values: dict[str, Any] = {
        "title": work.title,
        "author": [_csl_name(n) for n in work.authors] or None,
        "issued": {"date-parts": [parts]} if parts else None,
        "container-title": work.venue,
        "volume": work.volume,
        "issue": work.issue,
        "page": work.pages,
        "publisher": work.publisher,
        "ISBN": work.isbn,
        "ISSN": work.issn,
        "DOI": work.doi,
        "URL": work.url,
    }
    item.update((name, value) for name, value in values.items() if value)
    return item
