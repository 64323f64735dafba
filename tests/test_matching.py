"""Reference matching: the citation parser, and match_reference / match_references against the
sandbox, sync and async: clean and degraded citations found with their confidence, nonsense
never "high", the requests sent counted, duplicates and DOIs answered once, bad input refused
before any request."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

import paperlens
from paperlens.matching import ReferenceMatch, parse_reference

from fixtures import sandbox_client

# -- the parser ---------------------------------------------------------------------------------

PARSED = [
    (
        "Smith, J., & Doe, A. (2019). Coral bleaching at scale. Nature, 12(3), 4-9. https://doi.org/10.1038/ABC.1",
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Nature",
        "10.1038/ABC.1",
    ),
    (
        'Smith, John, and Anna Doe. "Coral Bleaching at Scale." Nature, vol. 12, no. 3, 2019, pp. 4-9.',
        ["Smith", "John", "Anna", "Doe"],
        2019,
        "Coral Bleaching at Scale",
        "Nature",
        None,
    ),
    (
        'J. Smith and A. Doe, "Coral bleaching at scale," in Proc. Reef Symposium, 2019.',
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Reef Symposium",
        None,
    ),
    (
        "J. Smith and A. Doe. Coral bleaching at scale. Nature, 2019.",
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Nature",
        None,
    ),
    (
        "Smith J, Doe A. Coral bleaching at scale. Nature. 2019;12(3):4-9. doi:10.1038/abc.1",
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Nature",
        "10.1038/abc.1",
    ),
    (
        "Smith, J. & Doe, A. Coral bleaching at scale. Nat. Clim. Change 12, 4-9 (2019).",
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Nat. Clim. Change",
        None,
    ),
    (
        "Smith, J. and Doe, A. (2019a) 'Coral bleaching at scale', Nature, 12, pp. 4-9.",
        ["Smith", "Doe"],
        2019,
        "Coral bleaching at scale",
        "Nature",
        None,
    ),
    ("Smith et al., Nature 2019, coral bleaching at scale", ["Smith"], 2019, "coral bleaching at scale", "Nature",
     None),
    ("Smith, Nature 2019, coral bleaching at scale", ["Smith"], 2019, "coral bleaching at scale", "Nature", None),
    ("Coral bleaching at scale", [], None, "Coral bleaching at scale", None, None),
    ("加藤 健一, 山本 恵. 降水量におけるエアロゾルの解析. 日本学術論文誌. 2007.", ["加藤", "健一", "山本", "恵"], 2007,
     "降水量におけるエアロゾルの解析", "日本学術論文誌", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "authors", "year", "title", "venue", "doi"), PARSED)
def test_parse_reference(text, authors, year, title, venue, doi):
    citation = parse_reference(text)
    assert (citation.authors, citation.year, citation.title, citation.venue, citation.doi) == (
        authors,
        year,
        title,
        venue,
        doi,
    )
    assert citation.text == text


def test_the_first_author_as_an_author_filter_takes_it():
    assert parse_reference("Smith, J., & Doe, A. (2019). Coral.").first_author == "Smith"
    assert parse_reference('Grace Lindqvist and T. Zhang, "Gate fidelity," 1994.').first_author == "Grace Lindqvist"
    assert parse_reference("Van Dijk Q et al. Coral bleaching at scale. 2019.").first_author == "Van Dijk"
    etal = parse_reference("Smith et al., Nature 2019, coral bleaching")
    assert etal.et_al and etal.first_author == "Smith"


# -- against the sandbox ------------------------------------------------------------------------


SANDBOX = dict(papers=400, seed=5)


@pytest.fixture(scope="module")
def records(sandbox):
    client = sandbox_client(sandbox)
    english = client.iter_meta_search(filters=[("language", "==", "en")], page_size=200).to_list()
    titles = Counter(r.title.lower() for r in english)
    # Papers whose title no other paper has, with a DOI: each test may use a different one.
    return [r for r in english if titles[r.title.lower()] == 1 and r.doi and len(r.title.split()) >= 6]


@pytest.fixture(params=["sync", "async"])
def run(request, sandbox):
    """``run(method, *args, **kwargs)``: the client method's result, sync or async."""
    settings = {"api_token": sandbox.token, "base_url": sandbox.base_url, "rate_limits": None, "max_retries": 0}
    if request.param == "sync":
        client = paperlens.Client(**settings)
        return lambda method, *a, **k: getattr(client, method)(*a, **k)
    aclient = paperlens.AsyncClient(**settings)
    return lambda method, *a, **k: asyncio.run(getattr(aclient, method)(*a, **k))


