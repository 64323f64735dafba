"""One Arrow schema per record dataset, the same in every part and every run of an output.

The columns come from the call, never from the records of a chunk: a metadata search writes
the contract's default field set, or with ``fields=`` the fields named, and always ``doc_id``
and ``unique_id`` (the contract returns them whenever they exist); a relation item (snowball
nodes) writes ``id``, ``id_type`` and ``title``. Each is typed from the contract's table:

- ``string`` and ``date`` fields: strings (a date as the contract's ``yyyy-MM-dd`` text);
- ``integer``: int64; ``float``: float64;
- ``array of string``: a list of strings; ``author``: a list of structs ``name``, ``orcid``;
- objects whose shape the contract documents, as typed structs: ``citation_normalized_percentile``
  (``value``, ``is_in_top_10_percent``, ``is_in_top_1_percent``), ``cited_by_percentile_year``
  (``min``, ``max``), ``primary_topic`` and each entry of ``topics`` (``id``, ``display_name``,
  ``score`` and the ``subfield``, ``field`` and ``domain`` of the topic, each an ``id`` and a
  ``display_name``);
- objects whose inner shape the contract does not show (``locations``, ``citations``): their
  JSON text, in a column of Parquet's JSON logical type (DuckDB, Spark and polars read it as
  JSON), so that no part grows its own struct.

Nothing is dropped: every property the contract does not name, and every value whose type does
not fit its column (a string where an integer belongs, an author with other keys...), goes
under its own name into one JSON-text column, ``extra_json`` (null when there is none).
A property sent as null is left out (a null cell); nulls inside values are kept, but for an
author's ``name`` or ``orcid`` (a struct field: null reads as absent). A struct value fits its
column only without nulls inside and without other keys (anything else goes to ``extra_json``
whole), so it reads back as it arrived.

Outputs of older versions (their objects and ``extra_json`` as plain strings) stay readable, and
an update writes its parts in the schema of the output's parts: the layout in each part's
metadata (:meth:`RecordSchema.of_arrow`) rebuilds it.
Columns paperlens adds (the corpus's text columns, a node's ``depth``) are typed columns of
their own; a wire property of the same name is an extra like any other.

:func:`read_table_records` turns such a table back into the records' ``to_dict()``, but for
one thing: a null value and an absent one are both null in a column, and read back as absent.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "EXTRA_COLUMN",
    "RecordSchema",
    "all_fit",
    "metadata_schema",
    "read_table_records",
    "relation_schema",
    "to_json",
]

#: The JSON-text column of the properties the contract does not name and of the values that do
#: not fit their column.
EXTRA_COLUMN: Final = "extra_json"
#: The metadata record's fields the service returns when no ``fields`` projection is passed.
DEFAULT_FIELDS: Final = (
    "doc_id",
    "unique_id",
    "metadata_type",
    "title",
    "abstract",
    "language",
    "doi",
    "isbns",
    "isbn13",
    "type",
    "author",
    "locations",
    "access_is_oa",
    "access_oa_status",
    "access_oa_url",
    "access_license",
    "publication_published_year",
    "publication_venue_name_unified",
    "publication_venue_type",
    "publication_venue_issn",
    "publication_publisher",
    "keywords",
    "reference_count",
    "citation_count",
    "influential_citation_count",
    "fwci",
    "references",
    "related_works",
    "citation_normalized_percentile",
    "cited_by_percentile_year",
)
#: Returned whenever they exist, whatever the projection.
ALWAYS_RETURNED: Final = ("doc_id", "unique_id")

STRING, INTEGER, FLOAT, STRINGS, AUTHORS, JSON = "string", "integer", "float", "strings", "authors", "json"
#: JSON text in a column of Parquet's JSON logical type (``JSON``: plain strings, as older outputs).
JSON_TEXT = "json_text"
BOOLEAN = "boolean"
#: The shapes the contract documents: (key, a scalar kind or a nested shape) pairs.
Shape = tuple[tuple[str, Any], ...]
_NAMED: Shape = (("id", STRING), ("display_name", STRING))
_TOPIC: Shape = (
    ("id", STRING),
    ("display_name", STRING),
    ("score", FLOAT),
    ("subfield", _NAMED),
    ("field", _NAMED),
    ("domain", _NAMED),
)
#: Struct kinds: a struct of the shape, or (``topics``) a list of them.
_STRUCTS: Final[dict[str, tuple[Shape, bool]]] = {
    "percentile": ((("value", FLOAT), ("is_in_top_10_percent", BOOLEAN), ("is_in_top_1_percent", BOOLEAN)), False),
    "percentile_range": ((("min", FLOAT), ("max", FLOAT)), False),
    "topic": (_TOPIC, False),
    "topics": (_TOPIC, True),
}
#: The struct kind of each documented object field.
_STRUCT_FIELDS: Final = {
    "citation_normalized_percentile": "percentile",
    "cited_by_percentile_year": "percentile_range",
    "primary_topic": "topic",
    "topics": "topics",
}
_METADATA = b"paperlens.record_columns"
_AUTHOR_KEYS: Final = {"name", "orcid"}
#: The types a column's values may have (None aside), where types alone tell.
_TYPES: Final[dict[str, set[type]]] = {
    STRING: {str},
    INTEGER: {int},
    FLOAT: {int, float},
    STRINGS: {list},
    AUTHORS: {list},
}
_INT64 = 1 << 63
_EXACT_FLOAT = 1 << 53


def _kind(name: str, annotation: Any) -> str:
    """The column kind of a model field, from its annotation (``X | None``)."""
    if name == "author":
        return AUTHORS
    inner = next(a for a in typing.get_args(annotation) if a is not type(None))
    if inner in (str, int, float):
        return {str: STRING, int: INTEGER, float: FLOAT}[inner]
    if typing.get_origin(inner) is list and typing.get_args(inner) == (str,):
        return STRINGS
    return _STRUCT_FIELDS.get(name, JSON_TEXT)


def _model_kinds(model: type) -> dict[str, str]:
    hints = typing.get_type_hints(model)
    return {field.name: _kind(field.name, hints[field.name]) for field in dataclasses.fields(model)}


def _fits(kind: str, value: Any) -> bool:
    kind_of = type(value)
    if kind == STRING:
        return kind_of is str
    if kind == INTEGER:
        return kind_of is int and -_INT64 <= value < _INT64
    if kind == FLOAT:
        return kind_of is float or (kind_of is int and -_EXACT_FLOAT <= value <= _EXACT_FLOAT)
    if kind == STRINGS:
        return kind_of is list and all(item is None or type(item) is str for item in value)
    if kind == AUTHORS:
        return kind_of is list and all(item is None or _is_author(item) for item in value)
    if kind in _STRUCTS:
        shape, many = _STRUCTS[kind]
        if many:
            return kind_of is list and all(_fits_shape(shape, item) for item in value)
        return _fits_shape(shape, value)
    return True


def _fits_shape(shape: Shape, value: Any) -> bool:
    """Whether ``value`` is an object of ``shape``: no other key, no null, each value typed."""
    if type(value) is not dict:
        return False
    kinds = dict(shape)
    for key, item in value.items():
        kind = kinds.get(key)
        if kind is None or item is None:
            return False
        if isinstance(kind, tuple):
            if not _fits_shape(kind, item):
                return False
        elif not (type(item) is bool if kind == BOOLEAN else _fits(kind, item)):
            return False
    return True


def all_fit(kind: str, values: list[Any]) -> bool:
    """Whether every value of a column fits, from the set of their types where it tells."""
    types = set(map(type, values))
    types.discard(type(None))
    if kind in (JSON, JSON_TEXT):
        return True
    if kind in _STRUCTS:
        return all(value is None or _fits(kind, value) for value in values)
    if not types <= _TYPES[kind]:
        return False
    if kind == STRING:
        return True
    present = [value for value in values if value is not None]
    if kind == INTEGER:
        return not present or (min(present) >= -_INT64 and max(present) < _INT64)
    if kind == FLOAT:
        ints = [value for value in present if type(value) is int]
        return not ints or (min(ints) >= -_EXACT_FLOAT and max(ints) <= _EXACT_FLOAT)
    items = set(map(type, itertools.chain.from_iterable(present)))
    items.discard(type(None))
    if kind == STRINGS:
        return items <= {str}
    if not items <= {dict}:
        return False
    authors = [author for author in itertools.chain.from_iterable(present) if author is not None]
    keys = set(itertools.chain.from_iterable(authors))
    kinds = set(map(type, itertools.chain.from_iterable(map(dict.values, authors))))
    return keys <= _AUTHOR_KEYS and kinds <= {str, type(None)}


def _is_author(item: Any) -> bool:
    return (
        type(item) is dict
        and item.keys() <= _AUTHOR_KEYS
        and all(value is None or type(value) is str for value in item.values())
    )


def _arrow_type(pa: Any, kind: str) -> Any:
    if kind == INTEGER:
        return pa.int64()
    if kind == FLOAT:
        return pa.float64()
    if kind == STRINGS:
        return pa.list_(pa.string())
    if kind == AUTHORS:
        return pa.list_(pa.struct([("name", pa.string()), ("orcid", pa.string())]))
    if kind == BOOLEAN:
        return pa.bool_()
    if kind == JSON_TEXT:
        return pa.json_(pa.string())
    if kind in _STRUCTS:
        shape, many = _STRUCTS[kind]
        struct = _struct_type(pa, shape)
        return pa.list_(struct) if many else struct
    return pa.string()


def _struct_type(pa: Any, shape: Shape) -> Any:
    return pa.struct(
        [(key, _struct_type(pa, kind) if isinstance(kind, tuple) else _arrow_type(pa, kind)) for key, kind in shape]
    )


def _without_nulls(value: Any) -> Any:
    """A struct cell as it arrived: its null fields (absent from the value) left out."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


