"""Nothing lost: every value the service sends is in every record dataset paperlens writes, equal.

The Parquet outputs (``harvest`` parts, ``harvest_corpus`` records, snowball nodes) are read
back by pyarrow.dataset, DuckDB and polars as a whole directory, and decoded here by the
documented schema (``paperlens.storage._records``): typed columns, six JSON-text columns, the extras in
``extra_json``. They must equal the records' ``to_dict()`` with their null properties left out
(a null cell stands for both); JSONL must equal it exactly.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from paperlens.corpus import harvest_corpus
from paperlens.harvest import harvest, read_records
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client
from record_datasets import assert_datasets_hold, dataset_rows, schemas, without_nulls


@pytest.fixture(scope="module")
def sandbox() -> Any:
    with Sandbox(papers=3000, seed=0) as sandbox:
        yield sandbox


def test_a_three_part_harvest_loses_nothing(sandbox, tmp_path):
    client = sandbox_client(sandbox)
    answers = [r.to_dict() for r in client.iter_meta_search(None, page_size=200).to_list()]
    out = tmp_path / "h"
    harvest(client, None, out=out, limit=3000)
    parts = schemas(out)
    assert len(parts) == 3 and all(schema.equals(parts[0], check_metadata=True) for schema in parts)
    assert read_records(out) == [without_nulls(r) for r in answers]
    assert_datasets_hold(out, answers)
    # the values that chunks without them used to lose
    assert sum("isbns" in r for r in answers) > 0 and sum("access_license" in r for r in answers) > 0
    harvest(client, None, out=tmp_path / "h.jsonl", format="jsonl", limit=3000)
    assert read_records(tmp_path / "h.jsonl") == answers


def test_every_projectable_field_keeps_its_values(sandbox, tmp_path):
    client = sandbox_client(sandbox)
    fields = [f.name for f in client.meta_catalog().fields if f.projectable]
    answers = [r.to_dict() for r in client.iter_meta_search(None, fields=fields, page_size=200, limit=1200).to_list()]
    out = tmp_path / "all"
    harvest(client, None, out=out, fields=fields, chunk_size=400, limit=1200)
    assert schemas(out)[0].names == [*fields, "extra_json"]
    assert read_records(out) == [without_nulls(r) for r in answers]
    assert_datasets_hold(out, answers)


def test_a_projection_gives_its_columns_and_the_ids(sandbox, tmp_path):
    client = sandbox_client(sandbox)
    harvest(client, None, out=tmp_path / "p", fields=["title", "citation_count"], chunk_size=200, limit=600)
    for schema in schemas(tmp_path / "p"):
        assert schema.names == ["doc_id", "unique_id", "title", "citation_count", "extra_json"]
        assert str(schema.field("citation_count").type) == "int64"


def test_the_schema_follows_the_catalog(sandbox):
    """The default columns are the catalog's default fields, typed by its types."""
    from paperlens.storage._records import DEFAULT_FIELDS, metadata_schema
    from paperlens.types import MetadataRecord

    catalog = sandbox_client(sandbox).meta_catalog()
    assert list(DEFAULT_FIELDS) == catalog.default_fields
    projectable = [f for f in catalog.fields if f.projectable]
    kinds = metadata_schema(MetadataRecord, [f.name for f in projectable]).record
    expected = {
        "String": "string",
        "Date": "string",
        "Integer": "integer",
        "Float": "float",
        "List[string]": "strings",
    }
    # Objects: a struct where the contract documents their shape, JSON text (its logical type) where not.
    structs = {"citation_normalized_percentile": "percentile", "cited_by_percentile_year": "percentile_range"}
    structs.update(primary_topic="topic", topics="topics")
    kind = {f.name: expected.get(f.type) or structs.get(f.name, "json_text") for f in projectable}
    assert kinds == {name: "authors" if name == "author" else kind[name] for name in kind}


def test_a_corpus_keeps_every_record_value(sandbox, tmp_path):
    client = sandbox_client(sandbox)
    answers = [r.to_dict() for r in client.iter_meta_search(None, page_size=200, limit=420).to_list()]
    result = harvest_corpus(client, tmp_path / "c", limit=420)
    records = tmp_path / "c" / "records"
    parts = schemas(records)
    assert len(parts) == 3 and all(schema.equals(parts[0], check_metadata=True) for schema in parts)
    assert read_records(records) == [without_nulls(r) for r in answers]
    assert_datasets_hold(records, answers)
    rows = dataset_rows(records)["duckdb"]
    assert [row["doc_id"] for row in rows] == [r.get("doc_id") for r in answers]
    assert [row["text_status"] for row in rows] == ["ok" if r.get("doc_id") else "no_doc_id" for r in answers]
    assert sum(row["text_status"] == "ok" for row in rows) == result.texts > 0


def test_values_that_do_not_fit_their_column_are_kept(httpserver, tmp_path):
    """Odd answers (the service may send them; the client keeps them as sent) go to extra_json
    under their own names, beside records whose values fit."""
    import pyarrow.parquet as pq

    import paperlens

    odd = {
        "unique_id": "W1",
        "title": 5,
        "reference_count": 1.5,
        "influential_citation_count": 2**70,
        "citation_count": True,
        "fwci": "high",
        "author": [{"name": "A", "affiliation": "Lab"}],
        "isbns": "9780000000000",
        "keywords": ["x", 3],
        "locations": "somewhere",
        "to_dict": {"nested": [1, None]},
    }
    plain = {"unique_id": "W2", "title": "Plain", "reference_count": 3, "author": [{"name": "B"}], "fwci": 2}
    records = [odd, plain, plain, odd]
    page = {"results": records, "total_count": 4, "page": 1, "page_size": 4, "total_pages": 1, "next_cursor": ""}
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(page)
    client = paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None)
    answers = [r.to_dict() for r in client.meta_search(None).results]
    assert answers == records
    harvest(client, None, out=tmp_path / "odd", chunk_size=1, page_size=4)
    assert read_records(tmp_path / "odd") == records
    assert_datasets_hold(tmp_path / "odd", records)
    first = pq.read_table(tmp_path / "odd" / "part-00000.parquet").to_pylist()[0]
    assert first["title"] is None and first["reference_count"] is None
    assert json.loads(first["extra_json"])["title"] == 5
