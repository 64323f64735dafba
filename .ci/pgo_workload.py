"""The training run of the profile-guided release build (.ci/build-wheel): what researchers do
most, against the sandbox, so that the compiler lays out for it the code that decodes pages,
reads their fields, turns them into dicts and frames, and serves them.

Run by .ci/build-wheel with the instrumented wheel first on PYTHONPATH; pandas (and pyarrow)
are used when installed.
"""

from __future__ import annotations

import asyncio
import importlib.util

import paperlens
from paperlens.sandbox import Sandbox

FIELDS = ("title", "doc_id", "unique_id", "author", "citation_count", "publication_published_year", "keywords")


def pages(client: paperlens.Client) -> None:
    for query in ("model", "protein folding", "coral reef bleaching"):
        for _ in range(10):
            results = client.meta_search(query, page_size=200).results
            [tuple(getattr(r, name) for name in FIELDS) for r in results]
            [r.to_dict() for r in client.meta_search(query, page_size=200).results]
            client.meta_search(query, page_size=200, facets=["publication_published_year"])
    if importlib.util.find_spec("pandas") is not None:
        for _ in range(3):
            client.iter_meta_search(page_size=200, limit=4000).to_pandas()


def reading(client: paperlens.Client) -> None:
    for query in ("retrieval augmented generation", "CRISPR off-target effects"):
        found = client.agentic_search(query, top_k=10)
        for hit in found.hits[:3]:
            client.content(hit.doc_id, offset=0, limit=4000)
    record = client.meta_search("model", page_size=1).results[0]
    client.paper_relations(str(record.unique_id), "REFERENCES", page_size=50)
    cards = client.schema.search("CRISPR off-target", size=5)
    for card in cards.items[:2]:
        client.schema.entities(str(card.schema_id), size=50)
        client.schema.citations(str(card.schema_id), size=50)


async def concurrent(sandbox: Sandbox) -> None:
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as client:
        await asyncio.gather(*(client.meta_search("model", page_size=200, page=n) for n in range(1, 11)))


def main() -> None:
    with Sandbox(papers=5000) as sandbox:
        with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as client:
            pages(client)
            reading(client)
        asyncio.run(concurrent(sandbox))


if __name__ == "__main__":
    main()
