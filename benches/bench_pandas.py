"""Benchmark (not a test): ``iter_meta_search(...).to_pandas()`` of 10,000 records.

Fetches 10,000 metadata records from a local ``Sandbox(papers=12000)`` (no rate limits),
then times the conversion step, ``paperlens.to_pandas(records)``, against
``pandas.json_normalize`` on the same records as dicts (the wire dicts, prepared before
timing), and reports the peak memory of each (tracemalloc, in separate runs). The records
arrive undecoded (their JSON text), so ``to_pandas`` decodes them as it builds the columns:
a third column times json_normalize with that decoding too (``orjson.loads`` of each row's
JSON text, then json_normalize). Two
projections: the service's default field set and every projectable field. The end-to-end
``iter_meta_search(...).to_pandas()`` (fetch included) is timed once for reference.

    python benches/bench_pandas.py [--records 10000] [--repeat 7] [--write]

``--write`` replaces the ``## pandas conversion (issue 5)`` section of benches/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

import paperlens
from paperlens.sandbox import Sandbox

SECTION = "## pandas conversion (issue 5)"
RESULTS = Path(__file__).with_name("RESULTS.md")


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def peak_mib(fn: Callable[[], Any]) -> tuple[float, float]:
    """Peak Python heap (tracemalloc) during ``fn``, and the Arrow buffers its result holds
    (pandas 3 keeps strings in Arrow memory, which tracemalloc does not see)."""
    gc.collect()
    arrow_before = _arrow_bytes()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    arrow = _arrow_bytes() - arrow_before
    del result
    return peak / 2**20, arrow / 2**20


def _arrow_bytes() -> int:
    try:
        import pyarrow
    except ImportError:
        return 0
    return pyarrow.total_allocated_bytes()


def run(records: int, repeat: int) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    with Sandbox(papers=12_000) as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        every = [f.name for f in client.meta_catalog().fields if "." not in f.name]
        for label, fields in (("default fields", None), ("every field", every)):
            paginator = client.iter_meta_search(fields=fields, page_size=200, limit=records)
            start = time.perf_counter()
            frame = paginator.to_pandas()
            end_to_end = time.perf_counter() - start
            assert len(frame) == records, f"expected {records} rows, got {len(frame)}"

            items = client.iter_meta_search(fields=fields, page_size=200, limit=records).to_list()
            dicts = [item.to_dict() for item in items]
            texts = [orjson.dumps(d) for d in dicts]
            ours = timed(lambda items=items: paperlens.to_pandas(items), repeat)
            theirs = timed(lambda dicts=dicts: pd.json_normalize(dicts), repeat)
            decoding = timed(lambda texts=texts: pd.json_normalize([orjson.loads(t) for t in texts]), repeat)
            ours_mib = peak_mib(lambda items=items: paperlens.to_pandas(items))
            theirs_mib = peak_mib(lambda dicts=dicts: pd.json_normalize(dicts))
            normalized = pd.json_normalize(dicts)
            rows.append(
                {
                    "projection": label,
                    "columns": f"{frame.shape[1]} / {normalized.shape[1]}",
                    "to_pandas_ms": statistics.median(ours) * 1e3,
                    "to_pandas_min_ms": min(ours) * 1e3,
                    "json_normalize_ms": statistics.median(theirs) * 1e3,
                    "json_normalize_min_ms": min(theirs) * 1e3,
                    "ratio": statistics.median(ours) / statistics.median(theirs),
                    "decoding_ms": statistics.median(decoding) * 1e3,
                    "decoding_ratio": statistics.median(ours) / statistics.median(decoding),
                    "to_pandas_peak_mib": ours_mib[0],
                    "json_normalize_peak_mib": theirs_mib[0],
                    "to_pandas_arrow_mib": ours_mib[1],
                    "json_normalize_arrow_mib": theirs_mib[1],
                    "end_to_end_s": end_to_end,
                }
            )
        client.close()
    notes.append(
        f"Python {platform.python_version()}, pandas {pd.__version__}, numpy {_version('numpy')}, "
        f"pyarrow {_version('pyarrow')}, {platform.machine()} {platform.system()}"
    )
    return rows, notes


def _version(module: str) -> str:
    try:
        return __import__(module).__version__
    except ImportError:
        return "absent"


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| projection | columns (ours / json_normalize) | to_pandas median (min) | json_normalize median (min) "
        "| ratio | orjson + json_normalize median | ratio | peak heap to_pandas (+ Arrow) "
        "| peak heap json_normalize (+ Arrow) | end to end, fetch included |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        lines.append(
            f"| {r['projection']} | {r['columns']} | {r['to_pandas_ms']:.1f} ms ({r['to_pandas_min_ms']:.1f}) "
            f"| {r['json_normalize_ms']:.1f} ms ({r['json_normalize_min_ms']:.1f}) | {r['ratio']:.2f} "
            f"| {r['decoding_ms']:.1f} ms | {r['decoding_ratio']:.2f} "
            f"| {r['to_pandas_peak_mib']:.1f} MiB (+ {r['to_pandas_arrow_mib']:.1f}) "
            f"| {r['json_normalize_peak_mib']:.1f} MiB (+ {r['json_normalize_arrow_mib']:.1f}) "
            f"| {r['end_to_end_s']:.2f} s |"
        )
    return "\n".join(lines)


def write_section(text: str) -> None:
    """Replace (or append) this benchmark's section of RESULTS.md, keeping the others."""
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    lines = old.splitlines()
    try:
        start = lines.index(SECTION)
    except ValueError:
        kept = old.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        before = "\n".join(lines[:start]).rstrip("\n")
        after = "\n".join(lines[end:])
        kept = (before + "\n\n" if before else "") + text + ("\n\n" + after if after else "")
    RESULTS.write_text(kept.rstrip("\n") + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--write", action="store_true", help="write the section of benches/RESULTS.md")
    args = parser.parse_args()
    rows, notes = run(args.records, args.repeat)
    text = table(rows)
    print(text)
    print(*notes, sep="\n")
    if args.write:
        command = "python benches/bench_pandas.py " + " ".join(sys.argv[1:])
        section = "\n".join(
            [
                SECTION,
                "",
                f"`{command.strip()}` (Sandbox(papers=12000), `rate_limits=None`, page_size=200, "
                f"{args.records} records, {args.repeat} repeats; times are the conversion step only, on "
                "records already fetched; peak Python heap by tracemalloc in separate runs, plus the Arrow "
                "buffers the frame holds, which tracemalloc does not see).",
                "",
                text,
                "",
                *notes,
                "",
                "ratio = to_pandas median / json_normalize median (the target is at most 1); the second "
                "ratio counts the decoding on both sides: the records arrive as their JSON text, and "
                "to_pandas decodes the values it puts in the frame (no dict per record; the strings "
                "straight into Arrow arrays), so its peak heap holds the frame's values, which "
                "json_normalize shares with dicts decoded before it ran. Our frame flattens nested "
                "objects one level and types its columns (Int64, datetime64, boolean); json_normalize "
                "flattens every level and types nothing.",
            ]
        )
        write_section(section)
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
