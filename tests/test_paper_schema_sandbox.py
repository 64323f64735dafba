"""``client.schema`` end to end: the real client against the real sandbox, all 18 operations.

Each operation sync and async (request as received, typed result); every narrowing rule
refused by the client and, with ``validate=False``, by the sandbox; cursor iteration to
exhaustion; the citation graph against a breadth-first search computed here from the
citation lists; provenance round trips; partial results; 404s; the shared quota.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import paperlens
from paperlens import types as t
from paperlens.base._contract import EVIDENCE_GROUPS
from paperlens.sandbox import RecordedRequest, Sandbox

from fixtures import sandbox_client

PAPERS = 300
SEED = 5


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    with Sandbox(papers=PAPERS, seed=SEED) as sandbox:
        yield sandbox


def _client(sb: Sandbox, **options: Any) -> paperlens.Client:
    return sandbox_client(sb, retry_backoff=0.01, **options)


@pytest.fixture
def client(sb: Sandbox) -> Iterator[paperlens.Client]:
    with _client(sb) as c:
        yield c


@pytest.fixture
async def aclient(sb: Sandbox) -> AsyncIterator[paperlens.AsyncClient]:
    async with paperlens.AsyncClient(
        api_token=sb.token, base_url=sb.base_url, rate_limits=None, retry_backoff=0.01
    ) as c:
        yield c


@dataclass(frozen=True)
class Data:
    """Real ids of the sandbox's corpus, found through the client."""

    sid: str
    """The structured paper with the most resolved references."""
    other: str
    """A paper with fewer entities than ``sid``."""
    all_sids: tuple[str, ...]
    entity_id: str
    relation_id: str
    evidence_id: str
    marker: int
    paragraph_id: str
    foreign_entity: str
    """An entity id of ``sid`` that ``other`` does not hold."""


@pytest.fixture(scope="module")
def data(sb: Sandbox) -> Data:
    with _client(sb) as c:
        papers = list(c.schema.iter_search(filters={"published_year_gte": 1800}, size=100))
        # English papers, so that section names and query words are the English ones.
        english = [p.schema_id for p in papers if p.title.isascii()]
        resolved = {s: c.schema.citation_summary(s).outbound.resolved_reference_count for s in english}
        sid = max(resolved, key=lambda s: (resolved[s], s))
        entities = c.schema.entities(sid, size=100)
        count = entities.total.value
        other = next(s for s in english if s != sid and c.schema.entities(s).total.value < count)
        relation = c.schema.search_relations(filters={"schema_ids": [sid]}).items[0]
        evidence = c.schema.search_evidence(["core_claim_result"], schema_ids=[sid]).items[0]
    location = evidence.provenance[0]
    return Data(
        sid=sid,
        other=other,
        all_sids=tuple(sorted(p.schema_id for p in papers)),
        entity_id=next(e.entity_id for e in entities.items if e.entity_subtype == "Method"),
        relation_id=relation.relation_id,
        evidence_id=evidence.evidence_id,
        marker=location.marker,
        paragraph_id=location.paragraph_id,
        foreign_entity=f"e{count}",
    )


def test_the_corpus_has_what_the_tests_need(data: Data) -> None:
    assert len(data.all_sids) > 100
    assert data.sid != data.other
    assert data.paragraph_id.startswith(data.sid)


# -- every operation, sync and async ---------------------------------------------------------


@dataclass
class Case:
    method: str
    call: Callable[[Data], tuple[tuple[Any, ...], dict[str, Any]]]
    http: str
    path: Callable[[Data], str]
    wire: Callable[[Data], Any]
    """The JSON body (POST) or the query pairs (GET) the sandbox must receive."""
    check: Callable[[Any, Data], None]


def _schema(d: Data, rest: str) -> str:
    return f"/paper-schema/schemas/{d.sid}/{rest}"


def _check_capabilities(r: t.Capabilities, d: Data) -> None:
    assert isinstance(r, t.Capabilities) and r.contract_version
    assert len(r.evidence_groups or []) == 10
    assert set((r.entity_taxonomy or {})["types"]) == {
        "Problem",
        "Component",
        "Finding",
        "Measure",
        "Resource",
        "Reference",
    }
    assert "evaluates" in (r.relation_taxonomy or {})["types"]
    assert r.limits and r.limits["citation_graph"]["depth"]["max"] == 3


def _check_search(r: t.PaperSearchPage, d: Data) -> None:
    assert isinstance(r, t.PaperSearchPage) and r.contract_version and r.total and r.total.relation == "eq"
    assert 0 < len(r.items) <= 5 and r.total.value >= len(r.items)
    assert all(isinstance(p, t.PaperCard) and p.has_code is True and p.research_problem for p in r.items)


def _check_entity_related(r: t.EntityRelatedPapersPage, d: Data) -> None:
    assert r.items and all(isinstance(i, t.EntityRelatedPaper) for i in r.items)
    for item in r.items:
        assert item.schema_id not in (d.sid,) and item.schema_paper and item.schema_paper.schema_id == item.schema_id
        assert item.matched_entities and item.match_reasons
        assert all(e.entity_type == "Component" for e in item.matched_entities)


def _check_related(r: t.RelatedPapers, d: Data) -> None:
    assert r.seed and r.seed.schema_id == d.sid and 0 < len(r.items) <= 5
    scores = [i.score for i in r.items]
    assert scores == sorted(scores, reverse=True)
    for item in r.items:
        assert set(item.score_components or {}) == {"term", "citation"}
        assert item.score == pytest.approx(sum((item.score_components or {}).values()), abs=1e-3)
        assert item.reasons and item.schema_id != d.sid


def _check_entity_search(r: t.EntitySearchPage, d: Data) -> None:
    assert r.items and all(
        e.schema_id == d.sid and e.schema_paper and e.schema_paper.schema_id == d.sid for e in r.items
    )
    assert all(e.provenance and e.provenance[0].paragraph_id for e in r.items)


def _check_entities(r: t.EntityPage, d: Data) -> None:
    assert r.schema_id == d.sid and r.total and r.total.value == len(r.items) > 0
    assert {e.entity_type for e in r.items} == {"Component", "Resource"}


