//! Paper discovery: keyword and metadata search, papers via similar entities, and related
//! papers of a known seed paper.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{given_list, path_id, post, query_text, schema_path, size, BASE};
use crate::error::Error;
use crate::operation::Operation;
use crate::request::ApiRequest;
use crate::validate::{self as v, Check};

pub const SORTABLE: [&str; 4] = ["year", "metrics.citation_count", "metrics.reference_count", "metrics.fwci"];
pub const SIGNALS: [&str; 3] = ["term", "entity", "citation"];

/// `POST /paper-schema/search`: papers by keyword relevance and metadata filters.
#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Search {
    pub query: Option<String>,
    pub filters: Option<SearchFilters>,
    /// The shape of a sort item is not shown by the spec: only its `field` is checked.
    pub sort: Option<Vec<Value>>,
    pub size: Option<i64>,
    pub cursor: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SearchFilters {
    pub schema_ids: Option<Vec<String>>,
    pub dois: Option<Vec<String>>,
    pub authors: Option<Vec<String>>,
    pub venues: Option<Vec<String>>,
    pub published_year_gte: Option<i64>,
    pub published_year_lte: Option<i64>,
    pub has_code: Option<bool>,
    pub has_data: Option<bool>,
    pub is_oa: Option<bool>,
}

impl SearchFilters {
    fn narrows(&self) -> bool {
        [&self.schema_ids, &self.dois, &self.authors, &self.venues].into_iter().any(given_list)
            || self.published_year_gte.is_some()
            || self.published_year_lte.is_some()
            || self.has_code.is_some()
            || self.has_data.is_some()
            || self.is_oa.is_some()
    }

    fn validate(&self) -> Check {
        v::max_items("filters.schema_ids", self.schema_ids.as_deref(), 100)?;
        v::max_items("filters.dois", self.dois.as_deref(), 100)?;
        v::max_items("filters.authors", self.authors.as_deref(), 20)?;
        v::max_items("filters.venues", self.venues.as_deref(), 50)?;
        v::range("filters.published_year_gte", self.published_year_gte, 1800, 2200)?;
        v::range("filters.published_year_lte", self.published_year_lte, 1800, 2200)
    }
}

impl Operation for Search {
    fn validate(&self) -> Check {
        query_text("query", self.query.as_deref())?;
        let filtered = self.filters.as_ref().is_some_and(SearchFilters::narrows);
        if self.query.is_none() && !filtered {
            return Err(Error::validation(
                "query",
                "at least one of query and filters (with a condition) is required",
                "None",
            ));
        }
        if let Some(filters) = &self.filters {
            filters.validate()?;
        }
        v::max_items("sort", self.sort.as_deref(), 2)?;
        for (i, item) in self.sort.iter().flatten().enumerate() {
            let field = item.get("field").and_then(Value::as_str);
            if field.is_none() {
                return Err(Error::validation(format!("sort[{i}]"), "must be an object with a \"field\"", item));
            }
            v::one_of(&format!("sort[{i}].field"), field, &SORTABLE)?;
        }
        size(self.size, 100)
    }

    fn request(&self) -> ApiRequest {
        post(format!("{BASE}/search"), self)
    }
}

/// `POST /paper-schema/entities/related-papers`: papers holding entities similar to `query`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EntityRelatedPapers {
    pub query: String,
    pub entity_types: Option<Vec<String>>,
    pub entity_subtypes: Option<Vec<String>>,
    pub exclude_schema_ids: Option<Vec<String>>,
    pub size: Option<i64>,
    pub cursor: Option<String>,
}

impl Operation for EntityRelatedPapers {
    fn validate(&self) -> Check {
        query_text("query", Some(&self.query))?;
        v::max_items("exclude_schema_ids", self.exclude_schema_ids.as_deref(), 100)?;
        size(self.size, 100)
    }

    fn request(&self) -> ApiRequest {
        post(format!("{BASE}/entities/related-papers"), self)
    }
}

/// `POST /paper-schema/schemas/{schema_id}/related-papers`: candidates for a seed paper.
#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RelatedPapers {
    #[serde(skip_serializing)]
    pub schema_id: String,
    pub signals: Option<Vec<String>>,
    pub exclude_same_work: Option<bool>,
    pub size: Option<i64>,
}

