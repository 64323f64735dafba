"""client.estimate_harvest and ``paperlens harvest --dry-run``: the requests a harvest will send,
known from a couple of requests (and the sample texts asked for) before anything is written,
compared with the requests the sandbox then serves to the real harvest."""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path
from typing import Any

import pandas
import pytest

import paperlens
from paperlens.cli import main
from paperlens.estimate import Estimate, OperationEstimate
from paperlens.harvest import harvest, harvest_corpus
from paperlens.harvests.corpus import figure_names
from paperlens.sandbox import Sandbox
from tests.fixtures import sandbox_client

PATHS = {"meta_search": "/meta-search", "content": "/content", "download_resource": "/resource"}


def served(sandbox: Sandbox) -> collections.Counter[str]:
    return collections.Counter(request.path for request in sandbox.requests())


def estimated(sandbox: Sandbox, client: paperlens.Client, query: str | None, **arguments: Any) -> Estimate:
    """The estimate, checked to have sent one search and no more texts than the samples asked
    for (one with figures by default), and the operations it names."""
    sandbox.clear_requests()
    estimate = client.estimate_harvest(query, **arguments)
    sent = served(sandbox)
    samples = arguments.get("sample_texts", 1 if arguments.get("figures") else 0)
    assert sent["/meta-search"] == 1 and estimate.sample_texts <= samples and set(sent) <= {"/meta-search", "/content"}
    if estimate.sample_texts == 1:
        assert sum(sent.values()) <= 2 or sent["/content"] > 1  # a long sample text is read whole
    assert len(estimate.request_ids) == sum(sent.values())
    assert {op.path for op in estimate.operations} == {PATHS[op.operation] for op in estimate.operations}
    sandbox.clear_requests()
    return estimate


def assert_close(estimate: Estimate, sent: collections.Counter[str]) -> None:
    """Each operation's requests within 5% of those the sandbox served (and nothing else sent)."""
    assert set(sent) <= {op.path for op in estimate.operations}
    for op in estimate.operations:
        assert abs(op.requests - sent[op.path]) <= 0.05 * sent[op.path], (op, sent)
        if not op.estimated:
            assert op.requests == sent[op.path], (op, sent)
    assert abs(estimate.requests - sum(sent.values())) <= 0.05 * sum(sent.values())


@pytest.mark.parametrize(
    ("query", "arguments"),
    [
        (None, {}),
        ("coral", {}),
        (None, {"page_size": 50, "limit": 730}),
        ("reef", {"filters": [paperlens.Filter("publication_published_year", ">=", 2015)], "page_size": 7}),
        (None, {"collection": "authors", "page_size": 120}),
    ],
)
def test_metadata_harvests_send_what_the_estimate_counts(
    sandbox: Sandbox, tmp_path: Path, query: str | None, arguments: dict[str, Any]
) -> None:
    client = sandbox_client(sandbox)
    estimate = estimated(sandbox, client, query, **arguments)
    result = harvest(client, query, out=tmp_path / "out.jsonl", format="jsonl", **arguments)
    assert_close(estimate, served(sandbox))
    assert estimate.records == result.records and estimate.texts is None and not estimate.at_least


@pytest.mark.parametrize(
    ("query", "arguments"),
    [
        ("coral", {}),
        (None, {"limit": 650}),
        ("ocean", {"filters": [paperlens.Filter("citation_count", ">=", 3)]}),
    ],
)
def test_text_harvests_send_what_the_estimate_counts(
    sandbox: Sandbox, tmp_path: Path, query: str | None, arguments: dict[str, Any]
) -> None:
    client = sandbox_client(sandbox)
    estimate = estimated(sandbox, client, query, texts=True, **arguments)
    result = harvest_corpus(client, tmp_path / "corpus", query=query, texts=True, **arguments)
    assert_close(estimate, served(sandbox))
    assert estimate.records == result.records
    with_doc_id = texts_read(tmp_path / "corpus")
    assert (
        estimate.texts == with_doc_id
        if estimate.texts_counted
        else abs(estimate.texts - with_doc_id) <= 0.05 * with_doc_id
    )


