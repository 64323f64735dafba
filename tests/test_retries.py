"""Retries, waits and failures exactly as the contract and API.md describe them."""

from __future__ import annotations

import logging
import pickle
import re
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

import paperlens

from conftest import error_body
from fixtures import meta_search_page


def request_ids(httpserver: HTTPServer) -> list[str]:
    return [request.headers["X-Request-ID"] for request, _ in httpserver.log]


def fail(status: int, code: str = "UPSTREAM_UNAVAILABLE", **extra) -> Response:
    import json

    return Response(json.dumps(error_body(code, **extra)), status=status, content_type="application/json")


def test_503_503_200_succeeds_in_three_attempts_with_one_request_id(client, httpserver: HTTPServer, caplog):
    for answer in [fail(503), fail(503)]:
        httpserver.expect_ordered_request("/meta-search").respond_with_response(answer)
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(2))
    with caplog.at_level(logging.WARNING, logger="paperlens"):
        page = client.meta_search("q")
    assert len(page.results) == 2
    ids = request_ids(httpserver)
    assert len(ids) == 3 and len(set(ids)) == 1
    retries = [r for r in caplog.records if r.name == "paperlens" and r.levelno == logging.WARNING]
    assert len(retries) == 2
    assert "retry 1 of 3 in" in retries[0].getMessage()
    assert "503" in retries[0].getMessage() and ids[0] in retries[0].getMessage()


async def test_async_retries_share_the_request_id(aclient, httpserver: HTTPServer):
    httpserver.expect_ordered_request("/meta-search").respond_with_response(fail(502))
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(1))
    assert len((await aclient.meta_search("q")).results) == 1
    assert len(set(request_ids(httpserver))) == 1 and len(httpserver.log) == 2


def test_retries_stop_at_max_retries(make_client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_response(fail(504, "TIMEOUT"))
    with pytest.raises(paperlens.GatewayTimeoutError):
        make_client(max_retries=2).meta_search("q")
    assert len(httpserver.log) == 3


def test_429_honours_retry_after_seconds(client, httpserver: HTTPServer):
    limited = fail(429, "RATE_LIMITED")
    limited.headers["Retry-After"] = "1"
    httpserver.expect_ordered_request("/meta-search").respond_with_response(limited)
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(1))
    started = time.monotonic()
    client.meta_search("q")
    assert time.monotonic() - started >= 1.0
    assert len(httpserver.log) == 2


def test_429_honours_details_retry_after(client, httpserver: HTTPServer):
    httpserver.expect_ordered_request("/agentic-search").respond_with_response(
        fail(429, "RATE_LIMITED", details={"retry_after": 0.3})
    )
    httpserver.expect_ordered_request("/agentic-search").respond_with_json({"hits": []})
    started = time.monotonic()
    client.agentic_search("q")
    assert time.monotonic() - started >= 0.3


def test_429_with_an_http_date(client, httpserver: HTTPServer):
    from email.utils import formatdate

    limited = fail(429, "RATE_LIMITED")
    limited.headers["Retry-After"] = formatdate(time.time() + 2, usegmt=True)
    httpserver.expect_ordered_request("/meta-search").respond_with_response(limited)
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(1))
    started = time.monotonic()
    client.meta_search("q")
    assert time.monotonic() - started >= 0.9  # the date has one-second resolution


def test_a_wait_longer_than_the_limit_raises_at_once(make_client, httpserver: HTTPServer):
    limited = fail(429, "RATE_LIMITED", details={"retry_after": 86_400})
    limited.headers["Retry-After"] = "86400"
    httpserver.expect_request("/meta-search").respond_with_response(limited)
    started = time.monotonic()
    with pytest.raises(paperlens.RateLimitError) as caught:
        make_client(max_rate_limit_wait=60).meta_search("q")
    assert time.monotonic() - started < 1.0
    assert caught.value.retry_after == 86_400
    assert "daily quota" in str(caught.value)
    assert len(httpserver.log) == 1


def test_a_wait_beyond_the_limit_is_a_quota_exhausted_error_saying_until_when(make_client, httpserver: HTTPServer):
    limited = fail(429, "RATE_LIMITED", details={"retry_after": 7200})
    httpserver.expect_request("/meta-search").respond_with_response(limited)
    client = make_client(max_rate_limit_wait=2)
    before = datetime.now(timezone.utc)
    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        client.meta_search("q")
    after = datetime.now(timezone.utc)
    error = caught.value
    assert isinstance(error, paperlens.RateLimitError) and error.status == 429 and error.code == "RATE_LIMITED"
    assert error.retry_after == 7200
    assert error.retry_at.tzinfo is timezone.utc
    slack = timedelta(milliseconds=1)  # the core's clock reading, rounded to a microsecond
    assert before - slack <= error.retry_at - timedelta(seconds=7200) <= after + slack
    message = str(error)
    assert "7200 s" in message and "max_rate_limit_wait=2 s" in message
    assert f"until {format_datetime(error.retry_at.replace(microsecond=0), usegmt=True)}" in message
    assert len(httpserver.log) == 1