#: ``json.dumps`` with other than the default settings would build an encoder per call.
to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class RecordSchema:
    """The columns of one record dataset: the record's typed columns, then the ones paperlens
    adds, then :data:`EXTRA_COLUMN`."""

    def __init__(
        self, record: Mapping[str, str], added: Mapping[str, str] | None = None, extra_kind: str = JSON_TEXT
    ) -> None:
        added = dict(added or {})
        clash = (set(record) & set(added)) | ({EXTRA_COLUMN} & (set(record) | set(added)))
        if clash:
            raise ValueError(f"column names used twice: {sorted(clash)}")
        self.record = dict(record)
        self.added = added
        self.extra_kind = extra_kind

    @classmethod
    def of_arrow(cls, schema: Any) -> RecordSchema | None:
        """The schema whose :meth:`arrow` is ``schema`` (a part's, read back), from the layout
        in its metadata; None without one (parts of paperlens before one schema per output)."""
        metadata = schema.metadata or {}
        if _METADATA not in metadata:
            return None
        layout = json.loads(metadata[_METADATA])
        # Older layouts name no kind for extra_json: a plain string column then.
        return cls(layout["record"], layout.get("added"), layout.get("extra_kind", JSON))

    def arrow(self) -> Any:
        """The ``pyarrow.Schema``; its metadata names the record's columns and their kinds."""
        import pyarrow as pa

        columns = [pa.field(name, _arrow_type(pa, kind)) for name, kind in {**self.record, **self.added}.items()]
        columns.append(pa.field(EXTRA_COLUMN, _arrow_type(pa, self.extra_kind)))
        layout: dict[str, Any] = {"record": self.record, "added": self.added, "extra": EXTRA_COLUMN}
        if self.extra_kind != JSON:
            layout["extra_kind"] = self.extra_kind
        return pa.schema(columns, metadata={_METADATA: to_json(layout).encode()})

    def table(self, records: Sequence[dict[str, Any]], added: Sequence[Mapping[str, Any]] | None = None) -> Any:
        """A ``pyarrow.Table`` of ``records`` (``to_dict()`` values), with ``added[i]`` the
        paperlens columns of ``records[i]``. Built column by column: a column whose values all
        fit (the usual case, checked by their types at once) is taken as it is."""
        import pyarrow as pa

        kinds = self.record
        extras: list[dict[str, Any]] = [{} for _ in records]
        cells: dict[str, list[Any]] = {}
        for name, kind in kinds.items():
            values = list(map(dict.get, records, itertools.repeat(name)))
            if not all_fit(kind, values):
                for index, value in enumerate(values):
                    if value is not None and not _fits(kind, value):
                        extras[index][name] = value
                        values[index] = None
            cells[name] = [None if v is None else to_json(v) for v in values] if kind in (JSON, JSON_TEXT) else values
        for index, record in enumerate(records):
            for name in record.keys() - kinds.keys():
                if record[name] is not None:
                    extras[index][name] = record[name]
        for name in self.added:
            cells[name] = [row.get(name) for row in added] if added is not None else [None] * len(records)
        cells[EXTRA_COLUMN] = [to_json(more) if more else None for more in extras]
        schema = self.arrow()
        arrays = [pa.array(cells[field.name], type=field.type) for field in schema]
        return pa.Table.from_arrays(arrays, schema=schema)


