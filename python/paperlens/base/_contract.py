"""The facts of the service contract that the Python layer needs, in one place.

The Rust core keeps the full set (``crates/paperlens-core/src/contract.rs``) and validates
requests with it; these are the ones Python code reads: filter operators and their short
forms, sort orders, the page-depth cap and the boosts of ``meta_search``, page sizes and the
enumerations a caller (or the CLI) may offer as choices. ``tests/test_contract_facts.py``
checks each against the sandbox's OpenAPI document, as the core's are checked by the
sandbox's ``tests/contract.rs``, so a drift between them fails CI.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

# -- /meta-search --------------------------------------------------------------------------

#: The filter operators by their catalog short names (``/meta-catalog``).
FILTER_OPERATORS: Final = ("EQ", "NE", "GT", "GTE", "LT", "LTE", "IN", "NIN", "CONTAINS", "MATCH", "MATCH_PHRASE")
#: What a short name carries in a request body: ``FILTER_OP_GTE``.
FILTER_OPERATOR_PREFIX: Final = "FILTER_OP_"
#: The operators whose value is a list.
LIST_OPERATORS: Final = ("IN", "NIN")
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
SORT_ORDERS: Final[Mapping[str, str]] = MappingProxyType({"desc": "SORT_ORDER_DESC", "asc": "SORT_ORDER_ASC"})

#: The collections ``meta_search`` and ``meta_catalog`` read; the first is the default.
COLLECTIONS: Final = ("papers", "authors", "sources")

#: ``page * page_size`` may not exceed this in page-numbered paging (deeper results need
#: ``cursor``), and ``total_count`` is capped at it (a value at the cap means this many or more).
PAGE_DEPTH_CAP: Final = 10_000
#: The largest ``page_size`` of ``meta_search`` and ``paper_relations``, and the default.
PAGE_SIZE_MAX: Final = 200
PAGE_SIZE_DEFAULT: Final = 25

#: The three relevance boosts. They re-rank only a relevance ranking (a non-empty query and no
#: sort), and while one is active the service refuses ``cursor`` deep paging.
BOOSTS: Final = ("freshness_boost", "impact_boost", "language_affinity")
#: The levels of each boost; the first, :data:`NO_BOOST`, is the default.
BOOST_LEVELS: Final = ("NONE", "MILD", "STRONG")
NO_BOOST: Final = "NONE"

# -- the other Open Platform operations -------------------------------------------------------

#: ``relation`` of ``paper_relations``.
PAPER_RELATIONS: Final = ("CITATIONS", "REFERENCES", "RELATED_WORKS")
#: ``retrieval`` of ``agentic_search``; the first is the default.
RETRIEVAL_MODES: Final = ("hybrid", "vector", "es")
#: ``source_types`` items of ``agentic_search``.
SOURCE_TYPES: Final = ("web", "pdf")
#: The largest ``limit`` (code points) of a ``/content`` page: whole texts are read in pages of it.
CONTENT_PAGE_MAX: Final = 524_288

# -- /paper-schema ---------------------------------------------------------------------------

#: The largest ``size`` of the paged ``/paper-schema`` list operations.
SCHEMA_PAGE_SIZE_MAX: Final = 100
EVIDENCE_GROUPS: Final = (
    "evidence_score",
    "schema_unit",
    "reference_semantics",
    "reference_core",
    "comparison_detail",
    "citation_signal",
    "formula",
    "core_claim_result",
    "table_evidence",
    "resource",
)
#: ``group_operator`` of evidence search; the first is the default.
GROUP_OPERATORS: Final = ("any", "all")
#: ``goal`` of materials; the first is the default.
GOALS: Final = ("overview", "survey", "benchmark", "method", "reproduction")
#: ``signals`` of the related papers of a seed; all three by default.
SIGNALS: Final = ("term", "entity", "citation")
#: ``direction`` of the citation graph; the first is the default.
DIRECTIONS: Final = ("outbound", "inbound")
