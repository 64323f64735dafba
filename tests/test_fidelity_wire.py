"""Every output held to the wire: hypothesis generates sequences of contract-valid pages
(``contract_answers``: fields absent, present or null, integers as digit strings, nested
authors, extra properties of any name, non-ASCII text, unpaired surrogate escapes, which
arrive as U+FFFD), a loopback server serves them
following cursors, and each output must hold every value that arrived, equal: ``harvest`` to
Parquet (read back by paperlens, pyarrow.dataset, DuckDB and polars) and to JSONL, the records
of ``harvest_corpus``, the nodes and edges of a snowball's ``write()``, and the frames of
``to_pandas()`` and ``to_polars()`` (page by page from a paginator, and of the records' list),
read back by the documented layout (``frame_records``).

A new output path joins this file when it is added.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens.corpus import harvest_corpus
from paperlens.harvest import harvest, read_records
from paperlens.storage._records import read_table_records

from conftest import TOKEN
from contract_answers import PROFILE, TEXT, Answers, expected
from frame_records import assert_frame_holds
from record_datasets import assert_datasets_hold, without_nulls

pq = pytest.importorskip("pyarrow.parquet")

FEW = settings(PROFILE, max_examples=15)  # each example runs whole harvests
#: Extra property names that collide with what paperlens itself names.
NAMES = TEXT | st.sampled_from(
    ["extra", "to_dict", "request_id", "extra_json", "text_status", "text_path", "depth", "__class__", "_plan"]
)
ANSWERS = Answers(NAMES)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _with_lone_surrogates(record: dict[str, Any], text: str | None) -> dict[str, Any]:
    """Scraped metadata: a title and an extra property with unpaired surrogates (sent escaped)."""
    if text is None:
        return record
    return {**record, "title": f"{text}\ud83d{text}", "scraped": ["\udc00", f"\udbff{text}"]}


RECORDS = st.builds(_with_lone_surrogates, ANSWERS.component("MetadataRecord"), st.none() | TEXT)
PAGES = st.lists(st.lists(RECORDS, min_size=1, max_size=5), min_size=1, max_size=4)


def wire_json(body: Any) -> bytes:
    """The body as the service may send it: UTF-8, with a lone surrogate as its escape."""
    text = json.dumps(body, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def arrived(value: Any) -> Any:
    """What ``to_dict()`` gives back of a generated value: digit strings of integer fields as
    ints, a lone surrogate as U+FFFD."""
    value = expected(value)
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {arrived(k): arrived(v) for k, v in value.items()}
    if isinstance(value, list):
        return [arrived(v) for v in value]
    return value


def serve_pages(httpserver: HTTPServer, pages: list[list[dict[str, Any]]]) -> None:
    """``/meta-search`` answers page after page, by their cursors ``c1``, ``c2``..."""

    def answer(request: Request) -> Response:
        cursor = (request.get_json() or {}).get("cursor") or "c0"
        index = int(cursor[1:])
        more = index + 1 < len(pages)
        body = {
            "results": pages[index],
            "total_count": sum(map(len, pages)),
            "page": 1,
            "page_size": 200,
            "total_pages": len(pages),
            "search_time_ms": 1.5,
            "next_cursor": f"c{index + 1}" if more else "",
        }
        return Response(wire_json(body), content_type="application/json")

    httpserver.expect_request("/meta-search", method="POST").respond_with_handler(answer)


def client_of(httpserver: HTTPServer) -> paperlens.Client:
    return paperlens.Client(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)


def served(httpserver: HTTPServer, pages: list[list[dict[str, Any]]]) -> tuple[paperlens.Client, list[dict[str, Any]]]:
    """A client of ``pages`` served anew, and the records as they arrive."""
    httpserver.clear()
    serve_pages(httpserver, pages)
    return client_of(httpserver), [arrived(record) for page in pages for record in page]


@settings(FEW)
@given(pages=PAGES)
def test_harvest_outputs_hold_every_value(httpserver: HTTPServer, pages):
    client, records = served(httpserver, pages)
    assert [r.to_dict() for r in client.iter_meta_search(None).to_list()] == records
    with tempfile.TemporaryDirectory() as temp:
        out = Path(temp)
        harvest(client, None, out=out / "p", chunk_size=3)
        assert read_records(out / "p") == [without_nulls(r) for r in records]
        assert_datasets_hold(out / "p", records, skip=set())
        harvest(client, None, out=out / "h.jsonl", format="jsonl", chunk_size=3)
        assert read_records(out / "h.jsonl") == records


@settings(FEW)
@given(pages=PAGES)
def test_corpus_records_hold_every_value(httpserver: HTTPServer, pages):
    httpserver.clear()
    serve_pages(httpserver, pages)

    def content(request: Request) -> Response:
        text = f"# {request.args['doc_id']}\n"
        body = {"text": text, "bytes_returned": len(text.encode()), "text_length": len(text), "more": False}
        return Response(wire_json({**body, "next_offset": len(text)}), content_type="application/json")

    httpserver.expect_request("/content").respond_with_handler(content)
    records = [arrived(record) for page in pages for record in page]
    with tempfile.TemporaryDirectory() as temp:
        out = Path(temp) / "corpus"
        harvest_corpus(client_of(httpserver), out)
        assert read_records(out / "records") == [without_nulls(r) for r in records]
        assert_datasets_hold(out / "records", records)
        statuses = pq.read_table(out / "records").column("text_status").to_pylist()
        doc_ids = [r.get("doc_id") for r in records]
        assert statuses == [text_status(d) for d in doc_ids]


def text_status(doc_id: Any) -> str:
    if not isinstance(doc_id, str) or not doc_id:
        return "no_doc_id"
    return "invalid_doc_id" if ".." in doc_id or "\\" in doc_id else "ok"


ITEMS = st.lists(ANSWERS.component("RelationItem"), max_size=8)


@settings(FEW)
@given(items=ITEMS, seed_record=RECORDS)
def test_snowball_write_holds_every_value(httpserver: HTTPServer, items, seed_record):
    httpserver.clear()
    # distinct ids, none a unique_id to expand: every item is one node
    items = [{**item, "id": f"n{i}", "id_type": "doi"} for i, item in enumerate(items)]
    # the seed's record, whatever else it holds: its unique_id is the node's id
    seed_record = {name: value for name, value in seed_record.items() if name not in ("id", "id_type", "unique_id")}
    serve_pages(httpserver, [[{**seed_record, "unique_id": "S"}]])

    def relations(request: Request) -> Response:
        asked = request.get_json()
        size, page = asked.get("page_size", 25), asked.get("page", 1)
        body = {
            "items": items[(page - 1) * size : page * size],
            "total_count": len(items),
            "page": page,
            "page_size": size,
            "total_pages": -(-len(items) // size),
            "code": "SUCCESS",
            "message": "",
            "biz_code": 0,
        }
        return Response(wire_json(body), content_type="application/json")

    httpserver.expect_request("/meta-paper-relations", method="POST").respond_with_handler(relations)
    network = client_of(httpserver).snowball(["S"], direction="citations", depth=1)
    with tempfile.TemporaryDirectory() as temp:
        out = network.write(Path(temp) / "network")
        nodes = pq.read_table(out / "nodes.parquet")
        seed = {**without_nulls(arrived(seed_record)), "id": "S", "id_type": "unique_id"}
        assert read_table_records(nodes) == [seed, *(without_nulls(arrived(item)) for item in items)]
        assert nodes.column("depth").to_pylist() == [0] + [1] * len(items)
        edges = pq.read_table(out / "edges.parquet").to_pylist()
        assert edges == [{"source": f"n{i}", "target": "S", "direction": "citations"} for i in range(len(items))]


@settings(FEW)
@given(pages=PAGES)
def test_frames_hold_every_value(httpserver: HTTPServer, pages):
    client, records = served(httpserver, pages)
    assert_frame_holds(client.iter_meta_search(None).to_pandas().to_dict("records"), records)
    assert_frame_holds(paperlens.to_pandas(client.iter_meta_search(None).to_list()).to_dict("records"), records)
    assert_frame_holds(client.iter_meta_search(None).to_polars().to_dicts(), records)
    assert_frame_holds(paperlens.to_polars(client.iter_meta_search(None).to_list()).to_dicts(), records)
