"""paperlens against httpx + orjson and aiohttp + orjson, same calls, same loopback server.

Run:  python benches/bench_client.py   (needs: pip install -e ".[bench]", and wrk on the PATH
for the server's throughput)

The server is a sandbox in its own process. Its throughput is what wrk, the HTTP load
generator, gets from it over 64 connections on the same machine. Its CPU time per call while
the fastest client runs is reported too (1 / CPU seconds per call: calls per second per core).
Both are compared with the fastest client's rate. Results are reported as ratios from one run.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp
import httpx
import orjson

sys.path.insert(0, str(Path(__file__).parent))
from _server import SandboxProcess, start_sandbox

import paperlens

META = ("/meta-search", {"page_size": 200})
AGENTIC = ("/agentic-search", {"query": "retrieval augmented generation for question answering", "top_k": 10})
CALLS = {"meta-search (200 records)": META, "agentic-search (10 hits)": AGENTIC}
SYNC_CALLS, ASYNC_CALLS, IN_FLIGHT, THREADS = 400, 5000, 64, 8
WRK_SECONDS = 4
SCALING_SECONDS = 0.5


def per_call(call: Callable[[], object], n: int) -> tuple[float, float]:
    """Median-of-3 wall and CPU seconds per call."""
    for _ in range(20):
        call()
    walls, cpus = [], []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(n):
            call()
        walls.append((time.perf_counter() - wall) / n)
        cpus.append((time.process_time() - cpu) / n)
    return statistics.median(walls), statistics.median(cpus)


def sync_clients(server: SandboxProcess, path: str) -> dict[str, Callable[[str, dict], Callable[[], object]]]:
    client = paperlens.Client(api_token=server.token, base_url=server.base_url, rate_limits=None)
    methods = {"/meta-search": client.meta_search, "/agentic-search": client.agentic_search}
    hx = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {server.token}"})

    def with_httpx(path: str, body: dict) -> Callable[[], object]:
        payload = orjson.dumps(body)
        headers = {"Content-Type": "application/json"}
        return lambda: orjson.loads(hx.post(path, content=payload, headers=headers).raise_for_status().content)

    def with_rows_read(path: str, body: dict) -> Callable[[], object]:
        def call() -> list[str | None]:
            return [row.doi for row in methods[path](**body).results]

        return call

    clients = {"paperlens": lambda path, body: lambda: methods[path](**body), "httpx + orjson": with_httpx}
    if path == "/meta-search":
        # Rows are decoded when first read: this is the cost of a call whose every row is used.
        clients["paperlens, every row read"] = with_rows_read
    return clients


async def async_throughput(
    server: SandboxProcess, path: str, body: dict, only: tuple[str, ...] = ()
) -> tuple[dict[str, float], dict[str, float]]:
    """Calls per second of each client (or of those named in ``only``) at IN_FLIGHT concurrent
    calls, and the server's CPU seconds per call during each run."""
    results, server_cpu = {}, {}
    client = paperlens.AsyncClient(api_token=server.token, base_url=server.base_url, rate_limits=None)
    method = {"/meta-search": client.meta_search, "/agentic-search": client.agentic_search}[path]
    payload = orjson.dumps(body)
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    connector = aiohttp.TCPConnector(limit=IN_FLIGHT)
    async with aiohttp.ClientSession(server.base_url, connector=connector, headers=headers) as session:

        async def with_aiohttp() -> object:
            async with session.post(path, data=payload) as response:
                response.raise_for_status()
                return orjson.loads(await response.read())

        async with httpx.AsyncClient(
            base_url=server.base_url, headers=headers, limits=httpx.Limits(max_connections=IN_FLIGHT)
        ) as hx:

            async def with_httpx() -> object:
                return orjson.loads((await hx.post(path, content=payload)).raise_for_status().content)

            for name, call in [
                ("paperlens", lambda: method(**body)),
                ("aiohttp + orjson", with_aiohttp),
                ("httpx + orjson", with_httpx),
            ]:
                if only and name not in only:
                    continue
                before = server.cpu_seconds()
                results[name], calls = await rate(call)
                server_cpu[name] = (server.cpu_seconds() - before) / calls
    return results, server_cpu


async def rate(call: Callable[[], object]) -> tuple[float, int]:
    """Calls per second at IN_FLIGHT concurrent calls: the median of 3 runs of ASYNC_CALLS
    calls (one run for a client slower than a second per run); and how many calls were made."""
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one() -> None:
        async with gate:
            await call()

    async def run(calls: int) -> float:
        started = time.perf_counter()
        await asyncio.gather(*[one() for _ in range(calls)])
        return calls / (time.perf_counter() - started)

    await run(200)
    rates = [await run(ASYNC_CALLS)]
    if ASYNC_CALLS / rates[0] < 1:
        rates += [await run(ASYNC_CALLS) for _ in range(2)]
    return statistics.median(rates), 200 + ASYNC_CALLS * len(rates)


