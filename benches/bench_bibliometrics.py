"""Bibliometric maps (issue 42): ``paperlens.bibliometrics`` against networkx-only code doing the same.

    python benches/bench_bibliometrics.py [--papers 40000] [--records 3000 30000] [--baseline-max 3000] [--min-weight 1]

A sandbox in its own process serves the records (``/meta-search``, pacing off); they are read
once per size, then each network is built from them in this process:

- paperlens: ``co_citation``, ``bibliographic_coupling``, ``co_authorship`` and
  ``co_occurrence`` (sparse counting): the CPU time of this process for the build (wall time
  on a shared machine measures the neighbours), then for reading ``.edges`` (the records of
  every link as Python lists), and the tracemalloc peak of the build (a second run, up to
  ``--baseline-max`` records);
- networkx only: the same networks counted into a ``networkx.Graph`` pair by pair (a Python
  loop over the pairs of each document's references, authors or keywords, and over the pairs of
  documents citing each work), with the same records on each edge; only up to
  ``--baseline-max`` records (it grows with the pairs).

Each baseline network must equal paperlens's (edges, weights, records): the script asserts it.
The records are the sandbox's: ``references`` holds at most 25 ids (the sandbox truncates as the
service may), so a document has up to 300 reference pairs.
"""

from __future__ import annotations

import argparse
import itertools
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import networkx as nx
from _server import start_sandbox

import paperlens
from paperlens.bibliometrics import bibliographic_coupling, co_authorship, co_citation, co_occurrence

FIELDS = ["unique_id", "title", "doi", "author", "keywords", "references", "reference_count"]


def pairs_graph(groups: list[tuple[str, list[str]]]) -> Any:
    """networkx only: a link per pair of items of each group, weighted by the groups, with them."""
    graph = nx.Graph()
    for group, items in groups:
        for a, b in itertools.combinations(sorted(set(items)), 2):
            if graph.has_edge(a, b):
                graph[a][b]["weight"] += 1
                graph[a][b]["records"].append(group)
            else:
                graph.add_edge(a, b, weight=1, records=[group])
    return graph


def dois(records: list[dict[str, Any]]) -> dict[str, str]:
    return {r["doi"].lower(): r["unique_id"] for r in records if r.get("doi")}


def cited(record: dict[str, Any], known: dict[str, str]) -> list[str]:
    out = []
    for reference in record.get("references") or []:
        doi = reference.lower() if reference.startswith("10.") else None
        out.append(known.get(doi, doi) if doi else reference)
    return out


def baselines(records: list[dict[str, Any]]) -> dict[str, Callable[[], Any]]:
    known = dois(records)

    def coupling() -> Any:
        citing: dict[str, list[str]] = {}
        for record in records:
            for work in set(cited(record, known)):
                citing.setdefault(work, []).append(record["unique_id"])
        return pairs_graph(list(citing.items()))

    def authors(record: dict[str, Any]) -> list[str]:
        return [a.get("orcid") or " ".join(a["name"].split()) for a in record.get("author") or []]

    return {
        "co-citation": lambda: pairs_graph([(r["unique_id"], cited(r, known)) for r in records]),
        "coupling": coupling,
        "co-authorship": lambda: pairs_graph([(r["unique_id"], authors(r)) for r in records]),
        "co-occurrence": lambda: pairs_graph(
            [(r["unique_id"], [" ".join(k.split()).casefold() for k in r.get("keywords") or []]) for r in records]
        ),
    }


def ours(records: list[dict[str, Any]], min_weight: int) -> dict[str, Callable[[], Any]]:
    return {
        "co-citation": lambda: co_citation(records, min_weight=min_weight),
        "coupling": lambda: bibliographic_coupling(records, min_weight=min_weight),
        "co-authorship": lambda: co_authorship(records, min_weight=min_weight),
        "co-occurrence": lambda: co_occurrence(records, min_weight=min_weight),
    }


def edge_set(network: Any) -> dict[frozenset[str], tuple[int, list[str]]]:
    edges = network.edges
    rows = zip(edges["source"], edges["target"], edges["weight"], edges["records"], strict=True)
    return {frozenset((s, t)): (int(w), sorted(r)) for s, t, w, r in rows}


def graph_set(graph: Any) -> dict[frozenset[str], tuple[int, list[str]]]:
    return {frozenset((s, t)): (d["weight"], sorted(d["records"])) for s, t, d in graph.edges(data=True)}


def timed(build: Callable[[], Any]) -> tuple[Any, float]:
    """The result and the CPU seconds of this process it took."""
    started = time.process_time()
    result = build()
    return result, time.process_time() - started


def peak(build: Callable[[], Any]) -> float:
    """The tracemalloc peak of a build, in MiB."""
    tracemalloc.start()
    build()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=40_000)
    parser.add_argument("--records", type=int, nargs="+", default=[3000, 30_000])
    parser.add_argument("--baseline-max", type=int, default=3000)
    parser.add_argument("--min-weight", type=int, default=1, help="of paperlens's networks (the baseline keeps all)")
    args = parser.parse_args()

    server = start_sandbox(args.papers)
    try:
        client = paperlens.Client(api_token=server.token, base_url=server.base_url, rate_limits=None)
        everything = [r.to_dict() for r in client.iter_meta_search(None, fields=FIELDS, limit=max(args.records))]
    finally:
        server.stop()
    co_citation(everything[:10])  # numpy and scipy imported before the clock starts
    for size in args.records:
        records = everything[:size]
        print(f"\n{len(records)} records")
        mine = ours(records, args.min_weight)
        theirs = baselines(records) if size <= args.baseline_max and args.min_weight == 1 else {}
        for kind, build in mine.items():
            network, cpu = timed(build)
            _, frame = timed(lambda network=network: network.edges)
            line = f"  {kind:14} {len(network.weight):>10,} links | paperlens {cpu:6.2f} s (+ .edges {frame:5.2f} s)"
            if kind in theirs:
                graph, base_cpu = timed(theirs[kind])
                assert graph_set(graph) == edge_set(network), kind
                line += f", peak {peak(build):5.0f} MiB | networkx only {base_cpu:6.2f} s"
                line += f", peak {peak(theirs[kind]):5.0f} MiB (equal)"
            print(line, flush=True)


if __name__ == "__main__":
    main()
