"""client.lookup against the sandbox, sync and async: input order and misses across chunks,
the fewest requests the bounds allow, normalised DOIs, duplicates answered once, pacing,
caching, and bad ids refused before any request."""

from __future__ import annotations

import asyncio
import json
import math
import random

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.lookup import normalize_doi, normalize_id
from paperlens.sandbox import Sandbox

from fixtures import metadata_record, sandbox_client

ID_FIELDS = ["unique_id", "doi", "doc_id", "isbn13", "title"]


SANDBOX = dict(papers=2000, seed=3)


@pytest.fixture(scope="module")
def corpus(sandbox):
    client = sandbox_client(sandbox)
    return client.iter_meta_search(None, fields=ID_FIELDS).to_list()


@pytest.fixture(params=["sync", "async"])
def make(request, sandbox):
    def make_client(**options):
        settings = {"api_token": sandbox.token, "base_url": sandbox.base_url, "rate_limits": None, **options}
        return paperlens.Client(**settings) if request.param == "sync" else paperlens.AsyncClient(**settings)

    sandbox.clear_requests()
    return make_client


async def lookup(client, *args, **kwargs):
    result = client.lookup(*args, **kwargs)
    return await result if isinstance(client, paperlens.AsyncClient) else result


def spelled(doi: str, n: int) -> str:
    """The DOI as a reference list may spell it."""
    return [doi, doi.upper(), f"https://doi.org/{doi}", f"doi:{doi}", f"  http://dx.doi.org/{doi.upper()}\n"][n % 5]


def sent_filters(sandbox):
    return [r.json()["filters"] for r in sandbox.requests() if r.path == "/meta-search"]


async def test_250_dois_in_input_order_with_misses_in_the_fewest_requests(make, sandbox, corpus):
    rng = random.Random(15)
    known = rng.sample([r for r in corpus if r.doi], 230)
    ids = [spelled(r.doi, i) for i, r in enumerate(known)]
    missing = [f"10.{9000 + i}/not.in.corpus.{i}" for i in range(20)]
    expected = [*known, *([None] * 20)]
    order = list(range(250))
    rng.shuffle(order)
    ids, expected = [(ids + missing)[i] for i in order], [expected[i] for i in order]

    result = await lookup(make(), ids, by="doi")

    assert [r and r.unique_id for r in result.records] == [r and r.unique_id for r in expected]
    assert result.ids == ids and len(result) == 250
    assert result.not_found == [i for i in ids if i in missing]
    assert result.found == {i: r for i, r in zip(ids, result.records, strict=True) if r is not None}
    assert len(result.found) == 230
    # 250 distinct DOIs: two pages of 200, the minimum the page size allows.
    assert len(sandbox.requests()) == math.ceil(250 / PAGE_SIZE_MAX) == 2
    for request in sandbox.requests():
        body = request.json()
        assert body["page_size"] == PAGE_SIZE_MAX
        [condition] = body["filters"]
        assert condition["field"] == "doi" and condition["operator"] == "FILTER_OP_IN"
    asked = {normalize_doi(v) for f in sent_filters(sandbox) for v in f[0]["value"]}
    assert asked == {normalize_doi(i) for i in ids}


@pytest.mark.parametrize(("distinct", "requests"), [(200, 1), (400, 2), (401, 3)])
async def test_requests_are_the_distinct_ids_over_the_page_size(make, sandbox, corpus, distinct, requests):
    ids = [r.unique_id for r in corpus[:distinct]]
    result = await lookup(make(), ids + ids[:50], by="unique_id")
    assert len(sandbox.requests()) == requests
    assert result.request_ids == [r.headers["x-request-id"] for r in sandbox.requests()]
    assert [r.unique_id for r in result.records] == ids + ids[:50]
    assert sum(len(f[0]["value"]) for f in sent_filters(sandbox)) == distinct


async def test_duplicates_and_spellings_of_one_doi_are_asked_for_once(make, sandbox, corpus):
    doi = next(r.doi for r in corpus if r.doi)
    spellings = [spelled(doi, n) for n in range(5)] + [doi]
    result = await lookup(make(), spellings)
    assert len(sandbox.requests()) == 1
    [[condition]] = sent_filters(sandbox)
    # The normalised DOI, plus the upper-case spelling for a case-sensitive service.
    assert condition["value"] == [doi, doi.upper()]
    assert all(r is result.records[0] for r in result.records) and result.records[0].doi == doi
    assert list(result.found) == list(dict.fromkeys(spellings)) and result.not_found == []


@pytest.mark.parametrize("by", ["unique_id", "doc_id", "isbn13"])
async def test_other_identifier_fields(make, sandbox, corpus, by):
    values = [getattr(r, by) for r in corpus if getattr(r, by)][:30]
    if by == "isbn13":  # as printed in books
        values = [f"{v[:3]}-{v[3]}-{v[4:8]}-{v[8:12]}-{v[12]}" for v in values]
    ids = [*values, "W1" if by == "unique_id" else "0" * 64 if by == "doc_id" else "9780000000002"]
    result = await lookup(make(), ids, by=by)
    assert len(sandbox.requests()) == 1
    assert [normalize_id(getattr(r, by), by) for r in result.records[:-1]] == [normalize_id(v, by) for v in values]
    assert result.records[-1] is None and result.not_found == [ids[-1]]


async def test_the_by_field_is_added_to_a_projection(make, sandbox, corpus):
    doi = next(r.doi for r in corpus if r.doi)
    result = await lookup(make(), [doi], fields=["title"])
    assert sandbox.requests()[0].json()["fields"] == ["title", "doi"]
    assert result.records[0].doi == doi and result.records[0].title
    assert result.records[0].publication_venue_type is None  # only what was asked for