def _check_entity(r: t.EntityDetail, d: Data) -> None:
    assert r.entity and r.entity.entity_id == d.entity_id and r.entity.section
    assert r.entity.entity_subtype == "Method" and len(r.relations) == 1 and r.relations_truncated is True
    assert d.entity_id in (r.relations[0].source_entity_id, r.relations[0].target_entity_id)


def _check_relation_search(r: t.RelationSearchPage, d: Data) -> None:
    assert len(r.items) == 5 and r.next_cursor is None
    for rel in r.items:
        assert rel.schema_id == d.sid and rel.source_entity and rel.target_entity
        assert rel.source_entity.entity_id == rel.source_entity_id


def _check_relation(r: t.RelationDetail, d: Data) -> None:
    assert r.relation and r.relation.relation_id == d.relation_id
    assert r.source_entity is None and r.target_entity is None and r.provenance
    keys = [(p.marker, p.paragraph_id) for p in r.provenance]
    assert len(keys) == len(set(keys))


def _check_summary(r: t.CitationSummary, d: Data) -> None:
    out = r.outbound
    assert out and out.reference_count_total == out.resolved_reference_count + out.unresolved_reference_count
    assert out.resolved_reference_count and 0 < (out.resolution_coverage or 0) <= 1
    assert r.inbound and r.inbound.resolved_corpus_edge_count is not None


def _check_citations(r: t.CitationsPage, d: Data) -> None:
    assert len(r.items) == 3 and r.total and r.total > 3 and r.next_cursor
    for item in r.items:
        assert item.relation["relation_type"] == "cites" and item.typed_relation.relation_type == "cites"
        assert item.reference and item.reference.title
        assert item.resolution and item.resolution.status in ("resolved", "unresolved", "target_unavailable")


def _check_graph(r: t.CitationGraph, d: Data) -> None:
    assert r.root_schema_id == d.sid and r.direction == "outbound" and r.nodes and r.edges
    assert all(isinstance(n, t.GraphNode) and n.availability and n.title for n in r.nodes)
    assert [level.depth for level in r.typed_levels] == [1, 2][: len(r.levels)]
    assert sum(level.new_edges for level in r.typed_levels) == len(r.edges)


def _check_evidence_search(r: t.EvidenceSearchPage, d: Data) -> None:
    assert r.items and all("core_claim_result" in (e.groups or []) and e.schema_id == d.sid for e in r.items)


def _check_evidence(r: t.EvidenceDetail, d: Data) -> None:
    assert r.evidence and r.evidence.evidence_id == d.evidence_id and r.evidence.group == "core_claim_result"
    assert r.source and r.source["kind"] == "entity" and r.provenance[0].marker == d.marker


def _check_provenance(r: t.ResolvedProvenance, d: Data) -> None:
    assert r.trace and r.trace.mode == "marker" and r.missing == []
    assert len(r.segments) == 3 and d.paragraph_id in [s.paragraph_id for s in r.segments]


def _check_in_paper(r: t.InPaperSearchResult, d: Data) -> None:
    assert r.trace["method"] == "bm25" and r.typed_trace and r.typed_trace.elapsed_ms is not None
    hits = r.hits
    assert 0 < len(hits) <= 3 and all((s.score or 0) > 0 for s in hits)


def _check_hydrated(r: t.HydratedItems, d: Data) -> None:
    assert [i.hydration_method for i in r.items] == ["marker"] and r.items[0].segments and r.failed == []


def _check_materials(r: t.Materials, d: Data) -> None:
    item = r.items[0]
    assert item.schema_paper and item.schema_paper.schema_id == d.sid
    assert set(item.counts or {}) == {"entities", "relations", "evidence", "terms"}
    entities = item.count("entities")
    assert entities and entities.returned == len(item.entities) == min(40, entities.total or 0)
    assert entities.truncated is ((entities.total or 0) > 40)
    assert item.entities[0].entity_type == "Resource" and item.relations[0].relation_type == "evaluates"


