"""Corpus harvests fed hostile answers by a loopback server: figure names that cannot be files,
doc_ids that look like the folder names hashing makes, a text that is not a string."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

import paperlens
from paperlens.harvest import SkippedFigure, harvest_corpus
from paperlens.harvests.corpus import folder_name

pytest.importorskip("pyarrow")

LONG = "figures/" + "x" * 300 + ".png"
TEXTS = {
    "d1": "\n".join(
        [
            "# One",
            "![a](figures/ok.png)",
            "![nul](figures/a\x00b.png)",
            f"![long]({LONG})",
            "![file](figures/a)",
            "![clash](figures/a/b.png)",
            "![folder](figures)",
            "![up](../../escape.png)",
            "![root](/etc/passwd)",
            "![text](text.md)",
            "![dots](figures/fig..png)",
            "![site](https://example.org/x.png)",
        ]
    ),
    "d2": "# Two\n![b](figures/two.png)",
}
WHY = {
    "figures/a\x00b.png": "holds a NUL byte",
    LONG: "has a part of 304 bytes (at most 255)",
    "figures/a/b.png": "clashes with the file figures/a",
    "figures": "clashes with the folder of another figure",
    "../../escape.png": "would leave the document's folder",
    "/etc/passwd": "would leave the document's folder",
    "text.md": "would replace the document's text (text.md)",
    "figures/fig..png": "holds '..' or a backslash, which /resource does not take",
}


def figure_bytes(name: str) -> bytes:
    return b"\x89PNG" + name.encode()


def serve(httpserver: HTTPServer, records: list[dict[str, Any]], texts: dict[str, Any]) -> None:
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(
        {"results": records, "total_count": len(records)}
    )

    def content(request: Request) -> Response:
        if request.args["doc_id"] not in texts:  # a service down for this text
            failure = {"code": "INTERNAL", "message": "down", "request_id": "r-500"}
            return Response(json.dumps(failure), status=500, content_type="application/json")
        answer = {"text": texts[request.args["doc_id"]], "more": False}
        return Response(json.dumps(answer), content_type="application/json", headers={"X-Request-ID": "content-1"})

    def resource(request: Request) -> Response:
        return Response(figure_bytes(request.args["file_name"]), content_type="image/png")

    httpserver.expect_request("/content").respond_with_handler(content)
    httpserver.expect_request("/resource").respond_with_handler(resource)


def rows_of(out: Path) -> list[dict[str, Any]]:
    """The records of a corpus harvest with their text columns, in order."""
    import pyarrow.parquet as pq

    return pq.read_table(out / "records").to_pylist()


def make_client(httpserver: HTTPServer) -> paperlens.Client:
    return paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)


def test_figures_that_cannot_be_written_are_skipped_reported_and_never_fetched(httpserver, tmp_path):
    serve(httpserver, [{"unique_id": "W1", "doc_id": "d1"}, {"unique_id": "W2", "doc_id": "d2"}], TEXTS)
    out = tmp_path / "corpus"
    result = harvest_corpus(make_client(httpserver), out, figures=True)
    skipped = tuple(SkippedFigure("d1", name, why) for name, why in WHY.items())
    assert result.done and result.skipped_figures == skipped
    assert (result.records, result.texts, result.figures) == (2, 2, 3)
    fetched = [request.args["file_name"] for request, _ in httpserver.log if request.path == "/resource"]
    assert fetched == ["figures/ok.png", "figures/a", "figures/two.png"]
    one = out / "documents" / "d1"
    assert sorted(str(p.relative_to(one)) for p in one.rglob("*") if p.is_file()) == [
        "figures/a",
        "figures/ok.png",
        "text.md",
    ]
    assert (one / "figures" / "a").read_bytes() == figure_bytes("figures/a")
    assert (one / "text.md").read_text() == TEXTS["d1"] and not (tmp_path / "escape.png").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["skipped_figures"] == [{"doc_id": "d1", "name": n, "why": w} for n, w in WHY.items()]
    rows = {row["unique_id"]: row for row in rows_of(out)}
    assert rows["W1"]["figure_paths"] == ["documents/d1/figures/ok.png", "documents/d1/figures/a"]
    assert rows["W1"]["missing_figures"] == list(WHY)
    assert rows["W2"]["figure_paths"] == ["documents/d2/figures/two.png"] and rows["W2"]["missing_figures"] == []
    # The rerun neither fails on them nor sends anything: the harvest is done.
    sent = len(httpserver.log)
    again = harvest_corpus(make_client(httpserver), out, figures=True)
    assert again.done and again.skipped_figures == skipped and len(httpserver.log) == sent


def test_a_run_stopped_mid_page_and_rerun_reports_each_skipped_figure_once(httpserver, tmp_path):
    records = [{"unique_id": "W1", "doc_id": "d1"}, {"unique_id": "W2", "doc_id": "d2"}]
    texts: dict[str, Any] = {"d1": TEXTS["d1"]}  # d2's text fails (a 500) in the first run
    serve(httpserver, records, texts)
    out = tmp_path / "corpus"
    with pytest.raises(paperlens.ServerError):
        harvest_corpus(make_client(httpserver), out, figures=True)
    stopped = json.loads((out / "manifest.json").read_text())
    assert stopped["skipped_figures"] == [{"doc_id": "d1", "name": n, "why": w} for n, w in WHY.items()]
    texts["d2"] = TEXTS["d2"]
    result = harvest_corpus(make_client(httpserver), out, figures=True)
    assert result.resumed and result.done
    assert result.skipped_figures == tuple(SkippedFigure("d1", name, why) for name, why in WHY.items())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["skipped_figures"] == stopped["skipped_figures"]


@pytest.mark.parametrize("text", [12345, None, ["a"], {"t": "x"}])
def test_a_text_that_is_not_a_string_is_a_decode_error_naming_the_request(httpserver, tmp_path, text):
    serve(httpserver, [{"unique_id": "W1", "doc_id": "d1"}], {"d1": text})
    with pytest.raises(paperlens.ResponseDecodeError, match="/content of d1 at offset 0: text is") as raised:
        harvest_corpus(make_client(httpserver), tmp_path / "corpus")
    assert raised.value.request_id == "content-1"


def test_a_doc_id_that_is_a_hashed_folder_name_gets_a_folder_of_its_own(httpserver, tmp_path):
    long_id = "L" * 250
    hashed = "sha256-" + hashlib.sha256(long_id.encode()).hexdigest()
    ids = [long_id, hashed, "sha256%2D" + hashed[7:], ".hidden", "%2Ehidden", "a/b", "a%2Fb"]
    folders = [folder_name(doc_id) for doc_id in ids]
    assert folders[0] == hashed and len(set(folders)) == len(ids)
    texts = {doc_id: f"the text of {doc_id}" for doc_id in ids}
    serve(httpserver, [{"unique_id": f"W{i}", "doc_id": doc_id} for i, doc_id in enumerate(ids)], texts)
    out = tmp_path / "corpus"
    result = harvest_corpus(make_client(httpserver), out)
    assert result.texts == len(ids)
    rows = rows_of(out)
    assert [(out / row["text_path"]).read_text() for row in rows] == [texts[doc_id] for doc_id in ids]


def test_folder_names_are_injective_over_many_shapes():
    shapes = ["sha256-", "sha256%2D", "%2E", ".", "-", "%", "/", "x"]
    ids = {a + b + c for a in shapes for b in shapes for c in ["", "0" * 64, "Z" * 199]}
    ids |= {"sha256-" + hashlib.sha256(doc_id.encode()).hexdigest() for doc_id in list(ids)}
    names = {folder_name(doc_id) for doc_id in ids}
    assert len(names) == len(ids)
    assert all(name and not name.startswith(".") and "/" not in name and len(name) <= 200 for name in names)


def test_the_estimate_counts_only_figures_that_can_be_written(httpserver):
    serve(httpserver, [{"unique_id": "W1", "doc_id": "d1"}], TEXTS)
    estimate = make_client(httpserver).estimate_harvest(None, texts=True, figures=True, sample_texts=10)
    assert estimate.figures == 2  # figures/ok.png and figures/a
