//! `POST /meta-search`: bibliographic metadata search with filters, facets, sort and paging.

use serde_json::Value;

use crate::contract::{self as c, PAGE_DEPTH_CAP};
use crate::error::Error;
use crate::request::{ApiRequest, Quota};
use crate::request_type::{request, Operation};
use crate::validate::{self as v, Check};

// The rules are checked by `validate` below, paging first.
request! {
    body MetaSearch {
        collection: Option<String>,
        query: Option<String>,
        filters: Option<Vec<FilterItem>>,
        sort: Option<Vec<SortItem>>,
        fields: Option<Vec<String>>,
        page: Option<i64>,
        page_size: Option<i64>,
        cursor: Option<String>,
        facets: Option<Vec<FacetItem>>,
        freshness_boost: Option<String>,
        impact_boost: Option<String>,
        language_affinity: Option<String>,
    }
}

request! {
    body FilterItem {
        field: String,
        operator: Option<String>,
        value: Value,
    }
}

request! {
    body SortItem {
        field: String,
        order: Option<String>,
    }
}

request! {
    body FacetItem {
        field: String,
        size: Option<i64>,
    }
}

impl MetaSearch {
    /// Whether a boost re-ranks the results: the spec applies boosts only to a relevance
    /// ranking (a non-empty query without sort), and forbids cursor paging while they do.
    pub fn boost_active(&self) -> bool {
        let relevance =
            self.query.as_deref().is_some_and(|q| !q.trim().is_empty()) && self.sort.as_ref().is_none_or(Vec::is_empty);
        let boosted = self.boosts().any(|(_, level)| level.is_some_and(|l| l != c::NO_BOOST));
        relevance && boosted
    }

    /// Each boost (by its name in [`c::BOOSTS`]) and its level, when given.
    fn boosts(&self) -> impl Iterator<Item = (&'static str, Option<&str>)> {
        let levels = [&self.freshness_boost, &self.impact_boost, &self.language_affinity];
        c::BOOSTS.into_iter().zip(levels.map(Option::as_deref))
    }

    fn check_paging(&self) -> Check {
        v::at_least("page", self.page, c::PAGE.min)?;
        v::within("page_size", self.page_size, c::PAGE_SIZE)?;
        let (page, page_size) = (c::PAGE.or_default(self.page), c::PAGE_SIZE.or_default(self.page_size));
        // Widened: a page near i64::MAX must not wrap round to a small product.
        let depth = i128::from(page) * i128::from(page_size);
        if depth > i128::from(PAGE_DEPTH_CAP) {
            // The value shown is the product the rule is about, as an expression.
            return Err(Error::Validation {
                param: "page".into(),
                rule: format!(
                    "page * page_size must not exceed {PAGE_DEPTH_CAP} (page paging stops there: use cursor=next_cursor)"
                ),
                value: format!("{page} * {page_size} = {depth}"),
            });
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
        v::one_of("collection", self.collection.as_deref(), &c::COLLECTIONS)?;
        self.check_paging()?;
        for (i, filter) in self.filters.iter().flatten().enumerate() {
            let param = format!("filters[{i}]");
            v::chars(&format!("{param}.field"), &filter.field, 1, usize::MAX)?;
            v::one_of(&format!("{param}.operator"), filter.operator.as_deref(), c::FILTER_OPERATORS)?;
            let needs_array = filter.operator.as_deref().is_some_and(|op| c::ARRAY_OPERATORS.contains(&op));
            if needs_array && !filter.value.is_array() {
                return Err(Error::validation(
                    format!("{param}.value"),
                    "FILTER_OP_IN and FILTER_OP_NIN take an array",
                    &filter.value,
                ));
            }
            if filter.value.is_null() {
                return Err(Error::rule(format!("{param}.value"), "is required"));
            }
        }
        let papers = self.collection.as_deref().is_none_or(|name| name == c::COLLECTIONS[0]);
        for (i, sort) in self.sort.iter().flatten().enumerate() {
            if papers {
                v::one_of(&format!("sort[{i}].field"), Some(&sort.field), &c::META_SORTABLE)?;
            }
            v::one_of(&format!("sort[{i}].order"), sort.order.as_deref(), &c::SORT_ORDERS)?;
        }
        for (i, field) in self.fields.iter().flatten().enumerate() {
            if field.contains('.') {
                return Err(Error::validation(format!("fields[{i}]"), "dotted sub-fields cannot be projected", field));
            }
        }
        v::items("facets", self.facets.as_deref(), c::FACETS)?;
        for (i, facet) in self.facets.iter().flatten().enumerate() {
            v::chars(&format!("facets[{i}].field"), &facet.field, 1, usize::MAX)?;
            v::within(&format!("facets[{i}].size"), facet.size, c::FACET_SIZE)?;
        }
        self.boosts().try_for_each(|(name, level)| v::one_of(name, level, &c::BOOST_LEVELS))
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
        crate::open_platform::prepare("meta_search", params, true)
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
