"""pandas and polars frames of results: against a real ``Sandbox`` for the Open Platform
operations, and a loopback HTTP server (realistic bodies) for the structured-paper ones."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens import types as t
from paperlens.sandbox import Sandbox

from fixtures import ENTITY, PROVENANCE, sandbox_client

pd = pytest.importorskip("pandas")

PYTHON_DIR = Path(__file__).resolve().parents[1] / "python"
LEADING_RECORD_COLUMNS = ["doc_id", "unique_id", "doi", "title"]


SANDBOX = dict(papers=2000)


@pytest.fixture(scope="module")
def client(sandbox: Sandbox) -> Iterator[paperlens.Client]:
    with sandbox_client(sandbox) as client:
        yield client


@pytest.fixture(scope="module")
def every_field(client: paperlens.Client) -> list[str]:
    return [f.name for f in client.meta_catalog().fields if "." not in f.name]


def record_columns() -> list[str]:
    """The columns every frame of metadata records has, whatever the projection."""
    flattened = {
        "primary_topic": ["id", "display_name", "score", "subfield", "field", "domain"],
        "citation_normalized_percentile": ["value", "is_in_top_10_percent", "is_in_top_1_percent"],
        "cited_by_percentile_year": ["min", "max"],
    }
    columns = []
    for f in dataclasses.fields(t.MetadataRecord):
        columns += [f"{f.name}.{sub}" for sub in flattened[f.name]] if f.name in flattened else [f.name]
    return [*columns, "extra_json"]


# -- metadata records ---------------------------------------------------------------------------


def test_metadata_records_columns_dtypes_and_values(client: paperlens.Client, every_field: list[str]) -> None:
    records = client.iter_meta_search(fields=every_field, page_size=50, limit=120).to_list()
    frame = paperlens.to_pandas(records)

    assert len(frame) == 120
    assert list(frame.columns[:4]) == LEADING_RECORD_COLUMNS
    assert sorted(frame.columns) == sorted(record_columns())
    dtypes = frame.dtypes
    for name in ("publication_published_year", "citation_count", "reference_count", "publication_pages"):
        assert dtypes[name] == "Int64", name
    assert pd.api.types.is_datetime64_dtype(dtypes["publication_published_date"])
    assert dtypes["fwci"] == "float64" and dtypes["primary_topic.score"] == "float64"
    assert dtypes["citation_normalized_percentile.is_in_top_10_percent"] == "boolean"
    assert pd.api.types.is_string_dtype(dtypes["title"])
    for name in ("keywords", "author", "topics", "primary_topic.domain"):
        assert dtypes[name] == "object", name

    assert list(frame["unique_id"]) == [r.unique_id for r in records]
    assert list(frame["title"]) == [r.title for r in records]
    first, row = records[0], frame.iloc[0]
    assert row["unique_id"] == first.unique_id and row["citation_count"] == first.citation_count
    assert row["keywords"] == first.keywords and isinstance(row["keywords"], list)
    assert row["author"] == first.author
    assert row["primary_topic.display_name"] == first.primary_topic["display_name"]
    assert row["primary_topic.domain"] == first.primary_topic["domain"]
    assert row["cited_by_percentile_year.max"] == first.cited_by_percentile_year["max"]
    assert row["publication_published_date"] == pd.Timestamp(first.publication_published_date)
    assert row["publication_published_year"] == first.publication_published_year


def test_absent_fields_are_still_columns_so_pages_concatenate(client: paperlens.Client, every_field: list[str]) -> None:
    default = client.iter_meta_search(page_size=25, limit=25).to_pandas()
    full = client.iter_meta_search(fields=every_field, page_size=25, limit=25).to_pandas()

    assert list(default.columns) == list(full.columns)
    # The default projection leaves these out, yet the columns exist, typed and empty.
    assert default["publication_published_date"].isna().all()
    assert default["primary_topic.display_name"].isna().all()
    assert default.dtypes["publication_pages"] == "Int64"
    both = pd.concat([default, full], ignore_index=True)
    assert both.shape == (50, full.shape[1])
    assert both.dtypes["citation_count"] == "Int64"


def test_paginator_to_pandas_sync_and_async(sandbox: Sandbox, client: paperlens.Client) -> None:
    import asyncio

    frame = client.iter_meta_search(page_size=100, limit=250).to_pandas()
    assert len(frame) == 250 and frame["unique_id"].is_unique

    async def main() -> Any:
        async with paperlens.AsyncClient(
            api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None
        ) as aclient:
            paginator = aclient.iter_meta_search(page_size=100, limit=250)
            with pytest.raises(TypeError, match="await"):
                paperlens.to_pandas(paginator)
            return await paginator.to_pandas()

    pd.testing.assert_frame_equal(asyncio.run(main()), frame)


def test_to_pandas_of_a_list_of_results_and_of_one_result(client: paperlens.Client) -> None:
    page = client.meta_search(page_size=30)
    from_list = paperlens.to_pandas(page.results)

    pd.testing.assert_frame_equal(from_list, page.to_pandas())
    pd.testing.assert_frame_equal(from_list, paperlens.to_pandas(page))
    one = paperlens.to_pandas(page.results[3])
    assert len(one) == 1 and one.iloc[0]["unique_id"] == page.results[3].unique_id
    assert list(one.columns) == list(from_list.columns)

    with pytest.raises(TypeError, match="dict"):
        paperlens.to_pandas([{"title": "a dict"}])
    with pytest.raises(TypeError):
        paperlens.to_pandas("not a result")


def test_empty_results_give_empty_frames_with_the_columns(client: paperlens.Client) -> None:
    nothing = paperlens.Filter("publication_published_year", ">", 3000)
    frame = client.iter_meta_search(filters=nothing).to_pandas()

    assert frame.shape == (0, len(record_columns()))
    assert list(frame.columns[:4]) == LEADING_RECORD_COLUMNS
    assert frame.dtypes["citation_count"] == "Int64"
    assert pd.api.types.is_datetime64_dtype(frame.dtypes["publication_published_date"])

    page = client.meta_search(filters=nothing)
    assert list(page.to_pandas().columns) == list(frame.columns)
    facets = page.facets_to_pandas()
    assert list(facets.columns) == ["field", "key", "doc_count"] and facets.empty
    assert paperlens.to_pandas([]).shape == (0, 0)


# -- the other Open Platform lists --------------------------------------------------------------


def test_facets_tidy_frame(client: paperlens.Client) -> None:
    page = client.meta_search(page_size=1, facets=["publication_published_year", "publication_venue_type"])
    frame = page.facets_to_pandas()

    assert list(frame.columns) == ["field", "key", "doc_count"]
    assert frame.dtypes["doc_count"] == "Int64"
    expected = [(f.field, b.key, b.doc_count) for f in page.facets for b in f.buckets]
    assert list(frame.itertuples(index=False, name=None)) == expected
    assert set(frame["field"]) == {"publication_published_year", "publication_venue_type"}
    years = page.facets[0].to_pandas()
    assert list(years.columns) == ["field", "key", "doc_count"] and len(years) == len(page.facets[0].buckets)
    pd.testing.assert_frame_equal(paperlens.to_pandas(page.facets), frame)


def test_facet_counts_sent_as_strings_are_integers() -> None:
    with Sandbox(papers=300, int64_as_string=True) as sandbox:
        client = sandbox_client(sandbox)
        frame = client.meta_search(page_size=1, facets=["publication_venue_type"]).facets_to_pandas()
    assert frame.dtypes["doc_count"] == "Int64" and frame["doc_count"].sum() == 300


def test_hits(client: paperlens.Client) -> None:
    result = client.agentic_search("protein folding", top_k=8)
    frame = result.to_pandas()

    assert len(frame) == len(result.hits) > 0
    assert list(frame.columns[:4]) == ["doc_id", "unique_id", "chunk_id", "title"]  # unique_id is an extra
    assert {f.name for f in dataclasses.fields(t.Hit)} <= set(frame.columns)
    assert frame.dtypes["score"] == "float64" and frame.dtypes["citation_count"] == "Int64"
    assert pd.api.types.is_datetime64_dtype(frame.dtypes["publication_published_date"])
    assert frame.iloc[0]["author"] == result.hits[0].author


def test_relation_items(client: paperlens.Client) -> None:
    seed = next(r for r in client.iter_meta_search(fields=["unique_id", "citation_count"]) if r.citation_count)
    paginator = client.iter_paper_relations(seed.unique_id, "CITATIONS", page_size=5)
    frame = paginator.to_pandas()

    assert len(frame) > 0
    # The declared fields, with the ids and titles first; the sandbox adds doi and year.
    assert list(frame.columns) == ["id", "doi", "title", "id_type", "publication_published_year", "extra_json"]
    assert frame.dtypes["publication_published_year"] == "Int64"  # an extra, typed by its values
    assert frame["extra_json"].isna().all()  # every value is in its column
    page = client.paper_relations(seed.unique_id, "CITATIONS", page_size=5)
    pd.testing.assert_frame_equal(page.to_pandas(), frame.iloc[: len(page.items)])


def test_catalog_fields(client: paperlens.Client) -> None:
    catalog = client.meta_catalog(include_sample_values=True, include_field_stats=True)
    frame = catalog.to_pandas()

    assert len(frame) == len(catalog.fields) and frame.columns[0] == "name"
    assert frame.dtypes["filterable"] == "boolean" and frame.dtypes["cardinality_estimate"] == "Int64"
    stats = ["numeric_stats.min", "numeric_stats.max", "numeric_stats.avg", "numeric_stats.p50", "numeric_stats.p95"]
    assert all(frame.dtypes[name] == "float64" for name in stats)
    year = frame.set_index("name").loc["publication_published_year"]
    assert year["numeric_stats.min"] == 1990.0 or year["numeric_stats.min"] > 1000
    assert isinstance(year["operators"], list)


# -- structured papers (a loopback server answering realistic bodies) ----------------------------

CARD = {
    "schema_id": "10.48550/arXiv.2006.11239",
    "title": "Denoising Diffusion Probabilistic Models",
    "authors": ["Jonathan Ho", "Ajay Jain", "Pieter Abbeel"],
    "venue": "NeurIPS",
    "year": 2020,
    "has_code": True,
}
CITATIONS = {
    "schema_id": "s1",
    "total": 3,
    "items": [
        {
            "relation": {"relation_id": "c1", "relation_type": "cites", "schema_id": "s1", "provenance": PROVENANCE},
            "reference": {"entity_id": "ref1", "title": "Improved DDPM", "authors": ["A. Nichol"], "year": 2021},
            "resolution": {"status": "resolved", "target_schema_id": "s2"},
            "target_schema": {**CARD, "schema_id": "s2", "title": "Improved DDPM", "year": 2021},
        },
        {
            "relation": {"relation_id": "c2", "relation_type": "cites", "schema_id": "s1"},
            "reference": {"entity_id": "ref2", "title": "Deep unsupervised learning", "year": 2015},
            "resolution": {"status": "unresolved", "target_schema_id": None},
            "target_schema": None,
        },
    ],
    "next_cursor": "k2",
}
CITATIONS_2 = {
    "schema_id": "s1",
    "total": 3,
    "items": [
        {
            "relation": {"relation_id": "c3", "relation_type": "cites", "schema_id": "s1"},
            "reference": {"entity_id": "ref3", "title": "Score-based generative modeling"},
            "resolution": {"status": "target_unavailable", "target_schema_id": "s9"},
            "confidence": 0.8,
        }
    ],
    "next_cursor": None,
}
ENTITIES = {
    "schema_id": "s1",
    "total": {"value": 2, "relation": "eq"},
    "items": [
        {**ENTITY, "schema_paper": CARD},
        {"entity_id": "e7", "schema_id": "s1", "entity_type": "Measure", "name": "FID"},
    ],
    "next_cursor": None,
}
GRAPH = {
    "root_schema_id": "s1",
    "direction": "inbound",
    "nodes": [
        {**CARD, "schema_id": "s1", "availability": "available"},
        {"schema_id": "s3", "title": "Score SDE", "availability": "target_unavailable"},
    ],
    "edges": [
        {"source_schema_id": "s3", "target_schema_id": "s1", "citation_count": 1},
        {"source_schema_id": "s2", "target_schema_id": "s1"},
    ],
    "levels": [{"depth": 1, "frontier": 2, "new_edges": 2}],
}


@pytest.fixture
def schema_client(httpserver: HTTPServer) -> paperlens.Client:
    return paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01)


def test_citation_items(httpserver: HTTPServer, schema_client: paperlens.Client) -> None:
    path = "/paper-schema/schemas/s1/citations"
    httpserver.expect_ordered_request(path, query_string={"size": "2"}).respond_with_json(CITATIONS)
    httpserver.expect_ordered_request(path, query_string={"size": "2", "cursor": "k2"}).respond_with_json(CITATIONS_2)
    frame = schema_client.schema.iter_citations("s1", size=2).to_pandas()

    assert len(frame) == 3
    assert list(frame.columns[:7]) == [
        "relation.schema_id",
        "relation.relation_id",
        "reference.entity_id",
        "resolution.status",
        "resolution.target_schema_id",
        "reference.title",
        "reference.year",
    ]
    assert list(frame["resolution.status"]) == ["resolved", "unresolved", "target_unavailable"]
    assert frame.dtypes["reference.year"] == "Int64" and frame["reference.year"].isna().sum() == 1
    assert frame.dtypes["target_schema.has_code"] == "boolean"
    assert frame.iloc[0]["target_schema.title"] == "Improved DDPM" and pd.isna(frame.iloc[1]["target_schema.title"])
    # Deeper objects and lists of them stay whole, as wire dicts.
    assert frame.iloc[0]["relation.provenance"] == PROVENANCE
    assert frame.iloc[1]["relation.provenance"] is None  # relation has no shape in the contract: kept as sent
    assert list(frame["confidence"].isna()) == [True, True, False]  # an extra property of the last page


def test_entities_flatten_their_paper(httpserver: HTTPServer, schema_client: paperlens.Client) -> None:
    httpserver.expect_request("/paper-schema/schemas/s1/entities").respond_with_json(ENTITIES)
    page = schema_client.schema.entities("s1")
    frame = page.to_pandas()

    assert list(frame.columns[:3]) == ["schema_id", "entity_id", "name"]
    assert frame.iloc[0]["schema_paper.title"] == CARD["title"] and pd.isna(frame.iloc[1]["schema_paper.title"])
    assert frame.dtypes["schema_paper.year"] == "Int64"
    assert frame.iloc[0]["provenance"] == PROVENANCE and isinstance(frame.iloc[0]["provenance"][0], dict)
    assert frame.iloc[0]["schema_paper.authors"] == CARD["authors"]
    assert not any(name.startswith("_") for name in frame.columns)


def test_graph_nodes_and_edges(httpserver: HTTPServer, schema_client: paperlens.Client) -> None:
    httpserver.expect_request("/paper-schema/schemas/s1/citation-graph").respond_with_json(GRAPH)
    graph = schema_client.schema.citation_graph("s1")

    nodes, edges = graph.to_pandas(), graph.edges_to_pandas()
    assert list(nodes.columns[:2]) == ["schema_id", "title"] and len(nodes) == 2
    assert list(nodes["availability"]) == ["available", "target_unavailable"]
    assert list(edges.columns) == ["source_schema_id", "target_schema_id", "citation_count", "extra_json"]
    assert edges.dtypes["citation_count"] == "Int64" and edges["citation_count"].isna().sum() == 1
    empty = t.CitationGraph._from_wire({"root_schema_id": "s1"}).edges_to_pandas()
    assert list(empty.columns) == list(edges.columns) and empty.empty


# -- polars, and imports ---------------------------------------------------------------------------


def test_polars_has_the_same_columns(client: paperlens.Client, every_field: list[str]) -> None:
    pl = pytest.importorskip("polars")
    paginator = client.iter_meta_search(fields=every_field, page_size=50, limit=80)
    frame = paginator.to_polars()
    expected = paperlens.to_pandas(client.iter_meta_search(fields=every_field, page_size=50, limit=80))

    assert isinstance(frame, pl.DataFrame) and frame.columns == list(expected.columns)
    assert frame.height == 80
    schema = frame.schema
    assert schema["citation_count"] == pl.Int64 and schema["publication_published_date"] == pl.Date
    assert schema["keywords"] == pl.List(pl.String) and schema["primary_topic.score"] == pl.Float64
    assert frame["unique_id"].to_list() == expected["unique_id"].tolist()
    assert frame["publication_published_year"].to_list() == expected["publication_published_year"].tolist()

    facets = paperlens.to_polars(client.meta_search(page_size=1, facets=["publication_published_year"]).facets)
    assert facets.columns == ["field", "key", "doc_count"] and facets.schema["doc_count"] == pl.Int64


def test_polars_without_pyarrow(client: paperlens.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    pl = pytest.importorskip("polars")
    records = client.meta_search(page_size=20).results
    with_arrow = paperlens.to_polars(records)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails
    without = paperlens.to_polars(records)

    assert without.columns == with_arrow.columns
    assert without.schema["citation_count"] == pl.Int64 and without.schema["publication_published_date"] == pl.Date
    assert without["unique_id"].to_list() == with_arrow["unique_id"].to_list()


def test_import_paperlens_does_not_import_pandas() -> None:
    code = (
        "import sys, paperlens, paperlens.types, paperlens.pandas\n"
        "loaded = [m for m in ('pandas', 'numpy', 'pyarrow', 'polars') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "assert callable(paperlens.to_pandas) and callable(paperlens.to_polars)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
