"""Answers that the contract allows, as hypothesis strategies.

The shapes come from the sandbox's OpenAPI document (the 200 answer of each operation),
widened where that document is narrower than the spec (``SHAPES``), and generated with
the contract's liberties: optional fields absent, present or null; extra properties with
any name at every object level that does not forbid them; integers as digit strings;
non-ASCII text; any JSON value where the contract shows no shape.

A digit string sent for an integer field is an ``IntText``, so that ``expected()`` knows
that ``to_dict()`` gives it back as an int, while digits in a field of no given shape
stay the string they are. (hypothesis-jsonschema could not be used: it fails on this
document with the hypothesis version of the test extra.)
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

DOCUMENT = json.loads((Path(__file__).parents[1] / "crates/paperlens-sandbox/openapi.json").read_text())
COMPONENTS: dict[str, Any] = DOCUMENT["components"]["schemas"]

INT64 = (-(2**63), 2**63 - 1)
ANY: dict[str, Any] = {}
_NULL = {"type": "null"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _props(name: str, **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {**COMPONENTS[name]["properties"], **more}}


#: Where the spec gives another shape than the sandbox's document, by property path
#: (``Component.property``, array levels left out): the spec's shape.
SHAPES: dict[str, Any] = {
    # Required by the document, which forgets its schema; the spec: string.
    "CatalogField.description": {"type": "string"},
    # "original citation relation": no shape (the document: object).
    "CitationItem.relation": ANY,
    # "Reference entity with title, authors, year, or null": types not given.
    "CitationItem.reference": {
        "oneOf": [{"type": "object", "properties": {"title": ANY, "authors": ANY, "year": ANY}}, _NULL]
    },
    # "nodes (schema_id, paper card, availability status)" (the document: schema_id only).
    "CitationGraphResponse.nodes": {
        "type": "array",
        "items": _props("PaperCard", schema_paper={"oneOf": [_ref("PaperCard"), _NULL]}, availability=ANY),
    },
    # "per-level frontier and new-edge statistics": shape and type not given.
    "CitationGraphResponse.levels": ANY,
    # "trace (query method and elapsed time)": no shape given (the document: object).
    "SearchInSchemaResponse.trace": ANY,
    # "evidence (group, key, value_text/value_number/value_bool)": the detail also has `group`.
    "EvidenceDetailResponse.evidence": _props("Evidence", group=ANY),
    # "source (source entity or relation identifier)": no shape given.
    "EvidenceDetailResponse.source": ANY,
    # "matched_entities (array of entity summaries)", "seed (seed paper summary)".
    "EntityRelatedPapersResponse.items.matched_entities": {"type": "array", "items": _ref("Entity")},
    "SchemaRelatedPapersResponse.seed": _ref("PaperCard"),
    # A successful envelope (anything else is an APIError, by design).
    "MetaPaperRelationsResponse.code": {"enum": ["SUCCESS"]},
    "MetaPaperRelationsResponse.biz_code": {"type": "integer", "minimum": 0, "maximum": 0},
}

#: Integer fields that the typed model keeps as sent (``to_dict()`` does not convert them;
#: ``PaperMaterials.count()`` gives a typed view).
KEPT_AS_SENT = frozenset({"MaterialsResponse.items.counts"})


#: Under CI the same examples every run (derandomized); a local run draws new ones. Each test
#: file sets its own number of examples for its time. (No example database: failures are not replayed, see ``phases``.)
_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PROFILE = settings(
    max_examples=25,
    deadline=None,
    database=None,
    derandomize=_CI,
    # Shrinking an answer costs about a minute per failure: a failure shows the answer as
    # generated (the assertion names the path of what differs).
    phases=[Phase.explicit, Phase.generate],
    # One loopback server (a function-scoped fixture) serves every example of a test.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


class IntText(str):
    """A digit string sent for an integer field: read as ``int(self)``."""


def expected(value: Any) -> Any:
    """The wire JSON as ``to_dict()`` must give it back: digit strings of integer fields as ints."""
    if isinstance(value, IntText):
        return int(value)
    if isinstance(value, dict):
        return {k: expected(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expected(v) for v in value]
    return value


_ODD_TEXT = [
    "图 2.jpg",
    "深度学习模型",
    "🧬🔬✨",
    "e\u0301\u0327",
    "مرحبا",
    "👩\u200d🔬",
    "\x00",
    'q"\\/',
    "a\nb",
    "",
    "²",
]
TEXT = st.one_of(st.text(max_size=12), st.sampled_from(_ODD_TEXT))
ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(*INT64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
    | st.integers(0, 2**63).map(str),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=4,
)


def _digits(low: int, high: int, typed: bool) -> st.SearchStrategy[str]:
    text = st.builds(lambda n, zeros: "0" * zeros + str(n), st.integers(max(low, 0), high), st.integers(0, 2))
    return text.map(IntText) if typed else text


class Answers:
    """Strategies for the components of the document.

    ``names``: the names of extra properties; ``names_at``: more of them for the objects at
    some paths. ``full``: every optional field present and not null, every list not empty
    (so that fields of no given shape take every kind of value in a few examples)."""

    def __init__(
        self, names: st.SearchStrategy[str], names_at: dict[str, list[str]] | None = None, full: bool = False
    ) -> None:
        self.names = names
        self.names_at = names_at or {}
        self.full = full
        self._components: dict[tuple[str, bool], st.SearchStrategy[Any]] = {}

    def component(self, name: str, typed: bool = True) -> st.SearchStrategy[Any]:
        key = (name, typed)
        if key not in self._components:
            self._components[key] = st.deferred(lambda: self.of(COMPONENTS[name], name, typed))
        return self._components[key]

    def of(self, schema: dict[str, Any], path: str, typed: bool) -> st.SearchStrategy[Any]:
        if "$ref" in schema:
            return self.component(schema["$ref"].rsplit("/", 1)[1], typed)
        if "oneOf" in schema:
            branches = schema["oneOf"]
            if _is_int64_count(branches):
                return self._integer(branches[0], typed)
            if self.full:
                branches = [branch for branch in branches if branch != _NULL]
            return st.one_of([self.of(branch, path, typed) for branch in branches])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        kind = schema.get("type")
        if kind is None:
            return ANY_JSON
        if isinstance(kind, list):
            # Beside ``string``, digits are a string: only an integer-only field reads them as an int.
            typed_integer = typed and "string" not in kind
            if self.full and len(kind) > 1:
                kind = [k for k in kind if k != "null"]
            return st.one_of([self.of({**schema, "type": k}, path, typed_integer) for k in kind])
        if kind == "object":
            return self._object(schema, path, typed)
        if kind == "array":
            items = self.of(schema.get("items", ANY), path, typed)
            return st.lists(items, min_size=int(self.full), max_size=3 - self.full)
        if kind == "integer":
            return self._integer(schema, typed)
        if kind == "number":
            return _number(schema)
        if kind == "string":
            return st.dates().map(str) if schema.get("format") == "date" else TEXT
        if kind == "boolean":
            return st.booleans()
        assert kind == "null", schema
        return st.none()

    def _integer(self, schema: dict[str, Any], typed: bool) -> st.SearchStrategy[Any]:
        low, high = schema.get("minimum", INT64[0]), schema.get("maximum", INT64[1])
        plain = st.integers(low, high)
        return plain | _digits(low, high, typed) if high >= 0 else plain

    def _object(self, schema: dict[str, Any], path: str, typed: bool) -> st.SearchStrategy[dict[str, Any]]:
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed, optional = {}, {}
        for name in [*properties, *sorted(required - set(properties))]:
            where = f"{path}.{name}"
            shape = SHAPES.get(where, properties.get(name))
            assert shape is not None, f"{where} is required but has no schema"
            value = self.of(shape, where, typed and where not in KEPT_AS_SENT)
            if name in required or self.full:
                fixed[name] = value
            else:
                optional[name] = st.none() | value
        additional = schema.get("additionalProperties", True)
        if additional is False:
            extras = st.just({})
        else:
            values = ANY_JSON if additional is True else self.of(additional, f"{path}.*", typed)
            names = self.names | st.sampled_from(self.names_at[path]) if self.names_at.get(path) else self.names
            extras = st.dictionaries(names, values, max_size=2)
        known = fixed.keys() | optional.keys()
        return st.builds(
            lambda wire, more: {**{k: v for k, v in more.items() if k not in known}, **wire},
            st.fixed_dictionaries(fixed, optional=optional),
            extras,
        )


def _is_int64_count(branches: list[dict[str, Any]]) -> bool:
    """``integer`` or a string of digits: an integer that may come as a digit string."""
    kinds = [branch.get("type") for branch in branches]
    return kinds == ["integer", "string"] and branches[1].get("pattern") == "^[0-9]+$"


def _number(schema: dict[str, Any]) -> st.SearchStrategy[float | int]:
    low, high = schema.get("minimum"), schema.get("maximum")
    floats = st.floats(low, high, allow_nan=False, allow_infinity=False)
    ints = st.integers(-(2**53) if low is None else math.ceil(low), 2**53 if high is None else math.floor(high))
    return floats | ints


def response_component(path: str, method: str) -> str:
    """The component of the 200 answer of an operation of the document."""
    content = DOCUMENT["paths"][path][method]["responses"]["200"]["content"]
    return content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
