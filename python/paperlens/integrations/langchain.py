"""LangChain adapters (extra ``langchain``): a retriever over ``agentic_search`` and the
default agent tools as LangChain tools (:func:`tools`).

>>> from paperlens.integrations.langchain import PaperlensRetriever
>>> retriever = PaperlensRetriever(top_k=5)  # the environment's service, or a fresh sandbox
>>> for document in retriever.invoke("coral bleaching and heat stress"):
...     print(document.metadata["score"], document.metadata.get("title"))
0... ...

Each :class:`~langchain_core.documents.Document` holds one chunk of a full text
(``page_content``), its ``chunk_id`` as ``id``, and the metadata of
:func:`paperlens.integrations._shared.hit_metadata`: ``doc_id``, ``source``, ``offset``
(code points into the full text: ``client.content(doc_id, offset=offset)`` reads on from
there), ``chunk_id``, ``title``, ``year``, ``score`` and ``unique_id``, each only when the
service sent it (a key is never present with ``None``).
"""

from __future__ import annotations

import base64
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages.content import create_image_block, create_text_block
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import StructuredTool, ToolException
from pydantic import PrivateAttr, SkipValidation

from paperlens.agents._memory import Memory
from paperlens.agents._output import ImagePart, TextPart
from paperlens.agents._tools import DEFAULT_MAX_CHARS, AgentTool, Answer, check_max_chars, default_tools
from paperlens.clients.client import AsyncClient, Client
from paperlens.integrations._shared import SEARCH_SETTINGS, Clients, checked_search, hit_metadata

__all__ = ["PaperlensRetriever", "tools"]


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
        langchain: LangChain's own settings of a retriever (``name``, ``tags``, ``metadata``).

    Raises:
        paperlens.ValidationError: a bad setting, at construction, with the client's own message
            (``agentic_search``'s rules; a client made with ``validate=False`` sends ``top_k``,
            ``retrieval``, ``sub_queries``, ``filters`` and ``source_types`` as given).
        TypeError: a setting of another name (LangChain's model would drop it unsaid).
    """

    client: Any = None
    # Not validated by pydantic, which would convert them ("2" or True to a sub_queries of 2
    # or 1): they are checked as the client checks them, by the core's rules.
    top_k: SkipValidation[int] = 10
    retrieval: SkipValidation[str | None] = None
    sub_queries: SkipValidation[int | None] = None
    filters: SkipValidation[dict[str, Any] | None] = None
    source_types: SkipValidation[list[str] | None] = None
    _clients: Clients = PrivateAttr()

    def __init__(
        self,
        client: Client | AsyncClient | None = None,
        top_k: int = 10,
        *,
        retrieval: str | None = None,
        sub_queries: int | None = None,
        filters: dict[str, Any] | None = None,
        source_types: list[str] | None = None,
        **langchain: Any,
    ) -> None:
        unknown = sorted(langchain.keys() - type(self).model_fields.keys())
        if unknown:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}")
        search = checked_search(client, locals())
        clients = Clients(client)
        super().__init__(client=client, **search, **langchain)  # type: ignore[call-arg]  # our fields, unknown to the base class
        self._clients = clients

    def _search(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SEARCH_SETTINGS}

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


def tools(client: Client | AsyncClient | None = None, *, max_chars: int = DEFAULT_MAX_CHARS) -> list[StructuredTool]:
    """The default agent tools of ``paperlens mcp`` (``search_papers``, ``read_paper``,
    ``search_metadata``...) as LangChain tools, sync (``invoke``) and async (``ainvoke``).

    Each has the MCP tool's name, description and JSON Schema (``args_schema``) and answers
    what the MCP tool answers: its text (bounded by ``max_chars``, saying how to continue), or
    for ``get_figure`` a list of content blocks, the text and the image (base64). An error (a
    bad argument, an unknown id, a 429) is the tool's answer, as in MCP (``handle_tool_error``):
    the agent reads what went wrong and what to do. As in MCP, the client's token is masked
    (``***``) in every answer and error, even one whose text from the service holds it.

    The tools of one call share a memory of the answers they computed, as an MCP session
    does: a list answer cut by ``max_chars`` says to call again with a ``continuation`` token,
    served from that memory with no request (kept for 30 minutes and 64 MiB, oldest first).

    Args:
        client: as for :class:`PaperlensRetriever`.
        max_chars: the most characters of a tool's text, from 1000.

    Raises:
        paperlens.ValidationError: a bad ``max_chars`` or ``client`` (here, before any tool runs).
    """
    check_max_chars(max_chars)
    clients, memory = Clients(client), Memory()
    return [_structured(tool, clients, max_chars, memory) for tool in default_tools()]


def _structured(tool: AgentTool, clients: Clients, max_chars: int, memory: Memory) -> StructuredTool:
    def run(**arguments: Any) -> Any:
        return _content(tool.run(clients.sync, arguments, max_chars, memory))

    async def arun(**arguments: Any) -> Any:
        return _content(await tool.arun(clients.asynchronous, arguments, max_chars, memory))

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=tool.name,
        description=tool.description,
        args_schema=tool.input_schema,
        handle_tool_error=True,
    )


def _content(answer: Answer) -> str | list[Any]:
    """A tool's answer as a LangChain tool's: the text, or content blocks with images; a
    failure a ``ToolException``, whose text is the tool's answer (``handle_tool_error``)."""
    if answer.is_error:
        raise ToolException(answer.text)
    parts = answer.parts
    if all(isinstance(part, TextPart) for part in parts):
        return answer.text
    return [
        create_text_block(part.text)
        if isinstance(part, TextPart)
        else create_image_block(base64=base64.b64encode(part.data).decode("ascii"), mime_type=part.mime_type)
        for part in parts
        if isinstance(part, (TextPart, ImagePart))
    ]
