"""Every export of a WeightedNetwork reads back: Pajek, GEXF and GraphML through networkx, CSV
through pandas, the VOSviewer map, network and JSON files checked against VOSviewer's
documented rules (https://app.vosviewer.com/docs/file-types/); clusters are seeded; the
picture escapes what it shows; ``paperlens map`` writes the same files as the API."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest

import paperlens
from paperlens.bibliometrics import (
    bibliographic_coupling,
    co_citation,
    co_occurrence,
    direct_citation,
    estimate_references,
)
from paperlens.cli import main
from paperlens.harvest import harvest

from fixtures import sandbox_client

QUERY = "coral reef"
HOSTILE_WORDS = ["reefs, corals", "heat; stress", 'the "blob"', "tab\there", "line\nbreak", "<b>bold</b>", "ok"]


@pytest.fixture(scope="module")
def out(sandbox, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("harvest")
    return harvest(sandbox_client(sandbox), QUERY, out=folder / "reef", format="parquet").out


@pytest.fixture(scope="module")
def networks(out) -> dict[str, Any]:
    return {"co-citation": co_citation(out, min_weight=2), "direct": direct_citation(out)}


def links_of(network) -> dict[Any, int]:
    edges = network.edges
    pairs = zip(edges["source"], edges["target"], edges["weight"], strict=True)
    if network.directed:
        return {(s, t): int(w) for s, t, w in pairs}
    return {frozenset((s, t)): int(w) for s, t, w in pairs}


def graph_links(graph, directed: bool) -> dict[Any, int]:
    shape = (lambda s, t: (s, t)) if directed else (lambda s, t: frozenset((s, t)))
    return {shape(s, t): int(float(d["weight"])) for s, t, d in graph.edges(data=True)}


# -- networkx and pandas read them back ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["co-citation", "direct"])
def test_pajek_gexf_graphml_and_csv_read_back(networks, kind, tmp_path):
    network = networks[kind]
    expected = links_of(network)
    assert len(expected) > 50
    labels = dict(zip(network.nodes["id"], network.nodes["label"], strict=True))
    records = {
        (frozenset((s, t)) if not network.directed else (s, t)): r
        for s, t, r in zip(network.edges["source"], network.edges["target"], network.edges["records"], strict=True)
    }

    pajek = nx.read_pajek(network.write(tmp_path / "map.net"))
    assert pajek.is_directed() == network.directed
    assert sorted(pajek.nodes) == sorted(network.ids)
    assert graph_links(pajek, network.directed) == expected

    for name, read in (("map.gexf", nx.read_gexf), ("map.graphml", nx.read_graphml)):
        graph = read(network.write(tmp_path / name))
        assert graph.is_directed() == network.directed, name
        assert {n: d["label"] for n, d in graph.nodes(data=True)} == labels, name
        assert graph_links(graph, network.directed) == expected, name
        shape = (lambda s, t: (s, t)) if network.directed else (lambda s, t: frozenset((s, t)))
        assert {shape(s, t): json.loads(d["records"]) for s, t, d in graph.edges(data=True)} == records, name

    folder = network.write(tmp_path / "tables", format="csv")
    nodes = pd.read_csv(folder / "nodes.csv", dtype={"id": str, "label": str}, keep_default_na=False)
    pd.testing.assert_frame_equal(nodes, network.nodes, check_dtype=False)
    edges = pd.read_csv(folder / "edges.csv", dtype={"source": str, "target": str})
    assert [json.loads(r) for r in edges["records"]] == list(network.edges["records"])
    assert links_of(network) == {
        (k if network.directed else frozenset(k)): int(w)
        for k, w in zip(zip(edges["source"], edges["target"], strict=True), edges["weight"], strict=True)
    }


def test_to_networkx_holds_the_network(networks):
    network = networks["co-citation"]
    graph = network.to_networkx()
    assert graph.graph == {"kind": "co-citation", "min_weight": 2, "truncated": True}
    assert graph_links(graph, False) == links_of(network)
    assert graph.number_of_nodes() == len(network) == len(set(network.ids))
    counts = dict(zip(network.nodes["id"], network.nodes["citations"], strict=True))
    assert {n: d["citations"] for n, d in graph.nodes(data=True)} == counts


# -- VOSviewer's documented rules ----------------------------------------------------------------------


def read_vosviewer_map(path: Path) -> list[dict[str, str]]:
    """A map file as VOSviewer's documentation describes it: tab-separated, a header line, a
    label holding a comma or semicolon enclosed in double quotes."""
    text = path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quotechar='"'))
    head, body = rows[0], rows[1:]
    allowed = {"id", "label", "description", "url", "x", "y", "cluster"}
    assert all(h in allowed or (h.startswith(("weight<", "score<")) and h.endswith(">")) for h in head), head
    assert {"id", "label"} <= set(head) and len(set(head)) == len(head)
    for line in text.splitlines()[1:]:
        for cell in line.split("\t"):
            if any(c in cell for c in ",;"):
                assert cell.startswith('"') and cell.endswith('"'), cell
    assert all(len(row) == len(head) for row in body)
    return [dict(zip(head, row, strict=True)) for row in body]


def check_vosviewer_folder(network, folder: Path) -> None:
    items = read_vosviewer_map(folder / "map.txt")
    ids = [int(item["id"]) for item in items]
    assert len(set(ids)) == len(ids) and all(i >= 1 for i in ids)
    for item in items:
        assert 1 <= int(item["cluster"]) <= 1000
        for name, value in item.items():
            if name.startswith("weight<"):
                assert float(value) >= 0 and math.isfinite(float(value))
    ours = {int(item["id"]): html.unescape(item["description"]) for item in items}
    assert sorted(ours.values()) == sorted(network.ids)
    assert {html.unescape(item["description"]): item["label"] for item in items} == {
        key: " ".join(label.split()) for key, label in zip(network.ids, network.labels, strict=True)
    }
    links: dict[Any, int] = {}
    for line in (folder / "network.txt").read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        assert len(cells) in (2, 3)  # no header: every line is a link
        source, target = int(cells[0]), int(cells[1])
        strength = float(cells[2]) if len(cells) == 3 else 1.0
        assert source in ours and target in ours and strength > 0
        key = (ours[source], ours[target]) if network.directed else frozenset((ours[source], ours[target]))
        assert key not in links  # each link once (VOSviewer would sum repeats)
        links[key] = int(strength)
    assert links == links_of(network)
    clusters = dict(zip(network.clusters()["id"], network.clusters()["cluster"], strict=True))
    assert {ours[int(item["id"])]: int(item["cluster"]) for item in items} == {
        key: min(number, 1000) for key, number in clusters.items()
    }
    weights = {ours[int(item["id"])]: item for item in items}
    nodes = network.nodes.set_index("id")
    for key, row in nodes.iterrows():
        assert int(weights[key]["weight<Links>"]) == row["links"]
        assert int(weights[key]["weight<Total link strength>"]) == row["strength"]
        assert int(weights[key][f"weight<{network.count_name.capitalize()}>"]) == row[network.count_name]


def check_vosviewer_json(network, path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert set(document) <= {"network", "config", "info"} and set(document["network"]) <= {"items", "links", "clusters"}
    items = document["network"]["items"]
    allowed = {"id", "label", "description", "url", "x", "y", "cluster", "weights", "scores"}
    for item in items:
        assert set(item) <= allowed and isinstance(item["id"], (int, str)) and isinstance(item["label"], str)
        assert isinstance(item["cluster"], int) and 1 <= item["cluster"] <= 1000
        assert all(isinstance(k, str) and v >= 0 for k, v in item["weights"].items())
    ours = {item["id"]: html.unescape(item["description"]) for item in items}
    assert len(ours) == len(items) and sorted(ours.values()) == sorted(network.ids)
    assert {ours[i["id"]]: i["label"] for i in items} == dict(zip(network.ids, network.labels, strict=True))
    links = {}
    for link in document["network"]["links"]:
        assert set(link) == {"source_id", "target_id", "strength"} and link["strength"] >= 0
        pair = (ours[link["source_id"]], ours[link["target_id"]])
        links[pair if network.directed else frozenset(pair)] = link["strength"]
    assert links == links_of(network)
    clusters = document["network"]["clusters"]
    assert all(set(c) == {"cluster", "label"} and 1 <= c["cluster"] <= 1000 for c in clusters)
    assert {c["cluster"] for c in clusters} == {item["cluster"] for item in items}
    assert isinstance(document["info"]["title"], str) and isinstance(document["info"]["description"], str)


@pytest.mark.parametrize("kind", ["co-citation", "direct"])
def test_vosviewer_files_follow_the_documented_rules(networks, kind, tmp_path):
    network = networks[kind]
    check_vosviewer_folder(network, network.write(tmp_path / "vos", format="vosviewer"))
    check_vosviewer_json(network, network.write(tmp_path / "vos.json"))


def hostile_records() -> list[dict[str, Any]]:
    return [{"unique_id": f"W{i}", "keywords": HOSTILE_WORDS[i % 7 :] + HOSTILE_WORDS[:1]} for i in range(12)]


def test_labels_with_separators_and_markup_survive(tmp_path):
    network = co_occurrence(hostile_records())
    assert len(network) == 7
    check_vosviewer_folder(network, network.write(tmp_path / "vos", format="vosviewer"))
    check_vosviewer_json(network, network.write(tmp_path / "vos.json", format="vosviewer-json"))
    graph = nx.read_graphml(network.write(tmp_path / "words.graphml"))
    assert sorted(d["label"] for _n, d in graph.nodes(data=True)) == sorted(" ".join(w.split()) for w in HOSTILE_WORDS)
    picture = network._repr_html_()
    assert "<svg" in picture and "<b>bold</b>" not in picture and "&lt;b&gt;bold&lt;/b&gt;" in picture


def test_more_than_a_thousand_clusters_share_the_last(tmp_path):
    records = [{"unique_id": f"W{i}", "keywords": [f"word {i}"]} for i in range(1100)]
    records += [{"unique_id": "X", "keywords": ["word 0", "word 1"]}]
    network = co_occurrence(records)
    numbers = list(network.clusters()["cluster"])
    assert max(numbers) == 1099 and numbers[0] == numbers[1] == 1  # the one linked pair is the largest
    check_vosviewer_folder(network, network.write(tmp_path / "vos", format="vosviewer"))
    check_vosviewer_json(network, network.write(tmp_path / "vos.json"))


def test_clusters_are_seeded(out):
    first = co_citation(out, min_weight=2)
    again = co_citation(out, min_weight=2)
    pd.testing.assert_frame_equal(first.clusters(seed=3), again.clusters(seed=3))
    pd.testing.assert_frame_equal(first.clusters(), again.clusters())
    sizes = first.clusters()["cluster"].value_counts().sort_index().tolist()
    assert sizes == sorted(sizes, reverse=True) and len(sizes) > 1
    assert list(first.clusters()["id"]) == first.ids


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"resolution": 0}, "resolution"),
        ({"resolution": -1.0}, "resolution"),
        ({"resolution": math.nan}, "resolution"),
        ({"resolution": math.inf}, "resolution"),
        ({"resolution": "1"}, "resolution"),
        ({"resolution": True}, "resolution"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "3"}, "seed"),
        ({"seed": None}, "seed"),
        ({"seed": False}, "seed"),
    ],
)
def test_bad_cluster_settings_are_refused_naming_them(networks, options, param):
    with pytest.raises(paperlens.ValidationError) as caught:
        networks["co-citation"].clusters(**options)
    assert caught.value.param == param


def test_a_failed_write_leaves_nothing(networks, tmp_path, monkeypatch):
    network = networks["co-citation"]
    written = []

    def failing(self: Path, data: bytes) -> int:
        if written:
            raise OSError(28, "No space left on device")
        written.append(self)
        return len(data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(OSError):
        network.write(tmp_path / "vos", format="vosviewer")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_formats_are_checked(networks, tmp_path):
    network = networks["co-citation"]
    for call in (lambda: network.write(tmp_path / "map.txt"), lambda: network.write(tmp_path / "m", format="svg")):
        with pytest.raises(paperlens.ValidationError) as caught:
            call()
        assert caught.value.param == "format"
    assert os.listdir(tmp_path) == []


# -- the command line ----------------------------------------------------------------------------------


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_command_writes_what_the_api_writes(env, out, tmp_path, capsys):
    api = co_citation(out, min_weight=2).write(tmp_path / "api", format="vosviewer")
    assert main(["map", "co-citation", str(out), "--min-weight", "2", "-o", str(tmp_path / "cli")]) == 0
    assert files_of(tmp_path / "cli") == files_of(api)
    printed = capsys.readouterr()
    assert printed.out.startswith("co-citation: ") and "--complete reads them whole" in printed.err

    words = co_occurrence(out, field="keywords", min_weight=3).write(tmp_path / "api.graphml")
    assert main(["map", "co-occurrence", str(out), "--min-weight", "3", "-o", str(tmp_path / "cli.graphml")]) == 0
    assert (tmp_path / "cli.graphml").read_bytes() == words.read_bytes()
    assert env.requests() == []  # built from the harvest alone


def test_the_command_completes_lists_and_tells_their_cost(env, out, tmp_path, capsys):
    client = paperlens.Client(api_token=env.token, base_url=env.base_url)
    estimate = estimate_references(out, client=client)
    assert main(["map", "coupling", str(out), "--dry-run"]) == 0
    assert capsys.readouterr().out.strip() == str(estimate)
    assert env.requests() == []

    argv = ["map", "coupling", str(out), "--complete", "--checkpoint", str(tmp_path / "ckpt"), "--format", "pajek"]
    assert main([*argv, "-o", str(tmp_path / "cli.net")]) == 0
    assert len(env.requests()) == estimate.requests

    api = bibliographic_coupling(out, client=client, complete=True).write(tmp_path / "api.net")
    assert (tmp_path / "cli.net").read_bytes() == api.read_bytes()


def test_the_dry_run_needs_no_service(out, monkeypatch, capsys):
    """The estimate is read from the harvest: no client is made, so no sandbox starts."""
    for name in ("PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["map", "coupling", str(out), "--dry-run"]) == 0
    printed = capsys.readouterr()
    assert printed.out.strip() == str(estimate_references(out)) and printed.err == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["map", "co-authorship", "OUT", "--complete", "-o", "x"],
        ["map", "co-citation", "OUT"],
        ["map", "co-citation", "OUT", "--min-weight", "0", "-o", "x"],
        ["map", "bibliographic", "OUT", "-o", "x"],
    ],
)
def test_the_command_refuses_bad_arguments(env, out, argv, tmp_path, capsys):
    os.chdir(tmp_path)
    assert main([str(out) if a == "OUT" else a for a in argv]) == 2
    assert os.listdir(tmp_path) == [] and env.requests() == []


def test_the_command_runs_as_a_program(out, tmp_path):
    environment = {**os.environ, "PYTHONPATH": str(Path(paperlens.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "paperlens", "map", "direct-citation", str(out), "-o", str(tmp_path / "map.json")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    check_vosviewer_json(direct_citation(out), tmp_path / "map.json")
