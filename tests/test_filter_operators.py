"""A filter's operator is checked before any request: an unknown one (``>>``) in any form
(``Filter``, tuple, wire dict) is a ``ValidationError`` naming it, and each known spelling is
sent as the contract's ``FILTER_OP_*`` name."""

from __future__ import annotations

import contextlib

import pytest

import paperlens
from paperlens.base._contract import OPERATOR_ALIASES

SANDBOX = dict(papers=50)


@pytest.fixture
def client(sandbox):
    sandbox.clear_requests()
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        yield client


BAD = [
    paperlens.Filter("citation_count", ">>", 5),
    ("citation_count", "=>", 5),
    {"field": "citation_count", "operator": ">>", "value": 5},
    {"field": "citation_count", "operator": "FILTER_OP_GTEQ", "value": 5},
]


@pytest.mark.parametrize("bad", BAD, ids=["Filter", "tuple", "dict", "wire-name"])
def test_an_unknown_operator_is_refused_before_any_request(sandbox, client, bad):
    good = paperlens.Filter("publication_published_year", ">=", 2000)
    with pytest.raises(paperlens.ValidationError) as refused:
        client.meta_search("coral", filters=[good, bad])
    assert refused.value.param == "filters[1].operator"
    with pytest.raises(paperlens.ValidationError):
        client.iter_meta_search("coral", filters=bad, limit=10).to_list()
    assert sandbox.requests() == []


@pytest.mark.parametrize("alias", list(OPERATOR_ALIASES))
def test_each_short_spelling_is_sent_as_its_wire_name(sandbox, client, alias):
    value = ["en"] if alias in ("in", "not_in") else "en"
    # The sandbox may refuse an operator for a text field (a 400 after sending): what was sent counts.
    with contextlib.suppress(paperlens.BadRequestError):
        client.meta_search("", filters=[("language", alias, value)], page_size=1)
    [sent] = sandbox.requests()[-1].json()["filters"]
    assert sent == {"field": "language", "operator": f"FILTER_OP_{OPERATOR_ALIASES[alias]}", "value": value}