CASES = [
    Case("capabilities", lambda d: ((), {}), "GET", lambda d: "/paper-schema", lambda d: [], _check_capabilities),
    Case(
        "search",
        lambda d: (("quantum error correction",), {"filters": {"has_code": True}, "size": 5}),
        "POST",
        lambda d: "/paper-schema/search",
        lambda d: {"query": "quantum error correction", "filters": {"has_code": True}, "size": 5},
        _check_search,
    ),
    Case(
        "entity_related_papers",
        lambda d: (
            ("variational quantum eigensolver",),
            {"entity_types": ["Component"], "exclude_schema_ids": [d.sid]},
        ),
        "POST",
        lambda d: "/paper-schema/entities/related-papers",
        lambda d: {
            "query": "variational quantum eigensolver",
            "entity_types": ["Component"],
            "exclude_schema_ids": [d.sid],
        },
        _check_entity_related,
    ),
    Case(
        "related_papers",
        lambda d: ((d.sid,), {"signals": ["term", "citation"], "size": 5}),
        "POST",
        lambda d: _schema(d, "related-papers"),
        lambda d: {"signals": ["term", "citation"], "size": 5},
        _check_related,
    ),
    Case(
        "search_entities",
        lambda d: ((), {"filters": {"schema_ids": [d.sid]}, "hydrate_schema_papers": True}),
        "POST",
        lambda d: "/paper-schema/entities/search",
        lambda d: {"filters": {"schema_ids": [d.sid]}, "hydrate_schema_papers": True},
        _check_entity_search,
    ),
    Case(
        "entities",
        lambda d: ((d.sid,), {"entity_types": ["Component", "Resource"]}),
        "GET",
        lambda d: _schema(d, "entities"),
        lambda d: [("entity_types", "Component"), ("entity_types", "Resource")],
        _check_entities,
    ),
    Case(
        "entity",
        lambda d: ((d.sid, d.entity_id), {"include_relations": True, "relation_limit": 1}),
        "GET",
        lambda d: _schema(d, f"entities/{d.entity_id}"),
        lambda d: [("include_relations", "true"), ("relation_limit", "1")],
        _check_entity,
    ),
    Case(
        "search_relations",
        lambda d: ((), {"filters": {"schema_ids": [d.sid]}, "include_context": "entities"}),
        "POST",
        lambda d: "/paper-schema/relations/search",
        lambda d: {"filters": {"schema_ids": [d.sid]}, "include_context": "entities"},
        _check_relation_search,
    ),
    Case(
        "relation",
        lambda d: ((d.sid, d.relation_id), {"include_context": False}),
        "GET",
        lambda d: _schema(d, f"relations/{d.relation_id}"),
        lambda d: [("include_context", "false")],
        _check_relation,
    ),
    Case(
        "citation_summary",
        lambda d: ((d.sid,), {}),
        "GET",
        lambda d: _schema(d, "citation-summary"),
        lambda d: [],
        _check_summary,
    ),
    Case(
        "citations",
        lambda d: ((d.sid,), {"size": 3}),
        "GET",
        lambda d: _schema(d, "citations"),
        lambda d: [("size", "3")],
        _check_citations,
    ),
    Case(
        "citation_graph",
        lambda d: ((d.sid,), {"direction": "outbound", "depth": 2}),
        "GET",
        lambda d: _schema(d, "citation-graph"),
        lambda d: [("direction", "outbound"), ("depth", "2")],
        _check_graph,
    ),
    Case(
        "search_evidence",
        lambda d: ((["core_claim_result"],), {"schema_ids": [d.sid]}),
        "POST",
        lambda d: "/paper-schema/evidence/search",
        lambda d: {"groups": ["core_claim_result"], "schema_ids": [d.sid]},
        _check_evidence_search,
    ),
    Case(
        "evidence",
        lambda d: ((d.sid, d.evidence_id), {}),
        "GET",
        lambda d: _schema(d, f"evidence/{d.evidence_id}"),
        lambda d: [],
        _check_evidence,
    ),
    Case(
        "resolve_provenance",
        lambda d: ((), {"schema_id": d.sid, "marker_nums": [d.marker], "window": 1}),
        "POST",
        lambda d: "/paper-schema/resolve-provenance",
        lambda d: {"schema_id": d.sid, "marker_nums": [d.marker], "window": 1},
        _check_provenance,
    ),
    Case(
        "search_in_paper",
        lambda d: ((d.sid, "baseline experiments"), {"section_hint": "Experiments", "top_k": 3}),
        "POST",
        lambda d: "/paper-schema/search-in-schema",
        lambda d: {"schema_id": d.sid, "query": "baseline experiments", "section_hint": "Experiments", "top_k": 3},
        _check_in_paper,
    ),
    Case(
        "hydrate_items",
        lambda d: (([{"schema_id": d.sid, "marker_nums": [d.marker]}],), {"window": 0}),
        "POST",
        lambda d: "/paper-schema/hydrate-items",
        lambda d: {"items": [{"schema_id": d.sid, "marker_nums": [d.marker]}], "window": 0},
        _check_hydrated,
    ),
    Case(
        "materials",
        lambda d: (([d.sid],), {"goal": "benchmark"}),
        "POST",
        lambda d: "/paper-schema/materials",
        lambda d: {"schema_ids": [d.sid], "goal": "benchmark"},
        _check_materials,
    ),
]


def test_every_operation_is_covered() -> None:
    assert len({case.method for case in CASES}) == 18


def _assert_received(sb: Sandbox, case: Case, data: Data) -> None:
    received = [r for r in sb.requests() if r.path.startswith("/paper-schema")]
    assert len(received) == 1, [r.path for r in received]
    request: RecordedRequest = received[0]
    assert (request.method, request.path) == (case.http, case.path(data))
    assert "authorization" not in request.headers and request.headers.get("x-request-id")
    if case.http == "GET":
        assert list(request.query) == case.wire(data) and request.body == b""
    else:
        assert request.json() == case.wire(data) and request.query == ()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.method)
def test_operation_sync(sb: Sandbox, client: paperlens.Client, data: Data, case: Case) -> None:
    args, kwargs = case.call(data)
    sb.clear_requests()
    result = getattr(client.schema, case.method)(*args, **kwargs)
    _assert_received(sb, case, data)
    assert result.request_id and result.partial is False
    case.check(result, data)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.method)
async def test_operation_async(sb: Sandbox, aclient: paperlens.AsyncClient, data: Data, case: Case) -> None:
    args, kwargs = case.call(data)
    sb.clear_requests()
    result = await getattr(aclient.schema, case.method)(*args, **kwargs)
    _assert_received(sb, case, data)
    assert result.request_id and result.partial is False
    case.check(result, data)


# -- narrowing rules: the client refuses them, and so does the sandbox ------------------------


from schema_rules import RULES  # noqa: E402


@pytest.mark.parametrize(("method", "args", "kwargs", "param"), RULES)
def test_rule_refused_by_client_and_by_sandbox(
    sb: Sandbox, client: paperlens.Client, method: str, args: tuple, kwargs: dict, param: str
) -> None:
    sb.clear_requests()
    with pytest.raises(paperlens.ValidationError) as refused:
        getattr(client.schema, method)(*args, **kwargs)
    assert refused.value.param == param
    assert sb.requests() == []
    with pytest.raises(paperlens.BadRequestError) as rejected:
        getattr(client.with_options(validate=False).schema, method)(*args, **kwargs)
    error = rejected.value
    assert (error.status, error.code) == (400, "INVALID_REQUEST"), error
    assert error.details == {"parameter": param}, error
    assert error.request_id and len(sb.requests()) == 1  # a 400 is never retried


@pytest.mark.parametrize(("method", "args", "kwargs", "param"), RULES[::6])
async def test_rule_refused_async(
    sb: Sandbox, aclient: paperlens.AsyncClient, method: str, args: tuple, kwargs: dict, param: str
) -> None:
    with pytest.raises(paperlens.ValidationError) as refused:
        await getattr(aclient.schema, method)(*args, **kwargs)
    assert refused.value.param == param
    loose = aclient.with_options(validate=False)
    with pytest.raises(paperlens.BadRequestError) as rejected:
        await getattr(loose.schema, method)(*args, **kwargs)
    assert rejected.value.details == {"parameter": param}


