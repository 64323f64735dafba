"""The sandbox's HTTP shell from Python, over real loopback HTTP (urllib)."""

from __future__ import annotations

import http.client
import json
import math
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from paperlens.cli import format_table, main
from paperlens.sandbox import RecordedRequest, Sandbox

PAPERS = 50


class Reply:
    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


def call(
    sandbox: Sandbox,
    path: str,
    *,
    token: str | None = None,
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> Reply:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(sandbox.base_url + path, data=data, method="GET" if data is None else "POST")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers, error.read())


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(papers=PAPERS) as running:
        yield running


def test_context_manager_serves_then_stops() -> None:
    with Sandbox(papers=PAPERS) as sandbox:
        assert sandbox.base_url.startswith("http://127.0.0.1:")
        assert not sandbox.closed
        assert call(sandbox, "/openapi.json").status == 200
        assert "running" in repr(sandbox)
        assert sandbox.token not in repr(sandbox)
    assert sandbox.closed
    with pytest.raises(urllib.error.URLError):
        call(sandbox, "/openapi.json", timeout=2)
    sandbox.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        sandbox.requests()


def test_tokens_authenticate_and_unknown_ones_get_401(sandbox: Sandbox) -> None:
    assert sandbox.restricted_token
    assert sandbox.restricted_token != sandbox.token
    for token in (sandbox.token, sandbox.restricted_token):
        assert call(sandbox, "/paper-schema", token=token).status != 401
    missing = call(sandbox, "/content?doc_id=x")
    assert missing.status == 401
    assert missing.json()["code"] == "UNAUTHORIZED"
    wrong = call(sandbox, "/meta-search", token="nope", body={})
    assert wrong.status == 401
    assert wrong.json()["code"] == "UNAUTHENTICATED"
    assert wrong.json()["request_id"] == wrong.headers["X-Request-ID"]


def test_a_given_token_is_used() -> None:
    with Sandbox(papers=PAPERS, token="my-token") as sandbox:
        assert sandbox.token == "my-token"
        assert call(sandbox, "/paper-schema", token="my-token").status != 401


def test_request_id_and_service_source_are_echoed(sandbox: Sandbox) -> None:
    reply = call(
        sandbox,
        "/meta-catalog",
        token=sandbox.token,
        headers={"X-Request-ID": "abc-123", "X-Service-Source": "notebook_1"},
    )
    assert reply.headers["X-Request-ID"] == "abc-123"
    assert reply.headers["X-Service-Source"] == "notebook_1"
    ignored = call(sandbox, "/meta-catalog", token=sandbox.token, headers={"X-Service-Source": "bad value"})
    assert ignored.headers["X-Service-Source"] is None
    assert len(ignored.headers["X-Request-ID"]) == 36


def test_status_faults_apply_the_given_number_of_times(sandbox: Sandbox) -> None:
    sandbox.inject_fault("/meta-search", status=503, times=2)
    statuses = [call(sandbox, "/meta-search", token=sandbox.token, body={}) for _ in range(3)]
    assert [r.status for r in statuses[:2]] == [503, 503]
    assert statuses[0].json()["code"] == "UPSTREAM_UNAVAILABLE"
    assert statuses[2].status != 503

    sandbox.inject_fault("/paper-schema/search", status=504)
    timeout = call(sandbox, "/paper-schema/search", token=sandbox.token, body={})
    assert (timeout.status, timeout.json()["code"]) == (504, "PAPER_SCHEMA_TIMEOUT")


def test_rate_limited_fault_carries_retry_after(sandbox: Sandbox) -> None:
    sandbox.inject_fault("/agentic-search", status=429, retry_after=0.5)
    reply = call(sandbox, "/agentic-search", token=sandbox.token, body={"query": "x"})
    assert reply.status == 429
    assert reply.headers["Retry-After"] == "1"
    body = reply.json()
    assert body["code"] == "RATE_LIMITED"
    assert body["details"] == {"retry_after": 0.5}


