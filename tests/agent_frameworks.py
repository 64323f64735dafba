"""What the agent adapter tests compare against: the metadata a hit's wire JSON gives, written
out here from the documented rule, independently of the adapters' code; and a hand-made
service whose answers repeat the token, with what the tools must show of them (masked)."""

from __future__ import annotations

import json
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from conftest import TOKEN, error_body

#: The metadata key of each wire field of a hit.
HIT_METADATA = {
    "doc_id": "doc_id",
    "source": "source",
    "offset": "offset",
    "chunk_id": "chunk_id",
    "title": "title",
    "publication_published_year": "year",
    "score": "score",
    "unique_id": "unique_id",
}
QUERIES = ["coral bleaching under heat stress", "graph neural networks", "protein folding", "CRISPR off-target"]


def expected_metadata(hit: dict[str, Any]) -> dict[str, Any]:
    """The documented metadata of a hit: the fields it carries (not null), renamed."""
    return {key: hit[wire] for wire, key in HIT_METADATA.items() if hit.get(wire) is not None}


def sparse_hits() -> dict[str, Any]:
    """An answer whose hits lack most fields (absent or null), as the contract allows."""
    return {
        "hits": [
            {"chunk": "Only a chunk and a score.", "score": 0.5},
            {"chunk_id": "c-1", "chunk": "A located chunk.", "doc_id": "d" * 64, "offset": 0, "title": None},
            {"chunk": "No score, a unique_id extra.", "unique_id": "W1", "publication_published_year": "2020"},
        ]
    }


#: Settings of a retriever that ``agentic_search`` refuses, with its exact message: the
#: retrievers refuse them when made, by the core's rules, as the client does before it sends.
BAD_SEARCH_SETTINGS: list[tuple[dict[str, Any], str]] = [
    ({"top_k": 0}, "top_k: must be between 1 and 100 (got 0)"),
    ({"top_k": "5"}, "top_k: must be an int (got '5')"),
    ({"top_k": True}, "top_k: must be an int (got True)"),
    ({"retrieval": "bm25"}, "retrieval: must be one of hybrid, vector, es (got 'bm25')"),
    ({"retrieval": 3}, "retrieval: must be a str (got 3)"),
    ({"sub_queries": 5}, "sub_queries: must be between 0 and 4 (got 5)"),
    ({"sub_queries": "2"}, "sub_queries: must be an int (got '2')"),
    ({"sub_queries": True}, "sub_queries: must be an int (got True)"),
    ({"filters": [1]}, "filters: must be an object (got [1])"),
    ({"filters": {"lang": 3}}, "filters.lang: must be a string (got 3)"),
    (
        {"filters": {"year": {"gte": 2020}}},
        "filters.year: is not allowed; allowed: lang, language, title, author, "
        "publication_venue_name_unified, publication_venue_type, publication_published_date, "
        "publication_published_year, citation_count, influential_citation_count, topics (got 'year')",
    ),
    ({"source_types": "web"}, "source_types: must be a list (got 'web')"),
    ({"source_types": ["web", "html"]}, "source_types[1]: must be one of web, pdf (got 'html')"),
]
#: Settings refused when a retriever is made, with the exact message.
BAD_RETRIEVER_SETTINGS: list[tuple[dict[str, Any], str]] = [
    ({"client": "http://127.0.0.1"}, "client: must be a paperlens.Client, a paperlens.AsyncClient or None (got 'str')"),
]
#: Good settings of every kind and the body each query is sent with (a tuple of source types
#: is a list on the wire, as for the client).
GOOD_SEARCH_SETTINGS: dict[str, Any] = {
    "top_k": 7,
    "retrieval": "vector",
    "sub_queries": 1,
    "filters": {"publication_published_year": {"gte": 2020}},
    "source_types": ("pdf",),
}
GOOD_SEARCH_BODY: dict[str, Any] = {**GOOD_SEARCH_SETTINGS, "source_types": ["pdf"]}


# -- a service that repeats the token ----------------------------------------------------------

#: What the tools show in place of the token.
MASK = "***"
#: A paper's text that quotes the token (as a leaked configuration would).
QUOTING_TEXT = f"Reproduce with PAPERLENS_API_TOKEN={TOKEN} set; the token {TOKEN} is then sent as a header."
QUOTING_RECORD = {
    "unique_id": "W1",
    "doc_id": "d1",
    "title": f"On {TOKEN} and other secrets",
    "abstract": f"We found {TOKEN} in {TOKEN}.",
    "publication_published_year": 2021,
}
QUOTING_HIT = {"doc_id": "d1", "offset": 0, "unique_id": "W1", "chunk": QUOTING_TEXT, "score": 0.9}


def serve_the_token(httpserver: HTTPServer) -> None:
    """``httpserver`` answering with :data:`TOKEN` inside: ``/content`` of ``d1`` the text
    :data:`QUOTING_TEXT` (another ``doc_id`` a 400 whose message repeats the token),
    ``/meta-search`` the record :data:`QUOTING_RECORD`, ``/agentic-search`` the hit
    :data:`QUOTING_HIT`."""

    def content(request: Request) -> Response:
        doc_id = request.args["doc_id"]
        if doc_id != "d1":
            body = error_body("INVALID_ARGUMENT", f"doc_id {doc_id} is unknown to the token {TOKEN}")
            return Response(json.dumps(body), status=400, content_type="application/json")
        page = {"text": QUOTING_TEXT, "text_length": len(QUOTING_TEXT), "next_offset": len(QUOTING_TEXT)}
        return Response(json.dumps({**page, "more": False}), content_type="application/json")

    page = {"results": [QUOTING_RECORD], "total_count": 1, "page": 1, "page_size": 10, "total_pages": 1}
    httpserver.expect_request("/content").respond_with_handler(content)
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(page)
    httpserver.expect_request("/agentic-search", method="POST").respond_with_json({"hits": [QUOTING_HIT]})


def shown(value: str) -> str:
    """``value`` as a tool's JSON shows it, the token masked."""
    return json.dumps(value.replace(TOKEN, MASK), ensure_ascii=False)


#: What a tool shows of :data:`QUOTING_RECORD`'s strings.
RECORD_SHOWN = [shown(QUOTING_RECORD["title"]), shown(QUOTING_RECORD["abstract"])]
#: Calls of the default tools against :func:`serve_the_token`, whether each fails, and pieces
#: its answer must hold: what the service sent (or the argument given), the token masked.
#: None of the answers may hold the token.
TOKEN_CALLS: list[tuple[str, dict[str, Any], bool, list[str]]] = [
    ("read_paper", {"doc_id": "d1"}, False, [shown(QUOTING_TEXT)]),
    ("search_papers", {"query": f"about {TOKEN}"}, False, [f"search_papers 'about {MASK}'", shown(QUOTING_TEXT)]),
    ("search_metadata", {"query": "secrets"}, False, RECORD_SHOWN),
    ("get_papers", {"ids": ["W1"]}, False, RECORD_SHOWN),
    ("read_paper", {"doc_id": "d2"}, True, ["The service answered 400", f"doc_id d2 is unknown to the token {MASK}"]),
    ("search_papers", {"query": "x", "top_k": TOKEN}, True, [f"'top_k': expected an integer, got '{MASK}'"]),
]