def sent(sandbox):
    paths = Counter(r.path for r in sandbox.requests())
    sandbox.clear_requests()
    return dict(paths)


def surname(record):
    return record.author[0]["name"].split()[-1]


def apa(record, *, year=None, title=None, doi=False):
    names = ", ".join(f"{a['name'].split()[-1]}, {a['name'][0]}." for a in record.author)
    link = f" https://doi.org/{record.doi}" if doi else ""
    venue = record.publication_venue_name_unified
    return f"{names} ({year or record.publication_published_year}). {title or record.title}. {venue}.{link}"


def test_a_clean_citation_matches_its_record_with_high_confidence_in_one_request(sandbox, records, run):
    record = records[0]
    sandbox.clear_requests()
    matches = run("match_reference", apa(record))
    assert sent(sandbox) == {"/meta-search": 1}
    best = matches[0]
    assert isinstance(best, ReferenceMatch)
    assert best.record.unique_id == record.unique_id
    assert best.confidence == "high" and 0.9 <= best.score <= 1
    assert f"first author {surname(record)}" in best.reasons
    assert f"year {record.publication_published_year} (+0)" in best.reasons
    assert f"venue {record.publication_venue_name_unified}" in best.reasons
    assert 1 <= len(matches) <= 5
    assert [m.score for m in matches] == sorted((m.score for m in matches), reverse=True)
    assert all(m.confidence != "high" for m in matches[1:])


def test_a_degraded_citation_is_still_the_best_match(sandbox, records, run):
    record = records[1]
    words = record.title.split()
    garbled = " ".join(w[0] + w[2] + w[1] + w[3:] if len(w) >= 6 else w for w in words[:-1])  # typos, last word gone
    text = f"{surname(record)} et al., {record.publication_published_year + 1}, {garbled}"
    sandbox.clear_requests()
    matches = run("match_reference", text, top=3)
    assert matches[0].record.unique_id == record.unique_id
    assert len(matches) <= 3
    assert f"year {record.publication_published_year} (-1)" in matches[0].reasons
    assert sum(sent(sandbox).values()) <= 4


def test_a_title_the_keyword_query_misses_is_found_through_the_first_author(sandbox, records, run):
    record = records[2]
    garbled = " ".join(w[:-2] + w[-1] + w[-2] if len(w) >= 4 else w for w in record.title.split())
    sandbox.clear_requests()
    matches = run("match_reference", apa(record, title=garbled))
    assert matches[0].record.unique_id == record.unique_id
    assert matches[0].confidence in ("high", "medium")
    requests = sandbox.requests()
    assert [r.path for r in requests[:2]] == ["/meta-search", "/meta-search"]
    author_filter = requests[1].json()["filters"][0]
    assert author_filter == {"field": "author", "operator": "FILTER_OP_MATCH", "value": surname(record)}
    assert requests[1].json()["page_size"] == 200
    sandbox.clear_requests()


def test_nonsense_is_never_a_high_match(sandbox, run):
    for text in ("Qwxz, P. (1850). Zzyzx frobnication of glorp. Journal of Nothing.", "lorem ipsum dolor sit amet"):
        matches = run("match_reference", text)
        assert all(m.confidence != "high" for m in matches)
    sandbox.clear_requests()


def test_a_doi_is_looked_up_first_and_settles_it(sandbox, records, run):
    record = records[3]
    text = apa(record, doi=True).replace(record.doi, record.doi.upper())
    sandbox.clear_requests()
    best = run("match_reference", text)[0]
    assert sent(sandbox) == {"/meta-search": 1}
    assert best.record.unique_id == record.unique_id and best.confidence == "high"
    assert best.reasons[0] == "DOI matches"


