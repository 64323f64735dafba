"""A hostile service: every read bounded (answers, downloads, error bodies, gzip bombs), the
token never echoed back to the caller, and no argument or answer that makes the client panic."""

from __future__ import annotations

import gzip
import json
import logging
import math
import os
import pickle
import subprocess
import sys
import traceback
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

import paperlens
from paperlens.sandbox import Sandbox

from conftest import TOKEN
from fixtures import meta_search_page
from hostile_server import RawServer, endless_chunks, gzip_bomb, head


def raw_client(server: RawServer, **options: Any) -> paperlens.Client:
    settings: dict[str, Any] = {"api_token": TOKEN, "base_url": server.url, "rate_limits": None, "retry_backoff": 0.01}
    return paperlens.Client(**{**settings, **options})


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_bomb()


def test_an_endless_chunked_answer_stops_at_max_response_bytes():
    def answer(path: str, connection: Any) -> None:
        connection.sendall(head(Content_Type="application/json", Transfer_Encoding="chunked"))
        endless_chunks(connection)

    server = RawServer(answer)
    with pytest.raises(paperlens.ResponseTooLargeError) as caught:
        raw_client(server, max_response_bytes=1 << 20).meta_search("q")
    error = caught.value
    assert (error.bound, error.limit, error.status) == ("max_response_bytes", 1 << 20, 200)
    assert isinstance(error, paperlens.ResponseDecodeError) and error.request_id
    assert "larger than max_response_bytes=1048576 bytes (1 MiB)" in str(error)
    assert "Client(max_response_bytes=...) or client.with_options(max_response_bytes=...)" in str(error)
    assert server.paths == ["/meta-search"]  # not retried: the same answer would come again
    server.close()


def test_an_answer_announced_past_the_bound_is_not_read():
    def answer(path: str, connection: Any) -> None:
        connection.sendall(head(Content_Type="application/json", Content_Length=str(8 << 30)))
        connection.sendall(b"[" * 65536)

    server = RawServer(answer)
    client = raw_client(server).with_options(max_response_bytes=4096)
    with pytest.raises(paperlens.ResponseTooLargeError, match="max_response_bytes=4096 bytes") as caught:
        client.meta_search("q")
    assert caught.value.limit == 4096
    # The same bound on a resource read into memory, and a download's own bound.
    with pytest.raises(paperlens.ResponseTooLargeError, match="max_response_bytes"):
        client.resource("figures/a.png")
    with pytest.raises(paperlens.ResponseTooLargeError, match="max_download_bytes=1073741824 bytes"):
        client.download_resource("figures/a.png", Path(os.devnull).parent / "nowhere" / "a.png")
    server.close()


def test_an_endless_error_body_is_read_to_an_excerpt():
    def answer(path: str, connection: Any) -> None:
        connection.sendall(head("500 Internal Server Error", Content_Type="text/html", Transfer_Encoding="chunked"))
        endless_chunks(connection, b"<html>oops " * 6000)

    server = RawServer(answer)
    with pytest.raises(paperlens.ServerError) as caught:
        raw_client(server, max_retries=0).meta_search("q")
    assert str(caught.value).startswith("500: HTTP 500 with a non-JSON body: <html>oops <html>oops")
    assert len(str(caught.value)) < 400
    server.close()


def test_a_gzip_bomb_stops_at_max_compression_ratio(bomb: bytes):
    def answer(path: str, connection: Any) -> None:
        connection.sendall(head(Content_Type="application/json", Content_Encoding="gzip"))
        connection.sendall(bomb)

    server = RawServer(answer)
    with pytest.raises(paperlens.ResponseTooLargeError) as caught:
        raw_client(server).meta_search("q")
    assert (caught.value.bound, caught.value.limit) == ("max_compression_ratio", 100)
    assert "more than 100 times its compressed size" in str(caught.value)
    assert "Client(max_compression_ratio=...)" in str(caught.value)
    server.close()


def test_a_gzip_bombed_download_leaves_nothing_on_disk(bomb: bytes, tmp_path: Path):
    def answer(path: str, connection: Any) -> None:
        connection.sendall(head(Content_Type="image/png", Content_Encoding="gzip", Content_Length=str(len(bomb))))
        connection.sendall(bomb)

    server = RawServer(answer)
    client = raw_client(server)
    with pytest.raises(paperlens.ResponseTooLargeError, match="more than 100 times its compressed size"):
        client.download_resource("figures/a.png", tmp_path)
    # A plain endless download stops at its own bound.
    with pytest.raises(paperlens.ResponseTooLargeError) as caught:
        client.with_options(max_download_bytes=2 << 20, max_compression_ratio=100_000).download_resource(
            "figures/a.png", tmp_path / "a.png"
        )
    assert (caught.value.bound, caught.value.limit) == ("max_download_bytes", 2 << 20)
    assert list(tmp_path.iterdir()) == []  # no file, no hidden temporary one
    server.close()