def test_non_json_fault_answers_html(sandbox: Sandbox) -> None:
    sandbox.inject_fault("/content", status=502, kind="non_json")
    reply = call(sandbox, "/content?doc_id=x", token=sandbox.token)
    assert reply.status == 502
    assert reply.headers["Content-Type"].startswith("text/html")
    assert b"<html>" in reply.body


def test_drop_fault_breaks_the_body(sandbox: Sandbox) -> None:
    sandbox.inject_fault("/meta-search", kind="drop")
    with pytest.raises(http.client.IncompleteRead):
        call(sandbox, "/meta-search", token=sandbox.token, body={})


def test_delay_fault_times_out_a_client_and_then_answers_normally(sandbox: Sandbox) -> None:
    sandbox.inject_fault("/meta-catalog", delay=1.5)
    started = time.monotonic()
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        call(sandbox, "/meta-catalog", token=sandbox.token, timeout=0.3)
    assert time.monotonic() - started < 1.0
    normal = call(sandbox, "/meta-catalog", token=sandbox.token)
    assert normal.status not in (401, 429, 502, 503, 504)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "needs a status"),
        ({"status": 200}, "400-599"),
        ({"status": 503, "kind": "drop"}, "no status"),
        ({"kind": "non_json"}, "needs a status"),
        ({"status": 503, "kind": "teapot"}, "unknown fault kind"),
        ({"status": 503, "times": 0}, "at least 1"),
        ({"delay": -1.0}, "delay"),
        ({"status": 503, "path": "/content?doc_id=x"}, "query string"),
    ],
)
def test_invalid_faults_are_refused(sandbox: Sandbox, arguments: dict[str, Any], message: str) -> None:
    arguments = {"path": "/meta-search", **arguments}
    with pytest.raises(ValueError, match=message):
        sandbox.inject_fault(**arguments)


def test_requests_are_recorded_without_authorization(sandbox: Sandbox) -> None:
    call(sandbox, "/content?doc_id=abc&limit=5", token=sandbox.token)
    call(sandbox, "/meta-search", token=sandbox.token, body={"query": "graphs", "page_size": 3})
    first, second = sandbox.requests()
    assert isinstance(first, RecordedRequest)
    assert (first.method, first.path, first.query) == (
        "GET",
        "/content",
        (("doc_id", "abc"), ("limit", "5")),
    )
    assert (second.method, second.path) == ("POST", "/meta-search")
    assert second.json() == {"query": "graphs", "page_size": 3}
    assert second.headers["content-type"] == "application/json"
    for request in (first, second):
        assert "authorization" not in request.headers
        assert sandbox.token not in repr(request)
    with pytest.raises(FrozenInstanceError):
        first.path = "/other"  # type: ignore[misc]
    sandbox.clear_requests()
    assert sandbox.requests() == []


def test_rate_limits_answer_429_with_retry_after() -> None:
    with Sandbox(papers=PAPERS, rate_limits={"paper-schema": 2}) as sandbox:
        for _ in range(2):
            assert call(sandbox, "/paper-schema", token=sandbox.token).status != 429
        limited = call(sandbox, "/paper-schema/search", token=sandbox.token, body={})
        assert limited.status == 429
        retry_after = int(limited.headers["Retry-After"])
        assert 1 <= retry_after <= 60
        assert math.ceil(limited.json()["details"]["retry_after"]) == retry_after  # the exact wait, rounded up
        assert call(sandbox, "/meta-search", token=sandbox.token, body={}).status != 429


def test_bad_rate_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown quota resource"):
        Sandbox(papers=PAPERS, rate_limits={"content": 5})


@pytest.mark.parametrize("latency", [-0.5, math.nan, math.inf, 86_400.0])
def test_a_bad_content_latency_is_refused(latency: float, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="content_latency must be seconds"):
        Sandbox(papers=PAPERS, content_latency=latency)
    assert main(["sandbox", "--content-latency", str(latency)]) == 1
    assert "content_latency must be seconds" in capsys.readouterr().err


