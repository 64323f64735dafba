"""Living reviews (issue 41) and manifests that grow with the run (issue 38, item 6).

Run:  python benches/bench_living.py

1. ``client.estimate_harvest(update=out)`` against what the update then sends: for each case a
   harvest of a growing sandbox (5,000 papers, seed 0, 10% hidden), the sandbox revealed, the
   estimate, then the update; the requests per operation of each and their ratio.
2. The bytes a run writes for its manifest, in a simulated corpus run of N documents (pages of
   200 records, a request id per page and per text, a manifest save after every page: the
   worst case) with the manifest of this version (side file, small manifest), against what
   version 1 wrote (the whole manifest, ids inline, rewritten after every page: computed, not
   written).
"""

from __future__ import annotations

import collections
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import paperlens
from paperlens.harvest import harvest, harvest_corpus
from paperlens.sandbox import Sandbox
from paperlens.storage._manifest import ManifestRecorder

PAPERS, HIDDEN = 5000, 0.1
CASES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("metadata, every record", None, {}),
    ("metadata, query 'coral'", "coral", {}),
    ("corpus, query 'coral'", "coral", {"texts": True}),
    ("corpus, limit=2,000", None, {"texts": True, "limit": 2000}),
    ("corpus + figures, query 'ocean'", "ocean", {"texts": True, "figures": True}),
]
PATHS = {"meta_search": "/meta-search", "content": "/content", "download_resource": "/resource"}


def estimate_against_update() -> None:
    print("| case | operation | estimated | sent by the update | ratio |")
    print("|---|---|---|---|---|")
    for name, query, arguments in CASES:
        with Sandbox(papers=PAPERS, hidden_share=HIDDEN) as sandbox, tempfile.TemporaryDirectory() as folder:
            client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
            out = Path(folder) / "out"
            corpus = arguments.get("texts", False)
            if corpus:
                harvest_corpus(client, out, query=query, **arguments)
            else:
                harvest(client, query, out=out, **arguments)
            sandbox.reveal()
            estimate = client.estimate_harvest(update=out)
            sandbox.clear_requests()
            if corpus:
                result = harvest_corpus(client, out, query=query, **arguments, update=True)
            else:
                result = harvest(client, query, out=out, **arguments, update=True)
            sent = collections.Counter(request.path for request in sandbox.requests())
            for op in estimate.operations:
                actual = sent[PATHS[op.operation]]
                ratio = op.requests / actual if actual else float("nan")
                print(f"| {name} ({result.added} new) | {op.path} | {op.requests} | {actual} | {ratio:.3f} |")


class _Service:
    base_url = "https://api.example.org"


def manifest_bytes(documents: int) -> tuple[int, int, int, float]:
    """Bytes written for the manifest of a simulated run of ``documents`` documents (manifest
    saves plus the side file), its final size, version 1's bytes, and the seconds taken."""
    pages, per_page = documents // 200, 200
    with tempfile.TemporaryDirectory() as folder:
        recorder = ManifestRecorder(Path(folder), "harvest_corpus", {"query": "reefs"}, _Service())
        recorder.save_every = 0
        saved = 0
        inline = 0  # version 1: the bytes of the ids inline, as indent=2 wrote them
        version_1 = 0
        started = time.perf_counter()
        for page in range(pages):
            ids = [f"{page:08x}-0000-4000-8000-{n:012x}" for n in range(per_page + 1)]
            for request_id in ids:
                recorder.request(request_id)
                inline += len(json.dumps(request_id)) + 6  # "    ", the id, ",\n"
            recorder.count("records", (page + 1) * per_page)
            recorder.save_if_due()
            saved += (Path(folder) / "manifest.json").stat().st_size
            version_1 += (Path(folder) / "manifest.json").stat().st_size + inline
        recorder.save(finished=True)
        seconds = time.perf_counter() - started
        log = (Path(folder) / "manifest.requests.jsonl").stat().st_size
        final = (Path(folder) / "manifest.json").stat().st_size + log
        return saved + log, final, version_1, seconds


def manifest_growth() -> None:
    print(
        "| documents | bytes written | final size (manifest + side file) | written / final | version 1 wrote |", end=""
    )
    print(" time |")
    print("|---|---|---|---|---|---|")
    for documents in (10_000, 100_000):
        written, final, version_1, seconds = manifest_bytes(documents)
        print(
            f"| {documents:,} | {written / 1e6:.1f} MB | {final / 1e6:.1f} MB | {written / final:.2f}x | "
            f"{version_1 / 1e9:.2f} GB | {seconds:.1f} s |"
        )


if __name__ == "__main__":
    estimate_against_update()
    print()
    manifest_growth()
