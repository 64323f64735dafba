"""LangChain adapters (extra ``langchain``): a retriever over ``agentic_search`` and the
default agent tools as LangChain tools.

>>> from paperlens.integrations.langchain import PaperlensRetriever
>>> retriever = PaperlensRetriever(top_k=5)  # the environment's service, or a fresh sandbox
>>> for document in retriever.invoke("coral bleaching and heat stress"):
...     print(document.metadata["score"], document.metadata.get("title"))

Each :class:`~langchain_core.documents.Document` holds one chunk of a full text
(``page_content``), its ``chunk_id`` as ``id``, and the metadata of
:func:`paperlens.integrations._shared.hit_metadata`: ``doc_id``, ``source``, ``offset``
(code points into the full text: ``client.content(doc_id, offset=offset)`` reads on from
there), ``chunk_id``, ``title``, ``year``, ``score`` and ``unique_id``, each only when the
service sent it (a key is never present with ``None``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from paperlens.client import AsyncClient, Client
from paperlens.integrations._shared import Clients, checked_top_k, hit_metadata

__all__ = ["PaperlensRetriever"]


class PaperlensRetriever(BaseRetriever):
    """A LangChain retriever of full-text chunks (``POST /agentic-search``), sync and async.

    Args:
        client: a :class:`paperlens.Client` or :class:`paperlens.AsyncClient`; the other kind
            is made over the same connections and pacing, so ``invoke`` and ``ainvoke`` both
            send their requests natively. None: the environment's service
            (``PAPERLENS_API_TOKEN``, ``PAPERLENS_BASE_URL``), or a fresh local sandbox when
            neither is set (said on stderr).
        top_k: the most chunks per query, 1-100.
        retrieval, sub_queries, filters, source_types: as for ``client.agentic_search``.

    Raises:
        paperlens.ValidationError: a bad ``top_k`` or ``client`` (at construction); the other
            parameters' bounds are checked before each request.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Any = None
    top_k: int = 10
    retrieval: str | None = None
    sub_queries: int | None = None
    filters: dict[str, Any] | None = None
    source_types: list[str] | None = None
    _clients: Clients = PrivateAttr()

    def __init__(self, client: Client | AsyncClient | None = None, top_k: int = 10, **options: Any) -> None:
        # Checked here, so that a bad value raises paperlens.ValidationError (pydantic's
        # validators would wrap it in an error of their own).
        clients = Clients(client)
        super().__init__(client=client, top_k=checked_top_k(top_k), **options)  # type: ignore[call-arg]
        self._clients = clients

    def _search(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "retrieval": self.retrieval,
            "sub_queries": self.sub_queries,
            "filters": self.filters,
            "source_types": self.source_types,
        }

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        found = self._clients.sync.agentic_search(query, **self._search())
        return [_document(hit) for hit in found.hits]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await self._clients.asynchronous.agentic_search(query, **self._search())
        return [_document(hit) for hit in found.hits]


def _document(hit: Any) -> Document:
    return Document(page_content=hit.chunk or "", metadata=hit_metadata(hit), id=hit.chunk_id)