def test_a_wait_too_long_for_any_clock_is_exhausted_until_the_last_date(make_client, httpserver: HTTPServer):
    limited = fail(429, "RATE_LIMITED")
    limited.headers["Retry-After"] = "1e30"
    httpserver.expect_request("/meta-search").respond_with_response(limited)
    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        make_client().meta_search("q")
    assert caught.value.retry_at == datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
    assert caught.value.retry_after >= 2**64 - 1  # the longest wait there is


def test_a_quota_exhausted_error_pickles_with_its_attributes(make_client, httpserver: HTTPServer):
    limited = fail(429, "RATE_LIMITED", details={"retry_after": 600, "quota": "daily"})
    httpserver.expect_request("/meta-search").respond_with_response(limited)
    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        make_client(max_rate_limit_wait=1).meta_search("q")
    error = caught.value
    error.__notes__ = ["a note"]  # as add_note leaves it (Python 3.11+)
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is paperlens.QuotaExhaustedError and str(restored) == str(error)
    for name in ("status", "code", "message", "request_id", "details", "retry_after", "retry_at", "__notes__"):
        assert getattr(restored, name) == getattr(error, name), name


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_sent_once(client, httpserver: HTTPServer, status):
    httpserver.expect_request("/meta-paper-relations").respond_with_response(fail(status, "X"))
    with pytest.raises(paperlens.APIError):
        client.paper_relations("W1", "CITATIONS")
    assert len(httpserver.log) == 1


def test_timeout_raises_api_timeout_error(make_client, httpserver: HTTPServer):
    import threading

    answered = threading.Event()

    def slow(_request):
        time.sleep(1.0)
        answered.set()
        return Response("{}", content_type="application/json")

    httpserver.expect_request("/meta-catalog").respond_with_handler(slow)
    client = make_client(timeout=0.2, max_retries=0)
    with pytest.raises(paperlens.APITimeoutError) as caught:
        client.meta_catalog()
    assert not answered.is_set()  # it gave up before the answer came, not after it
    assert "timeout of 0.2 s" in str(caught.value)
    assert caught.value.request_id
    answered.wait(5)  # let the server finish before the next test reuses it


def test_connection_refused_is_retried_then_raised(caplog):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = paperlens.Client(api_token="t", base_url=f"http://127.0.0.1:{port}", retry_backoff=0.01, max_retries=2)
    with caplog.at_level(logging.WARNING, logger="paperlens"), pytest.raises(paperlens.APIConnectionError) as caught:
        client.meta_catalog()
    assert not isinstance(caught.value, paperlens.APITimeoutError)
    assert "could not connect" in str(caught.value)
    assert len([r for r in caplog.records if "retry" in r.getMessage()]) == 2


def test_connection_dropped_mid_body_is_retried(client, httpserver: HTTPServer):
    def broken(_request):
        def body():
            yield b'{"results": ['
            raise ConnectionResetError("dropped")

        # A declared length that the body never reaches: the connection dies mid-body.
        return Response(body(), content_type="application/json", headers={"Content-Length": "5000"})

    httpserver.expect_ordered_request("/meta-search").respond_with_handler(broken)
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(3))
    assert len(client.meta_search("q").results) == 3
    assert len(httpserver.log) == 2


def test_non_json_error_body_keeps_class_status_and_excerpt(make_client, httpserver: HTTPServer):
    html = "<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"
    httpserver.expect_request("/meta-search").respond_with_data(html, status=502, content_type="text/html")
    with pytest.raises(paperlens.ServerError) as caught:
        make_client(max_retries=0).meta_search("q")
    error = caught.value
    assert error.status == 502 and error.code is None
    assert "502 Bad Gateway" in error.message
    assert error.request_id  # ours, since the body has none


