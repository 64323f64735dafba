//! Structured evidence: search in the named evidence groups, and one evidence.

use serde_json::Number;

use super::{get, given_list, given_text, path_id, post, schema_path, segment, Query, BASE};
use crate::contract::{self as c, lists};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::{self as v, Check};

request! {
    /// `POST /paper-schema/evidence/search`: `groups` plus at least one further condition.
    body SearchEvidence {
        groups: Vec<String>,
        group_operator: Option<String>,
        schema_ids: Option<Vec<String>>,
        query: Option<String>,
        key: Option<String>,
        path_bucket: Option<String>,
        /// Kept as given (an integer stays an integer on the wire).
        value_number_min: Option<Number>,
        value_number_max: Option<Number>,
        value_bool: Option<bool>,
        hydrate_schema_papers: Option<bool>,
        size: Option<i64>,
        cursor: Option<String>,
    }
}

impl SearchEvidence {
    fn has_condition(&self) -> bool {
        given_list(&self.schema_ids)
            || [&self.query, &self.key, &self.path_bucket].into_iter().any(given_text)
            || self.value_number_min.is_some()
            || self.value_number_max.is_some()
            || self.value_bool.is_some()
    }
}

impl Operation for SearchEvidence {
    /// Field by field, but for the further condition, checked before `schema_ids` and `size`.
    fn validate(&self) -> Check {
        v::items("groups", Some(&self.groups), lists::EVIDENCE_GROUPS)?;
        for (i, group) in self.groups.iter().enumerate() {
            v::one_of(&format!("groups[{i}]"), Some(group), &c::EVIDENCE_GROUPS)?;
        }
        v::one_of("group_operator", self.group_operator.as_deref(), &c::GROUP_OPERATORS)?;
        if !self.has_condition() {
            return Err(Error::validation(
                "groups",
                "need at least one further condition: schema_ids, query, key, path_bucket, \
                 value_number_min, value_number_max or value_bool",
                &self.groups,
            ));
        }
        v::items("schema_ids", self.schema_ids.as_deref(), lists::SCHEMA_IDS)?;
        v::within("size", self.size, c::SEARCH_SIZE)
    }

    fn request(&self) -> ApiRequest {
        post(format!("{BASE}/evidence/search"), self)
    }
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/evidence/{evidence_id}`.
    query Evidence {
        schema_id: String [path_id()],
        evidence_id: String [path_id()],
    }
}

impl Operation for Evidence {
    fn request(&self) -> ApiRequest {
        get(schema_path(&self.schema_id, &["evidence", &segment(&self.evidence_id)]), Query::default())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_post, assert_rules, many, prepare};

    #[test]
    fn search_evidence_body() {
        assert_post(
            "schema.search_evidence",
            json!({"groups": ["table_evidence", "evidence_score"], "group_operator": "all", "key": "accuracy",
                   "value_number_min": 90, "value_number_max": 99.5, "size": 100}),
            "/paper-schema/evidence/search",
        );
        for condition in [
            json!({"schema_ids": ["s"]}),
            json!({"query": "q"}),
            json!({"path_bucket": "results"}),
            json!({"value_number_max": 0}),
            json!({"value_bool": false}),
        ] {
            let mut params = json!({"groups": ["formula"]});
            params.as_object_mut().unwrap().extend(condition.as_object().unwrap().clone());
            prepare("schema.search_evidence", params);
        }
    }

    #[test]
    fn search_evidence_rules() {
        let six: Vec<&str> = crate::contract::EVIDENCE_GROUPS[..6].to_vec();
        assert_rules(
            "schema.search_evidence",
            &[
                (json!({"groups": [], "key": "k"}), "groups"),
                (json!({"groups": six, "key": "k"}), "groups"),
                (json!({"groups": ["tables"], "key": "k"}), "groups[0]"),
                (json!({"groups": ["formula"]}), "groups"),
                (json!({"groups": ["formula"], "query": "", "schema_ids": []}), "groups"),
                (json!({"groups": ["formula"], "hydrate_schema_papers": true}), "groups"),
                (json!({"groups": ["formula"], "key": "k", "group_operator": "none"}), "group_operator"),
                (json!({"groups": ["formula"], "schema_ids": many(101)}), "schema_ids"),
                (json!({"groups": ["formula"], "key": "k", "size": 0}), "size"),
                (json!({"groups": ["formula"], "key": "k", "size": 101}), "size"),
            ],
        );
        assert!(crate::paper_schema::prepare(
            "schema.search_evidence",
            json!({"groups": ["formula"], "value_number_min": "1"}),
            false
        )
        .is_err());
    }

    #[test]
    fn one_evidence() {
        let request = prepare("schema.evidence", json!({"schema_id": "s1", "evidence_id": "ev 1"}));
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("GET", "/paper-schema/schemas/s1/evidence/ev%201")
        );
        assert_rules(
            "schema.evidence",
            &[
                (json!({"schema_id": "", "evidence_id": "e"}), "schema_id"),
                (json!({"schema_id": "s", "evidence_id": ""}), "evidence_id"),
            ],
        );
    }
}
