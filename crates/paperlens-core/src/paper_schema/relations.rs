//! Internal relations (inside one paper): structural search and one relation.

use serde::{Deserialize, Serialize};

use super::{get, given_list, path_id, post, query_text, schema_path, segment, size, Query, BASE};
use crate::error::Error;
use crate::operation::Operation;
use crate::request::ApiRequest;
use crate::validate::{self as v, Check};

/// `POST /paper-schema/relations/search`: relations narrowed by at least one structural filter.
#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRelations {
    pub filters: Option<RelationFilters>,
    pub evidence_query: Option<String>,
    pub include_context: Option<String>,
    pub size: Option<i64>,
    pub cursor: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RelationFilters {
    pub schema_ids: Option<Vec<String>>,
    pub source_entity_ids: Option<Vec<String>>,
    pub target_entity_ids: Option<Vec<String>>,
    pub relation_types: Option<Vec<String>>,
}

impl RelationFilters {
    /// Paper scope, endpoints or relation types: what the spec calls a structural filter.
    fn structural(&self) -> bool {
        [&self.schema_ids, &self.source_entity_ids, &self.target_entity_ids, &self.relation_types]
            .into_iter()
            .any(given_list)
    }
}

impl Operation for SearchRelations {
    fn validate(&self) -> Check {
        let Some(filters) = self.filters.as_ref().filter(|f| f.structural()) else {
            return Err(Error::validation(
                "filters",
                "needs at least one structural filter: schema_ids, source_entity_ids, target_entity_ids or relation_types",
                self.filters.as_ref().map(|_| "no structural filter").unwrap_or("None"),
            ));
        };
        v::max_items("filters.schema_ids", filters.schema_ids.as_deref(), 100)?;
        v::max_items("filters.source_entity_ids", filters.source_entity_ids.as_deref(), 100)?;
        v::max_items("filters.target_entity_ids", filters.target_entity_ids.as_deref(), 100)?;
        v::max_items("filters.relation_types", filters.relation_types.as_deref(), 50)?;
        query_text("evidence_query", self.evidence_query.as_deref())?;
        v::one_of("include_context", self.include_context.as_deref(), &["none", "entities"])?;
        size(self.size, 100)
    }

    fn request(&self) -> ApiRequest {
        post(format!("{BASE}/relations/search"), self)
    }
}

/// `GET /paper-schema/schemas/{schema_id}/relations/{relation_id}`: one internal relation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relation {
    pub schema_id: String,
    pub relation_id: String,
    pub include_context: Option<bool>,
}

impl Operation for Relation {
    fn validate(&self) -> Check {
        path_id("schema_id", &self.schema_id)?;
        path_id("relation_id", &self.relation_id)
    }

    fn request(&self) -> ApiRequest {
        let query = Query::default().value("include_context", self.include_context);
        get(schema_path(&self.schema_id, &["relations", &segment(&self.relation_id)]), query)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_rules, body, pairs, prepare};

    #[test]
    fn search_relations() {
        let request = prepare(
            "schema.search_relations",
            json!({"filters": {"relation_types": ["evaluates"]}, "evidence_query": "accuracy", "include_context": "entities", "size": 1}),
        );
        assert_eq!(request.path, "/paper-schema/relations/search");
        assert_eq!(
            body(&request),
            json!({"filters": {"relation_types": ["evaluates"]}, "evidence_query": "accuracy", "include_context": "entities", "size": 1})
        );
        let many = |n: usize| (0..n).map(|i| format!("x{i}")).collect::<Vec<_>>();
        assert_rules(
            "schema.search_relations",
            &[
                (json!({}), "filters"),
                (json!({"evidence_query": "accuracy"}), "filters"),
                (json!({"filters": {}}), "filters"),
                (json!({"filters": {"schema_ids": []}}), "filters"),
                (json!({"filters": {"schema_ids": many(101)}}), "filters.schema_ids"),
                (json!({"filters": {"source_entity_ids": many(101)}}), "filters.source_entity_ids"),
                (json!({"filters": {"target_entity_ids": many(101)}}), "filters.target_entity_ids"),
                (json!({"filters": {"relation_types": many(51)}}), "filters.relation_types"),
                (json!({"filters": {"schema_ids": ["s"]}, "evidence_query": ""}), "evidence_query"),
                (json!({"filters": {"schema_ids": ["s"]}, "evidence_query": "x".repeat(501)}), "evidence_query"),
                (json!({"filters": {"schema_ids": ["s"]}, "include_context": "all"}), "include_context"),
                (json!({"filters": {"schema_ids": ["s"]}, "size": 101}), "size"),
            ],
        );
    }

    #[test]
    fn one_relation() {
        let request =
            prepare("schema.relation", json!({"schema_id": "s1", "relation_id": "r#1", "include_context": false}));
        assert_eq!(request.path, "/paper-schema/schemas/s1/relations/r%231");
        assert_eq!(pairs(&request), [("include_context", "false")]);
        assert_rules(
            "schema.relation",
            &[
                (json!({"schema_id": "", "relation_id": "r"}), "schema_id"),
                (json!({"schema_id": "s", "relation_id": ""}), "relation_id"),
            ],
        );
    }
}
