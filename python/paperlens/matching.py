"""Free-text citations matched to records: ``client.match_reference(text)``.

A citation is parsed (:func:`parse_reference`: authors, year, title, venue, DOI) and looked
for in as few requests as it takes, usually one:

1. a DOI, when the text has one: the record holding it (``client.lookup``; for a list of
   citations, all their DOIs in one lookup);
2. the title words as the ``/meta-search`` full-text query, within the year range
   ``year - 1 .. year + 1``;
3. only when no confident match yet: every record whose author field matches (``MATCH``) the first
   author's name within that year range, one page of the largest size, which finds a title
   too garbled for the full-text query;
4. only when still none: ``/agentic-search`` for the title (its vector recall forgives typos),
   then the records of the promising papers it names, in one ``/meta-search``.

A citation of a paper the service does not have costs all four (about 3.4 requests).

Each candidate is scored against the citation (title words, first author and other authors,
year distance, venue) into a :class:`ReferenceMatch` saying why. ``confidence="high"`` needs
the DOI with nothing in the citation contradicting it (a citation that is only a DOI is high),
or a near-identical title (its words in order), the first author and the year (within one), no
venue or co-authors that the record lacks, and a clear lead over every other candidate, so it
is almost never wrong (``benches/bench_matching.py`` measures it); ``"medium"`` is worth a look,
``"low"`` is a guess: a contradicting first author or year keeps a match low unless the title
holds, and a best candidate tied with the next is low ("tied with ..." in its reasons).

>>> text = "Lindqvist G, Zhang T. Gate fidelity under quantum advantage: a large-scale study. 1994."
>>> best = client.match_reference(text)[0]
>>> best.confidence, best.record.unique_id, best.reasons
('high', 'W4000000000', ['title words 8/8', 'first author Lindqvist', 'authors 2/2', 'year 1994 (+0)'])
"""

from paperlens.workflows import matching as _module
from paperlens.workflows.matching import *  # noqa: F403

__all__ = _module.__all__
