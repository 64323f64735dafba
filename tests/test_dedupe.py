"""paperlens.dedupe (module paperlens.deduplication) on constructed duplicates of sandbox records:
DOI spellings, one title in two venues, unique ids; records, dicts, paginators and DataFrames;
every merge reported."""

from __future__ import annotations

import pytest

import paperlens
from paperlens.deduplication import Merge, normalize_title
from paperlens.export import RecordList
from paperlens.types import MetadataRecord

from fixtures import module_client  # noqa: F401 (the client fixture)

SANDBOX = dict(papers=300, seed=5)


@pytest.fixture(scope="module")
def records(client):
    return client.iter_meta_search(None, limit=40).to_list()


def variant(record: MetadataRecord, **changes) -> MetadataRecord:
    """A copy of ``record`` as another source may hold it (``None`` removes a field)."""
    wire = {**record.to_dict(), **changes}
    return MetadataRecord._from_wire({k: v for k, v in wire.items() if v is not None})


def test_distinct_records_are_all_kept(records):
    result = paperlens.dedupe(records)
    assert result.kept == records and result.merges == []
    assert isinstance(result.kept, RecordList)


def test_doi_spellings_merge_and_the_most_complete_record_is_kept(records):
    a, b = records[0], records[1]
    poor = variant(a, unique_id="W-other-index", doi=f"https://doi.org/{a.doi.upper()}", abstract=None, keywords=None)
    items = [poor, b, a]
    result = paperlens.dedupe(items)
    # The fuller record replaces the poorer one at the place of the first.
    assert result.kept == [a, b]
    assert result.merges == [Merge("W-other-index", a.unique_id, "doi", 0, 2)]


def test_the_same_title_in_two_venues_merges_on_title_and_year(records):
    a = records[2]
    title = f"  {a.title.upper()}!! "
    other = variant(
        a, unique_id="W-preprint", doi="10.48550/arxiv.1", title=title, publication_venue_name_unified="arXiv"
    )
    result = paperlens.dedupe([a, records[3], other])
    assert result.kept == [a, records[3]]
    assert result.merges == [Merge("W-preprint", a.unique_id, "title_year", 2, 0)]
    # Another year is another work; without the rule the two stay apart.
    later = variant(other, publication_published_year=a.publication_published_year + 1)
    assert paperlens.dedupe([a, later]).merges == []
    assert paperlens.dedupe([a, other], on=("doi", "unique_id")).merges == []


def test_unique_id_merges_records_without_a_doi(records):
    a = records[4]
    bare = variant(a, doi=None, title=None, citation_count=None)
    result = paperlens.dedupe([bare, a])
    assert result.kept == [a] and result.merges == [Merge(a.unique_id, a.unique_id, "unique_id", 0, 1)]


def test_rules_apply_in_the_order_given(records):
    a = records[5]
    twin = variant(a, abstract=None)  # the same DOI, unique_id and title
    assert paperlens.dedupe([a, twin]).merges[0].rule == "doi"
    assert paperlens.dedupe([a, twin], on=["title_year", "doi"]).merges[0].rule == "title_year"
    assert paperlens.dedupe([a, twin], on="unique_id").merges[0].rule == "unique_id"


def test_a_record_joins_the_group_it_first_matches_and_brings_its_keys(records):
    a = records[6]
    by_doi = variant(a, unique_id="W-x", title="Something else entirely")
    by_title_of_that = variant(a, unique_id="W-y", doi=None, title="Something else entirely")
    result = paperlens.dedupe([a, by_doi, by_title_of_that])
    assert [m.rule for m in result.merges] == ["doi", "title_year"]
    assert {m.kept_id for m in result.merges} == {a.unique_id} and result.kept == [a]


def test_dicts_paginators_and_none_entries(client, records):
    wire = [r.to_dict() for r in records[:5]]
    result = paperlens.dedupe([wire[0], None, {**wire[0], "doi": wire[0]["doi"].upper()}, wire[1]])
    assert result.kept == [wire[0], wire[1]] and len(result.merges) == 1
    paged = paperlens.dedupe(client.iter_meta_search(None, limit=25))
    assert [r.unique_id for r in paged.kept] == [r.unique_id for r in records[:25]]
    assert paged.kept.to_bibtex() == paperlens.to_bibtex(records[:25]) == paged.to_bibtex()


