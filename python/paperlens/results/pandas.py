"""The code of :mod:`paperlens.pandas`, the public module that re-exports it and documents it."""

from __future__ import annotations

import dataclasses
import datetime
import gc
import itertools
import types
import typing
from itertools import repeat
from typing import Any

from paperlens.results._result import Paged, field_names, plain, row_label, rows_field, wire_columns
from paperlens.results._result import Result as Model
from paperlens.storage._records import EXTRA_COLUMN, FLOAT, INTEGER, STRING, all_fit, to_json

__all__ = ["to_pandas", "to_polars"]

#: Leading columns, in this order (ids, then titles); the others keep the field order.
_LEAD = (
    "doc_id",
    "unique_id",
    "schema_id",
    "entity_id",
    "relation_id",
    "evidence_id",
    "paragraph_id",
    "chunk_id",
    "source_schema_id",
    "target_schema_id",
    "source_entity_id",
    "target_entity_id",
    "source_relation_id",
    "id",
    "doi",
    "field",
    "title",
    "name",
)
#: Items whose ids live in nested objects lead with those.
_LEAD_OF = {
    "CitationItem": (
        "relation.schema_id",
        "relation.relation_id",
        "reference.entity_id",
        "resolution.status",
        "resolution.target_schema_id",
        "reference.title",
        "reference.year",
    ),
}
#: Sub-fields the spec names for untyped objects: always columns, even when absent.
_SUBFIELDS = {
    "primary_topic": (
        ("id", "str"),
        ("display_name", "str"),
        ("score", "float"),
        ("subfield", "object"),
        ("field", "object"),
        ("domain", "object"),
    ),
    "citation_normalized_percentile": (
        ("value", "float"),
        ("is_in_top_10_percent", "bool"),
        ("is_in_top_1_percent", "bool"),
    ),
    "cited_by_percentile_year": (("min", "float"), ("max", "float")),
    "numeric_stats": (("min", "float"), ("max", "float"), ("avg", "float"), ("p50", "float"), ("p95", "float")),
}

_EMPTY: dict[str, Any] = {}

# Column kinds: int, float, bool, str, date (typed columns); object (kept as is), plain
# (typed results turned into wire dicts), any (typed by its values); dict and model (flattened).
# The values: a list, or (a str column of a page's rows, for pandas) an Arrow string array.
# Last, the property a cell belongs to: None for the column's name, or the flattened objects
# (wire dicts) whose key the column is.
Column = tuple[str, Any, str, list[Any] | None]
#: Per row, the properties its columns cannot give back exactly (see ``_extra_json``).
Extras = list[dict[str, Any] | None]
#: The kinds whose values are held only if they all have the column's type.
_TYPED = {"int": INTEGER, "float": FLOAT, "str": STRING}
#: A field of a result type: name, default, kind, and (for objects) its sub-fields and their kinds.
_Group = tuple[str, Any, str, tuple[tuple[str, str], ...]]


#: Fields the service fills only when asked for: no columns when no row has one.
_ON_REQUEST = frozenset({"schema_paper"})


def to_pandas(obj: Any) -> Any:
    """A pandas DataFrame of ``obj``: a list-shaped result (the list it names), a paginator
    (every item; ``await paginator.to_pandas()`` for async ones), a list of results, or one
    result (one row). Facets (``FacetResult`` or a list of them) give the tidy frame
    ``field, key, doc_count``.

    Args:
        obj: a result, a list of results or a (sync) paginator.

    Returns:
        A ``pandas.DataFrame``, one row per item: ids and titles first, nullable ``Int64``
        integers, datetime ``*_date`` columns, nested objects flattened one level with dotted
        names, and last ``extra_json`` (what the columns cannot give back exactly).

    Raises:
        ImportError: pandas is not installed (``pip install "paperlens[pandas]"``).
        TypeError: ``obj`` is not a paperlens result, a list of them or a paginator (an
            ``AsyncPaginator`` needs ``await paginator.to_pandas()``).

    Examples:
        >>> found = client.agentic_search("retrieval augmented generation")
        >>> hits = paperlens.to_pandas(found)  # one row per hit
        >>> len(hits) == len(found.hits)
        True
        >>> page = client.meta_search("coral bleaching", facets=["publication_published_year"])
        >>> paperlens.to_pandas(page.facets).head(2)  # field, key, doc_count
                                field   key  doc_count
        0  publication_published_year  2026         10
        1  publication_published_year  2024          7
    """
    return frame(*_rows(obj), "pandas")


