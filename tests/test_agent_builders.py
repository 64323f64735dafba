"""Every builder of agent tools refuses a bad setting when it is called, before any tool runs and
before any request: ``paperlens.integrations.langchain.tools`` and ``paperlens.mcp.server``
(``max_chars`` by the shared check, ``client``) and ``paperlens.mcp.http_app`` (``auth_token``,
``allowed_hosts``); the retrievers refuse theirs as ``client.agentic_search`` does (the
core's rules and messages), and they and the reader before making a default client.
With the real LangChain, LlamaIndex and MCP packages; a good ``max_chars`` still builds tools
whose answers fit it and show what the client finds. (LlamaIndex's adapters build no tools:
they take no ``max_chars``.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client as MCPClient
from test_langchain import payload
from test_mcp import data_of, text_of

import paperlens
import paperlens.mcp
from paperlens.integrations import langchain, llamaindex
from paperlens.sandbox import Sandbox
from tests.agent_frameworks import (
    BAD_RETRIEVER_SETTINGS,
    BAD_SEARCH_SETTINGS,
    GOOD_SEARCH_BODY,
    GOOD_SEARCH_SETTINGS,
    QUERIES,
)
from tests.fixtures import sandbox_client
from tests.test_pandas import PYTHON_DIR

BAD_MAX_CHARS = [500, True, "2000", 1000.5]
BUILDERS: dict[str, Callable[..., Any]] = {
    "langchain.tools": lambda client, **options: langchain.tools(client, **options),
    "mcp.server": lambda client, **options: paperlens.mcp.server(client, **options),
}
#: Each framework's retriever: how it is made, and the metadata of what it finds for a query.
RETRIEVERS: dict[str, tuple[Callable[..., Any], Callable[[Any, str], list[dict[str, Any]]]]] = {
    "langchain": (langchain.PaperlensRetriever, lambda retriever, query: [d.metadata for d in retriever.invoke(query)]),
    "llamaindex": (
        llamaindex.PaperlensRetriever,
        lambda retriever, query: [n.node.metadata for n in retriever.retrieve(query)],
    ),
}
QUERY = "coral bleaching under heat stress"


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("max_chars", BAD_MAX_CHARS, ids=repr)
def test_a_bad_max_chars_is_refused_when_the_tools_are_built(sandbox: Sandbox, builder: str, max_chars: Any) -> None:
    client = sandbox_client(sandbox)
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as raised:
        BUILDERS[builder](client, max_chars=max_chars)
    assert raised.value.param == "max_chars"
    assert str(raised.value) == f"max_chars: must be an integer >= 1000 (got {max_chars!r})"
    assert sandbox.requests() == []


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("client", ["http://127.0.0.1", object(), 42], ids=["url", "object", "int"])
def test_a_client_of_another_kind_is_refused_when_the_tools_are_built(builder: str, client: Any) -> None:
    with pytest.raises(paperlens.ValidationError) as raised:
        BUILDERS[builder](client)
    assert raised.value.param == "client"
    assert str(raised.value).startswith("client: must be a paperlens.Client")


def test_a_bad_setting_without_a_client_starts_no_sandbox() -> None:
    """Refused before the default client is made: no sandbox is started and said."""
    code = (
        "import paperlens\n"
        "from paperlens.integrations import langchain, llamaindex\n"
        "for make in (\n"
        "    lambda: langchain.tools(max_chars=500),\n"
        "    lambda: langchain.PaperlensRetriever(top_k=0),\n"
        "    lambda: llamaindex.PaperlensRetriever(sub_queries=9),\n"
        "    lambda: llamaindex.PaperlensReader(metadata='no'),\n"
        "):\n"
        "    try:\n"
        "        make()\n"
        "    except paperlens.ValidationError as error:\n"
        "        print(error.param)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERLENS_")}
    env["PYTHONPATH"] = str(PYTHON_DIR)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "max_chars\ntop_k\nsub_queries\nmetadata\n", "")


@pytest.mark.parametrize("framework", RETRIEVERS)
@pytest.mark.parametrize(("settings", "message"), BAD_RETRIEVER_SETTINGS + BAD_SEARCH_SETTINGS, ids=repr)
def test_a_bad_setting_is_refused_when_the_retriever_is_made_as_the_client_refuses_it(
    sandbox: Sandbox, framework: str, settings: dict[str, Any], message: str
) -> None:
    client = sandbox_client(sandbox)
    make, _ = RETRIEVERS[framework]
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as raised:
        make(**{"client": client, **settings})
    assert (str(raised.value), raised.value.param) == (message, message.split(":")[0])
    if "client" not in settings:
        with pytest.raises(paperlens.ValidationError) as raised:
            client.agentic_search(QUERY, **settings)
        assert str(raised.value) == message
    assert sandbox.requests() == []


@pytest.mark.parametrize("framework", RETRIEVERS)
def test_a_client_that_does_not_validate_sends_the_settings_as_given(sandbox: Sandbox, framework: str) -> None:
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, validate=False, rate_limits=None)
    make, search = RETRIEVERS[framework]
    sandbox.clear_requests()
    retriever = make(client=client, top_k=0, sub_queries=9)
    with pytest.raises(paperlens.BadRequestError):
        search(retriever, QUERY)
    assert [(r.json()["top_k"], r.json()["sub_queries"]) for r in sandbox.requests()] == [(0, 9)]


@pytest.mark.parametrize("framework", RETRIEVERS)
def test_the_search_settings_are_sent_with_each_query(sandbox: Sandbox, framework: str) -> None:
    make, search = RETRIEVERS[framework]
    retriever = make(client=sandbox_client(sandbox), **GOOD_SEARCH_SETTINGS)
    sandbox.clear_requests()
    found = [search(retriever, query) for query in QUERIES[:2]]
    sent = [r.json() for r in sandbox.requests() if r.path == "/agentic-search"]
    assert sent == [{"query": q, **GOOD_SEARCH_BODY} for q in QUERIES[:2]]
    assert all(metadata["year"] >= 2020 for hits in found for metadata in hits) and any(found)


async def test_a_good_max_chars_builds_tools_whose_answers_fit_it(sandbox: Sandbox) -> None:
    client = sandbox_client(sandbox)
    hits = client.agentic_search(QUERY, top_k=20).to_dict()["hits"]
    search = {tool.name: tool for tool in langchain.tools(client, max_chars=1000)}["search_papers"]
    by_langchain = search.invoke({"query": QUERY, "top_k": 20})
    async with MCPClient(paperlens.mcp.server(client, max_chars=1000)) as session:
        by_mcp = await session.call_tool("search_papers", {"query": QUERY, "top_k": 20})
    for text, shown in ((by_langchain, payload(by_langchain)), (text_of(by_mcp), data_of(by_mcp))):
        assert len(text) <= 1000 and 0 < len(shown) < len(hits)  # cut by max_chars, saying how to go on
        assert [(h["doc_id"], h["offset"], h["score"]) for h in shown] == [
            (h["doc_id"], h["offset"], h["score"]) for h in hits[: len(shown)]
        ]


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"auth_token": ""}, "auth_token"),
        ({"auth_token": "  "}, "auth_token"),
        ({"auth_token": 12345678}, "auth_token"),
        ({"allowed_hosts": "example.org"}, "allowed_hosts"),
        ({"allowed_hosts": ["papers.example", "papers.example:8080"]}, "allowed_hosts[1]"),
        ({"allowed_hosts": ["https://papers.example"]}, "allowed_hosts[0]"),
        ({"allowed_hosts": [""]}, "allowed_hosts[0]"),
        ({"allowed_hosts": ["evil.example papers.example"]}, "allowed_hosts[0]"),
        ({"allowed_hosts": [b"papers.example"]}, "allowed_hosts[0]"),
        ({"allowed_hosts": [None]}, "allowed_hosts[0]"),
        ({"allowed_hosts": ["-bad.example"]}, "allowed_hosts[0]"),
        ({"allowed_hosts": ["fe80::1%eth0"]}, "allowed_hosts[0]"),
        ({"allowed_hosts": b"papers.example"}, "allowed_hosts"),
        ({"allowed_hosts": 42}, "allowed_hosts"),
    ],
)
def test_http_app_refuses_bad_settings_when_built(sandbox: Sandbox, options: dict[str, Any], param: str) -> None:
    server = paperlens.mcp.server(sandbox_client(sandbox))
    with pytest.raises(paperlens.ValidationError) as raised:
        paperlens.mcp.http_app(server, host="127.0.0.1", **options)
    assert raised.value.param == param


@pytest.mark.parametrize(
    ("allowed_hosts", "said"),
    [
        ("example.org", "must be a list of host names or addresses, not one string (got 'example.org')"),
        (42, "must be a list of host names or addresses (got 'int')"),
    ],
)
def test_http_app_says_why_allowed_hosts_is_no_list(sandbox: Sandbox, allowed_hosts: Any, said: str) -> None:
    server = paperlens.mcp.server(sandbox_client(sandbox))
    with pytest.raises(paperlens.ValidationError) as raised:
        paperlens.mcp.http_app(server, host="127.0.0.1", allowed_hosts=allowed_hosts)
    assert str(raised.value) == f"allowed_hosts: {said}"


@pytest.mark.parametrize("auth_token", ["Q", "fifteen-chars-x", "é" * 15])
def test_http_app_refuses_a_token_shorter_than_16_characters_without_showing_it(
    sandbox: Sandbox, auth_token: str
) -> None:
    server = paperlens.mcp.server(sandbox_client(sandbox))
    with pytest.raises(paperlens.ValidationError) as raised:
        paperlens.mcp.http_app(server, host="127.0.0.1", auth_token=auth_token)
    assert raised.value.param == "auth_token"
    assert str(raised.value) == f"auth_token: must be at least 16 characters long (got {len(auth_token)})"
    assert auth_token not in str(raised.value)


@pytest.mark.parametrize(
    "allowed_hosts", [["papers.example", "papers.example."], ["10.0.0.7", "::1", "[fe80::1]"], ["my_host-1"], ()]
)
def test_http_app_takes_host_names_and_addresses(sandbox: Sandbox, allowed_hosts: list[str]) -> None:
    server = paperlens.mcp.server(sandbox_client(sandbox))
    assert callable(paperlens.mcp.http_app(server, host="127.0.0.1", allowed_hosts=allowed_hosts))


def test_http_app_takes_a_token_of_16_characters(sandbox: Sandbox) -> None:
    server = paperlens.mcp.server(sandbox_client(sandbox))
    assert callable(paperlens.mcp.http_app(server, host="127.0.0.1", auth_token="sixteen-chars-xy"))
