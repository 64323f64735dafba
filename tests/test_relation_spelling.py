"""``relation`` of ``paper_relations`` in any case (``"citations"``, as ``snowball`` spells its
direction): what reaches the service is the contract's upper case, and an unknown relation
is still refused before anything is sent."""

from __future__ import annotations

import pytest

import paperlens

SANDBOX = dict(papers=200)


@pytest.fixture
def cited(sandbox) -> str:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        return client.meta_search("", sort=["citation_count"], page_size=1).results[0].unique_id


def sent_relations(sandbox) -> list[str]:
    return [r.json()["relation"] for r in sandbox.requests() if r.path == "/meta-paper-relations"]


@pytest.mark.parametrize("spelling", ["citations", "Citations", "CITATIONS"])
async def test_each_spelling_sends_the_contracts_name_sync_and_async(sandbox, cited, spelling):
    sandbox.clear_requests()
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        page = client.paper_relations(cited, spelling, page_size=5)
        every = client.iter_paper_relations(cited, spelling, page_size=100, limit=150).to_list()
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url) as aclient:
        apage = await aclient.paper_relations(cited, spelling, page_size=5)
    assert page.items and page.items == apage.items and every[:5] == page.items
    assert set(sent_relations(sandbox)) == {"CITATIONS"}


def test_related_works_in_lower_case_and_an_unknown_relation_refused_before_sending(sandbox, cited):
    sandbox.clear_requests()
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        client.paper_relations(cited, "related_works", page_size=2)
        assert sent_relations(sandbox) == ["RELATED_WORKS"]
        with pytest.raises(paperlens.ValidationError, match="relation") as refused:
            client.paper_relations(cited, "cited_by")
    assert refused.value.param == "relation"
    assert sent_relations(sandbox) == ["RELATED_WORKS"]
