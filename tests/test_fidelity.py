"""Nothing lost: every value the service sends is in every record dataset paperlens writes, equal.

The Parquet outputs (``harvest`` parts, ``harvest_corpus`` records, snowball nodes) are read
back by pyarrow.dataset, DuckDB and polars as a whole directory, and decoded here by the
documented schema (``paperlens._records``): typed columns, six JSON-text columns, the extras in
``extra_json``. They must equal the records' ``to_dict()`` with their null properties left out
(a null cell stands for both); JSONL must equal it exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paperlens.corpus import harvest_corpus
from paperlens.harvest import harvest, read_records
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client

pa_dataset = pytest.importorskip("pyarrow.dataset")
duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")

#: The contract's objects of undocumented shape, written as JSON text.
JSON_COLUMNS = {
    "locations",
    "primary_topic",
    "topics",
    "citation_normalized_percentile",
    "cited_by_percentile_year",
    "citations",
}
TEXT_COLUMNS = {"text_status", "text_path", "figure_paths", "missing_figures"}


def without_nulls(record: dict[str, Any]) -> dict[str, Any]:
    """What a Parquet row holds of a record: its properties that are not null (an author's
    null ``name`` or ``orcid`` reads as absent too)."""
    kept = {name: value for name, value in record.items() if value is not None}
    authors = kept.get("author")
    if isinstance(authors, list) and all(a is None or _plain_author(a) for a in authors):
        kept["author"] = [None if a is None else {k: v for k, v in a.items() if v is not None} for a in authors]
    return kept


def _plain_author(author: Any) -> bool:
    return (
        isinstance(author, dict)
        and set(author) <= {"name", "orcid"}
        and all(v is None or isinstance(v, str) for v in author.values())
    )


def decoded(row: dict[str, Any], skip: set[str] = TEXT_COLUMNS) -> dict[str, Any]:
    """A row of a dataset reader as the record it stands for (by the documented schema)."""
    record: dict[str, Any] = {}
    for name, value in row.items():
        if value is None or name in skip or name == "extra_json":
            continue
        if name in JSON_COLUMNS:
            value = json.loads(value)
        elif name == "author":
            value = [None if a is None else {k: v for k, v in a.items() if v is not None} for a in value]
        record[name] = value
    if row.get("extra_json") is not None:
        record.update(json.loads(row["extra_json"]))
    return record


def dataset_rows(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of the Parquet parts in ``directory``, as each reader sees the whole dataset."""
    pattern = str(directory / "*.parquet")
    table = pa_dataset.dataset(directory, format="parquet").to_table()
    with duckdb.connect() as connection:
        cursor = connection.execute("SELECT * FROM read_parquet(?) ORDER BY filename, file_row_number", [pattern])
        names = [d[0] for d in cursor.description]
        duck = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    wanted = [name for name in names if name not in ("filename", "file_row_number")]
    return {
        "pyarrow.dataset": table.to_pylist(),
        "duckdb": [{name: row[name] for name in wanted} for row in duck],
        "polars": pl.scan_parquet(pattern).collect().to_dicts(),
    }


def assert_datasets_hold(directory: Path, expected: list[dict[str, Any]], skip: set[str] = TEXT_COLUMNS) -> None:
    want = [without_nulls(record) for record in expected]
    for reader, rows in dataset_rows(directory).items():
        assert [decoded(row, skip) for row in rows] == want, reader


def schemas(directory: Path) -> list[Any]:
    import pyarrow.parquet as pq

    return [pq.read_schema(part) for part in sorted(directory.glob("part-*.parquet"))]


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
    from paperlens._records import DEFAULT_FIELDS, metadata_schema

    catalog = sandbox_client(sandbox).meta_catalog()
    assert list(DEFAULT_FIELDS) == catalog.default_fields
    projectable = [f for f in catalog.fields if f.projectable]
    kinds = metadata_schema([f.name for f in projectable]).record
    expected = {
        "String": "string",
        "Date": "string",
        "Integer": "integer",
        "Float": "float",
        "List[string]": "strings",
        "Object": "json",
        "List[object]": "json",
    }
    assert kinds == {f.name: "authors" if f.name == "author" else expected[f.type] for f in projectable}


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