def test_sandbox_refuses_what_only_it_can_check(client: paperlens.Client, data: Data) -> None:
    loose = client.with_options(validate=False)
    for call in (
        lambda: loose.schema.search("q", cursor="not-a-cursor"),
        lambda: client.schema.search("error", cursor=client.schema.search("quantum", size=1).next_cursor),
        lambda: client.schema.entities(data.sid, entity_types=["Gadget"]),
        lambda: client.schema.search_relations(filters={"relation_types": ["cites"]}),
        lambda: client.schema.search(filters={"published_year_gte": 2020, "published_year_lte": 2000}),
        lambda: client.schema.search_evidence(["formula"], value_number_min=5, value_number_max=1),
        lambda: client.schema.search_evidence(["formula"], path_bucket="nowhere"),
    ):
        with pytest.raises(paperlens.BadRequestError) as rejected:
            call()
        assert rejected.value.code == "INVALID_REQUEST"


# -- 404s --------------------------------------------------------------------------------------


def test_an_entity_of_another_paper_is_not_found(client: paperlens.Client, data: Data) -> None:
    assert client.schema.entity(data.sid, data.foreign_entity).entity
    with pytest.raises(paperlens.NotFoundError) as caught:
        client.schema.entity(data.other, data.foreign_entity)
    assert caught.value.code == "NOT_FOUND" and data.other in caught.value.message
    relation = client.schema.relation(data.sid, data.relation_id)
    assert relation.relation
    with pytest.raises(paperlens.NotFoundError):
        client.schema.relation(data.other, "r999")
    with pytest.raises(paperlens.NotFoundError):
        client.schema.evidence(data.other, "v999")


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.related_papers("ps_unknown"),
        lambda s: s.entities("ps_unknown"),
        lambda s: s.entity("ps_unknown", "e1"),
        lambda s: s.relation("ps_unknown", "r1"),
        lambda s: s.citation_summary("ps_unknown"),
        lambda s: s.citations("ps_unknown"),
        lambda s: s.citation_graph("ps_unknown"),
        lambda s: s.evidence("ps_unknown", "v1"),
        lambda s: s.resolve_provenance(schema_id="ps_unknown", marker_nums=[1]),
        lambda s: s.search_in_paper("ps_unknown", "q"),
        lambda s: s.materials(["ps_unknown"]),
    ],
)
def test_unknown_schema_id_is_not_found(client: paperlens.Client, call: Callable[[Any], Any]) -> None:
    with pytest.raises(paperlens.NotFoundError):
        call(client.schema)


def test_ids_are_percent_decoded(client: paperlens.Client, data: Data) -> None:
    # A path id with characters that need escaping is one segment and is decoded.
    with pytest.raises(paperlens.NotFoundError) as caught:
        client.schema.entity(data.sid, "e1/../e2")
    assert "'e1/../e2'" in caught.value.message


# -- cursor iteration to exhaustion -------------------------------------------------------------


def _key(item: Any) -> Any:
    if isinstance(item, t.CitationItem):
        return item.relation["relation_id"]
    if isinstance(item, t.EntityRelatedPaper):
        return item.schema_id
    if isinstance(item, t.PaperCard):
        return item.schema_id
    if isinstance(item, t.Entity):
        return (item.schema_id, item.entity_id)
    if isinstance(item, t.Relation):
        return (item.schema_id, item.relation_id)
    return (item.schema_id, item.evidence_id)


PAGED: list[tuple[str, Callable[[Data], tuple[tuple[Any, ...], dict[str, Any]]]]] = [
    ("iter_search", lambda d: (("quantum",), {"size": 7})),
    ("iter_entity_related_papers", lambda d: (("quantum circuit",), {"size": 9})),
    ("iter_search_entities", lambda d: ((), {"filters": {"schema_ids": [d.sid, d.other]}, "size": 6})),
    ("iter_entities", lambda d: ((d.sid,), {"size": 4})),
    ("iter_search_relations", lambda d: ((), {"filters": {"schema_ids": list(d.all_sids[:15])}, "size": 13})),
    ("iter_citations", lambda d: ((d.sid,), {"size": 4})),
    (
        "iter_search_evidence",
        lambda d: (
            (["resource", "reference_core"],),
            {"value_bool": True, "schema_ids": list(d.all_sids[:40]), "size": 11},
        ),
    ),
]


def _whole(client: paperlens.Client, name: str, args: tuple, kwargs: dict) -> Any:
    """The same request as one big page, to compare the iteration with."""
    return getattr(client.schema, name.removeprefix("iter_"))(*args, **{**kwargs, "size": 100})


@pytest.mark.parametrize(("name", "call"), PAGED, ids=[p[0] for p in PAGED])
def test_iteration_to_exhaustion(sb: Sandbox, client: paperlens.Client, data: Data, name: str, call: Any) -> None:
    args, kwargs = call(data)
    sb.clear_requests()
    keys = [_key(item) for item in getattr(client.schema, name)(*args, **kwargs)]
    pages = len(sb.requests())
    assert pages >= 3, f"{name} fetched only {pages} pages"
    assert len(keys) == len(set(keys)), "duplicates across pages"
    whole = _whole(client, name, args, kwargs)
    assert whole.next_cursor is None
    assert keys == [_key(item) for item in whole.items]
    total = getattr(whole, "total", None) or whole.extra["total"]  # an extra field where the spec shows none
    assert {"value": len(keys), "relation": "eq"} in (total, getattr(total, "to_dict", dict)()) or total == len(keys)
    cursors = [dict(json.loads(r.body) if r.body else r.query).get("cursor") for r in sb.requests()[:pages]]
    assert cursors[0] is None and all(cursors[1:]) and len(set(cursors[1:])) == pages - 1


@pytest.mark.parametrize(("name", "call"), PAGED, ids=[p[0] for p in PAGED])
async def test_iteration_to_exhaustion_async(
    client: paperlens.Client, aclient: paperlens.AsyncClient, data: Data, name: str, call: Any
) -> None:
    args, kwargs = call(data)
    keys = [_key(item) async for item in getattr(aclient.schema, name)(*args, **kwargs)]
    assert len(keys) == len(set(keys)) > 0
    assert keys == [_key(item) for item in _whole(client, name, args, kwargs).items]


