"""The six Open Platform operations, sync and async: the request exactly as sent, the answer
parsed into typed results, and every status code of the spec mapped to its exception."""

from __future__ import annotations

import json

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens import types as t

from conftest import TOKEN, error_body, sent_json
from fixtures import CATALOG, RELATIONS, agentic_result, meta_search_page


async def run(client: paperlens.Client | paperlens.AsyncClient, method: str, *args, **kwargs):
    result = getattr(client, method)(*args, **kwargs)
    return await result if isinstance(client, paperlens.AsyncClient) else result


@pytest.fixture(params=["sync", "async"])
def any_client(request, client, aclient):
    return client if request.param == "sync" else aclient


def assert_common_headers(httpserver: HTTPServer) -> None:
    request, _ = httpserver.log[-1]
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["User-Agent"].startswith(f"paperlens/{paperlens.__version__} python/")
    assert len(request.headers["X-Request-ID"]) == 36


async def test_agentic_search(any_client, httpserver: HTTPServer):
    httpserver.expect_request("/agentic-search", method="POST").respond_with_json(
        {**agentic_result(3), "unexpected": "kept"}, headers={"X-Request-ID": "srv-1"}
    )
    result = await run(
        any_client,
        "agentic_search",
        "graph neural networks",
        top_k=3,
        retrieval="hybrid",
        filters={"publication_published_year": {"gte": 2020}, "author": ["A. Researcher"]},
        source_types=["pdf"],
    )
    assert sent_json(httpserver) == {
        "query": "graph neural networks",
        "top_k": 3,
        "retrieval": "hybrid",
        "filters": {"publication_published_year": {"gte": 2020}, "author": ["A. Researcher"]},
        "source_types": ["pdf"],
    }
    request, _ = httpserver.log[-1]
    assert request.headers["Content-Type"] == "application/json"
    assert_common_headers(httpserver)
    assert isinstance(result, t.AgenticSearchResult)
    assert result.request_id == "srv-1"
    assert result.request_tokens == 42
    assert result.extra == {"unexpected": "kept"}
    hit = result.hits[0]
    assert isinstance(hit, t.Hit)
    assert (hit.recall_source, hit.offset, hit.source_type) == ("vector|es", 0, "pdf")
    assert hit.origin_vector_score == pytest.approx(0.83)
    assert result.to_dict()["unexpected"] == "kept"


async def test_content(any_client, httpserver: HTTPServer):
    body = {"text": "文献😀 text", "bytes_returned": 15, "text_length": 9, "next_offset": 9, "more": False}
    httpserver.expect_request(
        "/content", method="GET", query_string={"doc_id": "abc", "offset": "0", "limit": "700"}
    ).respond_with_json(body)
    content = await run(any_client, "content", "abc", offset=0, limit=700)
    assert isinstance(content, t.Content)
    assert (content.text, content.text_length, content.more) == ("文献😀 text", 9, False)
    assert_common_headers(httpserver)


async def test_content_by_source_in_full_mode(any_client, httpserver: HTTPServer):
    source = "https://papers.example.org/1.pdf?x=1&y=2"
    httpserver.expect_request("/content", query_string={"source": source}).respond_with_json(
        {"text": "full", "bytes_returned": 4, "text_length": 4, "next_offset": 4, "more": False}
    )
    assert (await run(any_client, "content", source=source)).text == "full"


async def test_resource(any_client, httpserver: HTTPServer):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    httpserver.expect_request("/resource", query_string={"file_name": "figures/p1/fig 1.png"}).respond_with_data(
        png,
        content_type="image/png",
        headers={"Content-Disposition": 'attachment; filename="fig1.png"', "Cache-Control": "private, no-store"},
    )
    resource = await run(any_client, "resource", "figures/p1/fig 1.png")
    assert isinstance(resource, t.Resource)
    assert (resource.data, resource.content_type, resource.filename) == (png, "image/png", "fig1.png")
    request, _ = httpserver.log[-1]
    assert request.headers["Accept"] == "*/*"


@pytest.mark.parametrize(
    ("disposition", "name"),
    [
        ("attachment; filename*=UTF-8''%E5%9B%BE%202.png; filename=\"fallback.png\"", "图 2.png"),
        ('attachment; filename="a; b.png"', "a; b.png"),
        ('attachment; filename="../../etc/passwd"', "passwd"),
        (None, "fig 1.png"),
    ],
)
async def test_a_download_into_a_folder_takes_the_name_resource_gives(
    any_client, httpserver, tmp_path, disposition, name
):
    headers = {} if disposition is None else {"Content-Disposition": disposition}
    httpserver.expect_request("/resource").respond_with_data(b"png", content_type="image/png", headers=headers)
    resource = await run(any_client, "resource", "figures/p1/fig 1.png")
    path = await run(any_client, "download_resource", "figures/p1/fig 1.png", tmp_path)
    assert resource.filename == name and path == tmp_path / name and path.read_bytes() == b"png"
    assert [p.name for p in tmp_path.iterdir()] == [name]


async def test_meta_catalog(any_client, httpserver: HTTPServer):
    httpserver.expect_request(
        "/meta-catalog",
        method="GET",
        query_string={"collection": "papers", "include_sample_values": "true", "include_field_stats": "false"},
    ).respond_with_json(CATALOG)
    catalog = await run(
        any_client, "meta_catalog", collection="papers", include_sample_values=True, include_field_stats=False
    )
    assert isinstance(catalog, t.Catalog)
    citations, language = catalog.fields
    assert isinstance(citations, t.CatalogField)
    assert citations.numeric_stats["p95"] == 120
    assert language.cardinality_estimate == 41  # an int64 sent as a string
    assert catalog.filter_operators[-1] == "MATCH_PHRASE"


