"""``paperlens demo``: a guided research session against a fresh sandbox."""

from __future__ import annotations

import re
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import TextIO

from paperlens.base.sandbox import Sandbox
from paperlens.cli.output import format_table
from paperlens.clients.client import Client

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
        client = Client(api_token=sandbox.token, base_url=sandbox.base_url)
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

        doc_id, offset = best.doc_id or "", best.offset or 0
        say(f"\n2. The context around the best hit (doc {doc_id[:12]}..., offset {offset})")
        start = max(0, offset - 300)
        page = client.content(doc_id, offset=start, limit=1200)
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
        if cited is None or cited.unique_id is None:
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
