"""The opt-in response cache: a repeated call sends nothing and costs no quota."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

import paperlens
from paperlens.sandbox import Sandbox

from fixtures import sandbox_environment

SANDBOX = dict(papers=300)


def sent(sandbox: Sandbox, path: str = "/meta-search") -> int:
    return sum(1 for r in sandbox.requests() if r.path == path)


def cached_client(sandbox: Sandbox, cache_dir: Path, **options) -> paperlens.Client:
    return paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, cache_dir=cache_dir, **options)


def test_a_repeated_call_makes_no_request(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path)
    before = sent(sandbox)
    first = client.meta_search("learning", page_size=5)
    second = client.meta_search("learning", page_size=5)
    assert sent(sandbox) == before + 1
    assert second == first and second.request_id == first.request_id
    # A new client (a re-run notebook) on the same directory is served too.
    again = cached_client(sandbox, tmp_path).meta_search("learning", page_size=5)
    assert again == first and sent(sandbox) == before + 1


def test_other_parameters_or_token_miss(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path)
    before = sent(sandbox)
    client.meta_search("learning", page_size=5)
    client.meta_search("learning", page_size=6)
    client.meta_search("neural", page_size=5)
    assert sent(sandbox) == before + 3
    restricted = paperlens.Client(api_token=sandbox.restricted_token, base_url=sandbox.base_url, cache_dir=tmp_path)
    restricted.meta_search("learning", page_size=5)
    assert sent(sandbox) == before + 4


def test_the_token_is_never_stored(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path)
    client.meta_search("learning", page_size=3)
    client.meta_catalog()
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert sandbox.token not in path.name
        assert sandbox.token.encode() not in path.read_bytes()


def test_expired_entries_are_fetched_again(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path, cache_ttl=0.3)
    assert client.cache.ttl == pytest.approx(0.3)
    before = sent(sandbox)
    client.meta_search("learning", page_size=4)
    client.meta_search("learning", page_size=4)
    assert sent(sandbox) == before + 1
    time.sleep(0.4)
    client.meta_search("learning", page_size=4)
    assert sent(sandbox) == before + 2


def test_clear(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path)
    (tmp_path / "mine.txt").write_text("not the cache's")
    assert client.cache.path == tmp_path and client.cache.enabled
    client.meta_search("learning", page_size=2)
    client.meta_catalog()
    assert client.cache.clear() == 2
    before = sent(sandbox)
    client.meta_search("learning", page_size=2)
    assert sent(sandbox) == before + 1
    assert (tmp_path / "mine.txt").read_text() == "not the cache's"


def test_off_by_default(sandbox):
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
    assert not client.cache.enabled and client.cache.path is None and client.cache.clear() == 0
    before = sent(sandbox)
    client.meta_search("learning", page_size=2)
    client.meta_search("learning", page_size=2)
    assert sent(sandbox) == before + 2


def test_a_hit_costs_no_quota(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path, rate_limits={"meta-search": 1})
    client.meta_search("learning", page_size=3)
    started = time.monotonic()
    client.meta_search("learning", page_size=3)  # a second request would wait a minute for the quota
    assert time.monotonic() - started < 1


def test_errors_are_not_cached(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path, max_retries=0)
    sandbox.inject_fault("/meta-search", status=503)
    with pytest.raises(paperlens.ServerError):
        client.meta_search("neural", page_size=3)
    assert client.meta_search("neural", page_size=3).total_count


def test_resources_and_downloads_are_cached(sandbox, tmp_path):
    client = cached_client(sandbox, tmp_path / "cache")
    hit = client.agentic_search("neuron", top_k=1).hits[0]
    name = _figure(client, hit.doc_id)
    before = sent(sandbox, "/resource")
    data = client.resource(name).data
    assert client.resource(name).data == data
    path = client.download_resource(name, tmp_path / "fig.png")
    assert path.read_bytes() == data
    assert sent(sandbox, "/resource") == before + 1


def _figure(client: paperlens.Client, doc_id: str) -> str:
    import re

    match = re.search(r"!\[[^\]]*\]\(([^)\s]+)\)", client.read_text(doc_id))
    assert match, "the sandbox's papers have figures"
    return match.group(1)


def test_hits_are_logged_at_debug(sandbox, tmp_path, caplog):
    client = cached_client(sandbox, tmp_path)
    client.meta_search("learning", page_size=7)
    with caplog.at_level(logging.DEBUG, logger="paperlens"):
        client.meta_search("learning", page_size=7)
    assert any("response cache" in r.getMessage() for r in caplog.records)
    assert all(sandbox.token not in r.getMessage() for r in caplog.records)


async def test_async_client_uses_the_cache(sandbox, tmp_path):
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, cache_dir=tmp_path) as client:
        before = sent(sandbox)
        first = await client.meta_search("learning", page_size=9)
        assert await client.meta_search("learning", page_size=9) == first
        assert sent(sandbox) == before + 1
        assert client.cache.clear() == 1


_WRITER = """
import sys, paperlens
client = paperlens.Client(cache_dir=sys.argv[1], rate_limits=None)
for _ in range(20):
    client.cache.clear()
    assert client.meta_search("learning", page_size=50).results
"""


def test_processes_sharing_a_directory(sandbox, tmp_path):
    env = sandbox_environment(sandbox)
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path)], env=env, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    client = cached_client(sandbox, tmp_path, rate_limits=None)
    before = sent(sandbox)
    assert client.meta_search("learning", page_size=50).results
    assert sent(sandbox) == before  # a whole entry was left by the last writer
    debris = [p for p in tmp_path.rglob(".tmp-*")]
    assert debris == []


def damage_in_place(entry: Path, find: bytes, replace: bytes) -> None:
    """Changes bytes of a cache entry, keeping its length (what a bad sector or a stray write does)."""
    data = entry.read_bytes()
    at = data.rindex(find)
    assert len(find) == len(replace) and find != replace
    entry.write_bytes(data[:at] + replace + data[at + len(find) :])


@pytest.mark.parametrize("damage", ["a digit changed", "broken JSON"])
def test_a_damaged_entry_is_dropped_and_fetched_again_never_served(sandbox, tmp_path, caplog, damage):
    client = cached_client(sandbox, tmp_path)
    first = client.meta_search("learning", page_size=4)
    [entry] = tmp_path.rglob("*.plc")
    total = str(first.total_count).encode()
    if damage == "a digit changed":
        wrong = str((first.total_count + 1) % 10 ** len(total)).zfill(len(total)).encode()
        damage_in_place(entry, b'"total_count":' + total, b'"total_count":' + wrong)
    else:
        damage_in_place(entry, b"}", b" ")
    before = sent(sandbox)
    with caplog.at_level(logging.DEBUG, logger="paperlens"):
        again = client.meta_search("learning", page_size=4)
    assert sent(sandbox) == before + 1
    assert again.total_count == first.total_count and again.to_dict()["results"] == first.to_dict()["results"]
    assert any(f"entry {entry} is damaged" in r.getMessage() for r in caplog.records)
    # The fresh answer replaced the entry: the next call is a hit.
    assert client.meta_search("learning", page_size=4).request_id == again.request_id
    assert sent(sandbox) == before + 1
