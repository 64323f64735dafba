"""What a harvest will cost, known before it starts: ``client.estimate_harvest(...)`` and
``paperlens harvest ... --dry-run``.

>>> estimate = client.estimate_harvest("coral bleaching", texts=True)
>>> print(estimate)                 # requests per operation, quota resources, time
Harvest estimate: ... records, ... texts (~: estimated from a sample of ... records)
operation                   requests  quota resource    rate  time at the rate
meta_search (/meta-search)         1     meta-search  30/min               0 s
content (/content)               ~...     none stated       -     network-bound
total                            ~...                                       0 s
>>> estimate.requests, estimate.seconds
(..., 0.0)
>>> print(client.estimate_harvest("coral bleaching", texts=True, figures=True, sample_texts=40))
Harvest estimate: ... records, ... texts, ~... figures (~: estimated from a sample of ... records, 40 texts)
operation                            requests  quota resource    rate  time at the rate
meta_search (/meta-search)                  1     meta-search  30/min               0 s
content (/content)                       ~...     none stated       -     network-bound
download_resource (/resource)  ~... (...-...)     none stated       -     network-bound
total                                    ~...                                       0 s

The estimate sends a couple of requests and writes nothing: one ``/meta-search`` page (the
harvest's first, of 200 records, when texts are asked for; of one record otherwise) gives
``total_count`` and, with ``texts=True``, how many records carry a ``doc_id``; with
``figures=True`` one ``/content`` request reads a sample text of that page to count the figures
it links to (``sample_texts=`` reads more, spread over the page). From them it counts what the
harvest sends:

- ``/meta-search``: one request per page of ``page_size`` records (200, the most, unless
  given); with ``ids``, pages of 200 ids per ``IN`` filter. Exact for a search (from
  ``total_count``, and ``limit``), estimated for ``ids`` beyond the first 200 (from the share
  of them the sample page matched).
- ``/content``: one request per record with a ``doc_id``, and one more per further 524,288 code
  points (about 1 MB) of the sample texts that are longer (nothing tells the length of the
  others in advance). Exact when the records fit in the sample page and every text was
  sampled, estimated from the page's share of records with a ``doc_id`` otherwise.
- ``/resource``: one request per figure the texts link to: the sample texts' mean times the
  texts. Nothing in a record tells how many figures its text has, so from one sample text this
  is rough (``~``); with ``sample_texts=n`` it is the closer the larger ``n``, and from two
  texts on the estimate gives the range the count likely falls in (``likely``: the mean ± two
  standard errors of the sample, which shrink as the sample nears all the texts). Exact when
  every text of a harvest that fits in the sample page was sampled.

``update=out`` estimates bringing the harvest at ``out`` up to date (``harvest(...,
update=True)``, ``paperlens update --dry-run``) from the call its manifest records: the update
reads every metadata page of the search again (the contract has no date of indexing that would
let it stop early), so its ``/meta-search`` requests are counted as for the harvest; the new
records are ``total_count`` less the records the output holds (exact while the service only
grows; counted, for a search that fits in the sample page, as the sample's records the output
does not hold; with a ``limit`` below ``total_count``, the share of new records in the sample
page, which is rough), their texts and figures from the new records of the sample as above.

The time is the least the client's pacing allows for the requests bound by a quota
(``/meta-search``, ``/paper-schema``), at the rate in force: the configured ``rate_limits``, or
a lower rate the client learned from 429s of the gateway. The first N requests of a resource
paced at N per minute go at once, each further N a minute later. It counts
neither the service's answer times nor other processes that share the pacing. ``/content``
and ``/resource`` have no quota the contract states (the client slows them only when the
service answers 429), so their time is that of the network and the service.
"""

from paperlens.workflows import estimate as _module
from paperlens.workflows.estimate import *  # noqa: F403

__all__ = _module.__all__
