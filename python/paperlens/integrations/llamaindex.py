"""LlamaIndex adapters (extra ``llamaindex``): a retriever over ``agentic_search`` and a reader
of whole full texts.

>>> from paperlens.integrations.llamaindex import PaperlensReader, PaperlensRetriever
>>> nodes = PaperlensRetriever(top_k=5).retrieve("coral bleaching and heat stress")
>>> documents = PaperlensReader().load_data([node.metadata["doc_id"] for node in nodes])

A retrieved :class:`~llama_index.core.schema.NodeWithScore` holds a
:class:`~llama_index.core.schema.TextNode` of one chunk (``id_``: its ``chunk_id``;
``start_char_idx`` / ``end_char_idx``: its span in the full text, in code points, which are
Python string indexes), the hit's score, its ``doc_id`` as the source node (the ``id_`` of the
reader's Document of that text), and the metadata of
:func:`paperlens.integrations._shared.hit_metadata` (each key only when the service sent it).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.readers.base import BaseReader
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import Document, NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode

from paperlens.base._checks import flag
from paperlens.clients.client import AsyncClient, Client
from paperlens.integrations._shared import (
    Clients,
    checked_doc_ids,
    checked_search,
    hit_metadata,
    record_metadata,
)

__all__ = ["PaperlensReader", "PaperlensRetriever"]


class PaperlensRetriever(BaseRetriever):
    """A LlamaIndex retriever of full-text chunks (``POST /agentic-search``), sync and async.

    Args:
        client: a :class:`paperlens.Client` or :class:`paperlens.AsyncClient` (the other kind is
            made over the same connections and pacing); None: the environment's service, or a
            fresh local sandbox when neither ``PAPERLENS_API_TOKEN`` nor ``PAPERLENS_BASE_URL``
            is set (said on stderr).
        top_k: the most chunks per query, 1-100.
        retrieval, sub_queries, filters, source_types: as for ``client.agentic_search``.
        callback_manager: LlamaIndex's callbacks.

    Raises:
        paperlens.ValidationError: a bad setting, at construction, with the client's own message
            (``agentic_search``'s rules; a client made with ``validate=False`` sends ``top_k``,
            ``retrieval``, ``sub_queries``, ``filters`` and ``source_types`` as given).
    """

    def __init__(
        self,
        client: Client | AsyncClient | None = None,
        top_k: int = 10,
        *,
        retrieval: str | None = None,
        sub_queries: int | None = None,
        filters: dict[str, Any] | None = None,
        source_types: list[str] | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self._search = checked_search(client, locals())
        self._clients = Clients(client)
        super().__init__(callback_manager=callback_manager)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = self._clients.sync.agentic_search(query_bundle.query_str, **self._search)
        return [_node(hit) for hit in found.hits]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = await self._clients.asynchronous.agentic_search(query_bundle.query_str, **self._search)
        return [_node(hit) for hit in found.hits]


def _node(hit: Any) -> NodeWithScore:
    text = hit.chunk or ""
    node = TextNode(
        id_=hit.chunk_id if hit.chunk_id is not None else str(uuid.uuid4()),
        text=text,
        metadata=hit_metadata(hit),
        start_char_idx=hit.offset,
        end_char_idx=None if hit.offset is None else hit.offset + len(text),
    )
    if hit.doc_id is not None:
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=hit.doc_id)
    return NodeWithScore(node=node, score=hit.score)


class PaperlensReader(BaseReader):
    """A LlamaIndex reader of whole full texts, one :class:`~llama_index.core.schema.Document`
    per ``doc_id`` (``id_``: the ``doc_id``).

    Each text is read completely by code-point offsets, in pages of the largest size, and its
    length checked against the ``text_length`` the service reports (``client.read_text``).
    With ``metadata=True`` the Documents' metadata adds the ``unique_id``, ``title`` and
    ``year`` of their records, looked up 200 ``doc_id`` s per ``/meta-search`` request.

    Args:
        client: as for :class:`PaperlensRetriever`.
        metadata: True: look up the records of the texts; False: the metadata is the ``doc_id`` only.

    Raises:
        paperlens.ValidationError: a ``metadata`` that is not a bool, or a bad ``client``
            (checked in this order, so a bad ``metadata`` starts no default client).
    """

    def __init__(self, client: Client | AsyncClient | None = None, *, metadata: bool = True) -> None:
        self._metadata = flag("metadata", metadata)
        self._clients = Clients(client)

    def lazy_load_data(self, doc_ids: Iterable[str]) -> Iterator[Document]:
        """The Documents of ``doc_ids`` (in order, each once), each read when it is asked for.

        Raises:
            paperlens.ValidationError: ``doc_ids`` is one string, or an entry is empty (before
                any request).
            paperlens.PaperlensError: what the client raises (a 403 for a text the token may
                not read, a 400 for an unknown ``doc_id``...).
        """
        wanted = checked_doc_ids(doc_ids)
        client = self._clients.sync
        records = client.lookup(wanted, by="doc_id").found if self._metadata and wanted else {}
        for doc_id in wanted:
            yield Document(
                id_=doc_id, text=client.read_text(doc_id), metadata=record_metadata(doc_id, records.get(doc_id))
            )

    def load_data(self, doc_ids: Iterable[str]) -> list[Document]:
        """The Documents of ``doc_ids``, in order, each once (see :meth:`lazy_load_data`)."""
        return list(self.lazy_load_data(doc_ids))

    async def aload_data(self, doc_ids: Iterable[str]) -> list[Document]:
        """:meth:`load_data` through the async client."""
        wanted = checked_doc_ids(doc_ids)
        client = self._clients.asynchronous
        records = (await client.lookup(wanted, by="doc_id")).found if self._metadata and wanted else {}
        return [
            Document(
                id_=doc_id, text=await client.read_text(doc_id), metadata=record_metadata(doc_id, records.get(doc_id))
            )
            for doc_id in wanted
        ]
