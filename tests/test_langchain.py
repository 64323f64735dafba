"""paperlens.integrations.langchain through LangChain's own entry points (``invoke``,
``ainvoke``, ``batch``) against the sandbox, compared with what the client returns."""

from __future__ import annotations

import base64
import contextlib
import inspect
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.agents._tools import default_tools
from paperlens.harvests.corpus import figure_names
from paperlens.integrations.langchain import PaperlensRetriever, tools
from paperlens.sandbox import Sandbox
from tests.agent_frameworks import (
    QUERIES,
    TOKEN_CALLS,
    expected_metadata,
    serve_the_token,
    sparse_hits,
)
from tests.fixtures import sandbox_client
from tests.test_pandas import PYTHON_DIR

from conftest import TOKEN


def expected_documents(client: paperlens.Client, query: str, top_k: int) -> list[tuple[str, dict[str, Any], Any]]:
    hits = client.agentic_search(query, top_k=top_k).to_dict()["hits"]
    return [(hit["chunk"], expected_metadata(hit), hit["chunk_id"]) for hit in hits]


def as_tuples(documents: list[Any]) -> list[tuple[str, dict[str, Any], Any]]:
    return [(d.page_content, d.metadata, d.id) for d in documents]


@pytest.mark.parametrize("query", QUERIES)
def test_invoke_returns_the_chunks_and_metadata_of_the_hits(sandbox: Sandbox, query: str) -> None:
    client = sandbox_client(sandbox)
    documents = PaperlensRetriever(client=client, top_k=40).invoke(query)
    assert documents and as_tuples(documents) == expected_documents(client, query, 40)
    assert all(d.metadata.get("unique_id") for d in documents)  # the sandbox sends it: kept


async def test_ainvoke_sends_through_the_async_client_of_either_kind(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    for given in (client, aclient):
        retriever = PaperlensRetriever(client=given, top_k=25, retrieval="vector")
        for query in QUERIES:
            documents = await retriever.ainvoke(query)
            hits = client.agentic_search(query, top_k=25, retrieval="vector").to_dict()["hits"]
            assert as_tuples(documents) == [(h["chunk"], expected_metadata(h), h["chunk_id"]) for h in hits]


def test_absent_or_null_fields_are_left_out_of_the_metadata(httpserver: HTTPServer) -> None:
    answer = sparse_hits()
    httpserver.expect_request("/agentic-search", method="POST").respond_with_json(answer)
    client = paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None)
    documents = PaperlensRetriever(client=client).invoke("anything")
    hits = client.agentic_search("anything").to_dict()["hits"]
    assert [(d.page_content, d.metadata) for d in documents] == [(h["chunk"], expected_metadata(h)) for h in hits]
    assert [d.metadata for d in documents] == [
        {"score": 0.5},
        {"chunk_id": "c-1", "doc_id": "d" * 64, "offset": 0},
        {"unique_id": "W1", "year": 2020},  # a year sent as a string arrives as an int
    ]


def test_a_setting_of_another_name_is_refused_not_dropped(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    with pytest.raises(TypeError, match=r"^PaperlensRetriever\(\) got an unexpected keyword argument 'subqueries'$"):
        PaperlensRetriever(client=client, subqueries=2)
    retriever = PaperlensRetriever(client=client, name="papers", tags=["reef"], metadata={"run": 1})
    assert (retriever.name, retriever.tags, retriever.metadata) == ("papers", ["reef"], {"run": 1})


def test_a_subclass_takes_its_own_fields(sandbox: Sandbox) -> None:
    class Tagged(PaperlensRetriever):
        topic: str = "any"

    client = sandbox_client(sandbox)
    assert Tagged(client=client, topic="reefs", top_k=3).topic == "reefs"
    with pytest.raises(TypeError, match=r"^Tagged\(\) got an unexpected keyword argument 'topics'$"):
        Tagged(client=client, topics="reefs")


def test_without_a_client_or_environment_a_sandbox_is_used_and_said() -> None:
    code = (
        "from paperlens.integrations.langchain import PaperlensRetriever\n"
        "print(len(PaperlensRetriever(top_k=3).invoke('coral bleaching')))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERLENS_")}
    env["PYTHONPATH"] = str(PYTHON_DIR)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"
    assert "PAPERLENS_API_TOKEN and PAPERLENS_BASE_URL are not set: using a fresh local sandbox" in done.stderr


# -- tools -----------------------------------------------------------------------------------


def payload(answer: str) -> Any:
    """The JSON of a tool's text answer (between its untrusted-data markers)."""
    inside = answer.split("<untrusted-data>\n", 1)[1].rsplit("\n</untrusted-data>", 1)[0]
    return json.loads(inside)


