"""Scale benchmark of ``client.snowball``: a depth-2 snowball over a 100,000-paper sandbox.

    python benches/bench_snowball.py [--papers 100000] [--seeds 3] [--depth 2] [--max-per-paper N]

The sandbox runs in its own process (``paperlens sandbox``), so this process's memory is the
client's. Pacing is off (``rate_limits=None``): the figures are the client's and the sandbox's
speed, not a quota's. Four runs of the same snowball, each on a fresh client (no cache):

- sync: wall time, requests, nodes and edges, requests per second, the sandbox's CPU time;
- sync under tracemalloc: the peak of Python allocations during the snowball (and per node);
- async: wall time of the same snowball on ``AsyncClient``;
- sync with ``checkpoint=``: wall time and the checkpoint's size (one line per page).

The process's peak resident size (``ru_maxrss``) is printed at the end. Not a test: it asserts
only that every run built the same network.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from _server import start_sandbox

import paperlens


def _snowball_args(args: argparse.Namespace, seeds: list[str]) -> dict[str, Any]:
    return {"direction": "both", "depth": args.depth, "max_per_paper": args.max_per_paper, "seeds": seeds}


def _client(base_url: str, token: str) -> paperlens.Client:
    return paperlens.Client(api_token=token, base_url=base_url, rate_limits=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--seeds", type=int, default=3, help="seeds: the first records of an unfiltered search")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--max-per-paper", type=int, default=None)
    args = parser.parse_args()

    started = time.perf_counter()
    server = start_sandbox(args.papers)
    print(f"sandbox of {args.papers} papers ready in {time.perf_counter() - started:.1f} s ({server.base_url})")
    try:
        client = _client(server.base_url, server.token)
        records = client.meta_search(None, page_size=args.seeds, fields=["unique_id", "citation_count"]).results
        seeds = [r.unique_id for r in records]
        print("seeds:", ", ".join(f"{r.unique_id} ({r.citation_count} citations)" for r in records))
        call = _snowball_args(args, seeds)

        cpu = server.cpu_seconds()
        started = time.perf_counter()
        network = _client(server.base_url, server.token).snowball(call.pop("seeds"), **call)
        wall = time.perf_counter() - started
        cpu = server.cpu_seconds() - cpu
        requests = len(network.request_ids)
        shape = (network.node_rows(), network.edge_rows())
        print(
            f"sync: {wall:.2f} s, {requests} requests ({requests / wall:.0f}/s), {len(network)} nodes, "
            f"{len(shape[1])} edges; sandbox CPU {cpu:.2f} s ({cpu / requests * 1e3:.2f} ms/request)"
        )

        del network
        tracemalloc.start()
        traced = _client(server.base_url, server.token).snowball(seeds, **call)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert (traced.node_rows(), traced.edge_rows()) == shape
        print(f"tracemalloc peak during the snowball: {peak / 2**20:.1f} MiB ({peak / len(traced):.0f} B per node)")
        del traced

        async def run_async() -> tuple[float, Any]:
            async with paperlens.AsyncClient(api_token=server.token, base_url=server.base_url, rate_limits=None) as ac:
                began = time.perf_counter()
                result = await ac.snowball(seeds, **call)
                return time.perf_counter() - began, result

        async_wall, async_network = asyncio.run(run_async())
        assert (async_network.node_rows(), async_network.edge_rows()) == shape
        print(f"async: {async_wall:.2f} s")
        del async_network

        with tempfile.TemporaryDirectory() as folder:
            checkpoint = Path(folder) / "snowball.ckpt"
            started = time.perf_counter()
            journaled = _client(server.base_url, server.token).snowball(seeds, checkpoint=checkpoint, **call)
            journal_wall = time.perf_counter() - started
            assert (journaled.node_rows(), journaled.edge_rows()) == shape
            size = os.path.getsize(checkpoint)
            started = time.perf_counter()
            _client(server.base_url, server.token).snowball(seeds, checkpoint=checkpoint, **call)
            replay = time.perf_counter() - started
        print(
            f"with checkpoint: {journal_wall:.2f} s, checkpoint {size / 2**20:.1f} MiB; "
            f"returned from the finished checkpoint in {replay:.2f} s, no request"
        )
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak resident size of this process (ru_maxrss): {maxrss:.0f} MiB")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
