"""The documents a network is built from, read from any source the networks take: a harvest
output (a path or an fsspec URL, of :func:`~paperlens.harvest.harvest` or
:func:`~paperlens.harvest.harvest_corpus`), a :class:`~paperlens.harvest.HarvestResult`,
records (results or dicts), a paginator, a pandas or polars DataFrame, or a
:class:`~paperlens.CitationNetwork`. Each is read into :class:`Documents`: one wire dict per
distinct ``unique_id``, in the order they came, and what the networks read from them
(reference lists, authors, terms), each normalised one way for every network."""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from paperlens.base import _checks as checks
from paperlens.base._ids import normalize_doi, strip_doi
from paperlens.base._lazy import is_data_frame

__all__ = ["Documents", "author_key", "read_documents", "reference_count", "term_key"]

_UNSEEN = "\x00unseen"
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)
_SOURCE_RULE = (
    "must be a harvest output (a path or URL), a HarvestResult, records, a paginator, a DataFrame or a CitationNetwork"
)


@dataclass
class Documents:
    """The distinct documents of a source.

    Attributes:
        ids: each document's ``unique_id``, in order, without repeats.
        rows: each document's wire dict (the first record of its ``unique_id``).
        references: each document's reference list as given (None: the record has no
            ``references`` field); replaced by the relation lists with ``complete=True``.
        titles: known titles of works (documents, and cited works named by relation items).
        aliases: a work's normalised DOI to its ``unique_id``, where a record or a relation
            item names both, so that a work cited once by DOI and once by id is one work.
    """

    ids: list[str]
    rows: list[dict[str, Any]]
    references: list[list[Any] | None]
    titles: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    _keys: dict[str, str | None] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for key, row in zip(self.ids, self.rows, strict=True):
            self.learn(key, row.get("title"), row.get("doi"))

    def learn(self, key: str, title: Any, doi: Any) -> None:
        """Remembers a work's title and the DOI it is also named by."""
        if isinstance(title, str) and title.strip() and key not in self.titles:
            self.titles[key] = " ".join(title.split())
        if isinstance(doi, str) and doi.strip():
            self.aliases.setdefault(normalize_doi(doi), key)
            self._keys.clear()

    def work_key(self, reference: Any) -> str | None:
        """The identity of a cited work: its ``unique_id``, or its DOI (normalised) when no
        record or relation item of the source gives the ``unique_id`` of that DOI."""
        if not isinstance(reference, str):
            return None
        known = self._keys.get(reference, _UNSEEN)  # works are cited many times: each named once
        if known is not _UNSEEN:
            return known
        text = reference.strip()
        key: str | None = text or None
        # Every DOI form strip_doi knows starts with "10." (bare) or holds "doi" (doi:, doi.org/).
        bare = text.startswith("10.")
        if bare or ("doi" in text[:24].lower() and strip_doi(text) != text):
            doi = text.lower() if bare else normalize_doi(text)
            key = self.aliases.get(doi, doi)
        self._keys[reference] = key
        return key

    def cited(self, position: int) -> list[str]:
        """The distinct works document ``position`` cites, in its list's order."""
        keys = (self.work_key(reference) for reference in self.references[position] or ())
        return list(dict.fromkeys(key for key in keys if key is not None))

    def short_lists(self) -> list[str]:
        """The documents whose reference list is shorter than their ``reference_count``."""
        short = []
        for key, row, references in zip(self.ids, self.rows, self.references, strict=True):
            count = reference_count(row)
            if count is not None and len(references or ()) < count:
                short.append(key)
        return short


def read_documents(source: Any) -> Documents:
    """The documents of ``source`` (see the module's documentation).

    Raises:
        ValidationError: ``source`` is none of the kinds, names no harvest output, or a record
            has no ``unique_id`` (named by its position: ``source[3]``).
    """
    from paperlens.workflows.snowball import CitationNetwork

    if isinstance(source, CitationNetwork):
        return _network_documents(source)
    rows = _rows(source)
    ids: list[str] = []
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for position, row in enumerate(rows):
        key = row.get("unique_id")
        if not isinstance(key, str) or not key.strip():
            raise checks.invalid(f"source[{position}]", "a record needs its unique_id", _brief(row))
        key = key.strip()
        if key not in seen:
            seen.add(key)
            ids.append(key)
            kept.append(row)
    return Documents(ids, kept, [_listed(row.get("references")) for row in kept])


