"""The sandbox papers that the tests of citation verification cite: the fixtures ``corpus`` and
``records`` of a test module that imports them, from the module's sandbox."""

from __future__ import annotations

from collections import Counter

import pytest

import paperlens
from paperlens.sandbox import Sandbox

from fixtures import sandbox_client

Papers = list[paperlens.types.MetadataRecord]


@pytest.fixture(name="corpus", scope="module")
def searched_papers(sandbox: Sandbox) -> Papers:
    """Every paper of the sandbox, in search order."""
    return sandbox_client(sandbox).iter_meta_search(page_size=200).to_list()


@pytest.fixture(name="records", scope="module")
def distinct_papers(corpus: Papers) -> Papers:
    """The papers in English with authors, a DOI and a venue whose title, of five words or more,
    no other paper has."""
    titles = Counter(r.title.lower() for r in corpus if r.title)
    return [
        r
        for r in corpus
        if r.title and r.title.isascii() and r.author and r.doi and r.publication_venue_name_unified
        if titles[r.title.lower()] == 1 and len(r.title.split()) >= 5
    ]
