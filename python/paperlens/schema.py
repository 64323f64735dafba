"""``client.schema``: the 18 Structured Paper operations (``/paper-schema``, beta).

Papers pre-parsed into entities, relations, evidence and citations, with exact locations
back to source paragraphs. ``schema_id`` (from ``items[].schema_id`` of the discovery
operations) is the key of a paper; entity, relation and evidence ids are stable only inside
their paper. Every parameter left ``None`` is not sent (the service's default applies).

>>> page = client.schema.search("diffusion models", filters={"has_code": True}, size=5)
>>> graph = client.schema.citation_graph(page.items[0].schema_id, depth=2).to_networkx()
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, TypeVar

from paperlens import types as t
from paperlens._pagination import AsyncPaginator, CursorPaging, Paginator

if TYPE_CHECKING:
    from paperlens.client import AsyncClient, Client

__all__ = ["AsyncSchema", "Schema"]

M = TypeVar("M", bound=t.Response)
# Frames from the warning up to the user: _checked, client._call, schema._call, the method.
_CALLER = 5


def _params(scope: dict[str, Any], *drop: str) -> dict[str, Any]:
    """A method's parameters from its ``locals()``, without ``self`` and the named ones."""
    return {k: v for k, v in scope.items() if k != "self" and k not in drop}


