"""Every validation message speaks Python: it names the parameter and the rule and shows the
value as the caller wrote it (its ``repr``), never Rust's debug syntax or bounds
(``Some(...)``, ``String("...")``, ``Object {...}``, ``18446744073709551615``, ``"None"``);
and nothing is sent."""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens

RUST = ("Some(", "String(", "Object {", "Array [", "Number(", "Bool(", "18446744073709551615", '"None"', "`")
RUST += ("HydrateItem", "SearchFilters", "i64", "u32", "usize", "struct ", "a sequence", "a map", "JSON number")

OK_ITEM = {"schema_id": "s", "marker_nums": [1]}
YEAR_TEXT = {"published_year_gte": "2020"}
NO_FIELD = [{"field": "", "operator": "FILTER_OP_EQ", "value": 1}]
DAY = datetime.date(2020, 1, 1)

# (operation, arguments, the parameter the message names, a text it shows)
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("schema.search", {"query": "x", "sort": [{"by": "year"}]}, "sort[0]", "(got {'by': 'year'})"),
    ("schema.search", {"query": "x", "sort": [{"field": "stars"}]}, "sort[0].field", "(got 'stars')"),
    ("schema.search", {"query": "", "size": 5}, "query", "(got '')"),
    ("schema.search", {"query": "x", "size": "5"}, "size", "must be an int (got '5')"),
    ("schema.search", {"query": "x", "size": 5.5}, "size", "must be an int (got 5.5)"),
    ("schema.search", {"query": "x", "size": 10**30}, "size", "fits in 64 bits (got 1000000000000000000000000000000)"),
    ("schema.search", {"query": "x", "filters": {"nope": 1}}, "filters.nope", "allowed: schema_ids, dois"),
    (
        "schema.search",
        {"query": "x", "filters": YEAR_TEXT},
        "filters.published_year_gte",
        "'2020'",
    ),
    ("schema.search", {"filters": {}}, "query", "at least one of query and filters"),
    ("schema.search", {"query": "x", "sort": "year"}, "sort", "must be a list (got 'year')"),
    ("schema.search", {"query": 5}, "query", "must be a str (got 5)"),
    ("schema.search", {"query": ["x"]}, "query", "must be a str (got ['x'])"),
    ("schema.search", {"query": "x", "size": DAY}, "size", "must be a str, int, float, bool, None, list or dict"),
    ("schema.search_evidence", {"groups": ["x"], "value_number_min": "x"}, "value_number_min", "a number (got 'x')"),
    ("schema.materials", {"schema_ids": 5}, "schema_ids", "must be a list (got 5)"),
    ("schema.search", {"query": "x", "filters": {"has_code": "no"}}, "filters.has_code", "must be a bool (got 'no')"),
    ("schema.search_in_paper", {"schema_id": "s", "query": "q", "top_k": True}, "top_k", "must be an int (got True)"),
    ("schema.materials", {"schema_ids": "ab"}, "schema_ids", "must be a list (got 'ab')"),
    ("schema.search_entities", {"query": None}, "query", "is required unless filters.schema_ids is given"),
    ("schema.entities", {"schema_id": ""}, "schema_id", "must not be empty (got '')"),
    ("schema.entity", {"schema_id": "s", "entity_id": ""}, "entity_id", "must not be empty (got '')"),
    ("schema.entity", {"schema_id": "s", "entity_id": ".."}, "entity_id", "(got '..')"),
    ("schema.resolve_provenance", {}, "paragraph_ids", "one locator mode is required"),
    ("schema.resolve_provenance", {"marker_nums": [1]}, "schema_id", "is required with marker_nums"),
    ("schema.resolve_provenance", {"schema_id": "s"}, "marker_nums", "is required with schema_id"),
    ("schema.resolve_provenance", {"schema_id": "s", "marker_nums": ["a"]}, "marker_nums[0]", "(got 'a')"),
    ("schema.resolve_provenance", {"schema_id": "s", "marker_nums": [1], "window": 9}, "window", "(got 9)"),
    ("schema.hydrate_items", {"items": [{"schema_id": "s"}]}, "items[0]", "(got {'schema_id': 's'})"),
    ("schema.hydrate_items", {"items": [{"paragraph_ids": ["p"]}]}, "items[0].schema_id", "is required (got None)"),
    ("schema.hydrate_items", {"items": [OK_ITEM] * 51}, "items", "must have 1 to 50 items, has 51 (got [{"),
    ("schema.hydrate_items", {"items": [{"schema_id": "s", "nope": [1]}]}, "items[0].nope", "(got [1])"),
    ("schema.hydrate_items", {"items": ["s"]}, "items[0]", "must be a dict (got 's')"),
    ("schema.search_in_paper", {"schema_id": "s", "query": "q" * 501}, "query", "must have 1 to 500 characters"),
    ("schema.citation_graph", {"schema_id": "s", "depth": 9}, "depth", "must be between 1 and 3 (got 9)"),
    ("schema.materials", {"schema_ids": []}, "schema_ids", "must have 1 to 20 items, has 0 (got [])"),
    ("schema.materials", {"schema_ids": ["s"], "goal": "x"}, "goal", "(got 'x')"),
    ("schema.search_evidence", {"groups": []}, "groups", "(got [])"),
    ("schema.search_evidence", {"groups": ["formula"]}, "groups", "(got ['formula'])"),
    ("schema.search_relations", {"filters": {}}, "filters", "or relation_types (got {})"),
    ("schema.search_relations", {}, "filters", "needs at least one structural filter"),
    ("content", {}, "doc_id", "at least one of doc_id and source is required"),
    ("meta_search", {"query": "x", "page": 0}, "page", "must be at least 1 (got 0)"),
    ("meta_search", {"query": "x", "page": 100, "page_size": 200}, "page", "got 100 * 200 = 20000"),
    ("meta_search", {"query": "x", "sort": [{"by": "x"}]}, "sort[0].by", "allowed: field, order"),
    (
        "meta_search",
        {"query": "x", "filters": NO_FIELD},
        "filters[0].field",
        "(got '')",
    ),
    ("meta_search", {"query": "x", "filters": [{"field": "doi", "value": None}]}, "filters[0].value", "is required"),
    ("agentic_search", {"query": "q", "top_k": 10**30}, "top_k", "fits in 64 bits"),
    # JSON has no NaN or infinity: such a value was read as null, and the parameter dropped unsaid.
    ("agentic_search", {"query": "q", "top_k": math.nan}, "top_k", "must not be NaN or an infinity (got nan)"),
    ("agentic_search", {"query": "q", "retrieval": math.inf}, "retrieval", "must not be NaN or an infinity (got inf)"),
    (
        "schema.search_evidence",
        {"groups": ["method"], "value_number_min": -math.inf},
        "value_number_min",
        "must not be NaN or an infinity (got -inf)",
    ),
    (
        "meta_search",
        {"query": "x", "filters": [("fwci", ">=", math.nan)]},
        "filters[0].value",
        "must not be NaN or an infinity (got nan)",
    ),
    (
        "schema.hydrate_items",
        {"items": [{**OK_ITEM, "marker_nums": [math.nan]}]},
        "items[0].marker_nums[0]",
        "must not be NaN or an infinity (got nan)",
    ),
]


