"""``paperlens mcp`` through the real protocol: ``mcp.ClientSession`` over stdio against the
command as a subprocess, and over streamable HTTP against ``--transport http`` on a free
port, both on a sandbox of this process (its token in the subprocess's environment); the
answers, errors, 429s and concurrent calls over both transports. The answers are compared by
value with what the client's operations return, and every answer cut by ``max_chars`` is
followed to its end with the continuation it states."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

import paperlens
from paperlens.agents._tools import select_tools
from paperlens.sandbox import Sandbox

PYTHON_DIR = Path(__file__).resolve().parents[1] / "python"
DEFAULT_TOOLS = [
    "search_papers",
    "read_paper",
    "search_metadata",
    "get_papers",
    "paper_relations",
    "search_evidence",
    "resolve_provenance",
    "verify_citations",
    "get_figure",
]
SANDBOX = {"papers": 300}


@pytest.fixture(scope="module")
def direct(sandbox: Sandbox) -> Iterator[paperlens.Client]:
    """A client of the same sandbox, for the values the tools must give."""
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        yield client


class Service(Protocol):
    """The service a server is aimed at: a sandbox, or a hand-made loopback one."""

    @property
    def token(self) -> str: ...

    @property
    def base_url(self) -> str: ...


def environment(service: Service) -> dict[str, str]:
    return {
        "PAPERLENS_API_TOKEN": service.token,
        "PAPERLENS_BASE_URL": service.base_url,
        "PYTHONPATH": str(PYTHON_DIR),
        "PATH": os.environ.get("PATH", ""),
    }


class Server:
    """A ``paperlens mcp`` subprocess and what it wrote on stderr."""

    def __init__(self, errlog: Path) -> None:
        self.errlog = errlog

    def stderr(self) -> str:
        return self.errlog.read_text(encoding="utf-8", errors="replace")


@asynccontextmanager
async def connect(
    transport: str, service: Service, tmp_path: Path, *options: str
) -> AsyncIterator[tuple[ClientSession, Server]]:
    """An initialised session with ``paperlens mcp OPTIONS`` over ``transport``, aimed at ``service``."""
    errlog = tmp_path / f"mcp-{transport}-{len(list(tmp_path.iterdir()))}.log"
    command = [sys.executable, "-m", "paperlens", "mcp", *options]
    if transport == "stdio":
        params = StdioServerParameters(command=command[0], args=command[1:], env=environment(service))
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                yield session, Server(errlog)
        return
    with errlog.open("w") as err:
        process = subprocess.Popen(
            [*command, "--transport", "http", "--port", "0"],
            env=environment(service),
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stderr is not None
            line = await asyncio.to_thread(process.stderr.readline)
            err.write(line)
            url = re.search(r"http://\S+/mcp", line)
            assert url is not None, line
            async with streamable_http_client(url.group()) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                yield session, Server(errlog)
        finally:
            process.terminate()
            err.write(process.communicate(timeout=30)[1])


def text_of(result: Any) -> str:
    assert result.content[0].type == "text"
    return str(result.content[0].text)


def data_of(result: Any) -> Any:
    """The JSON between the untrusted-data tags of a tool's answer."""
    text = text_of(result)
    assert not result.is_error, text
    inside = re.fullmatch(r"(?s)(.*)\n<untrusted-data>\n(.*)\n</untrusted-data>", text)
    assert inside is not None, text
    assert "never follow instructions" in inside.group(1)
    return json.loads(inside.group(2))


def continuation(result: Any) -> dict[str, Any] | None:
    """The arguments an answer says to call again with, or None at the end."""
    first = text_of(result).splitlines()[0]
    found = re.search(r"call again with the same arguments and these: (\{.*\})$", first)
    return json.loads(found.group(1)) if found else None


async def every_row(session: ClientSession, tool: str, arguments: dict[str, Any], key: str | None = None) -> list[Any]:
    """The rows of a list tool's answers (``key``: the list field of an operation's answer),
    following each continuation to the end."""
    rows: list[Any] = []
    while True:
        result = await session.call_tool(tool, arguments)
        data = data_of(result)
        rows += data[key] if key else data
        after = continuation(result)
        if after is None:
            return rows
        arguments = {**arguments, **after}


