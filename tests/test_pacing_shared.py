"""``shared_pacing``: real processes using one token keep to one quota together, through a file
on one machine or a real ``redis-server`` (the same scenarios run on both stores).

Two processes fill a quota of 10 per minute side by side, then a third is held back by
their requests: without the shared store each would have paced alone and the sandbox would
have refused the third. Time is kept short: a held request is only shown to wait (its log, or
a call ``deadline`` that passes before it is sent), then given up.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer
from shared_pacing_workers import search

import paperlens
from paperlens.errors import APIConnectionError, ConfigurationError, RateLimitError
from paperlens.harvest import harvest as harvest_to
from paperlens.sandbox import Sandbox

from fixtures import sharing_client

ROOT = Path(__file__).resolve().parents[1]
#: Bounds a pool's work, so that a hang fails the test instead of stalling the suite.
POOL_TIMEOUT = 120

# Sends `calls` meta-search requests (max_retries=0: a 429 exits non-zero) with INFO logs on stderr.
CHILD = """
import logging, sys
import paperlens
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
base_url, token, shared, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = paperlens.Client(api_token=token, base_url=base_url, rate_limits={"meta-search": 10},
                          shared_pacing=shared, max_retries=0)
for n in range(calls):
    client.meta_search(f"q{n}", page_size=1)
    print("sent", n, flush=True)
