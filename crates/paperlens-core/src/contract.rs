//! The facts of the service contract (the two specs) that both sides need, each written once:
//! the client's validation here in the core, and the sandbox that serves the contract
//! (`paperlens-sandbox` depends on this crate for them).
//!
//! Enumerations (operator names, boosts, evidence groups, goals...), the 10,000 cap of
//! `/meta-search`, the caps on lists and the bounds of integers and texts. The sandbox's
//! `tests/contract.rs` checks every one against its OpenAPI document and probes the sandbox
//! with them, so a fact that differs between the core, the sandbox and the document fails
//! CI. The Python layer reads them through the extension (`CONTRACT`, `src/contract.rs`) in
//! `python/paperlens/base/_contract.py`, checked against the same document by
//! `tests/test_contract_facts.py`.

/// The inclusive bounds of an integer parameter, and its default where the spec gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub min: i64,
    pub max: i64,
    pub default: Option<i64>,
}

impl Bound {
    const fn new(min: i64, max: i64, default: i64) -> Bound {
        Bound { min, max, default: Some(default) }
    }

    const fn without_default(min: i64, max: i64) -> Bound {
        Bound { min, max, default: None }
    }

    /// The value given, else the default (else the minimum, for a bound without default).
    pub fn or_default(self, value: Option<i64>) -> i64 {
        value.or(self.default).unwrap_or(self.min)
    }
}

/// How many items a list may hold, or how many characters a text may have (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub min: usize,
    pub max: usize,
}

impl Count {
    const fn at_most(max: usize) -> Count {
        Count { min: 0, max }
    }

    const fn between(min: usize, max: usize) -> Count {
        Count { min, max }
    }

    /// No bound: the spec names none.
    pub const UNBOUNDED: Count = Count { min: 0, max: usize::MAX };

    pub fn contains(self, n: usize) -> bool {
        (self.min..=self.max).contains(&n)
    }
}

// -- /agentic-search -------------------------------------------------------------------------

pub const AGENTIC_QUERY_CHARS: Count = Count::between(1, 4096);
pub const TOP_K: Bound = Bound::new(1, 100, 10);
pub const SUB_QUERIES: Bound = Bound::new(0, 4, 0);
pub const SOURCE_TYPES: [&str; 2] = ["web", "pdf"];
/// The first is the default.
pub const RETRIEVAL_MODES: [&str; 3] = ["hybrid", "vector", "es"];
/// The properties of the `filters` object.
pub const AGENTIC_FILTER_KEYS: [&str; 11] = [
    "lang",
    "language",
    "title",
    "author",
    "publication_venue_name_unified",
    "publication_venue_type",
    "publication_published_date",
    "publication_published_year",
    "citation_count",
    "influential_citation_count",
    "topics",
];
/// `filters.publication_venue_type`, in the spec's spelling; matched case-insensitively.
pub const VENUE_TYPES: [&str; 9] = [
    "journal",
    "conference",
    "repository",
    "book series",
    "ebook platform",
    "metadata",
    "raidRegistry",
    "igsnCatalog",
    "other",
];
/// A date or number filter given as an array: `[low, high]`, each may be null.
pub const RANGE_PAIR: Count = Count::between(2, 2);
/// `filters.topics.logic`; the last is the default.
pub const TOPIC_LOGIC: [&str; 2] = ["and", "or"];
/// `filters.topics.dimensions.primary_topic_domain`.
pub const TOPIC_DOMAINS: [&str; 4] = ["Physical Sciences", "Social Sciences", "Health Sciences", "Life Sciences"];

// -- /content --------------------------------------------------------------------------------

/// Code points of a page (paged mode).
pub const CONTENT_LIMIT: Bound = Bound::new(1, 524_288, 700);
/// Where a page starts, in code points (given, even 0, it asks for paged mode).
pub const CONTENT_OFFSET: Bound = Bound::without_default(0, i64::MAX);

// -- /meta-catalog, /meta-search, /meta-paper-relations ---------------------------------------

/// The first is the default.
pub const COLLECTIONS: [&str; 3] = ["papers", "authors", "sources"];

