"""The client's Open Platform behaviour, again, against the real sandbox (issue 3): the six
operations sync and async, errors, retries and faults injected through the sandbox."""

from __future__ import annotations

import asyncio
import time

import pytest

import paperlens
from paperlens import types as t
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client

SANDBOX = dict(papers=2000, seed=7)


@pytest.fixture
def client(sandbox):
    sandbox.clear_requests()
    return sandbox_client(sandbox, retry_backoff=0.01)


@pytest.fixture
def aclient(sandbox):
    return paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)


QUESTION = "retrieval augmented generation for question answering"


def test_agentic_search_finds_the_topic_and_locates_chunks(client):
    result = client.agentic_search(QUESTION, top_k=10, retrieval="hybrid")
    assert isinstance(result, t.AgenticSearchResult) and len(result.hits) == 10
    assert result.hits[0].primary_topic == "Natural Language Processing with Large Language Models"
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
    assert result.request_tokens and result.response_tokens
    for hit in result.hits[:3]:
        page = client.content(hit.doc_id, offset=hit.offset, limit=len(hit.chunk))
        assert page.text == hit.chunk  # offsets are code points into the full text
        by_source = client.content(source=hit.source, offset=hit.offset, limit=len(hit.chunk))
        assert by_source.text == hit.chunk
    for retrieval, origins in [("es", {"es"}), ("vector", {"vector"})]:
        hits = client.agentic_search(QUESTION, retrieval=retrieval).hits
        assert {h.recall_source for h in hits} == origins


async def test_async_operations(aclient, sandbox):
    hits = (await aclient.agentic_search(QUESTION, top_k=3)).hits
    page = await aclient.meta_search("retrieval augmented generation", page_size=5, facets=["language"])
    catalog = await aclient.meta_catalog(include_field_stats=True)
    relations = await aclient.paper_relations(page.results[0].unique_id, "REFERENCES")
    text = await aclient.read_text(hits[0].doc_id)
    assert text[hits[0].offset :].startswith(hits[0].chunk)
    assert page.total_count > 0 and page.facets[0].field == "language"
    assert any(f.numeric_stats for f in catalog.fields)
    assert isinstance(relations, t.RelationsPage) and relations.code == "SUCCESS"
    many = await asyncio.gather(*[aclient.meta_search("language model", page=p, page_size=10) for p in range(1, 6)])
    ids = [r.unique_id for page in many for r in page.results]
    assert len(ids) == len(set(ids)) == 50


def test_read_text_of_long_non_latin_texts(client):
    records = client.meta_search(filters=[("language", "in", ["zh", "ja", "ko"])], fields=["doc_id", "language"])
    doc_id = next(r.doc_id for r in records.results if r.doc_id)
    full = client.content(doc_id)
    assert client.read_text(doc_id) == full.text
    assert len(full.text) == full.text_length and full.bytes_returned == len(full.text.encode())
    assert any(ord(c) > 0x2E80 for c in full.text)  # CJK or Hangul
    pages = list(client.iter_content(doc_id, limit=333))
    assert "".join(p.text for p in pages) == full.text


def test_a_text_longer_than_the_largest_page(client):
    longest = None
    for record in client.iter_meta_search("language model", page_size=200, fields=["doc_id"], limit=2000):
        if record.doc_id:
            content = client.content(record.doc_id, offset=0, limit=1)
            if content.text_length > 524_288:
                longest = record.doc_id
                break
    assert longest, "the corpus holds texts longer than 524,288 code points"
    text = client.read_text(longest)
    assert len(text) > 524_288
    assert text == client.content(longest).text


def test_download_a_figure(client, tmp_path):
    hit = client.agentic_search(QUESTION, top_k=1).hits[0]
    text = client.read_text(hit.doc_id)
    name = text.split("](figures/", 1)[1].split(")", 1)[0]
    path = client.download_resource(f"figures/{name}", tmp_path)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    resource = client.resource(f"figures/{name}")
    assert resource.content_type == "image/png" and resource.data == path.read_bytes()


def test_meta_search_pages_to_exhaustion_without_gaps_or_duplicates(client):
    total = client.meta_search("climate", page_size=1).total_count
    ids = [r.unique_id for r in client.iter_meta_search("climate", page_size=50, fields=["unique_id"])]
    assert len(ids) == len(set(ids)) == total
    sorted_ids = [
        r.unique_id
        for r in client.iter_meta_search(sort=("citation_count", "desc"), page_size=200, fields=["unique_id"])
    ]
    assert len(sorted_ids) == len(set(sorted_ids)) == 2000


def test_boosted_iteration_uses_page_numbers(client, sandbox):
    records = list(client.iter_meta_search("language model", page_size=20, impact_boost="STRONG"))
    sent = [r.json() for r in sandbox.requests() if r.path == "/meta-search"]
    assert all("cursor" not in body for body in sent)
    assert [body.get("page", 1) for body in sent] == list(range(1, len(sent) + 1))
    assert len({r.unique_id for r in records}) == len(records)


