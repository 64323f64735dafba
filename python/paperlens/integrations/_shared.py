"""What the LangChain and LlamaIndex adapters share: their clients and the metadata of a hit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from paperlens.base._checks import invalid, listed, non_empty_text
from paperlens.clients._default_client import default_client
from paperlens.clients.client import AsyncClient, Client, check_as_sent

if TYPE_CHECKING:
    from paperlens.results.types import Hit, MetadataRecord

__all__ = [
    "SEARCH_SETTINGS",
    "Clients",
    "checked_doc_ids",
    "checked_search",
    "hit_metadata",
    "record_metadata",
]


class Clients:
    """The sync and the async client of an adapter, over one core (connections, pacing, cache).

    ``client=None`` takes the default client (:func:`paperlens.clients._default_client.default_client`:
    the environment's service, or a fresh sandbox said on stderr, which lives as long as
    ``self.sync``, that client)."""

    def __init__(self, client: Client | AsyncClient | None) -> None:
        given = default_client() if client is None else client
        if isinstance(given, Client):
            self.sync, self.asynchronous = given, given._twin(AsyncClient)
        elif isinstance(given, AsyncClient):
            self.sync, self.asynchronous = given._twin(Client), given
        else:
            raise invalid(
                "client", "must be a paperlens.Client, a paperlens.AsyncClient or None", type(client).__name__
            )


#: The retrievers' settings that go to ``agentic_search`` with each query.
SEARCH_SETTINGS = ("top_k", "retrieval", "sub_queries", "filters", "source_types")


def checked_search(client: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`SEARCH_SETTINGS` of ``given`` (a retriever's arguments), refused as the
    client refuses them before it sends (the core's rules, with a stand-in query; nothing is
    sent), unless ``client`` is one made with ``validate=False``, which sends them as given."""
    search = {name: given[name] for name in SEARCH_SETTINGS}
    check_as_sent(client, "agentic_search", {"query": "?", **search})
    return search


def checked_doc_ids(doc_ids: Iterable[str]) -> list[str]:
    """The ``doc_id`` s to read, in order, each once."""
    seen: dict[str, None] = {}
    for index, doc_id in enumerate(listed("doc_ids", doc_ids, "doc_id strings")):
        seen.setdefault(non_empty_text(f"doc_ids[{index}]", doc_id), None)
    return list(seen)


def hit_metadata(hit: Hit) -> dict[str, Any]:
    """The metadata of a chunk found by ``agentic_search``: ``doc_id``, ``source``, ``offset``,
    ``chunk_id``, ``title``, ``year`` (``publication_published_year``), ``score`` and
    ``unique_id`` (an extra property of the hit, when the service sends it), each only when the
    hit carries it: a key is never there with ``None``."""
    values = {
        "doc_id": hit.doc_id,
        "source": hit.source,
        "offset": hit.offset,
        "chunk_id": hit.chunk_id,
        "title": hit.title,
        "year": hit.publication_published_year,
        "score": hit.score,
        "unique_id": hit.extra.get("unique_id"),
    }
    return {name: value for name, value in values.items() if value is not None}


def record_metadata(doc_id: str, record: MetadataRecord | None) -> dict[str, Any]:
    """The metadata of a full text: its ``doc_id``, and the ``unique_id``, ``title`` and
    ``year`` of its metadata record where the record has them."""
    values: dict[str, Any] = {"doc_id": doc_id}
    if record is not None:
        values.update(unique_id=record.unique_id, title=record.title, year=record.publication_published_year)
    return {name: value for name, value in values.items() if value is not None}
