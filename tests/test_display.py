"""Rich display in Jupyter (issue 16): ``_repr_html_`` of results, paginators, networks and
graphs, against sandbox answers and hand-made ones. Texts are escaped, long lists capped,
pictures drawn only where networkx and matplotlib are installed, terminals keep ``repr``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from test_contract_answers import OPERATIONS, PROFILE, WITH_COLLIDING_NAMES, draw_answer

import paperlens
from paperlens import types as t
from paperlens.results import _display

from contract_answers import IntText
from fixtures import agentic_result, meta_search_page, sandbox_client

NASTY = """<script>alert("x")</script> & 'quoted' --> </table>"""
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;quoted&#x27; --&gt; &lt;/table&gt;"


SANDBOX = dict(papers=600, seed=11)


@pytest.fixture
def sb_client(sandbox):
    sandbox.clear_requests()
    return sandbox_client(sandbox)


def body_rows(html_text: str) -> int:
    """The rows of the first table body."""
    body = html_text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return body.count("<tr>")


def no_markup_from_data(html_text: str) -> None:
    """No element that the answer's texts could have smuggled in."""
    assert "<script" not in html_text
    assert html_text.count("<table") == html_text.count("</table>")


def without_svg() -> Any:
    """``_display._optional`` as if matplotlib were not installed."""
    real = _display._optional
    return lambda name: None if name.startswith("matplotlib") else real(name)


# -- sandbox answers ---------------------------------------------------------------------------


def test_a_meta_search_page_shows_its_records_and_counts(sb_client):
    page = sb_client.meta_search("study", page_size=100)
    assert len(page.results) > 20
    shown = page._repr_html_()
    assert f"{len(page.results)} results" in shown and f"total_count={page.total_count}" in shown
    assert body_rows(shown) == 20 and f"... {len(page.results) - 20} more" in shown
    first = page.results[0]
    assert f"<td>{first.unique_id}</td>" in shown and _display.html.escape(first.title) in shown
    assert '<th title="publication_published_year">year</th>' in shown
    assert page.request_id in shown


def test_a_record_and_a_hit_show_their_fields(sb_client):
    record = sb_client.meta_search("study", page_size=1).results[0]
    shown = record._repr_html_()
    assert "<th>unique_id</th>" in shown and f"<td>{record.unique_id}</td>" in shown
    assert "<th>doi</th>" in shown and "<th>isbn13</th>" not in shown  # absent fields are left out
    result = sb_client.agentic_search("memory consolidation in sleep", top_k=5)
    shown = result._repr_html_()
    assert "AgenticSearchResult" in shown and "5 hits" in shown and body_rows(shown) == 5
    assert f"response_tokens={result.response_tokens}" in shown
    hit = result.hits[0]._repr_html_()
    assert "<th>chunk</th>" in hit and "<th>score</th>" in hit


def test_catalog_content_and_relations_pages(sb_client):
    catalog = sb_client.meta_catalog()
    shown = catalog._repr_html_()
    assert f"{len(catalog.fields)} fields" in shown and "<th>filterable</th>" in shown
    assert f"... {len(catalog.fields) - 20} more" in shown
    record = sb_client.meta_search("study", page_size=1).results[0]
    content = sb_client.content(record.doc_id, limit=2000)
    shown = content._repr_html_()
    assert "<th>text_length</th>" in shown and "…" in shown and len(shown) < 3000  # briefly
    cited = next(r for r in sb_client.meta_search("study", page_size=50).results if r.citation_count)
    relations = sb_client.paper_relations(cited.unique_id, "CITATIONS")
    shown = relations._repr_html_()
    assert f"total_count={relations.total_count}" in shown
    assert f"<td>{relations.items[0].id}</td>" in shown


def test_paper_schema_pages_and_graphs(sb_client):
    page = sb_client.schema.search("study")
    shown = page._repr_html_()
    assert "PaperSearchPage" in shown and f"<td>{page.items[0].schema_id}</td>" in shown
    graph = sb_client.schema.citation_graph(page.items[0].schema_id, depth=2)
    shown = graph._repr_html_()
    assert f"{len(graph.nodes)} nodes, {len(graph.edges)} edges" in shown
    assert shown.count("<svg") == 1 and "</svg>" in shown and f"root_schema_id={graph.root_schema_id}" in shown
    relations = sb_client.schema.search_relations(filters={"schema_ids": [page.items[0].schema_id]})
    shown = relations._repr_html_()
    assert "<svg" in shown and f"<td>{relations.items[0].relation_type}</td>" in shown


