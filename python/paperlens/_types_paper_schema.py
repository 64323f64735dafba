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

from paperlens._model import ListResult, Model, Response
from paperlens.errors import ResponseDecodeError

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

_frozen = dataclasses.dataclass(frozen=True, kw_only=True, repr=False)


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
    """A paper in compact form; ``schema_id`` is its key in every ``client.schema`` call."""

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
    ``paragraph_id`` back unchanged to ``resolve_provenance`` or ``hydrate_items``."""

    marker: int | None = None
    paragraph_id: str | None = None


@_frozen
class Entity(Model):
    """A structured object of one paper (Problem, Component, Finding, Measure, Resource,
    Reference...). ``entity_id`` is stable only inside its paper. ``schema_paper`` (the
    paper card, which the contract shows in entity search only) is kept as sent when it is
    not an object."""

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
    """A relation between two entities of one paper (``uses_component``, ``evaluates``...)."""

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
    card, which the contract does not show here) is kept as sent when it is not an object."""

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
    """A source paragraph; ``score`` (in-paper search only) ranks within that paper only."""

    paragraph_id: str | None = None
    schema_id: str | None = None
    section: str | None = None
    text: str | None = None
    marker: int | None = None
    score: float | None = None


@_frozen
class Total(Model):
    """A result count; ``relation`` tells whether ``value`` is exact (``eq``) or a bound."""

    value: int | None = None
    relation: str | None = None


# -- responses ----------------------------------------------------------------------------


@_frozen
class SchemaResponse(Response):
    """Fields every ``/paper-schema`` response may carry."""

    partial: bool = False
    truncated: bool = False
    warnings: list[str] = _list()
    contract_version: str | None = None

    def _partial_warning(self) -> str | None:
        # Only ``partial`` true warns (not a truthy value of another type); ``warnings`` is
        # read as sent, a list of strings or not.
        if self.partial is not True:
            return None
        notes = self.warnings if isinstance(self.warnings, list) else [self.warnings]
        text = "; ".join(note if isinstance(note, str) else repr(note) for note in notes)
        return f"{type(self).__name__} is partial (request_id={self.request_id}): {text or 'no warnings given'}"


@_frozen
class Capabilities(SchemaResponse):
    """The capability contract: taxonomies, evidence groups and limits. Cached per client;
    never a health check."""

    resources: list[str] | None = None
    entity_taxonomy: dict[str, Any] | None = None
    relation_taxonomy: dict[str, Any] | None = None
    evidence_groups: list[str] | None = None
    limits: dict[str, Any] | None = None


@_frozen
class PaperSearchPage(SchemaResponse, ListResult):
    """One page of ``schema.search``."""

    _rows = "items"
    total: Total | None = None
    items: list[PaperCard] = _list()
    next_cursor: str | None = None


@_frozen
class EntityRelatedPaper(Model):
    """A paper found through entities similar to the query (similarity, not identity)."""

    schema_id: str | None = None
    schema_paper: PaperCard | None = None
    matched_entities: list[Entity] = _list()
    match_reasons: list[str] | None = None


@_frozen
class EntityRelatedPapersPage(SchemaResponse, ListResult):
    _rows = "items"

    items: list[EntityRelatedPaper] = _list()
    next_cursor: str | None = None


@_frozen
class RelatedPaper(Model):
    """A candidate related to the seed, with the contribution of each signal."""

    schema_id: str | None = None
    schema_paper: PaperCard | None = None
    score: float | None = None
    score_components: dict[str, float] | None = None
    reasons: list[str] | None = None


@_frozen
class RelatedPapers(SchemaResponse, ListResult):
    _rows = "items"

    seed: PaperCard | None = None
    items: list[RelatedPaper] = _list()


@_frozen
class EntitySearchPage(SchemaResponse, ListResult):
    _rows = "items"

    items: list[Entity] = _list()
    next_cursor: str | None = None


@_frozen
class EntityPage(SchemaResponse, ListResult):
    """One page of the entity set of a paper; ``total`` counts it after filtering."""

    _rows = "items"
    schema_id: str | None = None
    total: Total | None = None
    items: list[Entity] = _list()
    next_cursor: str | None = None


@_frozen
class EntityDetail(SchemaResponse, ListResult):
    _rows = "relations"

    entity: Entity | None = None
    relations: list[Relation] = _list()
    relations_truncated: bool | None = None

    def _repr_html_(self) -> str:
        """The entity and its relations as HTML for Jupyter: a picture of the entities they
        link (with networkx and matplotlib) and a table of the relations."""
        from paperlens._display import relations_html

        return relations_html(self)


@_frozen
class RelationSearchPage(SchemaResponse, ListResult):
    """One page of ``schema.search_relations``. The contract shows neither ``total`` nor
    ``next_cursor`` here; when sent, ``total`` reads as in the other pages (a :class:`Total`
    when it is an object, else as sent)."""

    _rows = "items"
    total: Total | None = None
    items: list[Relation] = _list()
    next_cursor: str | None = None

    def _repr_html_(self) -> str:
        """The relations as HTML for Jupyter: a picture of the entities they link (with
        networkx and matplotlib) and a table of the relations."""
        from paperlens._display import relations_html

        return relations_html(self)


@_frozen
class RelationDetail(SchemaResponse):
    relation: Relation | None = None
    source_entity: Entity | None = None
    target_entity: Entity | None = None
    provenance: list[ProvenanceElement] = _list()


