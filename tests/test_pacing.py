"""Quota pacing against the sandbox: no request past the quota whatever the gateway's kind,
refused requests not counted, one pause per 429 for every request of the resource.

Time is kept short: a quota is filled at once and the request that would pass it is only
shown to be held back. The minute-long behaviour (a second minute's pages, a stricter
gateway learned) is simulated in Rust (crates/paperlens-core/src/pacing/simulation.rs) and
timed in benches/bench_pacing.py.
"""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

import paperlens
from paperlens.sandbox import Sandbox


def pacing_waits(caplog: pytest.LogCaptureFixture) -> list[float]:
    """The waits the pacer announced, in seconds."""
    found = (re.search(r"pacing: waiting ([\d.]+) s", r.getMessage()) for r in caplog.records)
    return [float(match.group(1)) for match in found if match]


@pytest.mark.parametrize("kind", ["sliding", "fixed", "bucket"])
async def test_a_full_quota_is_sent_without_a_429_and_the_next_request_is_held(kind, caplog):
    with Sandbox(papers=50, rate_limits={"meta-search": 20}, rate_limit_kind=kind) as sandbox:
        client = paperlens.AsyncClient(
            api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 20}, max_retries=0
        )
        pages = await asyncio.gather(*(client.meta_search(f"q{n}", page_size=1) for n in range(20)))
        assert len(pages) == 20
        with caplog.at_level(logging.INFO, logger="paperlens"), pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.meta_search("one too many"), 1.0)
        await asyncio.sleep(0.1)
        # Every request was answered 200 (max_retries=0: a 429 would have raised), and the
        # 21st was never sent: it waits for a slot a minute after the first answer.
        assert len(sandbox.requests()) == 20
        assert pacing_waits(caplog) and min(pacing_waits(caplog)) > 55


def test_refused_requests_use_no_pacing_slot(caplog):
    with Sandbox(papers=50) as sandbox:
        sandbox.inject_fault("/meta-search", status=429, times=2, retry_after=1)
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 3})
        with caplog.at_level(logging.INFO, logger="paperlens"):
            for n in range(3):
                client.meta_search(f"q{n}", page_size=1)
        # 2 refused + 3 admitted: had the refused ones taken slots of the 3 per minute, the
        # second call would have waited a minute; only the pauses of the 429s were waited.
        assert len(sandbox.requests()) == 5
        assert max(pacing_waits(caplog)) <= 1.0


async def test_a_429_pauses_every_request_of_the_resource_and_queued_calls_keep_their_retries(caplog):
    with Sandbox(papers=50) as sandbox:
        sandbox.inject_fault("/meta-search", status=429, times=1, retry_after=1)
        client = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, max_retries=1)
        with caplog.at_level(logging.WARNING, logger="paperlens"):
            refused = asyncio.ensure_future(client.meta_search("first", page_size=1))
            while not any("retry 1 of 1" in r.getMessage() for r in caplog.records):
                await asyncio.sleep(0.01)
        # The resource is paused now, for a second. Calls made during the pause wait for it
        # without spending a retry (they may not retry at all), then all succeed.
        queued = client.with_options(max_retries=0)
        calls = [asyncio.ensure_future(queued.meta_search(f"q{n}", page_size=1)) for n in range(29)]
        await asyncio.sleep(0.3)
        assert len(sandbox.requests()) == 1, "nothing was sent during the pause"
        pages = await asyncio.gather(refused, *calls)
        assert len(pages) == 30
        assert len(sandbox.requests()) == 31