def test_display_sends_no_request(sandbox, sb_client):
    page = sb_client.meta_search("study", page_size=50)
    paginator = sb_client.iter_meta_search("study", limit=30)
    before = len(sandbox.requests())
    page._repr_html_()
    paginator._repr_html_()
    assert len(sandbox.requests()) == before


# -- paginators --------------------------------------------------------------------------------


def test_a_paginator_says_what_it_walks_and_how_far_it_got(sandbox, sb_client):
    paginator = sb_client.iter_meta_search("study", limit=30)
    shown = paginator._repr_html_()
    assert "Paginator</strong> over meta_search" in shown and "query=study" in shown
    assert "<th>page size</th><td>30</td>" in shown and "not started" in shown
    assert sandbox.requests() == []
    for taken, _ in enumerate(paginator, 1):
        if taken == 12:
            break
    shown = paginator._repr_html_()
    assert "12 of " in shown and "yielded in the latest pass" in shown
    items = paginator.to_list()
    assert f"{len(items)} of " in paginator._repr_html_()


async def test_async_results_and_paginators_show_the_same(sandbox):
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as client:
        page = await client.meta_search("study", page_size=5)
        assert body_rows(page._repr_html_()) == len(page.results)
        paginator = client.iter_meta_search("study", limit=7)
        assert "AsyncPaginator</strong> over meta_search" in paginator._repr_html_()
        items = [item async for item in paginator]
        assert f"{len(items)} of " in paginator._repr_html_()


# -- hand-made answers -------------------------------------------------------------------------


def test_texts_are_escaped(client, httpserver: HTTPServer):
    body = meta_search_page(3)
    body["results"][1]["title"] = NASTY
    body["results"][1]["author"] = [{"name": NASTY}]
    httpserver.expect_request("/meta-search").respond_with_json(body)
    page = client.meta_search("q")
    for shown in (page._repr_html_(), page.results[1]._repr_html_()):
        assert ESCAPED in shown
        no_markup_from_data(shown)


def test_an_empty_page_and_an_empty_graph(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(0, total=0, next_cursor=""))
    shown = client.meta_search("nothing")._repr_html_()
    assert "0 results" in shown and "no rows" in shown and "<tbody>" not in shown
    graph = t.CitationGraph._from_wire({"root_schema_id": "s1", "nodes": [], "edges": []})
    shown = graph._repr_html_()
    assert "0 nodes, 0 edges" in shown and "<svg" not in shown and "no rows" in shown


def test_a_page_of_200_records_is_capped_and_decodes_only_the_rows_shown(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(200))
    page = client.meta_search("q")
    start = time.perf_counter()
    shown = page._repr_html_()
    elapsed = time.perf_counter() - start
    assert body_rows(shown) == 20 and "... 180 more" in shown
    assert type(page.results[20]) is not t.MetadataRecord  # still undecoded: never read
    assert "part 19<" in shown and "part 20<" not in shown
    assert elapsed < 0.25, elapsed


def test_an_agentic_result_from_a_hand_made_answer(client, httpserver: HTTPServer):
    body = agentic_result(25)
    body["hits"][0]["title"] = NASTY
    httpserver.expect_request("/agentic-search").respond_with_json(body)
    shown = client.agentic_search("graphs")._repr_html_()
    assert ESCAPED in shown and body_rows(shown) == 20 and "... 5 more" in shown
    no_markup_from_data(shown)


def graph_answer(title: str = "A paper") -> dict[str, Any]:
    nodes = [{"schema_id": f"s{i}", "title": f"{title} {i}", "year": 2000 + i, "depth": min(i, 2)} for i in range(6)]
    edges = [{"source_schema_id": f"s{i}", "target_schema_id": f"s{i // 2}", "citation_count": 1} for i in range(1, 6)]
    return {"root_schema_id": "s0", "direction": "inbound", "nodes": nodes, "edges": edges, "truncated": True}


