"""Bibliometric networks equal an independent computation from the raw answers: the records of
a sandbox search (as records, a paginator, a DataFrame, a polars frame and Parquet and JSONL
harvests), hand-made records the contract allows, and with ``complete=True`` the relation lists
(against the sandbox and a hand-made server), exact in what they send and resumable."""

from __future__ import annotations

import inspect
import itertools
import json
from collections import Counter
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.bibliometrics import (
    bibliographic_coupling,
    co_authorship,
    co_citation,
    co_occurrence,
    direct_citation,
    estimate_references,
)
from paperlens.harvest import harvest, read_records

from fixtures import sandbox_client, strict_client  # noqa: F401 (the client fixture)

PATH = "/meta-paper-relations"
QUERY = "coral reef"


# -- the independent computation -------------------------------------------------------------------


def distinct(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, kept = set(), []
    for record in records:
        if record["unique_id"] not in seen:
            seen.add(record["unique_id"])
            kept.append(record)
    return kept


def bare_doi(text: str) -> str | None:
    low = text.strip().lower()
    for prefix in ("https://doi.org/", "http://dx.doi.org/", "doi:"):
        if low.startswith(prefix):
            low = low[len(prefix) :]
    return low if low.startswith("10.") else None


def work(reference: str, dois: dict[str, str]) -> str:
    """A cited work: the record or relation item naming that DOI, else the DOI, else the id."""
    doi = bare_doi(reference)
    return dois.get(doi, doi) if doi else reference.strip()


def doi_index(records: list[dict[str, Any]]) -> dict[str, str]:
    dois: dict[str, str] = {}
    for record in records:
        if record.get("doi"):
            dois.setdefault(record["doi"].lower(), record["unique_id"])
    return dois


def cited_sets(records: list[dict[str, Any]], lists: dict[str, list[str]] | None = None, dois=None):
    docs = distinct(records)
    dois = doi_index(docs) if dois is None else dois
    given = lists if lists is not None else {r["unique_id"]: r.get("references") or [] for r in docs}
    return docs, {r["unique_id"]: {work(x, dois) for x in given[r["unique_id"]]} for r in docs}


def expected_co_citation(cited: dict[str, set[str]], min_weight: int) -> dict[frozenset[str], list[str]]:
    pairs: dict[frozenset[str], list[str]] = {}
    for doc, works in cited.items():
        for a, b in itertools.combinations(sorted(works), 2):
            pairs.setdefault(frozenset((a, b)), []).append(doc)
    return {pair: sorted(docs) for pair, docs in pairs.items() if len(docs) >= min_weight}


def expected_coupling(cited: dict[str, set[str]], min_weight: int) -> dict[frozenset[str], list[str]]:
    links = {}
    for a, b in itertools.combinations(cited, 2):
        shared = cited[a] & cited[b]
        if shared and len(shared) >= min_weight:
            links[frozenset((a, b))] = sorted(shared)
    return links


def expected_direct(cited: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    return {(doc, other): [doc] for doc, works in cited.items() for other in works if other in cited and other != doc}


def expected_items(docs: list[dict[str, Any]], items_of, min_weight: int) -> dict[frozenset[str], list[str]]:
    pairs: dict[frozenset[str], list[str]] = {}
    for doc in docs:
        for a, b in itertools.combinations(sorted(items_of(doc)), 2):
            pairs.setdefault(frozenset((a, b)), []).append(doc["unique_id"])
    return {pair: sorted(ids) for pair, ids in pairs.items() if len(ids) >= min_weight}


def author_ids(doc: dict[str, Any]) -> set[str]:
    found = set()
    for author in doc.get("author") or []:
        orcid = (author.get("orcid") or "").strip()
        name = " ".join((author.get("name") or "").split())
        if orcid:
            found.add(orcid.rsplit("/", 1)[-1].upper())
        elif name:
            found.add(name)
    return found


def keyword_ids(doc: dict[str, Any]) -> set[str]:
    words = doc.get("keywords") or []
    return {" ".join(w.split()).casefold() for w in ([words] if isinstance(words, str) else words)}


def edge_map(network) -> dict[Any, list[str]]:
    """The network's links, each to its records; every weight is its records' count."""
    edges = network.edges
    assert [int(w) for w in edges["weight"]] == [len(r) for r in edges["records"]]
    assert len(edges) == len({frozenset((s, t)) for s, t in zip(edges["source"], edges["target"], strict=True)})
    shape = (lambda s, t: (s, t)) if network.directed else (lambda s, t: frozenset((s, t)))
    return {
        shape(s, t): sorted(records)
        for s, t, records in zip(edges["source"], edges["target"], edges["records"], strict=True)
    }


def node_counts(network) -> dict[str, int]:
    nodes = network.nodes
    return dict(zip(nodes["id"], (int(c) for c in nodes[network.count_name]), strict=True))


# -- the sandbox's records, from every kind of source ---------------------------------------------


@pytest.fixture(scope="module")
def records(sandbox) -> list[dict[str, Any]]:
    return [r.to_dict() for r in sandbox_client(sandbox).iter_meta_search(QUERY)]


@pytest.fixture(scope="module")
def harvested(sandbox, tmp_path_factory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("harvests")
    client = sandbox_client(sandbox)
    parquet = harvest(client, QUERY, out=folder / "reef", format="parquet")
    jsonl = harvest(client, QUERY, out=folder / "reef.jsonl", format="jsonl")
    return {"parquet": parquet, "jsonl": jsonl.out}


def sources(sandbox, records, harvested) -> dict[str, Any]:
    client = sandbox_client(sandbox)
    return {
        "dicts": records,
        "results": client.iter_meta_search(QUERY).to_list(),
        "paginator": client.iter_meta_search(QUERY),
        "pandas": client.iter_meta_search(QUERY).to_pandas(),
        "polars": client.iter_meta_search(QUERY).to_polars(),
        "parquet path": str(harvested["parquet"].out),
        "harvest result": harvested["parquet"],
        "jsonl": harvested["jsonl"],
    }


@pytest.mark.parametrize("min_weight", [1, 2, 4])
def test_each_network_equals_the_computation_from_the_raw_answers(sandbox, records, harvested, min_weight):
    assert len(records) > 100
    docs, cited = cited_sets(records)
    expected = {
        "co-citation": expected_co_citation(cited, min_weight),
        "coupling": expected_coupling(cited, min_weight),
        "direct": expected_direct(cited) if min_weight == 1 else {},
        "authors": expected_items(docs, author_ids, min_weight),
        "words": expected_items(docs, keyword_ids, min_weight),
    }
    assert all(len(links) > 10 for name, links in expected.items() if min_weight == 1 or name != "direct")
    citations = Counter(w for works in cited.values() for w in works)
    for name, source in sources(sandbox, records, harvested).items():
        built = {
            "co-citation": co_citation(source, min_weight=min_weight),
            "coupling": bibliographic_coupling(source, min_weight=min_weight),
            "direct": direct_citation(source, min_weight=min_weight),
            "authors": co_authorship(source, min_weight=min_weight),
            "words": co_occurrence(source, min_weight=min_weight),
        }
        for kind, network in built.items():
            assert edge_map(network) == expected[kind], (name, kind)
        assert node_counts(built["co-citation"]) == dict(citations), name
        assert node_counts(built["coupling"]) == {doc: len(works) for doc, works in cited.items()}, name
        assert node_counts(built["words"]) == Counter(w for doc in docs for w in keyword_ids(doc)), name
        assert node_counts(built["authors"]) == Counter(a for doc in docs for a in author_ids(doc)), name


def test_nodes_carry_titles_links_and_strength(records):
    network = co_citation(records, min_weight=2)
    docs, cited = cited_sets(records)
    titles = {d["unique_id"]: d["title"] for d in docs}
    nodes = network.nodes.set_index("id")
    for key, row in nodes.iterrows():
        assert row["label"] == titles.get(key, key)
    links = expected_co_citation(cited, 2)
    strength = Counter()
    degree = Counter()
    for pair, docs_of in links.items():
        for node in pair:
            strength[node] += len(docs_of)
            degree[node] += 1
    assert {k: int(v) for k, v in nodes["strength"].items() if v} == dict(strength)
    assert {k: int(v) for k, v in nodes["links"].items() if v} == dict(degree)
    assert list(network.edges["weight"]) == sorted(network.edges["weight"], reverse=True)


def test_truncated_reference_lists_are_told(records):
    short = sorted(
        r["unique_id"] for r in distinct(records) if len(r.get("references") or []) < int(r.get("reference_count", 0))
    )
    assert short  # the sandbox truncates the references field
    for build in (co_citation, bibliographic_coupling, direct_citation):
        network = build(records)
        assert network.truncated and sorted(network.short_lists) == short
    assert not co_authorship(records).truncated


# -- hand-made records the contract allows ---------------------------------------------------------

HAND_MADE = [
    {
        "unique_id": "W1",
        "doi": "10.1/A",
        "reference_count": "3",
        "references": ["W9", "https://doi.org/10.5/X", "W9"],
        "author": [
            {"name": "Ada  Lovelace", "orcid": "https://orcid.org/0000-0002-1825-0097"},
            {"name": "Bo Chen", "orcid": None},
        ],
        "keywords": ["Coral Reef", "bleaching"],
        "to_dict": "an extra property",
    },
    {
        "unique_id": "W2",
        "reference_count": 5,
        "references": ["W9", "10.5/x", "W1"],
        "author": [{"name": "A. Lovelace", "orcid": "0000-0002-1825-0097"}, {"name": "Bo\tChen"}],
        "keywords": ["coral  reef", "Bleaching", "bleaching"],
    },
    {"unique_id": "W3", "references": None, "author": None, "keywords": None},
    {"unique_id": "W4", "references": ["doi:10.1/a"], "author": [{"orcid": "0000-0002-1825-0097"}], "keywords": "one"},
    {"unique_id": "W1", "references": ["W7", "W8"], "author": [{"name": "Not Counted"}]},
]


@pytest.mark.parametrize("as_frame", [False, True], ids=["dicts", "pandas"])
def test_hand_made_records(as_frame):
    import pandas as pd

    source = pd.DataFrame(HAND_MADE) if as_frame else HAND_MADE
    cocited = co_citation(source)
    assert edge_map(cocited) == {
        frozenset(("W9", "10.5/x")): ["W1", "W2"],
        frozenset(("W9", "W1")): ["W2"],
        frozenset(("10.5/x", "W1")): ["W2"],
    }
    assert node_counts(cocited) == {"W9": 2, "10.5/x": 2, "W1": 2}
    assert cocited.truncated and cocited.short_lists == ["W2"]
    assert edge_map(bibliographic_coupling(source)) == {
        frozenset(("W1", "W2")): ["10.5/x", "W9"],
        frozenset(("W2", "W4")): ["W1"],
    }
    assert edge_map(bibliographic_coupling(source, min_weight=2)) == {frozenset(("W1", "W2")): ["10.5/x", "W9"]}
    assert edge_map(direct_citation(source)) == {("W2", "W1"): ["W2"], ("W4", "W1"): ["W4"]}
    authors = co_authorship(source)
    assert edge_map(authors) == {frozenset(("0000-0002-1825-0097", "Bo Chen")): ["W1", "W2"]}
    assert dict(zip(authors.nodes["id"], authors.nodes["label"], strict=True)) == {
        "0000-0002-1825-0097": "Ada Lovelace",
        "Bo Chen": "Bo Chen",
    }
    assert node_counts(authors) == {"0000-0002-1825-0097": 3, "Bo Chen": 2}
    words = co_occurrence(source)
    assert edge_map(words) == {frozenset(("coral reef", "bleaching")): ["W1", "W2"]}
    assert dict(zip(words.nodes["id"], words.nodes["label"], strict=True)) == {
        "coral reef": "Coral Reef",
        "bleaching": "bleaching",
        "one": "one",
    }


def test_topics_and_dotted_fields():
    records = [
        {"unique_id": "A", "topics": [{"display_name": "Reefs", "score": 0.9}, {"display_name": "Ocean"}]},
        {"unique_id": "B", "topics": [{"display_name": "reefs"}, {"display_name": "Ocean", "id": "T2"}]},
        {"unique_id": "C", "primary_topic": {"display_name": "Ocean"}},
    ]
    assert edge_map(co_occurrence(records, field="topics")) == {frozenset(("reefs", "ocean")): ["A", "B"]}
    assert node_counts(co_occurrence(records, field="topics.display_name")) == {"reefs": 2, "ocean": 2}
    assert node_counts(co_occurrence(records, field="primary_topic")) == {"ocean": 1}


def test_a_snowball_network_is_a_source(client):
    seed = client.meta_search(QUERY, page_size=1).results[0].unique_id
    network = client.snowball([seed], direction="references", depth=2, max_per_paper=30)
    direct = direct_citation(network)
    assert edge_map(direct) == {(s, t): [s] for s, t in network._edges}
    cited: dict[str, set[str]] = {}
    for s, t in network._edges:
        cited.setdefault(s, set()).add(t)
    assert edge_map(co_citation(network)) == expected_co_citation(cited, 1)


def test_complete_asks_only_for_the_papers_of_a_snowball(sandbox, client):
    seed = client.meta_search(QUERY, page_size=1).results[0].unique_id
    network = client.snowball([seed], direction="references", depth=1, max_per_paper=40)
    papers = [row["id"] for row in network.node_rows() if row["id_type"] == "unique_id"]
    assert 1 < len(papers) < len(network)  # works outside the service are leaves named by DOIs
    estimate = estimate_references(network)
    sandbox.clear_requests()
    complete = co_citation(network, client=client, complete=True)
    assert [(r[0], r[2]) for r in relation_requests(sandbox)] == [(key, 1) for key in papers]
    assert estimate.requests == estimate.documents == len(papers) == len(complete.requests)


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: co_citation(HAND_MADE, min_weight=0), "min_weight"),
        (lambda: co_citation(HAND_MADE, min_weight=True), "min_weight"),
        (lambda: co_citation(HAND_MADE, complete=True), "client"),
        (lambda: co_citation(HAND_MADE, complete="yes"), "complete"),
        (lambda: co_citation(HAND_MADE, checkpoint="x.ckpt"), "checkpoint"),
        (lambda: co_citation(HAND_MADE, client=object(), complete=True), "client"),
        (lambda: co_citation(42), "source"),
        (lambda: co_citation({"unique_id": "W1"}), "source"),
        (lambda: co_citation("no/such/harvest"), "source"),
        (lambda: co_authorship([{"unique_id": "W1"}, {"title": "no id"}]), "source[1]"),
        (lambda: co_authorship(["W1"]), "source[0]"),
        (lambda: co_occurrence(HAND_MADE, field=""), "field"),
        (lambda: co_occurrence(HAND_MADE, field=None), "field"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(call, param):
    with pytest.raises(paperlens.ValidationError) as caught:
        call()
    assert caught.value.param == param


def test_bad_input_sends_nothing(sandbox, client, records):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError):
        co_citation(records, client=client, complete=True, min_weight=0)
    with pytest.raises(paperlens.ValidationError):
        co_citation([*records, {"title": "no id"}], client=client, complete=True)
    assert sandbox.requests() == []


@pytest.mark.parametrize("checkpoint", [42, b"references.ckpt", "", ["references.ckpt"]], ids=repr)
def test_a_checkpoint_that_is_no_path_is_refused_before_anything_runs(sandbox, client, records, checkpoint):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as caught:
        co_citation(records, client=client, complete=True, checkpoint=checkpoint)
    assert str(caught.value) == (
        f"checkpoint: must be a path (a non-empty str or os.PathLike, without NUL) (got {checkpoint!r})"
    )
    assert sandbox.requests() == []


@pytest.mark.parametrize("build", [bibliographic_coupling, direct_citation])
def test_coupling_and_direct_citation_take_the_parameters_of_co_citation(sandbox, client, records, build):
    assert inspect.signature(build) == inspect.signature(co_citation)
    assert build.__annotations__ == co_citation.__annotations__
    sandbox.clear_requests()
    with pytest.raises(TypeError, match=rf"^{build.__name__}\(\): got an unexpected keyword argument 'min_weigth'"):
        build(records, client=client, complete=True, min_weigth=2)
    with pytest.raises(TypeError, match=rf"^{build.__name__}\(\): too many positional arguments"):
        build(records, client)
    with pytest.raises(TypeError, match=rf"^{build.__name__}\(\): missing a required argument: 'source'"):
        build(client=client)
    with pytest.raises(paperlens.ValidationError) as caught:
        build(records, client=client, complete=True, min_weight=0)
    assert caught.value.param == "min_weight"
    assert sandbox.requests() == []


# -- complete=True -----------------------------------------------------------------------------------


def relation_requests(sandbox) -> list[tuple[str, str, int, int]]:
    return [
        (body["unique_id"], body["relation"], body["page"], body["page_size"])
        for body in (r.json() for r in sandbox.requests() if r.path == PATH)
    ]


def test_complete_lists_come_from_the_relations(sandbox, client, records):
    chosen = records[:40]
    whole = {r["unique_id"]: client.iter_paper_relations(r["unique_id"], "REFERENCES").to_list() for r in chosen}
    lists = {key: [item.id for item in items] for key, items in whole.items()}
    dois = doi_index(chosen)
    for items in whole.values():
        for item in items:
            if item.id_type == "unique_id" and item.to_dict().get("doi"):
                dois.setdefault(item.to_dict()["doi"].lower(), item.id)
    _docs, cited = cited_sets(chosen, lists, dois)
    estimate = estimate_references(chosen, client=client)
    sandbox.clear_requests()

    network = co_citation(chosen, client=client, complete=True)

    sent = relation_requests(sandbox)
    assert [r.path for r in sandbox.requests()] == [PATH] * len(sent)
    assert sent == [(r["unique_id"], "REFERENCES", 1, 200) for r in chosen]  # every list fits one page
    assert estimate.requests == len(sent) == len(network.requests)
    assert not network.truncated
    assert edge_map(network) == expected_co_citation(cited, 1)
    titles = {item.id: item.title for items in whole.values() for item in items}
    labels = dict(zip(network.nodes["id"], network.nodes["label"], strict=True))
    assert all(labels[key] == titles[key] for key in labels if key in titles)
    assert edge_map(bibliographic_coupling(chosen, client=client, complete=True)) == expected_coupling(cited, 1)
    assert edge_map(direct_citation(chosen, client=client, complete=True)) == expected_direct(cited)


def test_the_estimate_reads_no_pacing_and_sends_nothing(sandbox, records):
    """No quota is stated for /meta-paper-relations: a client, paced or not, changes nothing."""
    chosen = [*records[:20], {"unique_id": "W-none"}, {"unique_id": "W-long", "reference_count": "450"}]
    paced = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 5})
    sandbox.clear_requests()
    alone, with_client = estimate_references(chosen), estimate_references(chosen, client=paced)
    known = [int(r["reference_count"]) for r in chosen if r.get("reference_count") is not None]
    pages = sum(max(1, -(-count // 200)) for count in known) + len(chosen) - len(known)
    expected = (
        f"Reference lists of {len(chosen)} documents: ~{pages} requests to /meta-paper-relations "
        f"({len(known)} reference_count known); time: network-bound (no quota stated)"
    )
    assert str(alone) == str(with_client) == expected
    assert with_client == alone and alone.operation.seconds is None
    with pytest.raises(paperlens.ValidationError) as caught:
        estimate_references(chosen, client="http://127.0.0.1")
    assert caught.value.param == "client"
    assert sandbox.requests() == []


class FailingClient(paperlens.Client):
    """A client whose ``at``-th request meets a 500 injected into the sandbox just before."""

    def __init__(self, sandbox, at: int) -> None:
        super().__init__(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None, max_retries=0)
        self.sandbox, self.at, self.sent = sandbox, at, 0

    def _call(self, operation: str, model: Any, params: Any, *, stacklevel: int = 4) -> Any:
        self.sent += 1
        if self.sent == self.at:
            self.sandbox.inject_fault(PATH, status=500)
        return super()._call(operation, model, params, stacklevel=stacklevel + 1)


def test_complete_resumes_from_its_checkpoint(sandbox, client, records, tmp_path):
    chosen = records[:30]
    whole = co_citation(chosen, client=client, complete=True)
    checkpoint = tmp_path / "references.ckpt"
    sandbox.clear_requests()
    with pytest.raises(paperlens.ServerError):
        co_citation(chosen, client=FailingClient(sandbox, 12), complete=True, checkpoint=checkpoint)
    first = relation_requests(sandbox)
    sandbox.clear_requests()
    resumed = co_citation(chosen, client=client, complete=True, checkpoint=checkpoint)
    second = relation_requests(sandbox)
    assert len(first) == 12 and len(second) == len(chosen) - 11  # the failed page is asked again, once
    assert first[:11] + second == [(r["unique_id"], "REFERENCES", 1, 200) for r in chosen]
    assert edge_map(resumed) == edge_map(whole)
    assert len(set(resumed.requests)) == len(whole.requests) == len(chosen)  # a request id per page, replayed too
    sandbox.clear_requests()
    assert edge_map(co_citation(chosen, client=client, complete=True, checkpoint=checkpoint)) == edge_map(whole)
    assert sandbox.requests() == []  # a finished run is replayed from the checkpoint
    with pytest.raises(paperlens.ValidationError) as caught:
        co_citation(chosen[:5], client=client, complete=True, checkpoint=checkpoint)
    assert caught.value.param == "checkpoint"


def test_checkpoint_errors_name_bibliometrics_not_snowball(sandbox, client, records, tmp_path):
    checkpoint, notes, later = tmp_path / "references.ckpt", tmp_path / "notes.txt", tmp_path / "later.ckpt"
    co_citation(records[:2], client=client, complete=True, checkpoint=checkpoint)
    notes.write_text("not a checkpoint\n")
    later.write_text(json.dumps({"paperlens_snowball": 2, "parameters": {}}) + "\n")
    sandbox.clear_requests()
    refusals = []
    for path, chosen in ((checkpoint, records[2:4]), (notes, records[:2]), (later, records[:2])):
        with pytest.raises(paperlens.ValidationError) as caught:
            co_citation(chosen, client=client, complete=True, checkpoint=path)
        assert caught.value.param == "checkpoint"
        refusals.append(str(caught.value))
    recorded = {"references_of": [r["unique_id"] for r in records[:2]]}
    start_over, not_json = "use another path, or remove it to start over", "Expecting value: line 1 column 1 (char 0)"
    assert refusals == [
        f"checkpoint {checkpoint} does not record this bibliometrics call (it records {recorded}): {start_over}",
        f"checkpoint {notes} is not a bibliometrics checkpoint ({not_json}): {start_over}",
        f"checkpoint {later} is not a bibliometrics checkpoint of this version: {start_over}",
    ]
    assert sandbox.requests() == []


def test_a_checkpoint_in_the_format_of_earlier_versions_is_replayed(sandbox, client, records, tmp_path):
    """The file format is unchanged (its header key ``paperlens_snowball`` too): a checkpoint
    written by hand as earlier versions wrote it gives its lists, with no request."""
    chosen = records[:3]
    ids = [r["unique_id"] for r in chosen]
    lists = {ids[0]: ["WA", "WB", "WC"], ids[1]: ["WA", "WB"], ids[2]: ["WB", "WC", "WD"]}
    lines = [{"paperlens_snowball": 1, "parameters": {"references_of": ids}, "started": "2026-01-01T00:00:00Z"}]
    for n, key in enumerate(ids):
        items = [{"id": w, "id_type": "unique_id", "title": f"Title of {w}"} for w in lists[key]]
        lines.append(
            {
                "unique_id": key,
                "relation": "REFERENCES",
                "page": 1,
                "page_size": 200,
                "items": items,
                "total_count": len(items),
                "total_pages": 1,
                "request_id": f"r-{n}",
            }
        )
    lines.append({"finished": "2026-01-01T00:01:00Z"})
    checkpoint = tmp_path / "earlier.ckpt"
    checkpoint.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sandbox.clear_requests()
    network = co_citation(chosen, client=client, complete=True, checkpoint=checkpoint)
    assert sandbox.requests() == []
    _docs, cited = cited_sets(chosen, lists)
    assert edge_map(network) == expected_co_citation(cited, 1)
    assert network.requests == ["r-0", "r-1", "r-2"]
    assert dict(zip(network.nodes["id"], network.nodes["label"], strict=True)) == {
        w: f"Title of {w}" for w in ("WA", "WB", "WC", "WD")
    }


def relations_answer(items: list[dict[str, Any]], total: Any, page: int, size: int, pages: Any) -> dict[str, Any]:
    return {
        "items": items,
        "total_count": total,
        "page": page,
        "page_size": size,
        "total_pages": pages,
        "code": "SUCCESS",
        "message": "ok",
        "biz_code": 0,
    }


def test_complete_reads_every_page_a_server_allows(httpserver: HTTPServer, make_client):
    """Answers the contract allows: counts as digit strings, DOIs in capitals, items without a
    title or with extras, a list over two pages, an empty list; exactly the pages needed."""
    from werkzeug import Response

    long_list = [
        {"id": f"10.9/ITEM{i}", "id_type": "doi", **({"title": f"Item {i}"} if i % 3 else {}), "venue_rank": i}
        for i in range(250)
    ]
    lists = {
        "W1": long_list,
        "W2": [],
        "W3": [{"id": "10.9/item7", "id_type": "doi"}, {"id": "W1", "id_type": "unique_id"}],
    }

    def answer(request: Any) -> Any:
        body = json.loads(request.get_data())
        items = lists[body["unique_id"]]
        page, size = body["page"], body["page_size"]
        chunk = items[(page - 1) * size : page * size]
        pages = -(-len(items) // size)
        reply = relations_answer(chunk, str(len(items)), page, size, str(pages))
        return Response(json.dumps(reply), content_type="application/json")

    httpserver.expect_request(PATH, method="POST").respond_with_handler(answer)
    records = [
        {"unique_id": "W1", "reference_count": "250", "references": ["10.9/ITEM0"]},
        {"unique_id": "W2"},
        {"unique_id": "W3", "reference_count": 2, "references": []},
    ]
    estimate = estimate_references(records)
    assert (estimate.requests, estimate.counted, estimate.operation.estimated) == (4, 2, True)

    network = co_citation(records, client=make_client(), complete=True)

    sent = [json.loads(r.get_data()) for r, _ in httpserver.log]
    assert sent == [
        {"unique_id": "W1", "relation": "REFERENCES", "page": 1, "page_size": 200},
        {"unique_id": "W1", "relation": "REFERENCES", "page": 5, "page_size": 50},  # items 200-249, no more
        {"unique_id": "W2", "relation": "REFERENCES", "page": 1, "page_size": 200},
        {"unique_id": "W3", "relation": "REFERENCES", "page": 1, "page_size": 200},
    ]
    cited = {
        "W1": {f"10.9/item{i}" for i in range(250)},
        "W2": set(),
        "W3": {"10.9/item7", "W1"},
    }
    assert edge_map(network) == expected_co_citation(cited, 1)
    assert node_counts(network) == Counter(w for works in cited.values() for w in works)
    labels = dict(zip(network.nodes["id"], network.nodes["label"], strict=True))
    assert labels["10.9/item1"] == "Item 1" and labels["10.9/item3"] == "10.9/item3" and labels["W1"] == "W1"
    assert not network.truncated


def test_a_paper_the_service_does_not_know_keeps_its_record_list(httpserver: HTTPServer, make_client):
    httpserver.expect_request(
        PATH, method="POST", json={"unique_id": "W1", "relation": "REFERENCES", "page": 1, "page_size": 200}
    ).respond_with_json({"code": "NOT_FOUND", "message": "no such paper", "request_id": "r1"}, status=404)
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        relations_answer([{"id": "W8", "id_type": "unique_id"}, {"id": "W9", "id_type": "unique_id"}], 2, 1, 200, 1)
    )
    records = [{"unique_id": "W1", "references": ["W8", "W9"]}, {"unique_id": "W2"}]
    network = co_citation(records, client=make_client(), complete=True)
    assert edge_map(network) == {frozenset(("W8", "W9")): ["W1", "W2"]}


def test_harvest_corpus_folders_are_read_through_their_records(sandbox, tmp_path):
    from paperlens.harvest import harvest_corpus

    client = sandbox_client(sandbox)
    harvest_corpus(client, tmp_path / "corpus", query=QUERY, limit=60)
    records = read_records(tmp_path / "corpus" / "records")
    _docs, cited = cited_sets(records)
    assert edge_map(co_citation(tmp_path / "corpus")) == expected_co_citation(cited, 1)