def to_polars(obj: Any) -> Any:
    """A polars DataFrame of ``obj`` with the columns of :func:`to_pandas` (through Arrow when
    pyarrow is installed).

    Args:
        obj: a result, a list of results or a (sync) paginator.

    Returns:
        A ``polars.DataFrame``, one row per item.

    Raises:
        ImportError: polars is not installed (``pip install "paperlens[polars]"``).
        TypeError: ``obj`` is not a paperlens result, a list of them or a paginator.

    Examples:
        >>> records = paperlens.to_polars(client.iter_meta_search("coral reef", limit=500))
    """
    return frame(*_rows(obj), "polars")


# -- entry points of results and paginators --------------------------------------------------


def paginated_frame(paginator: Any, items: list[Any], backend: str) -> Any:
    """The frame of items a paginator produced (its last page tells the item type when empty)."""
    return frame(_item_type(paginator._page, items), items, backend)


class PagedFrame:
    """A frame made page by page (``to_pandas()`` of a paginator, sync or async): each page's
    rows become columns as the page arrives, while the request of the next one is under way.
    Used as a context manager: meanwhile the records and their columns, which hold no reference
    cycles, are set aside from the collector (every collection of the oldest generation would
    walk them all again); objects made meanwhile are collected as usual. Not when the program
    froze objects itself (thawing would release those too)."""

    def __init__(self, backend: str) -> None:
        self._backend = backend
        self._arrow = _arrow_strings(backend)
        self._items: list[Any] = []
        self._pages: list[tuple[int, dict[str, Any] | None]] = []
        self._aside = False

    def __enter__(self) -> PagedFrame:
        self._aside = gc.get_freeze_count() == 0
        return self

    def __exit__(self, *exc: object) -> None:
        if self._aside:
            gc.unfreeze()

    def add(self, batch: list[Any]) -> None:
        """The items of the next page (within the paginator's limit)."""
        if batch:
            self._pages.append((len(batch), _wire(type(batch[0]), batch, self._arrow)))
            self._items.extend(batch)
            if self._aside:
                gc.freeze()

    def frame(self, last_page: Any) -> Any:
        """The frame of every item added (``last_page`` tells the item type when none was)."""
        cls = _item_type(last_page, self._items)
        return frame(cls, self._items, self._backend, self._pages)


def _wire(cls: type[Model], items: list[Any], arrow: Any) -> dict[str, Any] | None:
    """The wire columns of ``items`` (see ``wire_columns``), their string columns as Arrow
    arrays when ``arrow`` is pyarrow."""
    strings = _string_fields(cls) if arrow else frozenset()
    wire = wire_columns(cls, items, strings)
    if wire is not None:
        _arrow_arrays(wire, strings, arrow, len(items))
    return wire


def _merged(pages: list[tuple[int, dict[str, Any] | None]], arrow: Any) -> dict[str, Any] | None:
    """The wire columns of consecutive pages as one (a column a page lacks is null there); None
    unless every page had them."""
    wires = [(n, wire) for n, wire in pages if wire is not None]
    if len(wires) < len(pages):
        return None
    merged: dict[str, Any] = {}
    for name in dict.fromkeys(itertools.chain.from_iterable(wire for _, wire in wires)):
        parts = [(n, wire.get(name)) for n, wire in wires]
        if arrow is not None and all(type(part) is not list for _, part in parts):
            empty = arrow.large_string()
            # Chunks, as the pages came: pandas keeps them without copying the text.
            merged[name] = arrow.chunked_array([arrow.nulls(n, empty) if p is None else p for n, p in parts], empty)
            continue
        values: list[Any] = []
        for n, part in parts:
            values.extend([None] * n if part is None else part if type(part) is list else part.to_pylist())
        merged[name] = values
    return merged


