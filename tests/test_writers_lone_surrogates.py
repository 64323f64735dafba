"""A string holding an unpaired surrogate (``"\\ud83d"`` alone: scraped metadata decoded by
``json.loads``, or a user's own data) is written by every writer of citations and of the CLI
without failing: U+FFFD in its place, or in JSON its escape (which reads back as the same
string). Each output goes to a strict UTF-8 stream, as a file or a real stdout is."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import bibtexparser
import pytest
import rispy

import paperlens
from paperlens.cli.output import emit, write_text
from paperlens.types import MetadataRecord
from tests.test_pandas import PYTHON_DIR

LONE = "\ud83d"
WIRE = {
    "unique_id": "W-lone-1",
    "doc_id": "d" * 64,
    "title": f"Coral {LONE} reefs",
    "author": [{"name": f"Ana {LONE}Núñez"}, {"name": "赵洋"}],
    "type": "article",
    "publication_published_year": 2021,
    "publication_venue_name_unified": f"Reef {LONE} Letters",
    "publication_publisher": [f"Press {LONE}"],
    "extra": {"note": f"kept {LONE}"},
}
# What every writer that cannot hold the surrogate writes instead.
REPLACED = "Coral \ufffd reefs"


def strict_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="")


def written(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


@pytest.fixture
def record() -> MetadataRecord:
    return MetadataRecord._from_wire(dict(WIRE))


def test_bibtex_writes_u_fffd_and_reads_back(record, tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(paperlens.to_bibtex(record), encoding="utf-8")
    [entry] = bibtexparser.parse_file(str(path)).entries
    assert entry.fields_dict["title"].value == REPLACED
    assert entry.fields_dict["author"].value == "\ufffdNúñez, Ana and {赵洋}"
    assert entry.fields_dict["journal"].value == "Reef \ufffd Letters"


def test_ris_writes_u_fffd_and_reads_back(record, tmp_path):
    path = tmp_path / "refs.ris"
    path.write_text(paperlens.to_ris(record), encoding="utf-8")
    [entry] = rispy.loads(path.read_text(encoding="utf-8"))
    assert (entry["title"], entry["authors"][0], entry["publisher"]) == (REPLACED, "\ufffdNúñez, Ana", "Press \ufffd")


def test_csl_json_items_hold_u_fffd_so_the_documented_dump_writes(record, tmp_path):
    path = tmp_path / "refs.json"
    with open(path, "w", encoding="utf-8") as out:
        json.dump(paperlens.to_csl_json([record]), out, ensure_ascii=False)
    [item] = json.loads(path.read_text(encoding="utf-8"))
    assert item["title"] == REPLACED and item["container-title"] == "Reef \ufffd Letters"


def test_a_pair_held_as_two_code_points_is_the_character_it_stands_for():
    pair = MetadataRecord._from_wire({"unique_id": "W2", "title": "wave \ud83c\udf0a"})
    [item] = pair.to_csl_json()
    assert item["title"] == "wave \U0001f30a"


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_cli_json_keeps_the_escape_and_reads_back_equal(record, fmt):
    stream = strict_stream()
    emit(fmt, [record], out=stream)
    text = written(stream)
    assert "\\ud83d" in text and "赵洋" in text  # the escape, and other text as is
    [back] = [json.loads(text)] if fmt == "jsonl" else json.loads(text)
    assert back == record.to_dict()


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_cli_table_and_csv_write_u_fffd(record, fmt):
    stream = strict_stream()
    emit(fmt, [record], columns=["unique_id", "title", "doc_id"], out=stream)
    text = written(stream)
    assert REPLACED in text and WIRE["doc_id"] in text


def test_cli_one_object_table_writes_u_fffd(record):
    stream = strict_stream()
    emit("table", record, out=stream)
    text = written(stream)
    assert REPLACED in text and "kept \ufffd" in text


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
def test_cli_citation_formats_write(record, fmt):
    stream = strict_stream()
    emit(fmt, [record], out=stream)
    assert REPLACED in written(stream)


def test_cli_markdown_text_writes_u_fffd():
    stream = strict_stream()
    write_text(f"# Title {LONE}\n\nBody", out=stream)
    assert written(stream) == "# Title \ufffd\n\nBody\n"


def test_a_real_stdout_takes_every_cli_format():
    # A pipe's stdout encodes strictly: what a user's terminal or `> file` gets.
    code = (
        "from paperlens.cli.output import emit\n"
        "rows = [{'doc_id': 'x', 'title': 'a \\ud83d b'}]\n"
        "for fmt in ('table', 'csv', 'json', 'jsonl', 'bibtex', 'ris', 'csl-json'):\n"
        "    emit(fmt, rows)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR), "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert "a \ufffd b" in out and "a \\ud83d b" in out
