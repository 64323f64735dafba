"""The sandbox's three rate-limit kinds over real loopback HTTP, with a high limit so that
bursts are quick and the bucket's refill is short. The algorithms' exact arithmetic is
tested in Rust (crates/paperlens-sandbox/src/server/rate_limit/tests.rs) with explicit
instants; here each kind is checked end to end, with bounds taken from this process's own
clock around the requests (causal bounds, not timing targets)."""

from __future__ import annotations

import http.client
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from paperlens.sandbox import Sandbox

LIMIT = 600
WINDOW = 60.0
PAPERS = 50


@dataclass
class Refusal:
    admitted: int
    sent_at: float
    """When the refused request was sent (time.monotonic())."""
    received_at: float
    retry_after_header: str
    retry_after: float


class Connection:
    """One keep-alive connection sending GET /paper-schema, which counts on the paper-schema quota."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._http = http.client.HTTPConnection(sandbox.base_url.removeprefix("http://"), timeout=10)
        self._headers = {"Authorization": f"Bearer {sandbox.token}"}

    def get(self) -> tuple[int, http.client.HTTPMessage, Any]:
        self._http.request("GET", "/paper-schema", headers=self._headers)
        response = self._http.getresponse()
        return response.status, response.headers, json.loads(response.read())

    def burst(self) -> Refusal:
        """Sends until the first 429."""
        admitted = 0
        while True:
            sent_at = time.monotonic()
            status, headers, body = self.get()
            if status != 429:
                assert status == 200, body
                admitted += 1
                continue
            assert body["code"] == "RATE_LIMITED"
            return Refusal(admitted, sent_at, time.monotonic(), headers["Retry-After"], body["details"]["retry_after"])

    def close(self) -> None:
        self._http.close()


@pytest.fixture
def limited(request: pytest.FixtureRequest) -> Iterator[tuple[Sandbox, Connection, float]]:
    """A sandbox of the parametrized kind, a connection to it, and a time before it started."""
    started_before = time.monotonic()
    with Sandbox(papers=PAPERS, rate_limits={"paper-schema": LIMIT}, rate_limit_kind=request.param) as sandbox:
        connection = Connection(sandbox)
        try:
            yield sandbox, connection, started_before
        finally:
            connection.close()


def assert_header_rounds_the_wait_up(refusal: Refusal) -> None:
    assert refusal.retry_after > 0
    assert refusal.retry_after_header == str(math.ceil(refusal.retry_after))


@pytest.mark.parametrize("limited", ["sliding"], indirect=True)
def test_sliding_admits_n_then_waits_for_the_oldest_to_leave(limited: tuple[Sandbox, Connection, float]) -> None:
    _, connection, _ = limited
    first_sent = time.monotonic()
    refusal = connection.burst()
    assert refusal.admitted == LIMIT
    # The first admitted request leaves the window WINDOW seconds after it was admitted.
    assert WINDOW - (refusal.received_at - first_sent) <= refusal.retry_after <= WINDOW
    assert_header_rounds_the_wait_up(refusal)
    again = connection.burst()
    assert again.admitted == 0 and again.retry_after <= refusal.retry_after, "a refusal uses no quota"


@pytest.mark.parametrize("limited", ["fixed"], indirect=True)
def test_fixed_admits_n_per_window_counted_from_the_start(limited: tuple[Sandbox, Connection, float]) -> None:
    _, connection, started_before = limited
    started_after = time.monotonic()
    time.sleep(0.25)  # so that the window's end (from the start) and the first request's expiry differ
    refusal = connection.burst()
    assert refusal.admitted == LIMIT
    # The window ends WINDOW seconds after the sandbox started, not after the first request.
    assert WINDOW - (refusal.received_at - started_before) <= refusal.retry_after
    assert refusal.retry_after <= WINDOW - (refusal.sent_at - started_after) <= WINDOW - 0.25
    assert_header_rounds_the_wait_up(refusal)


@pytest.mark.parametrize("limited", ["bucket"], indirect=True)
def test_bucket_refills_and_a_client_that_waits_the_advised_time_is_admitted(
    limited: tuple[Sandbox, Connection, float],
) -> None:
    _, connection, started_before = limited
    refusal = connection.burst()
    refilled = (refusal.received_at - started_before) * LIMIT / WINDOW
    assert LIMIT <= refusal.admitted <= LIMIT + refilled
    assert 0 < refusal.retry_after <= WINDOW / LIMIT, "one token comes every 0.1 s"
    assert refusal.retry_after_header == "1"
    time.sleep(refusal.retry_after)
    status, _, _ = connection.get()
    assert status == 200


def test_an_unknown_kind_is_refused_naming_the_parameter_and_the_kinds() -> None:
    with pytest.raises(ValueError, match=r'rate_limit_kind must be one of "sliding", "fixed" or "bucket"'):
        Sandbox(papers=PAPERS, rate_limit_kind="leaky")  # type: ignore[arg-type]