def test_a_paginator_of_a_query_of_another_type_says_so_before_any_request(
    httpserver: HTTPServer, make_client: Callable[..., paperlens.Client]
) -> None:
    with make_client() as client, pytest.raises(paperlens.ValidationError) as raised:
        client.iter_meta_search(5, freshness_boost="MILD").to_list()  # not an AttributeError from .strip()
    assert str(raised.value) == "query: must be a str (got 5)"
    assert httpserver.log == []


#: Each workflow (and paginator) with the client, a folder for its output and its own options.
WORKFLOWS: dict[str, Callable[[paperlens.Client, Any, dict[str, Any]], Any]] = {
    "iter_meta_search": lambda client, _, options: client.iter_meta_search("x", **options),
    "iter_citations": lambda client, _, options: client.schema.iter_citations("s1", **options),
    "lookup": lambda client, _, options: client.lookup(**{"ids": ["10.1/x"], **options}),
    "match_references": lambda client, _, options: client.match_references(
        **{"texts": ["Smith J (2020) A title."], **options}
    ),
    "snowball": lambda client, _, options: client.snowball(**{"seeds": ["u1"], **options}),
    "verify_citations": lambda client, _, options: client.verify_citations("@misc{k, title = {A title}}", **options),
    "harvest": lambda client, out, options: paperlens.harvest.harvest(
        client, out=out / "h", **{"query": "x", **options}
    ),
    "harvest_corpus": lambda client, out, options: paperlens.harvest.harvest_corpus(
        client, out / "c", **{"query": "x", **options}
    ),
    "estimate_harvest": lambda client, _, options: client.estimate_harvest("x", **options),
    "download_resource": lambda client, out, options: client.download_resource("f.png", out / "f.png", **options),
}
NOT_A_FLAG = "progress: must be True or False (got 'no')"


