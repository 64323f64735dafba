"""Paginators, whole-text reading and downloads against hand-made paging servers."""

from __future__ import annotations

import asyncio
import gc
import json
import time
import warnings

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens import types as t

from fixtures import metadata_record

TOTAL = 23


def cursor_pages(request: Request) -> Response:
    """23 records, 5 per page; the cursor is the offset as text (opaque to the client)."""
    body = json.loads(request.get_data())
    size = body.get("page_size", 25)
    start = int(body["cursor"][3:]) if body.get("cursor") else (body.get("page", 1) - 1) * size
    end = min(start + size, TOTAL)
    page = {
        "results": [metadata_record(i) for i in range(start, end)],
        "total_count": str(TOTAL),
        "page": 1,
        "page_size": size,
        "total_pages": -(-TOTAL // size),
        "search_time_ms": 1.0,
        "next_cursor": f"at:{end}" if end < TOTAL else "",
        "facets": [],
    }
    return Response(json.dumps(page), content_type="application/json")


def test_iter_meta_search_follows_cursors_to_the_end(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    records = list(client.iter_meta_search("q", page_size=5))
    assert [r.unique_id for r in records] == [metadata_record(i)["unique_id"] for i in range(TOTAL)]
    sent = [json.loads(request.get_data()) for request, _ in httpserver.log]
    assert [s.get("cursor") for s in sent] == [None, "at:5", "at:10", "at:15", "at:20"]
    assert all("page" not in s for s in sent[1:])


def test_limit_pages_and_resume(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    first = client.iter_meta_search("q", page_size=5, limit=10)
    assert len(list(first)) == 10
    assert len(httpserver.log) == 2  # no page fetched beyond the limit
    assert first.next_cursor == "at:10"
    rest = client.iter_meta_search("q", page_size=5, cursor=first.next_cursor)
    assert [r.unique_id for r in rest] == [metadata_record(i)["unique_id"] for i in range(10, TOTAL)]
    assert rest.next_cursor is None
    pages = list(client.iter_meta_search("q", page_size=10).pages())
    assert [len(p.results) for p in pages] == [10, 10, 3]
    assert pages[0].total_count == TOTAL


async def test_async_iteration(aclient, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    ids = [r.unique_id async for r in aclient.iter_meta_search("q", page_size=7)]
    assert len(ids) == len(set(ids)) == TOTAL
    assert len(await aclient.iter_meta_search("q", page_size=7, limit=8).to_list()) == 8


def boosted_pages(request: Request) -> Response:
    body = json.loads(request.get_data())
    assert "cursor" not in body
    size, page = body["page_size"], body.get("page", 1)
    results = [metadata_record(i) for i in range((page - 1) * size, page * size)]
    answer = {"results": results, "total_count": 10000, "page": page, "page_size": size, "total_pages": 50}
    return Response(json.dumps({**answer, "next_cursor": "", "facets": [], "search_time_ms": 1}))


def test_boosted_search_pages_by_number_up_to_the_cap_and_says_why_it_stops(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(boosted_pages)
    it = client.iter_meta_search("q", page_size=200, freshness_boost="MILD")
    with pytest.warns(paperlens.PageCapWarning, match="freshness_boost=MILD.*cursor"):
        records = list(it)
    assert len(records) == 10_000
    assert [json.loads(r.get_data())["page"] for r, _ in httpserver.log[1:4]] == [2, 3, 4]
    assert len(httpserver.log) == 50


def test_boost_with_sort_uses_cursors(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = list(client.iter_meta_search("q", page_size=10, sort="citation_count", impact_boost="STRONG"))
    assert len(records) == TOTAL


def relation_pages(request: Request) -> Response:
    body = json.loads(request.get_data())
    page, size = body.get("page", 1), body["page_size"]
    items = [
        {"id": f"W{i}", "id_type": "openalex", "title": f"T{i}"} for i in range((page - 1) * size, min(page * size, 7))
    ]
    answer = {"items": items, "total_count": 7, "page": page, "page_size": size, "total_pages": -(-7 // size)}
    return Response(json.dumps({**answer, "code": "SUCCESS", "message": "", "biz_code": 0}))


def test_iter_paper_relations_until_total_pages(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-paper-relations").respond_with_handler(relation_pages)
    assert [item.id for item in client.iter_paper_relations("W1", "CITATIONS", page_size=3)] == [
        f"W{i}" for i in range(7)
    ]
    assert len(httpserver.log) == 3


# A text with CJK, emoji (astral plane: two UTF-16 units, four UTF-8 bytes) and combining marks.
TEXT = ("# 标题 Title 😀\n\nDeep learning für Protein-Faltung: 蛋白质结构 🧬🧪. é=e\u0301. " * 40).strip()


def content_pages(request: Request) -> Response:
    args = request.args
    if "offset" not in args:
        page = TEXT
        next_offset, more = len(TEXT), False
    else:
        offset, limit = int(args["offset"]), int(args.get("limit", 700))
        page = TEXT[offset : offset + limit]
        next_offset, more = offset + len(page), offset + len(page) < len(TEXT)
    body = {
        "text": page,
        "bytes_returned": len(page.encode()),
        "text_length": len(TEXT),
        "next_offset": next_offset,
        "more": more,
    }
    return Response(json.dumps(body, ensure_ascii=False), content_type="application/json")


def test_read_text_reassembles_code_points_exactly(client, httpserver: HTTPServer):
    httpserver.expect_request("/content").respond_with_handler(content_pages)
    assert client.read_text("doc") == TEXT
    pages = list(client.iter_content("doc", limit=97))
    assert "".join(p.text for p in pages) == TEXT
    assert len(pages) == -(-len(TEXT) // 97)
    assert all(p.bytes_returned == len(p.text.encode()) for p in pages)
    offsets = [int(r.args["offset"]) for r, _ in httpserver.log[-len(pages) :]]
    assert offsets == list(range(0, len(TEXT), 97))


async def test_async_read_text(aclient, httpserver: HTTPServer):
    httpserver.expect_request("/content").respond_with_handler(content_pages)
    assert await aclient.read_text("doc") == TEXT
    assert "".join([p.text async for p in aclient.iter_content("doc", offset=10, limit=50)]) == TEXT[10:]


def test_read_text_detects_a_short_reassembly(client, httpserver: HTTPServer):
    body = {"text": "abc", "bytes_returned": 3, "text_length": 5, "next_offset": 3, "more": False}
    httpserver.expect_request("/content").respond_with_json(body)
    with pytest.raises(paperlens.ResponseDecodeError, match="text_length=5"):
        client.read_text("doc")


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400


def test_download_resource_writes_atomically(client, httpserver: HTTPServer, tmp_path):
    httpserver.expect_request("/resource").respond_with_data(
        PNG, content_type="image/png", headers={"Content-Disposition": 'attachment; filename="fig1.png"'}
    )
    path = client.download_resource("figures/p1/fig1.png", tmp_path)
    assert path == tmp_path / "fig1.png" and path.read_bytes() == PNG
    named = client.download_resource("figures/p1/fig1.png", tmp_path / "renamed.png")
    assert named.read_bytes() == PNG
    into_new_folder = client.download_resource("figures/p1/fig1.png", f"{tmp_path}/figures/")
    assert into_new_folder == tmp_path / "figures" / "fig1.png" and into_new_folder.read_bytes() == PNG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig1.png", "figures", "renamed.png"]


async def test_failed_download_leaves_nothing_behind(make_client, aclient, httpserver: HTTPServer, tmp_path):
    def broken(_request):
        def body():
            yield PNG[:5000]
            raise ConnectionResetError

        return Response(body(), content_type="image/png", headers={"Content-Length": str(len(PNG))})

    httpserver.expect_request("/resource").respond_with_handler(broken)
    with pytest.raises(paperlens.APIConnectionError):
        make_client(max_retries=1).download_resource("f.png", tmp_path / "f.png")
    with pytest.raises(paperlens.APIConnectionError):
        await aclient.with_options(max_retries=0).download_resource("f.png", tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert len(httpserver.log) == 3


def test_download_error_status_leaves_nothing_behind(client, httpserver: HTTPServer, tmp_path):
    httpserver.expect_request("/resource").respond_with_json(
        {"code": "FORBIDDEN", "message": "no", "request_id": "r"}, status=403
    )
    with pytest.raises(paperlens.PermissionDeniedError):
        client.download_resource("f.png", tmp_path / "f.png")
    assert list(tmp_path.iterdir()) == []


def wait_for_requests(httpserver: HTTPServer, count: int) -> None:
    deadline = time.monotonic() + 10
    while len(httpserver.log) < count and time.monotonic() < deadline:
        time.sleep(0.01)


def test_to_list_asks_for_the_next_page_while_it_reads_this_one(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    batches = client.iter_meta_search("q", page_size=5)._batches()
    first = next(batches)
    wait_for_requests(httpserver, 2)
    assert len(first) == 5 and len(httpserver.log) == 2  # the second page was asked for already
    assert sum(map(len, batches)) == TOTAL - 5
    assert len(httpserver.log) == 5  # and nothing after the last page


@pytest.mark.parametrize("limit, requests", [(10, 2), (11, 3), (None, 5)])
def test_asking_ahead_never_passes_the_limit(client, httpserver: HTTPServer, limit: int | None, requests: int):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    items = client.iter_meta_search("q", page_size=5, limit=limit).to_list()
    assert len(items) == min(limit or TOTAL, TOTAL)
    assert len(httpserver.log) == requests
    frame = client.iter_meta_search("q", page_size=5, limit=limit).to_pandas()
    assert len(frame) == len(items) and len(httpserver.log) == 2 * requests


def test_a_for_loop_never_asks_ahead(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    for _ in client.iter_meta_search("q", page_size=5):
        break
    time.sleep(0.2)
    assert len(httpserver.log) == 1


def test_a_page_asked_for_ahead_that_fails_raises_and_resumes_there(client, httpserver: HTTPServer):
    def failing_second_page(request: Request) -> Response:
        if json.loads(request.get_data()).get("cursor") == "at:5":
            return Response(json.dumps({"code": "INVALID_ARGUMENT", "message": "bad cursor"}), status=400)
        return cursor_pages(request)

    httpserver.expect_request("/meta-search").respond_with_handler(failing_second_page)
    it = client.iter_meta_search("q", page_size=5)
    with pytest.raises(paperlens.BadRequestError, match="bad cursor"):
        it.to_list()
    assert it.next_cursor == "at:5" and len(httpserver.log) == 2


def test_an_answer_started_ahead_is_taken_once_and_a_cancelled_one_never(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    pending = client._core.start("meta_search", {"query": "q", "page_size": 5})
    body, request_id = pending.wait()
    assert len(body["results"]) == 5 and request_id
    with pytest.raises(RuntimeError, match="already taken or cancelled"):
        pending.wait()
    cancelled = client._core.start("meta_search", {"query": "q"})
    cancelled.cancel()
    with pytest.raises(RuntimeError, match="already taken or cancelled"):
        cancelled.wait()
    with pytest.raises(paperlens.ValidationError, match="page_size"):
        client._core.start("meta_search", {"query": "q", "page_size": 0})


def uneven_pages(request: Request) -> Response:
    """``cursor_pages`` with pages that differ: no ``doi`` on the second page, a number as the
    ``language`` of one record on the third, an extra property on the fourth."""
    response = cursor_pages(request)
    page = json.loads(response.get_data())
    start = int(json.loads(request.get_data()).get("cursor", "at:0")[3:] or 0)
    for record in page["results"]:
        if start == 5:
            del record["doi"]
        if start == 10 and record is page["results"][0]:
            record["language"] = 5
        if start == 15:
            record["zz_extra"] = {"k": [1, "ü"]}
    return Response(json.dumps(page), content_type="application/json")


def test_a_frame_made_page_by_page_equals_the_frame_of_all_the_items(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(uneven_pages)
    paged = client.iter_meta_search("q", page_size=5).to_pandas()
    items = client.iter_meta_search("q", page_size=5).to_list()
    whole = paperlens.to_pandas(items)
    eager = paperlens.to_pandas([t.MetadataRecord._from_wire(item.to_dict(), "r") for item in items])
    for expected in (whole, eager):
        assert paged.equals(expected) and list(paged.columns) == list(expected.columns)
    assert paged["doi"].isna().tolist() == [5 <= i < 10 for i in range(TOTAL)]
    assert paged["language"].tolist()[10] == 5 and paged["zz_extra"].notna().sum() == 5
    polars, paged_polars = paperlens.to_polars(items), client.iter_meta_search("q", page_size=5).to_polars()
    assert polars.columns == paged_polars.columns
    assert all(polars[name].to_list() == paged_polars[name].to_list() for name in polars.columns)


def test_to_pandas_gives_the_records_back_to_the_collector_and_leaves_a_freeze_alone(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    assert gc.get_freeze_count() == 0
    assert len(client.iter_meta_search("q", page_size=5).to_pandas()) == TOTAL
    assert gc.get_freeze_count() == 0
    gc.freeze()  # the program's own (as a server does before it forks)
    try:
        frozen = gc.get_freeze_count()
        assert len(client.iter_meta_search("q", page_size=5).to_pandas()) == TOTAL
        assert 0 < gc.get_freeze_count() <= frozen  # neither thawed nor added to (some died since)
    finally:
        gc.unfreeze()


async def test_async_to_list_asks_ahead_too_and_never_past_the_limit(aclient, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    batches = aclient.iter_meta_search("q", page_size=5)._batches()
    first = await anext(batches)
    deadline = time.monotonic() + 10
    while len(httpserver.log) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert len(first) == 5 and len(httpserver.log) == 2
    assert sum([len(batch) async for batch in batches]) == TOTAL - 5 and len(httpserver.log) == 5
    for limit, requests in ((10, 2), (11, 3)):
        httpserver.clear_log()
        assert len(await aclient.iter_meta_search("q", page_size=5, limit=limit).to_list()) == limit
        assert len(httpserver.log) == requests


async def test_async_to_pandas_equals_the_sync_frame(client, aclient, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(uneven_pages)
    frame = await aclient.iter_meta_search("q", page_size=5).to_pandas()
    assert frame.equals(client.iter_meta_search("q", page_size=5).to_pandas()) and len(frame) == TOTAL
    assert gc.get_freeze_count() == 0


async def test_a_limit_of_zero_sends_nothing(client, aclient, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_handler(cursor_pages)
    assert list(client.iter_meta_search("q", limit=0)) == client.iter_meta_search("q", limit=0).to_list() == []
    assert len(client.iter_meta_search("q", limit=0).to_pandas()) == 0
    assert await aclient.iter_meta_search("q", limit=0).to_list() == []
    assert [r async for r in aclient.iter_meta_search("q", limit=0)] == []
    assert len(httpserver.log) == 0
