"""References as given to ``client.verify_citations``: BibTeX (text or a path), free-text
citations, CSL-JSON items or a DataFrame, each read into a :class:`Given` (what the reference
says, and the :class:`~paperlens.base._citation.Citation` the matching scores). Every input is
read and checked before any request: a bad one raises ``ValidationError`` naming it.

A path is read by what it holds, whatever its name: BibTeX (a line starting with an
``@type{``), CSL-JSON (a JSON array of items, or one item), RIS (``TY  - `` records), else free
text, one reference a line. Input that holds no reference (an empty list or file, a BibTeX file
of ``@string`` definitions only) is refused: an empty check would read as a pass.

The kind of work is kept (:attr:`Given.kind`) when it is one the service does not index (web
pages, software, datasets, standards, patents: BibTeX ``@online``/``@software``..., CSL and RIS
types, GB/T 7714's ``[EB/OL]``/``[CP]``/``[DS]``/``[S]``/``[P]`` markers, "Retrieved from" and
"[Online]"): such a reference without a DOI is ``unverifiable``, not ``not_found``.

A BibTeX entry that another names in its ``crossref`` (a ``@proceedings``) is no reference of
its own: its fields reach the entries that cite it, and it is kept in their corrected BibTeX."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from paperlens.base import _checks as checks
from paperlens.base._citation import CJK, Citation, is_initials, parse_reference
from paperlens.base._ids import normalize_doi
from paperlens.base._lazy import is_data_frame

__all__ = ["FRAME_COLUMNS", "UNINDEXED", "Given", "read_references", "read_text"]

#: The DataFrame columns read (by lower-case name; others are ignored), each to the field it gives.
FRAME_COLUMNS = {
    "key": "key",
    "id": "key",
    "title": "title",
    "author": "authors",
    "authors": "authors",
    "year": "year",
    "venue": "venue",
    "journal": "venue",
    "booktitle": "venue",
    "container-title": "venue",
    "doi": "doi",
}

_BIBTEX = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
_BIBTEX_LINE = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  - ?(.*)$")
#: Kinds of work the service does not index, by the names BibTeX, CSL, RIS and GB/T 7714 give them.
UNINDEXED = {
    "online": "web page",
    "www": "web page",
    "webpage": "web page",
    "electronic": "web page",
    "post": "web page",
    "post-weblog": "web page",
    "elec": "web page",
    "blog": "web page",
    "eb/ol": "web page",
    "software": "software",
    "comp": "software",
    "cp": "software",
    "dataset": "dataset",
    "data": "dataset",
    "ds": "dataset",
    "standard": "standard",
    "stand": "standard",
    "s": "standard",
    "patent": "patent",
    "pat": "patent",
    "p": "patent",
    "legislation": "legislation",
    "bill": "legislation",
    "legal_case": "legal case",
    "personal_communication": "personal communication",
    "interview": "interview",
    "broadcast": "broadcast",
    "motion_picture": "film",
}
_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_OTHERS = frozenset(["others", "et al.", "et al"])


@dataclass(frozen=True)
class Given:
    """One reference as given.

    Attributes:
        input: what was given: the text, the CSL-JSON item, the DataFrame row (a dict) or the
            ``BibEntry``.
        key: its citation key (BibTeX key, CSL ``id``, a ``key``/``id`` column), or None.
        title, authors, year, venue, doi: what it says (authors as written, ``"Family, Given"``
            for BibTeX; the DOI without ``doi:`` or a URL prefix).
        citation: the same, as the matching engine scores it.
        raw: the BibTeX entry as written, for BibTeX input.
        kind: the kind of work when the service does not index it (``"web page"``,
            ``"software"``, ``"dataset"``, ``"standard"``...), else None.
        macros: the ``@string`` definitions (name, as written) a BibTeX entry uses, directly or
            through another definition, in the file's order.
        parent: the entry its ``crossref`` names, as written.
    """

    input: Any
    key: str | None
    title: str | None
    authors: list[str]
    year: int | None
    venue: str | None
    doi: str | None
    citation: Citation
    raw: str | None = field(default=None, repr=False)
    kind: str | None = None
    macros: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    parent: str | None = field(default=None, repr=False)


def read_references(references: Any) -> list[Given]:
    """Every reference of ``references``, in order (see the module's documentation).

    Raises:
        ValidationError: the input is none of the four kinds, mixes kinds, or an item is
            empty or says nothing to check (no title and no DOI), named by position
            (``references[3]``), or the BibTeX is malformed (naming the entry and line).
    """
    given = _read(references)
    if not given:
        raise checks.invalid(
            "references", "holds no reference to check (an empty check is no pass)", _shown(references)
        )
    return given


def _read(references: Any) -> list[Given]:
    if isinstance(references, os.PathLike) or (isinstance(references, str) and not _BIBTEX.search(references)):
        path = os.fspath(references)
        if not isinstance(path, str) or "\n" in path or not os.path.isfile(path):
            raise checks.invalid(
                "references",
                "must be BibTeX text, the path of a file of references (BibTeX, CSL-JSON, RIS or "
                "one a line), a list of citations (free text or CSL-JSON items) or a DataFrame; a "
                "string that is no BibTeX names no file",
                str(references)[:80],
            )
        return read_text(_file_text(path))
    if isinstance(references, str):
        return _bibtex(references)
    if is_data_frame(references):
        return _frame(references)
    if not isinstance(references, Iterable) or isinstance(references, (bytes, Mapping)):
        raise checks.invalid(
            "references", "must be BibTeX, a list of citations or a DataFrame", type(references).__name__
        )
    items = list(references)
    return [item if isinstance(item, Given) else _item(item, f"references[{i}]") for i, item in enumerate(items)]


def _shown(references: Any) -> str:
    if isinstance(references, (str, os.PathLike)):
        return os.fspath(references)[:80] if not isinstance(references, str) or "\n" not in references else "text"
    return type(references).__name__


def _file_text(path: str) -> str:
    from paperlens.workflows._bibtex import MAX_BYTES

    with open(path, "rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise checks.invalid("references", f"a file of references holds at most {MAX_BYTES} bytes", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(text: str) -> list[Given]:
    """The references of a file's text, read by what it holds: BibTeX, CSL-JSON, RIS, or free
    text one reference a line (the module's documentation)."""
    if _BIBTEX_LINE.search(text):
        return _bibtex(text)
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            items = json.loads(stripped)
        except ValueError:
            items = None
        if isinstance(items, dict):
            items = [items]
        if isinstance(items, list):
            return [_item(item, f"references[{i}]") for i, item in enumerate(items)]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and _RIS_LINE.match(lines[0]) and any(line.startswith("TY  -") for line in lines):
        return _ris(lines)
    return [_item(line, f"references[{i}]") for i, line in enumerate(lines)]


def _item(item: Any, param: str) -> Given:
    if isinstance(item, str):
        text = checks.non_empty_text(param, item)
        citation = parse_reference(text)
        doi = _doi(citation.doi)
        return Given(
            text,
            None,
            citation.title,
            citation.people,
            citation.year,
            citation.venue,
            doi,
            citation,
            kind=UNINDEXED.get(citation.kind or ""),
        )
    if isinstance(item, Mapping):
        return _csl(item, param)
    raise checks.invalid(
        param, "must be a free-text citation (a string) or a CSL-JSON item (a dict)", type(item).__name__
    )


# -- structured references ---------------------------------------------------------------------


def structured(
    source: Any,
    param: str,
    *,
    key: Any,
    title: Any,
    authors: list[str],
    year: Any,
    venue: Any,
    doi: Any,
    raw: str | None = None,
    kind: str | None = None,
) -> Given:
    """A :class:`Given` from fields (authors as ``"Family, Given"`` or as written). One with
    neither title nor DOI is refused, but a BibTeX entry (``raw``): a ``@misc`` of a web page
    is no malformed file, and is reported as not found, with nothing to search for."""
    title, venue, doi_text = _text(title), _text(venue), _text(doi)
    if title is None and doi_text is None and raw is None:
        raise checks.invalid(param, "needs a title or a DOI to be checked")
    people = [a for a in authors if a.strip().lower() not in _OTHERS]
    families = [_family(a) for a in people]
    citation = Citation(
        text=". ".join(p for p in (", ".join(people), title, venue) if p) or doi_text or "",
        authors=[w for a in people for w in _name_words(a)],
        first_author=families[0] if families else None,
        et_al=len(people) < len(authors),
        year=_year(year),
        title=title,
        venue=venue,
        doi=_doi(doi_text),
        people=families,
    )
    text_key = _text(key)
    return Given(
        source, text_key, title, people, citation.year, venue, citation.doi, citation, raw, UNINDEXED.get(kind or "")
    )


def _family(name: str) -> str:
    """The family name of ``"Family, Given"``, ``"Given Family"`` or a CJK ``"Family Given"``."""
    name = " ".join(name.replace("{", "").replace("}", "").split())
    if "," in name:
        return name.split(",", 1)[0].strip()
    parts = name.split()
    if not parts:
        return name
    return parts[0] if CJK.match(parts[0]) else parts[-1]


def _name_words(name: str) -> list[str]:
    words = name.replace(",", " ").replace("{", "").replace("}", "").split()
    return [w.strip(".") for w in words if not is_initials(w) or CJK.match(w)]


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):  # NaN: an empty frame cell
        return None
    text = " ".join(str(value).split())
    return text or None


def _year(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    match = _YEAR.search(str(value)) if value is not None else None
    return int(match.group(1)) if match else None


def _doi(value: str | None) -> str | None:
    return normalize_doi(value) or None if value else None


# -- CSL-JSON ------------------------------------------------------------------------------------


def _csl(item: Mapping[str, Any], param: str) -> Given:
    return structured(
        dict(item),
        param,
        key=item.get("id"),
        title=item.get("title"),
        authors=[_csl_name(a) for a in _list(item.get("author"))],
        year=_csl_year(item.get("issued")),
        venue=item.get("container-title"),
        doi=item.get("DOI") or item.get("doi"),
        kind=str(item.get("type") or "").lower(),
    )


def _csl_name(author: Any) -> str:
    if isinstance(author, Mapping):
        family, given = _text(author.get("family")), _text(author.get("given"))
        if family:
            return f"{family}, {given}" if given else family
        return _text(author.get("literal")) or ""
    return _text(author) or ""


def _csl_year(issued: Any) -> Any:
    if isinstance(issued, Mapping):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return parts[0][0]
        return issued.get("raw") or issued.get("literal")
    return issued


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


# -- DataFrames ----------------------------------------------------------------------------------


def _frame(frame: Any) -> list[Given]:
    columns = {str(c).strip().lower(): c for c in frame.columns}
    if "title" not in columns and "doi" not in columns:
        rule = "a DataFrame needs a title or a doi column (read: " + ", ".join(sorted(FRAME_COLUMNS)) + ")"
        raise checks.invalid("references", rule, [str(c) for c in frame.columns][:12])
    given = []
    for position, row in enumerate(frame.to_dict("records")):
        values: dict[str, Any] = {}
        for name, column in columns.items():
            if name in FRAME_COLUMNS:
                values.setdefault(FRAME_COLUMNS[name], row[column])
        given.append(
            structured(
                row,
                f"references[{position}]",
                key=values.get("key"),
                title=values.get("title"),
                authors=_frame_authors(values.get("authors")),
                year=values.get("year"),
                venue=values.get("venue"),
                doi=values.get("doi"),
            )
        )
    return given


def _frame_authors(value: Any) -> list[str]:
    """A cell of authors: a list, or one text of names separated by ``;`` or `` and ``."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [t for t in (_text(v) for v in value) if t]
    text = _text(value)
    if text is None:
        return []
    return [p.strip() for p in re.split(r"\s*;\s*|\s+and\s+", text) if p.strip()]


# -- BibTeX --------------------------------------------------------------------------------------


def _bibtex(text: str) -> list[Given]:
    """The entries of BibTeX text, but those another names in its ``crossref``."""
    from paperlens.workflows._bibtex import read_bibtex, string_definitions

    entries = read_bibtex(text)
    targets = {e.fields["crossref"].lower() for e in entries if e.fields.get("crossref")}
    by_key = {e.key.lower(): e for e in entries}
    definitions = string_definitions(text)
    given = []
    for entry in entries:
        if entry.key.lower() in targets:
            continue
        parent = by_key.get(entry.fields.get("crossref", "").lower())
        used = _macros_used(entry.raw + (parent.raw if parent is not None else ""), definitions)
        venue = entry.fields.get("journal") or entry.fields.get("booktitle")
        item = structured(
            entry,
            f"entry {entry.key!r} (line {entry.line})",
            key=entry.key,
            title=entry.fields.get("title"),
            authors=[*entry.authors, *(["others"] if entry.et_al else [])],
            year=entry.year if entry.year is not None else entry.fields.get("year"),
            venue=venue or (None if _is_url(entry.fields.get("howpublished")) else entry.fields.get("howpublished")),
            doi=entry.doi,
            raw=entry.raw,
            kind=_bibtex_kind(entry.entry_type, entry.fields),
        )
        given.append(Given(**{**item.__dict__, "macros": used, "parent": parent.raw if parent is not None else None}))
    return given


def _is_url(value: str | None) -> bool:
    return value is not None and re.search(r"https?://|\\url|www\.", value) is not None


def _bibtex_kind(entry_type: str, fields: Mapping[str, str]) -> str:
    """The entry type, or ``online`` for a ``@misc`` that is a web page: a URL, and no venue,
    DOI, publisher or preprint server."""
    scholarly = ("journal", "booktitle", "doi", "eprint", "archiveprefix", "publisher", "school", "institution")
    web = fields.get("url") or _is_url(fields.get("howpublished"))
    if entry_type == "misc" and web and not any(fields.get(f) for f in scholarly):
        return "online"
    return entry_type


def _macros_used(raw: str, definitions: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The definitions ``raw`` (entries as written) uses, directly or through one another, in
    the file's order."""
    from paperlens.workflows._bibtex import bare_words

    names = {name.lower() for name, _ in definitions}
    wanted: set[str] = set()
    pending = [raw]
    while pending and names:
        blocks = re.split(r"(?=@)", pending.pop())
        for word in (w.lower() for block in blocks for w in bare_words(block)):
            if word in names and word not in wanted:
                wanted.add(word)
                pending.extend(value for name, value in definitions if name.lower() == word)
    return tuple((name, value) for name, value in definitions if name.lower() in wanted)


# -- RIS -----------------------------------------------------------------------------------------


def _ris(lines: list[str]) -> list[Given]:
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] | None = None
    for line in lines:
        match = _RIS_LINE.match(line)
        if match is None:
            continue
        tag, value = match.group(1), match.group(2).strip()
        if tag == "TY":
            current = {"TY": [value]}
        elif tag == "ER":
            if current is not None:
                records.append(current)
            current = None
        elif current is not None:
            current.setdefault(tag, []).append(value)
    if current is not None:
        records.append(current)

    def first(record: dict[str, list[str]], *tags: str) -> str | None:
        return next((record[t][0] for t in tags if record.get(t)), None)

    return [
        structured(
            record,
            f"references[{n}]",
            key=first(record, "ID"),
            title=first(record, "TI", "T1", "CT"),
            authors=[*record.get("AU", []), *record.get("A1", [])],
            year=first(record, "PY", "Y1", "DA"),
            venue=first(record, "T2", "JO", "JF", "JA", "BT", "J2"),
            doi=first(record, "DO"),
            kind=(first(record, "TY") or "").lower(),
        )
        for n, record in enumerate(records)
    ]
