"""The contract facts of the Python layer (``paperlens.base._contract``) against the sandbox's OpenAPI
document, and the modules that use them. The Rust core's facts are checked against the same
document by ``crates/paperlens-sandbox/tests/contract.rs``: together, a fact that differs between
the core, the sandbox, the document and Python fails CI."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from paperlens.base import _contract as contract
from paperlens.base import filters
from paperlens.machinery import _pagination

DOCUMENT = Path(__file__).resolve().parents[1] / "crates" / "paperlens-sandbox" / "openapi.json"

# The /paper-schema operations paged by cursor (CursorPaging), by request schema or parameter.
CURSOR_PAGED_BODIES = [
    "PaperSearchRequest",
    "EntityRelatedPapersRequest",
    "EntitySearchRequest",
    "RelationSearchRequest",
    "EvidenceSearchRequest",
]
CURSOR_PAGED_LISTS = ["/paper-schema/schemas/{schema_id}/entities", "/paper-schema/schemas/{schema_id}/citations"]


@cache
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return loaded


def schema(name: str, *properties: str) -> dict[str, Any]:
    """A component schema, or the schema of a property within it (``[]``: the items)."""
    node: dict[str, Any] = document()["components"]["schemas"][name]
    for prop in properties:
        items = prop.endswith("[]")
        node = node["properties"][prop.removesuffix("[]")]
        if items:
            node = node["items"]
    return node


def query_param(path: str, name: str) -> dict[str, Any]:
    parameters = document()["paths"][path]["get"]["parameters"]
    found: dict[str, Any] = next(p["schema"] for p in parameters if p.get("name") == name)
    return found


def test_filter_operators():
    assert list(contract.FILTER_OPERATORS) == schema("OperatorShortName")["enum"]
    operator = schema("FilterItem", "operator")
    assert [contract.FILTER_OPERATOR_PREFIX + op for op in contract.FILTER_OPERATORS] == operator["enum"]
    assert operator["default"] == contract.FILTER_OPERATOR_PREFIX + contract.FILTER_OPERATORS[0]
    assert set(contract.LIST_OPERATORS) <= set(contract.FILTER_OPERATORS)
    value = schema("FilterItem", "value")["description"]
    assert " and ".join(f"`{op}`" for op in contract.LIST_OPERATORS) + " take an array" in value
    # Every alias names an operator, and every operator has one.
    assert sorted(contract.OPERATOR_ALIASES.values()) == sorted(contract.FILTER_OPERATORS)


@pytest.mark.parametrize("short", contract.FILTER_OPERATORS)
def test_filters_spell_each_operator_the_contracts_way(short):
    wire = contract.FILTER_OPERATOR_PREFIX + short
    aliases = [alias for alias, name in contract.OPERATOR_ALIASES.items() if name == short]
    for spelling in [short, short.lower(), wire, *aliases]:
        assert filters.operator_name(spelling) == wire


def test_sort_orders():
    order = schema("SortItem", "order")
    assert list(contract.SORT_ORDERS.values()) == order["enum"]
    assert contract.SORT_ORDERS["desc"] == order["default"]
    for short, wire in contract.SORT_ORDERS.items():
        assert filters.sort_to_wire(("year", short)) == [{"field": "year", "order": wire}]


def test_collections_relations_and_agentic_enumerations():
    collection = schema("MetaSearchRequest", "collection")
    assert list(contract.COLLECTIONS) == collection["enum"]
    assert contract.COLLECTIONS[0] == collection["default"]
    assert query_param("/meta-catalog", "collection")["default"] == contract.COLLECTIONS[0]
    assert list(contract.PAPER_RELATIONS) == schema("MetaPaperRelationsRequest", "relation")["enum"]
    retrieval = schema("AgenticSearchRequest", "retrieval")
    assert list(contract.RETRIEVAL_MODES) == retrieval["enum"]
    assert contract.RETRIEVAL_MODES[0] == retrieval["default"]
    assert list(contract.SOURCE_TYPES) == schema("AgenticSearchRequest", "source_types[]")["enum"]


def test_the_page_depth_cap():
    assert schema("MetaSearchResponse", "total_count")["oneOf"][0]["maximum"] == contract.PAGE_DEPTH_CAP
    assert f"must not exceed {contract.PAGE_DEPTH_CAP}" in schema("MetaSearchRequest", "page")["description"]
    assert _pagination.PAGE_DEPTH_CAP == contract.PAGE_DEPTH_CAP


def test_page_sizes():
    for request in ["MetaSearchRequest", "MetaPaperRelationsRequest"]:
        page_size = schema(request, "page_size")
        assert (page_size["maximum"], page_size["default"]) == (contract.PAGE_SIZE_MAX, contract.PAGE_SIZE_DEFAULT)
    for response in ["MetaSearchResponse", "MetaPaperRelationsResponse"]:
        assert schema(response, "page_size")["maximum"] == contract.PAGE_SIZE_MAX
    sizes = [schema(name, "size")["maximum"] for name in CURSOR_PAGED_BODIES]
    sizes += [query_param(path, "size")["maximum"] for path in CURSOR_PAGED_LISTS]
    assert sizes == [contract.SCHEMA_PAGE_SIZE_MAX] * len(sizes)
    # The paginators ask for the largest page the contract allows.
    assert _pagination.MetaSearchPaging.max_size == contract.PAGE_SIZE_MAX
    assert _pagination.PageNumberPaging.max_size == contract.PAGE_SIZE_MAX
    assert _pagination.CursorPaging.max_size == contract.SCHEMA_PAGE_SIZE_MAX
    assert query_param("/content", "limit")["maximum"] == contract.CONTENT_PAGE_MAX


def test_boosts():
    properties = schema("MetaSearchRequest")["properties"]
    boosted = [name for name, prop in properties.items() if prop.get("enum") == list(contract.BOOST_LEVELS)]
    assert boosted == list(contract.BOOSTS)
    assert all(properties[b]["default"] == contract.NO_BOOST == contract.BOOST_LEVELS[0] for b in contract.BOOSTS)
    # The paging rule: a boost counts only on a relevance ranking (a query and no sort).
    for boost in contract.BOOSTS:
        for level in contract.BOOST_LEVELS:
            active = level != contract.NO_BOOST
            assert _pagination.boost_active({"query": "q", boost: level}) is active
            assert _pagination.boost_active({"query": "q", boost: level, "sort": [{"field": "fwci"}]}) is False
            assert _pagination.boost_active({"query": " ", boost: level}) is False
        assert _pagination.boost_names({"query": "q", boost: "MILD"}) == f"{boost}=MILD"


def test_paper_schema_enumerations():
    groups = schema("EvidenceSearchRequest", "groups[]")["enum"]
    assert list(contract.EVIDENCE_GROUPS) == groups == schema("Evidence", "groups[]")["enum"]
    operator = schema("EvidenceSearchRequest", "group_operator")
    assert (list(contract.GROUP_OPERATORS), contract.GROUP_OPERATORS[0]) == (operator["enum"], operator["default"])
    goal = schema("MaterialsRequest", "goal")
    assert (list(contract.GOALS), contract.GOALS[0]) == (goal["enum"], goal["default"])
    assert list(contract.SIGNALS) == schema("SchemaRelatedPapersRequest", "signals[]")["enum"]
    direction = query_param("/paper-schema/schemas/{schema_id}/citation-graph", "direction")
    assert (list(contract.DIRECTIONS), contract.DIRECTIONS[0]) == (direction["enum"], direction["default"])