def test_iteration_resumes_from_next_cursor(client: paperlens.Client) -> None:
    everything = [p.schema_id for p in client.schema.iter_search("quantum", size=5)]
    first = client.schema.iter_search("quantum", size=5, limit=10)  # two whole pages
    head = [p.schema_id for p in first]
    rest = [p.schema_id for p in client.schema.iter_search("quantum", size=5, cursor=first.next_cursor)]
    assert len(everything) > 10 and head + rest == everything


# -- search semantics ---------------------------------------------------------------------------


def test_search_filters_and_sort(client: paperlens.Client, data: Data) -> None:
    newest = client.schema.search(
        filters={"published_year_gte": 2015, "is_oa": True}, sort=[{"field": "year", "order": "desc"}], size=100
    )
    years = [p.year for p in newest.items]
    assert years and years == sorted(years, reverse=True) and min(years) >= 2015
    assert all(p.extra["is_oa"] is True for p in newest.items)
    cited = client.schema.search("quantum", sort=[{"field": "metrics.citation_count"}], size=100)
    counts = [p.extra["metrics"]["citation_count"] for p in cited.items]
    assert counts == sorted(counts, reverse=True)
    seed = client.schema.search(filters={"schema_ids": [data.sid]}).items[0]
    by_doi = client.schema.search(filters={"dois": [seed.extra["doi"].upper()]})
    assert [p.schema_id for p in by_doi.items] == [data.sid]
    by_author = client.schema.search(filters={"authors": [seed.authors[0].upper()]}, size=100)
    assert data.sid in [p.schema_id for p in by_author.items]
    assert all(seed.authors[0] in p.authors for p in by_author.items)
    by_venue = client.schema.search(filters={"venues": [seed.venue]}, size=100)
    assert data.sid in [p.schema_id for p in by_venue.items] and {p.venue for p in by_venue.items} == {seed.venue}


def test_search_ranks_by_relevance(client: paperlens.Client) -> None:
    page = client.schema.search("quantum error correction", size=20)
    scores = [p.extra["score"] for p in page.items]
    assert scores == sorted(scores, reverse=True)
    assert "quantum" in (page.items[0].title + page.items[0].abstract).lower()


def test_related_papers_signals(client: paperlens.Client, data: Data) -> None:
    cited = {
        c.resolution.target_schema_id
        for c in client.schema.iter_citations(data.sid)
        if c.resolution and c.resolution.status == "resolved"
    }
    related = client.schema.related_papers(data.sid, signals=["citation"], size=50)
    # A direct citation outweighs any coupling, so the cited papers come first.
    assert cited and cited <= {i.schema_id for i in related.items}
    for item in related.items:
        assert list(item.score_components or {}) == ["citation"]
        if item.schema_id in cited:
            assert any("cited by the seed" in r for r in item.reasons or [])
    every = client.schema.related_papers(data.sid)
    assert all(set(i.score_components or {}) == {"term", "entity", "citation"} for i in every.items)
    title = every.seed.title.lower()
    assert all(i.schema_paper.title.lower() != title for i in every.items)
    versions = client.schema.related_papers(data.sid, exclude_same_work=False, size=50)
    for item in versions.items:
        same = item.schema_paper.title.lower() == title
        assert same == any("same work" in r for r in item.reasons or [])


def test_entity_related_papers_match_by_similarity(client: paperlens.Client, data: Data) -> None:
    dataset = client.schema.entities(data.sid, entity_subtypes=["Dataset"]).items[0]
    found = client.schema.entity_related_papers(dataset.name, entity_types=["Resource"], size=100)
    assert data.sid in [i.schema_id for i in found.items]
    for item in found.items:
        assert all(e.entity_type == "Resource" for e in item.matched_entities)
    without = client.schema.entity_related_papers(dataset.name, exclude_schema_ids=[data.sid], size=100)
    assert data.sid not in [i.schema_id for i in without.items]


def test_entity_detail_and_list_filters(client: paperlens.Client, data: Data) -> None:
    method = client.schema.entities(data.sid, entity_subtypes=["Method"]).items[0]
    full = client.schema.entity(data.sid, method.entity_id, include_relations=True)
    assert len(full.relations) >= 3 and full.relations_truncated is False
    bare = client.schema.entity(data.sid, method.entity_id)
    assert bare.relations == [] and bare.entity == full.entity
    in_section = client.schema.entities(data.sid, sections=["Method"])
    assert in_section.items and all(e.section and e.section.endswith("Method") for e in in_section.items)


def test_relation_search_with_evidence_query(client: paperlens.Client, data: Data) -> None:
    dataset = client.schema.entities(data.sid, entity_subtypes=["Dataset"]).items[0]
    found = client.schema.search_relations(
        filters={"relation_types": ["evaluates"]}, evidence_query=dataset.name, size=100
    )
    assert found.items and all(r.relation_type == "evaluates" for r in found.items)
    assert (data.sid, "r2") in [(r.schema_id, r.relation_id) for r in found.items]
    scores = [r.extra["score"] for r in found.items]
    assert scores == sorted(scores, reverse=True)
    by_endpoint = client.schema.search_relations(filters={"schema_ids": [data.sid], "target_entity_ids": ["e1"]})
    assert [r.target_entity_id for r in by_endpoint.items] == ["e1"]


def test_evidence_search_conditions(client: paperlens.Client, data: Data) -> None:
    both = client.schema.search_evidence(["table_evidence", "schema_unit"], group_operator="all", value_number_min=0)
    assert both.items and all({"table_evidence", "schema_unit"} <= set(e.groups or []) for e in both.items)
    bounded = client.schema.search_evidence(
        ["core_claim_result"], value_number_min=10, value_number_max=20, hydrate_schema_papers=True, size=100
    )
    assert bounded.items and all(10 <= (e.value_number or 0) <= 20 for e in bounded.items)
    assert all(e.schema_paper and e.schema_paper.schema_id == e.schema_id for e in bounded.items)
    keyed = client.schema.search_evidence(["resource"], key="DATASET", path_bucket="resources", value_bool=False)
    assert keyed.items and all(e.key == "dataset" and e.value_bool is False for e in keyed.items)
    text = client.schema.search_evidence(["formula"], query="objective")
    assert text.items and all(e.key == "objective" for e in text.items)