class Schema:
    """The Structured Paper operations of a :class:`paperlens.Client` (``client.schema``)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._capabilities: t.Capabilities | None = None
        self._capabilities_lock = threading.Lock()

    def _call(self, method: str, model: type[M], params: dict[str, Any]) -> M:
        # A PartialResultWarning points at the caller of the public method, so that each
        # call site warns once under the default filter (not once for all 18 operations).
        return self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)

    def _pages(self, method: str, model: type[Any], scope: dict[str, Any], unit: str) -> Paginator[Any]:
        params = _params(scope, "limit", "progress")
        fetch = lambda p: self._call(method, model, p)  # noqa: E731
        return Paginator(
            fetch,
            CursorPaging(params),
            limit=scope["limit"],
            progress=scope["progress"],
            unit=unit,
            listen=self._client._listen,
        )

    # -- capability -----------------------------------------------------------------------

    def capabilities(self) -> t.Capabilities:
        """The capability contract (``GET /paper-schema``): contract version, public
        taxonomies, evidence groups and limits. Fetched once per client, then cached; it says
        nothing about the service's health or whether a paper exists."""
        with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = self._call("capabilities", t.Capabilities, {})
            return self._capabilities

    # -- paper discovery ------------------------------------------------------------------

    def search(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        sort: list[dict[str, Any]] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.PaperSearchPage:
        """Papers by keyword relevance and metadata (``POST /paper-schema/search``).

        ``query`` (1-500 characters) or ``filters`` (``schema_ids``, ``dois``, ``authors``,
        ``venues``, ``published_year_gte``/``_lte``, ``has_code``, ``has_data``, ``is_oa``)
        is required; DOIs go in ``filters["dois"]``. ``sort``: at most 2 items on ``year``,
        ``metrics.citation_count``, ``metrics.reference_count``, ``metrics.fwci``."""
        return self._call("search", t.PaperSearchPage, _params(locals()))

    def iter_search(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        sort: list[dict[str, Any]] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.PaperCard]:
        """Every paper of :meth:`search`, following ``next_cursor``."""
        return self._pages("search", t.PaperSearchPage, locals(), "papers")

    def entity_related_papers(
        self,
        query: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        exclude_schema_ids: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntityRelatedPapersPage:
        """Papers holding entities similar to ``query`` in name, type and description
        (``POST /paper-schema/entities/related-papers``); similarity, not identity."""
        return self._call("entity_related_papers", t.EntityRelatedPapersPage, _params(locals()))

    def iter_entity_related_papers(
        self,
        query: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        exclude_schema_ids: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.EntityRelatedPaper]:
        """Every item of :meth:`entity_related_papers`, following ``next_cursor``."""
        return self._pages("entity_related_papers", t.EntityRelatedPapersPage, locals(), "papers")

    def related_papers(
        self,
        schema_id: str,
        *,
        signals: list[str] | None = None,
        exclude_same_work: bool | None = None,
        size: int | None = None,
    ) -> t.RelatedPapers:
        """Candidates related to a seed paper from ``term``, ``entity`` and ``citation``
        signals (``POST /paper-schema/schemas/{schema_id}/related-papers``); ``size`` 1-50."""
        return self._call("related_papers", t.RelatedPapers, _params(locals()))

    # -- entities -------------------------------------------------------------------------

    def search_entities(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntitySearchPage:
        """Entities by keyword (``POST /paper-schema/entities/search``); ``query`` is
        required unless ``filters["schema_ids"]`` scopes the search to papers."""
        return self._call("search_entities", t.EntitySearchPage, _params(locals()))

    def iter_search_entities(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.Entity]:
        """Every entity of :meth:`search_entities`, following ``next_cursor``."""
        return self._pages("search_entities", t.EntitySearchPage, locals(), "entities")

    def entities(
        self,
        schema_id: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        sections: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntityPage:
        """One page of the entity set of a paper (``GET /paper-schema/schemas/{schema_id}/entities``)."""
        return self._call("entities", t.EntityPage, _params(locals()))

    def iter_entities(
        self,
        schema_id: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        sections: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.Entity]:
        """The complete (filtered) entity set of a paper, following ``next_cursor``."""
        return self._pages("entities", t.EntityPage, locals(), "entities")

    def entity(
        self,
        schema_id: str,
        entity_id: str,
        *,
        include_relations: bool | None = None,
        relation_limit: int | None = None,
    ) -> t.EntityDetail:
        """One entity of a paper, with its adjacent relations on request
        (``GET .../schemas/{schema_id}/entities/{entity_id}``); 404 if not of that paper."""
        return self._call("entity", t.EntityDetail, _params(locals()))

    # -- internal relations ---------------------------------------------------------------

    def search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.RelationSearchPage:
        """Relations inside papers (``POST /paper-schema/relations/search``). ``filters``
        needs a structural condition: ``schema_ids``, ``source_entity_ids``,
        ``target_entity_ids`` or ``relation_types``. ``include_context``: ``none``/``entities``."""
        return self._call("search_relations", t.RelationSearchPage, _params(locals()))

    def iter_search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.Relation]:
        """Every relation of :meth:`search_relations`, following ``next_cursor``."""
        return self._pages("search_relations", t.RelationSearchPage, locals(), "relations")

    def relation(self, schema_id: str, relation_id: str, *, include_context: bool | None = None) -> t.RelationDetail:
        """One internal relation with its endpoints and merged provenance
        (``GET .../schemas/{schema_id}/relations/{relation_id}``)."""
        return self._call("relation", t.RelationDetail, _params(locals()))

    # -- external citations ---------------------------------------------------------------

    def citation_summary(self, schema_id: str) -> t.CitationSummary:
        """Outbound and inbound citation counts of a paper (``GET .../citation-summary``)."""
        return self._call("citation_summary", t.CitationSummary, _params(locals()))

    def citations(self, schema_id: str, *, size: int | None = None, cursor: str | None = None) -> t.CitationsPage:
        """One page of the complete citation list, resolved and unresolved (``GET .../citations``)."""
        return self._call("citations", t.CitationsPage, _params(locals()))

    def iter_citations(
        self,
        schema_id: str,
        *,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.CitationItem]:
        """Every citation of a paper, following ``next_cursor``."""
        return self._pages("citations", t.CitationsPage, locals(), "citations")

    def citation_graph(
        self,
        schema_id: str,
        *,
        direction: str | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        max_edges: int | None = None,
    ) -> t.CitationGraph:
        """Resolved citations expanded from a root paper (``GET .../citation-graph``):
        ``direction`` ``outbound``/``inbound``, ``depth`` 1-3, ``max_nodes`` 2-500,
        ``max_edges`` 1-500. ``.to_networkx()`` gives a ``DiGraph``."""
        return self._call("citation_graph", t.CitationGraph, _params(locals()))

    # -- evidence and content -------------------------------------------------------------

    def search_evidence(
        self,
        groups: list[str],
        *,
        group_operator: str | None = None,
        schema_ids: list[str] | None = None,
        query: str | None = None,
        key: str | None = None,
        path_bucket: str | None = None,
        value_number_min: float | None = None,
        value_number_max: float | None = None,
        value_bool: bool | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EvidenceSearchPage:
        """Structured evidence (``POST /paper-schema/evidence/search``): 1-5 ``groups`` of
        the evidence groups plus at least one of ``schema_ids``, ``query``, ``key``,
        ``path_bucket``, a numeric bound or ``value_bool``."""
        return self._call("search_evidence", t.EvidenceSearchPage, _params(locals()))

    def iter_search_evidence(
        self,
        groups: list[str],
        *,
        group_operator: str | None = None,
        schema_ids: list[str] | None = None,
        query: str | None = None,
        key: str | None = None,
        path_bucket: str | None = None,
        value_number_min: float | None = None,
        value_number_max: float | None = None,
        value_bool: bool | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Paginator[t.Evidence]:
        """Every evidence of :meth:`search_evidence`, following ``next_cursor``."""
        return self._pages("search_evidence", t.EvidenceSearchPage, locals(), "evidence")

    def evidence(self, schema_id: str, evidence_id: str) -> t.EvidenceDetail:
        """One evidence of a paper with its source and locations (``GET .../evidence/{evidence_id}``)."""
        return self._call("evidence", t.EvidenceDetail, _params(locals()))

    def resolve_provenance(
        self,
        *,
        schema_id: str | None = None,
        marker_nums: list[int] | None = None,
        paragraph_ids: list[str] | None = None,
        window: int | None = None,
        max_segments: int | None = None,
    ) -> t.ResolvedProvenance:
        """Source paragraphs of locators (``POST /paper-schema/resolve-provenance``): exactly
        one mode, ``schema_id`` with ``marker_nums``, or ``paragraph_ids`` (at most 100)."""
        return self._call("resolve_provenance", t.ResolvedProvenance, _params(locals()))

    def search_in_paper(
        self,
        schema_id: str,
        query: str,
        *,
        section_hint: str | None = None,
        prefer_url: bool | None = None,
        prefer_code: bool | None = None,
        top_k: int | None = None,
        window: int | None = None,
    ) -> t.InPaperSearchResult:
        """Keyword search in the body of one paper (``POST /paper-schema/search-in-schema``);
        scores rank within that paper only."""
        return self._call("search_in_paper", t.InPaperSearchResult, _params(locals()))

    def hydrate_items(
        self,
        items: list[dict[str, Any]],
        *,
        window: int | None = None,
        max_segments_per_item: int | None = None,
        prefer_url_or_code: bool | None = None,
    ) -> t.HydratedItems:
        """Source paragraphs for 1-50 items (``POST /paper-schema/hydrate-items``), each
        ``{"schema_id": ..., "paragraph_ids"|"marker_nums"|"hydration_query": ...}``. Every
        item comes back; check ``.failed`` (each with its ``reason``)."""
        return self._call("hydrate_items", t.HydratedItems, _params(locals()))

    # -- research materials ---------------------------------------------------------------

    def materials(
        self,
        schema_ids: list[str],
        *,
        goal: str | None = None,
        include_relation_context: bool | None = None,
        per_schema_entity_limit: int | None = None,
        per_schema_relation_limit: int | None = None,
        per_schema_attribute_limit: int | None = None,
        per_schema_term_limit: int | None = None,
    ) -> t.Materials:
        """A trimmed bundle of entities, relations, evidence and terms for 1-20 papers
        (``POST /paper-schema/materials``); ``goal``: ``overview``, ``survey``,
        ``benchmark``, ``method`` or ``reproduction``."""
        return self._call("materials", t.Materials, _params(locals()))


class AsyncSchema:
    """The Structured Paper operations of a :class:`paperlens.AsyncClient`: the methods of
    :class:`Schema` as coroutines, ``iter_*`` as async iterators."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._capabilities: t.Capabilities | None = None
        import asyncio

        self._capabilities_lock = asyncio.Lock()

    async def _call(self, method: str, model: type[M], params: dict[str, Any]) -> M:
        return await self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)

    def _pages(self, method: str, model: type[Any], scope: dict[str, Any], unit: str) -> AsyncPaginator[Any]:
        params = _params(scope, "limit", "progress")
        fetch = lambda p: self._call(method, model, p)  # noqa: E731
        return AsyncPaginator(
            fetch,
            CursorPaging(params),
            limit=scope["limit"],
            progress=scope["progress"],
            unit=unit,
            listen=self._client._listen,
        )

    async def capabilities(self) -> t.Capabilities:
        """See :meth:`Schema.capabilities` (fetched once per client, then cached)."""
        async with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = await self._call("capabilities", t.Capabilities, {})
            return self._capabilities

    async def search(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        sort: list[dict[str, Any]] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.PaperSearchPage:
        """See :meth:`Schema.search`."""
        return await self._call("search", t.PaperSearchPage, _params(locals()))

    def iter_search(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        sort: list[dict[str, Any]] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.PaperCard]:
        """See :meth:`Schema.iter_search`."""
        return self._pages("search", t.PaperSearchPage, locals(), "papers")

    async def entity_related_papers(
        self,
        query: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        exclude_schema_ids: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntityRelatedPapersPage:
        """See :meth:`Schema.entity_related_papers`."""
        return await self._call("entity_related_papers", t.EntityRelatedPapersPage, _params(locals()))

    def iter_entity_related_papers(
        self,
        query: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        exclude_schema_ids: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.EntityRelatedPaper]:
        """See :meth:`Schema.iter_entity_related_papers`."""
        return self._pages("entity_related_papers", t.EntityRelatedPapersPage, locals(), "papers")

    async def related_papers(
        self,
        schema_id: str,
        *,
        signals: list[str] | None = None,
        exclude_same_work: bool | None = None,
        size: int | None = None,
    ) -> t.RelatedPapers:
        """See :meth:`Schema.related_papers`."""
        return await self._call("related_papers", t.RelatedPapers, _params(locals()))

    async def search_entities(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntitySearchPage:
        """See :meth:`Schema.search_entities`."""
        return await self._call("search_entities", t.EntitySearchPage, _params(locals()))

    def iter_search_entities(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.Entity]:
        """See :meth:`Schema.iter_search_entities`."""
        return self._pages("search_entities", t.EntitySearchPage, locals(), "entities")

    async def entities(
        self,
        schema_id: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        sections: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EntityPage:
        """See :meth:`Schema.entities`."""
        return await self._call("entities", t.EntityPage, _params(locals()))

    def iter_entities(
        self,
        schema_id: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        sections: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.Entity]:
        """See :meth:`Schema.iter_entities`."""
        return self._pages("entities", t.EntityPage, locals(), "entities")

    async def entity(
        self,
        schema_id: str,
        entity_id: str,
        *,
        include_relations: bool | None = None,
        relation_limit: int | None = None,
    ) -> t.EntityDetail:
        """See :meth:`Schema.entity`."""
        return await self._call("entity", t.EntityDetail, _params(locals()))

    async def search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.RelationSearchPage:
        """See :meth:`Schema.search_relations`."""
        return await self._call("search_relations", t.RelationSearchPage, _params(locals()))

    def iter_search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.Relation]:
        """See :meth:`Schema.iter_search_relations`."""
        return self._pages("search_relations", t.RelationSearchPage, locals(), "relations")

    async def relation(
        self, schema_id: str, relation_id: str, *, include_context: bool | None = None
    ) -> t.RelationDetail:
        """See :meth:`Schema.relation`."""
        return await self._call("relation", t.RelationDetail, _params(locals()))

    async def citation_summary(self, schema_id: str) -> t.CitationSummary:
        """See :meth:`Schema.citation_summary`."""
        return await self._call("citation_summary", t.CitationSummary, _params(locals()))

    async def citations(self, schema_id: str, *, size: int | None = None, cursor: str | None = None) -> t.CitationsPage:
        """See :meth:`Schema.citations`."""
        return await self._call("citations", t.CitationsPage, _params(locals()))

    def iter_citations(
        self,
        schema_id: str,
        *,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.CitationItem]:
        """See :meth:`Schema.iter_citations`."""
        return self._pages("citations", t.CitationsPage, locals(), "citations")

    async def citation_graph(
        self,
        schema_id: str,
        *,
        direction: str | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        max_edges: int | None = None,
    ) -> t.CitationGraph:
        """See :meth:`Schema.citation_graph`."""
        return await self._call("citation_graph", t.CitationGraph, _params(locals()))

    async def search_evidence(
        self,
        groups: list[str],
        *,
        group_operator: str | None = None,
        schema_ids: list[str] | None = None,
        query: str | None = None,
        key: str | None = None,
        path_bucket: str | None = None,
        value_number_min: float | None = None,
        value_number_max: float | None = None,
        value_bool: bool | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> t.EvidenceSearchPage:
        """See :meth:`Schema.search_evidence`."""
        return await self._call("search_evidence", t.EvidenceSearchPage, _params(locals()))

    def iter_search_evidence(
        self,
        groups: list[str],
        *,
        group_operator: str | None = None,
        schema_ids: list[str] | None = None,
        query: str | None = None,
        key: str | None = None,
        path_bucket: str | None = None,
        value_number_min: float | None = None,
        value_number_max: float | None = None,
        value_bool: bool | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> AsyncPaginator[t.Evidence]:
        """See :meth:`Schema.iter_search_evidence`."""
        return self._pages("search_evidence", t.EvidenceSearchPage, locals(), "evidence")

    async def evidence(self, schema_id: str, evidence_id: str) -> t.EvidenceDetail:
        """See :meth:`Schema.evidence`."""
        return await self._call("evidence", t.EvidenceDetail, _params(locals()))

    async def resolve_provenance(
        self,
        *,
        schema_id: str | None = None,
        marker_nums: list[int] | None = None,
        paragraph_ids: list[str] | None = None,
        window: int | None = None,
        max_segments: int | None = None,
    ) -> t.ResolvedProvenance:
        """See :meth:`Schema.resolve_provenance`."""
        return await self._call("resolve_provenance", t.ResolvedProvenance, _params(locals()))

    async def search_in_paper(
        self,
        schema_id: str,
        query: str,
        *,
        section_hint: str | None = None,
        prefer_url: bool | None = None,
        prefer_code: bool | None = None,
        top_k: int | None = None,
        window: int | None = None,
    ) -> t.InPaperSearchResult:
        """See :meth:`Schema.search_in_paper`."""
        return await self._call("search_in_paper", t.InPaperSearchResult, _params(locals()))

    async def hydrate_items(
        self,
        items: list[dict[str, Any]],
        *,
        window: int | None = None,
        max_segments_per_item: int | None = None,
        prefer_url_or_code: bool | None = None,
    ) -> t.HydratedItems:
        """See :meth:`Schema.hydrate_items`."""
        return await self._call("hydrate_items", t.HydratedItems, _params(locals()))

    async def materials(
        self,
        schema_ids: list[str],
        *,
        goal: str | None = None,
        include_relation_context: bool | None = None,
        per_schema_entity_limit: int | None = None,
        per_schema_relation_limit: int | None = None,
        per_schema_attribute_limit: int | None = None,
        per_schema_term_limit: int | None = None,
    ) -> t.Materials:
        """See :meth:`Schema.materials`."""
        return await self._call("materials", t.Materials, _params(locals()))
