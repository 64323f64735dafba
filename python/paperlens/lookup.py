"""Records for many identifiers at once: ``client.lookup(ids, by=...)``.

The ids are normalised (DOIs: case, ``https://doi.org/``, ``http://dx.doi.org/`` and ``doi:``
prefixes, surrounding whitespace; ISBN-13: hyphens and spaces), each distinct one is asked
for once, and they go to ``/meta-search`` as ``FILTER_OP_IN`` filters of at most
:data:`~paperlens.base._contract.PAGE_SIZE_MAX` values, each answered in one page of that size: 250
DOIs cost two requests. The contract sets no bound on the values of an ``IN`` filter; the page
size is the bound, since an id can match a record only if the record fits in the page (an id
matching several records makes its chunk run over, and the remaining pages are fetched).

A record answers an id when its ``by`` field, normalised the same way, equals the normalised
id; the first such record wins when several do.

>>> lookup = client.lookup(["10.5056/PL.2002.1824", "https://doi.org/10.9999/missing"])
>>> [record and record.unique_id for record in lookup.records]  # input order, one entry per id
['W4000005472', None]
>>> lookup.not_found
['https://doi.org/10.9999/missing']
"""

from paperlens.workflows import lookup as _module
from paperlens.workflows.lookup import *  # noqa: F403

__all__ = _module.__all__