def test_a_content_latency_keeps_the_answers(sandbox: Sandbox) -> None:
    """The texts of a sandbox with a latency are those of one without (the Rust tests
    hold that the answers wait)."""
    with Sandbox(papers=PAPERS, content_latency=0.05) as slow:
        results = call(sandbox, "/meta-search", token=sandbox.token, body={"page_size": 20}).json()["results"]
        doc_id = next(record["doc_id"] for record in results if record.get("doc_id"))
        target = f"/content?doc_id={doc_id}"
        assert (
            call(slow, target, token=slow.token).json()["text"]
            == call(sandbox, target, token=sandbox.token).json()["text"]
        )


def test_cases_without_a_listed_code_answer_listed_ones(sandbox: Sandbox) -> None:
    # /content and /resource list no 404; /meta-catalog lists no 400, but its flags and collection are typed.
    unknown_doc = call(sandbox, "/content?doc_id=feedbeef", token=sandbox.token)
    assert (unknown_doc.status, unknown_doc.json()["code"]) == (400, "INVALID_REQUEST")
    assert unknown_doc.json()["details"] == {"parameter": "doc_id"}
    unknown_file = call(sandbox, "/resource?file_name=figures/W0/fig1.png", token=sandbox.token)
    assert (unknown_file.status, unknown_file.json()["details"]) == (400, {"parameter": "file_name"})
    # Its flags are the contract's booleans and its collection one of three: anything else is a 400 naming it.
    for flag, value in [("include_field_stats", "null"), ("include_sample_values", "yes"), ("collection", "AAA")]:
        refused = call(sandbox, f"/meta-catalog?{flag}={value}", token=sandbox.token)
        assert (refused.status, refused.json()["code"], refused.json()["details"]) == (
            400,
            "INVALID_REQUEST",
            {"parameter": flag},
        )


def test_openapi_document_needs_no_token(sandbox: Sandbox) -> None:
    document = call(sandbox, "/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert "/meta-search" in document["paths"]


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_cli_sandbox_prints_its_address_first_and_stops_cleanly(stop_signal: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "paperlens.cli", "sandbox", "--port", "0", "--papers", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()
        fields = dict(part.split("=", 1) for part in first_line.split())
        assert set(fields) == {"base_url", "token"}
        request = urllib.request.Request(
            fields["base_url"] + "/paper-schema",
            headers={"Authorization": f"Bearer {fields['token']}"},
        )
        with urllib.request.urlopen(request, timeout=5) as answered:  # the token is accepted
            assert answered.status == 200 and json.loads(answered.read())["contract_version"]
        process.send_signal(stop_signal)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_cli_sandbox_reports_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "--papers", "0"]) == 1
    assert "papers must be at least 1" in capsys.readouterr().err
    assert main(["sandbox", "--rate-limit", "content=3"]) == 2  # usage error
    assert main(["sandbox", "--rate-limit-kind", "leaky"]) == 2
    assert "invalid choice: 'leaky'" in capsys.readouterr().err


def test_cli_sandbox_counts_rate_limits_by_the_given_kind() -> None:
    started_before = time.monotonic()
    argv = ["sandbox", "--port", "0", "--papers", "50", "--rate-limit", "paper-schema=2", "--rate-limit-kind", "bucket"]
    process = subprocess.Popen([sys.executable, "-m", "paperlens.cli", *argv], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        fields = dict(part.split("=", 1) for part in process.stdout.readline().split())
        statuses, wait = [], -1.0
        for _ in range(3):
            request = urllib.request.Request(
                fields["base_url"] + "/paper-schema", headers={"Authorization": f"Bearer {fields['token']}"}
            )
            try:
                with urllib.request.urlopen(request, timeout=5) as answered:
                    statuses.append(answered.status)
            except urllib.error.HTTPError as refused:
                statuses.append(refused.code)
                wait = json.loads(refused.read())["details"]["retry_after"]
        assert statuses == [200, 200, 429]
        # 2 per minute: a bucket refills a token every 30 s (a window would free one after 60 s).
        assert 30 - (time.monotonic() - started_before) <= wait <= 30
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def test_format_table_aligns_and_truncates() -> None:
    table = format_table(["id", "title"], [[1, "short"], [22, "x" * 80], [3, None]], max_width=10)
    assert table.splitlines() == [
        "id  title",
        "--  ----------",
        "1   short",
        "22  xxxxxxx...",
        "3",
    ]
