"""Typed results of the 18 Structured Paper operations (``client.schema``).

Attribute names are the wire names. A field the response did not carry is ``None``;
properties the spec does not name are kept in ``extra``; ``to_dict()`` returns the wire JSON.
``partial=True`` means usable but incomplete results (read ``warnings``); ``truncated=True``
means a count, graph-size or materials cap was hit.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, TypeVar

from paperlens.errors import ResponseDecodeError
from paperlens.results._model import ListResult, Model, Response

__all__ = [
    "Capabilities",
    "CitationGraph",
    "CitationItem",
    "CitationReference",
    "CitationResolution",
    "CitationSummary",
    "CitationsPage",
    "Entity",
    "EntityDetail",
    "EntityPage",
    "EntityRelatedPaper",
    "EntityRelatedPapersPage",
    "EntitySearchPage",
    "Evidence",
    "EvidenceDetail",
    "EvidenceSearchPage",
    "GraphEdge",
    "GraphLevel",
    "GraphNode",
    "HydratedItem",
    "HydratedItems",
    "InPaperSearchResult",
    "InboundCitations",
    "Materials",
    "OutboundCitations",
    "PaperCard",
    "PaperMaterials",
    "PaperSearchPage",
    "ParagraphSegment",
    "ProvenanceElement",
    "RelatedPaper",
    "RelatedPapers",
    "Relation",
    "RelationDetail",
    "RelationSearchPage",
    "ResolvedProvenance",
    "ResourceCount",
    "SchemaResponse",
    "SegmentTrace",
    "Total",
]

_frozen = dataclasses.dataclass(frozen=True, kw_only=True, repr=False, eq=False)  # see Model


def _list() -> Any:
    return dataclasses.field(default_factory=list)


V = TypeVar("V", bound=Model)


def _view(cls: type[V], value: Any) -> V | None:
    """A typed view of a JSON value kept as sent: an instance of ``cls`` built from a copy
    when the value is an object that ``cls`` can type (the value itself stays untouched),
    else ``None`` (the contract does not give the value a shape, so nothing is wrong)."""
    if not isinstance(value, dict):
        return None
    try:
        return cls._from_wire(copy.deepcopy(value))
    except ResponseDecodeError:
        return None


def _depth(key: str) -> Any:
    """The depth a key of ``levels`` names: an int when it reads as one, else the key."""
    try:
        return int(key)
    except ValueError:
        return key


# -- resources ----------------------------------------------------------------------------


@_frozen
class PaperCard(Model):
    """A paper in compact form; ``schema_id`` is its key in every ``client.schema`` call.

    Attributes:
        schema_id: Public key of the paper in every ``client.schema`` call.
        title: Title.
        abstract: Abstract.
        authors: Authors, as sent.
        venue: Venue name.
        year: Publication year.
        topics: Topics of the paper, as sent.
        tasks: Tasks the paper addresses, as sent.
        research_problem: Research problem (extracted, normalised).
        central_contribution: Central contribution.
        headline_result: Headline result.
        has_code: Whether code is available for the paper.
        has_data: Whether data is available for the paper.
    """

    schema_id: str | None = None
    title: str | None = None
    abstract: str | None = None
    authors: list[Any] | None = None
    venue: str | None = None
    year: int | None = None
    topics: list[Any] | None = None
    tasks: list[Any] | None = None
    research_problem: str | None = None
    central_contribution: str | None = None
    headline_result: str | None = None
    has_code: bool | None = None
    has_data: bool | None = None


@_frozen
class ProvenanceElement(Model):
    """A location in the source: pass ``marker`` (with the paper's ``schema_id``) or
    ``paragraph_id`` back unchanged to ``resolve_provenance`` or ``hydrate_items``.

    Attributes:
        marker: Opaque in-paper locator number; pass it back unchanged with the paper's ``schema_id``.
        paragraph_id: Global paragraph id.
    """

    marker: int | None = None
    paragraph_id: str | None = None


@_frozen
class Entity(Model):
    """A structured object of one paper (Problem, Component, Finding, Measure, Resource,
    Reference...). ``entity_id`` is stable only inside its paper. ``schema_paper`` (the
    paper card, which the contract shows in entity search only) is kept as sent when it is
    not an object.

    Attributes:
        entity_id: Id of the entity, stable only inside its paper.
        schema_id: Key of the paper the entity belongs to.
        entity_type: Type: ``Problem``, ``Component``, ``Finding``, ``Measure``, ``Resource``, ``Reference``...; the
            capability operation returns the public taxonomy.
        entity_subtype: Subtype, such as ``Dataset`` or ``Method``.
        name: Name of the entity.
        text: Text of the entity.
        section: Section of the paper the entity comes from.
        provenance: Locations of the entity in the source paragraphs.
        schema_paper: Card of the paper (entity search with ``hydrate_schema_papers=True``); ``None`` when not sent.
    """

    entity_id: str | None = None
    schema_id: str | None = None
    entity_type: str | None = None
    entity_subtype: str | None = None
    name: str | None = None
    text: str | None = None
    section: str | None = None
    provenance: list[ProvenanceElement] = _list()
    schema_paper: PaperCard | None = None


@_frozen
class Relation(Model):
    """A relation between two entities of one paper (``uses_component``, ``evaluates``...).

    Attributes:
        relation_id: Id of the relation, stable only inside its paper.
        relation_type: Relation type, such as ``uses_component``, ``evaluates``, ``reports_metric``, ``supports``,
            ``resolves``.
        schema_id: Key of the paper the relation belongs to.
        source_entity_id: Id of the source entity.
        target_entity_id: Id of the target entity.
        source_entity: Summary of the source entity; ``None`` unless context was requested.
        target_entity: Summary of the target entity; ``None`` unless context was requested.
        provenance: Locations of the relation in the source paragraphs.
    """

    relation_id: str | None = None
    relation_type: str | None = None
    schema_id: str | None = None
    source_entity_id: str | None = None
    target_entity_id: str | None = None
    source_entity: Entity | None = None
    target_entity: Entity | None = None
    provenance: list[ProvenanceElement] = _list()


@_frozen
class Evidence(Model):
    """A retained, normalised piece of evidence with its locations. ``schema_paper`` (a paper
    card, which the contract does not show here) is kept as sent when it is not an object.

    Attributes:
        evidence_id: Id of the evidence, stable only inside its paper.
        schema_id: Key of the paper the evidence belongs to.
        groups: Evidence groups (``evidence_score``, ``schema_unit``, ``core_claim_result``, ``table_evidence``,
            ``formula``, ``resource``...).
        group: Evidence group, as the evidence detail sends it (search sends ``groups``).
        key: Attribute key.
        value_text: Normalised text value, or ``None``.
        value_number: Normalised numeric value, or ``None``.
        value_bool: Normalised boolean value, or ``None``.
        source_entity_id: Id of the entity the evidence comes from, or ``None``.
        source_relation_id: Id of the relation the evidence comes from, or ``None``.
        provenance: Locations of the evidence in the source paragraphs.
        schema_paper: Card of the paper, when sent (``hydrate_schema_papers=True``); else ``None``.
    """

    evidence_id: str | None = None
    schema_id: str | None = None
    groups: list[str] | None = None
    group: str | None = None
    key: str | None = None
    value_text: str | None = None
    value_number: float | None = None
    value_bool: bool | None = None
    source_entity_id: str | None = None
    source_relation_id: str | None = None
    provenance: list[ProvenanceElement] = _list()
    schema_paper: PaperCard | None = None


@_frozen
class ParagraphSegment(Model):
    """A source paragraph: a located one (the paragraph a locator or the query found,
    ``relative_position == 0``, :attr:`is_hit`) or one of its neighbours (``-1`` the paragraph
    before it, ``1`` the one after...). ``score`` ranks within that paper only.

    Attributes:
        paragraph_id: Global paragraph id.
        schema_id: Key of the paper.
        section: Section of the paragraph.
        text: Text of the paragraph.
        marker: Opaque in-paper locator number.
        relative_position: Neighbour position: 0 for a located paragraph, negative before
            it, positive after it; ``None`` when not sent.
        score: Relevance inside that paper only (in-paper search and query hydration): every
            segment has one, a neighbour its own (0.0 when it does not match the query), so
            tell hits from neighbours by :attr:`is_hit`, not by the score; ``None`` elsewhere.
    """

    paragraph_id: str | None = None
    schema_id: str | None = None
    section: str | None = None
    text: str | None = None
    marker: int | None = None
    relative_position: int | None = None
    score: float | None = None

    @property
    def is_hit(self) -> bool:
        """Whether this is a located paragraph (``relative_position == 0``), not a neighbour."""
        return self.relative_position == 0


def _hits(segments: list[ParagraphSegment]) -> list[ParagraphSegment]:
    return [segment for segment in segments if segment.is_hit]


@_frozen
class Total(Model):
    """A result count; ``relation`` tells whether ``value`` is exact (``eq``) or a bound.

    Attributes:
        value: The count.
        relation: ``eq`` when ``value`` is exact, otherwise the kind of bound ``value`` is.
    """

    value: int | None = None
    relation: str | None = None


# -- responses ----------------------------------------------------------------------------


@_frozen
class SchemaResponse(Response):
    """Fields every ``/paper-schema`` response may carry.

    Attributes:
        partial: ``True`` when a dependent step failed or degraded but usable results are still returned (read
            ``warnings``); not a complete success. ``False`` when not sent.
        truncated: ``True`` when the operation's count, graph-size or materials cap was hit. ``False`` when not sent.
        warnings: Notes on degradation, partial results or other matters the caller must handle.
        contract_version: Public contract version (capability and search responses); ``None`` when not sent.
    """

    partial: bool = False
    truncated: bool = False
    warnings: list[str] = _list()
    contract_version: str | None = None

    def _partial_warning(self) -> str | None:
        # Only a flag that is ``True`` warns (not a truthy value of another type); ``warnings``
        # is read as sent, a list of strings or not.
        cut = self._cut()
        if self.partial is not True and not cut:
            return None
        state = " and ".join([*(["partial"] if self.partial is True else []), *(["truncated"] if cut else [])])
        flags = "".join(f"; {flag}=true" for flag in cut if flag != "truncated")
        notes = self.warnings if isinstance(self.warnings, list) else [self.warnings]
        text = "; ".join(note if isinstance(note, str) else repr(note) for note in notes)
        if not text:  # the service said nothing: say what a cap means
            text = "a cap was hit: the lists are not the whole set" if cut else "no warnings given"
        return f"{type(self).__name__} is {state} (request_id={self.request_id}{flags}): {text}"

    def _cut(self) -> list[str]:
        """The flags saying a cap cut this answer: ``truncated`` and those of the operation."""
        return ["truncated"] if self.truncated is True else []


@_frozen
class Capabilities(SchemaResponse):
    """The capability contract: taxonomies, evidence groups and limits. Cached per client;
    never a health check.

    Attributes:
        resources: Resource names of the API.
        entity_taxonomy: Public entity types and subtypes.
        relation_taxonomy: Public relation categories.
        evidence_groups: Evidence groups allowed in evidence search.
        limits: Paging, batch and graph-expansion limits.
    """

    resources: list[str] | None = None
    entity_taxonomy: dict[str, Any] | None = None
    relation_taxonomy: dict[str, Any] | None = None
    evidence_groups: list[str] | None = None
    limits: dict[str, Any] | None = None


@_frozen
class PaperSearchPage(SchemaResponse, ListResult):
    """One page of ``schema.search``.

    Attributes:
        total: Number of matching papers; large queries may give a bound (see ``Total.relation``).
        items: Paper cards of this page.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"
    total: Total | None = None
    items: list[PaperCard] = _list()
    next_cursor: str | None = None


@_frozen
class EntityRelatedPaper(Model):
    """A paper found through entities similar to the query (similarity, not identity).

    Attributes:
        schema_id: Key of the paper.
        schema_paper: Card of the paper.
        matched_entities: Summaries of the paper's entities similar to the query.
        match_reasons: Why the paper matched.
    """

    schema_id: str | None = None
    schema_paper: PaperCard | None = None
    matched_entities: list[Entity] = _list()
    match_reasons: list[str] | None = None


@_frozen
class EntityRelatedPapersPage(SchemaResponse, ListResult):
    """One page of papers found through entities similar to the query.

    Attributes:
        items: The papers of this page, each with its matched entities.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"

    items: list[EntityRelatedPaper] = _list()
    next_cursor: str | None = None


@_frozen
class RelatedPaper(Model):
    """A candidate related to the seed, with the contribution of each signal.

    Attributes:
        schema_id: Key of the candidate paper.
        schema_paper: Card of the candidate, when sent; else ``None``.
        score: Overall score of the candidate, when sent.
        score_components: Contribution of each signal: ``term``, ``entity``, ``citation``.
        reasons: Why the candidate is related.
    """

    schema_id: str | None = None
    schema_paper: PaperCard | None = None
    score: float | None = None
    score_components: dict[str, float] | None = None
    reasons: list[str] | None = None


@_frozen
class RelatedPapers(SchemaResponse, ListResult):
    """Related-paper candidates of a seed paper, from term, entity and resolved-citation signals.

    Attributes:
        seed: Summary of the seed paper.
        items: The candidates, each with its score components.
    """

    _rows = "items"

    seed: PaperCard | None = None
    items: list[RelatedPaper] = _list()


@_frozen
class EntitySearchPage(SchemaResponse, ListResult):
    """One page of entity search; the result unit is the entity.

    Attributes:
        items: The entities of this page.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"

    items: list[Entity] = _list()
    next_cursor: str | None = None


@_frozen
class EntityPage(SchemaResponse, ListResult):
    """One page of the entity set of a paper; ``total`` counts it after filtering.

    Attributes:
        schema_id: Key of the paper.
        total: Number of entities after filtering.
        items: The entities of this page.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"
    schema_id: str | None = None
    total: Total | None = None
    items: list[Entity] = _list()
    next_cursor: str | None = None


@_frozen
class EntityDetail(SchemaResponse, ListResult):
    """One entity of a paper, with its adjacent internal relations when requested.

    Attributes:
        entity: The entity (type, name, text, section, provenance).
        relations: Adjacent internal relations; empty unless ``include_relations=True``.
        relations_truncated: ``True`` when ``relation_limit`` was reached; ``None`` when not sent.
    """

    _rows = "relations"

    entity: Entity | None = None
    relations: list[Relation] = _list()
    relations_truncated: bool | None = None

    def _cut(self) -> list[str]:
        return [*super()._cut(), *(["relations_truncated"] if self.relations_truncated is True else [])]

    def _repr_html_(self) -> str:
        """The entity and its relations as HTML for Jupyter: a picture of the entities they
        link (with networkx and matplotlib) and a table of the relations."""
        from paperlens.results._display import relations_html

        return relations_html(self)


@_frozen
class RelationSearchPage(SchemaResponse, ListResult):
    """One page of ``schema.search_relations``. The contract shows neither ``total`` nor
    ``next_cursor`` here; when sent, ``total`` reads as in the other pages (a :class:`Total`
    when it is an object, else as sent).

    Attributes:
        total: Number of matching relations, when sent; else ``None``.
        items: The relations of this page.
        next_cursor: Opaque cursor of the next page, when sent; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"
    total: Total | None = None
    items: list[Relation] = _list()
    next_cursor: str | None = None

    def _repr_html_(self) -> str:
        """The relations as HTML for Jupyter: a picture of the entities they link (with
        networkx and matplotlib) and a table of the relations."""
        from paperlens.results._display import relations_html

        return relations_html(self)


@_frozen
class RelationDetail(SchemaResponse):
    """One internal relation of a paper, with its endpoint entities (never a citation edge).

    Attributes:
        relation: The relation.
        source_entity: The source entity, or ``None``.
        target_entity: The target entity, or ``None``.
        provenance: Deduplicated, merged locations of the relation.
    """

    relation: Relation | None = None
    source_entity: Entity | None = None
    target_entity: Entity | None = None
    provenance: list[ProvenanceElement] = _list()


@_frozen
class OutboundCitations(Model):
    """The references a paper makes, and how many of them are resolved.

    Attributes:
        reference_count_total: Complete number of Reference entities.
        resolved_reference_count: References resolved to a corpus paper.
        unresolved_reference_count: References not resolved.
        resolution_coverage: Resolution coverage of the references.
        resolved_target_schema_count: Number of target papers that can be followed.
    """

    reference_count_total: int | None = None
    resolved_reference_count: int | None = None
    unresolved_reference_count: int | None = None
    resolution_coverage: float | None = None
    resolved_target_schema_count: int | None = None


@_frozen
class InboundCitations(Model):
    """The citations a paper receives.

    Attributes:
        external_citation_count: Total citations from external metadata; ``None`` when unknown.
        resolved_corpus_edge_count: Resolvable incoming edges within the corpus.
    """

    external_citation_count: int | None = None
    resolved_corpus_edge_count: int | None = None


@_frozen
class CitationSummary(SchemaResponse):
    """Citation counts of a paper; a resolved count below the total reflects resolution
    coverage, not lost data.

    Attributes:
        schema_id: Key of the paper.
        outbound: Counts of the paper's references.
        inbound: Counts of the citations the paper receives.
    """

    schema_id: str | None = None
    outbound: OutboundCitations | None = None
    inbound: InboundCitations | None = None


@_frozen
class CitationResolution(Model):
    """``status``: ``resolved``, ``unresolved`` or ``target_unavailable``.

    Attributes:
        status: ``resolved``, ``unresolved`` or ``target_unavailable``.
        target_schema_id: Key of the cited corpus paper; ``None`` when not resolved.
    """

    status: str | None = None
    target_schema_id: str | None = None


@_frozen
class CitationReference(Model):
    """The Reference entity behind a citation. The contract names its ``title``, ``authors``
    and ``year`` without giving their types: ``year`` is the JSON value as sent (digits in
    a string stay a string).

    Attributes:
        entity_id: Id of the Reference entity, stable only inside its paper.
        title: Title of the cited work.
        authors: Authors of the cited work, as sent.
        year: Year of the cited work, as sent.
    """

    entity_id: str | None = None
    title: str | None = None
    authors: list[Any] | None = None
    year: Any = None


@_frozen
class CitationItem(Model):
    """One original reference of the paper, resolved to a corpus paper or not. The contract
    gives ``relation`` no shape: it is the JSON value as sent (``typed_relation`` reads an
    object as a :class:`Relation`).

    Attributes:
        relation: The original citation relation, as sent.
        reference: The Reference entity (title, authors, year), or ``None``.
        resolution: Resolution status and target key.
        target_schema: Card of the cited corpus paper; ``None`` when not resolved.
    """

    relation: Any = None
    reference: CitationReference | None = None
    resolution: CitationResolution | None = None
    target_schema: PaperCard | None = None

    @property
    def typed_relation(self) -> Relation | None:
        """``relation`` as a :class:`Relation` when it is an object, else ``None``."""
        return _view(Relation, self.relation)


@_frozen
class CitationsPage(SchemaResponse, ListResult):
    """One page of the complete citation list; ``total`` is the complete citation count.

    Attributes:
        schema_id: Key of the paper.
        total: Complete number of citation relations (not the number of resolved items).
        items: The citations of this page, resolved or not.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"
    schema_id: str | None = None
    total: int | None = None
    items: list[CitationItem] = _list()
    next_cursor: str | None = None


@_frozen
class GraphNode(PaperCard):
    """A paper of the citation graph, with its availability status.

    Attributes:
        schema_paper: Card of the paper, when sent nested; else ``None``.
        availability: Availability status of the paper.
    """

    schema_paper: PaperCard | None = None
    availability: str | None = None


@_frozen
class GraphEdge(Model):
    """A resolved citation: ``source_schema_id`` cites ``target_schema_id``.

    Attributes:
        source_schema_id: Key of the citing paper.
        target_schema_id: Key of the cited paper.
        citation_count: Citation count carried by the edge.
    """

    source_schema_id: str | None = None
    target_schema_id: str | None = None
    citation_count: int | None = None


@_frozen
class GraphLevel(Model):
    """Statistics of one expansion level (counts, or the ids themselves, as sent).

    Attributes:
        depth: Expansion level, as sent (``typed_levels`` takes it from the key of ``levels`` when absent).
        frontier: Frontier of the level: a count, or the ids, as sent.
        new_edges: Edges new at the level: a count, or the edges, as sent.
    """

    depth: int | None = None
    frontier: int | list[Any] | None = None
    new_edges: int | list[Any] | None = None


@_frozen
class CitationGraph(SchemaResponse, ListResult):
    """Resolved paper-level citations expanded from ``root_schema_id``. ``truncated``: the
    node or edge cap was reached (narrow the depth or expand around chosen nodes).

    Attributes:
        root_schema_id: Key of the root paper.
        direction: ``outbound`` (papers the root cites) or ``inbound`` (papers citing it).
        nodes: Papers of the graph, each with its card and availability status.
        edges: Resolved citations between the nodes.
        levels: Per-level frontier and new-edge statistics, as sent (``typed_levels`` reads them).
    """

    _rows = "nodes"
    root_schema_id: str | None = None
    direction: str | None = None
    nodes: list[GraphNode] = _list()
    edges: list[GraphEdge] = _list()
    levels: Any = None

    @property
    def typed_levels(self) -> list[GraphLevel]:
        """``levels`` (whose shape the contract does not give) as :class:`GraphLevel` views: the
        objects of a list, or of an object keyed by level (the key is the depth when the level
        does not say); anything else, and a level whose counts are not integers, is left out."""
        levels = self.levels
        if isinstance(levels, dict):
            pairs = [(key, level) for key, level in levels.items() if isinstance(level, dict)]
            views = [_view(GraphLevel, {"depth": _depth(key), **level}) for key, level in pairs]
        elif isinstance(levels, list):
            views = [_view(GraphLevel, level) for level in levels]
        else:
            views = []
        return [view for view in views if view is not None]

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph``: nodes keyed by ``schema_id`` with their wire fields as
        attributes, edges from citing to cited paper (needs the ``graph`` extra). A node or
        edge without its ids (the contract makes none required) is left out."""
        try:
            import networkx as nx
        except ImportError as e:
            raise ImportError('CitationGraph.to_networkx() needs networkx: pip install "paperlens[graph]"') from e
        graph = nx.DiGraph(root_schema_id=self.root_schema_id, direction=self.direction, truncated=self.truncated)
        for node in self.nodes:
            if node.schema_id is not None:
                graph.add_node(node.schema_id, **node.to_dict())
        for edge in self.edges:
            if edge.source_schema_id is None or edge.target_schema_id is None:
                continue
            attributes = {k: v for k, v in edge.to_dict().items() if k not in ("source_schema_id", "target_schema_id")}
            graph.add_edge(edge.source_schema_id, edge.target_schema_id, **attributes)
        return graph

    def edges_to_pandas(self) -> Any:
        """The edges as a pandas DataFrame (``to_pandas()`` gives the nodes)."""
        from paperlens.results.pandas import frame

        return frame(GraphEdge, list(self.edges), "pandas")

    def _repr_html_(self) -> str:
        """The graph as HTML for Jupyter: a picture (with networkx and matplotlib) and a
        table of the nodes."""
        from paperlens.results._display import graph_html

        return graph_html(self)


@_frozen
class EvidenceSearchPage(SchemaResponse, ListResult):
    """One page of evidence search: normalised fields and locations only.

    Attributes:
        items: The evidence of this page.
        next_cursor: Opaque cursor of the next page, passed back unchanged; ``None`` or ``""`` when no page follows.
    """

    _rows = "items"

    items: list[Evidence] = _list()
    next_cursor: str | None = None


@_frozen
class EvidenceDetail(SchemaResponse):
    """One evidence; ``source`` identifies its source entity or relation.

    Attributes:
        evidence: The evidence (group, key, normalised values).
        source: Identifier of the source entity or relation, as sent.
        provenance: Locations of the evidence (``marker``, ``paragraph_id``).
    """

    evidence: Evidence | None = None
    source: Any = None
    provenance: list[ProvenanceElement] = _list()


@_frozen
class SegmentTrace(Model):
    """How segments were found: ``mode`` (``marker`` / ``paragraph_id``) for provenance, the
    query method and elapsed time for in-paper search.

    Attributes:
        mode: Provenance locator mode: ``marker`` or ``paragraph_id``.
        method: Query method (in-paper search).
        elapsed_ms: Elapsed time in milliseconds (in-paper search).
    """

    mode: str | None = None
    method: str | None = None
    elapsed_ms: float | None = None


@_frozen
class ResolvedProvenance(SchemaResponse, ListResult):
    """Paragraphs of the given locators (limited context, never the whole paper);
    ``missing`` lists the locators that could not be resolved.

    Attributes:
        segments: The located paragraphs (``relative_position == 0``; :attr:`hits`), each with up
            to ``window`` neighbours, in paper order around each located one.
        trace: Locator mode used.
        missing: Locators that could not be resolved.
    """

    _rows = "segments"
    segments: list[ParagraphSegment] = _list()
    trace: SegmentTrace | None = None
    missing: list[Any] = _list()

    @property
    def hits(self) -> list[ParagraphSegment]:
        """The located paragraphs themselves (``relative_position == 0``), without their
        neighbours, in the order of ``segments``."""
        return _hits(self.segments)


@_frozen
class InPaperSearchResult(SchemaResponse, ListResult):
    """Paragraphs of one paper ranked for the query. The contract gives ``trace`` (query
    method and elapsed time) no shape: it is the JSON value as sent (``typed_trace`` reads
    an object as a :class:`SegmentTrace`).

    Attributes:
        segments: The matching paragraphs (:attr:`hits`) and their neighbours, each with its
            in-paper ``score``.
        trace: Query method and elapsed time, as sent.
    """

    _rows = "segments"

    segments: list[ParagraphSegment] = _list()
    trace: Any = None

    @property
    def hits(self) -> list[ParagraphSegment]:
        """The paragraphs that matched the query (``relative_position == 0``), best first,
        without their neighbours (a neighbour's ``score`` is its own relevance, so filter on
        this, not on ``score > 0``)."""
        return _hits(self.segments)

    @property
    def typed_trace(self) -> SegmentTrace | None:
        """``trace`` as a :class:`SegmentTrace` when it is an object, else ``None``."""
        return _view(SegmentTrace, self.trace)


@_frozen
class HydratedItem(Model, ListResult):
    """One item of ``hydrate_items``: ``hydration_method`` is ``paragraph_id``, ``marker``,
    ``schema_local_search`` or ``none``; ``reason`` says why nothing was filled.

    Attributes:
        schema_id: Key of the paper of the item.
        hydration_method: ``paragraph_id``, ``marker``, ``schema_local_search`` or ``none``.
        segments: Source paragraphs filled in; empty when nothing was found.
        reason: Why nothing was filled; ``None`` otherwise.
    """

    _rows = "segments"
    schema_id: str | None = None
    hydration_method: str | None = None
    segments: list[ParagraphSegment] = _list()
    reason: str | None = None

    @property
    def hits(self) -> list[ParagraphSegment]:
        """The paragraphs the item's locators (or query) found (``relative_position == 0``),
        without their neighbours."""
        return _hits(self.segments)


@_frozen
class HydratedItems(SchemaResponse, ListResult):
    """Every requested item, in order; one failure does not discard the others.

    Attributes:
        items: One result per requested item, in request order.
    """

    _rows = "items"
    items: list[HydratedItem] = _list()

    @property
    def failed(self) -> list[HydratedItem]:
        """The items that got no segments, each with its ``reason``."""
        return [item for item in self.items if not item.segments]


@_frozen
class ResourceCount(Model):
    """``returned`` of ``total``; ``truncated`` when a limit cut the list.

    Attributes:
        total: Full count for the paper.
        returned: Count returned.
        truncated: ``True`` when a limit cut the list.
    """

    total: int | None = None
    returned: int | None = None
    truncated: bool | None = None


@_frozen
class PaperMaterials(Model):
    """The trimmed bundle of one paper. A list whose ``counts`` entry is truncated is not
    the complete set (use the list operations for that).

    Attributes:
        schema_id: Key of the paper.
        schema_paper: Card of the paper.
        entities: Entities chosen for the goal.
        relations: Relations chosen for the goal.
        evidence: Evidence chosen for the goal.
        terms: Internal keywords of the paper, as sent.
        counts: Per resource (``entities``, ``relations``...): ``total``, ``returned``, ``truncated``.
    """

    schema_id: str | None = None
    schema_paper: PaperCard | None = None
    entities: list[Entity] = _list()
    relations: list[Relation] = _list()
    evidence: list[Evidence] = _list()
    terms: list[Any] = _list()
    counts: dict[str, Any] | None = None

    def count(self, resource: str) -> ResourceCount | None:
        """The ``counts`` entry of ``resource`` (``entities``, ``relations``...), if sent."""
        return _view(ResourceCount, (self.counts or {}).get(resource))

    @property
    def truncated_resources(self) -> list[str]:
        """The resources whose list was cut by a limit."""
        return [name for name, c in (self.counts or {}).items() if isinstance(c, dict) and c.get("truncated")]


@_frozen
class Materials(SchemaResponse, ListResult):
    """Trimmed, goal-oriented bundles of known papers; not the complete lists.

    Attributes:
        items: One bundle per paper.
    """

    _rows = "items"

    items: list[PaperMaterials] = _list()

    def _cut(self) -> list[str]:
        counts = [item.counts for item in self.items if isinstance(item, PaperMaterials)]
        cut = (
            name
            for c in counts
            if isinstance(c, dict)
            for name, n in c.items()
            if isinstance(n, dict) and n.get("truncated") is True
        )
        return [*super()._cut(), *dict.fromkeys(f"counts.{name}.truncated" for name in cut)]
