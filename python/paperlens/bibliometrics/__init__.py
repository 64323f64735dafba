"""Bibliometric maps: co-citation, bibliographic coupling, direct citation, co-authorship and
co-occurrence networks from a harvest, ready for VOSviewer, Gephi, Pajek or networkx.

>>> from paperlens.bibliometrics import co_citation
>>> records = client.iter_meta_search("coral reef", limit=150).to_list()
>>> network = co_citation(records, min_weight=2)
>>> network
WeightedNetwork(co-citation, 1485 nodes, 2237 edges, min_weight=2, truncated)
>>> network.edges.columns.tolist()
['source', 'target', 'weight', 'records']
>>> network.write("reef-map", format="vosviewer")   # map.txt and network.txt for VOSviewer
PosixPath('reef-map')

``source`` is any of: a harvest output (the path or URL given to
:func:`~paperlens.harvest.harvest` or :func:`~paperlens.harvest.harvest_corpus`, read with
:func:`~paperlens.harvest.read_records`), a :class:`~paperlens.harvest.HarvestResult`, records
(results or wire dicts), a paginator, one ``/meta-search`` page, a pandas or polars DataFrame
(as ``.to_pandas()`` makes it: list columns stay lists), or a
:class:`~paperlens.CitationNetwork` (its nodes are the documents, each citing the targets of
its edges). A document is a distinct ``unique_id``: a record seen twice counts once.

Weights count documents: a link's weight is the number of documents that make it, each counted
once however often it repeats an item (full counting, as VOSviewer's and bibliometrix's
default). ``min_weight`` keeps the links of at least that weight; every node is kept (its
``links`` are 0 when none is). Each edge lists the documents that make it (``records``), so a
link can be traced back to its papers.

Reference lists come from the records' ``references`` field, which the contract says may be
truncated: the network's ``truncated`` is True when a list is shorter than its record's
``reference_count`` (``short_lists`` names them). With ``complete=True`` and a ``client``, the
whole lists come from ``/meta-paper-relations`` instead: one request per 200 references of each
document, through the client (paced, retried), its cost logged (INFO) before it starts and told
by :func:`estimate_references`; ``checkpoint=`` makes it resumable. A cited work is named by its
``unique_id``, or by its DOI (lower case) when it is outside the service; a DOI that a record
or relation item of the source gives the ``unique_id`` of is that work.

Counting is sparse (the products of a document-by-item incidence matrix, scipy): tens of
thousands of records build in seconds (``benches/RESULTS.md``). numpy, scipy, pandas and
networkx are imported on first use (``pip install "paperlens[bibliometrics]"``).

References:
    - Small, H. (1973). Co-citation in the scientific literature: A new measure of the
      relationship between two documents. *Journal of the American Society for Information
      Science*, 24(4), 265-269.
    - Kessler, M. M. (1963). Bibliographic coupling between scientific papers. *American
      Documentation*, 14(1), 10-25.
    - Garfield, E., Sher, I. H., & Torpie, R. J. (1964). *The use of citation data in writing
      the history of science*. Institute for Scientific Information.
    - Newman, M. E. J. (2001). The structure of scientific collaboration networks. *PNAS*,
      98(2), 404-409.
    - Callon, M., Courtial, J.-P., Turner, W. A., & Bauin, S. (1983). From translations to
      problematic networks: An introduction to co-word analysis. *Social Science
      Information*, 22(2), 191-235.
    - van Eck, N. J., & Waltman, L. (2010). Software survey: VOSviewer, a computer program for
      bibliometric mapping. *Scientometrics*, 84(2), 523-538.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paperlens.base import _checks as checks
from paperlens.base._signatures import parameters_of
from paperlens.bibliometrics._complete import ReferenceEstimate, complete_plan, estimate_documents
from paperlens.bibliometrics._counting import co_links, incidence, modules
from paperlens.bibliometrics._network import WeightedNetwork
from paperlens.bibliometrics._sources import Documents, author_key, field_values, read_documents, term_key
from paperlens.bibliometrics._writers import FORMATS

if TYPE_CHECKING:
    from paperlens.clients.client import Client

__all__ = [
    "FORMATS",
    "ReferenceEstimate",
    "WeightedNetwork",
    "bibliographic_coupling",
    "co_authorship",
    "co_citation",
    "co_occurrence",
    "direct_citation",
    "estimate_references",
]


def co_citation(
    source: Any,
    *,
    client: Client | None = None,
    complete: bool = False,
    min_weight: int = 1,
    checkpoint: str | os.PathLike[str] | None = None,
) -> WeightedNetwork:
    """The co-citation network of the works the documents cite (Small 1973).

    Two works are co-cited when a document cites both; the weight of their link is the number
    of documents of the source that cite both. Nodes are every work the documents cite,
    labelled by title where the source knows it (else their id), with ``citations``: how many
    documents of the source cite it.

    Args:
        source: the documents (see :mod:`paperlens.bibliometrics`).
        client: a :class:`~paperlens.Client`, for ``complete=True``.
        complete: read each document's whole reference list from ``/meta-paper-relations``
            rather than the records' (possibly truncated) ``references``.
        min_weight: keep links made by at least this many documents.
        checkpoint: with ``complete=True``, a file where each page answered is saved, so the
            same call after an interruption sends only the requests still missing.

    Returns:
        A :class:`WeightedNetwork`; each edge's ``records`` are the citing documents.

    Raises:
        ValidationError: before any request: a bad ``min_weight`` or ``checkpoint``,
            ``complete=True`` without a client, a source of no such kind, or a record without
            ``unique_id``.

    >>> from paperlens.bibliometrics import co_citation
    >>> network = co_citation(client.iter_meta_search("coral bleaching", limit=100))
    >>> row = network.edges.iloc[0]
    >>> bool(row["weight"] == len(row["records"]))  # the documents citing both works
    True
    """
    documents, requests = _prepared(source, client, complete, min_weight, checkpoint)
    works, matrix = _cited_works(documents)
    return _network("co-citation", documents, works, matrix, min_weight, documents.ids, "citations", requests)


@parameters_of(co_citation)
def bibliographic_coupling(source: Any, **options: Any) -> WeightedNetwork:
    """The bibliographic coupling network of the documents (Kessler 1963).

    Two documents are coupled when they cite a work in common; the weight of their link (its
    coupling strength) is the number of works both cite. Nodes are the documents, labelled by
    title, with ``references``: how many distinct works each cites.

    Returns:
        A :class:`WeightedNetwork`; each edge's ``records`` are the works both documents cite.

    Raises:
        ValidationError: as for :func:`co_citation`.

    >>> from paperlens.bibliometrics import bibliographic_coupling
    >>> coupled = bibliographic_coupling(client.iter_meta_search("coral bleaching", limit=100), min_weight=2)
    >>> int(coupled.edges["weight"].min())
    2
    """
    documents, requests = _prepared(source, **options)
    works, cited = _cited_works(documents)
    matrix = cited.T.tocsr()
    matrix.sort_indices()
    return _network(
        "bibliographic-coupling", documents, documents.ids, matrix, options["min_weight"], works, "references", requests
    )


@parameters_of(co_citation)
def direct_citation(source: Any, **options: Any) -> WeightedNetwork:
    """The direct citation network of the documents (Garfield, Sher & Torpie 1964): a link
    from each document to each document of the source it cites (citing -> cited).

    Only citations within the source are links (works outside it are the nodes of
    :func:`co_citation`); a document citing itself is no link. Each link is made by one
    document, the citing one, so its weight is 1 (``min_weight`` above 1 keeps none). Nodes are
    the documents, labelled by title, with ``citations``: how many documents of the source cite
    it.

    Returns:
        A directed :class:`WeightedNetwork`; each edge's ``records`` is the citing document.

    Raises:
        ValidationError: as for :func:`co_citation`.

    >>> from paperlens.bibliometrics import direct_citation
    >>> cites = direct_citation(client.iter_meta_search("coral bleaching", limit=100))
    >>> cites.directed, bool((cites.edges["records"].str[0] == cites.edges["source"]).all())
    (True, True)
    """
    np, _sparse = modules()
    documents, requests = _prepared(source, **options)
    min_weight = options["min_weight"]
    position = {key: i for i, key in enumerate(documents.ids)}
    pairs = dict.fromkeys(
        (i, position[w]) for i in range(len(documents.ids)) for w in documents.cited(i) if position.get(w, i) != i
    )
    kept = list(pairs) if min_weight <= 1 else []
    source_index = np.array([s for s, _t in kept], dtype=np.int64)
    target_index = np.array([t for _s, t in kept], dtype=np.int64)
    citations = np.bincount(np.array([t for _s, t in pairs], dtype=np.int64), minlength=len(documents.ids))
    return WeightedNetwork(
        kind="direct-citation",
        directed=True,
        min_weight=min_weight,
        count_name="citations",
        ids=list(documents.ids),
        labels=[documents.titles.get(key, key) for key in documents.ids],
        counts=citations.astype(np.int64),
        source=source_index,
        target=target_index,
        weight=np.ones(len(kept), dtype=np.int64),
        groups=source_index,
        group_ids=np.array(documents.ids, dtype=object),
        **_reference_facts(documents, requests),
    )


def co_authorship(source: Any, *, min_weight: int = 1) -> WeightedNetwork:
    """The co-authorship network (Newman 2001): two authors are linked when they sign a
    document together; the weight of the link is the number of documents they co-authored.

    Authors are identified by ORCID where the record gives one (its bare
    ``0000-0000-0000-000X`` form, from a URL too), else by name (whitespace collapsed, case
    kept); an author listed twice on a document counts once. Nodes are labelled by the first
    name seen, with ``documents``: how many documents of the source each signed.

    Args:
        source: the documents (see :mod:`paperlens.bibliometrics`); their ``author`` field.
        min_weight: keep links of at least this many documents.

    Returns:
        A :class:`WeightedNetwork`; each edge's ``records`` are the co-authored documents.

    Raises:
        ValidationError: a bad ``min_weight``, a source of no such kind, or a record without
            ``unique_id``.

    >>> from paperlens.bibliometrics import co_authorship
    >>> authors = co_authorship(client.iter_meta_search("coral bleaching", limit=100))
    >>> authors.nodes.columns.tolist()
    ['id', 'label', 'documents', 'links', 'strength']
    """
    _checked(min_weight, False, None, None)
    return _item_network("co-authorship", read_documents(source), "author", author_key, min_weight, "documents")


def co_occurrence(source: Any, *, field: str = "keywords", min_weight: int = 1) -> WeightedNetwork:
    """The co-occurrence (co-word) network of a field's terms (Callon et al. 1983): two terms
    are linked when a document carries both; the weight of the link is the number of such
    documents.

    Terms are compared case-folded with whitespace collapsed and labelled as first written; a
    term repeated on a document counts once. The field may hold texts (``keywords``,
    ``subjects``) or objects with a ``display_name`` (``topics``, ``primary_topic``); a dotted
    name reads into objects (``topics.display_name``).

    Args:
        source: the documents (see :mod:`paperlens.bibliometrics`).
        field: the record field whose terms are the nodes.
        min_weight: keep links of at least this many documents.

    Returns:
        A :class:`WeightedNetwork` whose nodes carry ``occurrences`` (the documents carrying
        the term); each edge's ``records`` are the documents carrying both terms.

    Raises:
        ValidationError: a bad ``min_weight`` or ``field``, a source of no such kind, or a
            record without ``unique_id``.

    >>> from paperlens.bibliometrics import co_occurrence
    >>> words = co_occurrence(client.iter_meta_search("coral bleaching", limit=100), min_weight=3)
    >>> words.nodes.sort_values("occurrences", ascending=False)[["label", "occurrences"]].head(3)
                        label  occurrences
    0               bleaching           48
    1              coral reef           39
    12  marine protected area           32
    """
    checks.non_empty_text("field", field)
    _checked(min_weight, False, None, None)
    return _item_network("co-occurrence", read_documents(source), field, term_key, min_weight, "occurrences")


def estimate_references(source: Any, *, client: Client | None = None) -> ReferenceEstimate:
    """What ``complete=True`` will cost for ``source``, without any request: the
    ``/meta-paper-relations`` requests (one per 200 of each document's ``reference_count``,
    at least one each). Their time is the network's: the contract states no quota for the
    operation, so no pacing rate of the client enters the estimate.

    Args:
        source: the documents (see :mod:`paperlens.bibliometrics`).
        client: the :class:`~paperlens.Client` of the ``complete=True`` call, or None (the
            estimate is the same: taken so that the call's arguments serve here too).

    Raises:
        ValidationError: a ``client`` that is not a :class:`~paperlens.Client`, a source of no
            such kind, or a record without ``unique_id``.

    >>> from paperlens.bibliometrics import estimate_references
    >>> print(estimate_references(client.iter_meta_search("coral bleaching", limit=100)))
    Reference lists of 97 documents: 97 requests to /meta-paper-relations (97 reference_count known);
    time: network-bound (no quota stated)
    """
    _checked_client(client)
    return estimate_documents(read_documents(source))


# -- building ---------------------------------------------------------------------------------------


def _checked(min_weight: Any, complete: Any, client: Any, checkpoint: Any) -> None:
    checks.count("min_weight", min_weight, 1)
    checks.flag("complete", complete)
    if complete and client is None:
        raise checks.invalid("client", "complete=True needs a client (the lists come from /meta-paper-relations)")
    _checked_client(client)
    if checkpoint is not None and not complete:
        raise checks.invalid("checkpoint", "is only for complete=True (it saves the relation pages)", checkpoint)
    if checkpoint is not None:
        checks.path("checkpoint", checkpoint)


def _checked_client(client: Any) -> None:
    from paperlens.clients.client import Client

    if client is not None and not isinstance(client, Client):
        raise checks.invalid("client", "must be a paperlens.Client", type(client).__name__)


def _prepared(
    source: Any, client: Client | None, complete: bool, min_weight: int, checkpoint: Any
) -> tuple[Documents, list[str]]:
    """The source's documents, with whole reference lists for ``complete=True``."""
    from paperlens.machinery._operation import _run_sync

    _checked(min_weight, complete, client, checkpoint)
    documents = read_documents(source)
    requests: list[str] = []
    if complete:
        requests = _run_sync(client, complete_plan(documents, checkpoint=checkpoint))
    return documents, requests


def _cited_works(documents: Documents) -> tuple[list[str], Any]:
    """The works the documents cite, and the document-by-work incidence matrix (a row per
    document, a column per work)."""
    works: dict[str, int] = {}
    groups = [[works.setdefault(w, len(works)) for w in documents.cited(i)] for i in range(len(documents.ids))]
    return list(works), incidence(groups, len(works))


def _reference_facts(documents: Documents, requests: list[str]) -> dict[str, Any]:
    short = documents.short_lists()
    return {"truncated": bool(short), "short_lists": short, "requests": requests}


def _network(
    kind: str,
    documents: Documents,
    members: list[str],
    matrix: Any,
    min_weight: int,
    group_ids: list[str],
    count_name: str,
    requests: list[str] | None = None,
) -> WeightedNetwork:
    """A network of ``members`` (the columns of ``matrix``) linked by its rows."""
    np, _sparse = modules()
    links = co_links(matrix, min_weight)
    facts = _reference_facts(documents, requests) if requests is not None else {}
    labels = [documents.titles.get(key, key) for key in members]
    return WeightedNetwork(
        kind=kind,
        directed=False,
        min_weight=min_weight,
        count_name=count_name,
        ids=list(members),
        labels=labels,
        counts=np.asarray(matrix.sum(axis=0)).ravel().astype(np.int64),
        source=links.source,
        target=links.target,
        weight=links.weight,
        groups=links.groups,
        group_ids=np.array(group_ids, dtype=object),
        **facts,
    )


def _item_network(
    kind: str,
    documents: Documents,
    field: str,
    identify: Callable[[Any], tuple[str, str] | None],
    min_weight: int,
    count_name: str,
) -> WeightedNetwork:
    """A network of the items (authors, terms) of each document's ``field``."""
    items: dict[str, int] = {}
    labels: list[str] = []
    groups = []
    for row in documents.rows:
        group: dict[int, None] = {}
        for value in field_values(row, field):
            found = identify(value)
            if found is None:
                continue
            key, label = found
            if key not in items:
                items[key] = len(items)
                labels.append(label)
            group[items[key]] = None
        groups.append(list(group))
    network = _network(
        kind, documents, list(items), incidence(groups, len(items)), min_weight, documents.ids, count_name
    )
    network.labels = labels
    return network
