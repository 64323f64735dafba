"""The ``paperlens`` command line: ``paperlens sandbox`` and ``paperlens demo``."""

from __future__ import annotations

import argparse
import re
import signal
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

import paperlens
from paperlens.sandbox import Sandbox

__all__ = ["main", "run_demo"]

_EXAMPLES = """\
examples:
  paperlens sandbox --port 8765          serve a sandbox until Ctrl-C
  paperlens sandbox --papers 100000      a larger corpus
  paperlens demo                         a guided research session against a sandbox
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``paperlens`` command; returns the process exit code."""
    args = _parser().parse_args(argv)
    return int(args.run(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperlens",
        description="Python SDK of the paperlens scholarly literature platform.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    sandbox = commands.add_parser(
        "sandbox",
        help="serve a local sandbox of the service until interrupted",
        description=(
            "Serve a local, contract-faithful sandbox of the service in the foreground. "
            "The first line printed is `base_url=... token=...`; Ctrl-C or SIGTERM stops it."
        ),
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="interface (default: loopback)")
    sandbox.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    sandbox.add_argument("--papers", type=int, default=2000, help="corpus size (default 2000)")
    sandbox.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    sandbox.add_argument("--token", help="the full-access token (default: generated)")
    sandbox.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        type=_rate_limit,
        metavar="RESOURCE=N",
        help="requests per minute for meta-search or paper-schema (repeatable)",
    )
    sandbox.set_defaults(run=_serve)

    demo = commands.add_parser("demo", help="a guided research session against a sandbox")
    demo.set_defaults(run=lambda _args: run_demo(sys.stdout))
    return parser


def _rate_limit(text: str) -> tuple[str, int]:
    resource, _, count = text.partition("=")
    if resource not in ("meta-search", "paper-schema") or not count.isdigit():
        raise argparse.ArgumentTypeError(f"expected meta-search=N or paper-schema=N, got {text!r}")
    return resource, int(count)


def _serve(args: argparse.Namespace) -> int:
    try:
        sandbox = Sandbox(
            papers=args.papers,
            seed=args.seed,
            rate_limits=dict(args.rate_limit) or None,
            token=args.token,
            host=args.host,
            port=args.port,
        )
    except (ValueError, OSError, OverflowError) as error:
        print(f"paperlens sandbox: {error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(_signum: int, _frame: object) -> None:
        stop.set()

    stop_signals = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, request_stop) for signum in stop_signals}
    with sandbox:
        print(f"base_url={sandbox.base_url} token={sandbox.token}", flush=True)
        print(f"restricted_token={sandbox.restricted_token}", flush=True)
        print(
            f"paperlens sandbox: {args.papers} papers (seed {args.seed}); Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        # A timed wait keeps the main thread responsive to signals on every platform.
        while not stop.wait(0.5):
            pass
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    print("paperlens sandbox: stopped", file=sys.stderr, flush=True)
    return 0


_QUESTION = "Does retrieval augmented generation reduce hallucination in question answering?"
_TOPIC = "retrieval augmented generation"
_IMAGE_PLACEHOLDER = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def run_demo(out: TextIO = sys.stdout) -> int:
    """A guided research session against a fresh sandbox, printed as plain-text tables.

    Agentic search, the context around the best hit, a figure downloaded, a metadata
    search with facets, then the citations of the most cited paper found. Returns 0.
    """

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    with Sandbox() as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
        say(f"paperlens demo: a sandbox with a generated corpus at {sandbox.base_url}")

        say(f"\n1. Agentic search: {_QUESTION!r}")
        found = client.agentic_search(_QUESTION, top_k=5)
        say(
            format_table(
                ["#", "score", "recall", "year", "title"],
                [
                    [
                        rank,
                        f"{hit.score:.3f}",
                        hit.recall_source,
                        hit.publication_published_year,
                        hit.title,
                    ]
                    for rank, hit in enumerate(found.hits, 1)
                ],
            )
        )
        if not found.hits:
            say("no hits")
            return 0
        best = found.hits[0]

        say(f"\n2. The context around the best hit (doc {best.doc_id[:12]}..., offset {best.offset})")
        start = max(0, best.offset - 300)
        page = client.content(best.doc_id, offset=start, limit=1200)
        say(textwrap.indent(textwrap.fill(" ".join(page.text.split()), width=88), "    "))
        say(f"    [{page.bytes_returned} bytes of {page.text_length} code points]")

        say("\n3. A figure of that paper")
        figure = _first_figure(page.text) or _first_figure(client.read_text(best.doc_id))
        if figure is None:
            say("this paper has no figure")
        else:
            with tempfile.TemporaryDirectory() as folder:
                path = client.download_resource(figure, Path(folder) / Path(figure).name)
                data = path.read_bytes()
                kind = "PNG image" if data.startswith(b"\x89PNG") else "file"
                say(f"downloaded {figure}: {kind}, {len(data)} bytes")

        say(f"\n4. Metadata search with facets: {_TOPIC!r}")
        results = client.meta_search(
            _TOPIC,
            page_size=8,
            fields=[
                "title",
                "unique_id",
                "publication_published_year",
                "citation_count",
                "publication_venue_name_unified",
            ],
            facets=["publication_published_year", ("publication_venue_type", 10)],
        )
        say(f"{results.total_count} matching records; the first {len(results.results)}:")
        say(
            format_table(
                ["year", "cited", "venue", "title"],
                [
                    [
                        r.publication_published_year,
                        r.citation_count,
                        r.publication_venue_name_unified,
                        r.title,
                    ]
                    for r in results.results
                ],
            )
        )
        for facet in results.facets:
            say(f"\nfacet {facet.field}:")
            say(format_table(["value", "papers"], [[b.key, b.doc_count] for b in facet.buckets[:8]]))

        cited = max(results.results, key=lambda r: r.citation_count or 0, default=None)
        if cited is None:
            return 0
        say(f"\n5. Who cites {cited.title!r}?")
        citations = client.paper_relations(cited.unique_id, "CITATIONS", page_size=8)
        say(f"{citations.total_count} citing works; the first {len(citations.items)}:")
        say(format_table(["id type", "id", "title"], [[i.id_type, i.id, i.title] for i in citations.items]))
        say("\nDone: every call above went through paperlens.Client against the sandbox.")
    return 0


def _first_figure(markdown: str) -> str | None:
    match = _IMAGE_PLACEHOLDER.search(markdown)
    return match.group(1) if match else None


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], max_width: int = 60) -> str:
    """A plain-text table: columns sized to their content, cells cut at ``max_width``."""

    def cell(value: Any) -> str:
        text = "" if value is None else " ".join(str(value).split())
        return text if len(text) <= max_width else text[: max_width - 3] + "..."

    cells = [[cell(value) for value in row] for row in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in cells)])


if __name__ == "__main__":
    sys.exit(main())
