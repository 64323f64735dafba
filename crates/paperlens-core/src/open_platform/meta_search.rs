//! `POST /meta-search`: bibliographic metadata search with filters, facets, sort and paging.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::operation::Operation;
use crate::request::{ApiRequest, Quota};
use crate::validate::{self as v, Check};

use super::meta_catalog::COLLECTIONS;

/// `page * page_size` may not exceed this; deeper results need `cursor`.
pub const PAGE_DEPTH_CAP: i64 = 10_000;
pub const OPERATORS: [&str; 11] = [
    "FILTER_OP_EQ",
    "FILTER_OP_NE",
    "FILTER_OP_GT",
    "FILTER_OP_GTE",
    "FILTER_OP_LT",
    "FILTER_OP_LTE",
    "FILTER_OP_IN",
    "FILTER_OP_NIN",
    "FILTER_OP_CONTAINS",
    "FILTER_OP_MATCH",
    "FILTER_OP_MATCH_PHRASE",
];
/// Sortable fields of the `papers` collection (the other collections' are not shown).
pub const SORTABLE: [&str; 11] = [
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
const BOOSTS: [&str; 3] = ["NONE", "MILD", "STRONG"];

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetaSearch {
    pub collection: Option<String>,
    pub query: Option<String>,
    pub filters: Option<Vec<FilterItem>>,
    pub sort: Option<Vec<SortItem>>,
    pub fields: Option<Vec<String>>,
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    pub cursor: Option<String>,
    pub facets: Option<Vec<FacetItem>>,
    pub freshness_boost: Option<String>,
    pub impact_boost: Option<String>,
    pub language_affinity: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FilterItem {
    pub field: String,
    pub operator: Option<String>,
    pub value: Value,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SortItem {
    pub field: String,
    pub order: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FacetItem {
    pub field: String,
    pub size: Option<i64>,
}

impl MetaSearch {
    /// Whether a boost re-ranks the results: the spec applies boosts only to a relevance
    /// ranking (a non-empty query without sort), and forbids cursor paging while they do.
    pub fn boost_active(&self) -> bool {
        let relevance =
            self.query.as_deref().is_some_and(|q| !q.trim().is_empty()) && self.sort.as_ref().is_none_or(Vec::is_empty);
        let boosted = [&self.freshness_boost, &self.impact_boost, &self.language_affinity]
            .iter()
            .any(|b| b.as_deref().is_some_and(|b| b != "NONE"));
        relevance && boosted
    }

    fn check_paging(&self) -> Check {
        v::at_least("page", self.page, 1)?;
        v::range("page_size", self.page_size, 1, 200)?;
        let (page, page_size) = (self.page.unwrap_or(1), self.page_size.unwrap_or(25));
        // Widened: a page near i64::MAX must not wrap round to a small product.
        let depth = i128::from(page) * i128::from(page_size);
        if depth > i128::from(PAGE_DEPTH_CAP) {
            return Err(Error::validation(
                "page",
                format!("page * page_size must not exceed {PAGE_DEPTH_CAP} (page paging stops there: use cursor=next_cursor)"),
                format!("{page} * {page_size} = {depth}"),
            ));
        }
        let cursor = self.cursor.as_deref().filter(|c| !c.is_empty());
        if cursor.is_some() && page > 1 {
            return Err(Error::validation("cursor", "cannot be combined with page > 1", page));
        }
        if cursor.is_some() && self.boost_active() {
            return Err(Error::validation(
                "cursor",
                "cursor deep paging is not supported while a boost is active (freshness_boost, impact_boost, language_affinity)",
                cursor,
            ));
        }
        Ok(())
    }
}

impl Operation for MetaSearch {
    fn validate(&self) -> Check {
        v::one_of("collection", self.collection.as_deref(), &COLLECTIONS)?;
        self.check_paging()?;
        for (i, filter) in self.filters.iter().flatten().enumerate() {
            let param = format!("filters[{i}]");
            v::chars(&format!("{param}.field"), &filter.field, 1, usize::MAX)?;
            v::one_of(&format!("{param}.operator"), filter.operator.as_deref(), &OPERATORS)?;
            let needs_array = matches!(filter.operator.as_deref(), Some("FILTER_OP_IN" | "FILTER_OP_NIN"));
            if needs_array && !filter.value.is_array() {
                return Err(Error::validation(
                    format!("{param}.value"),
                    "FILTER_OP_IN and FILTER_OP_NIN take an array",
                    &filter.value,
                ));
            }
            if filter.value.is_null() {
                return Err(Error::validation(format!("{param}.value"), "is required", "null"));
            }
        }
        let papers = self.collection.as_deref().is_none_or(|c| c == "papers");
        for (i, sort) in self.sort.iter().flatten().enumerate() {
            if papers {
                v::one_of(&format!("sort[{i}].field"), Some(&sort.field), &SORTABLE)?;
            }
            v::one_of(&format!("sort[{i}].order"), sort.order.as_deref(), &["SORT_ORDER_DESC", "SORT_ORDER_ASC"])?;
        }
        for (i, field) in self.fields.iter().flatten().enumerate() {
            if field.contains('.') {
                return Err(Error::validation(format!("fields[{i}]"), "dotted sub-fields cannot be projected", field));
            }
        }
        v::max_items("facets", self.facets.as_deref(), 5)?;
        for (i, facet) in self.facets.iter().flatten().enumerate() {
            v::chars(&format!("facets[{i}].field"), &facet.field, 1, usize::MAX)?;
            v::range(&format!("facets[{i}].size"), facet.size, 1, 50)?;
        }
        v::one_of("freshness_boost", self.freshness_boost.as_deref(), &BOOSTS)?;
        v::one_of("impact_boost", self.impact_boost.as_deref(), &BOOSTS)?;
        v::one_of("language_affinity", self.language_affinity.as_deref(), &BOOSTS)
    }

    fn request(&self) -> ApiRequest {
        ApiRequest::post_json("/meta-search", self, Some(Quota::MetaSearch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(params: Value) -> Result<ApiRequest, Error> {
        crate::prepare("meta_search", params, true)
    }

    fn param_of(params: Value) -> String {
        match check(params.clone()) {
            Err(Error::Validation { param, .. }) => param,
            other => panic!("{params}: expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn body_and_quota() {
        let request = check(json!({
            "query": "protein folding", "filters": [{"field": "citation_count", "operator": "FILTER_OP_GTE", "value": 10}],
            "sort": [{"field": "citation_count"}], "page_size": 200, "facets": [{"field": "language"}]
        }))
        .unwrap();
        assert_eq!(request.quota, Some(Quota::MetaSearch));
        let body: Value = serde_json::from_slice(request.body.as_ref().unwrap()).unwrap();
        assert_eq!(body["filters"][0], json!({"field": "citation_count", "operator": "FILTER_OP_GTE", "value": 10}));
        assert_eq!(body["sort"], json!([{"field": "citation_count"}]));
        assert!(body.get("page").is_none());
    }

    #[test]
    fn paging_rules() {
        assert!(check(json!({"page": 50, "page_size": 200})).is_ok());
        assert_eq!(param_of(json!({"page": 51, "page_size": 200})), "page");
        assert_eq!(param_of(json!({"page": 401})), "page");
        assert_eq!(param_of(json!({"page": 1_i64 << 62, "page_size": 4})), "page");
        assert_eq!(param_of(json!({"page": i64::MAX, "page_size": 200})), "page");
        assert_eq!(param_of(json!({"page": 0})), "page");
        assert_eq!(param_of(json!({"page_size": 201})), "page_size");
        assert_eq!(param_of(json!({"page": 2, "cursor": "abc"})), "cursor");
        assert!(check(json!({"page": 1, "cursor": "abc"})).is_ok());
        assert_eq!(param_of(json!({"query": "q", "impact_boost": "MILD", "cursor": "abc"})), "cursor");
        // With a sort the boosts are ignored, so a cursor is fine.
        assert!(
            check(json!({"query": "q", "impact_boost": "MILD", "sort": [{"field": "fwci"}], "cursor": "c"})).is_ok()
        );
    }

    #[test]
    fn filter_sort_projection_facet_rules() {
        assert_eq!(
            param_of(json!({"filters": [{"field": "x", "operator": "GTE", "value": 1}]})),
            "filters[0].operator"
        );
        assert_eq!(
            param_of(json!({"filters": [{"field": "x", "operator": "FILTER_OP_IN", "value": 1}]})),
            "filters[0].value"
        );
        assert_eq!(param_of(json!({"filters": [{"field": "x", "value": null}]})), "filters[0].value");
        assert_eq!(param_of(json!({"sort": [{"field": "title"}]})), "sort[0].field");
        assert_eq!(param_of(json!({"sort": [{"field": "fwci", "order": "DESC"}]})), "sort[0].order");
        assert!(check(json!({"collection": "authors", "sort": [{"field": "works_count"}]})).is_ok());
        assert_eq!(param_of(json!({"fields": ["title", "primary_topic.score"]})), "fields[1]");
        let six: Vec<Value> = (0..6).map(|i| json!({"field": format!("f{i}")})).collect();
        assert_eq!(param_of(json!({ "facets": six })), "facets");
        assert_eq!(param_of(json!({"facets": [{"field": "language", "size": 51}]})), "facets[0].size");
        assert_eq!(param_of(json!({"freshness_boost": "HIGH"})), "freshness_boost");
    }

    #[test]
    fn sort_with_query_is_not_blocked() {
        assert!(check(json!({"query": "q", "sort": [{"field": "citation_count", "order": "SORT_ORDER_ASC"}]})).is_ok());
    }
}
