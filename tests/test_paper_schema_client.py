"""``client.schema``: the 18 Structured Paper operations against a real loopback HTTP server.

Each operation is checked sync and async: the request exactly as sent and the typed result.
Then the client-side narrowing rules, cursor iteration, partial results, the 504 retry path,
the capability cache and ``CitationGraph.to_networkx()``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens import types as t
from paperlens.schema import Schema

from fixtures import ENTITY, PROVENANCE

TOKEN = "t"


@pytest.fixture
def client(httpserver: HTTPServer) -> paperlens.Client:
    return paperlens.Client(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01)


@pytest.fixture
def aclient(httpserver: HTTPServer) -> paperlens.AsyncClient:
    return paperlens.AsyncClient(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01)


@dataclass
class Sent:
    """A request as the server received it; ``path`` is raw (still percent-encoded)."""

    method: str
    path: str
    query: list[tuple[str, str]]
    body: Any
    headers: dict[str, str]


def sent(request: Request) -> Sent:
    raw = urlsplit(request.environ["RAW_URI"])
    body = json.loads(request.get_data()) if request.get_data() else None
    return Sent(request.method, raw.path, parse_qsl(raw.query, keep_blank_values=True), body, dict(request.headers))


def sent_requests(httpserver: HTTPServer) -> list[Sent]:
    return [sent(request) for request, _ in httpserver.log]


# -- realistic answers ----------------------------------------------------------------------

CARD = {
    "schema_id": "10.48550/arXiv.2006.11239",
    "title": "Denoising Diffusion Probabilistic Models",
    "abstract": "We present high quality image synthesis results using diffusion probabilistic models.",
    "authors": ["Jonathan Ho", "Ajay Jain", "Pieter Abbeel"],
    "venue": "NeurIPS",
    "year": 2020,
    "topics": ["generative models"],
    "tasks": ["image generation"],
    "research_problem": "high quality image synthesis with likelihood-based models",
    "central_contribution": "a weighted variational bound linking diffusion models and denoising score matching",
    "headline_result": "FID 3.17 on unconditional CIFAR10",
    "has_code": True,
    "has_data": False,
}
#: The keyword arguments of ``materials``, sent as they are.
MATERIALS = {
    "goal": "benchmark",
    "include_relation_context": True,
    "per_schema_entity_limit": 10,
    "per_schema_relation_limit": 5,
    "per_schema_attribute_limit": 20,
    "per_schema_term_limit": 0,
}
#: The keyword arguments of ``search_evidence``, sent as they are.
EVIDENCE_SEARCH = {
    "group_operator": "all",
    "schema_ids": ["s1"],
    "key": "fid",
    "value_number_min": 1,
    "value_number_max": 9.5,
    "hydrate_schema_papers": False,
    "size": 10,
}
CARD_2 = {**CARD, "schema_id": "s2", "title": "Improved DDPM", "year": 2021}
RELATION = {
    "relation_id": "r1",
    "relation_type": "evaluates",
    "source_entity_id": "e3",
    "target_entity_id": "e7",
    "source_entity": {"entity_id": "e3", "entity_type": "Component", "name": "U-Net backbone"},
    "target_entity": None,
    "provenance": PROVENANCE,
}
EVIDENCE = {
    "evidence_id": "ev1",
    "groups": ["table_evidence", "evidence_score"],
    "key": "fid",
    "value_text": "3.17",
    "value_number": 3.17,
    "value_bool": None,
    "source_entity_id": "e9",
    "source_relation_id": None,
    "provenance": PROVENANCE,
}
SEGMENT = {
    "paragraph_id": "p-0012",
    "section": "Experiments",
    "text": "Table 2 reports an FID of 3.17.",
    "marker": 12,
}


def _is(kind: type, **expected: Any) -> Callable[[Any], None]:
    def check(result: Any) -> None:
        assert isinstance(result, kind)
        for name, value in expected.items():
            assert getattr(result, name) == value, name

    return check


def _check_search(page: t.PaperSearchPage) -> None:
    assert isinstance(page.items[0], t.PaperCard)
    assert page.items[0].year == 2020 and page.items[0].has_code is True
    assert page.total == t.Total(value=1234, relation="gte")
    assert (page.contract_version, page.next_cursor, page.partial) == ("ps-2025-06", "c/1==", False)


def _check_entity_detail(detail: t.EntityDetail) -> None:
    assert detail.entity.provenance == [t.ProvenanceElement(marker=12, paragraph_id="p-0012")]
    assert isinstance(detail.relations[0].source_entity, t.Entity)
    assert detail.relations[0].target_entity is None
    assert detail.relations_truncated is True


def _check_citations(page: t.CitationsPage) -> None:
    assert page.total == 41
    resolved, unresolved = page.items
    assert resolved.resolution.status == "resolved" and resolved.target_schema.title == CARD_2["title"]
    assert unresolved.resolution.target_schema_id is None and unresolved.target_schema is None
    assert unresolved.reference.year == 2015


def _check_graph(graph: t.CitationGraph) -> None:
    assert graph.root_schema_id == "s1" and graph.truncated is True
    assert [n.schema_id for n in graph.nodes] == ["s1", "s2", "s3"]
    assert graph.edges[0] == t.GraphEdge(source_schema_id="s2", target_schema_id="s1", citation_count=3)
    assert graph.levels[0] == {"depth": 1, "frontier": 2, "new_edges": 2}
    assert graph.typed_levels[0].depth == 1 and graph.typed_levels[0].frontier == 2


def _check_hydrated(result: t.HydratedItems) -> None:
    assert len(result.items) == 2
    assert result.items[0].hydration_method == "marker"
    assert result.items[0].segments[0].text.startswith("Table 2")
    assert result.failed == [result.items[1]]
    assert result.items[1].reason == "no paragraph matched the query"


def _check_materials(result: t.Materials) -> None:
    paper = result.items[0]
    assert isinstance(paper.entities[0], t.Entity) and isinstance(paper.evidence[0], t.Evidence)
    assert paper.count("entities") == t.ResourceCount(total=80, returned=10, truncated=True)
    assert paper.truncated_resources == ["entities"]


@dataclass
class Case:
    """One operation: how it is called, what must go on the wire, what comes back."""

    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    http: str
    path: str
    answer: dict[str, Any]
    check: Callable[[Any], None]
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None


CASES = [
    Case(
        "capabilities",
        (),
        {},
        "GET",
        "/paper-schema",
        {
            "contract_version": "ps-2025-06",
            "resources": ["search", "entities", "relations", "citations", "evidence", "materials"],
            "entity_taxonomy": {"Component": ["Method", "Dataset"], "Problem": []},
            "relation_taxonomy": {"categories": ["uses_component", "evaluates", "reports_metric"]},
            "evidence_groups": ["evidence_score", "formula", "table_evidence"],
            "limits": {"size_max": 100, "graph": {"depth_max": 3, "max_nodes": 500}},
        },
        _is(
            t.Capabilities,
            contract_version="ps-2025-06",
            limits={"size_max": 100, "graph": {"depth_max": 3, "max_nodes": 500}},
        ),
    ),
    Case(
        "search",
        ("diffusion models",),
        {
            "filters": {"has_code": True, "published_year_gte": 2020, "dois": None},
            "sort": [{"field": "metrics.citation_count", "order": "desc"}],
            "size": 2,
            "cursor": "c/0==",
        },
        "POST",
        "/paper-schema/search",
        {
            "contract_version": "ps-2025-06",
            "total": {"value": "1234", "relation": "gte"},
            "items": [CARD],
            "next_cursor": "c/1==",
            "partial": False,
            "truncated": False,
            "warnings": [],
        },
        _check_search,
        body={
            "query": "diffusion models",
            "filters": {"has_code": True, "published_year_gte": 2020},
            "sort": [{"field": "metrics.citation_count", "order": "desc"}],
            "size": 2,
            "cursor": "c/0==",
        },
    ),
    Case(
        "entity_related_papers",
        ("U-Net denoiser",),
        {"entity_types": ["Component"], "entity_subtypes": ["Method"], "exclude_schema_ids": ["s9"], "size": 10},
        "POST",
        "/paper-schema/entities/related-papers",
        {
            "items": [
                {
                    "schema_id": "s2",
                    "schema_paper": CARD_2,
                    "matched_entities": [ENTITY],
                    "match_reasons": ["name similarity 0.91", "same subtype Method"],
                }
            ],
            "next_cursor": None,
        },
        lambda page: (
            _is(t.EntityRelatedPapersPage, next_cursor=None)(page),
            _is(t.Entity, name="U-Net backbone")(page.items[0].matched_entities[0]),
            _is(t.PaperCard, title="Improved DDPM")(page.items[0].schema_paper),
        ),
        body={
            "query": "U-Net denoiser",
            "entity_types": ["Component"],
            "entity_subtypes": ["Method"],
            "exclude_schema_ids": ["s9"],
            "size": 10,
        },
    ),
    Case(
        "related_papers",
        ("10.48550/arXiv.2006.11239",),
        {"signals": ["term", "citation"], "exclude_same_work": False, "size": 5},
        "POST",
        "/paper-schema/schemas/10.48550%2FarXiv.2006.11239/related-papers",
        {
            "seed": CARD,
            "items": [
                {
                    "schema_id": "s2",
                    "score_components": {"term": 0.4, "entity": 0.0, "citation": 0.35},
                    "reasons": ["cites the seed", "shares terms: diffusion, denoising"],
                }
            ],
        },
        lambda result: (
            _is(t.PaperCard, schema_id=CARD["schema_id"])(result.seed),
            _is(t.RelatedPaper, score_components={"term": 0.4, "entity": 0.0, "citation": 0.35})(result.items[0]),
        ),
        body={"signals": ["term", "citation"], "exclude_same_work": False, "size": 5},
    ),
    Case(
        "search_entities",
        ("CIFAR10",),
        {
            "filters": {"schema_ids": ["s1"], "entity_types": ["Resource"], "sections": ["Experiments"]},
            "hydrate_schema_papers": True,
            "size": 20,
        },
        "POST",
        "/paper-schema/entities/search",
        {"items": [{**ENTITY, "schema_paper": CARD}], "next_cursor": "n1"},
        lambda page: _is(t.PaperCard, year=2020)(page.items[0].schema_paper),
        body={
            "query": "CIFAR10",
            "filters": {"schema_ids": ["s1"], "entity_types": ["Resource"], "sections": ["Experiments"]},
            "hydrate_schema_papers": True,
            "size": 20,
        },
    ),
    Case(
        "entities",
        ("s1",),
        {"entity_types": ["Problem", "Component"], "sections": ["Method"], "size": 50, "cursor": "e+50"},
        "GET",
        "/paper-schema/schemas/s1/entities",
        {"schema_id": "s1", "total": {"value": 2, "relation": "eq"}, "items": [ENTITY, ENTITY], "next_cursor": ""},
        lambda page: (_is(t.EntityPage, schema_id="s1", next_cursor="")(page), _is(t.Entity)(page.items[1])),
        query=[
            ("entity_types", "Problem"),
            ("entity_types", "Component"),
            ("sections", "Method"),
            ("size", "50"),
            ("cursor", "e+50"),
        ],
    ),
    Case(
        "entity",
        ("s1", "e/3"),
        {"include_relations": True, "relation_limit": 10},
        "GET",
        "/paper-schema/schemas/s1/entities/e%2F3",
        {"entity": ENTITY, "relations": [RELATION], "relations_truncated": True},
        _check_entity_detail,
        query=[("include_relations", "true"), ("relation_limit", "10")],
    ),
    Case(
        "search_relations",
        (),
        {
            "filters": {"schema_ids": ["s1"], "relation_types": ["evaluates"]},
            "evidence_query": "FID",
            "include_context": "entities",
            "size": 10,
        },
        "POST",
        "/paper-schema/relations/search",
        {"items": [RELATION]},
        lambda page: (
            _is(t.RelationSearchPage, next_cursor=None)(page),
            _is(t.Relation, relation_type="evaluates")(page.items[0]),
        ),
        body={
            "filters": {"schema_ids": ["s1"], "relation_types": ["evaluates"]},
            "evidence_query": "FID",
            "include_context": "entities",
            "size": 10,
        },
    ),
    Case(
        "relation",
        ("s1", "r1"),
        {"include_context": False},
        "GET",
        "/paper-schema/schemas/s1/relations/r1",
        {"relation": RELATION, "source_entity": ENTITY, "target_entity": None, "provenance": PROVENANCE * 2},
        lambda detail: (
            _is(t.Relation, relation_id="r1")(detail.relation),
            _is(t.Entity, entity_id="e3")(detail.source_entity),
            _is(t.ProvenanceElement, marker=12)(detail.provenance[1]),
        ),
        query=[("include_context", "false")],
    ),
    Case(
        "citation_summary",
        ("s1",),
        {},
        "GET",
        "/paper-schema/schemas/s1/citation-summary",
        {
            "schema_id": "s1",
            "outbound": {
                "reference_count_total": 41,
                "resolved_reference_count": 30,
                "unresolved_reference_count": 11,
                "resolution_coverage": 0.7317,
                "resolved_target_schema_count": 29,
            },
            "inbound": {"external_citation_count": None, "resolved_corpus_edge_count": 112},
        },
        lambda s: (
            _is(t.OutboundCitations, reference_count_total=41, resolution_coverage=0.7317)(s.outbound),
            _is(t.InboundCitations, external_citation_count=None, resolved_corpus_edge_count=112)(s.inbound),
        ),
    ),
    Case(
        "citations",
        ("s1",),
        {"size": 2, "cursor": "k"},
        "GET",
        "/paper-schema/schemas/s1/citations",
        {
            "total": 41,
            "items": [
                {
                    "relation": {"relation_id": "c1", "relation_type": "cites"},
                    "reference": {
                        "entity_id": "ref1",
                        "title": "Improved DDPM",
                        "authors": ["A. Nichol"],
                        "year": 2021,
                    },
                    "resolution": {"status": "resolved", "target_schema_id": "s2"},
                    "target_schema": CARD_2,
                },
                {
                    "relation": {"relation_id": "c2", "relation_type": "cites"},
                    "reference": {"entity_id": "ref2", "title": "Deep unsupervised learning", "year": 2015},
                    "resolution": {"status": "unresolved", "target_schema_id": None},
                    "target_schema": None,
                },
            ],
            "next_cursor": "k2",
        },
        _check_citations,
        query=[("size", "2"), ("cursor", "k")],
    ),
    Case(
        "citation_graph",
        ("s1",),
        {"direction": "inbound", "depth": 2, "max_nodes": 50, "max_edges": 100},
        "GET",
        "/paper-schema/schemas/s1/citation-graph",
        {
            "root_schema_id": "s1",
            "direction": "inbound",
            "nodes": [
                {**CARD, "schema_id": "s1", "availability": "available"},
                {**CARD_2, "availability": "available"},
                {"schema_id": "s3", "title": "Score SDE", "availability": "target_unavailable"},
            ],
            "edges": [
                {"source_schema_id": "s2", "target_schema_id": "s1", "citation_count": 3},
                {"source_schema_id": "s3", "target_schema_id": "s1", "citation_count": 1},
                {"source_schema_id": "s3", "target_schema_id": "s2", "citation_count": 2},
            ],
            "levels": [{"depth": 1, "frontier": 2, "new_edges": 2}, {"depth": 2, "frontier": 1, "new_edges": 1}],
            "truncated": True,
        },
        _check_graph,
        query=[("direction", "inbound"), ("depth", "2"), ("max_nodes", "50"), ("max_edges", "100")],
    ),
    Case(
        "search_evidence",
        (["table_evidence", "evidence_score"],),
        EVIDENCE_SEARCH,
        "POST",
        "/paper-schema/evidence/search",
        {"items": [EVIDENCE], "next_cursor": None},
        lambda page: _is(t.Evidence, value_number=3.17, source_relation_id=None)(page.items[0]),
        body={"groups": ["table_evidence", "evidence_score"], **EVIDENCE_SEARCH},
    ),
    Case(
        "evidence",
        ("s1", "ev 1"),
        {},
        "GET",
        "/paper-schema/schemas/s1/evidence/ev%201",
        {
            "evidence": {"group": "table_evidence", "key": "fid", "value_text": "3.17", "value_number": 3.17},
            "source": {"entity_id": "e9"},
            "provenance": PROVENANCE,
        },
        lambda d: (
            _is(t.Evidence, group="table_evidence")(d.evidence),
            _is(t.EvidenceDetail, source={"entity_id": "e9"})(d),
        ),
    ),
    Case(
        "resolve_provenance",
        (),
        {"schema_id": "s1", "marker_nums": [12, 40], "window": 1, "max_segments": 10},
        "POST",
        "/paper-schema/resolve-provenance",
        {"segments": [SEGMENT], "trace": {"mode": "marker"}, "missing": [40]},
        lambda r: (_is(t.ParagraphSegment, marker=12)(r.segments[0]), _is(t.ResolvedProvenance, missing=[40])(r)),
        body={"schema_id": "s1", "marker_nums": [12, 40], "window": 1, "max_segments": 10},
    ),
    Case(
        "search_in_paper",
        ("s1", "code github"),
        {"section_hint": "Experiments", "prefer_code": True, "top_k": 3, "window": 1},
        "POST",
        "/paper-schema/search-in-schema",
        {"segments": [{**SEGMENT, "score": 7.5}], "trace": {"method": "bm25", "elapsed_ms": 4.2}},
        lambda r: (
            _is(t.ParagraphSegment, score=7.5)(r.segments[0]),
            _is(t.SegmentTrace, method="bm25")(r.typed_trace),
        ),
        body={
            "schema_id": "s1",
            "query": "code github",
            "section_hint": "Experiments",
            "prefer_code": True,
            "top_k": 3,
            "window": 1,
        },
    ),
    Case(
        "hydrate_items",
        ([{"schema_id": "s1", "marker_nums": [12]}, {"schema_id": "s2", "hydration_query": "dataset link"}],),
        {"window": 0, "max_segments_per_item": 2, "prefer_url_or_code": True},
        "POST",
        "/paper-schema/hydrate-items",
        {
            "items": [
                {"schema_id": "s1", "hydration_method": "marker", "segments": [SEGMENT], "reason": None},
                {
                    "schema_id": "s2",
                    "hydration_method": "none",
                    "segments": [],
                    "reason": "no paragraph matched the query",
                },
            ]
        },
        _check_hydrated,
        body={
            "items": [{"schema_id": "s1", "marker_nums": [12]}, {"schema_id": "s2", "hydration_query": "dataset link"}],
            "window": 0,
            "max_segments_per_item": 2,
            "prefer_url_or_code": True,
        },
    ),
    Case(
        "materials",
        (["s1", "s2"],),
        MATERIALS,
        "POST",
        "/paper-schema/materials",
        {
            "items": [
                {
                    "schema_paper": CARD,
                    "entities": [ENTITY],
                    "relations": [RELATION],
                    "evidence": [EVIDENCE],
                    "terms": [],
                    "counts": {
                        "entities": {"total": 80, "returned": 10, "truncated": True},
                        "relations": {"total": 1, "returned": 1, "truncated": False},
                    },
                }
            ],
            "truncated": True,
        },
        _check_materials,
        body={"schema_ids": ["s1", "s2"], **MATERIALS},
    ),
]


def test_every_operation_of_api_md_is_covered() -> None:
    public = {name for name in dir(Schema) if not name.startswith("_") and not name.startswith("iter_")}
    assert public == {case.method for case in CASES}
    assert len(CASES) == 18


def _expect(httpserver: HTTPServer, case: Case) -> None:
    httpserver.expect_oneshot_request(unquote(case.path), method=case.http).respond_with_json(
        case.answer, headers={"X-Request-ID": "srv-1"}
    )


def _assert_sent(httpserver: HTTPServer, case: Case) -> None:
    (request,) = sent_requests(httpserver)
    assert (request.method, request.path) == (case.http, case.path)
    assert request.query == case.query
    assert request.body == case.body
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.method)
def test_operation_sync(client: paperlens.Client, httpserver: HTTPServer, case: Case) -> None:
    _expect(httpserver, case)
    result = getattr(client.schema, case.method)(*case.args, **case.kwargs)
    _assert_sent(httpserver, case)
    case.check(result)
    assert result.request_id == "srv-1"
    assert result.to_dict() == _ints(case.answer)


def _ints(wire: Any) -> Any:
    """The wire JSON as to_dict() gives it back: int64 counts sent as strings become ints."""
    if isinstance(wire, dict):
        return {k: int(v) if k == "value" and isinstance(v, str) else _ints(v) for k, v in wire.items()}
    return [_ints(v) for v in wire] if isinstance(wire, list) else wire


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.method)
async def test_operation_async(aclient: paperlens.AsyncClient, httpserver: HTTPServer, case: Case) -> None:
    _expect(httpserver, case)
    result = await getattr(aclient.schema, case.method)(*case.args, **case.kwargs)
    _assert_sent(httpserver, case)
    case.check(result)
    assert result.request_id == "srv-1"


# -- narrowing rules, client side -----------------------------------------------------------


from schema_rules import ITEM, RULES  # noqa: E402


@pytest.mark.parametrize(("method", "args", "kwargs", "param"), RULES)
def test_rule_rejected_before_sending(
    client: paperlens.Client, httpserver: HTTPServer, method: str, args: tuple, kwargs: dict, param: str
) -> None:
    with pytest.raises(paperlens.ValidationError) as caught:
        getattr(client.schema, method)(*args, **kwargs)
    assert caught.value.param == param
    assert str(caught.value).startswith(f"{param}: ")
    assert httpserver.log == []


@pytest.mark.parametrize(("method", "args", "kwargs", "param"), RULES[::7])
async def test_rule_rejected_before_sending_async(
    aclient: paperlens.AsyncClient, httpserver: HTTPServer, method: str, args: tuple, kwargs: dict, param: str
) -> None:
    with pytest.raises(paperlens.ValidationError) as caught:
        await getattr(aclient.schema, method)(*args, **kwargs)
    assert caught.value.param == param
    assert httpserver.log == []


def test_ids_with_a_slash_stay_one_path_segment(client: paperlens.Client, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/paper-schema/schemas/a/../b/citations").respond_with_json({"items": []})
    client.schema.citations("a/../b")
    assert sent_requests(httpserver)[0].path == "/paper-schema/schemas/a%2F..%2Fb/citations"


def test_unvalidated_requests_are_sent_as_given(httpserver: HTTPServer) -> None:
    loose = paperlens.Client(
        api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01, validate=False
    )
    invalid = {"code": "INVALID_REQUEST", "message": "query or filters is required", "request_id": "srv-2"}
    httpserver.expect_request("/paper-schema/search", method="POST").respond_with_json(invalid, status=422)
    httpserver.expect_request("/paper-schema/schemas/s1/citation-graph").respond_with_json(invalid, status=400)
    with pytest.raises(paperlens.BadRequestError) as caught:
        loose.schema.search(size=500)
    assert (caught.value.status, caught.value.code) == (422, "INVALID_REQUEST")
    with pytest.raises(paperlens.BadRequestError):
        loose.schema.citation_graph("s1", depth=9, max_nodes=1)
    search, graph = sent_requests(httpserver)
    assert search.body == {"size": 500}
    assert graph.query == [("depth", "9"), ("max_nodes", "1")]
    assert len(httpserver.log) == 2  # 400 and 422 are never retried


def test_entity_of_another_paper_is_not_found(client: paperlens.Client, httpserver: HTTPServer) -> None:
    error = {"code": "NOT_FOUND", "message": "entity e1 does not belong to s2", "request_id": "srv-3"}
    httpserver.expect_request("/paper-schema/schemas/s2/entities/e1").respond_with_json(error, status=404)
    with pytest.raises(paperlens.NotFoundError) as caught:
        client.schema.entity("s2", "e1")
    assert caught.value.code == "NOT_FOUND" and caught.value.request_id == "srv-3"


# -- cursor iteration -----------------------------------------------------------------------

_PAGE_SIZE = 2
_TOTAL_ITEMS = 5
# Opaque tokens with characters a careless client would mangle; the last page says "" or null.
_CURSORS = [None, "c/1+==", "c 2&x=y"]


def _paged_handler(received: list[str | None], last_cursor: str | None) -> Callable[[Request], Response]:
    def handler(request: Request) -> Response:
        cursor = request.args.get("cursor") if request.method == "GET" else (request.get_json() or {}).get("cursor")
        received.append(cursor)
        index = _CURSORS.index(cursor)
        items = [{"n": n} for n in range(index * _PAGE_SIZE, min((index + 1) * _PAGE_SIZE, _TOTAL_ITEMS))]
        following = _CURSORS[index + 1] if index + 1 < len(_CURSORS) else last_cursor
        body = {"items": items, "next_cursor": following, "total": {"value": _TOTAL_ITEMS, "relation": "eq"}}
        return Response(json.dumps(body), content_type="application/json")

    return handler


PAGED = [
    ("iter_search", ("q",), "/paper-schema/search"),
    ("iter_entity_related_papers", ("q",), "/paper-schema/entities/related-papers"),
    ("iter_search_entities", ("q",), "/paper-schema/entities/search"),
    ("iter_entities", ("s1",), "/paper-schema/schemas/s1/entities"),
    ("iter_search_relations", (), "/paper-schema/relations/search"),
    ("iter_citations", ("s1",), "/paper-schema/schemas/s1/citations"),
    ("iter_search_evidence", (["formula"],), "/paper-schema/evidence/search"),
]
_ITER_KWARGS = {"iter_search_relations": {"filters": {"schema_ids": ["s1"]}}, "iter_search_evidence": {"key": "k"}}


@pytest.mark.parametrize("last_cursor", ["", None])
@pytest.mark.parametrize(("method", "args", "path"), PAGED, ids=[p[0] for p in PAGED])
def test_iteration_to_exhaustion(
    client: paperlens.Client, httpserver: HTTPServer, method: str, args: tuple, path: str, last_cursor: str | None
) -> None:
    received: list[str | None] = []
    httpserver.expect_request(path).respond_with_handler(_paged_handler(received, last_cursor))
    items = list(getattr(client.schema, method)(*args, size=_PAGE_SIZE, **_ITER_KWARGS.get(method, {})))
    numbers = [item.to_dict()["n"] for item in items]
    assert numbers == list(range(_TOTAL_ITEMS))
    assert received == _CURSORS


@pytest.mark.parametrize(("method", "args", "path"), PAGED, ids=[p[0] for p in PAGED])
async def test_iteration_to_exhaustion_async(
    aclient: paperlens.AsyncClient, httpserver: HTTPServer, method: str, args: tuple, path: str
) -> None:
    received: list[str | None] = []
    httpserver.expect_request(path).respond_with_handler(_paged_handler(received, None))
    paginator = getattr(aclient.schema, method)(*args, size=_PAGE_SIZE, **_ITER_KWARGS.get(method, {}))
    numbers = [item.to_dict()["n"] async for item in paginator]
    assert numbers == list(range(_TOTAL_ITEMS))
    assert received == _CURSORS


def test_limit_pages_and_resume(client: paperlens.Client, httpserver: HTTPServer) -> None:
    received: list[str | None] = []
    httpserver.expect_request("/paper-schema/schemas/s1/citations").respond_with_handler(_paged_handler(received, None))
    first = client.schema.iter_citations("s1", size=_PAGE_SIZE, limit=4)
    assert [c.to_dict()["n"] for c in first] == [0, 1, 2, 3]
    assert first.next_cursor == _CURSORS[2]
    rest = client.schema.iter_citations("s1", size=_PAGE_SIZE, cursor=first.next_cursor)
    pages = list(rest.pages())
    assert [[c.to_dict()["n"] for c in page.items] for page in pages] == [[4]]
    assert all(isinstance(page, t.CitationsPage) for page in pages)
    assert rest.next_cursor is None


# -- partial results, timeouts, capability cache ----------------------------------------------


def test_partial_result_warns_and_keeps_flags(client: paperlens.Client, httpserver: HTTPServer) -> None:
    answer = {
        "items": [EVIDENCE],
        "next_cursor": None,
        "partial": True,
        "truncated": True,
        "warnings": ["provenance index degraded: some locations missing"],
    }
    httpserver.expect_request("/paper-schema/evidence/search").respond_with_json(answer)
    with pytest.warns(paperlens.PartialResultWarning, match="provenance index degraded") as record:
        page = client.schema.search_evidence(["formula"], key="k")
    assert record[0].filename == __file__  # the caller's line, so each call site warns under the default filter
    assert (page.partial, page.truncated) == (True, True)
    assert page.warnings == ["provenance index degraded: some locations missing"]


async def test_partial_result_warns_async(aclient: paperlens.AsyncClient, httpserver: HTTPServer) -> None:
    answer = {"items": [{"hydration_method": "none", "segments": [], "reason": "timeout"}], "partial": True}
    httpserver.expect_request("/paper-schema/hydrate-items").respond_with_json(answer)
    with pytest.warns(paperlens.PartialResultWarning, match="no warnings given") as record:
        result = await aclient.schema.hydrate_items([ITEM])
    assert record[0].filename == __file__
    assert result.partial is True and result.warnings == []
    assert result.failed[0].reason == "timeout"


def test_complete_result_does_not_warn(client: paperlens.Client, httpserver: HTTPServer, recwarn: Any) -> None:
    httpserver.expect_request("/paper-schema/schemas/s1/citation-summary").respond_with_json({"partial": False})
    assert client.schema.citation_summary("s1").partial is False
    assert not [w for w in recwarn if issubclass(w.category, paperlens.PartialResultWarning)]


_TIMEOUT = {"code": "PAPER_SCHEMA_TIMEOUT", "message": "structure query timed out", "request_id": "srv-504"}


def test_timeout_is_retried_then_raised_with_a_hint(client: paperlens.Client, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/paper-schema/schemas/s1/citation-graph").respond_with_json(_TIMEOUT, status=504)
    with pytest.raises(paperlens.GatewayTimeoutError) as caught:
        client.schema.citation_graph("s1", depth=3)
    error = caught.value
    assert (error.status, error.code) == (504, "PAPER_SCHEMA_TIMEOUT")
    assert "narrow the graph depth, the batch or the result limits" in str(error)
    attempts = sent_requests(httpserver)
    assert len(attempts) == 4  # max_retries=3
    assert len({a.headers["X-Request-Id"] for a in attempts}) == 1


async def test_timeout_then_success_async(aclient: paperlens.AsyncClient, httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/paper-schema/materials").respond_with_json(_TIMEOUT, status=504)
    httpserver.expect_ordered_request("/paper-schema/materials").respond_with_json({"items": []})
    result = await aclient.schema.materials(["s1"])
    assert result.items == [] and len(httpserver.log) == 2


def test_capabilities_are_fetched_once(client: paperlens.Client, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/paper-schema").respond_with_json(CASES[0].answer)
    first, second = client.schema.capabilities(), client.schema.capabilities()
    assert first is second
    assert len(httpserver.log) == 1


async def test_capabilities_are_fetched_once_async(aclient: paperlens.AsyncClient, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/paper-schema").respond_with_json(CASES[0].answer)
    first, second = await asyncio.gather(aclient.schema.capabilities(), aclient.schema.capabilities())
    assert first is second and (await aclient.schema.capabilities()) is first
    assert len(httpserver.log) == 1


def test_schema_namespace_belongs_to_its_client(client: paperlens.Client) -> None:
    assert client.schema is client.schema
    assert isinstance(client.schema, paperlens.schema.Schema)
    assert client.with_options(timeout=5).schema is not client.schema


# -- the citation graph in networkx ---------------------------------------------------------


def _graph(client: paperlens.Client, httpserver: HTTPServer) -> t.CitationGraph:
    graph_case = next(case for case in CASES if case.method == "citation_graph")
    httpserver.expect_request("/paper-schema/schemas/s1/citation-graph").respond_with_json(graph_case.answer)
    return client.schema.citation_graph("s1", direction="inbound")


def test_citation_graph_to_networkx(client: paperlens.Client, httpserver: HTTPServer) -> None:
    import networkx as nx

    graph = _graph(client, httpserver).to_networkx()
    assert isinstance(graph, nx.DiGraph)
    assert sorted(graph.nodes) == ["s1", "s2", "s3"]
    assert sorted(graph.edges) == [("s2", "s1"), ("s3", "s1"), ("s3", "s2")]
    assert graph.edges["s3", "s2"]["citation_count"] == 2
    assert graph.nodes["s3"]["availability"] == "target_unavailable"
    assert graph.nodes["s1"]["title"] == CARD["title"]
    assert graph.graph == {"root_schema_id": "s1", "direction": "inbound", "truncated": True}
    assert set(nx.ancestors(graph, "s1")) == {"s2", "s3"}


def test_to_networkx_without_networkx_names_the_extra(
    client: paperlens.Client, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = _graph(client, httpserver)
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(ImportError, match=r'pip install "paperlens\[graph\]"'):
        graph.to_networkx()