@_frozen
class OutboundCitations(Model):
    reference_count_total: int | None = None
    resolved_reference_count: int | None = None
    unresolved_reference_count: int | None = None
    resolution_coverage: float | None = None
    resolved_target_schema_count: int | None = None


@_frozen
class InboundCitations(Model):
    external_citation_count: int | None = None
    resolved_corpus_edge_count: int | None = None


@_frozen
class CitationSummary(SchemaResponse):
    """Citation counts of a paper; a resolved count below the total reflects resolution
    coverage, not lost data."""

    schema_id: str | None = None
    outbound: OutboundCitations | None = None
    inbound: InboundCitations | None = None


@_frozen
class CitationResolution(Model):
    """``status``: ``resolved``, ``unresolved`` or ``target_unavailable``."""

    status: str | None = None
    target_schema_id: str | None = None


@_frozen
class CitationReference(Model):
    """The Reference entity behind a citation. The contract names its ``title``, ``authors``
    and ``year`` without giving their types: ``year`` is the JSON value as sent (digits in
    a string stay a string)."""

    entity_id: str | None = None
    title: str | None = None
    authors: list[Any] | None = None
    year: Any = None


@_frozen
class CitationItem(Model):
    """One original reference of the paper, resolved to a corpus paper or not. The contract
    gives ``relation`` no shape: it is the JSON value as sent (``typed_relation`` reads an
    object as a :class:`Relation`)."""

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
    """One page of the complete citation list; ``total`` is the complete citation count."""

    _rows = "items"
    schema_id: str | None = None
    total: int | None = None
    items: list[CitationItem] = _list()
    next_cursor: str | None = None


@_frozen
class GraphNode(PaperCard):
    """A paper of the citation graph, with its availability status."""

    schema_paper: PaperCard | None = None
    availability: str | None = None


@_frozen
class GraphEdge(Model):
    """A resolved citation: ``source_schema_id`` cites ``target_schema_id``."""

    source_schema_id: str | None = None
    target_schema_id: str | None = None
    citation_count: int | None = None


@_frozen
class GraphLevel(Model):
    """Statistics of one expansion level (counts, or the ids themselves, as sent)."""

    depth: int | None = None
    frontier: int | list[Any] | None = None
    new_edges: int | list[Any] | None = None


@_frozen
class CitationGraph(SchemaResponse, ListResult):
    """Resolved paper-level citations expanded from ``root_schema_id``. ``truncated``: the
    node or edge cap was reached (narrow the depth or expand around chosen nodes)."""

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
        from paperlens.pandas import frame

        return frame(GraphEdge, list(self.edges), "pandas")

    def _repr_html_(self) -> str:
        """The graph as HTML for Jupyter: a picture (with networkx and matplotlib) and a
        table of the nodes."""
        from paperlens._display import graph_html

        return graph_html(self)


@_frozen
class EvidenceSearchPage(SchemaResponse, ListResult):
    _rows = "items"

    items: list[Evidence] = _list()
    next_cursor: str | None = None


@_frozen
class EvidenceDetail(SchemaResponse):
    """One evidence; ``source`` identifies its source entity or relation."""

    evidence: Evidence | None = None
    source: Any = None
    provenance: list[ProvenanceElement] = _list()


@_frozen
class SegmentTrace(Model):
    """How segments were found: ``mode`` (``marker`` / ``paragraph_id``) for provenance, the
    query method and elapsed time for in-paper search."""

    mode: str | None = None
    method: str | None = None
    elapsed_ms: float | None = None


@_frozen
class ResolvedProvenance(SchemaResponse, ListResult):
    """Paragraphs of the given locators (limited context, never the whole paper);
    ``missing`` lists the locators that could not be resolved."""

    _rows = "segments"
    segments: list[ParagraphSegment] = _list()
    trace: SegmentTrace | None = None
    missing: list[Any] = _list()


@_frozen
class InPaperSearchResult(SchemaResponse, ListResult):
    """Paragraphs of one paper ranked for the query. The contract gives ``trace`` (query
    method and elapsed time) no shape: it is the JSON value as sent (``typed_trace`` reads
    an object as a :class:`SegmentTrace`)."""

    _rows = "segments"

    segments: list[ParagraphSegment] = _list()
    trace: Any = None

    @property
    def typed_trace(self) -> SegmentTrace | None:
        """``trace`` as a :class:`SegmentTrace` when it is an object, else ``None``."""
        return _view(SegmentTrace, self.trace)


@_frozen
class HydratedItem(Model, ListResult):
    """One item of ``hydrate_items``: ``hydration_method`` is ``paragraph_id``, ``marker``,
    ``schema_local_search`` or ``none``; ``reason`` says why nothing was filled."""

    _rows = "segments"
    schema_id: str | None = None
    hydration_method: str | None = None
    segments: list[ParagraphSegment] = _list()
    reason: str | None = None


@_frozen
class HydratedItems(SchemaResponse, ListResult):
    """Every requested item, in order; one failure does not discard the others."""

    _rows = "items"
    items: list[HydratedItem] = _list()

    @property
    def failed(self) -> list[HydratedItem]:
        """The items that got no segments, each with its ``reason``."""
        return [item for item in self.items if not item.segments]


@_frozen
class ResourceCount(Model):
    """``returned`` of ``total``; ``truncated`` when a limit cut the list."""

    total: int | None = None
    returned: int | None = None
    truncated: bool | None = None


@_frozen
class PaperMaterials(Model):
    """The trimmed bundle of one paper. A list whose ``counts`` entry is truncated is not
    the complete set (use the list operations for that)."""

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
    _rows = "items"

    items: list[PaperMaterials] = _list()
