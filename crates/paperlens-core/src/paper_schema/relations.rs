//! Internal relations (inside one paper): structural search and one relation.

use super::{get, given_list, path_id, post, schema_path, segment, Query, BASE};
use crate::contract::{self as c, lists};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::{items, nested, one_of, text, within};
use crate::validate::Check;

request! {
    /// `POST /paper-schema/relations/search`: relations narrowed by at least one structural filter.
    body SearchRelations => post(format!("{BASE}/relations/search")) {
        filters: Option<RelationFilters> [structural(), nested()],
        evidence_query: Option<String> [text(c::QUERY_CHARS)],
        include_context: Option<String> [one_of(&c::INCLUDE_CONTEXT)],
        size: Option<i64> [within(c::SEARCH_SIZE)],
        cursor: Option<String>,
    }
}

request! {
    body RelationFilters {
        schema_ids: Option<Vec<String>> [items(lists::SCHEMA_IDS)],
        source_entity_ids: Option<Vec<String>> [items(lists::ENTITY_IDS)],
        target_entity_ids: Option<Vec<String>> [items(lists::ENTITY_IDS)],
        relation_types: Option<Vec<String>> [items(lists::RELATION_TYPES)],
    }
}

impl RelationFilters {
    /// Paper scope, endpoints or relation types: what the spec calls a structural filter.
    fn structural(&self) -> bool {
        [&self.schema_ids, &self.source_entity_ids, &self.target_entity_ids, &self.relation_types]
            .into_iter()
            .any(given_list)
    }
}

/// The rule on `filters`, checked before any other: at least one structural filter.
fn structural(param: &str, filters: &Option<RelationFilters>) -> Check {
    if filters.as_ref().is_some_and(RelationFilters::structural) {
        return Ok(());
    }
    const RULE: &str =
        "needs at least one structural filter: schema_ids, source_entity_ids, target_entity_ids or relation_types";
    Err(match filters {
        Some(filters) => Error::validation(param, RULE, filters),
        None => Error::rule(param, RULE),
    })
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/relations/{relation_id}`: one internal relation.
    query Relation {
        schema_id: String [path_id()],
        relation_id: String [path_id()],
        include_context: Option<bool>,
    }
}

impl Operation for Relation {
    fn request(&self) -> ApiRequest {
        let query = Query::default().value("include_context", self.include_context);
        get(schema_path(&self.schema_id, &["relations", &segment(&self.relation_id)]), query)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_get, assert_post, assert_rules, many};

    #[test]
    fn search_relations() {
        assert_post(
            "schema.search_relations",
            json!({"filters": {"relation_types": ["evaluates"]}, "evidence_query": "accuracy", "include_context": "entities", "size": 1}),
            "/paper-schema/relations/search",
        );
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
        assert_get(
            "schema.relation",
            json!({"schema_id": "s1", "relation_id": "r#1", "include_context": false}),
            "/paper-schema/schemas/s1/relations/r%231",
            &[("include_context", "false")],
        );
        assert_rules(
            "schema.relation",
            &[
                (json!({"schema_id": "", "relation_id": "r"}), "schema_id"),
                (json!({"schema_id": "s", "relation_id": ""}), "relation_id"),
            ],
        );
    }
}
