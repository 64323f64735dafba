"""The token never leaves the Authorization header of requests to the configured host."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

import paperlens

from conftest import TOKEN
from fixtures import meta_search_page


def test_token_absent_from_logs_reprs_and_errors(make_client, httpserver: HTTPServer, caplog):
    httpserver.expect_ordered_request("/meta-search").respond_with_data("<html>busy</html>", status=503)
    httpserver.expect_ordered_request("/meta-search").respond_with_json(meta_search_page(1))
    httpserver.expect_ordered_request("/content").respond_with_json(
        {"code": "FORBIDDEN", "message": "no", "request_id": "r"}, status=403
    )
    client = make_client()
    texts = [repr(client), str(client), repr(client.with_options(timeout=3))]
    with caplog.at_level(logging.DEBUG):
        page = client.meta_search("q")
        with pytest.raises(paperlens.PermissionDeniedError) as caught:
            client.content("doc")
    texts += [repr(page), repr(caught.value), str(caught.value), repr(caught.value.__dict__)]
    texts += [record.getMessage() for record in caplog.records]
    assert any("retry 1 of 3" in text for text in texts)  # the logs did record the call
    assert not [text for text in texts if TOKEN in text]
    for request, _ in httpserver.log:
        assert TOKEN not in request.url and TOKEN.encode() not in request.get_data()
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"


def test_token_absent_from_connection_errors(caplog):
    client = paperlens.Client(api_token=TOKEN, base_url="http://127.0.0.1:1", max_retries=0)
    with caplog.at_level(logging.DEBUG), pytest.raises(paperlens.APIConnectionError) as caught:
        client.meta_search("q")
    assert TOKEN not in str(caught.value) and "127.0.0.1:1" not in str(caught.value)
    assert not [r for r in caplog.records if TOKEN in r.getMessage()]


def test_redirect_to_another_host_does_not_carry_the_token(client, httpserver: HTTPServer):
    other = HTTPServer(host="127.0.0.1", port=0)
    other.start()
    try:
        other.expect_request("/elsewhere").respond_with_data(b"\x89PNG", content_type="image/png")
        httpserver.expect_request("/resource").respond_with_response(
            Response(status=302, headers={"Location": other.url_for("/elsewhere")})
        )
        assert client.resource("figures/a.png").data == b"\x89PNG"
        ((request, _),) = other.log
        assert "Authorization" not in request.headers
    finally:
        other.stop()


def test_redirect_within_the_host_keeps_the_token(client, httpserver: HTTPServer):
    httpserver.expect_request("/resource").respond_with_response(
        Response(status=307, headers={"Location": httpserver.url_for("/resource-v2")})
    )
    httpserver.expect_request("/resource-v2").respond_with_data(b"ok")
    assert client.resource("x.png").data == b"ok"
    assert httpserver.log[-1][0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_plain_http_is_refused_unless_loopback():
    with pytest.raises(paperlens.ConfigurationError, match="unencrypted"):
        paperlens.Client(api_token=TOKEN, base_url="http://api.example.org")
    for url in ["http://127.0.0.1:8000", "http://localhost:8000", "https://api.example.org"]:
        assert paperlens.Client(api_token=TOKEN, base_url=url).base_url.startswith(url)


def test_configuration_from_the_environment(monkeypatch, httpserver: HTTPServer):
    monkeypatch.delenv("PAPERLENS_API_TOKEN", raising=False)
    monkeypatch.delenv("PAPERLENS_BASE_URL", raising=False)
    with pytest.raises(paperlens.ConfigurationError, match="PAPERLENS_API_TOKEN"):
        paperlens.Client(base_url=httpserver.url_for(""))
    with pytest.raises(paperlens.ConfigurationError, match="PAPERLENS_BASE_URL"):
        paperlens.Client(api_token=TOKEN)
    monkeypatch.setenv("PAPERLENS_API_TOKEN", "env-token")
    monkeypatch.setenv("PAPERLENS_BASE_URL", httpserver.url_for(""))
    httpserver.expect_request("/meta-catalog").respond_with_json({"fields": []})
    paperlens.Client(rate_limits=None).meta_catalog()
    assert httpserver.log[-1][0].headers["Authorization"] == "Bearer env-token"
    paperlens.Client(api_token="arg-token", rate_limits=None).meta_catalog()
    assert httpserver.log[-1][0].headers["Authorization"] == "Bearer arg-token"


def test_service_source_is_checked_at_construction(make_client, httpserver: HTTPServer):
    for bad in ["", "has space", "x" * 65, "ünïcode"]:
        with pytest.raises(ValueError, match="service_source"):
            make_client(service_source=bad)
    httpserver.expect_request("/meta-catalog", headers={"X-Service-Source": "notebook_7"}).respond_with_json({})
    make_client(service_source="notebook_7").meta_catalog()


def test_bad_settings_are_configuration_errors():
    for settings in [{"timeout": -1}, {"rate_limits": {"search": 10}}, {"rate_limits": "fast"}]:
        with pytest.raises(paperlens.ConfigurationError):
            paperlens.Client(api_token=TOKEN, base_url="https://x.org", **settings)


def test_validation_errors_name_parameter_rule_and_value_before_sending(client, httpserver: HTTPServer):
    with pytest.raises(paperlens.ValidationError) as caught:
        client.meta_search("q", page=51, page_size=200)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.param == "page" and "10000" in error.rule and "51 * 200" in error.value
    with pytest.raises(paperlens.ValidationError, match="top_k: must be between 1 and 100"):
        client.agentic_search("q", top_k=0)
    assert httpserver.log == []
    httpserver.expect_request("/agentic-search").respond_with_json({"hits": []})
    client.with_options(validate=False).agentic_search("q", top_k=0)
    assert len(httpserver.log) == 1


def test_closed_client_refuses_calls(client):
    client.close()
    assert "closed" in repr(client)
    with pytest.raises(paperlens.PaperlensError, match="closed"):
        client.meta_catalog()


def test_import_does_not_import_pandas():
    code = (
        "import sys, paperlens; print(sorted(m for m in ('pandas', 'pyarrow', 'networkx', 'tqdm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