def test_harvests_of_ids_send_what_the_estimate_counts(sandbox: Sandbox, tmp_path: Path) -> None:
    client = sandbox_client(sandbox)
    known = [r.unique_id for r in client.iter_meta_search(None, limit=900) if r.unique_id]
    ids = [*known[:450], "W0000000001", "W0000000002", *known[450:]]
    estimate = estimated(sandbox, client, None, ids=ids, texts=True)
    result = harvest_corpus(client, tmp_path / "corpus", ids=ids, texts=True)
    assert_close(estimate, served(sandbox))
    assert abs(estimate.records - result.records) <= 0.05 * result.records


def test_the_figures_of_one_document_are_counted_from_its_text(sandbox: Sandbox, tmp_path: Path) -> None:
    client = sandbox_client(sandbox)
    record = next(
        r for r in client.iter_meta_search("coral", limit=200) if r.doc_id and figure_names(text_of(client, r.doc_id))
    )
    estimate = estimated(sandbox, client, None, ids=[record.unique_id], texts=True, figures=True)
    result = harvest_corpus(client, tmp_path / "corpus", ids=[record.unique_id], texts=True, figures=True)
    sent = served(sandbox)
    assert estimate.figures == result.figures + result_missing_figures(tmp_path / "corpus") == sent["/resource"]
    assert_close(estimate, sent)


def test_every_text_sampled_counts_the_figures_and_pages_exactly(sandbox: Sandbox, tmp_path: Path) -> None:
    client = sandbox_client(sandbox)
    estimate = estimated(sandbox, client, "ocean", texts=True, figures=True, sample_texts=200)
    assert estimate.sample_texts == estimate.texts and estimate.texts_counted
    result = harvest_corpus(client, tmp_path / "corpus", query="ocean", texts=True, figures=True)
    sent = served(sandbox)
    assert estimate.figures == result.figures + result_missing_figures(tmp_path / "corpus") == sent["/resource"] > 0
    assert [(op.path, op.requests, op.estimated, op.likely) for op in estimate.operations] == [
        (path, sent[path], False, None) for path in ("/meta-search", "/content", "/resource")
    ]
    assert "~" not in str(estimate)


def test_a_larger_sample_of_texts_narrows_the_figure_estimate(sandbox: Sandbox, tmp_path: Path) -> None:
    client = sandbox_client(sandbox)
    rough, close = (
        estimated(sandbox, client, None, texts=True, figures=True, limit=900, sample_texts=n) for n in (1, 150)
    )
    assert (rough.sample_texts, close.sample_texts) == (1, 150)
    (rough_figures, close_figures) = (e.operations[-1] for e in (rough, close))
    assert rough_figures.likely is None and rough_figures.estimated and close_figures.estimated
    harvest_corpus(client, tmp_path / "corpus", texts=True, figures=True, limit=900)
    sent = served(sandbox)["/resource"]
    assert close_figures.likely is not None and close_figures.likely[0] <= sent <= close_figures.likely[1]
    assert close_figures.likely[0] < close_figures.requests < close_figures.likely[1]
    assert abs(close_figures.requests - sent) <= 0.1 * sent
    assert "(~: estimated from a sample of 200 records, 150 texts)" in str(close)
    hint = "/resource from one sample text is rough: sample_texts=n (--sample-texts N) reads more"
    assert str(rough).endswith(hint) and hint not in str(close)
    assert f"~{close_figures.requests:,} ({close_figures.likely[0]:,}-{close_figures.likely[1]:,})" in str(close)


