"""Checking a reference list: ``client.verify_citations(references)``.

Each reference (BibTeX, free text, CSL-JSON or a DataFrame row: see
:func:`~paperlens.workflows._given.read_references`) gets a status:

- ``"verified"``: a record says what the reference says: every field it gives agrees (the
  title word for word, case, punctuation and LaTeX aside; every author, in order, none
  missing unless the list ends with "et al." or ``and others``; the year; the venue by its
  words, abbreviations allowed; the DOI);
- ``"mismatch"``: the reference names a record, but some of its fields differ from it (a title
  a word off, a year off, another first author, authors missing, another venue, the DOI of
  another paper): ``differences`` holds each as ``(given, found)``;
- ``"not_found"``: no record is the work it describes (an invented reference, or one the
  service does not have);
- ``"ambiguous"``: several records fit it equally well; ``candidates`` holds them;
- ``"unverifiable"``: a kind of work the service does not index (a web page, software, a
  dataset, a standard, a patent) without a DOI it knows, or too little given to search (no
  title and no DOI); nothing is sent for it.

Requests: the DOIs of all references are looked up together (200 per ``/meta-search``
request); a DOI that resolves to a record whose title the reference does not contradict
settles the reference. Every other reference costs one ``/meta-search``, its title words,
for the :data:`FIELDS` the checks and the corrected BibTeX need. A list of 300 references
with DOIs costs 2 requests; without, 300 (10 minutes at the default 30 per minute).

The matching engine (:mod:`paperlens.matching`) scores the candidates; here they are read as
a verdict: the best one is the cited work when the titles agree in word order (0.95 or more
for "the same title"; a close title needs an agreeing first author or year, a partial one
both), and a tie between two such records is ``ambiguous``. Venues are compared by their
words both ways, and their kinds must agree: "Transactions on X", "Journal of X" and "X
Letters" are three venues.

Confidence: ``"high"`` on a ``verified`` or ``mismatch`` needs the DOI, or the exact title
with the first author or the year, to agree (the record is the cited work); on a
``not_found``, that no record comes close to the title. ``benches/bench_hallmark.py``
measures how often each level is right.

>>> checked = client.verify_citations(
...     ["Lindqvist G, Zhang T. Gate fidelity under quantum advantage: a large-scale study. 1995."]
... )
>>> checked[0].status, checked[0].differences
('mismatch', {'year': (1995, 1994)})
"""

from paperlens.workflows import verification as _module
from paperlens.workflows.verification import *  # noqa: F403

__all__ = _module.__all__
