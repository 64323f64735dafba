//! `POST /paper-schema/materials`: a trimmed, goal-oriented bundle for 1-20 known papers.

use super::{post, BASE};
use crate::contract::{self as c, lists};
use crate::request_type::request;
use crate::validate::rule::{items, one_of, within};

request! {
    /// `POST /paper-schema/materials`: a trimmed, goal-oriented bundle for known papers.
    body Materials => post(format!("{BASE}/materials")) {
        schema_ids: Vec<String> [items(lists::MATERIALS_PAPERS)],
        goal: Option<String> [one_of(&c::GOALS)],
        include_relation_context: Option<bool>,
        per_schema_entity_limit: Option<i64> [within(c::PER_SCHEMA_ENTITY_LIMIT)],
        per_schema_relation_limit: Option<i64> [within(c::PER_SCHEMA_RELATION_LIMIT)],
        per_schema_attribute_limit: Option<i64> [within(c::PER_SCHEMA_ATTRIBUTE_LIMIT)],
        per_schema_term_limit: Option<i64> [within(c::PER_SCHEMA_TERM_LIMIT)],
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_rules, body, prepare};

    #[test]
    fn body_and_limits() {
        let request = prepare(
            "schema.materials",
            json!({"schema_ids": ["s1", "s2"], "goal": "benchmark", "per_schema_entity_limit": 0,
                   "per_schema_relation_limit": 150, "per_schema_attribute_limit": 200, "per_schema_term_limit": 100}),
        );
        assert_eq!(request.path, "/paper-schema/materials");
        assert_eq!(
            body(&request),
            json!({"schema_ids": ["s1", "s2"], "goal": "benchmark", "per_schema_entity_limit": 0,
                   "per_schema_relation_limit": 150, "per_schema_attribute_limit": 200, "per_schema_term_limit": 100})
        );
        let ids: Vec<String> = (0..21).map(|i| format!("s{i}")).collect();
        assert_rules(
            "schema.materials",
            &[
                (json!({"schema_ids": []}), "schema_ids"),
                (json!({ "schema_ids": ids }), "schema_ids"),
                (json!({"schema_ids": ["s"], "goal": "review"}), "goal"),
                (json!({"schema_ids": ["s"], "per_schema_entity_limit": -1}), "per_schema_entity_limit"),
                (json!({"schema_ids": ["s"], "per_schema_entity_limit": 151}), "per_schema_entity_limit"),
                (json!({"schema_ids": ["s"], "per_schema_relation_limit": 151}), "per_schema_relation_limit"),
                (json!({"schema_ids": ["s"], "per_schema_attribute_limit": 201}), "per_schema_attribute_limit"),
                (json!({"schema_ids": ["s"], "per_schema_term_limit": 101}), "per_schema_term_limit"),
            ],
        );
    }
}
