"""Metadata harvests at scale (issue 25): time and memory per record of ``harvest`` to Parquet.

Run:  python benches/bench_harvest.py                          (5,000 and 100,000 records)
      python benches/bench_harvest.py --records 20000 --small 5000 --format jsonl

A sandbox of as many papers as the larger harvest runs in this process with pacing off
(``rate_limits=None`` on both sides). Each ``harvest(client, None, out=..., limit=N)`` runs in a
fresh process (this script with ``--child``), so each figure is that of one harvest alone:

- seconds: the ``harvest`` call, from the first request to the last part synced, and per 1,000
  records;
- peak RSS: the child's own high-water mark (``VmHWM`` of ``/proc/self/status``, which starts
  afresh at ``exec``, unlike ``ru_maxrss``, which keeps the forking parent's: a parent holding a
  100,000-paper sandbox would hide the child's), beside that of a child that only imports
  paperlens and pyarrow and makes a client (the baseline);
- tracemalloc peak: the largest Python heap of the call, in a second child with tracing on (not
  timed), after a harvest of one chunk has imported what a harvest imports on first use.

Flat memory shows as the same peaks for both sizes: a harvest holds one chunk (``chunk_size``
records, 1,000 by default) and one page at a time, and writes every part with one schema.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _child
from _child import mib, peak_rss

CHILD = "--child"


def child(limit: int, out: str, fmt: str, trace: bool) -> None:
    """Runs one harvest and prints its figures as JSON (``limit`` 0: the baseline, no harvest)."""
    import pyarrow.parquet  # noqa: F401  (imported before tracing: its import is not the harvest's)

    import paperlens
    from paperlens.harvest import harvest

    client = paperlens.Client(rate_limits=None)
    if limit == 0:
        print(json.dumps({"max_rss": peak_rss()}))
        return
    if trace:
        import tracemalloc

        harvest(client, None, out=out + "-warm-up", format=fmt, limit=1000)  # type: ignore[arg-type]
        tracemalloc.start()
    began = time.perf_counter()
    result = harvest(client, None, out=out, format=fmt, limit=limit)  # type: ignore[arg-type]
    figures: dict[str, Any] = {"seconds": time.perf_counter() - began, "records": result.records}
    if trace:
        figures["traced_peak"] = tracemalloc.get_traced_memory()[1]
    print(json.dumps({**figures, "max_rss": peak_rss()}))


def run_child(env: dict[str, str], limit: int, out: str, fmt: str, *, trace: bool) -> dict[str, Any]:
    return _child.run_child(__file__, [CHILD, str(limit), out, fmt, "1" if trace else "0"], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=5_000)
    parser.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    args = parser.parse_args()

    import paperlens
    from paperlens.sandbox import Sandbox

    with Sandbox(papers=args.records) as sandbox, tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PAPERLENS_API_TOKEN": sandbox.token, "PAPERLENS_BASE_URL": sandbox.base_url}
        baseline = run_child(env, 0, "-", args.format, trace=False)["max_rss"]
        rows = []
        for n in (args.small, args.records):
            timed = run_child(env, n, f"{folder}/timed-{n}", args.format, trace=False)
            traced = run_child(env, n, f"{folder}/traced-{n}", args.format, trace=True)
            out = Path(f"{folder}/timed-{n}")
            size = sum(p.stat().st_size for p in out.rglob("*")) if out.is_dir() else out.stat().st_size
            rows.append((n, timed, traced, size))

    print(f"python {sys.version.split()[0]}, paperlens {paperlens.__version__}, sandbox of {args.records:,} papers")
    print(f"in the parent process, pacing off, format={args.format}; baseline RSS {mib(baseline)}")
    print()
    print("| records | seconds | ms per 1,000 records | peak RSS (over baseline) | tracemalloc peak | output |")
    print("|---|---|---|---|---|---|")
    for n, timed, traced, size in rows:
        print(
            f"| {timed['records']:,} | {timed['seconds']:.1f} | {1000 * 1000 * timed['seconds'] / n:.0f} | "
            f"{mib(timed['max_rss'])} (+{mib(timed['max_rss'] - baseline)}) | {mib(traced['traced_peak'])} | "
            f"{mib(size)} |"
        )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == CHILD:
        child(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1")
    else:
        main()
