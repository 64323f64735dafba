"""Typed results of the six Open Platform operations.

Attribute names are the wire names. A field the response did not carry is ``None``;
properties the spec does not name are kept in ``extra``; ``to_dict()`` returns the wire JSON.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from paperlens._model import ListResult, Model, Response
from paperlens.errors import APIError
from paperlens.export import Citable

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

_frozen = dataclasses.dataclass(frozen=True, kw_only=True, repr=False)


def _list() -> Any:
    return dataclasses.field(default_factory=list)


@_frozen
class Hit(Model):
    """One chunk found by ``agentic_search``; ``doc_id``/``source`` and ``offset`` lead to ``content``."""

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
    _rows = "hits"

    hits: list[Hit] = _list()
    request_tokens: int | None = None
    response_tokens: int | None = None


@_frozen
class Content(Response):
    """A document's full text, or one page of it (offsets count Unicode code points)."""

    text: str = ""
    bytes_returned: int | None = None
    text_length: int | None = None
    next_offset: int | None = None
    more: bool | None = None


@_frozen
class Resource(Response):
    """A binary attachment, as ``resource()`` returns it."""

    data: bytes = b""
    content_type: str | None = None
    filename: str | None = None
    content_disposition: str | None = None


@_frozen
class CatalogField(Model):
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
    _rows = "fields"

    fields: list[CatalogField] = _list()
    default_fields: list[str] | None = None
    filter_operators: list[str] | None = None


@_frozen
class MetadataRecord(Model, Citable):
    """One bibliographic record of ``meta_search``; which fields are present depends on the
    projection, the default field set and the token's permissions."""

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
    key: str | int | float | bool | None = None
    doc_count: int | None = None


@_frozen
class FacetResult(Model, ListResult):
    _rows = "buckets"

    field: str | None = None
    buckets: list[FacetBucket] = _list()


@_frozen
class MetaSearchPage(Response, ListResult, Citable):
    """One page of ``meta_search``; ``total_count`` is capped at 10000 (a value at the cap
    means 10000 or more); ``next_cursor`` is ``""`` when nothing follows."""

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
        from paperlens.pandas import facets_frame

        return facets_frame(self.facets)


@_frozen
class RelationItem(Model):
    id: str | None = None
    id_type: str | None = None
    title: str | None = None


@_frozen
class RelationsPage(Response, ListResult):
    """One page of ``paper_relations``. The service answers 200 with ``code``/``biz_code`` even
    when it fails: a page whose ``code`` is not ``SUCCESS`` or whose ``biz_code`` is not 0
    raises :class:`~paperlens.APIError` instead of reading as an empty page."""

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