def test_gzip_answers_the_contract_allows_decode_whole(httpserver: HTTPServer, make_client):
    page = meta_search_page(50)
    httpserver.expect_ordered_request("/meta-search").respond_with_data(
        gzip.compress(json.dumps(page).encode()), headers={"Content-Encoding": "gzip"}, content_type="application/json"
    )
    error = {"code": "INVALID_REQUEST", "message": "page_size out of range", "request_id": "srv-7"}
    httpserver.expect_ordered_request("/meta-search").respond_with_data(
        gzip.compress(json.dumps(error).encode()), status=400, headers={"Content-Encoding": "gzip"}
    )
    client = make_client()
    answer = client.meta_search("q")
    assert [(r.unique_id, r.title, r.doi) for r in answer.results] == [
        (r["unique_id"], r["title"], r["doi"]) for r in page["results"]
    ]
    assert answer.total_count == 12345
    with pytest.raises(paperlens.BadRequestError) as caught:
        client.meta_search("q")
    assert (caught.value.code, caught.value.message, caught.value.request_id) == (
        "INVALID_REQUEST",
        "page_size out of range",
        "srv-7",
    )
    assert "gzip" in httpserver.log[0][0].headers["Accept-Encoding"]


def test_bounds_are_checked_before_any_request():
    for name in ("max_response_bytes", "max_download_bytes", "max_compression_ratio"):
        for bad in (0, -5):
            with pytest.raises(paperlens.ConfigurationError, match=f"{name} must be at least 1, got {bad}"):
                paperlens.Client(api_token=TOKEN, base_url="http://127.0.0.1:9", **{name: bad})
            with pytest.raises(ValueError, match=name):
                paperlens.Client(api_token=TOKEN, base_url="http://127.0.0.1:9").with_options(**{name: bad})


