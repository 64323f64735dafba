"""The code of :mod:`paperlens.deduplication`, the public module that re-exports it and documents it."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from paperlens.base import _checks as checks
from paperlens.base._ids import normalize_doi
from paperlens.base._lazy import is_data_frame
from paperlens.results._citable import Citable, RecordList

__all__ = ["RULES", "Deduped", "Merge", "dedupe", "normalize_title"]

#: The rules ``dedupe`` knows, in their default order.
RULES = ("doi", "unique_id", "title_year")

_PUNCTUATION = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Merge:
    """One record dropped as a duplicate: its id and position in the input, the record kept
    in its place, and the rule that matched them (``doi``, ``unique_id`` or ``title_year``).
    An id is the record's ``unique_id``, else its DOI, else ``None``."""

    dropped_id: str | None
    kept_id: str | None
    rule: str
    dropped_index: int
    kept_index: int


@dataclass(frozen=True, repr=False)
class Deduped(Citable):
    """The answer of :func:`dedupe`.

    Attributes:
        kept: the records left, each work once, in input order; a list (exporting itself:
            ``deduped.kept.to_bibtex()``) for records and paginators, a DataFrame (its rows,
            index kept) for a DataFrame.
        merges: every merge, as :class:`Merge` items in input order.

    ``merged`` is the same as a pandas DataFrame; ``to_bibtex()``, ``to_ris()`` and
    ``to_csl_json()`` export :attr:`kept`.
    """

    kept: Any
    merges: list[Merge]

    @property
    def merged(self) -> Any:
        """The merges as a pandas DataFrame: ``dropped_id``, ``kept_id``, ``rule``,
        ``dropped_index``, ``kept_index`` (positions in the input); needs the ``pandas`` extra."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError('Deduped.merged needs pandas: pip install "paperlens[pandas]"') from e
        columns = ["dropped_id", "kept_id", "rule", "dropped_index", "kept_index"]
        return pd.DataFrame([[getattr(m, c) for c in columns] for m in self.merges], columns=columns)

    def _citable_rows(self) -> Any:
        return self.kept

    def __len__(self) -> int:
        return len(self.kept)

    def __repr__(self) -> str:
        return f"Deduped(kept={len(self.kept)}, merges={len(self.merges)})"


def normalize_title(title: str) -> str:
    """``title`` as ``dedupe`` compares it: NFKC, case folded, every run of punctuation and
    whitespace one space, trimmed.

    >>> from paperlens.deduplication import normalize_title
    >>> normalize_title("Deep  Learning: a Review!") == normalize_title("deep learning - A REVIEW")
    True
    """
    folded = unicodedata.normalize("NFKC", title).casefold()
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


def dedupe(items: Any, *, on: Iterable[str] = RULES) -> Deduped:
    """Drops the records of ``items`` that are the same work as an earlier one (see the
    module's documentation for the rules), keeping the most complete record of each work.

    Args:
        items: records (``MetadataRecord`` or wire dicts, ``None`` entries skipped), a sync
            ``Paginator`` of records (walked), or a pandas DataFrame of records.
        on: the rules to apply, in order: any of ``"doi"``, ``"unique_id"``, ``"title_year"``.

    Returns:
        A :class:`Deduped`: ``kept`` (a list, or a DataFrame for a DataFrame) and the merges.

    Raises:
        ValidationError: ``on`` is empty or names an unknown rule.
        TypeError: ``items`` is an ``AsyncPaginator`` (use ``await paginator.to_list()``) or
            holds something other than records.

    >>> paperlens.dedupe([{"doi": "10.1/A", "title": "X"}, {"doi": "10.1/a"}]).merges[0].rule
    'doi'
    """
    rules = _checked_rules(on)
    frame = items if is_data_frame(items) else None
    records, rows = _records(items)
    groups: list[_Group] = []
    owner: dict[tuple[str, Any], _Group] = {}
    joined: list[tuple[int, str, _Group]] = []
    for index, row in enumerate(rows):
        sought, held = _keys(rules, row)
        group = next((owner[k] for k in sought if k in owner), None)
        if group is None:
            group = _Group(first=index, best=index, score=_completeness(row))
            groups.append(group)
        else:
            rule = next(rule for rule, key in sought if owner.get((rule, key)) is group)
            joined.append((index, rule, group))
            score = _completeness(row)
            if score > group.score:
                group.best, group.score = index, score
        for k in held:
            owner.setdefault(k, group)
    merges = [
        Merge(_id(rows[index]), _id(rows[group.best]), rule, index, group.best)
        for index, rule, group in sorted(_dropped(joined, groups), key=lambda dropped: dropped[0])
    ]
    positions = [group.best for group in groups]
    if frame is not None:
        return Deduped(kept=frame.iloc[positions], merges=merges)
    return Deduped(kept=RecordList(records[i] for i in positions), merges=merges)


@dataclass
class _Group:
    first: int
    best: int
    score: int


def _dropped(joined: list[tuple[int, str, _Group]], groups: list[_Group]) -> Iterator[tuple[int, str, _Group]]:
    """Every record not kept, with the rule that joined it to its group. A group's first
    record, when a more complete one replaced it, is reported with that record's rule."""
    by_group: dict[int, str] = {}
    for index, rule, group in joined:
        if index == group.best:
            by_group[id(group)] = rule
        else:
            yield index, rule, group
    for group in groups:
        if group.best != group.first:
            yield group.first, by_group[id(group)], group


def _checked_rules(on: Iterable[str]) -> tuple[str, ...]:
    rules = (on,) if isinstance(on, str) else tuple(on)
    unknown = [rule for rule in rules if rule not in RULES]
    if not rules or unknown:
        raise checks.invalid("on", f"must name one or more of {', '.join(RULES)}", rules)
    return tuple(dict.fromkeys(rules))


def _records(items: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    """The records of ``items`` and their wire dicts."""
    from paperlens.machinery._pagination import AsyncPaginator
    from paperlens.results._model import Model

    if is_data_frame(items):
        from paperlens.results._formats import frame_row

        rows = [frame_row(row) for row in items.to_dict("records")]
        return rows, rows
    if isinstance(items, AsyncPaginator):
        raise TypeError("an AsyncPaginator needs awaiting first: paperlens.dedupe(await paginator.to_list())")
    if isinstance(items, (str, bytes, dict, Model)) or not isinstance(items, Iterable):
        raise TypeError(f"dedupe() takes records, a paginator or a DataFrame, not a {type(items).__name__}")
    records = [item for item in items if item is not None]
    rows = []
    for i, record in enumerate(records):
        if isinstance(record, dict):
            rows.append(record)
        elif isinstance(record, Model):
            rows.append(record.to_dict())
        else:
            raise TypeError(f"dedupe() takes records: item {i} is a {type(record).__name__}")
    return records, rows


def _keys(rules: tuple[str, ...], row: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The keys a record is looked up by, in rule order, and those it brings to its group."""
    sought: list[tuple[str, Any]] = []
    held: list[tuple[str, Any]] = []
    for rule in rules:
        if rule == "title_year":
            looked, kept = _title_keys(row)
            sought += [(rule, k) for k in looked]
            held += [(rule, k) for k in kept]
            continue
        value = row.get(rule)
        key = (normalize_doi(value) if rule == "doi" else value.strip()) if isinstance(value, str) else ""
        if key:
            sought.append((rule, key))
            held.append((rule, key))
    return sought, held


_ANYONE, _NOBODY = "*any*", "*none*"


def _title_keys(row: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Title and year, with the first author's family name where there is one: two works of
    one title and year by different first authors (an "Editorial", a templated title) stay
    apart, while a record without authors joins any work of its title and year."""
    title, year = row.get("title"), _year(row)
    title = normalize_title(title) if isinstance(title, str) else ""
    if not title or year is None:
        return [], []
    author = _first_author(row)
    if author is None:
        return [(title, year, _ANYONE), (title, year, _NOBODY)], [(title, year, _NOBODY), (title, year, _ANYONE)]
    return [(title, year, author), (title, year, _NOBODY)], [(title, year, author), (title, year, _ANYONE)]


def _first_author(row: dict[str, Any]) -> str | None:
    from paperlens.results._formats import author_name

    authors = row.get("author")
    first = authors[0] if isinstance(authors, list) and authors else None
    name = author_name(first) if first is not None else None
    return normalize_title(name.family or name.literal) or None if name is not None else None


def _year(row: dict[str, Any]) -> int | None:
    year = row.get("publication_published_year")
    if isinstance(year, int) and not isinstance(year, bool):
        return year
    date = row.get("publication_published_date")
    return int(date[:4]) if isinstance(date, str) and date[:4].isdigit() else None


def _completeness(row: dict[str, Any]) -> int:
    return sum(1 for value in row.values() if not _empty(value))


def _empty(value: Any) -> bool:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    if isinstance(value, (str, list, tuple, dict)):
        return not value if not isinstance(value, str) else not value.strip()
    return False


def _id(row: dict[str, Any]) -> str | None:
    for name in ("unique_id", "doi"):
        value = row.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None
