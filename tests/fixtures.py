"""Realistic response bodies of the six Open Platform operations, and clients of a sandbox (in
this process or in a child)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import paperlens
from paperlens.harvest import harvest
from paperlens.sandbox import Sandbox


def metadata_record(i: int) -> dict[str, Any]:
    return {
        "doc_id": f"{i:064x}",
        "unique_id": f"W{3_000_000 + i}",
        "metadata_type": "paper",
        "title": f"Protein structure prediction with deep learning, part {i}",
        "abstract": "We present a method for predicting protein structures from sequence alone. " * 6,
        "language": "en",
        "doi": f"10.1234/plens.{i}",
        "type": "article",
        "author": [{"name": f"Author {j}", "orcid": f"0000-0002-{j:04d}-{i % 9999:04d}"} for j in range(5)],
        "locations": [{"landing_page_url": f"https://example.org/p/{i}", "is_oa": True}],
        "access_is_oa": "true",
        "access_oa_status": "gold",
        "publication_published_year": 2018 + i % 7,
        "publication_venue_name_unified": "Journal of Computational Biology",
        "publication_venue_type": "journal",
        "publication_venue_issn": ["1066-5277"],
        "publication_publisher": ["Example Press"],
        "keywords": ["protein folding", "deep learning", "structure prediction"],
        "reference_count": 40 + i % 13,
        "citation_count": 1000 - i,
        "influential_citation_count": 12,
        "fwci": 3.25,
        "references": [f"W{2_000_000 + k}" for k in range(20)],
        "related_works": [f"W{1_000_000 + k}" for k in range(10)],
        "citation_normalized_percentile": {"value": 0.97, "is_in_top_1_percent": False, "is_in_top_10_percent": True},
        "cited_by_percentile_year": {"min": 96, "max": 98},
    }


def meta_search_page(n: int = 200, *, total: Any = "12345", next_cursor: str = "c2") -> dict[str, Any]:
    return {
        "results": [metadata_record(i) for i in range(n)],
        "total_count": total,
        "page": 1,
        "page_size": n,
        "total_pages": 50,
        "search_time_ms": 12.5,
        "next_cursor": next_cursor,
        "facets": [
            {"field": "publication_published_year", "buckets": [{"key": 2020, "doc_count": "812"}]},
            {"field": "language", "buckets": [{"key": "en", "doc_count": 1200}, {"key": "zh", "doc_count": 33}]},
        ],
    }


def hit(i: int) -> dict[str, Any]:
    return {
        "chunk_id": f"chunk-{i}",
        "chunk": "Graph neural networks aggregate information from neighbouring nodes. " * 4,
        "doc_id": f"{i:064x}",
        "title": f"Message passing on graphs {i}",
        "abstract": "A study of message passing neural networks.",
        "score": 0.9 - i / 100,
        "recall_source": "vector|es",
        "origin_es_score": 12.1,
        "origin_vector_score": 0.83,
        "source_type": "pdf",
        "source": f"https://papers.example.org/{i}.pdf",
        "offset": 1200 * i,
        "chunk_no": i,
        "page_no": 1 + i // 3,
        "model_name": "embed",
        "model_version": "2",
        "lang": "en",
        "metadata_type": "paper",
        "author": ["A. Researcher", "B. Scientist"],
        "publication_venue_name_unified": "NeurIPS",
        "publication_venue_type": "conference",
        "publication_published_date": "2021-12-06",
        "publication_published_year": 2021,
        "citation_count": 321,
        "influential_citation_count": 40,
        "primary_topic": "Graph Neural Networks",
        "primary_topic_domain": "Physical Sciences",
    }


def agentic_result(n: int = 10) -> dict[str, Any]:
    return {"hits": [hit(i) for i in range(n)], "request_tokens": 42, "response_tokens": 5120}


CATALOG = {
    "fields": [
        {
            "name": "citation_count",
            "type": "Integer",
            "filterable": True,
            "sortable": True,
            "searchable": False,
            "default_returned": True,
            "projectable": True,
            "description": "Number of times this paper is cited.",
            "operators": ["EQ", "GT", "GTE", "LT", "LTE"],
            "numeric_stats": {"min": 0, "max": 9000, "avg": 31.5, "p50": 4, "p95": 120},
        },
        {
            "name": "language",
            "type": "String",
            "filterable": True,
            "sortable": False,
            "searchable": False,
            "default_returned": True,
            "projectable": True,
            "description": "Language.",
            "operators": ["EQ", "NE", "IN", "NIN"],
            "sample_values": ["en", "zh"],
            "cardinality_estimate": "41",
        },
    ],
    "default_fields": ["doc_id", "unique_id", "title"],
    "filter_operators": ["EQ", "NE", "GT", "GTE", "LT", "LTE", "IN", "NIN", "CONTAINS", "MATCH", "MATCH_PHRASE"],
}

RELATIONS = {
    "items": [{"id": "10.1000/xyz1", "id_type": "doi", "title": "A citing paper"}, {"id": "W9", "id_type": "openalex"}],
    "total_count": 2,
    "page": 1,
    "page_size": 25,
    "total_pages": 1,
    "code": "SUCCESS",
    "message": "ok",
    "biz_code": 0,
}


def sandbox_client(sandbox: Sandbox, **options: Any) -> paperlens.Client:
    """A client of ``sandbox`` with pacing off: tests count requests rather than wait for them."""
    return paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None, **options)


def sharing_client(sandbox: Sandbox, shared_pacing: str, **options: Any) -> paperlens.Client:
    """A client of ``sandbox`` that shares its pacing through ``shared_pacing`` (a file or a Redis URL)."""
    return paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, shared_pacing=shared_pacing, **options)


@contextmanager
def harvested_growing(out: Path, papers: int) -> Iterator[tuple[Sandbox, paperlens.Client]]:
    """A sandbox of ``papers`` papers, a fifth of them hidden until ``reveal()``, and its client,
    once the papers it shows are harvested at ``out`` (in pages of 100)."""
    with Sandbox(papers=papers, hidden_share=0.2) as sandbox:
        client = sandbox_client(sandbox)
        harvest(client, None, out=out, page_size=100)
        yield sandbox, client


def sandbox_environment(sandbox: Sandbox) -> dict[str, str]:
    """The environment of a child process that runs this tree's paperlens (whatever is installed)
    against ``sandbox``."""
    return {
        **os.environ,
        "PAPERLENS_API_TOKEN": sandbox.token,
        "PAPERLENS_BASE_URL": sandbox.base_url,
        "PYTHONPATH": str(Path(paperlens.__file__).parents[1]),
    }


def resume_told(error: paperlens.QuotaExhaustedError, capsys: pytest.CaptureFixture[str]) -> bool:
    """Whether paperlens told, with ``error`` (in a note; on Python 3.10, which has no notes,
    on stderr), until when the quota is exhausted and that the same call then resumes."""
    told = "\n".join(getattr(error, "__notes__", [])) + capsys.readouterr().err
    when = f"{error.retry_at:%Y-%m-%d %H:%M:%S} UTC"
    return f"the quota is exhausted until {when}; after that time, run the same call again to resume" in told


@pytest.fixture(name="client")
def strict_client(sandbox: Sandbox) -> paperlens.Client:
    """The ``client`` fixture of a module that imports it: a client of the module's sandbox that
    neither paces nor retries (a fault shows at once)."""
    return sandbox_client(sandbox, max_retries=0)


@pytest.fixture(name="client", scope="module")
def module_client(sandbox: Sandbox) -> paperlens.Client:
    """The ``client`` fixture of a module that imports it: one client of the module's sandbox, for
    all its tests, that does not pace."""
    return sandbox_client(sandbox)


PROVENANCE = [{"marker": 12, "paragraph_id": "p-0012"}]
#: A ``/paper-schema`` entity, as the entity operations answer it.
ENTITY = {
    "entity_id": "e3",
    "schema_id": "s1",
    "entity_type": "Component",
    "entity_subtype": "Method",
    "name": "U-Net backbone",
    "text": "We use a U-Net based on a Wide ResNet.",
    "section": "Experiments",
    "provenance": PROVENANCE,
}