# -- citations and the citation graph ------------------------------------------------------------


def _resolved_targets(client: paperlens.Client, sid: str, cache: dict[str, list[str]]) -> list[str]:
    if sid not in cache:
        cache[sid] = [
            c.resolution.target_schema_id
            for c in client.schema.iter_citations(sid, size=100)
            if c.resolution and c.resolution.status == "resolved" and c.resolution.target_schema_id
        ]
    return cache[sid]


def _bfs(client: paperlens.Client, root: str, depth: int, cache: dict[str, list[str]]) -> tuple[set, set, list]:
    """Nodes, edges and per-level (frontier, new nodes, new edges) of an outbound expansion."""
    nodes, edges, frontier, levels = {root}, set(), [root], []
    for _ in range(depth):
        new_nodes, new_edges = [], 0
        for source in frontier:
            for target in _resolved_targets(client, source, cache):
                if target not in nodes:
                    nodes.add(target)
                    new_nodes.append(target)
                edges.add((source, target))
                new_edges += 1
        levels.append((len(frontier), len(new_nodes), new_edges))
        frontier = new_nodes
        if not frontier:
            break
    return nodes, edges, levels


def test_citations_agree_with_the_summary(client: paperlens.Client, data: Data) -> None:
    for sid in (data.sid, data.other):
        summary = client.schema.citation_summary(sid)
        items = list(client.schema.iter_citations(sid, size=7))
        statuses = [c.resolution.status for c in items]
        out = summary.outbound
        assert out.reference_count_total == len(items) == client.schema.citations(sid).total
        assert out.resolved_reference_count == statuses.count("resolved")
        assert out.unresolved_reference_count == len(items) - statuses.count("resolved")
        assert out.resolved_target_schema_count == len({c.resolution.target_schema_id for c in items} - {None})
        assert out.resolution_coverage == pytest.approx(statuses.count("resolved") / len(items), abs=1e-4)
        for c in items:
            if c.resolution.status == "resolved":
                assert c.target_schema and c.target_schema.schema_id == c.resolution.target_schema_id
            else:
                assert c.resolution.target_schema_id is None and c.target_schema is None
    statuses = set()
    for sid in data.all_sids[:60]:
        statuses |= {c.resolution.status for c in client.schema.iter_citations(sid, size=100)}
    assert statuses == {"resolved", "unresolved", "target_unavailable"}


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_citation_graph_matches_an_independent_bfs(client: paperlens.Client, data: Data, depth: int) -> None:
    cache: dict[str, list[str]] = {}
    nodes, edges, levels = _bfs(client, data.sid, depth, cache)
    graph = client.schema.citation_graph(data.sid, depth=depth, max_nodes=500, max_edges=500)
    if len(nodes) > 500 or len(edges) > 500:
        assert graph.truncated is True
        return
    assert graph.truncated is False
    assert {n.schema_id for n in graph.nodes} == nodes
    assert {(e.source_schema_id, e.target_schema_id) for e in graph.edges} == edges
    assert len(graph.edges) == len(edges)
    assert [(lv.frontier, lv.extra["new_nodes"], lv.new_edges) for lv in graph.typed_levels] == levels
    assert all(e.citation_count == 1 for e in graph.edges)


def test_citation_graph_inbound_and_caps(client: paperlens.Client, data: Data) -> None:
    cache: dict[str, list[str]] = {}
    cited = max(data.all_sids, key=lambda s: (client.schema.citation_summary(s).inbound.resolved_corpus_edge_count, s))
    inbound = client.schema.citation_graph(cited, direction="inbound", depth=1, max_nodes=500)
    summary = client.schema.citation_summary(cited)
    assert len(inbound.edges) == summary.inbound.resolved_corpus_edge_count > 0
    for edge in inbound.edges:
        assert edge.target_schema_id == cited
        assert cited in _resolved_targets(client, edge.source_schema_id, cache)
    citers = {sid for sid in data.all_sids if cited in _resolved_targets(client, sid, cache)}
    assert {e.source_schema_id for e in inbound.edges} == citers

    nodes, edges, _ = _bfs(client, data.sid, 2, cache)
    few_nodes = client.schema.citation_graph(data.sid, depth=2, max_nodes=3)
    assert few_nodes.truncated is True and len(few_nodes.nodes) == 3 and few_nodes.warnings
    held = {n.schema_id for n in few_nodes.nodes}
    assert held <= nodes and all(e.source_schema_id in held and e.target_schema_id in held for e in few_nodes.edges)
    few_edges = client.schema.citation_graph(data.sid, depth=2, max_edges=4)
    assert few_edges.truncated is True and len(few_edges.edges) == 4
    assert {(e.source_schema_id, e.target_schema_id) for e in few_edges.edges} <= edges
    roomy = client.schema.citation_graph(data.sid, depth=1, max_nodes=500, max_edges=500)
    assert roomy.truncated is False and roomy.warnings == []


def test_citation_graph_to_networkx(client: paperlens.Client, data: Data) -> None:
    graph = client.schema.citation_graph(data.sid, depth=2)
    assert {e.source_schema_id for e in graph.edges} <= {n.schema_id for n in graph.nodes}
    try:
        import networkx  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="networkx"):
            graph.to_networkx()
        return
    digraph = graph.to_networkx()
    assert digraph.number_of_edges() == len(graph.edges) and digraph.number_of_nodes() == len(graph.nodes)


# -- provenance round trips ----------------------------------------------------------------------


_GROUPS = EVIDENCE_GROUPS