def test_sample_texts_are_spread_over_the_first_page(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    page = client.meta_search("coral", page_size=200, fields=["doc_id"])
    documents = [r.doc_id for r in page.results if r.doc_id]
    sandbox.clear_requests()
    client.estimate_harvest("coral", texts=True, sample_texts=4)
    read = [dict(r.query)["doc_id"] for r in sandbox.requests() if r.path == "/content"]
    assert read[0] == documents[0] and len(dict.fromkeys(read)) == 4
    assert [documents.index(d) for d in dict.fromkeys(read)] == [i * len(documents) // 4 for i in range(4)]


def text_of(client: paperlens.Client, doc_id: str) -> str:
    try:
        return client.read_text(doc_id)
    except paperlens.PermissionDeniedError:
        return ""


def result_missing_figures(out: Path) -> int:
    frame = pandas.read_parquet(out / "records")
    return int(frame.missing_figures.map(len).sum())


def texts_read(out: Path) -> int:
    """The records of a corpus harvest whose text was asked for (those with a doc_id)."""
    frame = pandas.read_parquet(out / "records")
    return int((frame.text_status != "no_doc_id").sum())


async def test_the_async_client_estimates_alike(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    for arguments in ({"texts": True, "figures": True}, {"page_size": 30}):
        mine, theirs = (
            client.estimate_harvest("coral", **arguments),
            await aclient.estimate_harvest("coral", **arguments),
        )
        assert (mine.records, mine.texts, mine.figures, mine.operations) == (
            theirs.records,
            theirs.texts,
            theirs.figures,
            theirs.operations,
        )


def test_the_time_is_what_the_client_s_rates_allow(sandbox: Sandbox) -> None:
    paced = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 12})
    estimate = paced.estimate_harvest(None, page_size=50)  # 2000 records: 40 requests
    (search,) = estimate.operations
    assert (search.requests, search.resource, search.per_minute) == (40, "meta-search", 12)
    assert search.seconds == estimate.seconds == 3 * 60  # 12 at once, then 12 a minute: the 40th in minute 3
    default = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url).estimate_harvest("coral", texts=True)
    assert [(op.resource, op.per_minute, op.seconds) for op in default.operations] == [
        ("meta-search", 30, 0.0),
        (None, None, None),
    ]
    assert "meta-search" in str(default) and "network-bound" in str(default)
    assert "<table>" in default._repr_html_()


def test_an_operation_estimate_at_given_rates_and_its_time_as_text() -> None:
    paced = OperationEstimate.at_rates("meta_search", "/meta-search", 3601, "meta-search", {"meta-search": 30}, False)
    assert (paced.per_minute, paced.seconds, paced.time_text()) == (30, 120 * 60.0, "2 h 00 min")
    unbound = OperationEstimate.at_rates("content", "/content", 7, None, {"meta-search": 30}, True, (5, 9))
    assert unbound == OperationEstimate("content", "/content", 7, None, None, None, True, (5, 9))
    assert (unbound.time_text(), unbound.time_text("no quota")) == ("network-bound", "no quota")
    unpaced = OperationEstimate.at_rates("meta_search", "/meta-search", 61, "meta-search", {}, False)
    assert (unpaced.per_minute, unpaced.seconds, unpaced.time_text()) == (None, 0.0, "0 s")