def _rows(source: Any) -> list[dict[str, Any]]:
    from paperlens.harvests._harvesting import HarvestResult
    from paperlens.machinery._pagination import AsyncPaginator
    from paperlens.results._model import Model

    if isinstance(source, HarvestResult):
        return _harvest_rows(source.url or source.out)
    if isinstance(source, (str, os.PathLike)):
        return _harvest_rows(source)
    if is_data_frame(source):
        from paperlens.results._formats import frame_row

        return [frame_row(row) for row in source.to_dict("records")]
    if type(source).__module__.startswith("polars") and hasattr(source, "to_dicts"):
        return [dict(row) for row in source.to_dicts()]
    if isinstance(source, AsyncPaginator):
        raise checks.invalid("source", "an AsyncPaginator needs awaiting first: await paginator.to_list()")
    if isinstance(getattr(source, "results", None), list):  # one page of /meta-search
        source = source.results
    if isinstance(source, (bytes, dict, Model)) or not isinstance(source, Iterable):
        raise checks.invalid("source", _SOURCE_RULE, type(source).__name__)
    rows = []
    for position, item in enumerate(source):
        if isinstance(item, Model):
            rows.append(item.to_dict())
        elif isinstance(item, dict):
            rows.append(item)
        else:
            raise checks.invalid(f"source[{position}]", "must be a record (a result or a dict)", type(item).__name__)
    return rows


def _harvest_rows(out: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a harvest output; a :func:`harvest_corpus` folder's ``records``."""
    from paperlens.harvests.harvest import read_records
    from paperlens.storage._store import location

    store, path = location(out)
    if not store.exists(path):
        raise checks.invalid("source", "names no harvest output (nothing is there)", os.fspath(out))
    if not store.is_file(path) and store.exists(path / "records") and store.exists(path / "manifest.json"):
        out = f"{os.fspath(out).rstrip('/')}/records"
    return read_records(out)


def _network_documents(network: Any) -> Documents:
    """A snowball's nodes as documents, each citing the targets of its edges."""
    cites: dict[str, list[str]] = {}
    for source, target in network._edges:
        cites.setdefault(source, []).append(target)
    rows = [{"unique_id": row.pop("id"), **row} for row in network.node_rows()]
    ids = [row["unique_id"] for row in rows]
    documents = Documents(ids, rows, [cites.get(key, []) for key in ids])
    for key, row in zip(ids, rows, strict=True):
        if str(row.get("id_type", "")).lower() == "doi":
            documents.aliases.setdefault(normalize_doi(key), key)
    return documents


def _listed(value: Any) -> list[Any] | None:
    """A list field as a list: a JSON list in a text (a CSV cell), one text as one item."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                return parsed
        return [text] if text else []
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist"):
        listed = value.tolist()
        return listed if isinstance(listed, list) else [listed]
    return [value]


def reference_count(row: dict[str, Any]) -> int | None:
    """The record's ``reference_count`` as a whole number (written as one in a float or a text
    too), or None."""
    value = row.get("reference_count")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _brief(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={str(v)[:40]}" for k, v in list(row.items())[:4]) or "an empty record"


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(unicodedata.normalize("NFC", value).split())
    return text or None


def author_key(author: Any) -> tuple[str, str] | None:
    """An author's identity and name: the ORCID (its bare ``0000-0000-0000-000X`` form) where
    given, else the name (whitespace collapsed); None when the item names nobody."""
    if isinstance(author, str):
        name = _text(author)
        return (name, name) if name else None
    if not isinstance(author, dict):
        return None
    name, orcid = _text(author.get("name")), _text(author.get("orcid"))
    if orcid:
        found = _ORCID.search(orcid)
        key = found.group(1).upper() if found else orcid
        return key, name or key
    return (name, name) if name else None


def term_key(term: Any) -> tuple[str, str] | None:
    """A term's identity and label: the text case-folded with whitespace collapsed, and the
    text as given; a topic object by its ``display_name`` (or ``name``)."""
    if isinstance(term, dict):
        term = term.get("display_name", term.get("name"))
    text = _text(term)
    return (text.casefold(), text) if text else None


def field_values(row: dict[str, Any], name: str) -> list[Any]:
    """The values of field ``name`` of a record: a list, or one value; a dotted name reads
    into objects (``primary_topic.display_name``), as do DataFrame columns of that name."""
    if name in row:
        return _listed(row[name]) or []
    head, _, rest = name.partition(".")
    if rest and isinstance(row.get(head), (dict, list)):
        values = row[head] if isinstance(row[head], list) else [row[head]]
        return [v for value in values if isinstance(value, dict) for v in field_values(value, rest)]
    return []
