"""The columns of a harvest's Parquet: the objects whose shape the contract documents as typed
structs, JSON text in Parquet's JSON logical type (DuckDB and polars read it as JSON), every
value the contract allows given back as it arrived, and older outputs updated in their own
schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from paperlens.harvest import harvest, read_records
from paperlens.harvests._harvesting import ParquetParts, checkpoint_beside
from paperlens.storage._records import JSON, JSON_TEXT, RecordSchema

from fixtures import harvested_growing, meta_search_page, metadata_record

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

TOPIC = {
    "id": "https://openalex.org/T10101",
    "display_name": "Coral reef ecology",
    "score": 0.97,
    "subfield": {"id": "https://openalex.org/subfields/2303", "display_name": "Ecology"},
    "field": {"id": "https://openalex.org/fields/23", "display_name": "Environmental Science"},
    "domain": {"id": "https://openalex.org/domains/3", "display_name": "Physical Sciences"},
}


#: Every field of the records, the topics (not returned by default) included.
FIELDS = [*metadata_record(0), "primary_topic", "topics"]


def allowed_records() -> list[dict[str, Any]]:
    """Records the contract allows: whole objects, objects with keys left out, integers where
    floats go, and values the columns cannot hold (a null inside, another key, another type)."""
    records = [metadata_record(i) for i in range(9)]
    records[0].update(primary_topic=TOPIC, topics=[TOPIC, {"id": "T2", "score": 1}])
    records[1].update(primary_topic={"display_name": "Only a name"}, topics=[])
    records[2].update(cited_by_percentile_year={"min": 96, "max": 98.5})
    records[3].update(citation_normalized_percentile={"value": None, "is_in_top_1_percent": True})  # a null inside
    records[4].update(primary_topic={**TOPIC, "level": 2})  # a key the contract does not name
    records[5].update(cited_by_percentile_year="96-98", topics=[TOPIC, "T3"])  # not objects
    records[6].update(citation_normalized_percentile={"value": 1, "is_in_top_10_percent": "yes"})
    records[7].update(locations=[{"is_oa": True, "source": {"id": None}}], primary_topic={"domain": {}})
    for name in ("primary_topic", "topics", "citation_normalized_percentile", "cited_by_percentile_year"):
        records[8].pop(name, None)
    return records


def served(httpserver: HTTPServer, records: list[dict[str, Any]]) -> None:
    page = meta_search_page(0, total=len(records), next_cursor="")
    page["results"] = records
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(page)


def test_every_value_the_contract_allows_reads_back_as_it_arrived(httpserver, make_client, tmp_path):
    records = allowed_records()
    served(httpserver, copy.deepcopy(records))
    out = tmp_path / "papers"
    harvest(make_client(), None, out=out, fields=FIELDS)
    assert read_records(out) == records
    schema = pq.read_schema(next(out.glob("part-*.parquet")))
    topic = schema.field("primary_topic").type
    assert pa.types.is_struct(topic) and topic.field("domain").type.field("display_name").type == pa.string()
    assert schema.field("topics").type == pa.list_(topic)
    percentile = schema.field("citation_normalized_percentile").type
    assert percentile.field("is_in_top_1_percent").type == pa.bool_()
    assert schema.field("cited_by_percentile_year").type.field("min").type == pa.float64()
    for name in ("locations", "extra_json"):
        assert isinstance(schema.field(name).type, pa.JsonType), name
    table = pq.read_table(out)
    extras = [json.loads(cell) if cell else {} for cell in table.column("extra_json").to_pylist()]
    # What a column cannot hold goes whole to extra_json, under its own name.
    assert extras[3] == {"citation_normalized_percentile": records[3]["citation_normalized_percentile"]}
    assert extras[4] == {"primary_topic": records[4]["primary_topic"]}
    assert extras[5] == {"cited_by_percentile_year": "96-98", "topics": records[5]["topics"]}
    assert table.column("primary_topic").to_pylist()[0] == TOPIC


def test_duckdb_and_polars_read_the_structs_and_the_json_columns(httpserver, make_client, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    records = allowed_records()
    served(httpserver, copy.deepcopy(records))
    out = tmp_path / "papers"
    harvest(make_client(), None, out=out, fields=FIELDS)
    pattern = str(out / "*.parquet")
    rows = duckdb.sql(
        "SELECT typeof(locations), typeof(extra_json), primary_topic.domain.display_name,"
        " cited_by_percentile_year.max, locations->'$[0].is_oa' FROM read_parquet(?) ORDER BY unique_id",
        params=[pattern],
    ).fetchall()
    assert {row[0] for row in rows} == {row[1] for row in rows} == {"JSON"}
    assert [row[2] for row in rows] == [
        (r.get("primary_topic") or {}).get("domain", {}).get("display_name") if i != 4 else None
        for i, r in enumerate(records)
    ]
    assert rows[2][3] == 98.5 and json.loads(rows[7][4]) is True
    frame = pl.read_parquet(pattern)
    assert isinstance(frame.schema["primary_topic"], pl.Struct) and isinstance(frame.schema["topics"], pl.List)
    assert frame["primary_topic"].struct.field("display_name").to_list()[:2] == ["Coral reef ecology", "Only a name"]
    assert str(frame.schema["locations"]).startswith("Extension('arrow.json'")
    assert [json.loads(cell) for cell in frame["locations"].to_list()] == [r["locations"] for r in records]


def older_schema(schema: RecordSchema) -> RecordSchema:
    """The schema paperlens wrote before typed structs and the JSON logical type: every object
    as a plain string of JSON, ``extra_json`` too."""
    plain = {
        name: JSON if kind not in ("string", "integer", "float", "strings", "authors") else kind
        for name, kind in schema.record.items()
    }
    return RecordSchema(plain, schema.added, extra_kind=JSON)


def test_an_older_output_is_read_and_updated_in_its_own_schema(tmp_path):
    out = tmp_path / "papers"
    with harvested_growing(out, papers=250) as (sandbox, client):
        held = read_records(out)
        # Rewrite its parts as an older paperlens wrote them.
        state = json.loads(checkpoint_beside(out).read_text())
        current = RecordSchema.of_arrow(pq.read_schema(out / "part-00000.parquet"))
        assert current is not None and current.extra_kind == JSON_TEXT
        old = older_schema(current)
        parts = ParquetParts(out, old)
        for index in range(state["chunks"]):
            path = out / ParquetParts.part(index)
            parts.write_chunk(index, read_records_of(path))
        old_arrow = pq.read_schema(out / "part-00000.parquet")
        assert old_arrow.field("cited_by_percentile_year").type == pa.string() and read_records(out) == held
        sandbox.reveal()
        result = harvest(client, None, out=out, page_size=100, update=True)
        assert result.added == 250 - len(held) > 0
    for path in sorted(out.glob("part-*.parquet")):
        assert pq.read_schema(path).equals(old_arrow, check_metadata=True), path.name
    assert len(read_records(out)) == 250 and read_records(out)[: len(held)] == held
    assert [r["unique_id"] for r in read_records(out, run=-1)] == list(result.new_ids)


def read_records_of(part: Path) -> list[dict[str, Any]]:
    from paperlens.storage._records import read_table_records

    return read_table_records(pq.read_table(part))
