"""paperlens.integrations.llamaindex through LlamaIndex's own entry points (``retrieve``,
``aretrieve``, ``load_data``, ``aload_data``) against the sandbox, compared with what the
client returns."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.schema import NodeRelationship
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.integrations.llamaindex import PaperlensReader, PaperlensRetriever
from paperlens.sandbox import Sandbox
from tests.agent_frameworks import (
    QUERIES,
    expected_metadata,
    sparse_hits,
)
from tests.fixtures import sandbox_client


def node_values(found: list[Any]) -> list[tuple[Any, ...]]:
    return [(n.node.node_id, n.node.text, n.node.metadata, n.score) for n in found]


def hit_values(hits: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(h["chunk_id"], h["chunk"], expected_metadata(h), h["score"]) for h in hits]


@pytest.mark.parametrize("query", QUERIES)
def test_retrieve_gives_the_hits_as_scored_nodes_located_in_their_texts(sandbox: Sandbox, query: str) -> None:
    client = sandbox_client(sandbox)
    found = PaperlensRetriever(client, top_k=30).retrieve(query)
    hits = client.agentic_search(query, top_k=30).to_dict()["hits"]
    assert found and node_values(found) == hit_values(hits)
    for scored, hit in zip(found, hits, strict=True):
        node = scored.node
        assert node.relationships[NodeRelationship.SOURCE].node_id == hit["doc_id"]
        # The span is in code points, which are Python string indexes: it cuts the chunk out.
        assert client.read_text(hit["doc_id"])[node.start_char_idx : node.end_char_idx] == hit["chunk"]


async def test_aretrieve_sends_through_the_async_client_of_either_kind(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    for given in (client, aclient):
        retriever = PaperlensRetriever(given, top_k=20, retrieval="es")
        for query in QUERIES:
            found = await retriever.aretrieve(query)
            assert node_values(found) == hit_values(
                client.agentic_search(query, top_k=20, retrieval="es").to_dict()["hits"]
            )


def test_hits_without_a_location_give_nodes_without_one(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/agentic-search", method="POST").respond_with_json(sparse_hits())
    client = paperlens.Client(api_token="t", base_url=httpserver.url_for(""), rate_limits=None)
    found = PaperlensRetriever(client).retrieve("anything")
    hits = client.agentic_search("anything").to_dict()["hits"]
    assert [(n.node.text, n.node.metadata, n.score) for n in found] == [
        (h["chunk"], expected_metadata(h), h.get("score")) for h in hits
    ]
    assert [(n.node.start_char_idx, n.node.end_char_idx) for n in found] == [(None, None), (0, 16), (None, None)]
    assert [NodeRelationship.SOURCE in n.node.relationships for n in found] == [False, True, False]


def some_doc_ids(client: paperlens.Client, n: int) -> list[str]:
    records = client.meta_search("coral", page_size=200).results
    return [r.doc_id for r in records if r.doc_id][:n]


def test_load_data_reads_each_text_whole_with_its_record(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    doc_ids = some_doc_ids(client, 40)
    documents = PaperlensReader(client).load_data([*doc_ids, doc_ids[0]])  # a repeat is read once
    assert [d.id_ for d in documents] == doc_ids
    records = {
        r.doc_id: r
        for r in client.meta_search(filters=[paperlens.Filter("doc_id", "in", doc_ids)], page_size=200).results
    }
    for document in documents:
        doc_id = document.id_
        assert document.text == client.read_text(doc_id) == client.content(doc_id).text
        record = records[doc_id]
        assert document.metadata == {
            "doc_id": doc_id,
            "unique_id": record.unique_id,
            "title": record.title,
            "year": record.publication_published_year,
        }
    assert any(len(d.text) != len(d.text.encode("utf-8")) for d in documents)  # non-ASCII texts among them


async def test_aload_data_equals_load_data(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    doc_ids = some_doc_ids(client, 12)
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    expected = [(d.id_, d.text, d.metadata) for d in PaperlensReader(client).load_data(doc_ids)]
    for reader in (PaperlensReader(client), PaperlensReader(aclient)):
        assert [(d.id_, d.text, d.metadata) for d in await reader.aload_data(doc_ids)] == expected


def test_without_metadata_only_the_texts_are_read(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    doc_ids = some_doc_ids(client, 3)
    sandbox.clear_requests()
    documents = PaperlensReader(client, metadata=False).load_data(doc_ids)
    assert [d.metadata for d in documents] == [{"doc_id": doc_id} for doc_id in doc_ids]
    assert {r.path for r in sandbox.requests()} == {"/content"}


def test_bad_arguments_are_refused_before_any_request(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match="doc_ids: must be a list of doc_id strings, not one string"):
        PaperlensReader(client).load_data("abc")  # type: ignore[arg-type]
    with pytest.raises(paperlens.ValidationError, match=r"doc_ids\[1\]: must not be empty"):
        PaperlensReader(client).load_data(["a" * 64, " "])
    with pytest.raises(paperlens.ValidationError, match="top_k: must be between 1 and 100"):
        PaperlensRetriever(client, top_k=101)
    assert sandbox.requests() == []


@pytest.mark.parametrize("metadata", [None, 1, "no", [], 0.0], ids=repr)
def test_a_metadata_that_is_no_bool_is_refused_when_the_reader_is_made(sandbox: Sandbox, metadata: Any) -> None:
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as raised:
        PaperlensReader(sandbox_client(sandbox), metadata=metadata)
    assert str(raised.value) == f"metadata: must be True or False (got {metadata!r})"
    assert raised.value.param == "metadata" and sandbox.requests() == []
