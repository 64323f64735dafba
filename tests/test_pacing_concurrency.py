"""The bound on requests in flight, and the adaptive slow-down of operations without a
documented quota, observed at a threaded loopback server."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens

from conftest import TOKEN, error_body


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.1", threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


class InFlight:
    """A handler answering after `delay`, counting the requests being answered at once."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.lock = threading.Lock()
        self.now = self.most = self.total = 0

    def __call__(self, _request: Request) -> Response:
        with self.lock:
            self.now += 1
            self.total += 1
            self.most = max(self.most, self.now)
        time.sleep(self.delay)
        with self.lock:
            self.now -= 1
        return Response(json.dumps({"hits": []}), content_type="application/json")


def client_of(server: HTTPServer, **options) -> paperlens.AsyncClient:
    return paperlens.AsyncClient(api_token=TOKEN, base_url=server.url_for(""), **options)


async def test_requests_in_flight_never_exceed_max_concurrency_shared_by_derived_clients(server):
    handler = InFlight(delay=0.05)
    server.expect_request("/agentic-search").respond_with_handler(handler)
    client = client_of(server, max_concurrency=4)
    derived = client.with_options(timeout=10)
    await asyncio.gather(*(c.agentic_search(f"q{n}") for n in range(20) for c in (client, derived)))
    assert handler.total == 40
    assert handler.most == 4


async def test_the_default_bound_is_16(server):
    handler = InFlight(delay=0.1)
    server.expect_request("/agentic-search").respond_with_handler(handler)
    client = client_of(server)
    await asyncio.gather(*(client.agentic_search(f"q{n}") for n in range(40)))
    assert handler.most == 16


@pytest.mark.parametrize("bad", [0, -2])
def test_max_concurrency_must_be_positive(server, bad):
    with pytest.raises(paperlens.ConfigurationError, match=f"max_concurrency must be at least 1, got {bad}"):
        client_of(server, max_concurrency=bad)


def test_max_concurrency_beyond_a_semaphore_is_refused_not_a_panic(server):
    with pytest.raises(paperlens.ConfigurationError, match=f"max_concurrency must be at most {2**61 - 1}, got {2**61}"):
        client_of(server, max_concurrency=2**61)


class Bucket:
    """A gateway admitting `size` requests at once and `per_second` after, answering 429 with
    the exact wait in `details.retry_after` otherwise."""

    def __init__(self, size: int, per_second: float) -> None:
        self.size, self.per_second = size, per_second
        self.tokens, self.at = float(size), time.monotonic()
        self.lock = threading.Lock()
        self.admitted = self.refused = 0

    def __call__(self, _request: Request) -> Response:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.size, self.tokens + (now - self.at) * self.per_second)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                self.admitted += 1
                return Response(json.dumps({"hits": []}), content_type="application/json")
            self.refused += 1
            wait = (1 - self.tokens) / self.per_second
        body = error_body("RATE_LIMITED", details={"retry_after": round(wait, 3)})
        return Response(json.dumps(body), status=429, content_type="application/json")


async def test_a_429_slows_the_operation_down_instead_of_each_call_retrying_alone(server):
    gateway = Bucket(size=5, per_second=40)
    server.expect_request("/agentic-search").respond_with_handler(gateway)
    client = client_of(server, max_concurrency=64, max_retries=3)
    # 100 calls at once: the bucket admits 5 of the first burst, then 40 per second. Retrying
    # alone after each wait, most calls meet an empty bucket each time and run out of retries.
    results = await asyncio.gather(*(client.agentic_search(f"q{n}") for n in range(100)))
    assert len(results) == 100
    first_burst_refused = 64 - 5
    assert gateway.admitted == 100
    assert gateway.refused <= first_burst_refused + 10, f"{gateway.refused} refused"
