"""Citation snowballing against the sandbox: the network equals one computed here from the
relations lists, its seeds carry their records' values, with no page asked twice or beyond need,
and it resumes from its checkpoint."""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.cli import main
from paperlens.sandbox import Sandbox
from paperlens.snowball import SEED_FIELDS
from paperlens.storage._records import read_table_records

from fixtures import resume_told, sandbox_client, strict_client  # noqa: F401 (the client fixture)

RELATIONS = {"citations": ["CITATIONS"], "references": ["REFERENCES"], "both": ["CITATIONS", "REFERENCES"]}
PATH = "/meta-paper-relations"


SANDBOX = dict(papers=600)


@pytest.fixture(scope="module")
def seeds(sandbox):
    client = sandbox_client(sandbox)
    records = client.meta_search(None, page_size=40, fields=["unique_id", "citation_count"]).results
    cited = [r.unique_id for r in records if (r.citation_count or 0) > 0]
    return cited[:2]


def expected_network(client, seeds, direction, depth, max_per_paper=None, limit=None):
    """Breadth first from the relations lists, written independently of paperlens.snowball:
    ``(nodes {id: depth} in discovery order, edges {(citing, cited): found by}, pages needed)``."""
    depths = {seed: 0 for seed in seeds}
    kinds = {seed: "unique_id" for seed in seeds}
    edges: dict[tuple[str, str], set[str]] = {}
    pages = 0
    frontier = list(seeds)
    for level in range(depth):
        for paper in frontier:
            for relation in RELATIONS[direction]:
                if limit is not None and len(depths) >= limit:
                    break
                items = client.iter_paper_relations(paper, relation, limit=max_per_paper).to_list()
                total = client.paper_relations(paper, relation, page_size=1).total_count
                wanted = total if max_per_paper is None else min(total, max_per_paper)
                pages += max(1, math.ceil(wanted / 200))
                for item in items:
                    if item.id not in depths:
                        if limit is not None and len(depths) >= limit:
                            continue
                        depths[item.id] = level + 1
                        kinds[item.id] = item.id_type
                    edge = (item.id, paper) if relation == "CITATIONS" else (paper, item.id)
                    edges.setdefault(edge, set()).add(relation.lower())
        frontier = [p for p, d in depths.items() if d == level + 1 and kinds[p] == "unique_id"]
    found_by = {edge: "both" if len(how) == 2 else how.pop() for edge, how in edges.items()}
    return depths, found_by, pages


def seed_records(client, seeds) -> dict[str, dict[str, Any]]:
    """Each seed's fields as ``meta_search`` filtered on its ``unique_id`` gives them, as the
    seed's node should carry them (``id`` for ``unique_id``); absent for a seed not found."""
    found = {}
    for seed in seeds:
        results = client.meta_search(None, filters=[paperlens.Filter("unique_id", "eq", seed)]).results
        for record in results:
            values = record.to_dict()
            fields = {name: values[name] for name in [*SEED_FIELDS, "doc_id"] if name in values}
            found[seed] = {"id": fields.pop("unique_id"), "id_type": "unique_id", **fields}
    return found


def seed_rows(network, records) -> list[dict[str, Any]]:
    """The rows ``node_rows()`` should give the seeds of ``network``."""
    return [{**records.get(seed, {"id": seed, "id_type": "unique_id"}), "depth": 0} for seed in network.seeds]


def seed_lookups(sandbox) -> list[list[str]]:
    """The ``unique_id`` s each ``/meta-search`` request asked for: its whole body checked."""
    asked = []
    for body in (r.json() for r in sandbox.requests() if r.path == "/meta-search"):
        ((condition,),) = [body.pop("filters")]
        assert body == {"fields": SEED_FIELDS, "page_size": 200}
        assert (condition["field"], condition["operator"]) == ("unique_id", "FILTER_OP_IN")
        asked.append(condition["value"])
    return asked


