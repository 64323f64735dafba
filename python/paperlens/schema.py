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
from paperlens._operation import AsyncCaller, Params, SyncCaller, operation, pages, params
from paperlens._pagination import CursorPaging

if TYPE_CHECKING:
    from paperlens.client import AsyncClient, Client

__all__ = ["AsyncSchema", "Schema"]

M = TypeVar("M", bound=t.Response)
# Frames from the warning up to the user: _checked, client._call, schema._call, the method.
_CALLER = 5


class _SchemaOperations:
    """The 18 Structured Paper operations, for :class:`Schema` and :class:`AsyncSchema`."""

    # -- paper discovery ------------------------------------------------------------------

    @operation(t.PaperSearchPage)
    def search(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        sort: list[dict[str, Any]] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """Papers by keyword relevance and metadata (``POST /paper-schema/search``).

        ``query`` (1-500 characters) or ``filters`` (``schema_ids``, ``dois``, ``authors``,
        ``venues``, ``published_year_gte``/``_lte``, ``has_code``, ``has_data``, ``is_oa``)
        is required; DOIs go in ``filters["dois"]``. ``sort``: at most 2 items on ``year``,
        ``metrics.citation_count``, ``metrics.reference_count``, ``metrics.fwci``."""
        return params(locals())

    @pages(t.PaperSearchPage, t.PaperCard, CursorPaging, unit="papers")
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
    ) -> Params:
        """Every paper of :meth:`search`, following ``next_cursor``."""
        return params(locals())

    @operation(t.EntityRelatedPapersPage)
    def entity_related_papers(
        self,
        query: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        exclude_schema_ids: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """Papers holding entities similar to ``query`` in name, type and description
        (``POST /paper-schema/entities/related-papers``); similarity, not identity."""
        return params(locals())

    @pages(t.EntityRelatedPapersPage, t.EntityRelatedPaper, CursorPaging, unit="papers")
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
    ) -> Params:
        """Every item of :meth:`entity_related_papers`, following ``next_cursor``."""
        return params(locals())

    @operation(t.RelatedPapers)
    def related_papers(
        self,
        schema_id: str,
        *,
        signals: list[str] | None = None,
        exclude_same_work: bool | None = None,
        size: int | None = None,
    ) -> Params:
        """Candidates related to a seed paper from ``term``, ``entity`` and ``citation``
        signals (``POST /paper-schema/schemas/{schema_id}/related-papers``); ``size`` 1-50."""
        return params(locals())

    # -- entities -------------------------------------------------------------------------

    @operation(t.EntitySearchPage)
    def search_entities(
        self,
        query: str | None = None,
        *,
        filters: dict[str, Any] | None = None,
        hydrate_schema_papers: bool | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """Entities by keyword (``POST /paper-schema/entities/search``); ``query`` is
        required unless ``filters["schema_ids"]`` scopes the search to papers."""
        return params(locals())

    @pages(t.EntitySearchPage, t.Entity, CursorPaging, unit="entities")
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
    ) -> Params:
        """Every entity of :meth:`search_entities`, following ``next_cursor``."""
        return params(locals())

    @operation(t.EntityPage)
    def entities(
        self,
        schema_id: str,
        *,
        entity_types: list[str] | None = None,
        entity_subtypes: list[str] | None = None,
        sections: list[str] | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """One page of the entity set of a paper (``GET /paper-schema/schemas/{schema_id}/entities``)."""
        return params(locals())

    @pages(t.EntityPage, t.Entity, CursorPaging, unit="entities")
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
    ) -> Params:
        """The complete (filtered) entity set of a paper, following ``next_cursor``."""
        return params(locals())

    @operation(t.EntityDetail)
    def entity(
        self,
        schema_id: str,
        entity_id: str,
        *,
        include_relations: bool | None = None,
        relation_limit: int | None = None,
    ) -> Params:
        """One entity of a paper, with its adjacent relations on request
        (``GET .../schemas/{schema_id}/entities/{entity_id}``); 404 if not of that paper."""
        return params(locals())

    # -- internal relations ---------------------------------------------------------------

    @operation(t.RelationSearchPage)
    def search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """Relations inside papers (``POST /paper-schema/relations/search``). ``filters``
        needs a structural condition: ``schema_ids``, ``source_entity_ids``,
        ``target_entity_ids`` or ``relation_types``. ``include_context``: ``none``/``entities``."""
        return params(locals())

    @pages(t.RelationSearchPage, t.Relation, CursorPaging, unit="relations")
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
    ) -> Params:
        """Every relation of :meth:`search_relations`, following ``next_cursor``."""
        return params(locals())

    @operation(t.RelationDetail)
    def relation(self, schema_id: str, relation_id: str, *, include_context: bool | None = None) -> Params:
        """One internal relation with its endpoints and merged provenance
        (``GET .../schemas/{schema_id}/relations/{relation_id}``)."""
        return params(locals())

    # -- external citations ---------------------------------------------------------------

    @operation(t.CitationSummary)
    def citation_summary(self, schema_id: str) -> Params:
        """Outbound and inbound citation counts of a paper (``GET .../citation-summary``)."""
        return params(locals())

    @operation(t.CitationsPage)
    def citations(self, schema_id: str, *, size: int | None = None, cursor: str | None = None) -> Params:
        """One page of the complete citation list, resolved and unresolved (``GET .../citations``)."""
        return params(locals())

    @pages(t.CitationsPage, t.CitationItem, CursorPaging, unit="citations")
    def iter_citations(
        self,
        schema_id: str,
        *,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Params:
        """Every citation of a paper, following ``next_cursor``."""
        return params(locals())

    @operation(t.CitationGraph)
    def citation_graph(
        self,
        schema_id: str,
        *,
        direction: str | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        max_edges: int | None = None,
    ) -> Params:
        """Resolved citations expanded from a root paper (``GET .../citation-graph``):
        ``direction`` ``outbound``/``inbound``, ``depth`` 1-3, ``max_nodes`` 2-500,
        ``max_edges`` 1-500. ``.to_networkx()`` gives a ``DiGraph``."""
        return params(locals())

    # -- evidence and content -------------------------------------------------------------

    @operation(t.EvidenceSearchPage)
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
    ) -> Params:
        """Structured evidence (``POST /paper-schema/evidence/search``): 1-5 ``groups`` of
        the evidence groups plus at least one of ``schema_ids``, ``query``, ``key``,
        ``path_bucket``, a numeric bound or ``value_bool``."""
        return params(locals())

    @pages(t.EvidenceSearchPage, t.Evidence, CursorPaging, unit="evidence")
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
    ) -> Params:
        """Every evidence of :meth:`search_evidence`, following ``next_cursor``."""
        return params(locals())

    @operation(t.EvidenceDetail)
    def evidence(self, schema_id: str, evidence_id: str) -> Params:
        """One evidence of a paper with its source and locations (``GET .../evidence/{evidence_id}``)."""
        return params(locals())

    @operation(t.ResolvedProvenance)
    def resolve_provenance(
        self,
        *,
        schema_id: str | None = None,
        marker_nums: list[int] | None = None,
        paragraph_ids: list[str] | None = None,
        window: int | None = None,
        max_segments: int | None = None,
    ) -> Params:
        """Source paragraphs of locators (``POST /paper-schema/resolve-provenance``): exactly
        one mode, ``schema_id`` with ``marker_nums``, or ``paragraph_ids`` (at most 100)."""
        return params(locals())

    @operation(t.InPaperSearchResult)
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
    ) -> Params:
        """Keyword search in the body of one paper (``POST /paper-schema/search-in-schema``);
        scores rank within that paper only."""
        return params(locals())

    @operation(t.HydratedItems)
    def hydrate_items(
        self,
        items: list[dict[str, Any]],
        *,
        window: int | None = None,
        max_segments_per_item: int | None = None,
        prefer_url_or_code: bool | None = None,
    ) -> Params:
        """Source paragraphs for 1-50 items (``POST /paper-schema/hydrate-items``), each
        ``{"schema_id": ..., "paragraph_ids"|"marker_nums"|"hydration_query": ...}``. Every
        item comes back; check ``.failed`` (each with its ``reason``)."""
        return params(locals())

    # -- research materials ---------------------------------------------------------------

    @operation(t.Materials)
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
    ) -> Params:
        """A trimmed bundle of entities, relations, evidence and terms for 1-20 papers
        (``POST /paper-schema/materials``); ``goal``: ``overview``, ``survey``,
        ``benchmark``, ``method`` or ``reproduction``."""
        return params(locals())


