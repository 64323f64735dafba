"""References as given to ``client.verify_citations``: BibTeX (text or a path), free-text
citations, CSL-JSON items or a DataFrame, each read into a :class:`Given` (what the reference
says, and the :class:`~paperlens._citation.Citation` the matching scores). Every input is
read and checked before any request: a bad one raises ``ValidationError`` naming it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from paperlens import _checks as checks
from paperlens._citation import CJK, Citation, parse_reference
from paperlens._ids import normalize_doi
from paperlens._lazy import is_data_frame

__all__ = ["FRAME_COLUMNS", "Given", "read_references"]

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
_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_INITIAL = re.compile(r"^(?:[^\W\d_]\.?-?)+$|^[^\W\d_]{1,2}$")
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


def read_references(references: Any) -> list[Given]:
    """Every reference of ``references``, in order (see the module's documentation).

    Raises:
        ValidationError: the input is none of the four kinds, mixes kinds, or an item is
            empty or says nothing to check (no title and no DOI), named by position
            (``references[3]``), or the BibTeX is malformed (naming the entry and line).
    """
    if isinstance(references, os.PathLike) or (isinstance(references, str) and not _BIBTEX.search(references)):
        path = os.fspath(references)
        if not isinstance(path, str) or "\n" in path or not os.path.isfile(path):
            raise checks.invalid(
                "references",
                "must be BibTeX text, the path of a .bib file, a list of citations (free text or "
                "CSL-JSON items) or a DataFrame; a string that is no BibTeX names no file",
                str(references)[:80],
            )
        return _bibtex(path)
    if isinstance(references, str):
        return _bibtex(references)
    if is_data_frame(references):
        return _frame(references)
    if not isinstance(references, Iterable) or isinstance(references, (bytes, Mapping)):
        raise checks.invalid(
            "references", "must be BibTeX, a list of citations or a DataFrame", type(references).__name__
        )
    items = list(references)
    return [_item(item, f"references[{i}]") for i, item in enumerate(items)]


def _item(item: Any, param: str) -> Given:
    if isinstance(item, str):
        text = checks.non_empty_text(param, item)
        citation = parse_reference(text)
        return Given(
            text, None, citation.title, citation.people, citation.year, citation.venue, _doi(citation.doi), citation
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
) -> Given:
    """A :class:`Given` from fields (authors as ``"Family, Given"`` or as written)."""
    title, venue, doi_text = _text(title), _text(venue), _text(doi)
    if title is None and doi_text is None:
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
    return Given(source, text_key, title, people, citation.year, venue, citation.doi, citation, raw)


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
    return [w.strip(".") for w in words if not _INITIAL.match(w) or CJK.match(w)]


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


def _bibtex(source: str) -> list[Given]:
    from paperlens._bibtex import read_bibtex  # type: ignore[import-not-found,unused-ignore]

    return [
        structured(
            entry,
            f"entry {entry.key!r} (line {entry.line})",
            key=entry.key,
            title=entry.fields.get("title"),
            authors=list(entry.authors),
            year=entry.year if entry.year is not None else entry.fields.get("year"),
            venue=entry.fields.get("journal") or entry.fields.get("booktitle") or entry.fields.get("howpublished"),
            doi=entry.doi,
            raw=entry.raw,
        )
        for entry in read_bibtex(source)
    ]