def metadata_schema(
    record: type,
    fields: Iterable[str] | None = None,
    collection: str | None = None,
    added: Mapping[str, str] | None = None,
) -> RecordSchema:
    """The schema of metadata records (their result type ``record``) of a search with this
    ``fields`` projection and ``collection``: the contract's default field set, or the fields
    named plus ``doc_id`` and ``unique_id``. The fields of the ``authors`` and ``sources``
    collections are not in the contract: all of their properties go to :data:`EXTRA_COLUMN`."""
    if collection not in (None, "papers"):
        return RecordSchema({}, added)
    kinds = _model_kinds(record)
    wanted = set(DEFAULT_FIELDS) if not fields else {*fields, *ALWAYS_RETURNED}
    return RecordSchema({name: kind for name, kind in kinds.items() if name in wanted}, added)


def relation_schema(item: type, added: Mapping[str, str] | None = None) -> RecordSchema:
    """The schema of relation items (their result type ``item``: ``id``, ``id_type``, ``title``)."""
    return RecordSchema(_model_kinds(item), added)


def read_table_records(table: Any) -> list[dict[str, Any]]:
    """The records of a table written with a :class:`RecordSchema`, as their ``to_dict()`` (null
    values read as absent); the paperlens columns are left out. A table without the schema's
    metadata (an older paperlens) is read row by row as it is."""
    metadata = table.schema.metadata or {}
    if _METADATA not in metadata:
        return list(table.to_pylist())
    layout = json.loads(metadata[_METADATA])
    kinds: dict[str, str] = layout["record"]
    rows = table.select([*kinds, layout["extra"]]).to_pylist()
    extra = layout["extra"]
    records = []
    for row in rows:
        record: dict[str, Any] = {}
        for name, kind in kinds.items():
            value = row[name]
            if value is None:
                continue
            if kind in (JSON, JSON_TEXT):
                value = json.loads(value)
            elif kind == AUTHORS:
                value = [None if a is None else {k: v for k, v in a.items() if v is not None} for a in value]
            elif kind in _STRUCTS:
                value = _without_nulls(value)
            record[name] = value
        if row[extra] is not None:
            record.update(json.loads(row[extra]))
        records.append(record)
    return records
