"""Full-text corpus harvests at scale (issue 16): time, requests and memory of ``harvest_corpus``.

Run:  python benches/bench_corpus.py                  (2,000 and 500 documents; about 3 minutes)
      python benches/bench_corpus.py --figures        (the same with the figures of each text)

A sandbox of 3,000 papers runs in this process with pacing off (``rate_limits=None`` on both
sides). The ids of the first N papers that have a full text (N = 500, then 2,000) are handed to
``harvest_corpus(client, out, ids=...)`` in a fresh process (this script with ``--child``), so
each figure is that of one harvest alone:

- seconds: the ``harvest_corpus`` call, from the first request to the last file synced;
- requests: what the sandbox received (``Sandbox.requests()``), by path;
- peak RSS: the child's own high-water mark (``VmHWM``, see ``_child.peak_rss``), and
  the same for a child that only imports paperlens and pyarrow and makes a client (the
  baseline), so the difference is what the harvest itself holds;
- tracemalloc peak: the largest Python heap of the call, in a second child run with
  ``tracemalloc`` on (slower, so not timed), after a harvest of one document has imported what a
  harvest imports on first use; "retained after": what the heap still holds once the call
  returned; then the same documents harvested again 200 at a time, the peak of each slice,
  which shows what sets the peak: the texts of the slice, not how many came before.

Memory that does not grow with the corpus shows as the same peaks at 500 and at 2,000
documents: a harvest holds one page of records (200) and one text at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import _child
from _child import mib, peak_rss

CHILD = "--child"


def child(ids_file: str, out: str, trace: bool, figures: bool) -> None:
    """Runs one harvest and prints its figures as JSON."""
    import pyarrow.parquet  # noqa: F401  (imported before tracing: its import is not the harvest's)

    import paperlens
    from paperlens.harvest import harvest_corpus

    client = paperlens.Client(rate_limits=None)
    ids = Path(ids_file).read_text().split() if ids_file != "-" else None
    if ids is None:  # the baseline: imports and a client, no harvest
        print(json.dumps({"max_rss": peak_rss()}))
        return
    if trace:
        import tracemalloc

        # One document first, so that the modules a harvest imports on first use (pyarrow's
        # pandas shim...) are not counted as the harvest's memory.
        harvest_corpus(client, out + "-warm-up", ids=ids[:1], figures=figures)
        tracemalloc.start()
    began = time.perf_counter()
    result = harvest_corpus(client, out, ids=ids, figures=figures)
    seconds = time.perf_counter() - began
    figures_out: dict[str, Any] = {"seconds": seconds, "records": result.records, "texts": result.texts}
    figures_out["figures"] = result.figures
    if trace:
        del result
        figures_out["traced_current"], figures_out["traced_peak"] = tracemalloc.get_traced_memory()
        # The same documents as separate harvests of 200: the peak of each slice.
        slices = []
        for start in range(0, len(ids), 200):
            tracemalloc.reset_peak()
            harvest_corpus(client, f"{out}-{start}", ids=ids[start : start + 200], figures=figures)
            slices.append(tracemalloc.get_traced_memory()[1])
        figures_out["slice_peaks"] = slices
    print(json.dumps({**figures_out, "max_rss": peak_rss()}))


def run_child(env: dict[str, str], ids_file: str, out: str, *, trace: bool, figures: bool) -> dict[str, Any]:
    return _child.run_child(__file__, [CHILD, ids_file, out, "1" if trace else "0", "1" if figures else "0"], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--small", type=int, default=500)
    parser.add_argument("--figures", action="store_true")
    args = parser.parse_args()

    import paperlens
    from paperlens.sandbox import Sandbox

    papers = int(args.documents * 1.5)
    with Sandbox(papers=papers) as sandbox, tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PAPERLENS_API_TOKEN": sandbox.token, "PAPERLENS_BASE_URL": sandbox.base_url}
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        with_text = [r.unique_id for r in client.iter_meta_search(None, page_size=200) if r.doc_id]
        if len(with_text) < args.documents:
            raise SystemExit(f"the sandbox has {len(with_text)} papers with a text, not {args.documents}")
        baseline = run_child(env, "-", "-", trace=False, figures=False)["max_rss"]
        rows = []
        for n in (args.small, args.documents):
            ids_file = Path(folder) / f"ids-{n}.txt"
            ids_file.write_text("\n".join(with_text[:n]))
            sandbox.clear_requests()
            timed = run_child(env, str(ids_file), f"{folder}/timed-{n}", trace=False, figures=args.figures)
            requests = Counter(r.path for r in sandbox.requests())
            traced = run_child(env, str(ids_file), f"{folder}/traced-{n}", trace=True, figures=args.figures)
            sandbox.clear_requests()
            run_child(env, str(ids_file), f"{folder}/timed-{n}", trace=False, figures=args.figures)
            again = len(sandbox.requests())
            size = sum(p.stat().st_size for p in Path(f"{folder}/timed-{n}").rglob("*") if p.is_file())
            rows.append((n, timed, requests, traced, again, size))

    print(f"python {sys.version.split()[0]}, paperlens {paperlens.__version__}, sandbox of {papers} papers in the")
    print(f"parent process, pacing off; baseline RSS (imports and a client) {mib(baseline)}")
    print()
    print(
        "| documents | seconds | documents/s | requests | peak RSS (over baseline) | tracemalloc peak | "
        "retained after | run again: requests | output |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n, timed, requests, traced, again, size in rows:
        sent = ", ".join(f"{path} {count}" for path, count in sorted(requests.items()))
        print(
            f"| {n:,} ({timed['texts']:,} texts, {timed['figures']:,} figures) | {timed['seconds']:.1f} | "
            f"{n / timed['seconds']:.0f} | {sum(requests.values()):,} ({sent}) | {mib(timed['max_rss'])} "
            f"(+{mib(timed['max_rss'] - baseline)}) | {mib(traced['traced_peak'])} | "
            f"{mib(traced['traced_current'])} | {again} | {mib(size)} |"
        )
    print()
    n, _, _, traced, _, _ = rows[-1]
    print(f"tracemalloc peak of the same {n:,} documents harvested 200 at a time, in order:")
    print(", ".join(f"{peak / 2**20:.1f}" for peak in traced["slice_peaks"]), "MiB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == CHILD:
        child(sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5] == "1")
    else:
        main()
