"""Reading record datasets back as a user would: whole directories of Parquet parts through
pyarrow.dataset, DuckDB and polars, decoded by the documented schema of ``paperlens.storage._records``
(typed columns, four struct columns, two JSON-text columns, the extras in ``extra_json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq

#: The contract's objects of undocumented shape, written as JSON text (Parquet's JSON type).
JSON_COLUMNS = {"locations", "citations"}
#: The objects whose shape the contract documents, written as structs (a null field reads as absent).
STRUCT_COLUMNS = {"primary_topic", "topics", "citation_normalized_percentile", "cited_by_percentile_year"}
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
        elif name in STRUCT_COLUMNS:
            value = _present(value)
        elif name == "author":
            value = [None if a is None else {k: v for k, v in a.items() if v is not None} for a in value]
        record[name] = value
    if row.get("extra_json") is not None:
        record.update(json.loads(row["extra_json"]))
    return record


def _present(value: Any) -> Any:
    """A struct cell as the value that arrived: its null fields left out, at every depth."""
    if isinstance(value, dict):
        return {key: _present(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_present(item) for item in value]
    return value


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
    return [pq.read_schema(part) for part in sorted(directory.glob("part-*.parquet"))]
