"""Short forms of ``meta_search`` filters, sort and facets, turned into the wire dicts.

>>> from paperlens import Filter
>>> Filter("citation_count", ">=", 100).to_wire()
{'field': 'citation_count', 'operator': 'FILTER_OP_GTE', 'value': 100}
"""

from paperlens.base import filters as _module
from paperlens.base.filters import *  # noqa: F403

__all__ = _module.__all__