async def test_an_empty_list_sends_nothing(make, sandbox):
    result = await lookup(make(), [])
    assert result.records == [] and result.found == {} and result.not_found == []
    assert sandbox.requests() == []


@pytest.mark.parametrize(
    ("ids", "by", "param", "rule"),
    [
        (["10.1000/a", "   "], "doi", "ids[1]", "must not be empty"),
        (["10.1000/a", "10.2000/b", "not a doi"], "doi", "ids[2]", "must be a DOI"),
        (["https://doi.org/"], "doi", "ids[0]", "must not be empty"),
        (["10.1000/a", None], "doi", "ids[1]", "must be a string"),
        (["W1", ""], "unique_id", "ids[1]", "must not be empty"),
        (["978-3-16-148410-0", "12345"], "isbn13", "ids[1]", "must be an ISBN-13"),
        (["W1"], "title", "by", "must be one of doi, unique_id, doc_id, isbn13"),
    ],
)
async def test_bad_input_is_refused_before_any_request(make, sandbox, ids, by, param, rule):
    with pytest.raises(paperlens.ValidationError) as caught:
        await lookup(make(), ids, by=by)
    assert caught.value.param == param and caught.value.rule.startswith(rule)
    assert str(caught.value).startswith(f"{param}: {rule}")
    assert sandbox.requests() == []


async def test_a_projection_must_be_a_list(make, sandbox):
    with pytest.raises(paperlens.ValidationError, match="fields: must be a list of field names"):
        await lookup(make(), ["10.1000/a"], fields="title")
    assert sandbox.requests() == []


async def test_a_second_lookup_is_answered_from_the_cache(make, sandbox, corpus, tmp_path):
    client = make(cache_dir=tmp_path)
    ids = [r.doi for r in corpus if r.doi][:250]
    first = await lookup(client, ids)
    assert len(sandbox.requests()) == 2
    again = await lookup(client, ids)
    assert len(sandbox.requests()) == 2
    assert [r.to_dict() for r in again.records] == [r.to_dict() for r in first.records]


async def test_progress_bar_counts_the_ids(make, corpus, capsys):
    ids = [r.unique_id for r in corpus[:450]]
    await lookup(make(), ids, by="unique_id", progress=True)
    assert "450/450" in capsys.readouterr().err


def test_paced_lookup_stays_within_the_quota():
    with Sandbox(papers=600) as twin:  # the same corpus, unlimited, to pick the ids from
        client = paperlens.Client(api_token=twin.token, base_url=twin.base_url, rate_limits=None)
        ids = [r.unique_id for r in client.iter_meta_search(None, fields=["unique_id"], limit=400)]
    with Sandbox(papers=600, rate_limits={"meta-search": 3}) as sandbox:
        client = paperlens.Client(
            api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 3}, max_retries=0
        )
        # 600 ids of which 200 unknown: 3 chunks, the whole quota, every one answered 200
        # (max_retries=0: a 429 would have raised).
        result = client.lookup([*ids, *(f"W{n}" for n in range(200))], by="unique_id")
        assert [r.unique_id for r in result.records[:400]] == ids and len(result.not_found) == 200
        assert len(sandbox.requests()) == 3


async def test_paced_lookup_waits_out_a_429_and_completes():
    with Sandbox(papers=600) as twin:
        client = paperlens.Client(api_token=twin.token, base_url=twin.base_url, rate_limits=None)
        ids = [r.unique_id for r in client.iter_meta_search(None, fields=["unique_id"], limit=500)]
    with Sandbox(papers=600, rate_limits={"meta-search": 30}) as sandbox:
        sandbox.inject_fault("/meta-search", status=429, times=1, retry_after=1)
        client = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url)
        result = await asyncio.wait_for(client.lookup(ids, by="unique_id"), 30)
        assert [r.unique_id for r in result.records] == ids
        assert len(sandbox.requests()) == 3 + 1  # three chunks, the first refused once


def test_an_id_matching_more_records_than_a_page_follows_the_cursor(make_client, httpserver: HTTPServer):
    first = {**metadata_record(1), "doi": "https://doi.org/10.1234/PLENS.1"}
    second = {**metadata_record(2), "doi": "10.1234/plens.2"}
    duplicate = {**metadata_record(3), "doi": "10.1234/plens.1"}
    page = {"page": 1, "page_size": 200, "total_pages": 2, "search_time_ms": 1.0, "facets": []}
    httpserver.expect_ordered_request("/meta-search", method="POST").respond_with_json(
        {**page, "results": [first], "total_count": 3, "next_cursor": "c2"}
    )
    httpserver.expect_ordered_request("/meta-search", method="POST").respond_with_json(
        {**page, "results": [duplicate, second], "total_count": 3, "next_cursor": ""}
    )
    result = make_client().lookup(["10.1234/plens.2", "10.1234/plens.1"])
    assert [r.unique_id for r in result.records] == [second["unique_id"], first["unique_id"]]
    assert len(httpserver.log) == 2
    assert json.loads(httpserver.log[1][0].get_data())["cursor"] == "c2"


def test_repr_and_frame(sandbox, corpus):
    pytest.importorskip("pandas")
    client = sandbox_client(sandbox)
    ids = [corpus[5].unique_id, "W0", corpus[9].unique_id]
    result = client.lookup(ids, by="unique_id")
    assert repr(result) == "Lookup(by='unique_id', ids=3, found=2, not_found=1)"
    frame = result.to_pandas()
    assert list(frame["input_id"]) == [ids[0], ids[2]] and list(frame["unique_id"]) == [ids[0], ids[2]]
    assert list(result) == result.records
