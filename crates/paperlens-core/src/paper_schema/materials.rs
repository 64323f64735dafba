//! `POST /paper-schema/materials`: a trimmed, goal-oriented bundle for 1-20 known papers.

use serde::{Deserialize, Serialize};

use super::{post, BASE};
use crate::operation::Operation;
use crate::request::ApiRequest;
use crate::validate::{self as v, Check};

pub const GOALS: [&str; 5] = ["overview", "survey", "benchmark", "method", "reproduction"];

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Materials {
    pub schema_ids: Vec<String>,
    pub goal: Option<String>,
    pub include_relation_context: Option<bool>,
    pub per_schema_entity_limit: Option<i64>,
    pub per_schema_relation_limit: Option<i64>,
    pub per_schema_attribute_limit: Option<i64>,
    pub per_schema_term_limit: Option<i64>,
}

impl Operation for Materials {
    fn validate(&self) -> Check {
        v::items_between("schema_ids", Some(&self.schema_ids), 1, 20)?;
        v::one_of("goal", self.goal.as_deref(), &GOALS)?;
        v::range("per_schema_entity_limit", self.per_schema_entity_limit, 0, 150)?;
        v::range("per_schema_relation_limit", self.per_schema_relation_limit, 0, 150)?;
        v::range("per_schema_attribute_limit", self.per_schema_attribute_limit, 0, 200)?;
        v::range("per_schema_term_limit", self.per_schema_term_limit, 0, 100)
    }

    fn request(&self) -> ApiRequest {
        post(format!("{BASE}/materials"), self)
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
