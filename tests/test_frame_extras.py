"""Frames keep every value of records that their columns cannot hold (``extra_json``): one
case per loss found, on hand-made pages served by a loopback server, read back by the
documented layout (``frame_records``), from undecoded rows, decoded records and page by page."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens import types as t

from conftest import TOKEN
from frame_records import assert_frame_holds

pd = pytest.importorskip("pandas")

CASES = {
    # named like an attribute of the record type: set aside when a row is decoded
    "attribute name": [{"\x1f": None, "_plan": []}, {"title": "t", "_plan": [1, {"a": None}]}],
    # a flattened object that is empty or holds a null
    "flattened empty or null": [
        {"primary_topic": {}},
        {"citation_normalized_percentile": {"value": None, "is_in_top_1_percent": True}},
        {"cited_by_percentile_year": {"min": 1.5, "max": 2.5}},
    ],
    # names no column can have
    "column names": [{"": 1, "extra_json": "x", "primary_topic.id": "p", "a\x00b": 2, "title": "t"}],
    # polars would give each struct every key, cut NULs, fail on "" with "\x00", turn {} to None
    "nested keys": [
        {"meta": {"a": 1}, "list": [{"a": 1}]},
        {"meta": {"b": {"\x00": 1}}, "list": [{"": 1, "\x00": 2}]},
        {"meta": {}, "list": [[], {}]},
    ],
    # polars would read False as 0.0 in a list of numbers; pandas would read True as 1
    "mixed types": [{"mixed": [4.5, None, False], "flag": True}, {"mixed": [1], "flag": 1}],
    # the service's dates are days; anything else is kept as sent
    "dates": [
        {"publication_published_date": "2020-05-17"},
        {"publication_published_date": "2020-05"},
        {"publication_published_date": "1200-01-01"},
        {"publication_published_date": "2020-05-17T10:00:00Z"},
    ],
    # values a typed column cannot hold unchanged
    "typed columns": [{"citation_count": 2**63, "fwci": 2**60 + 1}, {"citation_count": 3, "fwci": True}],
}


@pytest.fixture
def client(httpserver: HTTPServer) -> paperlens.Client:
    return paperlens.Client(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)


def serve(httpserver: HTTPServer, records: list[dict[str, Any]]) -> None:
    """Two pages: the records, then none."""
    httpserver.clear()

    def answer(request: Request) -> Response:
        first = not (request.get_json() or {}).get("cursor")
        body = {"results": records if first else [], "total_count": len(records), "next_cursor": "c1" if first else ""}
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request("/meta-search", method="POST").respond_with_handler(answer)


@pytest.mark.parametrize("case", CASES)
def test_frames_keep_what_columns_cannot_hold(httpserver: HTTPServer, client: paperlens.Client, case: str) -> None:
    serve(httpserver, CASES[case])
    records = [r.to_dict() for r in client.iter_meta_search(None).to_list()]
    assert records == CASES[case]
    undecoded = client.iter_meta_search(None).to_list()
    decoded = client.iter_meta_search(None).to_list()
    for record in decoded:
        record.__dict__  # noqa: B018  (decodes the row)
    assert_frame_holds(paperlens.to_pandas(undecoded).to_dict("records"), records)
    assert_frame_holds(paperlens.to_pandas(decoded).to_dict("records"), records)
    assert_frame_holds(client.iter_meta_search(None).to_pandas().to_dict("records"), records)
    assert_frame_holds(paperlens.to_polars(undecoded).to_dicts(), records)
    assert_frame_holds(client.iter_meta_search(None).to_polars().to_dicts(), records)


def test_columns_still_show_what_they_can(httpserver: HTTPServer, client: paperlens.Client) -> None:
    serve(httpserver, CASES["flattened empty or null"] + CASES["dates"])
    frame = client.iter_meta_search(None).to_pandas()

    assert frame["citation_normalized_percentile.is_in_top_1_percent"].tolist()[:3] == [pd.NA, True, pd.NA]
    assert frame["cited_by_percentile_year.max"].tolist()[2] == 2.5
    assert frame["publication_published_date"][3] == pd.Timestamp("2020-05-17")
    extras = [None if text is None or text != text else json.loads(text) for text in frame["extra_json"]]
    assert extras[:4] == [
        {"primary_topic": {}},
        {"citation_normalized_percentile": {"value": None, "is_in_top_1_percent": True}},
        None,
        None,
    ]
    assert extras[4:] == [
        {"publication_published_date": "2020-05"},
        {"publication_published_date": "1200-01-01"},
        {"publication_published_date": "2020-05-17T10:00:00Z"},
    ]


def test_typed_nested_objects_keep_nulls_and_odd_names(httpserver: HTTPServer, client: paperlens.Client) -> None:
    card = {"schema_id": "p1", "title": "T", "year": 2020}
    items = [
        {"entity_id": "e1", "schema_id": "s1", "schema_paper": {**card, "venue": None}},
        {"entity_id": "e2", "schema_id": "s1", "schema_paper": {**card, "_plan": [1], "to_dict": 2}},
        {"entity_id": "e3", "schema_id": "s1", "schema_paper": {}},
        {"entity_id": "e4", "schema_id": "s1", "schema_paper": card},
    ]
    body = {"schema_id": "s1", "total": {"value": 4, "relation": "eq"}, "items": items, "next_cursor": None}
    httpserver.expect_request("/paper-schema/schemas/s1/entities").respond_with_json(body)
    page = client.schema.entities("s1")
    # a list field not sent shows its default, []
    records = [{"provenance": [], **item.to_dict()} for item in page.items]

    assert [r["schema_paper"] for r in records] == [item["schema_paper"] for item in items]
    assert_frame_holds(page.to_pandas().to_dict("records"), records, {"schema_paper"})
    assert_frame_holds(page.to_polars().to_dicts(), records, {"schema_paper"})


def test_facet_frames_stay_tidy_and_keep_odd_bucket_properties() -> None:
    plain = t.FacetResult._from_wire({"field": "language", "buckets": [{"key": "en", "doc_count": 3}]})
    odd = t.FacetResult._from_wire({"field": "language", "buckets": [{"key": "en", "doc_count": "4", "": [1]}]})

    assert list(paperlens.to_pandas(plain).columns) == ["field", "key", "doc_count"]
    frame = paperlens.to_pandas([plain, odd])
    assert list(frame.columns) == ["field", "key", "doc_count", "extra_json"]
    assert frame["doc_count"].tolist() == [3, 4]
    assert frame["extra_json"].tolist()[1] == '{"":[1]}' and frame["extra_json"].isna().tolist()[0]
    assert paperlens.to_polars([plain, odd])["extra_json"].to_list() == [None, '{"":[1]}']
