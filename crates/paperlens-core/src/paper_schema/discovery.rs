//! Paper discovery: keyword and metadata search, papers via similar entities, and related
//! papers of a known seed paper.

use serde_json::Value;

use super::{given_list, path_id, post, schema_path, BASE};
use crate::contract::{self as c, lists};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::{each_one_of, items, nested, text, within};
use crate::validate::{self as v, Check};

request! {
    /// `POST /paper-schema/search`: papers by keyword relevance and metadata filters.
    body Search => post(format!("{BASE}/search")) requires(Search::queries) {
        query: Option<String> [text(c::QUERY_CHARS)],
        filters: Option<SearchFilters> [nested()],
        /// The shape of a sort item is not shown by the spec: only its `field` is checked.
        sort: Option<Vec<Value>> [items(lists::SORT), sort_fields()],
        size: Option<i64> [within(c::SEARCH_SIZE)],
        cursor: Option<String>,
    }
}

impl Search {
    /// A query, or filters with a condition: the service does not list every paper.
    fn queries(&self) -> Check {
        let filtered = self.filters.as_ref().is_some_and(SearchFilters::narrows);
        if self.query.is_none() && !filtered {
            return Err(Error::rule("query", "at least one of query and filters (with a condition) is required"));
        }
        Ok(())
    }
}

request! {
    #[derive(Default)]
    body SearchFilters {
        schema_ids: Option<Vec<String>> [items(lists::SCHEMA_IDS)],
        dois: Option<Vec<String>> [items(lists::DOIS)],
        authors: Option<Vec<String>> [items(lists::AUTHORS)],
        venues: Option<Vec<String>> [items(lists::VENUES)],
        published_year_gte: Option<i64> [within(c::PUBLISHED_YEAR)],
        published_year_lte: Option<i64> [within(c::PUBLISHED_YEAR)],
        has_code: Option<bool>,
        has_data: Option<bool>,
        is_oa: Option<bool>,
    }
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
}

/// Each sort item is an object whose `field` is sortable.
fn sort_fields(param: &str, sort: &Option<Vec<Value>>) -> Check {
    for (i, item) in sort.iter().flatten().enumerate() {
        let field = item.get("field").and_then(Value::as_str);
        if field.is_none() {
            return Err(Error::validation(format!("{param}[{i}]"), "must be an object with a \"field\"", item));
        }
        v::one_of(&format!("{param}[{i}].field"), field, &c::PAPER_SORTABLE)?;
    }
    Ok(())
}

request! {
    /// `POST /paper-schema/entities/related-papers`: papers holding entities similar to `query`.
    body EntityRelatedPapers => post(format!("{BASE}/entities/related-papers")) {
        query: String [text(c::QUERY_CHARS)],
        entity_types: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        entity_subtypes: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        exclude_schema_ids: Option<Vec<String>> [items(lists::EXCLUDE_SCHEMA_IDS)],
        size: Option<i64> [within(c::SEARCH_SIZE)],
        cursor: Option<String>,
    }
}

request! {
    /// `POST /paper-schema/schemas/{schema_id}/related-papers`: candidates for a seed paper.
    body RelatedPapers {
        #[serde(skip_serializing)]
        schema_id: String [path_id()],
        signals: Option<Vec<String>> [items(lists::SIGNALS), each_one_of(&c::SIGNALS)],
        exclude_same_work: Option<bool>,
        size: Option<i64> [within(c::RELATED_PAPERS_SIZE)],
    }
}

impl Operation for RelatedPapers {
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
        assert!(crate::paper_schema::prepare("schema.search", json!({"query": "q", "filters": {"doi": ["x"]}}), false)
            .is_err());
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
