"""Identifiers as agents pass them, and the quota in view, through the official client (in
memory) on a sandbox: ``get_papers`` without ``by`` finds DOIs (bare, ``doi:``, doi.org links,
any case), unique ids, doc ids and ISBN-13s mixed in one call, one request per kind, and a miss
says which kind was assumed and what to try; ``search_metadata(count_only=True)`` answers the
total and the facets of the operation, one request and no records; an answer that waited on
the pacing says how long."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client as MCPClient
from test_mcp import data_of, text_of

import paperlens
import paperlens.mcp
from paperlens.agents._plans import id_kind
from paperlens.sandbox import Sandbox

SANDBOX = {"papers": 300}


@pytest.fixture(scope="module")
def direct(sandbox: Sandbox) -> Iterator[paperlens.Client]:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        yield client


@asynccontextmanager
async def session_on(sandbox: Sandbox, **options: Any) -> AsyncIterator[Any]:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, **options) as client:
        async with MCPClient(paperlens.mcp.server(client, max_chars=20000)) as session:
            yield session


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        ("10.5063/pl.2017.94", "doi"),
        (" doi:10.5063/PL.2017.94", "doi"),
        ("https://doi.org/10.5063/pl.2017.94", "doi"),
        ("http://dx.doi.org/10.5063%2Fpl.2017.94", "doi"),
        ("978-2-96657-805-2", "isbn13"),
        ("ISBN 9782966578052", "isbn13"),
        ("7be4c077d9c62cc3e3f2c645d9e09994c21a8b2e8caa2711f7587e1a4292838e", "doc_id"),
        ("W4000000282", "unique_id"),
        ("1234567890123", "unique_id"),
        ("doi-less title words", "unique_id"),
    ],
)
def test_the_kind_of_an_id_is_told_from_its_shape(given: str, kind: str) -> None:
    assert id_kind(given) == kind


async def test_get_papers_finds_mixed_kinds_without_by(sandbox: Sandbox, direct: paperlens.Client) -> None:
    papers = direct.meta_search(sort=[("citation_count", "desc")], page_size=8).results
    books = direct.meta_search(filters=[("type", "==", "book")], page_size=2).results
    with_doi = [r for r in papers if r.doi][:3]
    given = [
        with_doi[0].doi,
        f"doi:{with_doi[1].doi.upper()}",
        f"https://doi.org/{with_doi[2].doi}",
        papers[3].unique_id,
        papers[4].doc_id.upper(),
        "-".join((books[0].isbn13[:3], books[0].isbn13[3:])),
        "W0",
        "10.9999/no-such-paper",
    ]
    expected = [*with_doi, papers[3], papers[4], books[0]]
    sandbox.clear_requests()
    async with session_on(sandbox) as session:
        result = await session.call_tool("get_papers", {"ids": given})
    rows = data_of(result)
    assert [row["id"] for row in rows] == given
    assert [row["by"] for row in rows] == ["doi", "doi", "doi", "unique_id", "doc_id", "isbn13", "unique_id", "doi"]
    assert [row["record"]["unique_id"] for row in rows[:6]] == [r.unique_id for r in expected]
    assert [row["record"]["title"] for row in rows[:6]] == [r.title for r in expected]
    assert len(sandbox.requests()) == 4  # one per kind
    assert "6 of 8 found" in text_of(result).splitlines()[0]
    for row, kind in zip(rows[6:], ("unique_id", "doi"), strict=True):
        assert "record" not in row
        assert f"no record has this {kind} (assumed from its shape)" in row["not_found"]
        assert "call again with by set to one of" in row["not_found"]


async def test_a_miss_with_by_says_so_and_a_bad_id_names_its_position(sandbox: Sandbox) -> None:
    async with session_on(sandbox) as session:
        missed = data_of(await session.call_tool("get_papers", {"ids": ["W4000000282"], "by": "doc_id"}))
        bad = await session.call_tool("get_papers", {"ids": ["W1", "W2", "10.1/x", "x"], "by": "doi"})
    assert "no record has this doc_id (as by says)" in missed[0]["not_found"]
    assert bad.is_error and "'ids[0]'" in text_of(bad) and "Nothing was sent" in text_of(bad)


async def test_count_only_answers_the_total_and_facets_in_one_request(
    sandbox: Sandbox, direct: paperlens.Client
) -> None:
    filters = [("publication_published_year", ">=", 2010)]
    expected = direct.meta_search("memory", filters=filters, facets=["publication_published_year", "type"])
    sandbox.clear_requests()
    async with session_on(sandbox) as session:
        result = await session.call_tool(
            "search_metadata",
            {
                "query": "memory",
                "filters": [list(f) for f in filters],
                "facets": ["publication_published_year", "type"],
                "count_only": True,
            },
        )
    counted = data_of(result)
    assert counted == {"total_count": expected.total_count, "facets": [f.to_dict() for f in expected.facets]}
    assert f"{expected.total_count} records match" in text_of(result).splitlines()[0]
    [request] = sandbox.requests()
    assert request.path == "/meta-search"


async def test_an_answer_that_waited_on_the_pacing_says_how_long(sandbox: Sandbox) -> None:
    async with session_on(sandbox) as session:
        prompt = await session.call_tool("search_metadata", {"query": "coral"})
        sandbox.inject_fault("/meta-search", 429, retry_after=1)
        waited = await session.call_tool("search_metadata", {"query": "sleep"})
    assert "waited" not in text_of(prompt).splitlines()[1]
    note = text_of(waited).splitlines()[1]
    found = re.fullmatch(r"This call waited (\d+\.\d) s (on the quota pacing|before retries).*", note)
    assert found is not None, note
    assert float(found.group(1)) >= 0.5
    assert data_of(waited)
