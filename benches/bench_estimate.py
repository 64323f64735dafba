"""client.estimate_harvest against what the harvests then send (issue 29).

Run:  python benches/bench_estimate.py

For each harvest: the requests the estimate counts per operation, those the sandbox then
served to the real harvest, and their ratio; then, for harvests with figures, the /resource
estimate from samples of 1 (the default), 10, 50, 150 and 200 texts with the range it gives;
the last harvest runs paced (the client and the sandbox's gateway at 60 requests per minute to
/meta-search) and compares the estimated time with the time it took. The sandbox (5,000
papers, seed 0) runs in this process.
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
FIGURE_CASES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("query 'ocean'", "ocean", {"texts": True, "figures": True}),
    ("limit=2,000", None, {"texts": True, "figures": True, "limit": 2000}),
]
SAMPLES = (1, 10, 50, 150, 200)


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
    figure_samples()
    paced_time()


def figure_samples() -> None:
    """The /resource estimate from samples of texts against the figures the harvest fetches."""
    rows = []
    with Sandbox(papers=PAPERS, seed=0) as sandbox, tempfile.TemporaryDirectory() as folder:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        for index, (name, query, arguments) in enumerate(FIGURE_CASES):
            estimates: dict[int, Any] = {}  # by the texts sampled: 200 may be all of them, as 150 was
            for n in SAMPLES:
                estimate = client.estimate_harvest(query, **arguments, sample_texts=n)
                estimates.setdefault(estimate.sample_texts, estimate)
            run(client, sandbox, Path(folder) / str(index), query, arguments)
            sent = collections.Counter(r.path for r in sandbox.requests())["/resource"]
            for estimate in estimates.values():
                figures = estimate.operations[-1]
                likely = f"{figures.likely[0]:,}-{figures.likely[1]:,}" if figures.likely else "-"
                inside = (
                    "-" if not figures.likely else "yes" if figures.likely[0] <= sent <= figures.likely[1] else "no"
                )
                exact = "" if figures.estimated else " (all: counted)"
                rows.append(
                    (
                        name,
                        f"{estimate.sample_texts} of {estimate.texts:,}{exact}",
                        figures.requests,
                        likely,
                        sent,
                        inside,
                    )
                )
    print(
        "\n| harvest, texts + figures | sample texts | /resource estimated | likely | sent | "
        "estimate / sent | sent in likely |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, sample, estimated, likely, sent, inside in rows:
        print(f"| {name} | {sample} | {estimated:,} | {likely} | {sent:,} | {estimated / sent:.3f} | {inside} |")


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
