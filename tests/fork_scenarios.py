"""Clients in worker processes, run as a program by tests/test_fork.py: its parent starts a
sandbox, makes requests, then hands work to processes; it prints, as one JSON object, the
parent's answer and each worker's. A regression hangs here, where the test's timeout kills
the whole process group.

    python tests/fork_scenarios.py SCENARIO START_METHOD
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import paperlens
from paperlens.sandbox import Sandbox

PAPERS = 200
QUERIES = ["coral", "climate", "cancer", "reef"]

Answer = list[Any]

# Set by the parent before it forks; a forked worker inherits it, a spawned one has None.
INHERITED: dict[str, Any] = {}


def answer(page: paperlens.types.MetaSearchPage) -> Answer:
    return [page.total_count, [(record.doc_id, record.title, record.doi) for record in page.results]]


def search(client: paperlens.Client, query: str) -> Answer:
    return answer(client.meta_search(query, page_size=5))


def with_new_client(job: tuple[str, str, str]) -> Answer:
    base_url, token, query = job
    return search(paperlens.Client(base_url=base_url, api_token=token), query)


def with_given_client(job: tuple[paperlens.Client, str]) -> Answer:
    client, query = job
    return search(client, query)


def with_inherited_client(query: str) -> Answer:
    return search(INHERITED["client"], query)


def with_new_async_client(job: tuple[str, str, str]) -> Answer:
    base_url, token, query = job

    async def run() -> Answer:
        async with paperlens.AsyncClient(base_url=base_url, api_token=token) as client:
            return answer(await client.meta_search(query, page_size=5))

    return asyncio.run(run())


def with_inherited_async_client(query: str) -> Answer:
    async def run() -> Answer:
        return answer(await INHERITED["async_client"].meta_search(query, page_size=5))

    return asyncio.run(run())


def with_inherited_async_client_awaitables(query: str) -> Answer:
    """The core's plain awaitables, which loops that cannot watch sockets use (Windows' proactor)."""
    from paperlens.machinery import _bridge

    _bridge._bridge = lambda: None
    return with_inherited_async_client(query)


def with_own_sandbox(query: str) -> Answer:
    with Sandbox(papers=PAPERS) as sandbox:
        return search(paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token), query)


def pool_map(method: str, work: Callable[[Any], Answer], jobs: list[Any]) -> list[Answer]:
    with multiprocessing.get_context(method).Pool(2) as pool:
        return pool.map(work, jobs)


def executor_map(method: str, work: Callable[[Any], Answer], jobs: list[Any]) -> list[Answer]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(method)) as executor:
        return list(executor.map(work, jobs))


def joblib_map(method: str, work: Callable[[Any], Answer], jobs: list[Any]) -> list[Answer]:
    import joblib

    backend = "multiprocessing" if method == "fork" else "loky"
    results: list[Answer] = joblib.Parallel(n_jobs=2, backend=backend)(joblib.delayed(work)(job) for job in jobs)
    return results


MAPS = {"pool": pool_map, "executor": executor_map, "joblib": joblib_map}


def clients(map_: Callable[..., list[Answer]], method: str, sandbox: Sandbox) -> dict[str, Any]:
    """Every way a worker gets a client, after the parent made requests with its own."""
    client = paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token, max_concurrency=1)
    INHERITED["client"] = client
    INHERITED["async_client"] = paperlens.AsyncClient(base_url=sandbox.base_url, api_token=sandbox.token)
    parent = [search(client, query) for query in QUERIES]
    asyncio.run(INHERITED["async_client"].meta_search("coral", page_size=1))
    new = [(sandbox.base_url, sandbox.token, query) for query in QUERIES]
    workers = {
        "new": map_(method, with_new_client, new),
        "given": map_(method, with_given_client, [(client, query) for query in QUERIES]),
        "new_async": map_(method, with_new_async_client, new),
    }
    if method == "fork":
        workers["inherited"] = map_(method, with_inherited_client, QUERIES)
        workers["inherited_async"] = map_(method, with_inherited_async_client, QUERIES)
        workers["inherited_awaitables"] = map_(method, with_inherited_async_client_awaitables, QUERIES)
    return {"parent": parent, "workers": workers}


def mid_request(method: str, sandbox: Sandbox, shared_pacing: bool | str) -> dict[str, Any]:
    """Workers start while a thread of the parent waits for an answer on the client they
    inherit (its one place in flight taken, its connection busy, its pacing ticket out)."""
    client = paperlens.Client(
        base_url=sandbox.base_url, api_token=sandbox.token, max_concurrency=1, shared_pacing=shared_pacing
    )
    INHERITED["client"] = client
    parent = [search(client, query) for query in QUERIES]
    sandbox.inject_fault("/meta-search", delay=3.0)
    sandbox.clear_requests()
    waiting: list[Answer] = []
    thread = threading.Thread(target=lambda: waiting.append(search(client, QUERIES[0])))
    thread.start()
    while not sandbox.requests():
        time.sleep(0.01)
    workers = {"inherited": pool_map(method, with_inherited_client, QUERIES)}
    thread.join()
    return {"parent": parent, "workers": workers, "waiting": waiting}


def main(scenario: str, method: str) -> dict[str, Any]:
    with Sandbox(papers=PAPERS) as sandbox:
        if scenario in MAPS:
            return clients(MAPS[scenario], method, sandbox)
        if scenario == "mid_request":
            return mid_request(method, sandbox, shared_pacing=False)
        if scenario == "mid_request_shared_pacing":
            with tempfile.TemporaryDirectory() as folder:
                return mid_request(method, sandbox, shared_pacing=f"{folder}/pacing.json")
        if scenario == "own_sandbox":
            client = paperlens.Client(base_url=sandbox.base_url, api_token=sandbox.token)
            parent = [search(client, query) for query in QUERIES]
            return {"parent": parent, "workers": {"own_sandbox": pool_map(method, with_own_sandbox, QUERIES)}}
        raise SystemExit(f"unknown scenario {scenario!r}")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
