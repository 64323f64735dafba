"""Workflows written once as plans, run by the sync and the async client alike."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.machinery._operation import Call, Plan, workflow

from fixtures import metadata_record


def titles_then_fallback(self: Any, queries: list[str]) -> Plan[list[str]]:
    """Asks for one page per query; a failed query is answered by the plan itself."""
    titles = []
    for query in queries:
        try:
            page = yield Call("meta_search", (query,), {"page_size": 1})
        except paperlens.NotFoundError as error:
            titles.append(f"missing: {error.status}")
        else:
            titles.append(page.results[0].title)
    return titles


class Probe:
    titles = workflow(titles_then_fallback)


class SyncProbe(Probe, paperlens.Client):
    pass


class AsyncProbe(Probe, paperlens.AsyncClient):
    pass


def _serve(httpserver: HTTPServer) -> None:
    def answer(request: Any) -> Any:
        from werkzeug import Response

        query = json.loads(request.get_data())["query"]
        if query == "gone":
            body = {"error": {"code": "NOT_FOUND", "message": "no such thing"}}
            return Response(json.dumps(body), status=404, content_type="application/json")
        record = {**metadata_record(0), "title": f"about {query}"}
        page = {"results": [record], "total_count": 1, "page": 1, "page_size": 1, "total_pages": 1}
        return Response(json.dumps(page), content_type="application/json")

    httpserver.expect_request("/meta-search").respond_with_handler(answer)


def _probe(kind: type[Any], httpserver: HTTPServer) -> Any:
    return kind(api_token="t", base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)


def test_a_plan_runs_with_plain_calls_and_sees_errors_at_its_yield(httpserver: HTTPServer) -> None:
    _serve(httpserver)
    with _probe(SyncProbe, httpserver) as client:
        assert client.titles(["coral", "gone", "ice"]) == ["about coral", "missing: 404", "about ice"]
    assert len(httpserver.log) == 3


async def test_the_same_plan_runs_with_awaits(httpserver: HTTPServer) -> None:
    _serve(httpserver)
    async with _probe(AsyncProbe, httpserver) as client:
        call = client.titles(["coral", "gone"])
        assert inspect.iscoroutine(call)
        assert await call == ["about coral", "missing: 404"]


def test_an_error_the_plan_does_not_catch_reaches_the_caller(httpserver: HTTPServer) -> None:
    _serve(httpserver)

    def strict(self: Any) -> Plan[None]:
        yield Call("meta_search", ("gone",))

    class Strict(paperlens.Client):
        run = workflow(strict)

    client = Strict(api_token="t", base_url=httpserver.url_for(""), rate_limits=None, max_retries=0)
    with client, pytest.raises(paperlens.NotFoundError):
        client.run()


def test_the_method_keeps_the_definition_signature_without_self() -> None:
    client = SyncProbe(api_token="t", base_url="http://127.0.0.1:9", rate_limits=None)
    assert list(inspect.signature(client.titles).parameters) == ["queries"]
    assert client.titles.__doc__ == titles_then_fallback.__doc__
    assert list(inspect.signature(paperlens.Client.snowball).parameters)[:2] == ["self", "seeds"]


def test_an_interruption_closes_the_plan_so_its_finally_runs() -> None:
    closed = []

    def interrupted(self: Any) -> Plan[None]:
        try:
            yield Call("stop")
        finally:
            closed.append(True)

    class Interrupted(paperlens.Client):
        run = workflow(interrupted)

        def stop(self) -> None:
            raise KeyboardInterrupt

    client = Interrupted(api_token="t", base_url="http://127.0.0.1:9", rate_limits=None)
    with pytest.raises(KeyboardInterrupt):
        client.run()
    assert closed == [True]