/// `page * page_size` may not exceed this (deeper results need `cursor`), and `total_count`
/// is capped at it (a value at the cap means this many or more).
pub const PAGE_DEPTH_CAP: i64 = 10_000;
pub const PAGE: Bound = Bound::new(1, i64::MAX, 1);
/// `page_size` of `/meta-search` and `/meta-paper-relations`.
pub const PAGE_SIZE: Bound = Bound::new(1, 200, 25);
pub const FACETS: Count = Count::at_most(5);
pub const FACET_SIZE: Bound = Bound::new(1, 50, 10);

macro_rules! filter_operators {
    ($($short:literal),* $(,)?) => {
        /// The filter operators by the catalog's short names (`/meta-catalog`).
        pub const FILTER_OPERATOR_NAMES: &[&str] = &[$($short),*];
        /// The same operators as `/meta-search` request bodies name them; the first is the default.
        pub const FILTER_OPERATORS: &[&str] = &[$(concat!("FILTER_OP_", $short)),*];
    };
}
filter_operators!("EQ", "NE", "GT", "GTE", "LT", "LTE", "IN", "NIN", "CONTAINS", "MATCH", "MATCH_PHRASE");
/// What a short operator name carries in a request body.
pub const FILTER_OPERATOR_PREFIX: &str = "FILTER_OP_";
/// The operators whose value is an array.
pub const ARRAY_OPERATORS: [&str; 2] = ["FILTER_OP_IN", "FILTER_OP_NIN"];

/// `order` of a sort item; the first is the default.
pub const SORT_ORDERS: [&str; 2] = ["SORT_ORDER_DESC", "SORT_ORDER_ASC"];
/// Sortable fields of the `papers` collection (the other collections' are not shown).
pub const META_SORTABLE: [&str; 11] = [
    "publication_published_year",
    "publication_published_date",
    "reference_count",
    "citation_count",
    "influential_citation_count",
    "fwci",
    "primary_topic.score",
    "topics.score",
    "citation_normalized_percentile.value",
    "cited_by_percentile_year.min",
    "cited_by_percentile_year.max",
];

/// The three relevance boosts. They re-rank only a relevance ranking (a non-empty query and
/// no sort), and while one is active `cursor` deep paging is refused.
pub const BOOSTS: [&str; 3] = ["freshness_boost", "impact_boost", "language_affinity"];
/// The levels of each boost; the first, [`NO_BOOST`], is the default.
pub const BOOST_LEVELS: [&str; 3] = ["NONE", "MILD", "STRONG"];
pub const NO_BOOST: &str = BOOST_LEVELS[0];

/// `relation` of `/meta-paper-relations`.
pub const PAPER_RELATIONS: [&str; 3] = ["CITATIONS", "REFERENCES", "RELATED_WORKS"];

// -- /paper-schema ---------------------------------------------------------------------------

/// Query text of search, entity search, entity related papers, in-paper search and
/// `evidence_query`.
pub const QUERY_CHARS: Count = Count::between(1, 500);
pub const SECTION_HINT_CHARS: Count = Count::at_most(300);

/// `size` of search, entity related papers, entity search, relation and evidence search.
pub const SEARCH_SIZE: Bound = Bound::new(1, 100, 20);
/// `size` of the entity list and the citations of one paper.
pub const LIST_SIZE: Bound = Bound::new(1, 100, 50);
/// `size` of the related papers of a seed paper.
pub const RELATED_PAPERS_SIZE: Bound = Bound::new(1, 50, 20);

/// How many items each list parameter may hold.
pub mod lists {
    use super::Count;

