"""A string holding a lone surrogate escape (``"\\ud83d"`` without its low half: scraped
metadata has them) decodes with U+FFFD in place of each unpaired escape, on every path that
decodes an answer; the rest of the string, its record and its page are intact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens import types as t

from fixtures import metadata_record
from json_oracle import lone_surrogates_replaced

PAGE_SIZE = 200
PAGES = 3
# Each as Python's json module decodes the escape (ensure_ascii writes it back as one).
ODD_STRINGS = [
    "before \ud83d after",  # a lone high surrogate
    "\udc00 a lone low one",
    "\ud83d\u00e9 a high one followed by another escape",
    "\ud83d\ud83d\ude00 a lone high one, then a pair",
    "a pair alone: \U0001f9ec",
    "ends in a lone high one \udbff",
]


def record(i: int) -> dict[str, Any]:
    """An ordinary record; every seventh one with odd strings in a field, a nested field and
    the name of an extra property."""
    row = metadata_record(i)
    if i % 7 == 3:
        odd = ODD_STRINGS[i // 7 % len(ODD_STRINGS)]
        row["title"] = odd
        row["author"][2]["name"] = odd[::-1]
        row["doi"] = f"10.1/{odd}"
        row[f"extra {odd}"] = [odd, {odd: 1}]
    return row


def page_text(number: int) -> bytes:
    start = (number - 1) * PAGE_SIZE
    page = {
        "results": [record(i) for i in range(start, start + PAGE_SIZE)],
        "total_count": PAGE_SIZE * PAGES,
        "page": number,
        "page_size": PAGE_SIZE,
        "total_pages": PAGES,
        "search_time_ms": 1.0,
        "next_cursor": f"p{number + 1}" if number < PAGES else "",
        "facets": [{"field": "title", "buckets": [{"key": "\udc01", "doc_count": 1}]}],
    }
    text = json.dumps(page).encode()  # ensure_ascii: every odd string as escapes
    assert b"\\ud83d" in text and b"\\udc00" in text
    return text


def serve_pages(request: Request) -> Response:
    cursor = json.loads(request.get_data()).get("cursor")
    return Response(page_text(int(cursor[1:]) if cursor else 1), content_type="application/json")


def expected_records(number: int) -> list[dict[str, Any]]:
    """Each record of page `number` as `json.loads` decodes the page's text, lone surrogates replaced."""
    return lone_surrogates_replaced(json.loads(page_text(number))["results"])


def test_a_page_with_lone_surrogates_decodes_every_record(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(serve_pages)
    page = client.meta_search("q", page_size=PAGE_SIZE)
    expected = expected_records(1)
    assert [row.title for row in page.results] == [row["title"] for row in expected]  # read lazily
    assert [row.to_dict() for row in page.results] == expected
    assert page.results[3].title == "before \ufffd after" and page.results[10].title == "\ufffd a lone low one"
    assert page.results[17].title == "\ufffd\u00e9 a high one followed by another escape"
    assert page.results[24].title == "\ufffd\U0001f600 a lone high one, then a pair"
    assert page.results[31].title == "a pair alone: \U0001f9ec"
    assert page.facets[0].buckets[0].key == "\ufffd"
    fresh = client.meta_search("q", page_size=PAGE_SIZE)  # to_dict() of rows never read
    assert fresh.to_dict()["results"] == expected


def test_iterating_pages_with_lone_surrogates_loses_no_record(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(serve_pages)
    records = client.iter_meta_search("q", page_size=PAGE_SIZE).to_list()
    expected = [row for number in range(1, PAGES + 1) for row in expected_records(number)]
    assert [row.to_dict() for row in records] == expected


def test_the_frame_of_a_page_with_lone_surrogates_holds_every_value(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(serve_pages)
    frame = client.meta_search("q", page_size=PAGE_SIZE).to_pandas()
    eager = [t.MetadataRecord._from_wire(row, "req") for row in expected_records(1)]
    assert frame.equals(paperlens.to_pandas(eager)) and len(frame) == PAGE_SIZE
    assert frame["doi"].tolist()[3] == "10.1/before \ufffd after"
    assert frame["extra \ufffd a lone low one"].tolist()[10] == ["\ufffd a lone low one", {"\ufffd a lone low one": 1}]
    polars = client.meta_search("q", page_size=PAGE_SIZE).to_polars()
    assert polars["doi"].to_list() == frame["doi"].tolist() and polars["title"].to_list() == frame["title"].tolist()


def test_a_cached_page_with_lone_surrogates_decodes_alike(make_client, httpserver: HTTPServer, tmp_path: Path):
    httpserver.expect_request("/meta-search").respond_with_handler(serve_pages)
    client = make_client(cache_dir=tmp_path)
    first, second = (client.meta_search("q", page_size=PAGE_SIZE).to_dict() for _ in range(2))
    assert len(httpserver.log) == 1  # the second from the cache
    assert first == second and first["results"] == expected_records(1)


def test_a_paper_schema_answer_with_lone_surrogates_decodes_whole(client, httpserver: HTTPServer):
    items = [
        {"relation": "cites", "target_schema": {"schema_id": f"s{i}", "title": ODD_STRINGS[i % len(ODD_STRINGS)]}}
        for i in range(50)
    ]
    text = json.dumps({"total": 50, "items": items, "next_cursor": None}).encode()
    httpserver.expect_request("/paper-schema/schemas/s1/citations").respond_with_data(
        text, content_type="application/json"
    )
    page = client.schema.citations("s1")
    assert page.to_dict() == lone_surrogates_replaced(json.loads(text))
    assert page.items[0].target_schema.title == "before \ufffd after"


def test_an_error_message_with_a_lone_surrogate_is_kept(client, httpserver: HTTPServer):
    body = {"code": "INVALID_ARGUMENT", "message": "bad query \ud83d", "request_id": "srv-1"}
    httpserver.expect_request("/meta-search").respond_with_data(
        json.dumps(body), status=400, content_type="application/json"
    )
    with pytest.raises(paperlens.APIError, match="bad query \ufffd") as caught:
        client.meta_search("q")
    assert caught.value.code == "INVALID_ARGUMENT"
