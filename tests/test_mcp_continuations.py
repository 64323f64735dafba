"""Continuations from memory, through the real protocol: following every continuation of
``search_metadata``, ``search_papers``, ``get_papers`` and ``verify_citations`` sends no
further upstream request (each service page is asked for once, counted on the sandbox's
request log), gives every row the client's operations give, in order, and the same token
gives the same answer again; a dropped answer's token says so and how to start again; the
memory is bounded in bytes and time, oldest first (:class:`~paperlens.agents._memory.Memory`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client as MCPClient
from mcp import ClientSession
from test_mcp import TRANSPORTS, connect, continuation, data_of, text_of

import paperlens
import paperlens.mcp
from paperlens.agents._memory import Listing, Memory, Target
from paperlens.errors import ValidationError
from paperlens.sandbox import Sandbox

SANDBOX = {"papers": 300}
TOKEN_SHAPE = re.compile(r"^c[0-9a-f]{31}$")


async def follow(session: ClientSession, tool: str, arguments: dict[str, Any], key: str | None = None) -> list[Any]:
    """Every row of a list answer, following each continuation (which must be a token of the
    server's own) to the end; each answer of a continuation is asked for twice and must be
    the same both times."""
    rows: list[Any] = []
    result = await session.call_tool(tool, arguments)
    while True:
        data = data_of(result)
        rows += data[key] if key else data
        after = continuation(result)
        if after is None:
            return rows
        assert list(after) == ["continuation"] and TOKEN_SHAPE.match(after["continuation"]), after
        result = await session.call_tool(tool, {**arguments, **after})
        again = await session.call_tool(tool, {**arguments, **after})
        assert text_of(again) == text_of(result)


def sent(sandbox: Sandbox) -> list[tuple[str, bytes]]:
    return [(request.path, request.body) for request in sandbox.requests()]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_following_every_continuation_sends_no_request_again(
    transport: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as direct:
        filters = [("publication_published_year", ">=", 2000)]
        sandbox.clear_requests()
        records = direct.iter_meta_search(filters=filters, page_size=40).to_list()
        pages = len(sandbox.requests())
        hits = direct.agentic_search("memory consolidation", top_k=30).hits
        chosen = direct.meta_search(sort=[("citation_count", "desc")], page_size=30).results
        references = [f"{r.title}. {r.publication_published_year}." for r in chosen[:10]]
        verdicts = direct.verify_citations(references).rows()
    assert pages >= 3 and len(records) > 2 * 40

    ids: list[str] = [r.unique_id for r in chosen[:20] if r.unique_id]
    dois = [r.doi for r in chosen if r.doi][:6]
    ids += [dois[0], f"doi:{dois[1].upper()}", f"https://doi.org/{dois[2]}", *dois[3:]]
    async with connect(transport, sandbox, tmp_path, "--max-chars", "1500") as (session, _):
        sandbox.clear_requests()
        shown = await follow(session, "search_metadata", {"filters": [list(f) for f in filters], "page_size": 40})
        assert len(sandbox.requests()) == pages  # each page once, however many pieces it took
        assert [(r["unique_id"], r["title"]) for r in shown] == [(r.unique_id, r.title) for r in records]

        for tool, arguments, key, expected in [
            (
                "search_papers",
                {"query": "memory consolidation", "top_k": 30},
                None,
                [(h.doc_id, h.chunk) for h in hits],
            ),
            ("get_papers", {"ids": ids}, None, None),
            ("verify_citations", {"references": references}, None, [(v["status"], v["unique_id"]) for v in verdicts]),
        ]:
            sandbox.clear_requests()
            first = await session.call_tool(tool, arguments)
            asked = sent(sandbox)
            assert asked and continuation(first) is not None, tool  # cut by max_chars
            rows = await follow(session, tool, arguments, key)
            assert sent(sandbox) == asked, tool  # nothing asked again
            if tool == "search_papers":
                assert [(h["doc_id"], h["chunk"]) for h in rows] == expected
            elif tool == "verify_citations":
                assert [(v["status"], v.get("unique_id")) for v in rows] == expected
            else:
                assert [row["id"] for row in rows] == ids
                assert [row["record"]["unique_id"] for row in rows] == [
                    *[r.unique_id for r in chosen[:20]],
                    *[next(r.unique_id for r in chosen if r.doi == doi) for doi in dois],
                ]
                assert [row["by"] for row in rows] == ["unique_id"] * 20 + ["doi"] * len(dois)
                assert {r.path for r in sandbox.requests()} == {"/meta-search"} and len(asked) == 2


async def test_a_dropped_answer_says_how_to_start_again_and_sends_nothing(sandbox: Sandbox) -> None:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        server = paperlens.mcp.server(client, max_chars=1000, memory_bytes=1)  # keeps the newest answer only
        async with MCPClient(server) as session:
            first = await session.call_tool("search_papers", {"query": "sleep", "top_k": 20})
            after = continuation(first)
            assert after is not None
            await session.call_tool("search_papers", {"query": "coral", "top_k": 20})
            sandbox.clear_requests()
            expired = await session.call_tool("search_papers", {"query": "sleep", "top_k": 20, **after})
            wrong_tool = await session.call_tool("get_papers", {"ids": ["W1"], **after})
            made_up = await session.call_tool("search_papers", {"query": "sleep", "continuation": "c" + "0" * 31})
    assert sandbox.requests() == []
    assert expired.is_error and "expired" in text_of(expired)
    assert "call search_papers again without continuation to start again" in text_of(expired)
    assert wrong_tool.is_error and "continuation" in text_of(wrong_tool)
    assert made_up.is_error and "expired or is unknown" in text_of(made_up)


async def test_sessions_keep_their_own_answers(sandbox: Sandbox) -> None:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        server = paperlens.mcp.server(client, max_chars=1000)
        async with MCPClient(server) as one:
            after = continuation(await one.call_tool("search_papers", {"query": "sleep", "top_k": 20}))
            assert after is not None
            assert data_of(await one.call_tool("search_papers", {"query": "sleep", **after}))
        async with MCPClient(server) as other:
            refused = await other.call_tool("search_papers", {"query": "sleep", **after})
    assert refused.is_error and "expired or is unknown" in text_of(refused)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def listing(n: int) -> Listing:
    return Listing("rows", [f"row {n} " + "x" * 90])


def test_memory_is_bounded_in_bytes_and_time_oldest_first() -> None:
    clock = Clock()
    memory = Memory(max_bytes=350, ttl=60.0, clock=clock)
    for n in range(5):
        clock.now = n
        memory.put(f"k{n}", listing(n))
        memory.offer(f"k{n}", Target("t", {"n": n}, {}, 1))
    assert [memory.get(f"k{n}") for n in range(5)] == [None, None, listing(2), listing(3), listing(4)]
    assert memory.size <= 350
    assert memory.resolve("t", memory.token(Target("t", {"n": 4}, {}, 1))) == Target("t", {"n": 4}, {}, 1)
    with pytest.raises(ValidationError) as dropped:
        memory.resolve("t", memory.token(Target("t", {"n": 0}, {}, 1)))
    assert dropped.value.param == "continuation" and "start again" in str(dropped.value)

    clock.now = 62.5  # k2 is older than 60 s
    assert memory.get("k2") is None and memory.get("k3") == listing(3)
    big = Listing("rows", ["y" * 1000])
    memory.put("big", big)  # the newest answer is kept whole, the others go
    assert memory.get("big") == big and memory.get("k4") is None
    assert memory.token(Target("t", {"a": 1}, {}, 3)) == memory.token(Target("t", {"a": 1}, {}, 3))
    assert memory.token(Target("t", {"a": 1}, {}, 3)) != Memory().token(Target("t", {"a": 1}, {}, 3))
