"""Clients in worker processes: forked (with a client made there or inherited, while the
parent is mid-request too), spawned and forkserver-started, through ``multiprocessing.Pool``,
``ProcessPoolExecutor`` and joblib; a client pickles to its settings.

The workers run in a program of their own (tests/fork_scenarios.py) whose whole process group
is killed when it outlives its timeout: a regression fails here instead of hanging.
"""

from __future__ import annotations

import inspect
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from fork_scenarios import PAPERS, QUERIES, answer
from isolated import run_json

import paperlens
from paperlens.errors import ConfigurationError
from paperlens.machinery import _bridge
from paperlens.sandbox import Sandbox

SCENARIOS = Path(__file__).with_name("fork_scenarios.py")
TIMEOUT = 120
SANDBOX = {"papers": PAPERS}


def run(scenario: str, method: str) -> dict[str, Any]:
    result: dict[str, Any] = run_json(SCENARIOS, scenario, method, timeout=TIMEOUT)
    return result


@pytest.fixture(scope="module")
def expected(sandbox: Sandbox) -> list[Any]:
    """The answers of an equal sandbox (same papers, same seed) to a client of this process."""
    client = paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token)
    answers = [json.loads(json.dumps(answer(client.meta_search(query, page_size=5)))) for query in QUERIES]
    assert all(titles for _, titles in answers)
    return answers


@pytest.mark.parametrize(
    ("executor", "method"),
    [
        ("pool", "fork"),
        ("pool", "spawn"),
        ("pool", "forkserver"),
        ("executor", "fork"),
        ("executor", "spawn"),
        ("joblib", "fork"),
        ("joblib", "spawn"),
    ],
)
def test_workers_answer_as_the_parent_does(executor: str, method: str, expected: list[Any]) -> None:
    result = run(executor, method)
    assert result["parent"] == expected
    inherited = {"inherited", "inherited_async", "inherited_awaitables"}
    kinds = {"new", "given", "new_async"} | (inherited if method == "fork" else set())
    assert set(result["workers"]) == kinds
    for kind, answers in result["workers"].items():
        assert answers == expected, kind


@pytest.mark.parametrize("scenario", ["mid_request", "mid_request_shared_pacing"])
def test_forked_while_the_parent_waits_for_an_answer(scenario: str, expected: list[Any]) -> None:
    result = run(scenario, "fork")
    assert result["workers"] == {"inherited": expected}
    assert result["waiting"] == [expected[0]]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_worker_starts_a_sandbox_of_its_own(method: str, expected: list[Any]) -> None:
    result = run("own_sandbox", method)
    assert result["parent"] == expected
    assert result["workers"] == {"own_sandbox": expected}


def settings_of(client: paperlens.Client | paperlens.AsyncClient) -> dict[str, Any]:
    _, (cls, settings, overrides, closed) = client.__reduce__()
    return {"class": cls, "settings": dict(settings), "overrides": overrides, "closed": closed}


def test_a_client_pickles_to_every_setting(sandbox: Sandbox, tmp_path: Path) -> None:
    given = {
        "api_token": sandbox.token,
        "base_url": sandbox.base_url,
        "timeout": 12.5,
        "connect_timeout": 3.0,
        "max_retries": 5,
        "service_source": "fork-test",
        "rate_limits": {"meta-search": 90},
        "validate": False,
        "max_rate_limit_wait": 20.0,
        "retry_backoff": 0.5,
        "cache_dir": str(tmp_path / "cache"),
        "cache_ttl": 60.0,
        "ca_bundle": None,
        "proxy": None,
        "shared_pacing": str(tmp_path / "pacing.json"),
        "max_concurrency": 3,
    }
    parameters = inspect.signature(paperlens.Client).parameters.values()
    defaults = {parameter.name: parameter.default for parameter in parameters}
    client = paperlens.Client(**given).with_options(timeout=7.0, max_retries=1)
    restored = pickle.loads(pickle.dumps(client))
    assert settings_of(restored) == settings_of(client)
    assert settings_of(client)["settings"] == {**defaults, **given, "base_url": client.base_url}
    assert settings_of(client)["overrides"] == {"timeout": 7.0, "max_retries": 1}
    assert (restored._core.timeout, restored._core.max_retries, restored.base_url) == (7.0, 1, client.base_url)
    assert restored.cache.path == client.cache.path


def test_an_unpickled_client_works(sandbox: Sandbox, expected: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    client = paperlens.Client(base_url=sandbox.base_url)
    client.meta_search(QUERIES[0], page_size=1)
    data = pickle.dumps(client)
    # The token came from the environment; the pickle carries it to a worker without it.
    monkeypatch.delenv("PAPERLENS_API_TOKEN")
    restored = pickle.loads(data)
    assert json.loads(json.dumps(answer(restored.meta_search(QUERIES[1], page_size=5)))) == expected[1]


async def test_an_unpickled_async_client_works(sandbox: Sandbox, expected: list[Any]) -> None:
    client = paperlens.AsyncClient(base_url=sandbox.base_url, api_token=sandbox.token)
    restored = pickle.loads(pickle.dumps(client))
    assert type(restored) is paperlens.AsyncClient
    page = await restored.meta_search(QUERIES[2], page_size=5)
    assert json.loads(json.dumps(answer(page))) == expected[2]


async def test_the_plain_awaitables_run_on_the_runtime(
    sandbox: Sandbox, expected: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loops that cannot watch sockets (Windows' proactor) await the core's own awaitables."""
    monkeypatch.setattr(_bridge, "_bridge", lambda: None)
    client = paperlens.AsyncClient(base_url=sandbox.base_url, api_token=sandbox.token)
    page = await client.meta_search(QUERIES[3], page_size=5)
    assert json.loads(json.dumps(answer(page))) == expected[3]


def test_a_closed_client_unpickles_closed(sandbox: Sandbox) -> None:
    client = paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token)
    client.close()
    assert repr(pickle.loads(pickle.dumps(client))) == "paperlens.Client(closed)"


def test_the_token_is_in_the_pickle_only(sandbox: Sandbox) -> None:
    client = paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token).with_options(timeout=5.0)
    assert sandbox.token.encode() in pickle.dumps(client)
    for shown in (repr(client), str(client), repr(client._settings), str(client._settings), repr(client.__reduce__())):
        assert sandbox.token not in shown


@pytest.mark.parametrize("url", ["memcached://user:secret@host:11211", "s3://bucket/pacing"])
def test_shared_pacing_refuses_a_url_not_of_redis(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    scheme = url.split("://")[0]
    with pytest.raises(ConfigurationError) as raised:
        paperlens.Client(api_token="tok", base_url="http://127.0.0.1:1", shared_pacing=url)
    message = str(raised.value)
    assert "shared_pacing" in message
    assert f"{scheme}://" in message
    assert "True, False, the path of a file, or a redis://" in message
    assert "secret" not in message
    assert list(tmp_path.iterdir()) == []


def test_shared_pacing_takes_a_path_with_a_colon(tmp_path: Path) -> None:
    path = tmp_path / "c:odd" / "pacing.json"
    paperlens.Client(api_token="tok", base_url="http://127.0.0.1:1", shared_pacing=str(path))
    # The lock file beside it is made at once; the state itself at the first step.
    assert path.with_name("pacing.json.lock").exists()