    pub const SCHEMA_IDS: Count = Count::at_most(100);
    pub const DOIS: Count = Count::at_most(100);
    pub const AUTHORS: Count = Count::at_most(20);
    pub const VENUES: Count = Count::at_most(50);
    pub const SECTIONS: Count = Count::at_most(50);
    pub const RELATION_TYPES: Count = Count::at_most(50);
    /// `source_entity_ids` and `target_entity_ids`, each.
    pub const ENTITY_IDS: Count = Count::at_most(100);
    pub const EXCLUDE_SCHEMA_IDS: Count = Count::at_most(100);
    /// `entity_types` and `entity_subtypes`: the spec caps neither.
    pub const ENTITY_KINDS: Count = Count::UNBOUNDED;
    /// `sort` of the paper search.
    pub const SORT: Count = Count::at_most(2);
    pub const SIGNALS: Count = Count::between(1, 3);
    pub const EVIDENCE_GROUPS: Count = Count::between(1, 5);
    /// `marker_nums` or `paragraph_ids` of `resolve-provenance`.
    pub const LOCATORS: Count = Count::between(1, 100);
    /// The locators of one `hydrate-items` item: the spec caps none.
    pub const ITEM_LOCATORS: Count = Count::UNBOUNDED;
    pub const HYDRATE_ITEMS: Count = Count::between(1, 50);
    /// `schema_ids` of `materials`.
    pub const MATERIALS_PAPERS: Count = Count::between(1, 20);
}

pub const PUBLISHED_YEAR: Bound = Bound::without_default(1800, 2200);
pub const PAPER_SORTABLE: [&str; 4] = ["year", "metrics.citation_count", "metrics.reference_count", "metrics.fwci"];
/// `order` of a paper search sort item (its shape is not shown by the spec).
pub const PAPER_SORT_ORDERS: [&str; 2] = ["asc", "desc"];
/// Signals of the related papers of a seed; all three by default.
pub const SIGNALS: [&str; 3] = ["term", "entity", "citation"];

pub const RELATION_LIMIT: Bound = Bound::new(1, 100, 50);
/// `include_context` of the relation search; the first is the default.
pub const INCLUDE_CONTEXT: [&str; 2] = ["none", "entities"];

/// `direction` of the citation graph; the first is the default.
pub const DIRECTIONS: [&str; 2] = ["outbound", "inbound"];
pub const DEPTH: Bound = Bound::new(1, 3, 1);
pub const MAX_NODES: Bound = Bound::new(2, 500, 100);
pub const MAX_EDGES: Bound = Bound::new(1, 500, 200);

pub const EVIDENCE_GROUPS: [&str; 10] = [
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
];
/// `group_operator`; the first is the default.
pub const GROUP_OPERATORS: [&str; 2] = ["any", "all"];

pub const PROVENANCE_WINDOW: Bound = Bound::new(0, 5, 0);
pub const MAX_SEGMENTS: Bound = Bound::new(1, 100, 40);
pub const IN_PAPER_TOP_K: Bound = Bound::new(1, 20, 5);
/// `window` of in-paper search and of hydration.
pub const WINDOW: Bound = Bound::new(0, 5, 1);
pub const MAX_SEGMENTS_PER_ITEM: Bound = Bound::new(1, 20, 5);

/// `goal` of materials; the first is the default.
pub const GOALS: [&str; 5] = ["overview", "survey", "benchmark", "method", "reproduction"];
pub const PER_SCHEMA_ENTITY_LIMIT: Bound = Bound::new(0, 150, 40);
pub const PER_SCHEMA_RELATION_LIMIT: Bound = Bound::new(0, 150, 40);
pub const PER_SCHEMA_ATTRIBUTE_LIMIT: Bound = Bound::new(0, 200, 60);
pub const PER_SCHEMA_TERM_LIMIT: Bound = Bound::new(0, 100, 20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_operators_are_the_short_names_prefixed() {
        assert_eq!(FILTER_OPERATORS.len(), FILTER_OPERATOR_NAMES.len());
        for (wire, short) in FILTER_OPERATORS.iter().zip(FILTER_OPERATOR_NAMES) {
            assert_eq!(wire.strip_prefix(FILTER_OPERATOR_PREFIX), Some(*short));
        }
        assert!(ARRAY_OPERATORS.iter().all(|op| FILTER_OPERATORS.contains(op)));
    }

    #[test]
    fn defaults_lie_within_their_bounds() {
        for bound in [TOP_K, SUB_QUERIES, CONTENT_LIMIT, PAGE, PAGE_SIZE, FACET_SIZE, SEARCH_SIZE, LIST_SIZE] {
            assert!(bound.default.is_some_and(|d| (bound.min..=bound.max).contains(&d)), "{bound:?}");
        }
        assert_eq!(PUBLISHED_YEAR.or_default(None), 1800);
        assert_eq!(DEPTH.or_default(Some(3)), 3);
    }
}
