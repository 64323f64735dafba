"""What the LangChain and LlamaIndex adapter tests compare against: the metadata a hit's wire
JSON gives, written out here from the documented rule, independently of the adapters' code."""

from __future__ import annotations

from typing import Any

#: The metadata key of each wire field of a hit.
HIT_METADATA = {
    "doc_id": "doc_id",
    "source": "source",
    "offset": "offset",
    "chunk_id": "chunk_id",
    "title": "title",
    "publication_published_year": "year",
    "score": "score",
    "unique_id": "unique_id",
}
QUERIES = ["coral bleaching under heat stress", "graph neural networks", "protein folding", "CRISPR off-target"]


def expected_metadata(hit: dict[str, Any]) -> dict[str, Any]:
    """The documented metadata of a hit: the fields it carries (not null), renamed."""
    return {key: hit[wire] for wire, key in HIT_METADATA.items() if hit.get(wire) is not None}


def sparse_hits() -> dict[str, Any]:
    """An answer whose hits lack most fields (absent or null), as the contract allows."""
    return {
        "hits": [
            {"chunk": "Only a chunk and a score.", "score": 0.5},
            {"chunk_id": "c-1", "chunk": "A located chunk.", "doc_id": "d" * 64, "offset": 0, "title": None},
            {"chunk": "No score, a unique_id extra.", "unique_id": "W1", "publication_published_year": "2020"},
        ]
    }