class Schema(_SchemaOperations, SyncCaller):
    """The Structured Paper operations of a :class:`paperlens.Client` (``client.schema``)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._listen = client._listen
        self._capabilities: t.Capabilities | None = None
        self._capabilities_lock = threading.Lock()

    def _call(self, method: str, model: type[M], params: Params) -> M:
        # A PartialResultWarning points at the caller of the public method, so that each
        # call site warns once under the default filter (not once for all 18 operations).
        return self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)

    def capabilities(self) -> t.Capabilities:
        """The capability contract (``GET /paper-schema``): contract version, public
        taxonomies, evidence groups and limits. Fetched once per client, then cached; it says
        nothing about the service's health or whether a paper exists."""
        with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = self._call("capabilities", t.Capabilities, {})
            return self._capabilities


class AsyncSchema(_SchemaOperations, AsyncCaller):
    """The Structured Paper operations of a :class:`paperlens.AsyncClient`: the methods of
    :class:`Schema` as coroutines, ``iter_*`` as async iterators."""

    def __init__(self, client: AsyncClient) -> None:
        import asyncio

        self._client = client
        self._listen = client._listen
        self._capabilities: t.Capabilities | None = None
        self._capabilities_lock = asyncio.Lock()

    async def _call(self, method: str, model: type[M], params: Params) -> M:
        return await self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)

    async def capabilities(self) -> t.Capabilities:
        """The capability contract (``GET /paper-schema``): contract version, public
        taxonomies, evidence groups and limits. Fetched once per client, then cached; it says
        nothing about the service's health or whether a paper exists."""
        async with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = await self._call("capabilities", t.Capabilities, {})
            return self._capabilities
