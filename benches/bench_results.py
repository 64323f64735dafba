"""Reading results: paperlens against httpx + orjson doing the same work, in one run.

Run it on the release wheel (profile-guided; an editable install is not), in a fresh venv:

    bash .ci/build-wheel dist --zig --compatibility manylinux2014
    python3 -m venv .bench && .bench/bin/pip install "$(ls dist/paperlens-*.whl)[bench,pandas]"
    .bench/bin/python benches/bench_results.py

Every figure is a ratio of wall time per call, paperlens / httpx + orjson, medians of 21 runs
(of 20 calls; of one call for the frame) taken in alternation, against one sandbox page of 200
``/meta-search`` records (``query="model"``, 5000 papers) in its own process (the
10,000-record frame needs a sandbox of 12,000 papers). Each side does
what the row names, and reads what it claims to read:
- "8 fields": the call, then 8 fields of every record (the httpx side reads them from dicts);
- "to_dict": the call, then ``to_dict()`` of every record (the httpx side has its dicts already);
- "not read": the call alone (paperlens leaves its rows undecoded until read);
- "to_pandas 10,000": ``iter_meta_search(...).to_pandas()`` of 10,000 records, pages of 200,
  pacing off, against httpx + orjson + ``pandas.json_normalize`` over the same pages;
- "import": ``import paperlens`` against ``import httpx``, each in a fresh interpreter;
- "first use": that import, a client and the first read of a method (which defines the result
  types) against ``import httpx`` and ``httpx.Client()``, each in a fresh interpreter.
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _server import start_sandbox

import paperlens

FIELDS = (
    "title",
    "doc_id",
    "unique_id",
    "author",
    "citation_count",
    "publication_published_year",
    "keywords",
    "abstract",
)
BODY = {"query": "model", "page_size": 200}
ROUNDS, CALLS = 21, 20
FRAME_RECORDS = 10_000
FIRST_USE = "import paperlens; paperlens.Client(api_token='t', base_url='http://127.0.0.1:9').meta_search"
FIRST_HTTPX = "import httpx; httpx.Client()"


def seconds_per_call(call: Callable[[], object], n: int) -> float:
    gc.collect()  # each run starts from the same heap, whatever the other side left behind
    start = time.perf_counter()
    for _ in range(n):
        call()
    return (time.perf_counter() - start) / n


def interleaved(ours: Callable[[], object], theirs: Callable[[], object], n: int) -> tuple[float, float]:
    """Both sides measured in alternation, run by run, so that the host's drift weighs on both
    alike; the medians of ROUNDS runs of ``n`` calls each."""
    for _ in range(3):
        ours(), theirs()
    a, b = [], []
    for _ in range(ROUNDS):
        a.append(seconds_per_call(ours, n))
        b.append(seconds_per_call(theirs, n))
    return statistics.median(a), statistics.median(b)


def import_seconds(statements: str) -> float:
    """The median time of ``statements`` (imports first) in 15 fresh interpreters."""
    code = f"import time; t = time.perf_counter(); {statements}; print(time.perf_counter() - t)"
    runs = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(15)]
    return statistics.median(runs)


def frames() -> tuple[float, float]:
    server = start_sandbox(papers=12_000)
    try:
        client = paperlens.Client(api_token=server.token, base_url=server.base_url, rate_limits=None)
        hx = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {server.token}"})

        def ours() -> pd.DataFrame:
            return client.iter_meta_search(page_size=200, limit=FRAME_RECORDS).to_pandas()

        def theirs() -> pd.DataFrame:
            records: list[dict[str, Any]] = []
            cursor = ""
            while len(records) < FRAME_RECORDS:
                body = orjson.dumps({"page_size": 200, "cursor": cursor})
                response = hx.post("/meta-search", content=body, headers={"Content-Type": "application/json"})
                page = orjson.loads(response.raise_for_status().content)
                records.extend(page["results"])
                cursor = page["next_cursor"]
                if not cursor:
                    break
            return pd.json_normalize(records[:FRAME_RECORDS])

        assert len(ours()) == len(theirs()) == FRAME_RECORDS
        return interleaved(ours, theirs, 1)
    finally:
        server.stop()


def main() -> None:
    server = start_sandbox(papers=5000)
    try:
        client = paperlens.Client(api_token=server.token, base_url=server.base_url, rate_limits=None)
        hx = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {server.token}"})
        payload, json_header = orjson.dumps(BODY), {"Content-Type": "application/json"}

        def raw_page(body: bytes = payload) -> dict[str, Any]:
            return orjson.loads(hx.post("/meta-search", content=body, headers=json_header).raise_for_status().content)

        assert len(client.meta_search(**BODY).results) == 200

        def ours_fields() -> list[tuple[Any, ...]]:
            return [tuple(getattr(r, f) for f in FIELDS) for r in client.meta_search(**BODY).results]

        def theirs_fields() -> list[tuple[Any, ...]]:
            return [tuple(r.get(f) for f in FIELDS) for r in raw_page()["results"]]

        assert ours_fields() == theirs_fields()

        def ours_dicts() -> list[dict[str, Any]]:
            return [r.to_dict() for r in client.meta_search(**BODY).results]

        def theirs_dicts() -> list[dict[str, Any]]:
            return raw_page()["results"]

        assert ours_dicts() == theirs_dicts()

        rows = []
        for label, ours, theirs in (
            ("8 fields of every record", ours_fields, theirs_fields),
            ("to_dict() of every record", ours_dicts, theirs_dicts),
            ("a call whose records are not read", lambda: client.meta_search(**BODY), raw_page),
        ):
            a, b = interleaved(ours, theirs, CALLS)
            rows.append((label, a, b))

    finally:
        server.stop()
    rows.append((f"iter_meta_search().to_pandas() of {FRAME_RECORDS:,} records", *frames()))
    rows.append(("import paperlens / import httpx", import_seconds("import paperlens"), import_seconds("import httpx")))
    rows.append(("first use: import, a client, a method", import_seconds(FIRST_USE), import_seconds(FIRST_HTTPX)))

    print(f"Python {sys.version.split()[0]}, paperlens {paperlens.__version__}\n")
    print("| what | paperlens | httpx + orjson | ratio |")
    print("|---|---|---|---|")
    for label, a, b in rows:
        print(f"| {label} | {a * 1e3:.2f} ms | {b * 1e3:.2f} ms | {a / b:.2f}x |")


if __name__ == "__main__":
    main()
