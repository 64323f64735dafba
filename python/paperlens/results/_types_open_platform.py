"""Typed results of the six Open Platform operations.

Attribute names are the wire names. A field the response did not carry is ``None``;
properties the spec does not name are kept in ``extra``; ``to_dict()`` returns the wire JSON.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from paperlens.errors import APIError
from paperlens.results._citable import Citable
from paperlens.results._model import ListResult, Model, Response

__all__ = [
    "AgenticSearchResult",
    "Catalog",
    "CatalogField",
    "Content",
    "FacetBucket",
    "FacetResult",
    "Hit",
    "MetaSearchPage",
    "MetadataRecord",
    "RelationItem",
    "RelationsPage",
    "Resource",
]

_frozen = dataclasses.dataclass(frozen=True, kw_only=True, repr=False, eq=False)  # see Model


def _list() -> Any:
    return dataclasses.field(default_factory=list)


@_frozen
class Hit(Model):
    """One chunk found by ``agentic_search``; ``doc_id``/``source`` and ``offset`` lead to ``content``.

    Attributes:
        chunk_id: Identifier of the chunk.
        chunk: Text of the chunk.
        doc_id: Document id of the full text; can be passed to ``content``.
        title: Title of the document.
        abstract: Abstract of the document.
        score: Relevance score of the hit.
        recall_source: Which recall found the chunk: ``vector``, ``es`` (keyword) or ``vector|es`` (both).
        origin_es_score: Score of the keyword recall path; ``None`` when that path did not score the chunk.
        origin_vector_score: Score of the vector recall path; ``None`` when that path did not score the chunk.
        source_type: Kind of source, ``pdf`` or ``web``.
        source: Source address; can be passed as ``source`` to ``content``.
        offset: Start of the chunk in the logical full text, in Unicode code points (>= 0).
        chunk_no: Chunk number.
        page_no: Page number of the chunk.
        model_name: Model name, as sent.
        model_version: Model version, as sent.
        lang: Language code of the chunk, such as ``en`` or ``zh``.
        metadata_type: ``paper`` or ``ebook``.
        author: Author names.
        publication_venue_name_unified: Normalised venue name.
        publication_venue_type: Venue type, such as ``journal`` or ``conference``.
        publication_published_date: Publication date, as a string.
        publication_published_year: Publication year.
        citation_count: Number of times the work is cited.
        influential_citation_count: Number of influential citations.
        primary_topic: Main topic of the work.
        primary_topic_domain: Domain of the main topic, such as ``Life Sciences``.
    """

    chunk_id: str | None = None
    chunk: str | None = None
    doc_id: str | None = None
    title: str | None = None
    abstract: str | None = None
    score: float | None = None
    recall_source: str | None = None
    origin_es_score: float | None = None
    origin_vector_score: float | None = None
    source_type: str | None = None
    source: str | None = None
    offset: int | None = None
    chunk_no: int | None = None
    page_no: int | None = None
    model_name: str | None = None
    model_version: str | None = None
    lang: str | None = None
    metadata_type: str | None = None
    author: list[str] | None = None
    publication_venue_name_unified: str | None = None
    publication_venue_type: str | None = None
    publication_published_date: str | None = None
    publication_published_year: int | None = None
    citation_count: int | None = None
    influential_citation_count: int | None = None
    primary_topic: str | None = None
    primary_topic_domain: str | None = None


@_frozen
class AgenticSearchResult(Response, ListResult):
    """The answer of ``agentic_search``: the chunks found, at most ``top_k`` of them.

    Attributes:
        hits: The chunks found, best first.
        request_tokens: Estimated token count of the request side (>= 0); ``None`` when the upstream omits it.
        response_tokens: Estimated token count of the response side (>= 0); ``None`` when the upstream omits it.
    """

    _rows = "hits"

    hits: list[Hit] = _list()
    request_tokens: int | None = None
    response_tokens: int | None = None


@_frozen
class Content(Response):
    """A document's full text, or one page of it (offsets count Unicode code points).

    Attributes:
        text: The full text, or the requested page of it.
        bytes_returned: UTF-8 byte length of ``text``.
        text_length: Length of the whole text in Unicode code points.
        next_offset: Paged mode: the ``offset`` of the next page; full-text mode: equals ``text_length``.
        more: Paged mode: ``True`` when more text follows; full-text mode: always ``False``.
    """

    text: str = ""
    bytes_returned: int | None = None
    text_length: int | None = None
    next_offset: int | None = None
    more: bool | None = None


@_frozen
class Resource(Response):
    """A binary attachment, as ``resource()`` returns it.

    Attributes:
        data: The file's bytes.
        content_type: MIME type from the ``Content-Type`` header (``application/octet-stream`` when the type is
            unknown); ``None`` when the header is absent.
        filename: Safe file name: the ``Content-Disposition`` one, else the last segment of ``file_name``,
            else ``resource``.
        content_disposition: The raw ``Content-Disposition`` header; ``None`` when absent.
    """

    data: bytes = b""
    content_type: str | None = None
    filename: str | None = None
    content_disposition: str | None = None


@_frozen
class CatalogField(Model):
    """One metadata field of ``meta_catalog``, with what it can be used for.

    Attributes:
        name: Field name, as used in ``filters``, ``sort`` and ``fields`` of ``meta_search``.
        type: One of ``String``, ``Integer``, ``Boolean``, ``Float``, ``Date``, ``List[string]``,
            ``List[object]``, ``Object``.
        filterable: Whether the field can be used in ``filters``.
        sortable: Whether the field can be used in ``sort``.
        searchable: Whether the field is full-text searchable by ``query``.
        default_returned: Whether the field is returned when no ``fields`` projection is passed.
        projectable: Whether the field can be named in the ``fields`` projection.
        description: Description of the field.
        operators: Filter operators the field accepts, as short names (``EQ``, ``IN``, ``MATCH``...).
        sample_values: Sample values; only with ``include_sample_values=True`` for enum-like fields, else ``None``.
        cardinality_estimate: Estimated distinct values; only with ``include_field_stats=True``, else ``None``.
        numeric_stats: ``min``, ``max``, ``avg``, ``p50``, ``p95`` of a numeric field; only with
            ``include_field_stats=True``, else ``None``.
    """

    name: str | None = None
    type: str | None = None
    filterable: bool | None = None
    sortable: bool | None = None
    searchable: bool | None = None
    default_returned: bool | None = None
    projectable: bool | None = None
    description: str | None = None
    operators: list[str] | None = None
    sample_values: list[Any] | None = None
    cardinality_estimate: int | None = None
    numeric_stats: dict[str, float] | None = None


@_frozen
class Catalog(Response, ListResult):
    """The answer of ``meta_catalog``: the metadata fields the token may use in one collection.

    Attributes:
        fields: The fields, each with its type and abilities.
        default_fields: Fields ``meta_search`` returns when no ``fields`` projection is passed.
        filter_operators: Filter operator short names (``EQ``, ``NE``, ``GT``, ``GTE``, ``LT``, ``LTE``, ``IN``,
            ``NIN``, ``CONTAINS``, ``MATCH``, ``MATCH_PHRASE``); requests use them with the ``FILTER_OP_`` prefix.
    """

    _rows = "fields"

    fields: list[CatalogField] = _list()
    default_fields: list[str] | None = None
    filter_operators: list[str] | None = None


@_frozen
class MetadataRecord(Model, Citable):
    """One bibliographic record of ``meta_search``; which fields are present depends on the
    projection, the default field set and the token's permissions; zero-valued fields are omitted (``None``).

    Attributes:
        doc_id: Content hash (sha256) of the full-text artifact; ``None`` when the document has no full text.
            Required for ``content``.
        unique_id: Global unique id of the record; use it for citing, de-duplication and ``paper_relations``.
        metadata_type: ``paper`` for papers, ``ebook`` for books.
        title: Title.
        abstract: Abstract or summary.
        language: Language.
        doi: DOI.
        isbns: ISBN list.
        isbn13: 13-digit ISBN.
        type: Resource or document type.
        author: Author list, objects with ``name`` and ``orcid``.
        contributors: Editors, translators and similar (not returned by default).
        locations: Access locations, links, holdings or open-access locations.
        access_is_oa: Open access or not (a string).
        access_oa_status: Open access status.
        access_oa_url: Open access URL.
        access_license: License.
        publication_published_date: Publication date, ISO ``yyyy-MM-dd``; about 19.6% carry January 1 as a
            placeholder for year-only precision (not returned by default).
        publication_published_year: Publication year.
        publication_published_place: Places of publication (not returned by default).
        publication_published_country: Countries or regions of publication (not returned by default).
        publication_venue_name_unified: Normalised venue name; preferred for exact matching and grouping.
        publication_venue_type: Venue type.
        publication_venue_issn: ISSN list.
        publication_publisher: Publishers.
        publication_venue_biblio_volume: Volume (not returned by default).
        publication_venue_biblio_issue: Issue (not returned by default).
        publication_venue_biblio_pages: Page range (not returned by default).
        publication_pages: Total number of pages (not returned by default).
        keywords: Keywords.
        primary_topic: Main topic (``id``, ``display_name``, ``score`` 0-1, ``domain``); only when projected.
        topics: Topic list; only when projected.
        subjects: Subject terms (books); only when projected.
        genre: Carrier/type list (books); only when projected.
        reference_count: Number of works this paper cites.
        citation_count: Number of times this paper is cited.
        influential_citation_count: Number of influential citations.
        fwci: Field-weighted citation impact.
        references: Works cited by this paper (may be truncated; ``paper_relations`` serves them whole).
        related_works: Related works (may be truncated; ``paper_relations`` serves them whole).
        citation_normalized_percentile: Citation percentile among works of the same type, year and sub-field
            (``value`` 0-1, ``is_in_top_10_percent``, ``is_in_top_1_percent``).
        cited_by_percentile_year: Citation percentile within the same year (``min``/``max``, 0-100).
        citations: Works citing this paper; only when projected (may be truncated).
    """

    doc_id: str | None = None
    unique_id: str | None = None
    metadata_type: str | None = None
    title: str | None = None
    abstract: str | None = None
    language: str | None = None
    doi: str | None = None
    isbns: list[str] | None = None
    isbn13: str | None = None
    type: str | None = None
    author: list[dict[str, Any]] | None = None
    contributors: list[str] | None = None
    locations: list[dict[str, Any]] | None = None
    access_is_oa: str | None = None
    access_oa_status: str | None = None
    access_oa_url: str | None = None
    access_license: str | None = None
    publication_published_date: str | None = None
    publication_published_year: int | None = None
    publication_published_place: list[str] | None = None
    publication_published_country: list[str] | None = None
    publication_venue_name_unified: str | None = None
    publication_venue_type: str | None = None
    publication_venue_issn: list[str] | None = None
    publication_publisher: list[str] | None = None
    publication_venue_biblio_volume: str | None = None
    publication_venue_biblio_issue: str | None = None
    publication_venue_biblio_pages: str | None = None
    publication_pages: int | None = None
    keywords: list[str] | None = None
    primary_topic: dict[str, Any] | None = None
    topics: list[dict[str, Any]] | None = None
    subjects: list[str] | None = None
    genre: list[str] | None = None
    reference_count: int | None = None
    citation_count: int | None = None
    influential_citation_count: int | None = None
    fwci: float | None = None
    references: list[str] | None = None
    related_works: list[str] | None = None
    citation_normalized_percentile: dict[str, Any] | None = None
    cited_by_percentile_year: dict[str, Any] | None = None
    citations: list[dict[str, Any]] | None = None


@_frozen
class FacetBucket(Model):
    """One bucket of a facet: a field value and how many matching records carry it.

    Attributes:
        key: The field value.
        doc_count: Number of matching records with that value (a string on the wire is read as an integer).
    """

    key: str | int | float | bool | None = None
    doc_count: int | None = None


@_frozen
class FacetResult(Model, ListResult):
    """The aggregation of one requested facet of ``meta_search``.

    Attributes:
        field: The field aggregated.
        buckets: Its most frequent values with their counts.
    """

    _rows = "buckets"
    _row_label = "field"

    field: str | None = None
    buckets: list[FacetBucket] = _list()


@_frozen
class MetaSearchPage(Response, ListResult, Citable):
    """One page of ``meta_search``; ``total_count`` is capped at 10000 (a value at the cap
    means 10000 or more); ``next_cursor`` is ``""`` when nothing follows.

    Attributes:
        results: The metadata records of this page.
        total_count: Number of matches, capped at 10000 (a string on the wire is read as an integer).
        page: Page number (>= 1).
        page_size: Records per page (1-200).
        total_pages: Number of pages (>= 0).
        search_time_ms: Search time in milliseconds.
        next_cursor: Deep-paging token for the next request's ``cursor``; ``""`` when no more results.
        facets: One aggregation per requested facet; empty when none was requested.
    """

    _rows = "results"

    results: list[MetadataRecord] = _list()
    total_count: int | None = None
    page: int | None = None
    page_size: int | None = None
    total_pages: int | None = None
    search_time_ms: float | None = None
    next_cursor: str | None = None
    facets: list[FacetResult] = _list()

    def facets_to_pandas(self) -> Any:
        """The facets as one tidy pandas DataFrame: ``field``, ``key``, ``doc_count``."""
        from paperlens.results.pandas import frame

        return frame(FacetResult, list(self.facets), "pandas")


@_frozen
class RelationItem(Model):
    """One related paper of ``paper_relations``.

    Attributes:
        id: Identifier of the related paper (a DOI, an external id or an internal id).
        id_type: Type of ``id``.
        title: Title of the related paper.
    """

    id: str | None = None
    id_type: str | None = None
    title: str | None = None


@_frozen
class RelationsPage(Response, ListResult):
    """One page of ``paper_relations``. The service answers 200 with ``code``/``biz_code`` even
    when it fails: a page whose ``code`` is not ``SUCCESS`` or whose ``biz_code`` is not 0
    raises :class:`~paperlens.APIError` instead of reading as an empty page.

    Attributes:
        items: The related papers of this page.
        total_count: Number of related papers (>= 0).
        page: Page number (>= 1).
        page_size: Items per page (1-200).
        total_pages: Number of pages (>= 0).
        code: Status code of the answer; ``SUCCESS`` on success.
        message: Status message.
        biz_code: Business status code; 0 on success.
    """

    _rows = "items"

    items: list[RelationItem] = _list()
    total_count: int | None = None
    page: int | None = None
    page_size: int | None = None
    total_pages: int | None = None
    code: str | None = None
    message: str | None = None
    biz_code: int | None = None

    def _failure(self) -> Exception | None:
        if self.code in (None, "SUCCESS") and self.biz_code in (None, 0):
            return None
        return APIError(
            f"paper_relations answered 200 with code={self.code!r}, biz_code={self.biz_code!r}: {self.message}",
            status=200,
            code=self.code,
            api_message=self.message,
            request_id=self.request_id,
            details={"biz_code": self.biz_code},
        )