def test_malformed_200_body_raises_a_clear_error(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_data('{"results": [', content_type="application/json")
    with pytest.raises(paperlens.ResponseDecodeError) as caught:
        client.meta_search("q")
    assert "not valid JSON" in str(caught.value)
    assert caught.value.status == 200


def test_200_body_of_the_wrong_shape_raises_a_clear_error(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json({"results": {"not": "a list"}})
    with pytest.raises(paperlens.ResponseDecodeError, match="results must be a list"):
        client.meta_search("q")
    httpserver.clear()
    httpserver.expect_request("/meta-search").respond_with_json(["not", "an", "object"])
    with pytest.raises(paperlens.ResponseDecodeError, match="expected a JSON object"):
        client.meta_search("q")


def test_unknown_fields_are_kept_in_extra(client, httpserver: HTTPServer):
    body = meta_search_page(1)
    body["results"][0]["brand_new_field"] = {"nested": [1, 2]}
    body["facets"][0]["coverage"] = 0.5
    httpserver.expect_request("/meta-search").respond_with_json(body)
    page = client.meta_search("q")
    assert page.results[0].extra == {"brand_new_field": {"nested": [1, 2]}}
    assert page.facets[0].extra == {"coverage": 0.5}


def test_string_counts_become_ints(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(1, total="10000"))
    page = client.meta_search("q")
    assert page.total_count == 10000 and isinstance(page.total_count, int)
    assert all(isinstance(b.doc_count, int) for f in page.facets for b in f.buckets)


async def test_pacing_holds_requests_within_the_quota(httpserver: HTTPServer, caplog):
    import asyncio

    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(1))
    client = paperlens.AsyncClient(api_token="t", base_url=httpserver.url_for(""), rate_limits={"meta-search": 2})
    # A client derived with with_options shares the pacer; a third request within the
    # minute is held back (and cancelling it drops it before it is ever sent).
    derived = client.with_options(timeout=5)
    with caplog.at_level(logging.INFO, logger="paperlens"):
        await client.meta_search("a")
        await derived.meta_search("b")
        assert not [r for r in caplog.records if "pacing" in r.getMessage()]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(derived.meta_search("c"), 1.0)
    await asyncio.sleep(0.2)
    assert len(httpserver.log) == 2
    assert any("pacing: waiting" in r.getMessage() and "meta-search" in r.getMessage() for r in caplog.records)


def hung(httpserver: HTTPServer, path: str) -> threading.Event:
    """``path`` never answers until the returned event is set (at the end of the test)."""
    release = threading.Event()

    def hang(_request):
        release.wait(30)
        return Response("{}", status=503)

    httpserver.expect_request(path).respond_with_handler(hang)
    return release


def test_a_timeout_is_per_attempt_and_the_message_gives_attempts_and_total(make_client, httpserver: HTTPServer):
    release = hung(httpserver, "/meta-catalog")
    try:
        with pytest.raises(paperlens.APITimeoutError) as caught:
            make_client(timeout=0.2, max_retries=2).meta_catalog()
    finally:
        release.set()
    message = str(caught.value)
    assert "within the timeout of 0.2 s per attempt; 3 attempts in " in message
    assert re.search(r"3 attempts in \d+\.\d s in all", message)


@pytest.mark.parametrize("options", ["constructor", "with_options"])
def test_a_deadline_bounds_the_whole_call(make_client, httpserver: HTTPServer, options):
    release = hung(httpserver, "/meta-catalog")
    client = make_client(deadline=0.5) if options == "constructor" else make_client().with_options(deadline=0.5)
    try:
        with pytest.raises(paperlens.APITimeoutError) as caught:
            client.meta_catalog()
    finally:
        release.set()
    assert "within the deadline of 0.5 s for the whole call (1 attempts in " in str(caught.value)
    assert caught.value.request_id


def test_a_deadline_shorter_than_the_backoff_ends_the_call_at_the_retry(make_client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-paper-relations").respond_with_response(fail(503, "UNAVAILABLE"))
    with pytest.raises(paperlens.APITimeoutError) as caught:
        make_client(deadline=5.0, retry_backoff=60.0).paper_relations("W1", "CITATIONS")
    assert [request.path for request, _ in httpserver.log].count("/meta-paper-relations") == 1
    assert "within the deadline of 5.0 s for the whole call (1 attempts in " in str(caught.value)
    assert "the last attempt: " in str(caught.value) and "503" in str(caught.value)


def test_a_bad_deadline_is_refused():
    with pytest.raises(paperlens.ConfigurationError, match="deadline"):
        paperlens.Client(api_token="t", base_url="http://127.0.0.1:1", deadline=-1.0)


def test_with_options_deadline_inf_removes_the_client_s_deadline(make_client, httpserver: HTTPServer):
    def slow(_request):
        time.sleep(0.6)
        return Response('{"fields": [], "default_fields": ["title"]}', content_type="application/json")

    httpserver.expect_request("/meta-catalog").respond_with_handler(slow)
    bounded = make_client(deadline=0.3)
    with pytest.raises(paperlens.APITimeoutError, match=r"deadline of 0\.3 s"):
        bounded.meta_catalog()
    unbounded = bounded.with_options(deadline=float("inf"))
    assert unbounded.meta_catalog().default_fields == ["title"]
    assert pickle.loads(pickle.dumps(unbounded)).meta_catalog().default_fields == ["title"]
    with pytest.raises(paperlens.APITimeoutError, match=r"deadline of 0\.3 s"):
        bounded.with_options(timeout=5.0).meta_catalog()
    with pytest.raises(paperlens.ConfigurationError, match="deadline"):
        bounded.with_options(deadline=float("nan"))