@pytest.mark.parametrize(
    ("workflow", "options", "said"),
    [
        *((name, {"progress": "no"}, NOT_A_FLAG) for name in WORKFLOWS if name != "estimate_harvest"),
        ("iter_meta_search", {"progress": 1}, "progress: must be True or False (got 1)"),
        ("iter_meta_search", {"limit": -1}, "limit: must be None or an integer >= 0 (got -1)"),
        ("iter_meta_search", {"limit": "3"}, "limit: must be None or an integer >= 0 (got '3')"),
        ("iter_citations", {"limit": math.nan}, "limit: must be None or an integer >= 0 (got nan)"),
        ("harvest", {"chunk_size": 0}, "chunk_size: must be an integer >= 1 (got 0)"),
        ("harvest", {"chunk_size": math.nan}, "chunk_size: must be an integer >= 1 (got nan)"),
        ("harvest", {"limit": "5"}, "limit: must be None or an integer >= 0 (got '5')"),
        ("harvest", {"format": "csv"}, "format: must be one of parquet, jsonl (got 'csv')"),
        ("harvest", {"update": "no"}, "update: must be True or False (got 'no')"),
        ("harvest_corpus", {"update": 1}, "update: must be True or False (got 1)"),
        ("harvest_corpus", {"figures": "no"}, "figures: must be True or False (got 'no')"),
        ("download_resource", {"overwrite": "no"}, "overwrite: must be True or False (got 'no')"),
        # A list parameter of no list (a TypeError of Python's, naming nothing, when iterated).
        ("lookup", {"ids": 42}, "ids: must be a list of identifiers (got 'int')"),
        ("lookup", {"fields": 5}, "fields: must be a list of field names (got 'int')"),
        ("match_references", {"texts": 42}, "texts: must be a list of citations (got 'int')"),
        ("snowball", {"seeds": 42}, "seeds: must be a list of unique_ids (got 'int')"),
        ("harvest_corpus", {"query": None, "ids": b"W1"}, "ids: must be a list of identifiers (got 'bytes')"),
        # A path that names no file.
        (
            "estimate_harvest",
            {"update": 42},
            "update: must be a path (a non-empty str or os.PathLike, without NUL) (got 42)",
        ),
        (
            "snowball",
            {"checkpoint": "a\x00b"},
            "checkpoint: must be a path (a non-empty str or os.PathLike, without NUL) (got 'a\\x00b')",
        ),
        # The search too, as the first page would be refused: else the output, its checkpoint and
        # its manifest were written first, and the corrected call refused as a changed one.
        ("harvest", {"page_size": 0}, "page_size: must be between 1 and 200 (got 0)"),
        (
            "harvest",
            {"filters": [("fwci", ">=", math.nan)]},
            "filters[0].value: must not be NaN or an infinity (got nan)",
        ),
        ("harvest_corpus", {"query": 5}, "query: must be a str (got 5)"),
        ("harvest_corpus", {"texts": 0}, "texts: must be True or False (got 0)"),
        ("estimate_harvest", {"texts": "yes"}, "texts: must be True or False (got 'yes')"),
        ("estimate_harvest", {"figures": 1}, "figures: must be True or False (got 1)"),
    ],
)
def test_a_workflows_own_options_are_checked_before_any_request_or_file(
    httpserver: HTTPServer,
    make_client: Callable[..., paperlens.Client],
    tmp_path: Any,
    workflow: str,
    options: dict[str, Any],
    said: str,
) -> None:
    with make_client() as client, pytest.raises(paperlens.ValidationError) as raised:
        WORKFLOWS[workflow](client, tmp_path, options)
    assert str(raised.value) == said
    assert httpserver.log == [] and list(tmp_path.iterdir()) == []


def _call(client: paperlens.Client, operation: str, arguments: dict[str, Any]) -> None:
    owner: Any = client
    for part in operation.split("."):
        owner = getattr(owner, part)
    owner(**arguments)


@pytest.mark.parametrize(("operation", "arguments", "param", "shown"), CASES, ids=lambda v: str(v)[:40])
def test_validation_messages_speak_python(
    httpserver: HTTPServer,
    make_client: Callable[..., paperlens.Client],
    operation: str,
    arguments: dict[str, Any],
    param: str,
    shown: str,
) -> None:
    with make_client() as client, pytest.raises(paperlens.ValidationError) as raised:
        _call(client, operation, arguments)
    message = str(raised.value)
    assert message.startswith(f"{param}: ") and raised.value.param == param, message
    assert shown in message, message
    assert not [mark for mark in RUST if mark in message], message
    assert httpserver.log == []