def test_a_graph_draws_a_picture_with_matplotlib_and_a_table_without(monkeypatch):
    graph = t.CitationGraph._from_wire(graph_answer(NASTY))
    shown = graph._repr_html_()
    assert shown.count("<svg") == 1 and "truncated=✓" in shown and ESCAPED in shown
    no_markup_from_data(shown)
    monkeypatch.setattr(_display, "_optional", without_svg())
    plain = graph._repr_html_()
    assert "<svg" not in plain and body_rows(plain) == 6 and "6 nodes, 5 edges" in plain


def test_relations_draw_their_entities_and_escape_their_names(monkeypatch):
    entity = {"entity_id": "e1", "name": NASTY, "entity_type": "Component"}
    relations = [
        {"relation_type": "uses", "source_entity_id": "e1", "target_entity_id": f"e{i}", "source_entity": entity}
        for i in range(2, 5)
    ]
    page = t.RelationSearchPage._from_wire({"items": relations})
    shown = page._repr_html_()
    assert "<svg" in shown and ESCAPED in shown
    no_markup_from_data(shown)
    detail = t.EntityDetail._from_wire({"entity": entity, "relations": relations})
    assert "<svg" in detail._repr_html_() and f"entity={ESCAPED}" in detail._repr_html_()
    monkeypatch.setattr(_display, "_optional", lambda name: None)  # networkx absent too
    assert "<svg" not in page._repr_html_() and body_rows(page._repr_html_()) == 3


def test_graph_nodes_and_edges_without_ids_are_left_out_of_the_picture():
    answer = graph_answer()
    answer["nodes"].append({"title": "no id"})
    answer["edges"].append({"source_schema_id": "s1"})
    graph = t.CitationGraph._from_wire(answer)
    assert sorted(graph.to_networkx().nodes) == [f"s{i}" for i in range(6)]
    shown = graph._repr_html_()
    assert "<svg" in shown and "7 nodes, 6 edges" in shown and body_rows(shown.split("</svg>")[1]) == 7


class ListNetwork:
    """A network as ``network_html`` takes it: rows as lists of dicts, and ``to_networkx()``."""

    seeds = ("W1",)
    direction = "both"

    def __init__(self, n: int) -> None:
        self.node_rows = [{"id": f"W{i}", "title": f"{NASTY} {i}", "depth": int(i > 1)} for i in range(1, n + 1)]
        self.edge_rows = [{"source": f"W{i}", "target": "W1", "direction": "citations"} for i in range(2, n + 1)]

    @property
    def nodes(self) -> Any:
        return self.node_rows

    @property
    def edges(self) -> Any:
        return self.edge_rows

    def __len__(self) -> int:
        return len(self.node_rows)

    def to_networkx(self) -> Any:
        import networkx as nx

        graph = nx.DiGraph()
        for node in self.node_rows:
            graph.add_node(node["id"], **node)
        graph.add_edges_from((e["source"], e["target"]) for e in self.edge_rows)
        return graph


def test_a_network_of_lists_shows_a_picture_and_its_first_nodes(monkeypatch):
    network = ListNetwork(45)
    shown = _display.network_html(network)
    assert "45 nodes, 44 edges" in shown and "direction=both" in shown and "seeds=W1" in shown
    assert shown.count("<svg") == 1 and body_rows(shown.split("</svg>")[1]) == 20 and "... 25 more" in shown
    assert ESCAPED in shown
    no_markup_from_data(shown)
    monkeypatch.setattr(_display, "_optional", without_svg())
    assert "<svg" not in _display.network_html(network)


def test_a_network_of_dataframes():
    import pandas as pd

    lists = ListNetwork(3)

    class FrameNetwork:
        nodes = pd.DataFrame(lists.node_rows).assign(year=[2001, None, 2003])
        edges = pd.DataFrame(lists.edge_rows)
        to_networkx = lists.to_networkx

    shown = _display.network_html(FrameNetwork())
    assert "3 nodes, 2 edges" in shown and "<svg" in shown and body_rows(shown.split("</svg>")[1]) == 3
    assert "<th>id</th><th>title</th><th>depth</th><th>year</th>" in shown
    assert "<td>2001</td>" in shown and "<td></td>" in shown and "nan" not in shown  # a float column