def _rows(obj: Any) -> tuple[type[Model] | None, list[Any]]:
    if isinstance(obj, Paged):
        items, page = obj._frame_rows()
        return _item_type(page, items), items
    if row_label(type(obj)) is not None:
        return type(obj), [obj]
    rows = rows_field(obj)
    if rows is not None:
        return _element_type(type(obj), rows), list(getattr(obj, rows))
    if isinstance(obj, Model):
        return type(obj), [obj]
    if isinstance(obj, (list, tuple)):
        items = list(obj)
        bad = next((x for x in items if not isinstance(x, Model)), None)
        if bad is not None:
            raise TypeError(f"to_pandas() converts paperlens results, got a {type(bad).__name__} in the list")
        return (type(items[0]) if items else None), items
    raise TypeError(f"to_pandas() converts paperlens results, lists of them and paginators, not {type(obj).__name__}")


def _item_type(page: Any, items: list[Any]) -> type[Model] | None:
    if items:
        return type(items[0])
    rows = rows_field(page)
    if rows is not None:
        return _element_type(type(page), rows)
    return type(page) if isinstance(page, Model) else None


def _element_type(cls: type[Any], name: str) -> type[Model] | None:
    hint = typing.get_type_hints(cls)[name]
    args = typing.get_args(hint)
    return args[0] if args and _is_model(args[0]) else None


# -- columns ----------------------------------------------------------------------------------


def frame(cls: type[Model] | None, items: list[Any], backend: str, pages: list[tuple[int, Any]] | None = None) -> Any:
    """``pages``: the items' wire columns already decoded page by page (``PagedFrame``)."""
    extras: Extras | None = None
    label = row_label(cls)
    if label is not None:
        columns, extras = _labelled_columns(cls, label, items, backend)
    elif cls is None:
        columns = []
    else:
        extras = [None] * len(items)
        columns = _columns(cls, items, backend, pages, extras)
    return _to_polars(columns, extras) if backend == "polars" else _to_pandas(columns, extras)


def _labelled_columns(cls: Any, label: str, results: list[Any], backend: str) -> tuple[list[Column], Extras | None]:
    """The rows of every list result, each led by its result's ``label`` field (facets: ``field``,
    then each bucket's ``key`` and ``doc_count``), with ``extra_json`` only when some row has what
    a column cannot hold."""
    name: str = cls._rows
    items = [item for result in results for item in getattr(result, name)]
    labels = [getattr(result, label) for result in results for _ in getattr(result, name)]
    extras: Extras = [None] * len(items)
    element = typing.cast(type[Model], _element_type(cls, name))
    columns = [(label, labels, "str", None), *_columns(element, items, backend, None, extras)]
    return columns, extras if any(extras) else None


