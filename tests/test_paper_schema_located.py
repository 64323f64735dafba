"""Structured-paper results a researcher can cite without a second look (issue 31), against
the sandbox: the located paragraph is picked by its typed neighbour position; a capped window
keeps the requested paragraphs (what does not fit is in ``missing``, and the SDK warns about
a locator that comes back in neither); in-paper search tells hits from neighbours and names
the stop words it ignored; the restricted token meets the contract's 403."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client

SANDBOX = {"papers": 300, "seed": 5}


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[paperlens.Client]:
    with sandbox_client(sandbox) as c:
        yield c


@pytest.fixture(scope="module")
def sid(sandbox: Sandbox) -> str:
    """An English structured paper with evidence and at least 20 paragraphs."""
    with sandbox_client(sandbox) as c:
        for card in c.schema.iter_search("learning model", size=50, limit=200):
            if not (card.title or "").isascii():
                continue
            deep = c.schema.resolve_provenance(paragraph_ids=[f"{card.schema_id}:p19"])
            evidence = c.schema.search_evidence(["core_claim_result"], schema_ids=[card.schema_id])
            if deep.segments and evidence.items:
                return str(card.schema_id)
    raise AssertionError("the sandbox has no structured paper of 20 paragraphs with evidence")


def _alone(client: paperlens.Client, sid: str, marker: int) -> Any:
    """The paragraph of ``marker`` fetched on its own (no window)."""
    (segment,) = client.schema.resolve_provenance(schema_id=sid, marker_nums=[marker]).segments
    return segment


def test_the_readme_example_picks_the_paragraph_of_marker_13(client: paperlens.Client, sid: str) -> None:
    located = client.schema.resolve_provenance(schema_id=sid, marker_nums=[13], window=1)
    paragraph = _alone(client, sid, 13)
    by_id = client.schema.resolve_provenance(paragraph_ids=[paragraph.paragraph_id]).segments[0]
    assert [(s.marker, s.relative_position, s.is_hit) for s in located.segments] == [
        (12, -1, False),
        (13, 0, True),
        (14, 1, False),
    ]
    assert [s.text for s in located.hits] == [paragraph.text] == [by_id.text]
    assert located.segments[0].text != paragraph.text


def test_evidence_traces_to_the_paragraph_it_came_from(client: paperlens.Client, sid: str) -> None:
    evidence = client.schema.search_evidence(["core_claim_result"], schema_ids=[sid])
    where = evidence.items[0].provenance[0]
    located = client.schema.resolve_provenance(schema_id=sid, marker_nums=[where.marker], window=1)
    fetched = client.schema.resolve_provenance(paragraph_ids=[where.paragraph_id]).segments[0]
    assert [(s.paragraph_id, s.text) for s in located.hits] == [(where.paragraph_id, fetched.text)]
    assert evidence.items[0].value_text in located.hits[0].text


def test_a_capped_window_keeps_the_requested_paragraphs(client: paperlens.Client, sid: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capped = client.schema.resolve_provenance(schema_id=sid, marker_nums=[2, 13], window=2, max_segments=5)
        tight = client.schema.resolve_provenance(schema_id=sid, marker_nums=[2, 13], window=1, max_segments=1)
        hydrated = client.schema.hydrate_items(
            [{"schema_id": sid, "marker_nums": [13]}], window=1, max_segments_per_item=1
        )
    # The caps cut neighbours (a truncation warning each time), never a requested paragraph unsaid.
    told = [str(w.message) for w in caught if issubclass(w.category, paperlens.PartialResultWarning)]
    assert told and all(" is truncated " in message for message in told), told
    assert not any("neither in segments nor in missing" in message for message in told), told
    assert [(s.marker, s.relative_position) for s in capped.segments] == [(1, -1), (2, 0), (3, 1), (12, -1), (13, 0)]
    assert [s.text for s in capped.hits] == [_alone(client, sid, 2).text, _alone(client, sid, 13).text]
    assert capped.missing == [] and capped.truncated is True
    assert [s.text for s in tight.segments] == [_alone(client, sid, 2).text] and tight.missing == [13]
    assert any("max_segments=1" in w for w in tight.warnings)
    (item,) = hydrated.items
    assert (
        [(s.marker, s.text) for s in item.hits]
        == [(13, _alone(client, sid, 13).text)]
        == [(s.marker, s.text) for s in item.segments]
    )


def test_search_hits_are_told_from_neighbours_by_position(client: paperlens.Client, sid: str) -> None:
    dataset = client.schema.entities(sid, entity_subtypes=["Dataset"]).items[0]
    alone = client.schema.search_in_paper(sid, dataset.name, top_k=20, window=0)
    windowed = client.schema.search_in_paper(sid, dataset.name, top_k=20, window=1)
    # Every hit of the window-less search is a hit here too, with the same score, even when
    # it sits beside another hit; the neighbours carry their own relevance, 0.0 or more.
    assert [(s.paragraph_id, s.score) for s in windowed.hits] == [(s.paragraph_id, s.score) for s in alone.hits]
    assert [s.paragraph_id for s in alone.hits] == [s.paragraph_id for s in alone.segments]
    assert all(s.score is not None and s.score > 0 for s in windowed.hits)
    neighbours = [s for s in windowed.segments if not s.is_hit]
    assert neighbours and all(s.score is not None and s.relative_position in (-1, 1) for s in neighbours)


def test_a_query_of_stop_words_says_which_words_were_ignored(client: paperlens.Client, sid: str) -> None:
    found = client.schema.search_in_paper(sid, "the")
    assert found.segments == []
    assert any("stop word" in w and "(the)" in w for w in found.warnings), found.warnings
    mixed = client.schema.search_in_paper(sid, "the of zzzqqq")
    assert any("stop words ignored: the, of" in w for w in mixed.warnings), mixed.warnings
    failed = client.schema.hydrate_items([{"schema_id": sid, "hydration_query": "of the"}]).failed
    assert [item.reason for item in failed] == [
        "every word of the query is a stop word and was ignored (of, the), so nothing can match: use content words"
    ]


def test_the_restricted_token_gets_a_403_for_the_impact_field(sandbox: Sandbox) -> None:
    with paperlens.Client(api_token=sandbox.restricted_token, base_url=sandbox.base_url, rate_limits=None) as c:
        with pytest.raises(paperlens.PermissionDeniedError) as denied:
            c.schema.search("learning", sort=[{"field": "metrics.fwci", "order": "desc"}], size=2)
        page = c.schema.search("learning", sort=[{"field": "year"}], size=2)
    assert denied.value.status == 403 and denied.value.code == "FORBIDDEN"
    assert "no permission for the field 'metrics.fwci'" in str(denied.value)
    assert page.items and all("fwci" not in (card.extra["metrics"] or {}) for card in page.items)


# -- the SDK's side: hand-made answers --------------------------------------------------------


@pytest.fixture
def served(make_client: Any) -> Iterator[paperlens.Client]:
    """A client of the hand-made answers of ``httpserver``."""
    with make_client() as c:
        yield c


def _segment(marker: Any, position: Any, **extra: Any) -> dict[str, Any]:
    """A segment as the service sends it; ``position`` ``...`` leaves the neighbour position out."""
    segment = {"paragraph_id": f"s1:p{marker}", "text": f"paragraph {marker}", "marker": marker, **extra}
    if position is not ...:
        segment["relative_position"] = position
    return segment


@pytest.mark.parametrize(
    ("sent", "typed"),
    [(0, 0), ("-1", -1), ("2", 2), (None, None), (..., None)],
    ids=["int", "negative-digit-string", "digit-string", "null", "absent"],
)
def test_neighbour_positions_decode_liberally(
    httpserver: HTTPServer, served: paperlens.Client, sent: Any, typed: int | None
) -> None:
    answer = {"segments": [_segment(7, sent, hit=True)], "missing": [], "trace": {"mode": "marker"}}
    httpserver.expect_request("/paper-schema/resolve-provenance", method="POST").respond_with_json(answer)
    (segment,) = served.schema.resolve_provenance(schema_id="s1", marker_nums=[7]).segments
    assert segment.relative_position == typed and segment.is_hit is (typed == 0)
    assert segment.extra == {"hit": True}


def test_a_requested_locator_in_neither_segments_nor_missing_warns(
    httpserver: HTTPServer, served: paperlens.Client
) -> None:
    answer = {"segments": [_segment("13", 0)], "missing": ["99"], "trace": {"mode": "marker"}}
    httpserver.expect_request("/paper-schema/resolve-provenance", method="POST").respond_with_json(answer)
    with pytest.warns(paperlens.PartialResultWarning, match=r"neither in segments nor in missing: \[2\]") as told:
        located = served.schema.resolve_provenance(schema_id="s1", marker_nums=[2, 13, 99])
    assert told[0].filename == __file__
    assert [s.text for s in located.hits] == ["paragraph 13"]
    hydrated = {
        "items": [
            {"hydration_method": "marker", "segments": [_segment(4, 0)], "reason": None},
            {"hydration_method": "none", "segments": [], "reason": "no such paper", "missing": []},
        ]
    }
    httpserver.expect_request("/paper-schema/hydrate-items", method="POST").respond_with_json(hydrated)
    items = [{"schema_id": "s1", "marker_nums": [4, 5]}, {"schema_id": "s9", "paragraph_ids": ["s9:p1"]}]
    with pytest.warns(paperlens.PartialResultWarning) as told:
        served.schema.hydrate_items(items)
    assert str(told[0].message).endswith("items[0]: [5]; items[1]: ['s9:p1'] (no such paper)")


def test_every_requested_locator_accounted_for_does_not_warn(httpserver: HTTPServer, served: paperlens.Client) -> None:
    answer = {"segments": [_segment(13, 0), _segment(14, 1)], "missing": [99], "trace": {"mode": "marker"}}
    httpserver.expect_request("/paper-schema/resolve-provenance", method="POST").respond_with_json(answer)
    with warnings.catch_warnings():
        warnings.simplefilter("error", paperlens.PartialResultWarning)
        located = served.schema.resolve_provenance(schema_id="s1", marker_nums=[13, 14, 99])
    assert [s.marker for s in located.hits] == [13]
