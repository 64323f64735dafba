"""Finite paging: a service that answers a cursor already followed, or an offset that does not
advance, ends the walk with a PagingLoopError within a request of the first repeat, and no item
reaches an output twice (paginators sync and async, harvest, harvest_corpus, read_text, lookup)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens.corpus import harvest_corpus
from paperlens.harvest import harvest

from fixtures import metadata_record

#: The cursors of a looping service: the first page leads to A, A to B, B back to A.
CYCLE = {None: "A", "A": "B", "B": "A"}
#: The records each page holds (three distinct ones per page).
RECORDS = {cursor: [metadata_record(3 * n + i) for i in range(3)] for n, cursor in enumerate(CYCLE)}
DELIVERED = [r["unique_id"] for cursor in CYCLE for r in RECORDS[cursor]]


def looping_search(request: Request) -> Response:
    cursor = json.loads(request.get_data()).get("cursor")
    page = {
        "results": RECORDS[cursor],
        "total_count": 1000,
        "page": 1,
        "page_size": 3,
        "total_pages": 300,
        "next_cursor": CYCLE[cursor],
    }
    return Response(json.dumps(page), content_type="application/json", headers={"X-Request-ID": f"rid-{cursor}"})


def searches(httpserver: HTTPServer) -> list[Any]:
    return [json.loads(r.get_data()).get("cursor") for r, _ in httpserver.log if r.path == "/meta-search"]


@pytest.fixture
def looping(httpserver: HTTPServer) -> HTTPServer:
    httpserver.expect_request("/meta-search").respond_with_handler(looping_search)
    return httpserver


def test_a_cursor_cycle_ends_the_search_paginator_at_its_first_repeat(client, looping):
    seen: list[str] = []
    with pytest.raises(paperlens.PagingLoopError) as caught:
        for record in client.iter_meta_search("q"):
            seen.append(record.unique_id)
    assert seen == DELIVERED
    assert searches(looping) == [None, "A", "B"]  # the repeated A is never asked for
    error = caught.value
    assert isinstance(error, paperlens.ResponseDecodeError) and error.request_id == "rid-B"
    assert "next_cursor='A'" in str(error) and "already followed" in str(error) and "rid-B" in str(error)


def test_to_list_which_asks_ahead_stops_as_soon(client, looping):
    paginator = client.iter_meta_search("q")
    with pytest.raises(paperlens.PagingLoopError):
        paginator.to_list()
    assert searches(looping) == [None, "A", "B"]
    assert paginator.next_cursor is None  # nothing left to resume: resuming would repeat pages


def test_a_cursor_answered_again_at_once_is_refused(client, httpserver: HTTPServer):
    page = {"results": [metadata_record(1)], "total_count": 9, "next_cursor": "same"}
    httpserver.expect_request("/meta-search").respond_with_json(page)
    with pytest.raises(paperlens.PagingLoopError, match="next_cursor='same'"):
        client.iter_meta_search("q", cursor="same").to_list()
    assert len(httpserver.log) == 1


async def test_the_async_paginator_stops_too(aclient, looping):
    seen = []
    with pytest.raises(paperlens.PagingLoopError):
        async for record in aclient.iter_meta_search("q"):
            seen.append(record.unique_id)
    assert seen == DELIVERED
    with pytest.raises(paperlens.PagingLoopError):
        await aclient.iter_meta_search("q").to_list()
    assert searches(looping) == [None, "A", "B"] * 2


def test_harvest_writes_each_delivered_record_once_and_says_why_it_stopped(client, looping, tmp_path):
    out = tmp_path / "records.jsonl"
    with pytest.raises(paperlens.PagingLoopError, match="already followed"):
        harvest(client, "q", out=out, format="jsonl", chunk_size=3, page_size=3)
    written = [json.loads(line)["unique_id"] for line in out.read_text("utf-8").splitlines()]
    assert written == DELIVERED
    assert searches(looping) == [None, "A", "B"]


def test_harvest_corpus_writes_each_delivered_record_once(client, looping, tmp_path):
    out = tmp_path / "corpus"
    with pytest.raises(paperlens.PagingLoopError, match="next_cursor='A'"):
        harvest_corpus(client, out, query="q", texts=False)
    frame = pd.read_parquet(out / "records")
    assert list(frame.unique_id) == DELIVERED
    assert list(frame.title) == [r["title"] for cursor in CYCLE for r in RECORDS[cursor]]
    assert searches(looping) == [None, "A", "B"]


def test_a_schema_search_two_cycle_is_refused(client, httpserver: HTTPServer):
    card = {"schema_id": "s", "title": "t", "year": 2020}
    pages = {None: ("X", "s1"), "X": ("Y", "s2"), "Y": ("X", "s3")}

    def answer(request: Request) -> Response:
        following, schema_id = pages[json.loads(request.get_data()).get("cursor")]
        body = {"items": [{**card, "schema_id": schema_id}], "next_cursor": following}
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request("/paper-schema/search").respond_with_handler(answer)
    seen = []
    with pytest.raises(paperlens.PagingLoopError, match="next_cursor='X'"):
        for card_ in client.schema.iter_search("diffusion"):
            seen.append(card_.schema_id)
    assert seen == ["s1", "s2", "s3"] and len(httpserver.log) == 3


def content_server(httpserver: HTTPServer, pages: dict[int, tuple[str, Any]]) -> None:
    """``/content`` answering ``pages[offset] = (text, next_offset)``, always with more=true."""

    def answer(request: Request) -> Response:
        offset = int(request.args.get("offset", 0))
        text, following = pages[offset]
        body = {"doc_id": "d", "text": text, "offset": offset, "more": True, "next_offset": following}
        return Response(json.dumps(body), content_type="application/json", headers={"X-Request-ID": f"c{offset}"})

    httpserver.expect_request("/content").respond_with_handler(answer)


def test_an_offset_that_does_not_advance_ends_read_text_and_iter_content(client, httpserver: HTTPServer):
    content_server(httpserver, {0: ("abc", 3), 3: ("def", 3)})
    with pytest.raises(paperlens.PagingLoopError) as caught:
        client.read_text("d")
    assert caught.value.request_id == "c3"
    assert "next_offset=3, which does not advance past offset 3" in str(caught.value)
    assert len(httpserver.log) == 2
    texts = []
    with pytest.raises(paperlens.PagingLoopError):
        for page in client.iter_content("d"):
            texts.append(page.text)
    assert texts == ["abc", "def"] and len(httpserver.log) == 4


def test_an_offset_going_back_or_negative_is_the_services_fault(client, httpserver: HTTPServer):
    content_server(httpserver, {0: ("abc", 3), 3: ("def", 1), 5: ("x", -2)})
    with pytest.raises(paperlens.PagingLoopError, match="next_offset=1, which does not advance past offset 3"):
        client.read_text("d")
    with pytest.raises(paperlens.PagingLoopError, match="next_offset=-2") as caught:
        client.iter_content("d", offset=5).to_list()
    assert not isinstance(caught.value, paperlens.ValidationError)  # never blames the caller


def test_more_without_a_next_offset_is_a_decode_error(client, httpserver: HTTPServer):
    content_server(httpserver, {0: ("abc", None)})
    with pytest.raises(paperlens.ResponseDecodeError, match="more=true without a next_offset"):
        client.read_text("d")
    assert len(httpserver.log) == 1


def test_the_corpus_text_reader_refuses_an_offset_that_does_not_advance(client, httpserver: HTTPServer, tmp_path):
    record = {**metadata_record(1), "doc_id": "d"}
    httpserver.expect_request("/meta-search").respond_with_json({"results": [record], "total_count": 1})
    content_server(httpserver, {0: ("abc", 3), 3: ("def", 3)})
    out = tmp_path / "corpus"
    with pytest.raises(paperlens.PagingLoopError, match="does not advance"):
        harvest_corpus(client, out, query="q")
    assert not (out / "documents").exists() or not any((out / "documents").rglob("*.md"))
    assert [r.path for r, _ in httpserver.log].count("/content") == 2


def test_lookup_refuses_a_cursor_cycle(client, httpserver: HTTPServer):
    dois = [f"10.1234/plens.{i}" for i in range(9)]

    def answer(request: Request) -> Response:
        cursor = json.loads(request.get_data()).get("cursor")
        page = {"results": RECORDS[cursor][:1], "total_count": 9, "next_cursor": CYCLE[cursor]}
        return Response(json.dumps(page), content_type="application/json", headers={"X-Request-ID": f"rid-{cursor}"})

    httpserver.expect_request("/meta-search").respond_with_handler(answer)
    with pytest.raises(paperlens.PagingLoopError, match="next_cursor='A'"):
        client.lookup(dois)
    assert len(httpserver.log) == 3
