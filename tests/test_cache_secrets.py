"""The response cache is the user's own: entries authenticated with a per-user secret (a forged
entry is never served), its folder and key checked before use (another user's or a shared one
is not used). Real processes, real files, a real other uid where the test runs as root."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import paperlens
from paperlens.sandbox import Sandbox

from other_user import as_nobody, needs_root, shared_folder

SANDBOX = dict(papers=50)
PACKAGE_ROOT = Path(paperlens.__file__).resolve().parent.parent


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder of the test's own, where the user's cache key is made."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def sent(sandbox: Sandbox) -> int:
    return sum(1 for r in sandbox.requests() if r.path == "/meta-search")


def cached_client(sandbox: Sandbox, cache_dir: Path) -> paperlens.Client:
    return paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, cache_dir=cache_dir, rate_limits=None)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_users_key_is_made_once_whole_and_private_by_racing_processes(sandbox, tmp_path, config_home):
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    code = (
        "import sys, paperlens\n"
        "token, base_url, cache, size = sys.argv[1:5]\n"
        "client = paperlens.Client(api_token=token, base_url=base_url, cache_dir=cache, rate_limits=None)\n"
        "client.meta_search(None, page_size=int(size))\n"
    )
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", code, sandbox.token, sandbox.base_url, str(cache), str(size)],
            env=env,
            stderr=subprocess.PIPE,
        )
        for size in range(1, 7)
    ]
    for racer in racers:
        assert racer.wait(timeout=120) == 0, racer.communicate()[1].decode()
    key = config_home / "paperlens" / "cache-key"
    assert re.fullmatch("[0-9a-f]{64}", key.read_text())
    assert (mode(key.parent), mode(key)) == (0o700, 0o600)
    assert [p.name for p in key.parent.iterdir()] == ["cache-key"]
    assert {mode(folder) for folder in [cache, *(p for p in cache.iterdir())]} == {0o700}
    # Every process wrote with the one key: all six answers are served here without a request.
    client, before = cached_client(sandbox, cache), sent(sandbox)
    answers = [client.meta_search(None, page_size=size) for size in range(1, 7)]
    assert sent(sandbox) == before
    assert [len(answer.results) for answer in answers] == list(range(1, 7))


def forged_entry(key: str, body: bytes, sign) -> bytes:
    """An entry for the file name ``key`` in the cache's format, its 32-byte tag from ``sign``."""
    header = {
        "key": key,
        "stored_at": time.time(),
        "status": 200,
        "request_id": "forged-request",
        "content_type": "application/json",
        "content_disposition": None,
        "body_len": len(body),
    }
    encoded = json.dumps(header).encode()
    rest = len(encoded).to_bytes(4, "little") + encoded + body
    return b"PLC3\n" + sign(rest) + rest


def test_an_entry_forged_from_its_file_name_is_never_served(sandbox, tmp_path, config_home, caplog):
    cache = tmp_path / "cache"
    client = cached_client(sandbox, cache)
    real = client.meta_search("learning", page_size=3)
    [entry] = cache.rglob("*.plc")
    forged = json.dumps({**real.to_dict(), "total_count": 999999, "results": []}).encode()
    ours = bytes.fromhex((config_home / "paperlens" / "cache-key").read_text())
    theirs = os.urandom(32)
    signers = {
        "a bare SHA-256": lambda rest: hashlib.sha256(rest).digest(),
        "another user's key": lambda rest: hmac.new(theirs, rest, hashlib.sha256).digest(),
    }
    for how, sign in signers.items():
        entry.write_bytes(forged_entry(entry.stem, forged, sign))
        before = sent(sandbox)
        with caplog.at_level(logging.DEBUG, logger="paperlens"):
            again = client.meta_search("learning", page_size=3)
        assert sent(sandbox) == before + 1, how
        assert again.to_dict()["results"] == real.to_dict()["results"] and again.total_count == real.total_count
        assert any(f"entry {entry} is damaged (fails its authentication" in r.getMessage() for r in caplog.records)
    # The same forgery with this user's key is served: the format above is the cache's own.
    entry.write_bytes(forged_entry(entry.stem, forged, lambda rest: hmac.new(ours, rest, hashlib.sha256).digest()))
    before = sent(sandbox)
    served = client.meta_search("learning", page_size=3)
    assert sent(sandbox) == before and served.total_count == 999999 and served.request_id == "forged-request"


def refused(sandbox: Sandbox, cache: Path, caplog: pytest.LogCaptureFixture) -> str:
    """The warning of a client refusing ``cache``, once it is shown that every call is sent."""
    with caplog.at_level(logging.WARNING, logger="paperlens"):
        client = cached_client(sandbox, cache)
    assert not client.cache.enabled and client.cache.path is None
    before = sent(sandbox)
    first, second = client.meta_search("learning", page_size=2), client.meta_search("learning", page_size=2)
    assert sent(sandbox) == before + 2 and first.to_dict()["results"] == second.to_dict()["results"]
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(f"the response cache {cache} is not used: ")
    assert warning.endswith("; every call goes to the service")
    return warning


def test_a_cache_folder_others_may_write_is_not_used(sandbox, tmp_path, config_home, caplog):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    warning = refused(sandbox, cache, caplog)
    assert f"the folder {cache} has mode 0777 (others may write into it)" in warning
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize("unsafe", ["readable by others", "a symbolic link"])
def test_a_cache_key_that_is_not_the_users_alone_is_not_used(sandbox, tmp_path, config_home, caplog, unsafe):
    folder = config_home / "paperlens"
    folder.mkdir(parents=True, mode=0o700)
    key = folder / "cache-key"
    if unsafe == "readable by others":
        key.write_text("ab" * 32)
        key.chmod(0o644)
        why = "has mode 0644 (others may read or write it)"
    else:
        target = tmp_path / "elsewhere"
        target.write_text("ab" * 32)
        target.chmod(0o600)
        key.symlink_to(target)
        why = "is a symbolic link (never followed); remove it"
    warning = refused(sandbox, tmp_path / "cache", caplog)
    assert f"the cache key {key}: {why}" in warning


@needs_root
def test_a_cache_folder_another_user_made_first_is_not_used(sandbox, config_home, caplog):
    with shared_folder() as base:
        cache = base / "cache"
        as_nobody('mkdir -m 755 "$1" && mkdir -m 777 "$1/ab"', str(cache))
        owner = cache.stat().st_uid
        assert owner != 0
        warning = refused(sandbox, cache, caplog)
        assert f"the folder {cache} belongs to uid {owner}, not to this user (uid 0)" in warning
        assert [p.name for p in cache.iterdir()] == ["ab"] and list((cache / "ab").iterdir()) == []