def test_merged_is_a_data_frame(records):
    pytest.importorskip("pandas")
    a, b = records[7], records[8]
    result = paperlens.dedupe([a, variant(a, unique_id="W-dup"), b, variant(b, doi=None, unique_id="W-dup2")])
    frame = result.merged
    assert list(frame.columns) == ["dropped_id", "kept_id", "rule", "dropped_index", "kept_index"]
    assert frame.to_dict("records") == [
        {"dropped_id": "W-dup", "kept_id": a.unique_id, "rule": "doi", "dropped_index": 1, "kept_index": 0},
        {"dropped_id": "W-dup2", "kept_id": b.unique_id, "rule": "title_year", "dropped_index": 3, "kept_index": 2},
    ]
    assert list(paperlens.dedupe(records[:3]).merged.columns) == list(frame.columns)


def test_a_data_frame_gives_a_data_frame(records):
    pd = pytest.importorskip("pandas")
    a = records[9]
    items = [a, records[10], variant(a, unique_id="W-dup", doi=a.doi.upper(), keywords=None), records[11]]
    frame = paperlens.to_pandas(items)
    frame.index = ["p", "q", "r", "s"]
    result = paperlens.dedupe(frame)
    assert isinstance(result.kept, pd.DataFrame)
    assert list(result.kept.index) == ["p", "q", "s"]
    assert list(result.kept["unique_id"]) == [a.unique_id, records[10].unique_id, records[11].unique_id]
    assert result.merges == [Merge("W-dup", a.unique_id, "doi", 2, 0)]
    # The fuller record is kept even when it comes later.
    reordered = paperlens.dedupe(paperlens.to_pandas([items[2], a]))
    assert list(reordered.kept["unique_id"]) == [a.unique_id]


def test_normalised_titles():
    full_width_deep = "\uff24\uff45\uff45\uff50"
    assert normalize_title(f"{full_width_deep}  Learning:\ta REVIEW!") == "deep learning a review"
    assert normalize_title("Straße — the “Road”") == normalize_title("STRASSE - the road")
    assert normalize_title("大语言模型研究\uff08综述\uff09") == "大语言模型研究 综述"


@pytest.mark.parametrize("on", [(), ("isbn",), ["doi", "venue"]])
def test_unknown_rules_are_refused(records, on):
    with pytest.raises(paperlens.ValidationError, match=r"^on: must name one or more of doi, unique_id, title_year"):
        paperlens.dedupe(records, on=on)


async def test_other_inputs_are_refused(sandbox, records):
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    with pytest.raises(TypeError, match=r"await paginator\.to_list"):
        paperlens.dedupe(aclient.iter_meta_search(None, limit=5))
    kept = paperlens.dedupe(await aclient.iter_meta_search(None, limit=5).to_list()).kept
    assert [r.unique_id for r in kept] == [r.unique_id for r in records[:5]]
    with pytest.raises(TypeError, match="item 1 is a str"):
        paperlens.dedupe([records[0], "W1"])
    with pytest.raises(TypeError, match="not a MetadataRecord"):
        paperlens.dedupe(records[0])


def test_one_generic_title_by_two_first_authors_stays_two_works(records):
    a = records[12]
    title, year = "Editorial", 2020
    first = variant(a, unique_id="W-e1", doi="10.1000/e.1", title=title, publication_published_year=year)
    other = variant(first, unique_id="W-e2", doi="10.1000/e.2", author=[{"name": "Somebody Else"}])
    assert paperlens.dedupe([first, other]).merges == []
    # The same first author written another way is the same work; no authors matches anyone.
    family = first.author[0]["name"].split()[-1]
    reordered = variant(other, author=[{"name": f"{family.upper()}, X."}])
    anonymous = variant(other, unique_id="W-e3", doi=None, author=None)
    result = paperlens.dedupe([first, reordered, anonymous])
    assert [(m.dropped_id, m.kept_id, m.rule) for m in result.merges] == [
        ("W-e2", "W-e1", "title_year"),
        ("W-e3", "W-e1", "title_year"),
    ]