def relation_requests(sandbox) -> list[tuple[str, str, int, int]]:
    return [
        (body["unique_id"], body["relation"], body.get("page", 1), body.get("page_size", 25))
        for body in (r.json() for r in sandbox.requests() if r.path == PATH)
    ]


def requests_sent(sandbox) -> list[tuple[Any, ...]]:
    """Every request of a snowball: the seeds' lookups, then the relation pages."""
    return [tuple(asked) for asked in seed_lookups(sandbox)] + relation_requests(sandbox)


def shape(network) -> tuple[dict[str, int], dict[tuple[str, str], str]]:
    return (
        {row["id"]: row["depth"] for row in network.node_rows()},
        {(row["source"], row["target"]): row["direction"] for row in network.edge_rows()},
    )


@pytest.mark.parametrize(("direction", "depth"), [("both", 2), ("citations", 2), ("references", 1)])
def test_network_equals_the_breadth_first_walk_of_the_relations_lists(sandbox, client, seeds, direction, depth):
    depths, edges, pages = expected_network(client, seeds, direction, depth)
    sandbox.clear_requests()
    network = client.snowball(seeds, direction=direction, depth=depth)
    assert shape(network) == (depths, edges)
    assert list(shape(network)[0]) == list(depths)  # discovery order
    sent = relation_requests(sandbox)
    assert seed_lookups(sandbox) == [seeds]
    assert len(sent) == len(set(sent)) == pages == len(network.request_ids) - 1
    assert network.request_ids == [r.headers["x-request-id"] for r in sandbox.requests()]
    assert all(size == 200 for _, _, _, size in sent)
    records = seed_records(client, seeds)
    assert network.node_rows()[: len(seeds)] == seed_rows(network, records)
    assert all(records[seed]["title"] and records[seed]["doi"] for seed in seeds)
    # Each paper expanded once: one first page per expanded paper and relation.
    first_pages = [(paper, relation) for paper, relation, page, _ in sent if page == 1]
    assert len(first_pages) == len(set(first_pages))
    assert len(network) == len(depths) and network.seeds == seeds
    assert network.limit is None and not network.limit_reached


async def test_async_client_builds_the_same_network(sandbox, client, seeds):
    sandbox.clear_requests()
    expected = client.snowball(seeds, depth=2)
    sync_requests = relation_requests(sandbox)
    sandbox.clear_requests()
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as aclient:
        network = await aclient.snowball(seeds, depth=2)
    assert network.node_rows() == expected.node_rows() and network.edge_rows() == expected.edge_rows()
    assert relation_requests(sandbox) == sync_requests and seed_lookups(sandbox) == [seeds]
    assert network.node_rows()[: len(seeds)] == seed_rows(network, seed_records(client, seeds))


def test_max_per_paper_asks_for_no_more(sandbox, client, seeds):
    depths, edges, pages = expected_network(client, seeds, "both", 2, max_per_paper=3)
    sandbox.clear_requests()
    network = client.snowball(seeds, depth=2, max_per_paper=3)
    assert shape(network) == (depths, edges)
    sent = relation_requests(sandbox)
    assert len(sent) == pages and {(page, size) for _, _, page, size in sent} == {(1, 3)}
    counts: dict[tuple[str, str], int] = {}
    for row in network.edge_rows():
        if row["direction"] in ("references", "both"):
            counts[(row["source"], "REFERENCES")] = counts.get((row["source"], "REFERENCES"), 0) + 1
    assert counts and max(counts.values()) <= 3


def test_limit_caps_the_nodes_and_stops_the_requests(sandbox, client, seeds):
    depths, _, pages = expected_network(client, seeds, "both", 3, limit=40)
    sandbox.clear_requests()
    network = client.snowball(seeds, depth=3, limit=40)
    assert list(shape(network)[0].items()) == list(depths.items()) and len(network) == 40
    assert network.limit_reached
    # No request after the page that reached the limit.
    assert len(relation_requests(sandbox)) == pages == len(network.request_ids) - 1
    # A network of the seeds alone: their records, one request.
    sandbox.clear_requests()
    alone = client.snowball(seeds, depth=0)
    assert seed_lookups(sandbox) == [seeds] and relation_requests(sandbox) == []
    assert alone.node_rows() == seed_rows(alone, seed_records(client, seeds)) and len(alone.request_ids) == 1