def _columns(
    cls: type[Model], items: list[Any], backend: str, pages: list[tuple[int, Any]] | None, extras: Extras
) -> list[Column]:
    """The columns of ``items`` (instances of ``cls``, or of other result types whose extra
    fields then come as wire dicts): decoded straight from the rows' JSON text when they have
    it (a page's rows, or ``pages`` decoded already; for pandas, string fields as Arrow arrays),
    else one comprehension per column over the wire dicts. What the columns cannot give back
    exactly goes to ``extras``."""
    groups, names, lead = _layout(cls)
    n = len(items)
    arrow = _arrow_strings(backend)
    wire = _wire(cls, items, arrow) if pages is None else _merged(pages, arrow)
    if wire is not None:
        seen: dict[str, Any] = wire
        mixed = False
    else:
        dicts = list(map(_wire_dict, items))
        # Every key of every row, in first-seen order: fields no row carries need no pass.
        seen = dict.fromkeys(itertools.chain.from_iterable(dicts))
        mixed = len(set(map(type, items)) - {cls}) > 0

    def values_of(key: str, default: Any = None) -> Any:  # a list, or an Arrow array of strings
        if key not in seen:
            return [default] * n
        if wire is not None:
            return wire[key]  # every default is None (see wire_columns)
        if default is None:
            return list(map(dict.get, dicts, repeat(key, n)))
        return list(map(dict.get, dicts, repeat(key, n), repeat(default, n)))

    columns: list[Column] = []
    flattened = []
    for field, default, kind, subs in groups:
        values = values_of(field, default)
        if field in _ON_REQUEST and all(value is None for value in values):
            continue  # not asked for: no columns that no row can fill
        if kind == "model" or kind == "dict":
            columns.extend(_flatten(field, values, kind, subs, extras))
            flattened.append(f"{field}.")
        else:
            if kind == "date":
                _keep_odd_dates(field, values, extras)
            columns.append((field, [plain(v) for v in values] if kind == "plain" else values, kind, None))
    taken = {name for name, *_ in columns} | {EXTRA_COLUMN}
    prefixes = tuple(flattened)
    for key in (k for k in seen if k not in names):
        values = values_of(key)
        if mixed:
            values = [plain(v) for v in values]
        if not key or key in taken or key.startswith(prefixes) or "\x00" in key:
            # A name a column cannot have (empty, which polars renames; taken; read as a
            # flattened object's key; with a NUL, which Arrow cuts): in the extras only.
            _put_all(key, values, extras)
        else:
            columns.append((key, values, "any", None))
    rank = {name: i for i, name in enumerate(lead)}
    columns.sort(key=lambda c: rank.get(c[0], len(rank)))
    return columns


def _wire_dict(item: Model) -> dict[str, Any]:
    """The fields and the properties of ``item`` (its ``__dict__`` first: decoding an undecoded
    row sets aside the properties named like an attribute, ``_moved``)."""
    fields = item.__dict__
    moved = item._moved
    return fields if moved is None else {**fields, **moved}


def _string_fields(cls: type[Model]) -> frozenset[str]:
    return frozenset(field for field, _, kind, _ in _layout(cls)[0] if kind == "str")


def _arrow_arrays(wire: dict[str, Any], strings: frozenset[str], arrow: Any, n: int) -> None:
    """Turns the Arrow buffers of ``wire``'s string columns into pyarrow arrays, in place."""
    for name in strings & wire.keys():
        if type(wire[name]) is tuple:
            nulls, buffers = wire[name]
            wire[name] = arrow.Array.from_buffers(arrow.large_string(), n, list(map(arrow.py_buffer, buffers)), nulls)


def _arrow_strings(backend: str) -> Any:
    """pyarrow, when the string columns of a pandas frame are Arrow-backed (pandas 3's ``str``,
    or ``future.infer_string``) and it is installed; else None."""
    if backend != "pandas":
        return None
    try:
        import pandas as pd
        import pyarrow  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    return pyarrow if _string_dtype(pd) == "str" else None


def _flatten(
    field: str, parents: list[Any], kind: str, subs: tuple[tuple[str, str], ...], extras: Extras
) -> list[Column]:
    """Columns ``field.sub`` of a nested object (typed result or dict), one level deep. An
    object that is empty or holds a null reads as absent there: it goes to ``extras`` whole."""
    odd: list[Any] | None = None
    n = len(parents)
    if kind == "model":
        inner = [p.__dict__ if isinstance(p, Model) else _EMPTY for p in parents]
        if any(p is not None and not isinstance(p, Model) for p in parents):
            # Not an object after all: kept as sent, in a column of its own.
            odd = [None if isinstance(p, Model) else p for p in parents]
        wire = [plain(p) if isinstance(p, Model) else None for p in parents]
    else:
        inner = [p if type(p) is dict else _EMPTY for p in parents]
        if any(p is not None and type(p) is not dict for p in parents):
            # Not an object after all: kept as sent, in a column of its own.
            odd = [None if type(p) is dict else p for p in parents]
        wire = parents
    # (a typed object's properties named like its attributes are not in its __dict__)
    moved = kind == "model"
    for index, value in enumerate(wire):
        if type(value) is dict and (not value or None in value.values() or (moved and parents[index]._moved)):
            _put(index, field, value, extras)
    known = {sub for sub, _ in subs}
    seen = dict.fromkeys(itertools.chain.from_iterable(inner))
    extra = tuple((key, "plain" if kind == "model" else "object") for key in seen if key not in known)
    columns: list[Column] = [] if odd is None else [(field, odd, "any", None)]
    for sub, sub_kind in subs + extra:
        values = list(map(dict.get, inner, repeat(sub, n)))
        values = [plain(v) for v in values] if sub_kind == "plain" else values
        columns.append((f"{field}.{sub}", values, sub_kind, wire))
    if not columns:
        columns.append((field, [None] * len(parents), "object", None))
    return columns