def test_a_network_whose_frames_need_pandas_still_shows_its_picture():
    class NeedsPandas(ListNetwork):
        @property
        def nodes(self) -> Any:
            raise ImportError("CitationNetwork.nodes needs pandas")

    shown = _display.network_html(NeedsPandas(4))
    assert "NeedsPandas</strong> · 4 nodes, 3 edges" in shown and "<svg" in shown and "<tbody>" not in shown


def test_a_network_that_cannot_be_drawn_still_shows_its_table():
    class Broken(ListNetwork):
        def to_networkx(self) -> Any:
            raise ValueError("None cannot be a <node>")

    shown = _display.network_html(Broken(3))
    assert "no picture: ValueError: None cannot be a &lt;node&gt;" in shown and body_rows(shown) == 3


def test_a_large_graph_draws_its_first_nodes_only_in_a_small_picture():
    network = ListNetwork(_display.PICTURE_NODES + 50)
    shown = _display.network_html(network)
    assert f"the picture shows the first {_display.PICTURE_NODES} nodes" in shown
    svg = shown[shown.index("<svg") : shown.index("</svg>")]
    assert svg.count("<use") == _display.PICTURE_NODES and len(svg) < 100_000  # markers written once


# -- plain repr and imports --------------------------------------------------------------------


def test_terminals_keep_the_plain_repr(client, httpserver: HTTPServer):
    record = t.MetadataRecord._from_wire({"unique_id": "W1", "title": NASTY, "publication_published_year": 2020})
    assert repr(record) == (
        "MetadataRecord(unique_id='W1', title='<script>alert(\"x\")</script> & \\'quoted\\' --> </table>', "
        "publication_published_year=2020)"
    )
    paginator = client.iter_meta_search("q", limit=5)
    assert repr(paginator) == "Paginator(MetaSearchPaging, limit=5)"
    graph = t.CitationGraph._from_wire(graph_answer())
    assert repr(graph).startswith("CitationGraph(partial=False, truncated=True,") and "<svg" not in repr(graph)


def test_rendering_a_page_imports_neither_pandas_nor_matplotlib():
    code = (
        "import sys, paperlens\n"
        "from paperlens import types as t\n"
        "page = t.MetaSearchPage._from_wire({'results': [{'unique_id': 'W1', 'title': 'x'}], 'total_count': 1})\n"
        "assert 'W1' in page._repr_html_()\n"
        "print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib', 'networkx') if m in sys.modules))"
    )
    here = Path(paperlens.__file__).parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=here)
    assert out.stdout.strip() == "[]", out.stderr


def test_repr_html_is_not_hidden_by_a_wire_property():
    record = t.MetadataRecord._from_wire({"unique_id": "W1", "_repr_html_": "<b>gotcha</b>"})
    assert record._repr_html_().startswith('<div class="paperlens-result">')
    assert re.search(r"<th>extra</th><td>_repr_html_</td>", record._repr_html_())


# -- every answer the contract allows ----------------------------------------------------------

#: The elements the display writes itself (a picture aside): no text of an answer adds one.
OWN_ELEMENTS = {"div", "style", "strong", "table", "thead", "tbody", "tr", "th", "td", "p"}


class Elements(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.names.add(tag)


def marked(value: Any) -> Any:
    """``value`` with markup before every text (digits of integer fields left as they are)."""
    if isinstance(value, IntText):
        return value
    if isinstance(value, str):
        return NASTY + value
    if isinstance(value, list):
        return [marked(v) for v in value]
    if isinstance(value, dict):
        return {k: marked(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: o.name)
@settings(PROFILE, max_examples=15)
@given(data=st.data())
def test_every_answer_the_contract_allows_displays_escaped(operation, data):
    wire = marked(draw_answer(data, WITH_COLLIDING_NAMES, operation))
    result = operation.result._from_wire(json.loads(json.dumps(wire)), "req-1")
    shown = result._repr_html_()
    assert "<script" not in shown
    outside = re.sub(r"<svg.*?</svg>", "", shown, flags=re.S)
    assert Elements(outside).names <= OWN_ELEMENTS
    assert outside.count("<table") == outside.count("</table>")