def readable_texts(client: paperlens.Client, records: int = 40) -> dict[str, str]:
    """The texts of some search results, by doc_id (those the token may read)."""
    texts = {}
    for record in client.meta_search("coral", page_size=records).results:
        if record.doc_id:
            with contextlib.suppress(paperlens.PermissionDeniedError):
                texts[record.doc_id] = client.read_text(record.doc_id)
    return texts


def test_the_tools_are_the_default_agent_tools_with_their_schemas(sandbox: Sandbox) -> None:
    made = tools(sandbox_client(sandbox))
    expected = default_tools()
    assert [(t.name, t.description, t.args_schema) for t in made] == [
        (t.name, t.description, t.input_schema) for t in expected
    ]


async def test_search_papers_answers_the_hits_the_client_finds(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    search = {t.name: t for t in tools(client)}["search_papers"]
    for query in QUERIES:
        hits = client.agentic_search(query, top_k=5).to_dict()["hits"]
        for answer in (search.invoke({"query": query, "top_k": 5}), await search.ainvoke({"query": query, "top_k": 5})):
            found = payload(answer)
            keys = ("doc_id", "offset", "unique_id", "title", "score", "chunk")
            assert [{k: h[k] for k in keys} for h in found] == [{k: h[k] for k in keys} for h in hits]


async def test_read_paper_followed_by_its_offsets_gives_the_whole_text(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    read = {t.name: t for t in tools(client, max_chars=1000)}["read_paper"]
    for doc_id, whole in list(readable_texts(client).items())[:4]:
        for invoke in (read.invoke, read.ainvoke):
            pieces, offset = [], 0
            while True:
                answer = invoke({"doc_id": doc_id, "offset": offset})
                page = payload(await answer if inspect.isawaitable(answer) else answer)
                assert page["offset"] == offset and page["text_length"] == len(whole)
                pieces.append(page["text"])
                if "next_offset" not in page:
                    break
                offset = page["next_offset"]
            assert "".join(pieces) == whole and len(pieces) > 1


def test_get_figure_answers_the_image_the_client_reads(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    figure = {t.name: t for t in tools(client)}["get_figure"]
    name = next(name for text in readable_texts(client, 200).values() for name in figure_names(text))
    blocks = figure.invoke({"file_name": name})
    image = [b for b in blocks if b["type"] == "image"]
    assert len(image) == 1 and base64.b64decode(image[0]["base64"]) == client.resource(name).data
    assert image[0]["mime_type"] == "image/png"


def test_errors_are_the_tools_answers_without_the_token(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    made = {t.name: t for t in tools(client)}
    sandbox.clear_requests()
    answer = made["search_papers"].invoke({"query": "coral", "top_k": 500})
    assert answer.startswith("Invalid argument 'top_k'") and sandbox.requests() == []
    answer = made["read_paper"].invoke({"doc_id": "no-such-document"})
    assert answer.startswith("The service answered 400")
    assert sandbox.token not in answer


async def test_the_token_is_masked_in_every_answer_and_error_even_where_the_service_repeats_it(
    httpserver: HTTPServer,
) -> None:
    serve_the_token(httpserver)
    client = paperlens.Client(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None)
    made = {t.name: t for t in tools(client)}
    for name, arguments, _fails, pieces in TOKEN_CALLS:
        for answer in (made[name].invoke(arguments), await made[name].ainvoke(arguments)):
            assert TOKEN not in answer and all(piece in answer for piece in pieces), (name, answer)


async def test_continuations_come_from_the_tools_shared_memory_sync_and_async(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    references = [f"{r.title}. {r.publication_published_year}." for r in client.meta_search("memory").results[:8]]
    expected = [(r["status"], r["unique_id"]) for r in client.verify_citations(references).rows()]

    def verify() -> Any:  # the tool of a new set of tools (a new memory)
        return {t.name: t for t in tools(client, max_chars=1000)}["verify_citations"]

    async def call(invoke: Any, arguments: dict[str, Any]) -> tuple[list[Any], dict[str, Any] | None]:
        answer = invoke(arguments)
        answer = await answer if inspect.isawaitable(answer) else answer
        after = re.search(r"these: (\{.*\})$", answer.splitlines()[0])
        return payload(answer), json.loads(after.group(1)) if after else None

    for invoke in (verify().invoke, verify().ainvoke):
        sandbox.clear_requests()
        rows, after = await call(invoke, {"references": references})
        asked = len(sandbox.requests())
        assert asked and after is not None  # cut by max_chars
        while after is not None:
            more, after = await call(invoke, {"references": references, **after})
            rows += more
        assert len(sandbox.requests()) == asked
        assert [(row["status"], row.get("unique_id")) for row in rows] == expected
