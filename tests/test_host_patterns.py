"""No host crashes the process: each way a host runs Python code (tests/host_patterns.py) in a
fresh interpreter, against one sandbox, answered as this process is answered.

A crash (SIGSEGV in the allocator's thread set-up was one: issue 36) ends only the pattern's own
interpreter, and fails its test with the signal; a hang is killed with its process group.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from host_patterns import PATTERNS, QUERIES, search
from isolated import run_json

from paperlens.sandbox import Sandbox

PROGRAM = Path(__file__).with_name("host_patterns.py")
TIMEOUT = 180
SANDBOX = {"papers": 300}


def run(pattern: str, sandbox: Sandbox) -> dict[str, Any]:
    result: dict[str, Any] = run_json(PROGRAM, pattern, sandbox.base_url, sandbox.token, timeout=TIMEOUT)
    return result


@pytest.fixture(scope="module")
def expected(sandbox: Sandbox) -> dict[str, Any]:
    """This process's answers, as JSON makes them (tuples become lists)."""
    return {query: json.loads(json.dumps(search(sandbox.base_url, sandbox.token, query))) for query in QUERIES}


def test_the_patterns_are_all_here() -> None:
    assert set(PATTERNS) == {
        "first_import_in_a_thread_that_ends",
        "thread_pool_churn",
        "streamlit_reruns",
        "fork_after_threaded_import",
        "dask_worker_threads",
        "asyncio_run_in_threads",
        "shutdown_with_requests_in_flight",
    }


def test_first_import_in_a_thread_that_ends(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("first_import_in_a_thread_that_ends", sandbox)
    assert result["after"] == list(expected.values())


def test_thread_pool_churn(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("thread_pool_churn", sandbox)
    assert result["rounds"] == [list(expected.values())] * 4
    assert result["after"] == list(expected.values())


def test_streamlit_reruns(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("streamlit_reruns", sandbox)
    assert result["reruns"] == [[expected[query]] * 2 for query in QUERIES * 2]
    assert result["after"] == list(expected.values())


def test_fork_after_threaded_import(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("fork_after_threaded_import", sandbox)
    assert result["parent"] == list(expected.values())
    assert os.waitstatus_to_exitcode(result["child_status"]) == 0
    assert result["child"] == {"inherited": list(expected.values()), "new": list(expected.values())}


def test_dask_worker_threads(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("dask_worker_threads", sandbox)
    assert result["workers"] == list(expected.values())
    assert result["after"] == list(expected.values())


def test_asyncio_run_in_threads(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    result = run("asyncio_run_in_threads", sandbox)
    assert result["threads"] == list(expected.values())
    assert result["after"] == list(expected.values())


def test_shutdown_with_requests_in_flight(sandbox: Sandbox, expected: dict[str, Any]) -> None:
    sandbox.clear_requests()
    sandbox.inject_fault("/meta-search", delay=5.0, times=1 + len(QUERIES))
    result = run("shutdown_with_requests_in_flight", sandbox)
    assert result["after"] == [expected[QUERIES[0]]]
    # The exit came while the daemon threads' requests were in flight: the sandbox had them.
    assert len(sandbox.requests()) > 1