def _put(index: int, name: str, value: Any, extras: Extras) -> None:
    row = extras[index]
    if row is None:
        row = extras[index] = {}
    row[name] = value


def _put_all(name: str, values: list[Any], extras: Extras) -> None:
    for index, value in enumerate(values):
        if value is not None:
            _put(index, name, value, extras)


def _keep_odd_dates(field: str, values: list[Any], extras: Extras) -> None:
    """A date column shows a day: a value other than a ``yyyy-MM-dd`` text that a datetime
    holds (``2020-05``, a timestamp, another text) is kept as sent in ``extras``."""
    if type(values) is not list:
        return
    try:
        distinct = set(values)  # many records share a day
    except TypeError:  # not what the spec says: a list...
        distinct = None
    if distinct is None or not all(value is None or _is_day(value) for value in distinct):
        for index, value in enumerate(values):
            if value is not None and not _is_day(value):
                _put(index, field, value, extras)


def _is_day(value: Any) -> bool:
    if type(value) is not str or len(value) != 10:
        return False
    try:
        day = datetime.date.fromisoformat(value)
    except ValueError:
        return False
    # pandas' nanosecond datetimes hold the years 1678 to 2261 whole.
    return 1678 <= day.year <= 2261 and day.isoformat() == value


def _extra_json(extras: Extras | None) -> list[Column]:
    """The last column: per row, the JSON text of what its columns cannot give back exactly."""
    if extras is None:
        return []
    return [(EXTRA_COLUMN, [None if row is None else to_json(row) for row in extras], "str", None)]


def _fits(kind: str, values: Any) -> bool:
    """Whether a typed column holds ``values`` unchanged (else they are kept as sent)."""
    if type(values) is not list:
        return True  # an Arrow array of the rows' strings
    if kind == "bool":
        return set(map(type, values)) <= {bool, type(None)}
    typed = _TYPED.get(kind)
    return typed is None or all_fit(typed, values)


_LAYOUTS: dict[type[Model], tuple[list[_Group], frozenset[str], tuple[str, ...]]] = {}