async def test_meta_search(any_client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(meta_search_page(200))
    page = await run(
        any_client,
        "meta_search",
        "protein folding",
        filters=[paperlens.Filter("citation_count", ">=", 100), ("language", "in", ["en", "zh"])],
        sort=("citation_count", "desc"),
        fields=["title", "citation_count"],
        page_size=200,
        facets=["publication_published_year", ("language", 5)],
        impact_boost="MILD",
    )
    assert sent_json(httpserver) == {
        "query": "protein folding",
        "filters": [
            {"field": "citation_count", "operator": "FILTER_OP_GTE", "value": 100},
            {"field": "language", "operator": "FILTER_OP_IN", "value": ["en", "zh"]},
        ],
        "sort": [{"field": "citation_count", "order": "SORT_ORDER_DESC"}],
        "fields": ["title", "citation_count"],
        "page_size": 200,
        "facets": [{"field": "publication_published_year"}, {"field": "language", "size": 5}],
        "impact_boost": "MILD",
    }
    assert isinstance(page, t.MetaSearchPage)
    assert page.total_count == 12345  # a string on the wire
    assert page.facets[0].buckets[0].doc_count == 812
    assert page.to_dict()["total_count"] == 12345  # JSON back, int64 strings as ints
    assert len(page.results) == 200
    record = page.results[0]
    assert isinstance(record, t.MetadataRecord)
    assert record.author[0] == {"name": "Author 0", "orcid": "0000-0002-0000-0000"}
    assert record.publication_published_date is None  # absent on the wire
    assert record.citation_normalized_percentile["is_in_top_10_percent"] is True
    assert_common_headers(httpserver)


async def test_paper_relations(any_client, httpserver: HTTPServer):
    httpserver.expect_request(
        "/meta-paper-relations",
        method="POST",
        json={"unique_id": "W42", "relation": "CITATIONS", "page": 2, "page_size": 50},
    ).respond_with_json(RELATIONS)
    relations = await run(any_client, "paper_relations", "W42", "CITATIONS", page=2, page_size=50)
    assert isinstance(relations, t.RelationsPage)
    assert [item.id for item in relations.items] == ["10.1000/xyz1", "W9"]
    assert relations.items[1].title is None
    assert (relations.code, relations.biz_code) == ("SUCCESS", 0)


# Status codes each operation lists in the spec, and the exception each maps to.
EXCEPTIONS = {
    400: paperlens.BadRequestError,
    401: paperlens.AuthenticationError,
    403: paperlens.PermissionDeniedError,
    404: paperlens.NotFoundError,
    405: paperlens.APIError,
    422: paperlens.BadRequestError,
    429: paperlens.RateLimitError,
    500: paperlens.ServerError,
    502: paperlens.ServerError,
    503: paperlens.ServerError,
    504: paperlens.GatewayTimeoutError,
    507: paperlens.ServerError,
}
CALLS = {
    "agentic_search": ("/agentic-search", ("q",), {}, [400, 401, 429, 500, 502, 503, 507]),
    "content": ("/content", ("doc",), {}, [400, 401, 403, 405, 429, 502, 503]),
    "resource": ("/resource", ("f.png",), {}, [400, 401, 403, 429, 500, 502, 503]),
    "meta_catalog": ("/meta-catalog", (), {}, [401, 429, 502, 503, 504]),
    "meta_search": ("/meta-search", ("q",), {}, [400, 401, 403, 429, 502, 503, 504]),
    "paper_relations": ("/meta-paper-relations", ("W1", "REFERENCES"), {}, [400, 401, 403, 404, 429, 502, 503, 504]),
}
STATUS_CASES = [(method, status) for method, (*_, statuses) in CALLS.items() for status in statuses]


@pytest.mark.parametrize(("method", "status"), STATUS_CASES)
async def test_every_listed_status_maps_to_its_exception(any_client, httpserver: HTTPServer, method, status):
    path, args, kwargs, _ = CALLS[method]
    details = {"retry_after": 0}
    httpserver.expect_request(path).respond_with_json(error_body(f"CODE_{status}", details=details), status=status)
    client = any_client.with_options(max_retries=0)
    with pytest.raises(EXCEPTIONS[status]) as caught:
        await run(client, method, *args, **kwargs)
    error = caught.value
    assert type(error) is EXCEPTIONS[status]
    assert (error.status, error.code, error.message, error.request_id) == (
        status,
        f"CODE_{status}",
        "nope",
        "srv-req-1",
    )
    assert error.details == details
    assert str(status) in str(error)


async def test_async_client_works_under_asyncio_run(httpserver: HTTPServer):
    """The methods are real coroutines: asyncio.run() can drive them without a running loop."""
    import asyncio

    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(1))

    async def main() -> int:
        async with paperlens.AsyncClient(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None) as ac:
            return len((await ac.meta_search("x")).results)

    assert await asyncio.get_running_loop().run_in_executor(None, asyncio.run, main()) == 1


def test_request_json_is_compact_and_utf8(client, httpserver: HTTPServer):
    httpserver.expect_request("/agentic-search").respond_with_json(agentic_result(0))
    client.agentic_search("蛋白质折叠 😀")
    request, _ = httpserver.log[-1]
    assert json.loads(request.get_data().decode("utf-8")) == {"query": "蛋白质折叠 😀"}