def test_a_seed_the_service_does_not_know_keeps_its_id_and_is_not_found_when_expanded(sandbox, client, seeds):
    missing = "W9999999999"
    sandbox.clear_requests()
    alone = client.snowball([seeds[0], missing], depth=0)
    assert seed_lookups(sandbox) == [[seeds[0], missing]]
    assert alone.node_rows() == seed_rows(alone, seed_records(client, [seeds[0], missing]))
    assert alone.node_rows()[1] == {"id": missing, "id_type": "unique_id", "depth": 0}
    with pytest.raises(paperlens.NotFoundError, match=missing):
        client.snowball([seeds[0], missing], direction="references", depth=1)


def test_seeds_repeated_are_answered_once(sandbox, client, seeds):
    sandbox.clear_requests()
    network = client.snowball([seeds[0], seeds[0], f" {seeds[0]} "], direction="references")
    assert network.seeds == [seeds[0]] and seed_lookups(sandbox) == [[seeds[0]]]
    assert [r[:2] for r in relation_requests(sandbox)] == [(seeds[0], "REFERENCES")]


@pytest.mark.parametrize(
    ("arguments", "param"),
    [
        ({"seeds": []}, "seeds"),
        ({"seeds": ["W1", ""]}, "seeds[1]"),
        ({"seeds": ["W1", 7]}, "seeds[1]"),
        ({"direction": "cited"}, "direction"),
        ({"direction": "CITATIONS"}, "direction"),
        ({"depth": -1}, "depth"),
        ({"depth": 1.5}, "depth"),
        ({"depth": True}, "depth"),
        ({"max_per_paper": 0}, "max_per_paper"),
        ({"limit": 0}, "limit"),
        ({"seeds": ["W1", "W2", "W3"], "limit": 2}, "limit"),
    ],
)
def test_bad_input_is_refused_before_any_request(sandbox, client, arguments, param):
    sandbox.clear_requests()
    call = {"seeds": ["W1"], **arguments}
    with pytest.raises(paperlens.ValidationError) as raised:
        client.snowball(call.pop("seeds"), **call)
    assert raised.value.param == param and raised.value.rule
    assert param.split("[")[0] in str(raised.value)
    assert sandbox.requests() == []


class FailingClient(paperlens.Client):
    """A client whose ``at``-th request (a seeds' lookup or a relation page) meets a 500 (or
    ``status``, asking to wait ``retry_after``) injected into the sandbox just before."""

    def __init__(self, sandbox: Sandbox, at: int, status: int = 500, retry_after: float | None = None) -> None:
        super().__init__(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None, max_retries=0)
        self.sandbox, self.at, self.sent = sandbox, at, 0
        self.status, self.retry_after = status, retry_after

    def _call(self, operation: str, model: Any, params: Any, *, stacklevel: int = 4) -> Any:
        self.sent += 1
        if self.sent == self.at:
            path = "/meta-search" if operation == "meta_search" else PATH
            self.sandbox.inject_fault(path, status=self.status, retry_after=self.retry_after)
        return super()._call(operation, model, params, stacklevel=stacklevel + 1)


