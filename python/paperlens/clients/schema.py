"""The code of :mod:`paperlens.schema`, the public module that re-exports it and documents it."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from paperlens.base.filters import schema_search_filters
from paperlens.errors import PartialResultWarning
from paperlens.machinery._operation import AsyncCaller, Params, SyncCaller, operation, pages, params
from paperlens.machinery._pagination import CursorPaging
from paperlens.results import types as t

__all__ = ["AsyncSchema", "Schema"]

M = TypeVar("M", bound=t.Response)
# Frames from the warning up to the user: _checked, client._call, schema._call, the method.
_CALLER = 5
# The same from _warn_unreturned: this one, schema._call, the method.
_UNRETURNED_CALLER = 4


def _lost(request: Any, segments: list[t.ParagraphSegment], missing: Any) -> list[Any]:
    """The locators of ``request`` (``marker_nums``, ``paragraph_ids``) that came back neither
    in a segment nor in ``missing`` (compared as text: a marker may come back as a string)."""
    accounted = {str(m) for m in missing} if isinstance(missing, list) else set()
    lost: list[Any] = []
    for key, field in (("marker_nums", "marker"), ("paragraph_ids", "paragraph_id")):
        returned = accounted | {str(getattr(segment, field)) for segment in segments}
        lost += [locator for locator in request.get(key) or () if str(locator) not in returned]
    return lost


def _unreturned(method: str, request: Params, result: Any) -> str | None:
    """The warning for requested locators that the answer neither returned nor listed as
    missing (the contract lists every locator it could not resolve in ``missing``)."""
    if method == "resolve_provenance":
        lost = _lost(request, result.segments, result.missing)
        places = [f"{lost!r}"] if lost else []
    elif method == "hydrate_items":
        answers = list(result.items)
        places = []
        for k, item in enumerate(request["items"]):
            answer = answers[k] if k < len(answers) else None
            segments = answer.segments if answer is not None else []
            missing = answer.extra.get("missing") if answer is not None else None
            lost = _lost(item, segments, missing)
            if lost:
                reason = f" ({answer.reason})" if answer is not None and answer.reason else ""
                places.append(f"items[{k}]: {lost!r}{reason}")
    else:
        return None
    if not places:
        return None
    where = "; ".join(places)
    return (
        f"{method} (request_id={result.request_id}): requested locators came back neither in segments"
        f" nor in missing: {where}"
    )


def _warn_unreturned(method: str, request: Params, result: Any) -> None:
    unreturned = _unreturned(method, request, result)
    if unreturned is not None:
        warnings.warn(unreturned, PartialResultWarning, stacklevel=_UNRETURNED_CALLER)


class _SchemaOperations:
    """The 18 Structured Paper operations, for :class:`Schema` and :class:`AsyncSchema`."""

    # -- paper discovery ------------------------------------------------------------------

    @operation(lambda: t.PaperSearchPage)
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

        Keyword search over titles, abstracts, problems, contributions, results, topics,
        authors and venues (not question answering). ``query`` or ``filters`` is required.

        Args:
            query: keywords, 1-500 characters.
            filters: ``schema_ids`` and ``dois`` (at most 100 each; DOIs go here, not in the
                query; ``https://doi.org/`` and ``doi:`` prefixes and case are normalised as
                :meth:`paperlens.Client.lookup` does), ``authors`` (20), ``venues`` (50), ``published_year_gte`` /
                ``published_year_lte`` (1800-2200), ``has_code``, ``has_data``, ``is_oa``.
            sort: at most 2 items, each ``{"field": FIELD, "order": "asc" or "desc"}`` with
                FIELD ``year``, ``metrics.citation_count``, ``metrics.reference_count`` or
                ``metrics.fwci``; the first item decides, the second breaks ties. Default:
                relevance with a query, otherwise a stable order.
            size: papers per page, 1-100 (service default 20).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``PaperCard`` (``.items``; ``.items[i].schema_id`` is the key of a paper
            in every other operation), ``.total`` and ``.next_cursor``.

        Raises:
            ValidationError: neither ``query`` nor ``filters``, or a bound broken (nothing is sent).

        Examples:
            >>> cards = client.schema.search("CRISPR off-target", filters={"has_code": True}, size=5)
            >>> sid = cards.items[0].schema_id
            >>> by_year = [{"field": "year", "order": "desc"}, {"field": "metrics.citation_count", "order": "desc"}]
            >>> newest = client.schema.search("CRISPR off-target", sort=by_year, size=3)
            >>> [(card.year, card.extra["metrics"]["citation_count"]) for card in newest.items]
            [(2026, 3), (2026, 3), (2026, 3)]
        """
        return {**params(locals()), "filters": schema_search_filters(filters)}

    @pages(lambda: t.PaperSearchPage, lambda: t.PaperCard, CursorPaging, unit="papers")
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
        """Every paper of :meth:`search`, following ``next_cursor``.

        Args:
            size: papers per request, 1-100 (default: 100, or fewer when ``limit`` needs fewer).

        Returns:
            A paginator of ``PaperCard``; requests are sent as you iterate.

        Examples:
            >>> frame = client.schema.iter_search("CRISPR off-target", limit=300).to_pandas()
            >>> frame.loc[0, ["schema_id", "title"]].tolist()
            ['ps_92029737668b263f2d8e', 'Improving editing efficiency of off-target effects with ...']
        """
        return {**params(locals()), "filters": schema_search_filters(filters)}

    @operation(lambda: t.EntityRelatedPapersPage)
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
        (``POST /paper-schema/entities/related-papers``); similarity, not identity.

        Args:
            query: the entity to look for, 1-500 characters.
            entity_types: only entities of these public types (``capabilities()`` lists them).
            entity_subtypes: only entities of these public subtypes.
            exclude_schema_ids: papers to leave out, at most 100.
            size: papers per page, 1-100 (service default 20).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``EntityRelatedPaper`` (the paper card, the matched entities and why).

        Examples:
            >>> model = "Cox proportional hazards model"
            >>> papers = client.schema.entity_related_papers(model, entity_types=["Component"])
            >>> papers.items[0].schema_id, papers.items[0].schema_paper.title
            ('ps_4eea3521b6a037d0a51a', 'Cox proportional hazards model for uncontrolled hypertension')
        """
        return params(locals())

    @pages(lambda: t.EntityRelatedPapersPage, lambda: t.EntityRelatedPaper, CursorPaging, unit="papers")
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
        """Every item of :meth:`entity_related_papers`, following ``next_cursor``.

        Args:
            size: items per request, 1-100.

        Returns:
            A paginator of ``EntityRelatedPaper``.

        Examples:
            >>> for item in client.schema.iter_entity_related_papers("Cox proportional hazards model", limit=2):
            ...     print(item.schema_id, item.match_reasons[0])
            ps_5b920b97adf3e6fabf76 Component/Method 'Cox proportional hazards model' is similar to the query (...)
            ps_50e55db8917bd0dce16f Reference/Citation 'Cox proportional hazards model for ...' ...
        """
        return params(locals())

    @operation(lambda: t.RelatedPapers)
    def related_papers(
        self,
        schema_id: str,
        *,
        signals: list[str] | None = None,
        exclude_same_work: bool | None = None,
        size: int | None = None,
    ) -> Params:
        """Candidates related to a seed paper from ``term``, ``entity`` and ``citation``
        signals (``POST /paper-schema/schemas/{schema_id}/related-papers``).

        Args:
            schema_id: the seed paper.
            signals: 1-3 of ``"term"``, ``"entity"``, ``"citation"`` (default: all three; the
                citation signal follows resolved citations only).
            exclude_same_work: leave out other versions of the same work (service default True).
            size: candidates, 1-50 (service default 20).

        Returns:
            The seed (``.seed``) and the candidates (``.items``), each with its
            ``score_components`` and ``reasons``.

        Examples:
            >>> related = client.schema.related_papers(sid, signals=["entity", "citation"], size=10)
        """
        return params(locals())

    # -- entities -------------------------------------------------------------------------

    @operation(lambda: t.EntitySearchPage)
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
        required unless ``filters["schema_ids"]`` scopes the search to papers.

        Args:
            query: keywords, 1-500 characters.
            filters: ``schema_ids`` (at most 100), ``entity_types``, ``entity_subtypes``,
                ``sections`` (at most 50).
            hydrate_schema_papers: attach the paper card of each entity's paper.
            size: entities per page, 1-100 (service default 20).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``Entity``, each with its ``provenance``.

        Examples:
            >>> found = client.schema.search_entities("ResNet-50", filters={"entity_types": ["Component"]})
        """
        return params(locals())

    @pages(lambda: t.EntitySearchPage, lambda: t.Entity, CursorPaging, unit="entities")
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
        """Every entity of :meth:`search_entities`, following ``next_cursor``.

        Args:
            size: entities per request, 1-100.

        Returns:
            A paginator of ``Entity``.

        Examples:
            >>> frame = client.schema.iter_search_entities("ResNet-50", limit=500).to_pandas()
        """
        return params(locals())

    @operation(lambda: t.EntityPage)
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
        """One page of the entity set of a paper (``GET /paper-schema/schemas/{schema_id}/entities``).

        Args:
            schema_id: the paper.
            entity_types: only these public entity types.
            entity_subtypes: only these public subtypes.
            sections: only entities of these sections.
            size: entities per page, 1-100 (service default 50).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``Entity`` with ``.total`` (after filtering) and ``.next_cursor``.

        Examples:
            >>> page = client.schema.entities(sid, entity_types=["Component", "Resource"])
        """
        return params(locals())

    @pages(lambda: t.EntityPage, lambda: t.Entity, CursorPaging, unit="entities")
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
        """The complete (filtered) entity set of a paper, following ``next_cursor``.

        Args:
            schema_id: the paper.
            size: entities per request, 1-100.

        Returns:
            A paginator of ``Entity``.

        Examples:
            >>> every_entity = client.schema.iter_entities(sid).to_list()
        """
        return params(locals())

    @operation(lambda: t.EntityDetail)
    def entity(
        self,
        schema_id: str,
        entity_id: str,
        *,
        include_relations: bool | None = None,
        relation_limit: int | None = None,
    ) -> Params:
        """One entity of a paper, with its adjacent relations on request
        (``GET .../schemas/{schema_id}/entities/{entity_id}``).

        Args:
            schema_id: the paper.
            entity_id: the entity, an id of that paper.
            include_relations: attach the entity's internal relations.
            relation_limit: the most relations to attach, 1-100 (service default 50).

        Returns:
            The entity (``.entity``), its ``.relations`` and ``.relations_truncated``.

        Raises:
            NotFoundError: no such entity in this paper (404).

        Examples:
            >>> entity_id = client.schema.entities(sid, entity_types=["Component"]).items[0].entity_id
            >>> detail = client.schema.entity(sid, entity_id, include_relations=True)
            >>> detail.entity.name, detail.relations_truncated
            ('Cox proportional hazards model', False)
            >>> for r in detail.relations:
            ...     print(r.relation_type, r.source_entity_id, r.target_entity_id)
            uses_component e2 e3
            evaluates e2 e4
            supports e6 e2
            resolves e2 e1
        """
        return params(locals())

    # -- internal relations ---------------------------------------------------------------

    @operation(lambda: t.RelationSearchPage)
    def search_relations(
        self,
        *,
        filters: dict[str, Any] | None = None,
        evidence_query: str | None = None,
        include_context: str | None = None,
        size: int | None = None,
        cursor: str | None = None,
    ) -> Params:
        """Relations inside papers (``POST /paper-schema/relations/search``).

        Args:
            filters: at least one structural condition: ``schema_ids``,
                ``source_entity_ids``, ``target_entity_ids`` (at most 100 each) or
                ``relation_types`` (at most 50, from the capability taxonomy).
            evidence_query: keywords the relation's evidence text must match, 1-500 characters.
            include_context: ``"none"`` (the default) or ``"entities"`` (attach summaries of
                both endpoints).
            size: relations per page, 1-100 (service default 20).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``Relation``, each with its ``provenance``.

        Examples:
            >>> filters = {"schema_ids": [sid], "relation_types": ["uses_component"]}  # types: capabilities()
            >>> used = client.schema.search_relations(filters=filters)
            >>> [(r.relation_id, r.source_entity_id, r.target_entity_id) for r in used.items]
            [('r1', 'e2', 'e3')]
        """
        return params(locals())

    @pages(lambda: t.RelationSearchPage, lambda: t.Relation, CursorPaging, unit="relations")
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
        """Every relation of :meth:`search_relations`, following ``next_cursor``.

        Args:
            size: relations per request, 1-100.

        Returns:
            A paginator of ``Relation``.

        Examples:
            >>> relations = client.schema.iter_search_relations(filters={"schema_ids": [sid]}).to_list()
        """
        return params(locals())

    @operation(lambda: t.RelationDetail)
    def relation(self, schema_id: str, relation_id: str, *, include_context: bool | None = None) -> Params:
        """One internal relation with its endpoints and merged provenance
        (``GET .../schemas/{schema_id}/relations/{relation_id}``).

        Args:
            schema_id: the paper.
            relation_id: the relation, an id of that paper.
            include_context: attach both endpoint entities (service default True).

        Returns:
            The relation, its ``source_entity`` and ``target_entity``, and its provenance.

        Raises:
            NotFoundError: no such relation in this paper (404).

        Examples:
            >>> relation_id = client.schema.search_relations(filters={"schema_ids": [sid]}).items[0].relation_id
            >>> detail = client.schema.relation(sid, relation_id)
            >>> detail.relation.relation_type, detail.source_entity.name, detail.target_entity.name
            ('uses_component', 'Cox proportional hazards model', ...)
        """
        return params(locals())

    # -- external citations ---------------------------------------------------------------

    @operation(lambda: t.CitationSummary)
    def citation_summary(self, schema_id: str) -> Params:
        """Outbound and inbound citation counts of a paper (``GET .../citation-summary``).

        Args:
            schema_id: the paper.

        Returns:
            ``.outbound`` (references in total, resolved and unresolved, coverage) and
            ``.inbound`` (external citation count, edges resolved in the corpus).

        Examples:
            >>> summary = client.schema.citation_summary(sid)
            >>> summary.outbound.reference_count_total
            11
        """
        return params(locals())

    @operation(lambda: t.CitationsPage)
    def citations(self, schema_id: str, *, size: int | None = None, cursor: str | None = None) -> Params:
        """One page of the complete citation list, resolved and unresolved (``GET .../citations``).

        Args:
            schema_id: the paper.
            size: citations per page, 1-100 (service default 50).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``CitationItem`` with ``.total``, the complete number of citations.

        Examples:
            >>> page = client.schema.citations(sid, size=100)
        """
        return params(locals())

    @pages(lambda: t.CitationsPage, lambda: t.CitationItem, CursorPaging, unit="citations")
    def iter_citations(
        self,
        schema_id: str,
        *,
        size: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Params:
        """Every citation of a paper, following ``next_cursor``.

        Args:
            schema_id: the paper.
            size: citations per request, 1-100.

        Returns:
            A paginator of ``CitationItem``.

        Examples:
            >>> frame = client.schema.iter_citations(sid).to_pandas()
        """
        return params(locals())

    @operation(lambda: t.CitationGraph)
    def citation_graph(
        self,
        schema_id: str,
        *,
        direction: str | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        max_edges: int | None = None,
    ) -> Params:
        """Resolved citations expanded from a root paper (``GET .../citation-graph``).

        Args:
            schema_id: the root paper.
            direction: ``"outbound"`` (what it cites; the default) or ``"inbound"`` (who cites it).
            depth: levels to expand, 1-3 (service default 1).
            max_nodes: the most nodes, 2-500 (service default 100).
            max_edges: the most edges, 1-500 (service default 200).

        Returns:
            The graph: ``.nodes``, ``.edges``, ``.levels`` and ``.truncated`` (a cap was
            reached). ``.to_networkx()`` gives a ``networkx.DiGraph``; ``.to_pandas()`` the
            nodes and ``.edges_to_pandas()`` the edges.

        Examples:
            >>> graph = client.schema.citation_graph(sid, direction="outbound", depth=2)
            >>> digraph = graph.to_networkx()
        """
        return params(locals())

    # -- evidence and content -------------------------------------------------------------

    @operation(lambda: t.EvidenceSearchPage)
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
        """Structured evidence (``POST /paper-schema/evidence/search``).

        Besides ``groups``, at least one of ``schema_ids``, ``query``, ``key``,
        ``path_bucket``, a numeric bound or ``value_bool`` is required.

        Args:
            groups: 1-5 evidence groups (``core_claim_result``, ``table_evidence``,
                ``formula``, ``resource``... ``capabilities()`` lists them).
            group_operator: ``"any"`` (the default) or ``"all"`` of the groups.
            schema_ids: only evidence of these papers, at most 100.
            query: text the evidence must match.
            key: the attribute key.
            path_bucket: the path bucket.
            value_number_min: lower bound of a numeric value.
            value_number_max: upper bound of a numeric value.
            value_bool: the boolean value.
            hydrate_schema_papers: attach the paper cards.
            size: evidence per page, 1-100 (service default 20).
            cursor: the ``next_cursor`` of the previous page.

        Returns:
            A page of ``Evidence``, each with its ``provenance`` (pass its ``marker`` to
            :meth:`resolve_provenance` for the source paragraph).

        Examples:
            >>> evidence = client.schema.search_evidence(["core_claim_result"], schema_ids=[sid])
        """
        return params(locals())

    @pages(lambda: t.EvidenceSearchPage, lambda: t.Evidence, CursorPaging, unit="evidence")
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
        """Every evidence of :meth:`search_evidence`, following ``next_cursor``.

        Args:
            size: evidence per request, 1-100.

        Returns:
            A paginator of ``Evidence``.

        Examples:
            >>> frame = client.schema.iter_search_evidence(["table_evidence"], query="accuracy").to_pandas()
        """
        return params(locals())

    @operation(lambda: t.EvidenceDetail)
    def evidence(self, schema_id: str, evidence_id: str) -> Params:
        """One evidence of a paper with its source and locations (``GET .../evidence/{evidence_id}``).

        Args:
            schema_id: the paper.
            evidence_id: the evidence, an id of that paper.

        Returns:
            The evidence (group, key, value), its ``source`` and its ``provenance``.

        Raises:
            NotFoundError: no such evidence in this paper (404).

        Examples:
            >>> evidence = client.schema.search_evidence(["core_claim_result"], schema_ids=[sid])
            >>> detail = client.schema.evidence(sid, evidence.items[0].evidence_id)
            >>> detail.evidence.key, detail.evidence.value_number, detail.provenance[0].marker
            ('improvement_percent', 12.8, 13)
        """
        return params(locals())

    @operation(lambda: t.ResolvedProvenance)
    def resolve_provenance(
        self,
        *,
        schema_id: str | None = None,
        marker_nums: list[int] | None = None,
        paragraph_ids: list[str] | None = None,
        window: int | None = None,
        max_segments: int | None = None,
    ) -> Params:
        """Source paragraphs of locators (``POST /paper-schema/resolve-provenance``).

        Exactly one mode: ``schema_id`` with ``marker_nums``, or ``paragraph_ids``.

        Args:
            schema_id: the paper of ``marker_nums``.
            marker_nums: markers from ``provenance`` items, passed back unchanged, at most 100.
            paragraph_ids: global paragraph ids, at most 100.
            window: neighbouring paragraphs before and after each, 0-5 (service default 0).
            max_segments: the most paragraphs returned, 1-100 (service default 40); the located
                paragraphs come first, neighbours fill the room left.

        Returns:
            The paragraphs (``.segments``): each located one (``relative_position == 0``;
            ``.hits`` holds just these) with its neighbours (``-1`` before it, ``1`` after...);
            the mode used (``.trace``) and the locators that could not be resolved or returned
            (``.missing``). A ``PartialResultWarning`` names any requested locator that came
            back in neither.

        Raises:
            ValidationError: both modes or neither, or a bound broken (nothing is sent).

        Examples:
            >>> evidence = client.schema.search_evidence(["core_claim_result"], schema_ids=[sid])
            >>> where = evidence.items[0].provenance[0]
            >>> located = client.schema.resolve_provenance(schema_id=sid, marker_nums=[where.marker], window=1)
            >>> [(segment.marker, segment.relative_position) for segment in located.segments]
            [(12, -1), (13, 0), (14, 1)]
            >>> located.hits[0].text  # the evidence's paragraph, not a neighbour
            'Our Cox proportional hazards model improves incidence rate by 12.8% over the strongest baseline...'
        """
        return params(locals())

    @operation(lambda: t.InPaperSearchResult)
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
        scores rank within that paper only.

        Args:
            schema_id: the paper.
            query: keywords, 1-500 characters.
            section_hint: a section to prefer, at most 300 characters.
            prefer_url: prefer paragraphs with URLs.
            prefer_code: prefer paragraphs with code.
            top_k: the most paragraphs, 1-20 (service default 5).
            window: neighbouring paragraphs around each, 0-5 (service default 1).

        Returns:
            The matching paragraphs (``relative_position == 0``; ``.hits`` holds just these,
            best first) with their neighbours (``.segments``), each scored with its own
            relevance (a neighbour too, 0.0 when it does not match: tell hits from neighbours
            by ``.hits`` or ``is_hit``, not by the score), and how they were found
            (``.trace``). A query of stop words only matches nothing; ``.warnings`` says so.

        Examples:
            >>> found = client.schema.search_in_paper(sid, "training data", section_hint="Methods")
            >>> [(segment.marker, segment.score) for segment in found.hits]
            [(9, 3.5622), (8, 2.9872)]
        """
        return params(locals())

    @operation(lambda: t.HydratedItems)
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
        item comes back; check ``.failed`` (each with its ``reason``).

        Args:
            items: 1-50 dicts, each a ``schema_id`` with ``paragraph_ids``, ``marker_nums``
                or ``hydration_query`` (a search in that paper, used only without locators).
            window: neighbouring paragraphs around each, 0-5 (service default 1).
            max_segments_per_item: the most paragraphs per item, 1-20 (service default 5);
                the located paragraphs come first, neighbours fill the room left.
            prefer_url_or_code: let the fallback search prefer paragraphs with URLs or code.

        Returns:
            One result per item, in order (``.items``), each with its ``hydration_method``,
            ``segments`` (the located ones, ``relative_position == 0``, in ``.hits``) and,
            when nothing was filled, its ``reason``. A ``PartialResultWarning`` names any
            requested locator that came back neither in segments nor in the item's missing.

        Examples:
            >>> filled = client.schema.hydrate_items([{"schema_id": sid, "hydration_query": "model"}])
            >>> filled.items[0].hydration_method, [segment.marker for segment in filled.items[0].hits]
            ('schema_local_search', [18, 1, 9, 7, 13])
            >>> filled.failed
            []
        """
        return params(locals())

    # -- research materials ---------------------------------------------------------------

    @operation(lambda: t.Materials)
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
        (``POST /paper-schema/materials``).

        A bundle is cut to the limits: where ``counts`` says ``truncated``, use the list
        operations for the complete set.

        Args:
            schema_ids: 1-20 papers.
            goal: ``"overview"`` (the default), ``"survey"``, ``"benchmark"``, ``"method"``
                or ``"reproduction"``: which types of entity, relation and evidence to prefer.
            include_relation_context: attach endpoint summaries to relations.
            per_schema_entity_limit: entities per paper, 0-150 (service default 40).
            per_schema_relation_limit: relations per paper, 0-150 (service default 40).
            per_schema_attribute_limit: evidence per paper, 0-200 (service default 60).
            per_schema_term_limit: keywords per paper, 0-100 (service default 20).

        Returns:
            One bundle per paper (``.items``), with its ``counts``.

        Examples:
            >>> bundle = client.schema.materials([sid], goal="reproduction")
        """
        return params(locals())


class Schema(_SchemaOperations, SyncCaller):
    """The Structured Paper operations of a :class:`paperlens.Client` (``client.schema``).

    Examples:
        >>> cards = client.schema.search("CRISPR off-target", size=5)
    """

    def __init__(self, client: SyncCaller) -> None:
        self._client = client
        self._listen = client._listen
        self._capabilities: t.Capabilities | None = None
        self._capabilities_lock = threading.Lock()

    def _call(self, method: str, model: type[M], params: Params) -> M:
        # A PartialResultWarning points at the caller of the public method, so that each
        # call site warns once under the default filter (not once for all 18 operations).
        result: M = self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)
        _warn_unreturned(method, params, result)
        return result

    def _start(self, method: str, model: type[M], params: Params) -> Callable[[], M]:
        finish: Callable[[], M] = self._client._start(f"schema.{method}", model, params, stacklevel=_CALLER)
        return finish

    def capabilities(self) -> t.Capabilities:
        """The capability contract (``GET /paper-schema``): contract version, public
        taxonomies, evidence groups and limits. Fetched once per client, then cached; it says
        nothing about the service's health or whether a paper exists.

        Returns:
            The capabilities.

        Raises:
            AuthenticationError: the token is missing or invalid (401).

        Examples:
            >>> client.schema.capabilities().contract_version
            '2025-06-01.beta'
        """
        with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = self._call("capabilities", t.Capabilities, {})
            return self._capabilities


class AsyncSchema(_SchemaOperations, AsyncCaller):
    """The Structured Paper operations of a :class:`paperlens.AsyncClient`: the methods of
    :class:`Schema` as coroutines, ``iter_*`` as async iterators.

    Examples:
        >>> cards = await client.schema.search("CRISPR off-target", size=5)
        >>> entities = [entity async for entity in client.schema.iter_entities(cards.items[0].schema_id)]
    """

    def __init__(self, client: AsyncCaller) -> None:
        import asyncio

        self._client = client
        self._listen = client._listen
        self._capabilities: t.Capabilities | None = None
        self._capabilities_lock = asyncio.Lock()

    async def _call(self, method: str, model: type[M], params: Params) -> M:
        result: M = await self._client._call(f"schema.{method}", model, params, stacklevel=_CALLER)
        _warn_unreturned(method, params, result)
        return result

    async def capabilities(self) -> t.Capabilities:
        """The capability contract (``GET /paper-schema``), fetched once per client:
        :meth:`Schema.capabilities`, awaited.

        Examples:
            >>> capabilities = await client.schema.capabilities()
        """
        async with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = await self._call("capabilities", t.Capabilities, {})
            return self._capabilities
