"""An answer that is not the whole set warns, one ``PartialResultWarning`` for every kind
(``partial``, ``truncated``, ``relations_truncated``, a materials count ``truncated``); a
pacing wait longer than a few seconds is logged at WARNING, a short one at INFO. Against the
sandbox."""

from __future__ import annotations

import asyncio
import logging
import re
import warnings

import pytest

import paperlens
from paperlens.sandbox import Sandbox

from fixtures import module_client  # noqa: F401 (the client fixture)

SANDBOX = dict(papers=2000, seed=0)


@pytest.fixture(scope="module")
def sid(client: paperlens.Client) -> str:
    """A paper whose two-level outbound graph holds more than 10 papers."""
    cards = client.schema.search("model", size=50).items
    return next(c.schema_id for c in cards if len(client.schema.citation_graph(c.schema_id, depth=2).nodes) > 10)


def not_whole(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, paperlens.PartialResultWarning)]


def test_a_graph_cut_by_its_node_cap_warns_and_keeps_what_arrived(client, sid):
    with pytest.warns(paperlens.PartialResultWarning, match=r"^CitationGraph is truncated \(request_id=") as caught:
        graph = client.schema.citation_graph(sid, depth=2, max_nodes=10)
    assert graph.truncated is True and len(graph.nodes) == 10
    assert caught[0].filename == __file__
    whole = client.schema.citation_graph(sid, depth=2, max_nodes=500)
    assert {n.schema_id for n in graph.nodes} <= {n.schema_id for n in whole.nodes}


def test_a_whole_graph_does_not_warn(client, sid):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = client.schema.citation_graph(sid, depth=1, max_nodes=500, max_edges=500)
    assert graph.truncated is False and graph.nodes
    assert not_whole(caught) == []


async def test_a_truncated_graph_warns_async(sandbox, sid):
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as aclient:
        with pytest.warns(paperlens.PartialResultWarning, match="CitationGraph is truncated") as caught:
            graph = await aclient.schema.citation_graph(sid, depth=2, max_nodes=10)
    assert graph.truncated is True and caught[0].filename == __file__


def test_an_entity_with_more_relations_than_asked_for_warns(client, sid):
    entities = client.schema.entities(sid, size=100).items
    counts = {}
    for entity in entities:
        counts[entity.entity_id] = len(client.schema.entity(sid, entity.entity_id, include_relations=True).relations)
        if counts[entity.entity_id] >= 2:
            break
    busy = max(counts, key=lambda e: counts[e])
    with pytest.warns(paperlens.PartialResultWarning, match=r"relations_truncated=true\)"):
        detail = client.schema.entity(sid, busy, include_relations=True, relation_limit=1)
    assert detail.relations_truncated is True and len(detail.relations) == 1
    assert detail.entity.entity_id == busy


def test_materials_cut_by_a_per_paper_limit_warn_naming_the_lists(client, sid):
    with pytest.warns(paperlens.PartialResultWarning, match=r"counts\.entities\.truncated=true") as caught:
        bundle = client.schema.materials([sid], per_schema_entity_limit=1)
    assert "entities" in bundle.items[0].truncated_resources and len(bundle.items[0].entities) == 1
    assert len(not_whole(caught)) == 1


def test_partial_and_truncated_together_warn_once(sandbox, client, sid):
    sandbox.inject_fault(f"/paper-schema/schemas/{sid}/citation-graph", kind="partial")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client.schema.citation_graph(sid, depth=2, max_nodes=10)
    [message] = not_whole(caught)
    assert message.startswith("CitationGraph is partial and truncated (request_id=")


# -- pacing waits ------------------------------------------------------------------------------


def pacing_records(caplog: pytest.LogCaptureFixture) -> list[tuple[int, float]]:
    """The level and the wait (seconds) of each pacing record."""
    found = ((r.levelno, re.search(r"pacing: waiting ([\d.]+) s", r.getMessage())) for r in caplog.records)
    return [(level, float(match.group(1))) for level, match in found if match]


async def test_a_long_pacing_wait_is_a_warning(caplog):
    with Sandbox(papers=50, rate_limits={"meta-search": 2}) as sandbox:
        client = paperlens.AsyncClient(
            api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 2}, max_retries=0
        )
        for n in range(2):
            await client.meta_search(f"q{n}", page_size=1)
        with caplog.at_level(logging.INFO, logger="paperlens"), pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.meta_search("held back"), 1.0)
        await asyncio.sleep(0.1)
    [(level, wait)] = pacing_records(caplog)
    assert level == logging.WARNING and wait > 5


def test_a_short_pacing_wait_stays_info(caplog):
    with Sandbox(papers=50) as sandbox:
        sandbox.inject_fault("/meta-search", status=429, times=1, retry_after=1)
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 30})
        with caplog.at_level(logging.INFO, logger="paperlens"):
            client.meta_search("q", page_size=1)
    waits = pacing_records(caplog)
    assert waits and all(level == logging.INFO and wait <= 5 for level, wait in waits)