@pytest.mark.parametrize("interruptions", [[1], [4], [2, 9, 3]])
def test_checkpoint_resumes_without_repeating_a_request(sandbox, client, seeds, tmp_path, interruptions):
    sandbox.clear_requests()
    whole = client.snowball(seeds, depth=2, max_per_paper=40)
    whole_requests = requests_sent(sandbox)
    checkpoint = tmp_path / "snowball.ckpt"
    sandbox.clear_requests()
    for at in interruptions:  # 1: the seeds' lookup fails; the others, a relation page
        with pytest.raises(paperlens.ServerError):
            FailingClient(sandbox, at).snowball(seeds, depth=2, max_per_paper=40, checkpoint=checkpoint)
    resumed = client.snowball(seeds, depth=2, max_per_paper=40, checkpoint=checkpoint)
    assert resumed.node_rows() == whole.node_rows() and resumed.edge_rows() == whole.edge_rows()
    sent = requests_sent(sandbox)
    # Every request of the whole run once, plus the one that failed at each interruption.
    assert len(sent) == len(whole_requests) + len(interruptions)
    assert sorted(set(sent), key=str) == sorted(whole_requests, key=str)
    assert len(resumed.request_ids) == len(whole.request_ids)
    # A finished run is returned from the checkpoint, without any request.
    sandbox.clear_requests()
    again = client.snowball(seeds, depth=2, max_per_paper=40, checkpoint=checkpoint)
    assert sandbox.requests() == [] and again.node_rows() == whole.node_rows()
    assert again.finished == resumed.finished and again.started == resumed.started
    # The seeds carry their records' values, replayed from the checkpoint as they arrived.
    assert again.node_rows()[: len(seeds)] == seed_rows(again, seed_records(client, seeds))


def test_a_snowball_stopped_by_an_exhausted_quota_says_when_to_resume(sandbox, client, seeds, tmp_path, capsys):
    whole = client.snowball(seeds, depth=2, max_per_paper=40)
    checkpoint = tmp_path / "snowball.ckpt"
    exhausting = FailingClient(sandbox, 4, status=429, retry_after=3600)
    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        exhausting.snowball(seeds, depth=2, max_per_paper=40, checkpoint=checkpoint)
    assert resume_told(caught.value, capsys)
    # The header, the seeds' records and the two relation pages answered.
    assert len(checkpoint.read_text().splitlines()) == 1 + 1 + 2
    resumed = client.snowball(seeds, depth=2, max_per_paper=40, checkpoint=checkpoint)
    assert resumed.node_rows() == whole.node_rows() and resumed.edge_rows() == whole.edge_rows()


