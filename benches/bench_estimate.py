"""client.estimate_harvest against what the harvests then send (issue 29).

Run:  python benches/bench_estimate.py

For each harvest: the requests the estimate counts per operation, those the sandbox then
served to the real harvest, and their ratio; the last harvest runs paced (the client and the
sandbox's gateway at 60 requests per minute to /meta-search) and compares the estimated time
with the time it took. The sandbox (5,000 papers, seed 0) runs in this process.
"""

from __future__ import annotations

import collections
import tempfile
import time
from pathlib import Path
from typing import Any

import paperlens
from paperlens.harvest import harvest, harvest_corpus
from paperlens.sandbox import Sandbox

PAPERS = 5000
CASES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("metadata, every record", None, {}),
    ("metadata, page_size=50, limit=3,000", None, {"page_size": 50, "limit": 3000}),
    ("metadata, query 'coral'", "coral", {}),
    ("texts, query 'coral'", "coral", {"texts": True}),
    ("texts, limit=2,000", None, {"texts": True, "limit": 2000}),
    ("texts + figures, query 'ocean'", "ocean", {"texts": True, "figures": True}),
]
PATHS = {"meta_search": "/meta-search", "content": "/content", "download_resource": "/resource"}


def run(client: paperlens.Client, sandbox: Sandbox, out: Path, query: str | None, arguments: dict[str, Any]) -> Any:
    sandbox.clear_requests()
    if arguments.get("texts") or "ids" in arguments:
        return harvest_corpus(client, out, query=query, **arguments)
    return harvest(client, query, out=out.with_suffix(".jsonl"), format="jsonl", **arguments)


def main() -> None:
    rows = []
    with Sandbox(papers=PAPERS, seed=0) as sandbox, tempfile.TemporaryDirectory() as folder:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        ids = [r.unique_id for r in client.iter_meta_search(None, limit=1200) if r.unique_id][::2]
        cases = [*CASES, ("ids (600), texts", None, {"ids": ids, "texts": True})]
        for index, (name, query, arguments) in enumerate(cases):
            estimate = client.estimate_harvest(query, **arguments)
            run(client, sandbox, Path(folder) / str(index), query, arguments)
            served = collections.Counter(r.path for r in sandbox.requests())
            for op in estimate.operations:
                actual = served[PATHS[op.operation]]
                rows.append((name, op.path, op.requests, actual))
            rows.append((name, "all", estimate.requests, sum(served.values())))
    print(f"| harvest ({PAPERS:,} papers) | operation | estimated | sent | estimate / sent |")
    print("|---|---|---|---|---|")
    for name, path, estimated, actual in rows:
        ratio = f"{estimated / actual:.3f}" if actual else "-"
        print(f"| {name} | {path} | {estimated:,} | {actual:,} | {ratio} |")
    paced_time()


def paced_time() -> None:
    """The estimated time of a paced harvest against the time it takes."""
    limits = {"meta-search": 60}
    with Sandbox(papers=PAPERS, seed=0, rate_limits=limits) as sandbox, tempfile.TemporaryDirectory() as folder:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=limits)
        arguments = {"page_size": 20, "limit": 2400}  # 120 requests at 60 per minute
        estimate = client.estimate_harvest(None, **arguments)
        time.sleep(61)  # the estimate's own request leaves the window first
        started = time.perf_counter()
        harvest(client, None, out=Path(folder) / "paced.jsonl", format="jsonl", **arguments)
        took = time.perf_counter() - started
        refused = sum(1 for r in sandbox.requests() if r.path == "/meta-search") - estimate.requests - 1
    print(
        f"\npaced at 60/min, {estimate.requests} requests: estimated {estimate.seconds:.0f} s, "
        f"took {took:.1f} s ({took / estimate.seconds:.3f}x), {refused} refused"
    )


if __name__ == "__main__":
    main()
