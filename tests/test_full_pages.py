"""Paginators ask for the largest page the contract allows: under a quota of 30 requests a
minute, every page is worth as many records as it can carry."""

from __future__ import annotations

import json
import math

import pytest

import paperlens
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client

SANDBOX = dict(papers=1200)


@pytest.fixture
def client(sandbox: Sandbox) -> paperlens.Client:
    return sandbox_client(sandbox)


def _bodies(sandbox: Sandbox, path: str, since: int) -> list[dict]:
    return [json.loads(r.body) for r in sandbox.requests()[since:] if r.path == path]


@pytest.mark.parametrize("query", ["model", None])
def test_meta_search_pages_are_as_large_as_the_contract_allows(sandbox: Sandbox, client: paperlens.Client, query):
    total = client.meta_search(query).total_count
    assert total is not None
    since = len(sandbox.requests())

    records = client.iter_meta_search(query, limit=1000).to_list()

    bodies = _bodies(sandbox, "/meta-search", since)
    assert len(records) == min(total, 1000)
    assert len(bodies) == math.ceil(len(records) / 200)
    assert all(body["page_size"] == 200 for body in bodies)


@pytest.mark.parametrize(("limit", "size"), [(7, 7), (200, 200), (450, 200)])
def test_a_smaller_limit_asks_for_no_more_than_it_needs(sandbox, client, limit, size):
    since = len(sandbox.requests())
    assert len(client.iter_meta_search(limit=limit).to_list()) == limit
    bodies = _bodies(sandbox, "/meta-search", since)
    assert [body["page_size"] for body in bodies] == [size] * math.ceil(limit / size)


def test_a_given_size_or_page_is_kept(sandbox: Sandbox, client: paperlens.Client):
    since = len(sandbox.requests())
    client.iter_meta_search(page_size=30, limit=60).to_list()
    client.iter_meta_search("model", page=3, freshness_boost="MILD", limit=5).to_list()
    bodies = _bodies(sandbox, "/meta-search", since)
    assert [b.get("page_size") for b in bodies] == [30, 30, None]
    assert bodies[2]["page"] == 3


def test_relations_pages_are_full(sandbox: Sandbox, client: paperlens.Client):
    paper = client.meta_search(sort=[("citation_count", "desc")], page_size=1).results[0]
    since = len(sandbox.requests())
    items = client.iter_paper_relations(paper.unique_id, "CITATIONS").to_list()
    bodies = _bodies(sandbox, "/meta-paper-relations", since)
    assert items and all(body["page_size"] == 200 for body in bodies)
    assert len(bodies) == math.ceil(len(items) / 200)


async def test_paper_schema_cursor_pages_are_full(sandbox: Sandbox):
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as client:
        since = len(sandbox.requests())
        found = await client.schema.iter_search(filters={"published_year_gte": 1800}, limit=150).to_list()
        sizes = [json.loads(r.body)["size"] for r in sandbox.requests()[since:] if r.path == "/paper-schema/search"]
    assert len(found) == 150 and sizes == [100, 100]