async def test_async_resume_and_a_line_cut_by_a_crash(sandbox, client, seeds, tmp_path):
    checkpoint = tmp_path / "snowball.ckpt"
    whole = client.snowball(seeds, direction="citations", depth=2, checkpoint=checkpoint)
    lines = checkpoint.read_bytes().split(b"\n")
    assert json.loads(lines[0])["parameters"]["seeds"] == seeds and "finished" in json.loads(lines[-2])
    assert list(json.loads(lines[1])["records"]) == seeds  # the seeds' records, then the relation pages
    # A crash while the second relation page was appended: its line is cut, the rest never written.
    checkpoint.write_bytes(b"\n".join(lines[:3]) + b"\n" + lines[3][: len(lines[3]) // 2])
    sandbox.clear_requests()
    async with paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None) as aclient:
        resumed = await aclient.snowball(seeds, direction="citations", depth=2, checkpoint=checkpoint)
    assert resumed.node_rows() == whole.node_rows() and resumed.edge_rows() == whole.edge_rows()
    relation_pages = len(whole.request_ids) - 1
    assert len(relation_requests(sandbox)) == relation_pages - 1 and seed_lookups(sandbox) == []
    assert resumed.node_rows()[: len(seeds)] == seed_rows(resumed, seed_records(client, seeds))
    assert checkpoint.read_bytes().count(b"\n") == len(lines) - 1


def test_a_checkpoint_of_another_call_is_refused(sandbox, client, seeds, tmp_path):
    checkpoint = tmp_path / "snowball.ckpt"
    client.snowball(seeds, direction="references", checkpoint=checkpoint)
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as raised:
        client.snowball(seeds, direction="references", depth=2, checkpoint=checkpoint)
    assert raised.value.param == "checkpoint" and "does not record this snowball call" in str(raised.value)
    (tmp_path / "other.txt").write_text("not a checkpoint\n")
    with pytest.raises(paperlens.ValidationError):
        client.snowball(seeds, checkpoint=tmp_path / "other.txt")
    assert sandbox.requests() == []


def test_the_refusal_of_a_checkpoint_of_10000_seeds_is_short_and_counts_them(sandbox, client, seeds, tmp_path):
    recorded = [f"W{4000000000 + i}" for i in range(10_000)]
    checkpoint = tmp_path / "wide.ckpt"
    header = {"paperlens_snowball": 1, "parameters": {"seeds": recorded, "direction": "both"}, "started": "then"}
    checkpoint.write_text(json.dumps(header) + "\n")
    with pytest.raises(paperlens.ValidationError) as raised:
        client.snowball(seeds, checkpoint=checkpoint)
    shown = ", ".join(repr(seed) for seed in recorded[:5])
    assert str(raised.value) == (
        f"checkpoint {checkpoint} does not record this snowball call (it records 10000 items in 'seeds', "
        f"{{'direction': 'both', 'seeds': [{shown}, ...]}}): use another path, or remove it to start over"
    )
    assert raised.value.param == "checkpoint"
    assert sandbox.requests() == []


@pytest.mark.parametrize(
    "recorded",
    ["x" * 1_000_000, {f"key{i}": [i] * 50 for i in range(1000)}, [[["deep"] * 100] * 100] * 100],
    ids=["a long string", "a thousand lists", "nested lists"],
)
def test_a_checkpoint_recording_any_large_value_is_refused_in_at_most_300_characters_of_it(
    sandbox, client, seeds, tmp_path, recorded
):
    checkpoint = tmp_path / "foreign.ckpt"
    checkpoint.write_text(json.dumps({"paperlens_snowball": 1, "parameters": recorded}) + "\n")
    with pytest.raises(paperlens.ValidationError) as raised:
        client.snowball(seeds, checkpoint=checkpoint)
    start = f"checkpoint {checkpoint} does not record this snowball call (it records "
    end = "): use another path, or remove it to start over"
    message = str(raised.value)
    assert message.startswith(start) and message.endswith(end)
    assert len(message) - len(start) - len(end) <= 300
    assert sandbox.requests() == []


def test_frames_graph_and_display(client, seeds):
    pytest.importorskip("pandas")
    nx = pytest.importorskip("networkx")
    network = client.snowball(seeds, depth=1)
    nodes, edges = network.nodes, network.edges
    assert list(nodes.columns[:4]) == ["id", "depth", "id_type", "title"]
    assert str(nodes["depth"].dtype) == "Int64" and str(nodes["publication_published_year"].dtype) == "Int64"
    assert list(edges.columns) == ["source", "target", "direction"] and len(edges) == len(network.edge_rows())
    graph = network.to_networkx()
    assert isinstance(graph, nx.DiGraph) and graph.number_of_nodes() == len(network)
    for row in network.edge_rows():
        citing, cited = row["source"], row["target"]
        assert graph.edges[citing, cited]["direction"] == row["direction"]
    some_reference = next(r for r in network.edge_rows() if r["source"] == seeds[0])
    assert graph.nodes[some_reference["target"]]["depth"] == 1 and graph.nodes[seeds[0]]["depth"] == 0
    assert graph.graph["seeds"] == seeds
    assert repr(network).startswith(f"CitationNetwork({len(network)} nodes, {len(edges)} edges, seeds=")
    assert "nodes" in network._repr_html_()


def present(row: dict[str, Any]) -> dict[str, Any]:
    """A row without its missing values (None, and a frame's NaN or pd.NA): a field the record
    leaves out and one a relation item gives as null are both missing."""
    import pandas as pd

    def missing(value: Any) -> bool:
        return value is None or (pd.api.types.is_scalar(value) and pd.isna(value))

    return {name: value for name, value in row.items() if not missing(value)}


def test_450_seeds_take_one_lookup_per_200_and_every_output_holds_their_values(tmp_path):
    pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    nx = pytest.importorskip("networkx")
    with Sandbox(papers=2000, seed=1) as sandbox:
        client = sandbox_client(sandbox, max_retries=0)
        seeds = [r.unique_id for r in client.iter_meta_search(None, fields=["unique_id"], limit=450).to_list()]
        records = seed_records(client, seeds)
        call = dict(direction="references", depth=1, max_per_paper=2)
        sandbox.clear_requests()
        network = client.snowball(seeds, **call)
        assert seed_lookups(sandbox) == [seeds[:200], seeds[200:400], seeds[400:]]
        assert len(network.request_ids) == 3 + len(relation_requests(sandbox))
        # Interrupted at the second lookup, resumed: only the lookups missing are sent again.
        checkpoint = tmp_path / "snowball.ckpt"
        with pytest.raises(paperlens.ServerError):
            FailingClient(sandbox, 2).snowball(seeds, checkpoint=checkpoint, **call)
        sandbox.clear_requests()
        resumed = client.snowball(seeds, checkpoint=checkpoint, **call)
        assert seed_lookups(sandbox) == [seeds[200:400], seeds[400:]]
    rows = seed_rows(network, records)
    assert len(records) == len(seeds) and all(row["title"] for row in rows)
    assert sum("doi" in row and "publication_published_year" in row for row in rows) > len(rows) / 2
    assert [present(row) for row in network.node_rows()[: len(seeds)]] == rows
    assert resumed.node_rows() == network.node_rows() and resumed.edge_rows() == network.edge_rows()
    assert [present(row) for row in network.nodes.to_dict("records")[: len(seeds)]] == rows
    graph = network.to_networkx()  # absent values left out
    assert [{"id": seed, **graph.nodes[seed]} for seed in seeds] == rows
    out = network.write(tmp_path / "network", graphml=True)
    nodes = pq.read_table(out / "nodes.parquet")
    assert nodes.column("depth").to_pylist()[: len(seeds)] == [0] * len(seeds)
    assert read_table_records(nodes)[: len(seeds)] == [{k: v for k, v in row.items() if k != "depth"} for row in rows]
    written = nx.read_graphml(out / "network.graphml")
    assert [{"id": seed, **written.nodes[seed]} for seed in seeds] == rows


def test_citations_are_topical_and_skewed():
    with Sandbox(papers=3000, seed=3) as sandbox:
        client = sandbox_client(sandbox)
        fields = ["unique_id", "primary_topic", "citation_count"]
        records = client.iter_meta_search(None, fields=fields, page_size=200).to_list()
        topic = {r.unique_id: r.primary_topic["display_name"] for r in records}
        seeds = [r.unique_id for r in records[:5]]
        network = client.snowball(seeds, direction="references", depth=2)
    inner = [(row["source"], row["target"]) for row in network.edge_rows() if row["target"] in topic]
    same = sum(topic[citing] == topic[cited] for citing, cited in inner) / len(inner)
    assert len(inner) > 200 and 0.6 <= same <= 0.92, same
    counts = sorted((r.citation_count or 0 for r in records), reverse=True)
    median, top_decile = statistics.median(counts), sum(counts[: len(counts) // 10])
    assert counts[0] >= 10 * median and top_decile >= 0.25 * sum(counts)


def test_cli_writes_parquet_graphml_and_manifest(sandbox, seeds, tmp_path, monkeypatch, capsys):
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    nx = pytest.importorskip("networkx")
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.delenv("PAPERLENS_CACHE_DIR", raising=False)
    out = tmp_path / "network"
    argv = ["snowball", *seeds, "--depth", "2", "--max-per-paper", "20", "--out", str(out), "--graphml"]
    sandbox.clear_requests()
    assert main([*argv, "--checkpoint", str(tmp_path / "ckpt"), "--no-progress"]) == 0
    sent = relation_requests(sandbox)
    assert seed_lookups(sandbox) == [seeds]
    client = sandbox_client(sandbox)
    expected = client.snowball(seeds, depth=2, max_per_paper=20)
    assert capsys.readouterr().out.startswith(f"{len(expected)} nodes and {len(expected.edge_rows())} edges")
    nodes = pq.read_table(out / "nodes.parquet")
    rows = expected.node_rows()
    assert nodes.column("depth").to_pylist() == [row.pop("depth") for row in rows]
    assert read_table_records(nodes) == [{k: v for k, v in row.items() if v is not None} for row in rows]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "edges.parquet"), expected.edges)
    graph = nx.read_graphml(out / "network.graphml")
    assert set(graph.edges) == set(expected.to_networkx().edges)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["call"] == "snowball"
    assert manifest["parameters"] == {
        "seeds": seeds,
        "direction": "both",
        "depth": 2,
        "max_per_paper": 20,
        "limit": None,
    }
    assert manifest["base_url"].rstrip("/") == sandbox.base_url and manifest["sandbox"] == {"papers": 600, "seed": 0}
    requests = 1 + len(sent)  # the seeds' lookup, then the relation pages
    assert manifest["counts"] == {"nodes": len(expected), "edges": len(expected.edge_rows()), "requests": requests}
    assert len(manifest["request_ids"]) == requests and all(manifest["request_ids"])
    assert manifest["started"] <= manifest["finished"] and manifest["sdk"]["name"] == "paperlens"
    assert sandbox.token not in (out / "manifest.json").read_text()
    # The same command again: returned from the checkpoint, the files rewritten the same.
    sandbox.clear_requests()
    assert main([*argv, "--checkpoint", str(tmp_path / "ckpt"), "--no-progress"]) == 0
    assert sandbox.requests() == []
    assert json.loads((out / "manifest.json").read_text())["request_ids"] == manifest["request_ids"]
    # Another call into the same output is refused (exit 1, the manifest names the conflict).
    assert main(["snowball", *seeds, "--depth", "1", "--out", str(out), "--no-progress"]) != 0
    assert "other parameters" in capsys.readouterr().err


def meta_search_answer(results: list[dict[str, Any]], total: Any = None) -> dict[str, Any]:
    return {
        "results": results,
        "total_count": len(results) if total is None else total,
        "page": 1,
        "page_size": 200,
        "total_pages": 1,
        "search_time_ms": 1.5,
        "next_cursor": "",
    }


def relations_answer(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "items": items,
        "total_count": len(items),
        "page": 1,
        "page_size": 200,
        "total_pages": 1 if items else 0,
        "code": "SUCCESS",
        "message": "ok",
        "biz_code": 0,
    }


def test_the_seeds_records_are_read_as_the_contract_allows(httpserver: HTTPServer, make_client):
    """Fields absent or null, extra properties, integers and counts as digit strings, records
    not asked for or without a ``unique_id``: the seeds take what matches them; an item citing
    a seed fills what its record left null; a seed without a record keeps its id."""
    extra = {"tier": "1", "lists": ["A", None], "nested": {"k": [1, 2.5]}}
    records = [
        {"unique_id": "S2", "title": None, "publication_published_year": None},
        {"unique_id": "W-other", "title": "not asked for"},
        {
            "unique_id": "S1",
            "title": "Première graine 🌱",
            "doi": "10.1/S1",
            "publication_published_year": "2021",
            "doc_id": "ab" * 32,
            "venue_rank": extra,
        },
        {"title": "a record without unique_id"},
    ]
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(meta_search_answer(records, "4"))
    citing = [{"id": "S2", "id_type": "unique_id", "title": "Second seed, as cited", "doi": "10.1/s2", "x": 1}]

    def answer(request: Any) -> Any:
        from werkzeug import Response

        items = citing if json.loads(request.get_data())["unique_id"] == "S1" else []
        return Response(json.dumps(relations_answer(items)), content_type="application/json")

    httpserver.expect_request(PATH, method="POST").respond_with_handler(answer)
    network = make_client().snowball(["S1", "S2", "S3"], direction="citations")
    (lookup,) = [json.loads(r.get_data()) for r, _ in httpserver.log if r.path == "/meta-search"]
    assert lookup["filters"][0]["value"] == ["S1", "S2", "S3"] and lookup["fields"] == SEED_FIELDS
    assert network.node_rows() == [
        {
            "id": "S1",
            "id_type": "unique_id",
            "title": "Première graine 🌱",
            "doi": "10.1/S1",
            "publication_published_year": 2021,
            "doc_id": "ab" * 32,
            "venue_rank": extra,
            "depth": 0,
        },
        {
            "id": "S2",
            "id_type": "unique_id",
            "title": "Second seed, as cited",
            "publication_published_year": None,
            "doi": "10.1/s2",
            "x": 1,
            "depth": 0,
        },
        {"id": "S3", "id_type": "unique_id", "depth": 0},
    ]
    assert network.edge_rows() == [{"source": "S2", "target": "S1", "direction": "citations"}]


def test_pages_beyond_the_first_ask_only_for_the_items_missing(httpserver: HTTPServer, make_client):
    """A list of 450 citations capped at 430: pages of 200, 200, then 40 items from item 400."""
    citing = [{"id": f"W{i}", "id_type": "unique_id", "title": f"paper {i}"} for i in range(450)]

    def answer(request: Any) -> Any:
        from werkzeug import Response

        body = json.loads(request.get_data())
        page, size = body.get("page", 1), body.get("page_size", 25)
        items = citing[(page - 1) * size : page * size] if body["unique_id"] == "S" else []
        total = 450 if body["unique_id"] == "S" else 0
        answer = {
            "items": items,
            "total_count": total,
            "page": page,
            "page_size": size,
            "total_pages": math.ceil(total / size),
            "code": "SUCCESS",
            "message": "ok",
            "biz_code": 0,
        }
        return Response(json.dumps(answer), content_type="application/json")

    httpserver.expect_request(PATH, method="POST").respond_with_handler(answer)
    httpserver.expect_request("/meta-search", method="POST").respond_with_json(meta_search_answer([]))
    client: paperlens.Client = make_client()
    network = client.snowball(["S"], direction="citations", max_per_paper=430)
    bodies = [json.loads(r.get_data()) for r, _ in httpserver.log if r.path == PATH]
    asked = [(b["page"], b["page_size"]) for b in bodies]
    assert asked == [(1, 200), (2, 200), (11, 40)]
    assert [row["source"] for row in network.edge_rows()] == [f"W{i}" for i in range(430)]
    assert len(network) == 431


def test_request_counts_stay_minimal_on_a_wide_snowball(sandbox, client):
    records = client.meta_search(None, page_size=12, fields=["unique_id"]).results
    seeds = [r.unique_id for r in records]
    _, _, pages = expected_network(client, seeds, "both", 1)
    sandbox.clear_requests()
    network = client.snowball(seeds + seeds[:3], depth=1)
    assert seed_lookups(sandbox) == [seeds]
    assert len(relation_requests(sandbox)) == pages == 2 * len(seeds) == len(network.request_ids) - 1


def test_progress_shows_the_frontier(client, seeds, capsys):
    pytest.importorskip("tqdm")
    network = client.snowball(seeds, depth=2, max_per_paper=5, progress=True)
    shown = capsys.readouterr().err
    frontier = sum(1 for row in network.node_rows() if row["depth"] == 1 and row.get("id_type") == "unique_id")
    assert f"depth 1/2, frontier {len(seeds)}" in shown and f"depth 2/2, frontier {frontier}" in shown
    assert f"{len(network)} nodes" in shown
