"""De-duplication of merged result sets: ``paperlens.dedupe(items)``.

>>> page_a = client.meta_search("coral bleaching", page_size=5)
>>> page_b = client.meta_search("coral reef", page_size=5)
>>> lookup = client.lookup(["10.5056/pl.2002.1824"])
>>> merged = page_a.results + page_b.results + lookup.records
>>> deduped = paperlens.dedupe(merged)
>>> len(merged), len(deduped.kept)  # kept: the records, each work once, in input order
(11, 9)
>>> deduped.merged          # DataFrame: dropped_id, kept_id, rule (and the positions)
    dropped_id      kept_id rule  dropped_index  kept_index
0  W4000005472  W4000005472  doi              7           0
1  W4000005472  W4000005472  doi             10           0

Two records are the same work when one rule of ``on`` says so, tried in the order given:

- ``"doi"``: equal DOIs once normalised (case, ``https://doi.org/`` and ``doi:`` prefixes);
- ``"unique_id"``: equal ``unique_id``;
- ``"title_year"``: equal titles once normalised (Unicode NFKC, case folded, punctuation
  and runs of whitespace turned into one space), the same publication year, and the same
  first author's family name when both records name authors (so that two works with a
  generic title, "Editorial", stay apart); this merges a preprint and its journal version
  even when their DOIs differ (leave the rule out to keep them apart).

Records are compared one by one, in input order, with the groups found so far: a record
joins the group of the first rule that matches (the merge reports that rule) and brings its
own keys to it. Each group keeps its most complete record (the most non-empty fields; the
earliest on a tie) at the place of the group's first record, as it is: fields are not
combined across records, so merge records fetched with the same ``fields`` (for citations,
``paperlens.export.CITATION_FIELDS``), or the one with the larger projection wins.
"""

from paperlens.workflows import deduplication as _module
from paperlens.workflows.deduplication import *  # noqa: F403

__all__ = _module.__all__
