"""DOIs in filters are normalised as ``lookup`` normalises them: a ``https://doi.org/`` or
``doi:`` prefix, surrounding whitespace and upper case all find the record, in
``meta_search`` conditions on ``doi`` and in ``filters={"dois": [...]}`` of the Structured
Paper search."""

from __future__ import annotations

import pytest

import paperlens
from paperlens import Filter

from fixtures import module_client  # noqa: F401 (the client fixture)

SANDBOX = dict(papers=2000, seed=0)


def spellings(doi: str) -> list[str]:
    """The DOI as a reader may paste it."""
    escaped = doi.upper().replace("/", "%2F")
    return [
        doi,
        doi.upper(),
        f"https://doi.org/{doi}",
        f"doi:{doi}",
        f" DOI: {doi.upper()} ",
        f"http://dx.doi.org/{escaped}",
    ]


@pytest.fixture(scope="module")
def record(client: paperlens.Client) -> paperlens.types.MetadataRecord:
    return next(r for r in client.meta_search("model", fields=["unique_id", "doi"], page_size=20).results if r.doi)


@pytest.mark.parametrize("op", ["==", "in"])
@pytest.mark.parametrize("n", range(6))
def test_each_spelling_of_a_doi_finds_the_record_in_meta_search(client, record, op, n):
    spelled = spellings(record.doi)[n]
    value = spelled if op == "==" else [spelled]
    page = client.meta_search(None, filters=[Filter("doi", op, value)], fields=["unique_id", "doi"])
    assert [(r.unique_id, r.doi) for r in page.results] == [(record.unique_id, record.doi)]


@pytest.mark.parametrize("n", range(6))
def test_not_equal_to_any_spelling_of_a_doi_leaves_the_record_out(client, record, n):
    wire = {"field": "doi", "operator": "FILTER_OP_NE", "value": spellings(record.doi)[n]}
    page = client.meta_search("model", filters=[wire], fields=["unique_id", "doi"], page_size=20)
    assert record.unique_id not in [r.unique_id for r in page.results]
    assert page.results


def test_conditions_on_other_fields_and_operators_are_sent_as_given():
    from paperlens.base.filters import filters_to_wire

    given = [Filter("doi", "contains", "DOI.ORG"), Filter("title", "==", "doi:10.1/X")]
    assert filters_to_wire(given) == [
        {"field": "doi", "operator": "FILTER_OP_CONTAINS", "value": "DOI.ORG"},
        {"field": "title", "operator": "FILTER_OP_EQ", "value": "doi:10.1/X"},
    ]


@pytest.fixture(scope="module")
def card(client: paperlens.Client) -> paperlens.types.PaperCard:
    return next(c for c in client.schema.search("model", size=20).items if c.extra.get("doi"))


@pytest.mark.parametrize("n", range(6))
def test_each_spelling_of_a_doi_finds_the_paper_in_the_structured_paper_search(client, card, n):
    filters = {"dois": [spellings(card.extra["doi"])[n]]}
    wanted = [(card.schema_id, card.extra["doi"])]
    assert [(c.schema_id, c.extra["doi"]) for c in client.schema.search(filters=filters).items] == wanted
    assert [(c.schema_id, c.extra["doi"]) for c in client.schema.iter_search(filters=filters)] == wanted
