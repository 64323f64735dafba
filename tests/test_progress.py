"""Progress bars: sized by the reported total, and showing the transport's waits."""

from __future__ import annotations

from typing import ClassVar

import pytest

import paperlens
from paperlens.base import _progress

from fixtures import sandbox_client

pytest.importorskip("tqdm")


class FakeBar:
    instances: ClassVar[list[FakeBar]] = []

    def __init__(self, **options):
        self.options, self.total, self.n, self.notes, self.closed = options, options.get("total"), 0, [], False
        FakeBar.instances.append(self)

    def set_postfix_str(self, text, refresh=True):
        self.notes.append(text)

    def update(self, n):
        self.n += n

    def refresh(self):
        pass

    def reset(self, total=None):
        self.total, self.n = total, 0

    def set_description(self, text):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def bars(monkeypatch):
    FakeBar.instances = []
    monkeypatch.setattr(_progress, "progress_bar", lambda **options: FakeBar(**options))
    return FakeBar.instances


SANDBOX = dict(papers=200)


def test_wait_notes():
    assert _progress.wait_note("paced", 12.4, "") == "waiting 12 s (rate limit)"
    paced = "pacing: waiting 12.40 s to stay within 10 requests/minute of the meta-search quota [request_id=r]"
    assert _progress.wait_note("paced", 12.4, paced) == "waiting 12 s (rate limit, 10/min)"
    paused = (
        "pacing: waiting 45.00 s until the time a 429 of the meta-search quota advised, "
        "then within 10 requests/minute [request_id=r]"
    )
    assert _progress.wait_note("paced", 45.0, paused) == "waiting 45 s (the service asked, 10/min)"
    assert (
        _progress.wait_note("retry", 2.0, "POST /x failed (503); retry 1 of 3 in 2.00 s") == "waiting 2 s (retry 1/3)"
    )
    assert _progress.wait_note("request", 0.0, "") == ""
    assert _progress.wait_note("response", 0.0, "") is None


def test_paginator_bar_is_sized_and_shows_a_retry_wait(sandbox, bars):
    client = sandbox_client(sandbox, retry_backoff=0.01)
    sandbox.inject_fault("/meta-search", status=503, times=1)
    records = list(client.iter_meta_search(None, page_size=50, limit=120, progress=True))
    (bar,) = bars
    assert len(records) == bar.n == 120 and bar.total == 120 and bar.closed
    assert any(note.startswith("waiting 0 s (retry 1/3)") for note in bar.notes)
    assert bar.notes[-1] == ""  # cleared when the retried request went out


@pytest.mark.parametrize(
    ("path", "run"),
    [
        ("/meta-search", lambda client, ids: client.lookup(ids, by="unique_id", progress=True)),
        (
            "/meta-search",
            lambda client, ids: client.match_references(["Coral reefs under heat stress. 2019."], progress=True),
        ),
        ("/meta-paper-relations", lambda client, ids: client.snowball(ids[:1], depth=1, progress=True)),
    ],
    ids=["lookup", "match_references", "snowball"],
)
async def test_workflow_bars_show_the_transports_waits(sandbox, bars, path, run):
    ids = [r.unique_id for r in sandbox_client(sandbox).meta_search(None, page_size=3).results]
    for client in (
        sandbox_client(sandbox, retry_backoff=0.01),
        paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None, retry_backoff=0.01),
    ):
        bars.clear()
        sandbox.inject_fault(path, status=503, times=1)
        result = run(client, ids)
        if isinstance(client, paperlens.AsyncClient):
            await result
        (bar,) = bars
        assert bar.closed and any(note.startswith("waiting 0 s (retry 1/3)") for note in bar.notes)


def test_listeners_are_removed_when_the_bar_closes(sandbox, bars):
    client = sandbox_client(sandbox)
    list(client.iter_meta_search(None, page_size=100, progress=True))
    (bar,) = bars
    seen = len(bar.notes)
    client.meta_search(None, page_size=5)
    assert len(bar.notes) == seen and bar.total == 200


def test_download_progress_counts_bytes(sandbox, bars, tmp_path):
    import re

    client = sandbox_client(sandbox)
    doc = client.agentic_search("neuron", top_k=1).hits[0].doc_id
    figure = re.search(r"!\[[^\]]*\]\(([^)\s]+)\)", client.read_text(doc)).group(1)
    path = client.download_resource(figure, tmp_path, progress=True)
    (bar,) = bars
    assert bar.n == path.stat().st_size > 0 and bar.closed
    assert bar.options["unit"] == "B"


async def test_async_download_progress(sandbox, bars, tmp_path):
    import re

    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as client:
        doc = (await client.agentic_search("neuron", top_k=1)).hits[0].doc_id
        figure = re.search(r"!\[[^\]]*\]\(([^)\s]+)\)", await client.read_text(doc)).group(1)
        path = await client.download_resource(figure, tmp_path, progress=True)
    assert bars[0].n == path.stat().st_size


def test_real_tqdm_bar_on_stderr(sandbox, capsys):
    client = sandbox_client(sandbox)
    assert len(list(client.iter_meta_search(None, page_size=100, progress=True))) == 200
    assert "200/200" in capsys.readouterr().err