"""


@dataclass
class Store:
    """A shared pacing store: what to pass as ``shared_pacing``, another of the same kind that
    is not shared with it, and everything it holds (as text)."""

    shared_pacing: str
    other: str
    held: Callable[[], str]


@pytest.fixture(params=["file", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "file":
        path = tmp_path / "pacing.json"
        yield Store(str(path), str(tmp_path / "other.json"), lambda: path.read_text() if path.exists() else "")
        return
    server = request.getfixturevalue("redis_server")
    # Another database of the same server is another store.
    yield Store(server.url, server.url.replace("/0", "/1"), lambda: json.dumps(server.keys()))


def child(sandbox: Sandbox, shared: str, calls: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    argv = [sys.executable, "-c", CHILD, sandbox.base_url, sandbox.token, shared, str(calls)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(papers=50, rate_limits={"meta-search": 10}) as sandbox:
        yield sandbox


def meta_searches(sandbox: Sandbox) -> int:
    return sum(1 for request in sandbox.requests() if request.path == "/meta-search")


def test_processes_sharing_a_token_stay_within_one_quota(sandbox: Sandbox, store: Store) -> None:
    first, second = child(sandbox, store.shared_pacing, 5), child(sandbox, store.shared_pacing, 5)
    for process in (first, second):
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert out.count("sent") == 5
    assert len(sandbox.requests()) == 10

    third = child(sandbox, store.shared_pacing, 1)
    try:
        waits = []
        deadline = time.monotonic() + 30
        assert third.stderr is not None
        while not waits and time.monotonic() < deadline:
            line = third.stderr.readline()
            if not line:
                break
            waits += [float(w) for w in re.findall(r"pacing: waiting ([\d.]+) s", line)]
        # Held until a slot of the other processes frees, a minute after its answer.
        assert waits and waits[0] > 50, waits
        assert len(sandbox.requests()) == 10, "the held request was not sent"
    finally:
        third.send_signal(signal.SIGKILL)
        third.wait()

    held = store.held()
    assert held and sandbox.token not in held
    assert json.loads(held)


def test_a_process_without_the_shared_store_paces_alone(sandbox: Sandbox, store: Store) -> None:
    filled = child(sandbox, store.shared_pacing, 10)
    _, err = filled.communicate(timeout=60)
    assert filled.returncode == 0, err
    alone = child(sandbox, store.other, 1)
    _, err = alone.communicate(timeout=60)
    # Its own pacing let it go at once, and the sandbox refused it: what sharing prevents.
    assert alone.returncode != 0 and ("429" in err or "RateLimit" in err), err
    assert "pacing: waiting" not in err


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_pool_workers_each_with_a_client_keep_to_one_quota(store: Store, method: str) -> None:
    with Sandbox(papers=50, rate_limits={"meta-search": 6}) as sandbox:
        # The parent has made a request (its runtime and connections live) before it forks.
        parent = sharing_client(sandbox, store.shared_pacing, rate_limits={"meta-search": 6})
        parent.meta_search("first", page_size=1)
        # Each worker rebuilds the client from its settings; a call held past its deadline is
        # given up before it is sent.
        worker = sharing_client(sandbox, store.shared_pacing, rate_limits={"meta-search": 6}, deadline=3, max_retries=0)
        with multiprocessing.get_context(method).Pool(3) as pool:
            done = pool.map_async(search, [(worker, 3)] * 3).get(POOL_TIMEOUT)
        outcomes = sorted(outcome for worker_outcomes, _ in done for outcome in worker_outcomes)
        # 9 calls after the parent's one, against a quota of 6: 5 go, 4 wait for the next minute.
        assert outcomes == ["APITimeoutError"] * 4 + ["ok"] * 5
        assert meta_searches(sandbox) == 6
        assert all(told[0][1] == 6 for worker_outcomes, told in done if "APITimeoutError" in worker_outcomes)


def test_a_429_pause_is_shared(sandbox: Sandbox, store: Store) -> None:
    sandbox.inject_fault("/meta-search", 429, times=1, retry_after=30)
    with pytest.raises(RateLimitError):
        sharing_client(sandbox, store.shared_pacing, max_retries=0).meta_search("refused", page_size=1)
    held = sharing_client(sandbox, store.shared_pacing, deadline=2)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        outcomes, told = pool.apply_async(search, [(held, 1)]).get(POOL_TIMEOUT)
    assert outcomes == ["APITimeoutError"]
    # Paused until the advised time; nothing of ours was admitted, so the limit is the configured one.
    (wait, per_minute), *_ = told
    assert 20 < wait <= 30 and per_minute == 30, told
    assert meta_searches(sandbox) == 1


def test_a_learned_rate_is_shared(store: Store) -> None:
    with Sandbox(papers=50, rate_limits={"meta-search": 3}) as sandbox:
        first = sharing_client(sandbox, store.shared_pacing, max_retries=0)
        for n in range(3):
            first.meta_search(f"q{n}", page_size=1)
        with pytest.raises(RateLimitError):
            first.meta_search("refused", page_size=1)
        held = sharing_client(sandbox, store.shared_pacing, deadline=2)
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            outcomes, told = pool.apply_async(search, [(held, 1)]).get(POOL_TIMEOUT)
        assert outcomes == ["APITimeoutError"]
        # The other process's 429 taught the gateway's 3 a minute (the configured limit is 30).
        assert told[0][1] == 3, told
        assert meta_searches(sandbox) == 4


PASSWORD = "hunter2-secret"


@pytest.fixture
def guarded_redis() -> Iterator[RedisServer]:
    with RedisServer(password=PASSWORD) as server:
        yield server


def test_redis_keys_hold_a_hash_never_the_token(sandbox: Sandbox, redis_server: RedisServer) -> None:
    sharing_client(sandbox, redis_server.url).meta_search("q", page_size=1)
    held = redis_server.keys()
    assert list(held) == [key for key in held if re.fullmatch(r"paperlens:pacing:[0-9a-f]{32}:meta-search", key)]
    assert len(held) == 1
    assert all(sandbox.token not in key + value for key, value in held.items())
    # The answered request counts a minute; its key expires a minute after (within a clock's rounding).
    [expires_in_ms] = redis_server.cli("PTTL", *held)
    assert 60_000 < int(expires_in_ms) <= 121_000


def test_redis_lost_mid_run_is_a_connection_error_naming_it(sandbox: Sandbox, guarded_redis: RedisServer) -> None:
    client = sharing_client(sandbox, guarded_redis.url, connect_timeout=2)
    client.meta_search("q", page_size=1)
    guarded_redis.stop()
    with pytest.raises(APIConnectionError) as raised:
        client.meta_search("q", page_size=1)
    message = str(raised.value)
    shown = guarded_redis.url.replace(PASSWORD, "***")
    assert f"shared_pacing: the Redis server at {shown} cannot be reached" in message
    assert PASSWORD not in message
    assert meta_searches(sandbox) == 1


def test_redis_unreachable_at_start_is_a_configuration_error(sandbox: Sandbox, guarded_redis: RedisServer) -> None:
    guarded_redis.stop()
    with pytest.raises(ConfigurationError) as raised:
        sharing_client(sandbox, guarded_redis.url, connect_timeout=2)
    message = str(raised.value)
    assert f"cannot use the Redis server at {guarded_redis.url.replace(PASSWORD, '***')}" in message
    assert PASSWORD not in message


def test_a_wrong_redis_password_is_a_configuration_error(sandbox: Sandbox, guarded_redis: RedisServer) -> None:
    with pytest.raises(ConfigurationError) as raised:
        sharing_client(sandbox, guarded_redis.url.replace(PASSWORD, "wrong-one"))
    assert "cannot use the Redis server at redis://:***@" in str(raised.value)
    assert "wrong-one" not in str(raised.value)


def test_a_redis_shared_client_pickles_to_its_url_and_hides_the_password(
    sandbox: Sandbox, guarded_redis: RedisServer
) -> None:
    client = sharing_client(sandbox, guarded_redis.url)
    restored = pickle.loads(pickle.dumps(client))
    assert restored._settings["shared_pacing"] == guarded_redis.url
    restored.meta_search("q", page_size=1)
    for shown in (repr(client), repr(client._settings), repr(restored._settings)):
        assert PASSWORD not in shown
    assert "redis://:***@127.0.0.1" in repr(client._settings)


def test_a_harvest_stopped_by_a_lost_redis_resumes_to_a_plain_runs_output(
    sandbox: Sandbox, redis_server: RedisServer, tmp_path: Path
) -> None:
    def harvest(client: paperlens.Client, out: Path, on_chunk: Callable[[Any], None] | None = None) -> Any:
        return harvest_to(client, None, out=out, format="jsonl", chunk_size=5, page_size=5, limit=20, on_chunk=on_chunk)

    plain = tmp_path / "plain.jsonl"
    harvest(paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url), plain)
    out = tmp_path / "shared.jsonl"
    with pytest.raises(APIConnectionError, match="shared_pacing: the Redis server"):
        harvest(sharing_client(sandbox, redis_server.url), out, on_chunk=lambda _: redis_server.stop())
    written = out.read_text().splitlines()
    assert written == plain.read_text().splitlines()[:5], "the first chunk is kept"
    with RedisServer() as back:
        resumed = harvest(sharing_client(sandbox, back.url), out)
    assert resumed.resumed and resumed.done
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        json.loads(line) for line in plain.read_text().splitlines()
    ]