def test_evidence_markers_resolve_to_paragraphs_holding_their_text(client: paperlens.Client, data: Data) -> None:
    evidence = [e for e in client.schema.iter_search_evidence(list(_GROUPS[:5]), schema_ids=[data.sid]) if e.value_text]
    evidence += [
        e for e in client.schema.iter_search_evidence(list(_GROUPS[5:]), schema_ids=[data.sid]) if e.value_text
    ]
    assert len(evidence) >= 4
    for item in evidence:
        location = item.provenance[0]
        resolved = client.schema.resolve_provenance(schema_id=data.sid, marker_nums=[location.marker])
        assert resolved.trace.mode == "marker" and resolved.missing == []
        (segment,) = resolved.segments
        assert segment.paragraph_id == location.paragraph_id and segment.marker == location.marker
        assert item.value_text in segment.text
        detail = client.schema.evidence(data.sid, item.evidence_id)
        assert detail.provenance == item.provenance
        by_id = client.schema.resolve_provenance(paragraph_ids=[location.paragraph_id])
        assert by_id.trace.mode == "paragraph_id" and by_id.segments[0].text == segment.text


def test_entity_provenance_resolves_to_its_text(client: paperlens.Client, data: Data) -> None:
    own = [e for e in client.schema.iter_entities(data.sid) if e.entity_type != "Reference"]
    assert {e.entity_type for e in own} == {"Problem", "Component", "Finding", "Measure", "Resource"}
    markers = [e.provenance[0].marker for e in own]
    resolved = client.schema.resolve_provenance(schema_id=data.sid, marker_nums=markers)
    text = {s.marker: s.text for s in resolved.segments}
    for entity in own:
        assert entity.text in text[entity.provenance[0].marker], entity
        assert entity.section == next(s.section for s in resolved.segments if s.marker == entity.provenance[0].marker)


def test_provenance_window_cap_and_missing(client: paperlens.Client, data: Data) -> None:
    around = client.schema.resolve_provenance(schema_id=data.sid, marker_nums=[data.marker], window=2)
    positions = [s.extra["position"] for s in around.segments]
    assert positions == list(range(positions[0], positions[0] + 5))
    capped = client.schema.resolve_provenance(schema_id=data.sid, marker_nums=[1, 5, 9], window=5, max_segments=4)
    assert len(capped.segments) == 4 and capped.truncated is True
    missing = client.schema.resolve_provenance(
        paragraph_ids=[data.paragraph_id, f"{data.sid}:p9999", "nonsense", "ps_unknown:p1"]
    )
    assert [s.paragraph_id for s in missing.segments] == [data.paragraph_id]
    assert missing.missing == [f"{data.sid}:p9999", "nonsense", "ps_unknown:p1"] and missing.warnings
    markers = client.schema.resolve_provenance(schema_id=data.sid, marker_nums=[0, 10_000, data.marker])
    assert markers.missing == [0, 10_000] and len(markers.segments) == 1


def test_search_in_paper(client: paperlens.Client, data: Data) -> None:
    dataset = client.schema.entities(data.sid, entity_subtypes=["Dataset"]).items[0]
    found = client.schema.search_in_paper(data.sid, dataset.name, top_k=20, window=0)
    hits = found.hits
    assert hits and all(s.schema_id == data.sid for s in hits)
    scores = [s.score for s in hits]
    assert scores == sorted(scores, reverse=True)
    assert dataset.provenance[0].paragraph_id in [s.paragraph_id for s in hits]
    hinted = client.schema.search_in_paper(data.sid, dataset.name, top_k=20, window=0, section_hint="Experiments")
    plain = {s.paragraph_id: s.score for s in hits}
    boosted = 0
    for s in hinted.segments:
        if s.paragraph_id not in plain:
            continue
        expected = plain[s.paragraph_id] * (1.5 if "Experiments" in (s.section or "") else 1.0)
        assert s.score == pytest.approx(expected, rel=1e-3)
        boosted += "Experiments" in (s.section or "")
    assert boosted > 0
    windowed = client.schema.search_in_paper(data.sid, dataset.name, top_k=1, window=1)
    assert 2 <= len(windowed.segments) <= 3 and len(windowed.hits) == 1
    code = client.schema.search_in_paper(data.sid, dataset.name, top_k=20, window=0, prefer_code=True, prefer_url=True)
    assert {s.paragraph_id for s in code.segments} == set(plain)
    nothing = client.schema.search_in_paper(data.sid, "zzzqqq")
    assert nothing.segments == [] and nothing.warnings


def test_hydration_by_each_method(client: paperlens.Client, data: Data) -> None:
    result = client.schema.hydrate_items(
        [
            {"schema_id": data.sid, "paragraph_ids": [data.paragraph_id]},
            {"schema_id": data.sid, "marker_nums": [data.marker]},
            {"schema_id": data.sid, "hydration_query": "baseline seeds"},
            {"schema_id": "ps_unknown", "marker_nums": [1]},
            {"schema_id": data.sid, "hydration_query": "zzzqqq"},
            {"schema_id": data.other, "paragraph_ids": [data.paragraph_id]},
            {"schema_id": data.sid, "marker_nums": [1], "hydration_query": "ignored while a locator is given"},
        ],
        window=0,
        max_segments_per_item=2,
    )
    methods = [i.hydration_method for i in result.items]
    assert methods == ["paragraph_id", "marker", "schema_local_search", "none", "none", "none", "marker"]
    assert [i.schema_id for i in result.items][:4] == [data.sid, data.sid, data.sid, "ps_unknown"]
    assert result.items[0].segments[0].text == result.items[1].segments[0].text
    assert 1 <= len(result.items[2].segments) <= 2 and all(s.score for s in result.items[2].segments)
    assert len(result.failed) == 3 and all(i.reason for i in result.failed)
    assert all(i.reason is None for i in result.items if i.segments)
    assert result.warnings and result.partial is False


# -- materials ---------------------------------------------------------------------------------


def _ranks(values: list[list[str]], preferred: list[str]) -> list[int]:
    """Each value's best rank in ``preferred`` (values outside it after all of them)."""
    return [min((preferred.index(v) for v in vs if v in preferred), default=len(preferred)) for vs in values]


