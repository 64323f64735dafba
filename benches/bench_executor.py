"""A corpus harvest on 4 Dask worker processes vs one process (issue 29), against a sandbox
whose full texts answer after a fixed latency, as across a network.

Run:  python benches/bench_executor.py                 (400 documents, 200 ms; about 2 minutes)
      python benches/bench_executor.py --documents 800 --latency 0.1

A sandbox runs in this process with ``content_latency`` (every ``/content`` answer waits that
long) and the gateway quota of ``/meta-search`` at 30 per minute; the client keeps its default
pacing (30 per minute) and ``max_retries=0``, so one 429 would fail the run. The same
``harvest_corpus(client, out, limit=N)`` runs three ways into fresh folders:

- one process (no executor): the documents one after the other;
- ``executor=`` a ``dask.distributed.Client`` of a ``LocalCluster`` with 4 worker processes of
  one thread each (started before the clock starts, as a cluster is);
- ``executor=`` a ``ProcessPoolExecutor(4)`` (spawn), for comparison.

Per run: seconds of the call, documents per second, the requests the sandbox received by path,
and 429s: the ``/meta-search`` requests beyond one per page of records (a request answered 429
and sent again shows as one more; one that raised would have stopped the run). The outputs of
the three runs are compared file for file (the manifest without its times and request ids).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

WORKERS = 4


def files(out: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            data: Any = path.read_bytes()
            if path.name == "manifest.json":
                data = {k: v for k, v in json.loads(data).items() if k not in ("started", "finished", "request_ids")}
            found[path.relative_to(out).as_posix()] = data
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds before every /content answer")
    args = parser.parse_args()

    import distributed

    import paperlens
    from paperlens.sandbox import Sandbox

    limits = {"meta-search": 30, "paper-schema": 30}
    rows = []
    outputs = []
    with (
        Sandbox(papers=args.documents + 100, rate_limits=limits, content_latency=args.latency) as sandbox,
        tempfile.TemporaryDirectory() as folder,
        distributed.LocalCluster(
            n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as dask_client,
        ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool,
    ):
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, max_retries=0)
        for name, executor in (("one process", None), (f"Dask, {WORKERS} worker processes", dask_client)):
            rows.append(run(sandbox, client, name, executor, Path(folder) / name, args.documents))
            outputs.append(files(Path(folder) / name))
        name = f"ProcessPoolExecutor({WORKERS}), spawn"
        rows.append(run(sandbox, client, name, pool, Path(folder) / name, args.documents))
        outputs.append(files(Path(folder) / name))

    print(
        f"python {sys.version.split()[0]}, paperlens {paperlens.__version__}, {os.cpu_count()} cores; "
        f"sandbox /content latency {args.latency * 1000:.0f} ms, /meta-search quota 30/min (client paced at 30/min)"
    )
    print()
    print("| run | documents | seconds | documents/s | vs one process | requests | 429s |")
    print("|---|---|---|---|---|---|---|")
    single = rows[0]["rate"]
    for row in rows:
        sent = ", ".join(f"{path} {count}" for path, count in sorted(row["requests"].items()))
        print(
            f"| {row['name']} | {row['records']} ({row['texts']} texts) | {row['seconds']:.1f} | {row['rate']:.1f} | "
            f"{row['rate'] / single:.2f}x | {sent} | {row['429s']} |"
        )
    print()
    same = all(output == outputs[0] for output in outputs[1:])
    print(f"outputs equal file for file (manifest without times and request ids): {same}")


def run(sandbox: Any, client: Any, name: str, executor: Any, out: Path, documents: int) -> dict[str, Any]:
    from paperlens.harvest import harvest_corpus

    sandbox.clear_requests()
    began = time.perf_counter()
    result = harvest_corpus(client, out, limit=documents, executor=executor)
    seconds = time.perf_counter() - began
    requests = Counter(r.path for r in sandbox.requests())
    return {
        "name": name,
        "records": result.records,
        "texts": result.texts,
        "seconds": seconds,
        "rate": result.records / seconds,
        "requests": requests,
        "429s": requests["/meta-search"] - result.chunks,
    }


if __name__ == "__main__":
    main()
