"""Frames of entities and evidence: no ``schema_paper.*`` columns when no paper card was asked
for, and the cards' values in them when one was (also in a frame of rows with and without)."""

from __future__ import annotations

import pytest

import paperlens

from fixtures import module_client  # noqa: F401 (the client fixture)

SANDBOX = dict(papers=2000, seed=0)


@pytest.fixture(scope="module")
def sid(client: paperlens.Client) -> str:
    return client.schema.search("model", size=1).items[0].schema_id


def card_columns(frame) -> list[str]:
    return [name for name in frame.columns if name.startswith("schema_paper")]


def test_entities_without_cards_have_no_card_columns_and_keep_their_values(client, sid):
    page = client.schema.entities(sid, size=100)
    for frame in (page.to_pandas(), paperlens.to_polars(page), client.schema.iter_entities(sid).to_pandas()):
        assert card_columns(frame) == []
        assert list(frame["entity_id"]) == [e.entity_id for e in page.items]
        assert list(frame["name"]) == [e.name for e in page.items]


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_entity_search_with_cards_keeps_them_filled(client, backend):
    page = client.schema.search_entities("model", size=20, hydrate_schema_papers=True)
    frame = page.to_pandas() if backend == "pandas" else paperlens.to_polars(page)
    assert list(frame["schema_paper.title"]) == [e.schema_paper.title for e in page.items]
    assert list(frame["schema_paper.schema_id"]) == list(frame["schema_id"])
    assert card_columns(client.schema.search_entities("model", size=20).to_pandas()) == []


def test_evidence_has_card_columns_only_with_cards(client, sid):
    plain = client.schema.search_evidence(["core_claim_result", "table_evidence"], schema_ids=[sid])
    carded = client.schema.search_evidence(
        ["core_claim_result", "table_evidence"], schema_ids=[sid], hydrate_schema_papers=True
    )
    assert plain.items and card_columns(plain.to_pandas()) == []
    frame = carded.to_pandas()
    assert list(frame["schema_paper.title"]) == [e.schema_paper.title for e in carded.items]
    assert list(frame["value_text"]) == [e.value_text for e in plain.items]


def test_a_frame_of_entities_with_and_without_cards_keeps_every_card(client, sid):
    plain = client.schema.search_entities("model", size=5)
    carded = client.schema.search_entities("model", size=5, hydrate_schema_papers=True)
    frame = paperlens.to_pandas(plain.items + carded.items)
    titles = [None] * len(plain.items) + [e.schema_paper.title for e in carded.items]
    assert [None if isinstance(t, float) else t for t in frame["schema_paper.title"]] == titles
