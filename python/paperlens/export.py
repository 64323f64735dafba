"""Citation export: BibTeX, RIS and CSL-JSON of records and of everything that holds them.

>>> page = client.meta_search("coral bleaching", fields=paperlens.export.CITATION_FIELDS)
>>> print(page.to_bibtex())                    # or paperlens.to_bibtex(page)
@misc{okafor2002bleaching,
  author = {Okafor, Pedro and Zhang, Lucas and Kim, Lucas and Lindqvist, Olivia and O'Brien, Tamara},
  ...
>>> dois = ["10.5056/pl.2002.1824", "https://doi.org/10.9999/missing"]
>>> print(paperlens.to_ris(client.lookup(dois)))  # a Lookup: the records found
TY  - DATA
ID  - okafor2002bleaching
...
>>> frame = page.to_pandas()
>>> paperlens.to_csl_json(frame)[0]["title"]   # a DataFrame of records
'Bleaching and coral reef: evidence from Global Coral Reef Monitoring Network'

Accepted everywhere: a ``MetadataRecord`` (or its wire ``dict``), a list or iterable of
them (``None`` entries skipped), a ``MetaSearchPage``, a ``RelationsPage`` or an
``AgenticSearchResult`` (their items carry fewer fields), a sync ``Paginator`` (every item;
for an ``AsyncPaginator``: ``paperlens.to_bibtex(await paginator.to_list())``), a
:class:`~paperlens.lookup.Lookup`, a :class:`~paperlens.deduplication.Deduped` or its ``kept``, and
a pandas DataFrame of records. A record that appears twice (same ``unique_id``) is written
once.

One citation key per record, shared by the three formats (BibTeX key, RIS ``ID``, CSL
``id``): first author's family name, year and first significant title word, folded to ASCII
(``lindqvist2019coral``; ``anon`` and ``nd`` stand in for what is missing), with ``a``, ``b``...
appended to later clashing keys, so the same records in the same order always get the same
keys. The entry type follows the record's ``type`` and, for types the mapping does not know,
its venue type (see :data:`KINDS`). Values keep their Unicode (CJK, emoji); BibTeX escapes
LaTeX's special characters (``{ } % & $ # _ ~ ^ \\``) and braces literal (one-word) names,
but ``doi`` and ``url``, which biber and biblatex keep verbatim, are written as they are
(``10.1000/a_b%``), a brace, backslash or whitespace in them percent-encoded (``%7B``: the
same URL; a URI cannot hold them as such).
A string holding an unpaired surrogate (``"\\ud83d"`` alone, as ``json.loads`` may give) is
written with U+FFFD in its place in the three formats and in the CLI's tables, CSV and
Markdown text, while the CLI's JSON and JSONL keep its ``\\ud83d`` escape, which reads back
as the same string.

The formats themselves are in ``paperlens.results._formats``, a conversion that sees results only
through ``paperlens.results._result``; the result types get ``to_bibtex()`` and the others from
:class:`Citable`, which imports the formats on first use.
"""

from paperlens.results import export as _module
from paperlens.results.export import *  # noqa: F403

__all__ = _module.__all__
