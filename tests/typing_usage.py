"""How a user's strictly typed code sees the clients: checked by mypy in `.ci/run`, never run.

Each operation is defined once (``paperlens.machinery._operation``); these lines hold that the sync
client still returns results, the async one awaitables, the ``iter_`` forms paginators of
the right items, and that a misspelt parameter is an error.
"""

from typing import assert_type

import paperlens
from paperlens import types as t


async def every_flavour(client: paperlens.Client, aclient: paperlens.AsyncClient) -> None:
    assert_type(client.meta_search("coral", page_size=5), t.MetaSearchPage)
    assert_type(client.iter_meta_search("coral", limit=10), paperlens.Paginator[t.MetadataRecord])
    assert_type(client.schema.search("coral"), t.PaperSearchPage)
    assert_type(client.schema.iter_entities("s1", limit=3), paperlens.Paginator[t.Entity])
    assert_type(client.with_options(timeout=5.0), paperlens.Client)
    assert_type(client.with_options(deadline=30.0), paperlens.Client)
    assert_type(client.read_text("doc"), str)

    assert_type(await aclient.meta_search("coral"), t.MetaSearchPage)
    assert_type(aclient.iter_paper_relations("u1", "CITATIONS"), paperlens.AsyncPaginator[t.RelationItem])
    assert_type(await aclient.schema.citation_graph("s1", depth=2), t.CitationGraph)
    assert_type(await aclient.schema.iter_search("coral").to_list(), list[t.PaperCard])
    assert_type(aclient.with_options(max_retries=0), paperlens.AsyncClient)

    assert_type(client.lookup(["10.1000/x"]), paperlens.Lookup)
    assert_type(await aclient.lookup(["W1"], by="unique_id"), paperlens.Lookup)
    assert_type(client.match_reference("Smith J. Coral bleaching. Nature 2019."), list[paperlens.ReferenceMatch])
    assert_type(await aclient.match_references(["a citation"]), list[list[paperlens.ReferenceMatch]])
    assert_type(paperlens.dedupe(client.iter_meta_search("coral")), paperlens.Deduped)
    assert_type(paperlens.to_bibtex(client.lookup(["10.1000/x"])), str)
    assert_type(client.snowball(["W1"], depth=2), paperlens.CitationNetwork)
    assert_type(await aclient.snowball(["W1"], direction="references"), paperlens.CitationNetwork)

    client.meta_search(page_sise=5)  # type: ignore[call-arg]
    client.lookup(["x"], by_field="doi")  # type: ignore[call-arg]
    await aclient.schema.entities(42)  # type: ignore[arg-type]


def on_an_executor(client: paperlens.Client, aclient: paperlens.AsyncClient) -> None:
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    from paperlens.harvest import HarvestResult, harvest, harvest_corpus

    assert_type(harvest_corpus(client, "s3://bucket/corpus", executor=ProcessPoolExecutor(4)), HarvestResult)
    assert_type(harvest(client, "coral", out="records", executor=ThreadPoolExecutor(2)), HarvestResult)
    harvest_corpus(aclient, "corpus", executor=ProcessPoolExecutor(4))  # type: ignore[call-overload]


def in_a_map(client: paperlens.Client) -> None:
    from paperlens.bibliometrics import WeightedNetwork, bibliographic_coupling, direct_citation

    # Written `(source, **options)`, they take co_citation's parameters (``@parameters_of``).
    assert_type(bibliographic_coupling("records", client=client, complete=True, min_weight=2), WeightedNetwork)
    assert_type(direct_citation("records", checkpoint="relations.json", complete=True), WeightedNetwork)
    bibliographic_coupling("records", min_weigth=2)  # type: ignore[call-arg]
    direct_citation("records", min_weight="2")  # type: ignore[arg-type]
    direct_citation(source="records")
    direct_citation()  # type: ignore[call-arg]