def test_relations_iterate_every_page(client):
    cited = client.meta_search(sort=("citation_count", "desc"), page_size=1).results[0]
    items = list(client.iter_paper_relations(cited.unique_id, "CITATIONS", page_size=7))
    assert len(items) == cited.citation_count and len({i.id for i in items}) == len(items)
    with pytest.raises(paperlens.NotFoundError):
        client.paper_relations("W-does-not-exist", "CITATIONS")


def test_authentication_and_permissions(sandbox, client):
    bad = paperlens.Client(api_token="wrong", base_url=sandbox.base_url, rate_limits=None)
    with pytest.raises(paperlens.AuthenticationError) as caught:
        bad.meta_search("x")
    assert caught.value.code == "UNAUTHENTICATED"
    with pytest.raises(paperlens.AuthenticationError) as caught:
        bad.meta_catalog()
    assert caught.value.code == "UNAUTHORIZED"
    assert len([r for r in sandbox.requests() if r.path == "/meta-search"]) == 1  # never retried
    restricted = paperlens.Client(api_token=sandbox.restricted_token, base_url=sandbox.base_url, rate_limits=None)
    names = {f.name for f in restricted.meta_catalog().fields}
    assert "fwci" not in names and "fwci" in {f.name for f in client.meta_catalog().fields}
    with pytest.raises(paperlens.PermissionDeniedError) as caught:
        restricted.meta_search("x", fields=["fwci"])
    assert caught.value.code == "PERMISSION_DENIED"


def test_server_side_bounds_answer_400_with_the_request_id(client):
    unchecked = client.with_options(validate=False)
    with pytest.raises(paperlens.BadRequestError) as caught:
        unchecked.meta_search("x", page=51, page_size=200)
    assert caught.value.code == "INVALID_ARGUMENT" and len(caught.value.request_id) == 36
    with pytest.raises(paperlens.BadRequestError) as caught:
        unchecked.agentic_search("x", top_k=101)
    assert caught.value.code == "INVALID_REQUEST"


def test_injected_503_503_then_success(client, sandbox):
    sandbox.inject_fault("/meta-search", status=503, times=2)
    assert client.meta_search("climate").results
    attempts = [r for r in sandbox.requests() if r.path == "/meta-search"]
    assert len(attempts) == 3 and len({r.headers["x-request-id"] for r in attempts}) == 1


def test_injected_429_waits_for_retry_after(client, sandbox):
    sandbox.inject_fault("/meta-catalog", status=429, retry_after=1)
    started = time.monotonic()
    client.meta_catalog()
    assert time.monotonic() - started >= 1.0


def test_injected_faults_map_to_errors(client, sandbox):
    once = client.with_options(max_retries=0)
    sandbox.inject_fault("/agentic-search", kind="non_json", status=502)
    with pytest.raises(paperlens.ServerError, match="non-JSON"):
        once.agentic_search("x")
    sandbox.inject_fault("/agentic-search", kind="drop")
    with pytest.raises(paperlens.APIConnectionError):
        once.agentic_search("x")
    sandbox.inject_fault("/agentic-search", delay=1.0)
    with pytest.raises(paperlens.APITimeoutError):
        once.with_options(timeout=0.2).agentic_search("x")
    sandbox.inject_fault("/agentic-search", kind="drop")
    assert client.agentic_search("x").hits  # a dropped connection is retried


def test_rate_limited_sandbox_and_client_pacing():
    with Sandbox(papers=200, rate_limits={"meta-search": 2}) as sb:
        eager = sandbox_client(sb, max_retries=0)
        eager.meta_search("x")
        eager.meta_search("x")
        with pytest.raises(paperlens.RateLimitError) as caught:
            eager.meta_search("x")
        assert caught.value.retry_after >= 1


def test_string_counts_and_determinism():
    def snapshot(sb: Sandbox) -> tuple:
        c = sandbox_client(sb)
        page = c.meta_search("coral reef", page_size=20, facets=["language"])
        hits = c.agentic_search("coral bleaching", top_k=5).hits
        return page.total_count, [r.to_dict() for r in page.results], [h.chunk_id for h in hits], page.facets[0]

    with Sandbox(papers=500, seed=3, int64_as_string=True) as a, Sandbox(papers=500, seed=3) as b:
        first, second = snapshot(a), snapshot(b)
        assert isinstance(first[0], int) and first == second
        raw = next(r for r in a.requests() if r.path == "/meta-search")
        assert raw is not None
    with Sandbox(papers=500, seed=4) as c:
        assert snapshot(c)[1] != first[1]


def test_service_source_is_echoed(sandbox):
    client = paperlens.Client(
        api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None, service_source="notebook"
    )
    client.meta_catalog()
    assert sandbox.requests()[-1].headers["x-service-source"] == "notebook"


def test_demo_runs():
    import io

    from paperlens.cli import run_demo

    out = io.StringIO()
    assert run_demo(out) == 0
    text = out.getvalue()
    assert "PNG image" in text and "citing works" in text and "matching records" in text