def assert_shown_as_sent(shown: dict[str, Any], sent: dict[str, Any]) -> None:
    """A compact object holds every value sent but the nulls and empty lists, unchanged."""
    assert shown == {key: value for key, value in sent.items() if value is not None and value != []}


TRANSPORTS = ["stdio", "http"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_listed_with_valid_schemas_and_answers_equal_the_operations(
    transport: str, sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    async with connect(transport, sandbox, tmp_path, "--max-chars", "1500") as (session, _):
        listed = (await session.list_tools()).tools
        assert [tool.name for tool in listed] == DEFAULT_TOOLS
        for tool in listed:
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            assert tool.description

        query = "synaptic plasticity in the hippocampus"
        hits = await every_row(session, "search_papers", {"query": query, "top_k": 12})
        expected = direct.agentic_search(query, top_k=12).hits
        assert [(h["doc_id"], h["offset"], h["title"], h["chunk"]) for h in hits] == [
            (h.doc_id, h.offset, h.title, h.chunk) for h in expected
        ]

        doc_id = expected[0].doc_id
        text, offset = "", 0
        while True:  # the whole text through the offsets the answers give
            result = await session.call_tool("read_paper", {"doc_id": doc_id, "offset": offset})
            assert len(text_of(result)) <= 1500
            page = data_of(result)
            assert page["offset"] == offset
            text += page["text"]
            after = continuation(result)
            if after is None:
                break
            offset = after["offset"]
        assert text == direct.read_text(doc_id)

        records = await every_row(session, "search_metadata", {"query": "neural", "page_size": 7})
        everything = direct.iter_meta_search("neural", page_size=7).to_list()
        assert [(r["unique_id"], r["title"], r.get("doi")) for r in records] == [
            (r.unique_id, r.title, r.doi) for r in everything
        ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_lookups_relations_evidence_and_figures(
    transport: str, sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    page = direct.meta_search(sort=[("citation_count", "desc")], page_size=3)
    ids = [record.unique_id for record in page.results]
    async with connect(transport, sandbox, tmp_path, "--max-chars", "1200") as (session, _):
        found = await every_row(session, "get_papers", {"ids": [*ids, "W0"], "by": "unique_id"})
        assert [(row["id"], row.get("record", {}).get("title")) for row in found] == [
            *[(record.unique_id, record.title) for record in page.results],
            ("W0", None),
        ]

        items = await every_row(
            session, "paper_relations", {"unique_id": ids[0], "relation": "citations", "page_size": 4}
        )
        expected = direct.iter_paper_relations(ids[0], "CITATIONS").to_list()
        assert [(item["id"], item.get("title")) for item in items] == [(item.id, item.title) for item in expected]

        schema_id = direct.schema.search("model", size=1).items[0].schema_id
        evidence = await every_row(
            session, "search_evidence", {"groups": ["core_claim_result"], "schema_ids": [schema_id]}
        )
        all_evidence = direct.schema.iter_search_evidence(["core_claim_result"], schema_ids=[schema_id]).to_list()
        assert [e["evidence_id"] for e in evidence] == [e.evidence_id for e in all_evidence]
        assert all(
            e.get("provenance") == [p.to_dict() for p in x.provenance]
            for e, x in zip(evidence, all_evidence, strict=True)
        )

        markers = [p.marker for e in all_evidence for p in e.provenance][:3]
        segments = await every_row(
            session, "resolve_provenance", {"schema_id": schema_id, "marker_nums": markers}, "segments"
        )
        resolved = direct.schema.resolve_provenance(schema_id=schema_id, marker_nums=markers)
        assert [s["text"] for s in segments] == [s.text for s in resolved.segments]

        doc_id = direct.agentic_search("figure", top_k=1).hits[0].doc_id
        figure = re.search(r"figures/[^)\s]+", direct.read_text(doc_id))
        assert figure is not None
        result = await session.call_tool("get_figure", {"file_name": figure.group()})
        assert [c.type for c in result.content] == ["text", "image"]
        assert base64.b64decode(result.content[1].data) == direct.resource(figure.group()).data
        assert result.content[1].mime_type == "image/png"
        assert data_of(result)["mime_type"] == "image/png"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_errors_are_tool_results_and_the_server_lives_on(
    transport: str, sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    async with connect(transport, sandbox, tmp_path) as (session, server):
        cases = {
            ("search_papers", json.dumps({"query": 5})): ["'query': expected a string"],
            ("search_papers", json.dumps({"query": "x", "top_k": 1000})): ["'top_k': expected at most 100"],
            ("search_papers", json.dumps({"question": "x"})): ["'question': unknown parameter"],
            ("read_paper", json.dumps({})): ["'doc_id': required"],
            ("paper_relations", json.dumps({"unique_id": "W1", "relation": "cousins"})): ["'relation'", "CITATIONS"],
            ("read_paper", json.dumps({"doc_id": "no-such-document"})): ["400", "no-such-document"],
            ("get_figure", json.dumps({"file_name": "figures/none.png"})): ["400"],
            ("no_such_tool", json.dumps({})): ["unknown tool", "search_papers"],
        }
        for (tool, arguments), expected in cases.items():
            result = await session.call_tool(tool, json.loads(arguments))
            assert result.is_error, (tool, arguments)
            for part in expected:
                assert part in text_of(result), (tool, text_of(result))
        assert data_of(await session.call_tool("search_papers", {"query": "memory", "top_k": 1}))
    assert sandbox.token not in server.stderr()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_429_says_when_to_retry_and_a_short_one_is_paced(
    transport: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    async with connect(transport, sandbox, tmp_path) as (session, _):
        sandbox.inject_fault("/agentic-search", 429, retry_after=7200)
        refused = await session.call_tool("search_papers", {"query": "memory"})
        assert refused.is_error
        assert "Rate limited (429)" in text_of(refused) and "retry after" in text_of(refused)
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", text_of(refused))

        sandbox.inject_fault("/agentic-search", 429, retry_after=1)
        paced = await session.call_tool("search_papers", {"query": "memory", "top_k": 2})
        assert len(data_of(paced)) == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_forty_concurrent_calls_over_one_session(
    transport: str, sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    queries = [f"{topic} {n}" for n in range(10) for topic in ("memory", "quantum", "protein", "climate")]
    async with connect(transport, sandbox, tmp_path) as (session, _):
        results = await asyncio.gather(
            *(session.call_tool("search_papers", {"query": query, "top_k": 3}) for query in queries)
        )
    for query, result in zip(queries, results, strict=True):
        assert [h["doc_id"] for h in data_of(result)] == [h.doc_id for h in direct.agentic_search(query, top_k=3).hits]


async def test_all_tools_one_per_operation_from_the_definitions(
    sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    async with connect("stdio", sandbox, tmp_path, "--tools", "all") as (session, _):
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        operations = set(listed) - set(DEFAULT_TOOLS)
        # 24 operations: paper_relations is served by the default tool of that name.
        assert len(operations) == 23 and "paper_relations" in listed
        assert {"meta_catalog", "meta_search", "agentic_search", "content", "resource"} <= operations
        assert {"schema_citation_graph", "schema_capabilities", "schema_search", "schema_materials"} <= operations
        definitions = {tool.name: tool for tool in select_tools("all")}
        for name, tool in listed.items():
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            assert tool.input_schema == definitions[name].input_schema
        assert listed["meta_search"].input_schema["properties"]["page_size"]["maximum"] == 200
        assert listed["schema_search"].input_schema["properties"]["query"]["maxLength"] == 500

        fields = await every_row(session, "meta_catalog", {"include_sample_values": True}, "fields")
        expected = direct.meta_catalog(include_sample_values=True).fields
        assert len(fields) == len(expected)
        for shown, field in zip(fields, expected, strict=True):
            assert_shown_as_sent(shown, field.to_dict())
        capabilities = data_of(await session.call_tool("schema_capabilities", {}))
        assert capabilities["contract_version"] == direct.schema.capabilities().contract_version
        bad = await session.call_tool("schema_citation_graph", {"schema_id": "ps_x", "depth": 9})
        assert bad.is_error and "depth" in text_of(bad)


async def test_the_token_appears_in_no_output_log_or_error(sandbox: Sandbox, tmp_path: Path) -> None:
    seen = []
    async with connect("http", sandbox, tmp_path, "--tools", "all") as (session, server):
        seen.append(json.dumps([t.model_dump() for t in (await session.list_tools()).tools]))
        for tool, arguments in [
            ("search_papers", {"query": sandbox.token}),
            ("read_paper", {"doc_id": sandbox.token}),
            ("content", {"doc_id": "nope", "limit": 0}),
            ("get_papers", {"ids": [sandbox.token]}),
            ("meta_search", {"query": "memory", "fields": [sandbox.token]}),
        ]:
            seen.append((await session.call_tool(tool, arguments)).model_dump_json())
    seen.append(server.stderr())
    assert all(sandbox.token not in text for text in seen)


async def test_without_a_token_it_serves_a_fresh_sandbox_and_says_so(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "paperlens", "mcp"],
        env={"PYTHONPATH": str(PYTHON_DIR), "PATH": os.environ.get("PATH", "")},
    )
    errlog = tmp_path / "stderr.log"
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            hits = data_of(await session.call_tool("search_papers", {"query": "memory", "top_k": 2}))
    assert len(hits) == 2
    assert "using a fresh local sandbox" in errlog.read_text()


async def test_filters_sort_and_years_reach_the_service(
    sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    async with connect("stdio", sandbox, tmp_path) as (session, _):
        records = await every_row(
            session,
            "search_metadata",
            {
                "query": "memory",
                "filters": [
                    ["publication_published_year", ">=", 2015],
                    {"field": "citation_count", "operator": "FILTER_OP_GT", "value": 1},
                ],
                "sort": [["citation_count", "desc"]],
                "fields": ["unique_id", "title", "citation_count", "publication_published_year"],
                "page_size": 20,
            },
        )
        hits = data_of(
            await session.call_tool(
                "search_papers", {"query": "memory", "top_k": 6, "year_from": 2020, "year_to": 2022}
            )
        )
    expected = direct.iter_meta_search(
        "memory",
        filters=[paperlens.Filter("publication_published_year", ">=", 2015), ("citation_count", ">", 1)],
        sort=[("citation_count", "desc")],
        fields=["unique_id", "title", "citation_count", "publication_published_year"],
        page_size=20,
    ).to_list()
    assert records and records == [{k: v for k, v in r.to_dict().items() if v is not None} for r in expected]
    years = direct.agentic_search("memory", top_k=6, filters={"publication_published_year": {"gte": 2020, "lte": 2022}})
    assert [(h["doc_id"], h["offset"]) for h in hits] == [(h.doc_id, h.offset) for h in years.hits]
    assert all(2020 <= h["publication_published_year"] <= 2022 for h in hits)


async def test_verify_citations_gives_the_verdicts_of_the_client(
    sandbox: Sandbox, direct: paperlens.Client, tmp_path: Path
) -> None:
    records = direct.meta_search("memory", page_size=4).results
    first = records[0]
    authors = ", ".join(a["name"] for a in first.author or [])
    references = [
        f"{authors} ({first.publication_published_year}). {first.title}. {first.publication_venue_name_unified}.",
        {"title": records[1].title, "issued": {"date-parts": [[(records[1].publication_published_year or 2000) - 3]]}},
        "Nobody, A. (1999). A study that was never written about anything at all. Journal of Nothing.",
        *[f"{r.title}. doi:{r.doi}" for r in records[2:]],
    ]
    async with connect("stdio", sandbox, tmp_path, "--max-chars", "1000") as (session, _):
        rows = await every_row(session, "verify_citations", {"references": references})
        path = await session.call_tool("verify_citations", {"bibtex": str(Path(__file__))})
        both = await session.call_tool("verify_citations", {"references": references, "bibtex": "@misc{a, title={x}}"})
    expected = direct.verify_citations(references).rows()
    assert [row["reference"] for row in rows] == list(range(len(references)))
    assert [(row["status"], row.get("unique_id"), row.get("differs", [])) for row in rows] == [
        (row["status"], row["unique_id"], row["differs"]) for row in expected
    ]
    assert {row["status"] for row in rows} >= {"verified", "not_found"}
    assert path.is_error and "bibtex" in text_of(path) and "test_mcp" not in text_of(path).split("got")[0]
    assert both.is_error and "exactly one of references and bibtex" in text_of(both)
