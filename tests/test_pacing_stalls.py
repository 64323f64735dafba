"""Shared pacing that never wedges: a sharer that stalls holding the pacing file, a Redis reply
that comes too late (the server applied the step), a Redis restart, a state from the future;
and what the waits and a ``QuotaExhaustedError`` tell. Real processes, a real ``redis-server``
behind a loopback proxy that delays replies, real files."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from redis_server import DelayingProxy, RedisServer
from shared_pacing_workers import WAITING

import paperlens
from paperlens.errors import APITimeoutError, QuotaExhaustedError, RateLimitError
from paperlens.harvest import harvest
from paperlens.sandbox import Sandbox

from fixtures import sharing_client

ROOT = Path(__file__).resolve().parents[1]
WORKERS = Path(__file__).with_name("shared_pacing_workers.py")
#: Holds an exclusive lock on the file named by argv[1] for 12 s, as a stalled sharer would.
HOLDER = """
import fcntl, sys, time
lock = open(sys.argv[1], "a")
fcntl.flock(lock, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(12)
"""


def env() -> dict[str, str]:
    path = [str(ROOT / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(papers=50, rate_limits={"meta-search": 10}) as sandbox:
        yield sandbox


def waits(caplog: pytest.LogCaptureFixture) -> list[tuple[float, int]]:
    """The pacing waits told: ``(seconds, requests per minute)``."""
    return [(float(m.group(1)), int(m.group(2))) for r in caplog.records if (m := WAITING.match(r.getMessage()))]


def meta_searches(sandbox: Sandbox) -> int:
    return sum(1 for request in sandbox.requests() if request.path == "/meta-search")


def test_a_stalled_file_sharer_costs_a_call_its_deadline_and_fork_goes_on(sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "pacing.json"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f"{path}.lock"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        argv = [sys.executable, str(WORKERS), sandbox.base_url, sandbox.token, str(path)]
        done = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        found: dict[str, Any] = json.loads(done.stdout)
        # All of it while the sharer still held the file (it lets go after 12 s).
        assert holder.poll() is None, "the sharer was still holding the file"
    finally:
        holder.kill()
        holder.wait()
    assert found["call"] == "APITimeoutError", found
    assert "deadline of 2.0 s" in found["message"]
    assert found["call_waiting_at_fork"] is True
    # fork() did not wait for the call's lock (it took 10.5 s when the lock was waited for in place).
    assert found["fork_seconds"] < 1.0, found
    assert meta_searches(sandbox) == 0
    # Let go, the file works again for everyone.
    client = sharing_client(sandbox, str(path))
    assert client.meta_search("q", page_size=1).results is not None
    assert meta_searches(sandbox) == 1


def slots(server: RedisServer) -> list[dict[str, Any]]:
    """Every slot of every window held on `server` (a key may go between listing and reading it)."""
    return [slot for value in server.keys().values() if value for slot in json.loads(value)["slots"]]


def once_none_in_flight(server: RedisServer) -> list[dict[str, Any]]:
    """The slots held on `server` once none is in flight (or after 5 s of looking)."""
    for _ in range(100):
        held = slots(server)
        if all(slot["counted_until"] is not None for slot in held):
            break
        time.sleep(0.05)
    return held


def test_a_redis_reply_lost_after_the_step_is_retried_and_its_slot_settled(
    sandbox: Sandbox, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    with DelayingProxy(redis_server.port, delay=1.5, scripts=1) as proxy:
        client = sharing_client(sandbox, proxy.url(), connect_timeout=0.5, max_retries=2, retry_backoff=1.5)
        with caplog.at_level(logging.WARNING, logger="paperlens"):
            client.meta_search("q", page_size=1)
    assert proxy.delayed == 1, "the first step's reply came too late"
    retried = [r.getMessage() for r in caplog.records if "retry 1 of 2" in r.getMessage()]
    assert len(retried) == 1 and "shared_pacing: the Redis server at" in retried[0], retried
    assert meta_searches(sandbox) == 1
    # The slot of the step whose reply was lost is gone; the request sent is the one counted.
    [slot] = slots(redis_server)
    assert slot["counted_until"] is not None, slot


def test_a_call_failed_on_a_lost_reply_leaves_no_slot_for_the_next_client(
    sandbox: Sandbox, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    limits = {"meta-search": 1}
    with DelayingProxy(redis_server.port, delay=1.0, scripts=1) as proxy:
        slow = sharing_client(sandbox, proxy.url(), connect_timeout=0.5, max_retries=0, rate_limits=limits)
        with pytest.raises(paperlens.APIConnectionError, match="shared_pacing: the Redis server at"):
            slow.meta_search("q", page_size=1)
        # The server applied the step (a slot in flight); the client settles it by id meanwhile.
        assert once_none_in_flight(redis_server) == []
    fresh = sharing_client(sandbox, redis_server.url, rate_limits=limits, deadline=2)
    with caplog.at_level(logging.INFO, logger="paperlens"):
        fresh.meta_search("q", page_size=1)
    assert waits(caplog) == [], "the one slot a minute was free"
    assert meta_searches(sandbox) == 1


def test_a_redis_restart_loses_at_most_the_window_in_force(sandbox: Sandbox, caplog: pytest.LogCaptureFixture) -> None:
    server = RedisServer()
    try:
        client = sharing_client(sandbox, server.url, rate_limits={"meta-search": 2}, retry_backoff=0.2, deadline=10)
        for n in range(2):
            client.meta_search(f"q{n}", page_size=1)
        assert len(slots(server)) == 2
        port = server.port
        server.stop()
        server = RedisServer(port=port)
        # Reconnected (retried as max_retries allows), on a fresh window: the two slots are lost.
        with caplog.at_level(logging.INFO, logger="paperlens"):
            client.meta_search("after", page_size=1)
        assert waits(caplog) == []
        assert [slot["counted_until"] is not None for slot in slots(server)] == [True]
        assert meta_searches(sandbox) == 3
    finally:
        server.stop()


def test_a_redis_state_moved_an_hour_ahead_is_reset_with_a_warning(
    sandbox: Sandbox, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = sharing_client(sandbox, redis_server.url, rate_limits={"meta-search": 1}, deadline=2)
    client.meta_search("q", page_size=1)
    [(key, value)] = redis_server.keys().items()
    window = json.loads(value)
    for slot in window["slots"]:
        for field in ("taken", "counted_until"):
            slot[field]["secs"] += 3600
    redis_server.cli("SET", key, json.dumps(window))
    # As if the server's clock had gone back an hour: the slot would hold the next request an
    # hour and a minute; it is dropped instead, with a warning.
    with caplog.at_level(logging.INFO, logger="paperlens"):
        client.meta_search("next", page_size=1)
    assert waits(caplog) == []
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.getMessage().startswith(
        "shared_pacing: the pacing state of the meta-search quota in the Redis server at redis://127.0.0.1:"
    )
    assert "held times from the future" in warning.getMessage()
    assert meta_searches(sandbox) == 2


def test_the_wait_after_a_429_tells_the_pause_and_the_rate_learned(tmp_path: Path, caplog) -> None:
    # A gateway of 10 a minute, a client configured for 30: the 11th request is refused.
    with Sandbox(papers=100, rate_limits={"meta-search": 10}) as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, max_retries=0)
        with pytest.raises(RateLimitError):
            harvest(client, None, out=tmp_path / "out.jsonl", format="jsonl", page_size=5, limit=100, chunk_size=5)
        assert meta_searches(sandbox) == 11
        # The next request (a resumed harvest's first) waits for the time the 429 advised.
        with caplog.at_level(logging.INFO, logger="paperlens"), pytest.raises(APITimeoutError):
            client.with_options(deadline=1).meta_search("next", page_size=5)
        assert meta_searches(sandbox) == 11
    told = [r.getMessage() for r in caplog.records if r.getMessage().startswith("pacing: waiting")]
    assert len(told) == 1, told
    assert "until the time a 429 of the meta-search quota advised, then within 10 requests/minute" in told[0]
    assert "30 requests/minute" not in told[0]


def test_a_quota_exhausted_error_for_a_short_wait_says_what_is_known(httpserver: HTTPServer) -> None:
    body = {"code": "RATE_LIMITED", "message": "slow down", "request_id": "srv-1"}
    httpserver.expect_request("/meta-search").respond_with_json(body, status=429, headers={"Retry-After": "45"})
    client = paperlens.Client(api_token="t", base_url=httpserver.url_for(""), max_rate_limit_wait=30)
    with pytest.raises(QuotaExhaustedError) as raised:
        client.meta_search("q")
    message = str(raised.value)
    assert "the service asks to wait 45 s, longer than max_rate_limit_wait=30 s; try again after that" in message
    assert "daily" not in message
    assert raised.value.retry_after == 45