def thread_scaling(server: SandboxProcess, path: str, body: dict) -> tuple[float, float]:
    """Calls per second of the sync client with 1 and with THREADS threads: the medians of
    3 interleaved runs of about SCALING_SECONDS each, so that a moment of host noise moves
    one run rather than the ratio."""
    client = paperlens.Client(api_token=server.token, base_url=server.base_url, rate_limits=None)
    method = {"/meta-search": client.meta_search, "/agentic-search": client.agentic_search}[path]

    def call(_: int) -> None:
        method(**body)  # results dropped as they come, as in the other measurements

    def run(threads: int, calls: int) -> float:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(call, range(THREADS * 4)))
            started = time.perf_counter()
            list(pool.map(call, range(calls)))
            return calls / (time.perf_counter() - started)

    calls = max(SYNC_CALLS, round(run(1, SYNC_CALLS) * SCALING_SECONDS))
    one, many = [], []
    for _ in range(3):
        one.append(run(1, calls))
        many.append(run(THREADS, calls))
    return statistics.median(one), statistics.median(many)


def wrk_throughput(server: SandboxProcess, path: str, body: dict) -> tuple[float, float] | None:
    """Calls per second wrk gets from the sandbox over IN_FLIGHT connections, and the CPU
    cores the sandbox used meanwhile; None when wrk is not installed."""
    wrk = shutil.which("wrk")
    if wrk is None:
        return None
    script = "\n".join(
        [
            'wrk.method = "POST"',
            f"wrk.body = [[{orjson.dumps(body).decode()}]]",
            'wrk.headers["Content-Type"] = "application/json"',
            f'wrk.headers["Authorization"] = "Bearer {server.token}"',
        ]
    )
    with tempfile.TemporaryDirectory() as directory:
        lua = Path(directory, "call.lua")
        lua.write_text(script)
        command = [wrk, "-t1", f"-c{IN_FLIGHT}", f"-d{WRK_SECONDS}s", "-s", str(lua), server.base_url + path]
        before, started = server.cpu_seconds(), time.perf_counter()
        report = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        cores = (server.cpu_seconds() - before) / (time.perf_counter() - started)
    if "Non-2xx" in report:
        raise RuntimeError(f"wrk got error answers from {path}:\n{report}")
    rate = re.search(r"Requests/sec:\s+([\d.]+)", report)
    if rate is None:
        raise RuntimeError(f"no rate in wrk's report:\n{report}")
    return float(rate.group(1)), cores


def main() -> None:
    server = start_sandbox()
    lines = [
        f"python {sys.version.split()[0]}, paperlens {paperlens.__version__}, httpx {httpx.__version__}, "
        f"aiohttp {aiohttp.__version__}, orjson {orjson.__version__}; sandbox of 2000 papers in its own process",
        "",
    ]
    try:
        lines += [
            "| call | client | ms per sync call | CPU ms per call | vs httpx + orjson (time) | (CPU) |",
            "|---|---|---|---|---|---|",
        ]
        for label, (path, body) in CALLS.items():
            clients = sync_clients(server, path)
            timings = {name: per_call(make(path, body), SYNC_CALLS) for name, make in clients.items()}
            base_wall, base_cpu = timings["httpx + orjson"]
            for name, (wall, cpu) in timings.items():
                lines.append(
                    f"| {label} | {name} | {wall * 1e3:.3f} | {cpu * 1e3:.3f} | {wall / base_wall:.2f}x | "
                    f"{cpu / base_cpu:.2f}x |"
                )
        lines += [
            "",
            f"| call | client | async calls/s at {IN_FLIGHT} in flight | vs aiohttp + orjson |",
            "|---|---|---|---|",
        ]
        capacity = []
        for label, (path, body) in CALLS.items():
            rates, server_cpu = asyncio.run(async_throughput(server, path, body))
            for name, value in rates.items():
                lines.append(f"| {label} | {name} | {value:.0f} | {value / rates['aiohttp + orjson']:.2f}x |")
            fastest = max(rates, key=rates.get)
            capacity.append((label, path, body, fastest, rates[fastest], 1 / server_cpu[fastest]))
        lines += [
            "",
            f"| call | paperlens sync, 1 thread calls/s | {THREADS} threads calls/s | {THREADS} over 1 |",
            "|---|---|---|---|",
        ]
        for label, (path, body) in CALLS.items():
            one, many = thread_scaling(server, path, body)
            lines.append(f"| {label} | {one:.0f} | {many:.0f} | {many / one:.2f}x |")
        lines += [
            "",
            "| call | fastest client | its calls/s | sandbox calls/s under wrk (cores it used) | sandbox / client "
            "| sandbox calls/s per core (1 / CPU per call) | per core / client |",
            "|---|---|---|---|---|---|---|",
        ]
        for label, path, body, fastest, client_rate, per_core in capacity:
            measured = wrk_throughput(server, path, body)
            under_wrk, ratio = ("wrk not installed", "-")
            if measured is not None:
                under_wrk, ratio = f"{measured[0]:.0f} ({measured[1]:.2f})", f"{measured[0] / client_rate:.1f}x"
            lines.append(
                f"| {label} | {fastest} | {client_rate:.0f} | {under_wrk} | {ratio} | {per_core:.0f} "
                f"| {per_core / client_rate:.1f}x |"
            )
    finally:
        server.stop()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