PROBE = """
import resource, sys
import paperlens
url, token = sys.argv[1], sys.argv[2]
client = paperlens.Client(api_token=token, base_url=url, rate_limits=None, max_retries=0)
outcomes = []
for call in (
    lambda: client.meta_search("endless"),
    lambda: client.meta_search("announced"),
    lambda: client.meta_search("error"),
    lambda: client.meta_search("bomb"),
    lambda: client.download_resource("figures/bomb.png", sys.argv[3]),
):
    try:
        call()
    except paperlens.PaperlensError as error:
        outcomes.append(type(error).__name__)
print(outcomes, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def test_a_probe_of_every_bomb_stays_well_under_a_gibibyte(bomb: bytes, tmp_path: Path):
    """With the default bounds (a 256 MiB answer read whole included)."""

    def answer(path: str, connection: Any) -> None:
        kind = answer.kinds.pop(0)  # type: ignore[attr-defined]
        if kind == "endless":
            connection.sendall(head(Content_Type="application/json", Transfer_Encoding="chunked"))
            endless_chunks(connection)
        elif kind == "announced":
            connection.sendall(head(Content_Type="application/json", Content_Length=str(8 << 30)))
            endless_chunks(connection)
        elif kind == "error":
            connection.sendall(head("500 Internal Server Error", Transfer_Encoding="chunked"))
            endless_chunks(connection)
        else:
            connection.sendall(head(Content_Type="application/json", Content_Encoding="gzip"))
            connection.sendall(bomb)

    answer.kinds = ["endless", "announced", "error", "bomb", "bomb"]  # type: ignore[attr-defined]
    server = RawServer(answer)
    env = {**os.environ, "PYTHONPATH": str(Path(paperlens.__file__).parents[1])}
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, server.url, TOKEN, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert probe.returncode == 0, probe.stderr
    outcomes, peak = probe.stdout.rsplit(" ", 1)
    too_large = "ResponseTooLargeError"
    assert outcomes == str([too_large, too_large, "ServerError", too_large, too_large])
    assert int(peak) < 1 << 30, f"peak memory {int(peak) >> 20} MiB"
    assert list(tmp_path.iterdir()) == []
    server.close()


# -- the token is never echoed -------------------------------------------------------------------

#: A token with characters a URL encodes, to find its encoded form too.
ODD_TOKEN = "sk+odd/token=42?x"


def encoded(token: str) -> str:
    return urllib.parse.quote(token, safe="")


def leaks(error: BaseException, records: list[logging.LogRecord], *more: Any) -> list[str]:
    texts = [str(error), repr(error), repr(vars(error)), *traceback.format_exception(error)]
    texts += [record.getMessage() for record in records] + [str(m) for m in more]
    secrets = [form for token in (TOKEN, ODD_TOKEN) for form in (token, encoded(token), encoded(token).lower())]
    return [text for text in texts if any(secret in text for secret in secrets)]


@pytest.mark.parametrize("token", [TOKEN, ODD_TOKEN])
def test_a_token_served_back_is_in_no_message_repr_log_or_traceback(httpserver: HTTPServer, caplog, token: str):
    echoed = f"bad token Bearer {token} ({encoded(token)})"
    client = paperlens.Client(
        api_token=token, base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01, max_retries=1
    )
    httpserver.expect_ordered_request("/meta-search").respond_with_json(
        {"code": "UNAUTHORIZED", "message": echoed, "request_id": token, "details": {"token": token}}, status=401
    )
    httpserver.expect_ordered_request("/meta-search").respond_with_data(f"<html>{echoed}</html>", status=500)
    httpserver.expect_ordered_request("/meta-search").respond_with_data(f"<p>busy {echoed}</p>", status=503)
    httpserver.expect_ordered_request("/meta-search").respond_with_data(f"<p>busy {echoed}</p>", status=503)
    httpserver.expect_ordered_request("/meta-search").respond_with_data(f"not json {echoed}", content_type="text/plain")
    httpserver.expect_ordered_request("/meta-search").respond_with_response(
        Response(json.dumps(meta_search_page(1)), content_type="application/json", headers={"X-Request-ID": token})
    )
    caught = []
    with caplog.at_level(logging.DEBUG):
        for expected in (
            paperlens.AuthenticationError,
            paperlens.ServerError,
            paperlens.ServerError,
            paperlens.ResponseDecodeError,
        ):
            with pytest.raises(expected) as raised:
                client.meta_search("q")
            caught.append(raised.value)
        page = client.meta_search("q")
    assert caught[0].message == "bad token Bearer *** (***)" and caught[0].request_id == "***"
    assert caught[0].details == {"token": "***"}
    assert "***" in str(caught[1]) and "***" in str(caught[3])
    assert any("retry 1 of 1" in r.getMessage() and "***" in r.getMessage() for r in caplog.records)
    assert page.request_id == "***" and page.results[0].unique_id == "W3000000"
    for error in caught:
        assert leaks(error, caplog.records, page.request_id, repr(page)) == []


async def test_the_async_client_redacts_too(httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json(
        {"code": "UNAUTHORIZED", "message": f"who is {TOKEN}?", "request_id": "r"}, status=401
    )
    client = paperlens.AsyncClient(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None)
    with pytest.raises(paperlens.AuthenticationError) as caught:
        await client.meta_search("q")
    assert caught.value.message == "who is ***?" and leaks(caught.value, []) == []


# -- arguments that panicked ---------------------------------------------------------------------

DURATIONS = ["timeout", "connect_timeout", "deadline", "max_rate_limit_wait", "retry_backoff", "cache_ttl"]


@pytest.mark.parametrize("name", DURATIONS)
@pytest.mark.parametrize("value", [1e20, math.inf, math.nan, -1.0])
def test_a_duration_out_of_range_names_its_parameter(name: str, value: float, tmp_path: Path):
    if name == "deadline" and value == math.inf:
        value = 1e300  # an infinite deadline is no deadline
    settings: dict[str, Any] = {"api_token": TOKEN, "base_url": "http://127.0.0.1:9", name: value}
    if name == "cache_ttl":
        settings["cache_dir"] = tmp_path
    with pytest.raises(paperlens.ConfigurationError, match=f"^{name} must be a number of seconds from 0 to"):
        paperlens.Client(**settings)
    with pytest.raises(paperlens.ConfigurationError, match=f"^{name} must be"):
        paperlens.AsyncClient(**settings)


@pytest.mark.parametrize("name", ["timeout", "deadline", "max_rate_limit_wait", "retry_backoff"])
def test_with_options_checks_durations_and_an_infinite_deadline_removes_one(name: str):
    client = paperlens.Client(api_token=TOKEN, base_url="http://127.0.0.1:9", deadline=5.0)
    for value in (1e20, -1.0, math.nan):
        with pytest.raises(ValueError, match=f"^{name} must be a number of seconds"):
            client.with_options(**{name: value})
    assert client.with_options(deadline=math.inf)._overrides == {"deadline": math.inf}


async def test_the_longest_deadline_allowed_still_answers():
    with Sandbox(papers=20) as sandbox:
        options: dict[str, Any] = {"api_token": sandbox.token, "base_url": sandbox.base_url, "deadline": 1e9}
        page = paperlens.Client(**options).with_options(timeout=1e9).meta_search(page_size=3)
        again = await paperlens.AsyncClient(**options).meta_search(page_size=3)
    assert [r.unique_id for r in again.results] == [r.unique_id for r in page.results]
    assert len(page.results) == 3


# -- numbers the contract does not allow in an integer field ---------------------------------------


@pytest.mark.parametrize("number", ["1e400", "-1e400"])
def test_an_infinite_number_in_an_integer_field_is_a_decode_error(make_client, httpserver: HTTPServer, number):
    page = json.dumps(meta_search_page(2)).replace('"total_count": "12345"', f'"total_count": {number}')
    httpserver.expect_request("/meta-search").respond_with_data(page, content_type="application/json")
    with pytest.raises(paperlens.ResponseDecodeError, match=r"expected an integer, got .*request_id="):
        make_client().meta_search("q")


@pytest.mark.parametrize(("number", "kept"), [("12.5", 12.5), ("1.0e-3", 0.001)])
def test_a_fraction_in_an_integer_field_is_kept_as_sent(make_client, httpserver: HTTPServer, number, kept):
    page = json.dumps(meta_search_page(2)).replace('"total_count": "12345"', f'"total_count": {number}')
    page = page.replace('"reference_count": 41', f'"reference_count": {number}')
    httpserver.expect_request("/meta-search").respond_with_data(page, content_type="application/json")
    answer = make_client().meta_search("q")
    assert answer.total_count == kept and answer.results[1].reference_count == kept
    assert answer.results[1].to_dict()["reference_count"] == kept


def test_an_infinite_number_in_a_records_integer_field_is_a_decode_error(make_client, httpserver):
    page = json.dumps(meta_search_page(2)).replace('"reference_count": 41', '"reference_count": 1e400')
    httpserver.expect_request("/meta-search").respond_with_data(page, content_type="application/json")
    records = make_client().meta_search("q").results
    assert records[0].reference_count == 40
    with pytest.raises(paperlens.ResponseDecodeError, match="expected an integer"):
        records[1].reference_count  # noqa: B018
    with pytest.raises(paperlens.ResponseDecodeError, match="expected an integer"):
        records[1].to_dict()


def test_integral_numbers_in_an_integer_field_are_ints(make_client, httpserver: HTTPServer):
    page = json.dumps(meta_search_page(2)).replace('"total_count": "12345"', '"total_count": 1.2345e4')
    page = page.replace('"reference_count": 41', '"reference_count": 41.0')
    httpserver.expect_request("/meta-search").respond_with_data(page, content_type="application/json")
    answer = make_client().meta_search("q")
    assert answer.total_count == 12345 and type(answer.total_count) is int
    assert answer.results[1].reference_count == 41 and type(answer.results[1].reference_count) is int
    assert answer.results[1].to_dict()["reference_count"] == 41


def test_the_new_errors_survive_pickling():
    too_large = paperlens.ResponseTooLargeError("m", bound="max_download_bytes", limit=7, status=200, request_id="r")
    looped = paperlens.PagingLoopError("loop", request_id="r2")
    again = pickle.loads(pickle.dumps(too_large))
    assert (type(again), str(again), again.bound, again.limit, again.status, again.request_id) == (
        paperlens.ResponseTooLargeError,
        "m",
        "max_download_bytes",
        7,
        200,
        "r",
    )
    assert (type(pickle.loads(pickle.dumps(looped))), pickle.loads(pickle.dumps(looped)).request_id) == (
        paperlens.PagingLoopError,
        "r2",
    )


def test_a_token_quoted_by_a_decode_error_of_the_python_layer_is_redacted(make_client, httpserver: HTTPServer, caplog):
    page = {**meta_search_page(1), "total_count": f"about {TOKEN}"}
    httpserver.expect_request("/meta-search").respond_with_json(page, headers={"X-Request-ID": f"id-{TOKEN}"})
    with pytest.raises(paperlens.ResponseDecodeError) as caught:
        make_client().meta_search("q")
    assert str(caught.value) == "expected an integer, got 'about ***'"
    assert caught.value.request_id == "id-***" and leaks(caught.value, caplog.records) == []