@pytest.mark.parametrize(
    ("goal", "types", "relations", "groups"),
    [
        ("overview", ["Problem", "Component", "Finding"], ["resolves", "supports"], ["core_claim_result"]),
        ("survey", ["Reference", "Problem"], ["resolves", "uses_component"], ["reference_core", "reference_semantics"]),
        ("benchmark", ["Resource", "Measure", "Finding"], ["evaluates", "reports_metric"], ["table_evidence"]),
        ("method", ["Component", "Problem"], ["uses_component", "resolves"], ["formula", "comparison_detail"]),
        ("reproduction", ["Resource", "Component", "Measure"], ["evaluates", "uses_component"], ["resource"]),
    ],
)
def test_materials_prefer_by_goal(
    client: paperlens.Client, data: Data, goal: str, types: list[str], relations: list[str], groups: list[str]
) -> None:
    result = client.schema.materials([data.sid, data.other], goal=goal, per_schema_entity_limit=3)
    assert [i.schema_id for i in result.items] == [data.sid, data.other]
    item = result.items[0]
    assert item.entities[0].entity_type == types[0]
    assert item.relations[0].relation_type == relations[0]
    assert any(g in groups for g in item.evidence[0].groups or [])
    complete = client.schema.materials([data.sid], goal=goal, per_schema_entity_limit=150).items[0]
    for ranks in (
        _ranks([[e.entity_type] for e in complete.entities], types),
        _ranks([[r.relation_type] for r in complete.relations], relations),
        _ranks([e.groups or [] for e in complete.evidence], groups),
    ):
        assert ranks == sorted(ranks)
    assert item.count("entities").returned == 3 and item.count("entities").truncated is True
    assert result.truncated is True and "entities" in item.truncated_resources


def test_materials_limits_and_counts(client: paperlens.Client, data: Data) -> None:
    full = client.schema.materials([data.sid], per_schema_entity_limit=150, per_schema_attribute_limit=200)
    item = full.items[0]
    entities = client.schema.entities(data.sid, size=100)
    assert item.count("entities").total == entities.total.value == len(item.entities)
    assert item.count("relations").truncated is False and item.count("evidence").truncated is False
    assert item.terms and all(term["term"] for term in item.terms)
    none = client.schema.materials(
        [data.sid],
        include_relation_context=True,
        per_schema_entity_limit=0,
        per_schema_relation_limit=2,
        per_schema_attribute_limit=0,
        per_schema_term_limit=0,
    ).items[0]
    assert none.entities == [] and none.evidence == [] and none.terms == [] and len(none.relations) == 2
    assert all(r.source_entity and r.target_entity for r in none.relations)
    assert none.count("relations").returned == 2 and none.count("terms").truncated is True


# -- partial results -----------------------------------------------------------------------------


def test_partial_results_warn(sb: Sandbox, client: paperlens.Client, data: Data) -> None:
    sb.inject_fault("/paper-schema/search", kind="partial")
    with pytest.warns(paperlens.PartialResultWarning):
        page = client.schema.search("quantum")
    assert page.partial is True and page.items and any("injected fault" in w for w in page.warnings)
    sb.inject_fault(f"/paper-schema/schemas/{data.sid}/citation-graph", kind="partial", times=2)
    for _ in range(2):
        with pytest.warns(paperlens.PartialResultWarning):
            graph = client.schema.citation_graph(data.sid)
        assert graph.partial is True and graph.nodes
    assert client.schema.citation_graph(data.sid).partial is False
    sb.inject_fault("/paper-schema/hydrate-items", kind="partial")
    with pytest.warns(paperlens.PartialResultWarning):
        hydrated = client.schema.hydrate_items([{"schema_id": "ps_unknown", "marker_nums": [1]}])
    # The answer's own warning is kept beside the injected one.
    assert hydrated.partial is True and len(hydrated.warnings) == 2


def test_partial_results_warn_while_iterating(sb: Sandbox, client: paperlens.Client, data: Data) -> None:
    sb.inject_fault(f"/paper-schema/schemas/{data.sid}/entities", kind="partial")
    with pytest.warns(paperlens.PartialResultWarning):
        entities = list(client.schema.iter_entities(data.sid, size=10))
    assert len(entities) == client.schema.entities(data.sid).total.value


async def test_partial_results_warn_async(sb: Sandbox, aclient: paperlens.AsyncClient, data: Data) -> None:
    sb.inject_fault("/paper-schema/materials", kind="partial")
    with pytest.warns(paperlens.PartialResultWarning):
        result = await aclient.schema.materials([data.sid])
    assert result.partial is True and result.items


def test_a_partial_fault_takes_no_status(sb: Sandbox) -> None:
    with pytest.raises(ValueError, match="partial"):
        sb.inject_fault("/paper-schema", status=500, kind="partial")


# -- the shared quota ------------------------------------------------------------------------------


def test_all_operations_share_one_quota(data: Data) -> None:
    with Sandbox(papers=PAPERS, seed=SEED, rate_limits={"paper-schema": 3}) as limited:
        with _client(limited, max_rate_limit_wait=0.5) as c:
            c.schema.capabilities()
            c.schema.citation_summary(data.sid)
            c.schema.search("quantum", size=1)
            with pytest.raises(paperlens.RateLimitError) as caught:
                c.schema.entities(data.sid)
            assert caught.value.status == 429 and caught.value.code == "RATE_LIMITED"
            assert caught.value.retry_after and caught.value.retry_after > 0
            with pytest.raises(paperlens.RateLimitError):
                c.schema.materials([data.sid])
            assert c.meta_catalog().request_id  # another quota resource still answers
        paths = [r.path for r in limited.requests()]
        assert paths[:4] == [
            "/paper-schema",
            f"/paper-schema/schemas/{data.sid}/citation-summary",
            "/paper-schema/search",
            f"/paper-schema/schemas/{data.sid}/entities",
        ]


async def test_all_operations_share_one_quota_async(data: Data) -> None:
    with Sandbox(papers=50, seed=SEED, rate_limits={"paper-schema": 2}) as limited:
        async with paperlens.AsyncClient(
            api_token=limited.token, base_url=limited.base_url, rate_limits=None, max_rate_limit_wait=0.5
        ) as c:
            await c.schema.capabilities()
            page = await c.schema.search(filters={"published_year_gte": 1800}, size=1)
            with pytest.raises(paperlens.RateLimitError):
                await c.schema.citations(page.items[0].schema_id)