def _layout(cls: type[Model]) -> tuple[list[_Group], frozenset[str], tuple[str, ...]]:
    """Per class, once: each field with its default, kind and (for objects) sub-fields, in
    column order; the field names; the leading column names."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = _LAYOUTS[cls] = _new_layout(cls)
    return layout


def _new_layout(cls: type[Model]) -> tuple[list[_Group], frozenset[str], tuple[str, ...]]:
    hints = typing.get_type_hints(cls)
    groups = []
    for f in _fields(cls):
        kind = _kind(hints[f.name], f.name)
        subs: tuple[tuple[str, str], ...] = ()
        if kind == "model":
            nested = _model_of(hints[f.name])
            nested_hints = typing.get_type_hints(nested)
            sub_fields = _ordered(_fields(nested), _LEAD)
            subs = tuple((s.name, _nested_kind(_kind(nested_hints[s.name], s.name))) for s in sub_fields)
        elif kind == "dict":
            subs = _SUBFIELDS.get(f.name, ())
        default = None if f.default is dataclasses.MISSING else f.default
        groups.append((f.name, default, kind, subs))
    return groups, field_names(cls), _LEAD_OF.get(cls.__name__, _LEAD)


def _ordered(fields: list[Any], lead: tuple[str, ...]) -> list[Any]:
    rank = {name: i for i, name in enumerate(lead)}
    return sorted(fields, key=lambda f: rank.get(f.name, len(rank)))


def _fields(cls: type[Model]) -> list[Any]:
    return [f for f in dataclasses.fields(cls) if f.name != "request_id"]


def _kind(hint: Any, name: str) -> str:
    origin = typing.get_origin(hint)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if origin in (typing.Union, types.UnionType):
        return _kind(args[0], name) if len(args) == 1 else "any"
    if hint is bool:
        return "bool"
    if hint is int:
        return "int"
    if hint is float:
        return "float"
    if hint is str:
        return "date" if name.endswith("_date") else "str"
    if origin is list:
        return "plain" if args and _is_model(args[0]) else "object"
    if origin is dict or hint is dict or hint is Any:
        # A field of no given shape is flattened like an object; other values keep a column.
        return "dict"
    if _is_model(hint):
        return "model"
    return "any"


def _nested_kind(kind: str) -> str:
    """Inside a flattened object, deeper objects stay whole (as wire dicts)."""
    return "plain" if kind in ("model", "plain") else "object" if kind == "dict" else kind


def _model_of(hint: Any) -> type[Model]:
    if _is_model(hint):
        return typing.cast(type[Model], hint)
    return typing.cast(type[Model], next(a for a in typing.get_args(hint) if _is_model(a)))


def _is_model(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Model)


# -- pandas -----------------------------------------------------------------------------------


def _to_pandas(columns: list[Column], extras: Extras | None) -> Any:
    try:
        import numpy as np
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:
        raise ImportError('to_pandas() needs pandas: pip install "paperlens[pandas]"') from e
    strings = _string_dtype(pd)
    columns = [*columns, *_extra_json(extras)]
    data = {name: _pandas_array(pd, np, values, kind, strings) for name, values, kind, _ in columns}
    length = len(columns[0][1]) if columns else 0
    return pd.DataFrame(data, index=pd.RangeIndex(length), copy=False)


def _datetimes(pd: Any, values: list[Any]) -> Any:
    """The dates as datetimes; when some cannot be, the days only (the others are in
    ``extra_json``, see ``_keep_odd_dates``)."""
    try:
        return pd.to_datetime(pd.Series(values, dtype=object), format="ISO8601", errors="coerce").array
    except (TypeError, ValueError, OverflowError):
        days = [value if _is_day(value) else None for value in values]
        return pd.to_datetime(pd.Series(days, dtype=object), format="ISO8601").array


def _string_dtype(pd: Any) -> Any:
    """The dtype pandas infers for strings when it has one (pandas 3's ``str``), else None."""
    if int(pd.__version__.split(".")[0]) >= 3:
        return "str"
    try:
        return "str" if pd.get_option("future.infer_string") else None
    except (KeyError, pd.errors.OptionError):
        return None


def _pandas_array(pd: Any, np: Any, values: list[Any], kind: str, strings: Any) -> Any:
    if kind == "str" and type(values) is not list:
        return pd.array(values, dtype=strings)  # an Arrow array made from the rows' text
    if not _fits(kind, values):
        kind = "any"  # not what the spec says: kept as sent
    try:
        if kind == "str" and strings is not None and pd.api.types.infer_dtype(values) in ("string", "empty"):
            # The same dtype for a page whose strings are all missing (so pages concatenate).
            return pd.array(values, dtype=strings)
        if kind == "int":
            return pd.array(values, dtype="Int64")
        if kind == "float":
            return np.array(values, dtype=np.float64)
        if kind == "bool":
            return pd.array(values, dtype="boolean")
        if kind == "date":
            return _datetimes(pd, values)
    except (TypeError, ValueError, OverflowError):
        pass  # not what the spec says: kept as sent
    first = next((value for value in values if value is not None), None)
    if kind != "plain" and type(first) not in (list, dict):
        # Typed by the values when they all have one type that a dtype holds unchanged (a
        # field of no given shape that holds integers, a year or a count, reads as one).
        types = set(map(type, values)) - {type(None)}
        if types == {int} and all_fit(INTEGER, values):
            return pd.array(values, dtype="Int64")
        if kind == "any" and types == {float}:
            return np.array(values, dtype=np.float64)
        if kind == "any" and types == {bool}:
            return pd.array(values, dtype="boolean")
        if kind == "any" and types == {str} and strings is not None:
            return pd.array(values, dtype=strings)
    return np.fromiter(values, dtype=object, count=len(values))


# -- polars -----------------------------------------------------------------------------------


def _to_polars(columns: list[Column], extras: Extras | None) -> Any:
    try:
        import polars as pl
    except ImportError as e:
        raise ImportError('to_polars() needs polars: pip install "paperlens[polars]"') from e
    try:
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        pa = None
    series = []
    for name, values, kind, parents in columns:
        shaped = kind in ("object", "plain", "any")
        if shaped or not _fits(kind, values):
            series.append(_polars_nested(pl, pa, name, values, kind if shaped else "any", parents, extras))
        else:
            series.append(_polars_series(pl, pa, name, values, kind))
    series.extend(_polars_series(pl, pa, name, values, kind) for name, values, kind, _ in _extra_json(extras))
    return pl.DataFrame(series)


def _polars_nested(
    pl: Any, pa: Any, name: str, values: list[Any], kind: str, parents: list[Any] | None, extras: Extras | None
) -> Any:
    """A column of values of any shape: polars types it by them, which may change some (a struct
    has every key any row has, null where a row has none; a NUL in a key is cut). The column
    shows them so; ``extras`` keeps them as sent (a flattened object's key: the whole object)."""
    series = _polars_series(pl, pa, name, values, kind)
    structs, floats = _structs_floats(pl, series.dtype)
    if extras is None or not (structs or floats):
        return series
    got = series.to_list()
    if got == values and not floats:
        return series
    # ``0.0 == False`` and ``1.0 == 1``: where floats are, their JSON texts are compared (a
    # struct's keys in another order than sent then count as a change too, which loses nothing).
    for index, (cell, sent) in enumerate(zip(got, values, strict=True)):
        if cell != sent or (floats and to_json(cell) != to_json(sent)):
            if parents is None:
                _put(index, name, sent, extras)
            else:
                _put(index, name.partition(".")[0], parents[index], extras)
    return series


def _structs_floats(pl: Any, dtype: Any) -> tuple[bool, bool]:
    """Whether a polars ``dtype`` has structs in it (which take every key any row has) and
    floats (which may have taken ints and bools): other columns made from Python values give
    them back unchanged."""
    if isinstance(dtype, pl.Struct):
        floats = any(_structs_floats(pl, field.dtype)[1] for field in dtype.fields)
        return True, floats
    if isinstance(dtype, (pl.List, pl.Array)):
        return _structs_floats(pl, dtype.inner)
    return False, dtype.is_float()


def _polars_series(pl: Any, pa: Any, name: str, values: list[Any], kind: str) -> Any:
    if kind == "date":
        values = [_date(v) for v in values]
    if pa is not None:
        arrow_types = {
            "int": pa.int64(),
            "float": pa.float64(),
            "bool": pa.bool_(),
            "str": pa.large_string(),
            "date": pa.date32(),
        }
        try:
            return pl.from_arrow(pa.array(values, type=arrow_types.get(kind)), schema=None).alias(name)
        except (pa.ArrowException, TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
            pass
    else:
        polars_types = {"int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean, "str": pl.String, "date": pl.Date}
        try:
            return pl.Series(name, values, dtype=polars_types.get(kind), strict=True)
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
            pass
    return pl.Series(name, values, dtype=pl.Object)


def _date(value: Any) -> Any:
    """An ISO 8601 date (``2020-05-17``, ``2020-05``, ``2020``, or a timestamp) as a date."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        pass
    parts = value[:10].split("-")
    try:
        if len(parts) == 3:
            return datetime.date(int(parts[0]), int(parts[1]), int(parts[2]))
        if len(parts) == 2:
            return datetime.date(int(parts[0]), int(parts[1]), 1)
        if len(parts) == 1 and len(parts[0]) == 4:
            return datetime.date(int(parts[0]), 1, 1)
    except ValueError:
        pass
    return None