impl Operation for RelatedPapers {
    fn validate(&self) -> Check {
        path_id("schema_id", &self.schema_id)?;
        v::items_between("signals", self.signals.as_deref(), 1, 3)?;
        for (i, signal) in self.signals.iter().flatten().enumerate() {
            v::one_of(&format!("signals[{i}]"), Some(signal), &SIGNALS)?;
        }
        size(self.size, 50)
    }

    fn request(&self) -> ApiRequest {
        post(schema_path(&self.schema_id, &["related-papers"]), self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_rules, body, prepare};

    #[test]
    fn search_body_holds_only_given_fields() {
        let request = prepare(
            "schema.search",
            json!({"query": "diffusion", "filters": {"has_code": true, "dois": null}, "sort": [{"field": "year", "order": "desc"}], "size": 100, "cursor": null}),
        );
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/paper-schema/search"));
        assert_eq!(
            body(&request),
            json!({"query": "diffusion", "filters": {"has_code": true}, "sort": [{"field": "year", "order": "desc"}], "size": 100})
        );
        prepare("schema.search", json!({"filters": {"dois": ["10.1/X"]}}));
        prepare("schema.search", json!({"filters": {"published_year_gte": 1800, "published_year_lte": 2200}}));
    }

    #[test]
    fn search_rules() {
        let many = |n: usize| (0..n).map(|i| format!("x{i}")).collect::<Vec<_>>();
        assert_rules(
            "schema.search",
            &[
                (json!({}), "query"),
                (json!({"filters": {}}), "query"),
                (json!({"filters": {"dois": []}}), "query"),
                (json!({"query": ""}), "query"),
                (json!({"query": "x".repeat(501)}), "query"),
                (json!({"filters": {"schema_ids": many(101)}}), "filters.schema_ids"),
                (json!({"filters": {"dois": many(101)}}), "filters.dois"),
                (json!({"filters": {"authors": many(21)}}), "filters.authors"),
                (json!({"filters": {"venues": many(51)}}), "filters.venues"),
                (json!({"filters": {"published_year_gte": 1799}}), "filters.published_year_gte"),
                (json!({"filters": {"published_year_lte": 2201}}), "filters.published_year_lte"),
                (
                    json!({"query": "q", "sort": [{"field": "year"}, {"field": "metrics.fwci"}, {"field": "year"}]}),
                    "sort",
                ),
                (json!({"query": "q", "sort": [{"field": "title"}]}), "sort[0].field"),
                (json!({"query": "q", "sort": ["year"]}), "sort[0]"),
                (json!({"query": "q", "size": 0}), "size"),
                (json!({"query": "q", "size": 101}), "size"),
            ],
        );
        assert!(crate::prepare("schema.search", json!({"query": "q", "filters": {"doi": ["x"]}}), false).is_err());
    }

    #[test]
    fn entity_related_papers() {
        let request = prepare(
            "schema.entity_related_papers",
            json!({"query": "ResNet backbone", "entity_types": ["Component"], "size": 5, "cursor": "c1"}),
        );
        assert_eq!(request.path, "/paper-schema/entities/related-papers");
        assert_eq!(
            body(&request),
            json!({"query": "ResNet backbone", "entity_types": ["Component"], "size": 5, "cursor": "c1"})
        );
        let many: Vec<String> = (0..101).map(|i| format!("s{i}")).collect();
        assert_rules(
            "schema.entity_related_papers",
            &[
                (json!({"query": ""}), "query"),
                (json!({"query": "é".repeat(501)}), "query"),
                (json!({"query": "q", "exclude_schema_ids": many}), "exclude_schema_ids"),
                (json!({"query": "q", "size": 101}), "size"),
            ],
        );
    }

    #[test]
    fn related_papers_of_a_seed() {
        let request =
            prepare("schema.related_papers", json!({"schema_id": "p/1", "signals": ["term", "citation"], "size": 50}));
        assert_eq!(request.path, "/paper-schema/schemas/p%2F1/related-papers");
        assert_eq!(body(&request), json!({"signals": ["term", "citation"], "size": 50}));
        assert_rules(
            "schema.related_papers",
            &[
                (json!({"schema_id": ""}), "schema_id"),
                (json!({"schema_id": ".."}), "schema_id"),
                (json!({"schema_id": "s", "signals": []}), "signals"),
                (json!({"schema_id": "s", "signals": ["term", "entity", "citation", "term"]}), "signals"),
                (json!({"schema_id": "s", "signals": ["keyword"]}), "signals[0]"),
                (json!({"schema_id": "s", "size": 51}), "size"),
                (json!({"schema_id": "s", "size": 0}), "size"),
            ],
        );
    }
}
