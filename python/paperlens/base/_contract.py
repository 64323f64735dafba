"""The facts of the service contract that the Python layer needs, in one place.

The Rust core keeps the full set (``crates/paperlens-core/src/contract.rs``) and validates
requests with it; these are the ones Python code reads, taken from the core's table through
the extension (``CONTRACT``, ``src/contract.rs``) so that each is written once: filter
operators and their short forms, sort orders, the page-depth cap and the boosts of
``meta_search``, page sizes and the enumerations a caller (or the CLI) may offer as choices.
Only the Python spellings of the operators are written here. ``tests/test_contract_facts.py``
checks each against the sandbox's OpenAPI document, as the core's are checked by the
sandbox's ``tests/contract.rs``, so a drift between them fails CI.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from paperlens._paperlens import CONTRACT as _CORE

# -- /meta-search --------------------------------------------------------------------------

#: The filter operators by their catalog short names (``/meta-catalog``).
FILTER_OPERATORS: Final[tuple[str, ...]] = _CORE["FILTER_OPERATORS"]
#: What a short name carries in a request body: ``FILTER_OP_GTE``.
FILTER_OPERATOR_PREFIX: Final[str] = _CORE["FILTER_OPERATOR_PREFIX"]
#: The operators whose value is a list.
LIST_OPERATORS: Final[tuple[str, ...]] = _CORE["LIST_OPERATORS"]
#: Python spellings of the operators (``Filter("year", ">=", 2020)``), each to its short name.
OPERATOR_ALIASES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "==": "EQ",
        "!=": "NE",
        ">": "GT",
        ">=": "GTE",
        "<": "LT",
        "<=": "LTE",
        "in": "IN",
        "not_in": "NIN",
        "contains": "CONTAINS",
        "match": "MATCH",
        "match_phrase": "MATCH_PHRASE",
    }
)
#: ``order`` of a sort item, by its short form; descending is the default.
SORT_ORDERS: Final[Mapping[str, str]] = MappingProxyType(
    {order.removeprefix("SORT_ORDER_").lower(): order for order in _CORE["SORT_ORDERS"]}
)

#: The collections ``meta_search`` and ``meta_catalog`` read; the first is the default.
COLLECTIONS: Final[tuple[str, ...]] = _CORE["COLLECTIONS"]

#: ``page * page_size`` may not exceed this in page-numbered paging (deeper results need
#: ``cursor``), and ``total_count`` is capped at it (a value at the cap means this many or more).
PAGE_DEPTH_CAP: Final[int] = _CORE["PAGE_DEPTH_CAP"]
#: The largest ``page_size`` of ``meta_search`` and ``paper_relations``, and the default.
PAGE_SIZE_MAX: Final[int] = _CORE["PAGE_SIZE_MAX"]
PAGE_SIZE_DEFAULT: Final[int] = _CORE["PAGE_SIZE_DEFAULT"]

#: The three relevance boosts. They re-rank only a relevance ranking (a non-empty query and no
#: sort), and while one is active the service refuses ``cursor`` deep paging.
BOOSTS: Final[tuple[str, ...]] = _CORE["BOOSTS"]
#: The levels of each boost; the first, :data:`NO_BOOST`, is the default.
BOOST_LEVELS: Final[tuple[str, ...]] = _CORE["BOOST_LEVELS"]
NO_BOOST: Final[str] = _CORE["NO_BOOST"]

# -- the other Open Platform operations -------------------------------------------------------

#: ``relation`` of ``paper_relations``.
PAPER_RELATIONS: Final[tuple[str, ...]] = _CORE["PAPER_RELATIONS"]
#: ``retrieval`` of ``agentic_search``; the first is the default.
RETRIEVAL_MODES: Final[tuple[str, ...]] = _CORE["RETRIEVAL_MODES"]
#: ``source_types`` items of ``agentic_search``.
SOURCE_TYPES: Final[tuple[str, ...]] = _CORE["SOURCE_TYPES"]
#: The largest ``limit`` (code points) of a ``/content`` page: whole texts are read in pages of it.
CONTENT_PAGE_MAX: Final[int] = _CORE["CONTENT_PAGE_MAX"]

# -- /paper-schema ---------------------------------------------------------------------------

#: The largest ``size`` of the paged ``/paper-schema`` list operations.
SCHEMA_PAGE_SIZE_MAX: Final[int] = _CORE["SCHEMA_PAGE_SIZE_MAX"]
EVIDENCE_GROUPS: Final[tuple[str, ...]] = _CORE["EVIDENCE_GROUPS"]
#: ``group_operator`` of evidence search; the first is the default.
GROUP_OPERATORS: Final[tuple[str, ...]] = _CORE["GROUP_OPERATORS"]
#: ``goal`` of materials; the first is the default.
GOALS: Final[tuple[str, ...]] = _CORE["GOALS"]
#: ``signals`` of the related papers of a seed; all three by default.
SIGNALS: Final[tuple[str, ...]] = _CORE["SIGNALS"]
#: ``direction`` of the citation graph; the first is the default.
DIRECTIONS: Final[tuple[str, ...]] = _CORE["DIRECTIONS"]