def test_a_list_looks_dois_up_together_and_answers_duplicates_once(sandbox, records, run):
    with_doi = [apa(r, doi=True) for r in records[4:7]]
    plain = apa(records[7])
    texts = [with_doi[0], plain, with_doi[1], "  " + plain.replace(" ", "  ") + "\n", with_doi[2]]
    sandbox.clear_requests()
    results = run("match_references", texts, top=2)
    # One lookup for the three DOIs, one title query for the plain citation given twice.
    assert sent(sandbox) == {"/meta-search": 2}
    expected = [records[4], records[7], records[5], records[7], records[6]]
    assert [r[0].record.unique_id for r in results] == [r.unique_id for r in expected]
    assert all(r[0].confidence == "high" and len(r) <= 2 for r in results)
    assert results[1] == results[3] and results[1] is not results[3]


def test_progress_counts_the_citations(sandbox, records, capsys):
    client = sandbox_client(sandbox)
    texts = [apa(records[8]), apa(records[9]), apa(records[8])]
    results = client.match_references(texts, progress=True)
    assert [r[0].record.unique_id for r in results] == [r.unique_id for r in (records[8], records[9], records[8])]
    assert "2/2" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "param", "rule"),
    [
        ("match_reference", ("",), {}, "text", "must not be empty"),
        ("match_reference", ("  \n",), {}, "text", "must not be empty"),
        ("match_reference", (None,), {}, "text", "must be a string"),
        ("match_reference", ("Smith 2019 coral",), {"top": 0}, "top", "must be an integer from 1 to 200"),
        ("match_references", (["Smith 2019 coral", "Doe 2020 reef", " "],), {}, "texts[2]", "must not be empty"),
        ("match_references", (["Smith 2019 coral", 7],), {}, "texts[1]", "must be a string"),
        ("match_references", ("Smith 2019 coral",), {}, "texts", "must be a list of citations, not one string"),
        ("match_references", (["Smith 2019 coral"],), {"top": 201}, "top", "must be an integer from 1 to 200"),
    ],
)
def test_bad_input_is_refused_before_any_request(sandbox, run, method, args, kwargs, param, rule):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as caught:
        run(method, *args, **kwargs)
    assert (caught.value.param, caught.value.rule) == (param, rule)
    assert param in str(caught.value)
    assert sandbox.requests() == []


def test_an_empty_list_sends_nothing(sandbox, run):
    sandbox.clear_requests()
    assert run("match_references", []) == []
    assert sandbox.requests() == []


# -- calibration (issue 27) ---------------------------------------------------------------------


def test_a_citation_that_is_only_its_doi_is_a_high_match(sandbox, records, run):
    record = records[12]
    best = run("match_reference", f"doi:{record.doi.upper()}")[0]
    assert (best.record.unique_id, best.confidence) == (record.unique_id, "high")
    assert best.reasons[:2] == ["DOI matches", "no title given"]


def test_an_invented_reference_with_other_authors_is_low(sandbox, records, run):
    record = records[13]
    words = record.title.split()
    invented = " ".join([*words[: len(words) // 2], "lunar", "basalt", "cartography"])
    year = record.publication_published_year
    matches = run("match_reference", f"Eriksson F, Okafor O. {invented}. Zebra Letters. {year - 9}.")
    assert all(m.confidence == "low" for m in matches)


def test_a_tie_between_candidates_is_low_and_says_so(sandbox, run):
    corpus = sandbox_client(sandbox).iter_meta_search(page_size=200).to_list()
    titles = Counter(r.title for r in corpus if r.title and r.title.isascii())
    shared = next(t for t, n in titles.items() if n >= 2)
    best, second = run("match_reference", shared)[:2]
    assert best.score == second.score and best.confidence == "low"
    assert best.reasons[-1] == f"tied with {second.record.unique_id}: the citation does not tell them apart"
