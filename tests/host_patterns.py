"""How hosts run paperlens, each in a fresh interpreter, run as a program by tests/test_host_patterns.py.

Each pattern imports paperlens where its host would (a thread that ends, a pool's task, a Dask worker
thread...), makes requests to the sandbox it is given, and prints one JSON object: the answers it got.
A crash (a signal) or a hang fails only its own test: the parent kills the whole process group.

    python tests/host_patterns.py PATTERN BASE_URL TOKEN
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

QUERIES = ["coral", "climate", "cancer", "reef"]

Answer = list[Any]


def search(base_url: str, token: str, query: str, client: Any = None) -> Answer:
    """One `/meta-search` by a client made here (or the one given), as comparable JSON values."""
    import paperlens

    client = client or paperlens.Client(base_url=base_url, api_token=token)
    page = client.meta_search(query, page_size=5)
    return [page.total_count, [(record.unique_id, record.title, record.doi) for record in page.results]]


def in_thread(work: Callable[[], Any]) -> Any:
    """`work()` on a new thread that ends before this returns (its exception re-raised here)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as error:  # handed to the caller's thread
            out["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def first_import_in_a_thread_that_ends(base_url: str, token: str) -> dict[str, Any]:
    """A web server importing lazily in a request thread, then serving from another."""

    def first() -> None:
        import paperlens  # noqa: F401

    in_thread(first)
    return {"after": [search(base_url, token, query) for query in QUERIES]}


def thread_pool_churn(base_url: str, token: str) -> dict[str, Any]:
    """Pools made and shut down, their tasks importing paperlens and each making a client."""
    rounds = []
    for _ in range(4):
        with ThreadPoolExecutor(4) as pool:
            rounds.append(list(pool.map(lambda query: search(base_url, token, query), QUERIES)))
    return {"rounds": rounds, "after": [search(base_url, token, query) for query in QUERIES]}


def streamlit_reruns(base_url: str, token: str) -> dict[str, Any]:
    """Streamlit runs the script on a new thread per rerun; a cached client outlives the thread
    that made it (st.cache_resource), and each rerun also makes one of its own."""
    cache: dict[str, Any] = {}

    def script(query: str) -> Answer:
        import paperlens

        if "client" not in cache:
            cache["client"] = paperlens.Client(base_url=base_url, api_token=token)
        return [search(base_url, token, query, cache["client"]), search(base_url, token, query)]

    reruns = [in_thread(lambda query=query: script(query)) for query in QUERIES * 2]
    return {"reruns": reruns, "after": [search(base_url, token, query, cache["client"]) for query in QUERIES]}


def fork_after_threaded_import(base_url: str, token: str) -> dict[str, Any]:
    """Imported and used on a thread that ended, then `os.fork()`: the child uses the inherited
    client and a new one, and reports through a pipe."""
    client = in_thread(lambda: __import__("paperlens").Client(base_url=base_url, api_token=token))
    parent = [search(base_url, token, query, client) for query in QUERIES]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            child = {
                "inherited": [search(base_url, token, query, client) for query in QUERIES],
                "new": [search(base_url, token, query) for query in QUERIES],
            }
            os.write(write_end, json.dumps(child).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return {"parent": parent, "child_status": status, "child": json.loads(b"".join(chunks) or b"null")}


def dask_worker_threads(base_url: str, token: str) -> dict[str, Any]:
    """A Dask `LocalCluster(processes=False)`: tasks import paperlens on its worker threads; the
    cluster closes (its threads end) and this thread goes on."""
    from dask.distributed import Client as DaskClient
    from dask.distributed import LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=2, processes=False, dashboard_address=None) as cluster,
        DaskClient(cluster) as dask,
    ):
        futures = dask.map(lambda query: search(base_url, token, query), QUERIES, pure=False)
        workers = dask.gather(futures)
    return {"workers": workers, "after": [search(base_url, token, query) for query in QUERIES]}


def asyncio_run_in_threads(base_url: str, token: str) -> dict[str, Any]:
    """`asyncio.run` on several threads at once, each with its own AsyncClient."""

    def run(query: str) -> Answer:
        import paperlens

        async def main() -> Answer:
            async with paperlens.AsyncClient(base_url=base_url, api_token=token) as client:
                page = await client.meta_search(query, page_size=5)
                return [page.total_count, [(r.unique_id, r.title, r.doi) for r in page.results]]

        return asyncio.run(main())

    with ThreadPoolExecutor(len(QUERIES)) as pool:
        threads = list(pool.map(run, QUERIES))
    return {"threads": threads, "after": [search(base_url, token, query) for query in QUERIES]}


def shutdown_with_requests_in_flight(base_url: str, token: str) -> dict[str, Any]:
    """The interpreter exits while daemon threads wait on answers (the sandbox delays every
    answer, so that they are all still in flight)."""
    import paperlens

    client = paperlens.Client(base_url=base_url, api_token=token)
    after = [search(base_url, token, QUERIES[0], client)]
    started = threading.Barrier(len(QUERIES) + 1)

    def waiting(query: str) -> None:
        started.wait()
        search(base_url, token, query, client)

    for query in QUERIES:
        threading.Thread(target=waiting, args=(query,), daemon=True).start()
    started.wait()
    time.sleep(1.0)  # their requests sent; the sandbox holds each answer for longer than this
    return {"after": after}


PATTERNS: dict[str, Callable[[str, str], dict[str, Any]]] = {
    pattern.__name__: pattern
    for pattern in (
        first_import_in_a_thread_that_ends,
        thread_pool_churn,
        streamlit_reruns,
        fork_after_threaded_import,
        dask_worker_threads,
        asyncio_run_in_threads,
        shutdown_with_requests_in_flight,
    )
}

if __name__ == "__main__":
    name, base_url, token = sys.argv[1:4]
    print(json.dumps(PATTERNS[name](base_url, token)), flush=True)