def test_the_time_is_at_a_lower_rate_the_client_learned_from_a_429(sandbox: Sandbox) -> None:
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 60})
    for _ in range(5):
        client.meta_search("coral", page_size=1)
    # The estimate's own request is refused once, then retried: the gateway admits fewer than 60.
    sandbox.inject_fault("/meta-search", 429, times=1, retry_after=0.2)
    (search,) = client.estimate_harvest(None, page_size=50).operations
    assert search.per_minute is not None and 5 <= search.per_minute < 60
    assert search.seconds == 60.0 * (-(-search.requests // search.per_minute) - 1)


def test_bad_arguments_are_refused_before_any_request(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    sandbox.clear_requests()
    for arguments, message in [
        ({"figures": True}, "figures: needs texts=True"),
        ({"ids": "W1"}, "ids: must be a list of identifiers, not one string"),
        ({"limit": -1}, "limit: must be None or an integer >= 0"),
        ({"page_size": 201}, "page_size: must be None or an integer from 1 to 200"),
        ({"by": "isbn"}, "by: must be one of"),
        ({"texts": True, "collection": "authors"}, "collection: not with texts or ids"),
        ({"texts": True, "sample_texts": 201}, "sample_texts: must be None or an integer from 0 to 200"),
        ({"texts": True, "sample_texts": True}, "sample_texts: must be None or an integer from 0 to 200"),
        ({"sample_texts": 3}, "sample_texts: needs texts=True"),
    ]:
        with pytest.raises(paperlens.ValidationError, match=message):
            client.estimate_harvest(**arguments)
    assert sandbox.requests() == []


def test_dry_run_prints_the_estimate_and_creates_no_file(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.chdir(tmp_path)
    client = paperlens.Client()  # the environment's, with the pacing's default rates as the command's
    for argv in (
        ["harvest", "coral", "--out", "corpus", "--texts", "--figures", "--dry-run", "--no-shared-pacing"],
        ["harvest", "--out", "records.jsonl", "--format", "jsonl", "--page-size", "40", "--dry-run"],
    ):
        assert main(argv) == 0
        assert os.listdir(tmp_path) == []
        shown = capsys.readouterr().out
        assert shown.startswith("Harvest estimate: ") and "meta_search (/meta-search)" in shown
    expected = str(client.estimate_harvest(None, page_size=40))
    assert shown.strip() == expected


def test_dry_run_reads_the_sample_texts_asked_for(
    env: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["harvest", "ocean", "--out", "corpus", "--texts", "--figures", "--no-shared-pacing"]
    assert main([*argv, "--dry-run", "--sample-texts", "200"]) == 0
    shown = capsys.readouterr().out
    expected = paperlens.Client().estimate_harvest("ocean", texts=True, figures=True, sample_texts=200)
    assert shown.strip() == str(expected) and "~" not in shown and os.listdir(tmp_path) == []
    assert main([*argv, "--sample-texts", "5"]) == 2
    assert "--sample-texts: only with --dry-run and --texts" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_an_estimate_reads_every_answer_the_contract_allows(httpserver: Any, tmp_path: Path) -> None:
    """Hand-made answers: total_count and text_length as digit strings, records whose doc_id is
    absent, null or empty, extras, a text the token may not read (403) and one whose length is
    not said; the estimate counts what the harvest of them then sends."""
    from werkzeug import Response

    records: list[dict[str, Any]] = [
        {"unique_id": "W1", "doc_id": "d1", "x_extra": {"any": [1]}},
        {"unique_id": "W2"},
        {"unique_id": "W3", "doc_id": None},
        {"unique_id": "W4", "doc_id": ""},
        {"unique_id": "W5", "doc_id": "d5", "title": None},
        {"unique_id": "W6", "doc_id": "d6"},
    ]
    texts = {"d1": "![a](figures/W1/fig1.png) ![b](figures/W1/fig2.png)", "d6": "![c](figures/W6/fig1.png)"}
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(
        {"results": records, "total_count": "6", "odd": True}
    )

    def content(request: Any) -> Response:
        doc_id = request.args["doc_id"]
        if doc_id == "d5":
            body = {"code": "FORBIDDEN", "message": "no permission", "request_id": "r-403"}
            return Response(json.dumps(body), status=403, content_type="application/json")
        text = texts[doc_id]
        answer: dict[str, Any] = {"text": text, "more": False, "extra": "kept"}
        if doc_id == "d1":
            answer["text_length"] = str(len(text))
        return Response(json.dumps(answer), content_type="application/json")

    httpserver.expect_request("/content").respond_with_handler(content)
    httpserver.expect_request("/resource").respond_with_data(b"\x89PNG", content_type="image/png")
    client = paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)
    estimate = client.estimate_harvest(None, texts=True, figures=True, sample_texts=200)
    estimated_requests = len(httpserver.log)
    result = harvest_corpus(client, tmp_path / "corpus", texts=True, figures=True)
    sent = collections.Counter(request.path for request, _ in httpserver.log[estimated_requests:])
    assert (result.records, result.texts, result.figures) == (6, 2, 3)
    assert {op.path: op.requests for op in estimate.operations} == sent
    assert (estimate.records, estimate.total_count, estimate.texts, estimate.sample_texts) == (6, 6, 3, 3)
    assert estimate.figures == 3  # two in d1, none in the refused d5, one in d6
    assert [(op.path, op.requests, op.estimated) for op in estimate.operations] == [
        ("/meta-search", 1, False),
        ("/content", 3, False),
        ("/resource", 3, False),
    ]
