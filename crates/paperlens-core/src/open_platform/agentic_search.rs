//! `POST /agentic-search`: semantic search over paper chunks.

use serde_json::{Map, Value};

use crate::contract::{self as c, AGENTIC_FILTER_KEYS, RANGE_PAIR, TOPIC_DOMAINS, VENUE_TYPES};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::{self as v, Check};

// The rules are checked by `validate` below, `source_types` before `filters`.
request! {
    body AgenticSearch {
        query: String,
        top_k: Option<i64>,
        retrieval: Option<String>,
        sub_queries: Option<i64>,
        filters: Option<Value>,
        source_types: Option<Vec<String>>,
    }
}

impl Operation for AgenticSearch {
    fn validate(&self) -> Check {
        v::text("query", &self.query, c::AGENTIC_QUERY_CHARS)?;
        v::not_blank("query", &self.query)?;
        v::within("top_k", self.top_k, c::TOP_K)?;
        v::one_of("retrieval", self.retrieval.as_deref(), &c::RETRIEVAL_MODES)?;
        v::within("sub_queries", self.sub_queries, c::SUB_QUERIES)?;
        for (i, source_type) in self.source_types.iter().flatten().enumerate() {
            v::one_of(&format!("source_types[{i}]"), Some(source_type), &c::SOURCE_TYPES)?;
        }
        match &self.filters {
            Some(filters) => check_filters(filters),
            None => Ok(()),
        }
    }

    fn request(&self) -> ApiRequest {
        ApiRequest::post_json("/agentic-search", self, None)
    }
}

fn check_filters(filters: &Value) -> Check {
    let filters = v::object("filters", filters)?;
    v::known_keys("filters", filters, &AGENTIC_FILTER_KEYS)?;
    for (key, value) in filters {
        let param = format!("filters.{key}");
        match key.as_str() {
            "lang" | "language" | "title" | "publication_venue_name_unified" => string(&param, value)?,
            "author" => match value {
                Value::Array(names) => {
                    names.iter().enumerate().try_for_each(|(i, n)| string(&format!("{param}[{i}]"), n))?
                }
                other => string(&param, other)?,
            },
            "publication_venue_type" => {
                string(&param, value)?;
                let given = value.as_str().unwrap_or_default();
                if !VENUE_TYPES.iter().any(|t| t.eq_ignore_ascii_case(given)) {
                    let rule = format!("must be one of {} (any case)", VENUE_TYPES.join(", "));
                    return Err(Error::validation(&param, rule, given));
                }
            }
            "publication_published_date" => range_value(&param, value, &date_bound)?,
            "topics" => check_topics(&param, value)?,
            _ => range_value(&param, value, &number_bound)?,
        }
    }
    Ok(())
}

fn string(param: &str, value: &Value) -> Check {
    match value {
        Value::String(_) => Ok(()),
        other => Err(Error::validation(param, "must be a string", other)),
    }
}

/// A date or number filter value: a single bound value, a range object, or `[low, high]`
/// (each may be null).
fn range_value(param: &str, value: &Value, bound: &dyn Fn(&str, &Value) -> Check) -> Check {
    match value {
        Value::Object(range) => {
            v::known_keys(param, range, &["gt", "gte", "lt", "lte"])?;
            range.iter().try_for_each(|(k, b)| match b {
                Value::Number(_) | Value::String(_) => Ok(()),
                other => Err(Error::validation(format!("{param}.{k}"), "must be a number or a string", other)),
            })
        }
        Value::Array(pair) if RANGE_PAIR.contains(pair.len()) => pair
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_null())
            .try_for_each(|(i, b)| bound(&format!("{param}[{i}]"), b)),
        Value::Array(pair) => Err(Error::validation(param, "an array must hold exactly 2 values", pair)),
        single => bound(param, single),
    }
}

fn number_bound(param: &str, value: &Value) -> Check {
    match value {
        Value::Number(_) => Ok(()),
        other => Err(Error::validation(param, "must be a number, a range object or an array of 2 numbers", other)),
    }
}

fn date_bound(param: &str, value: &Value) -> Check {
    let Some(text) = value.as_str() else {
        return Err(Error::validation(param, "must be a date string, a range object or an array of 2 dates", value));
    };
    if !is_partial_date(text) {
        return Err(Error::validation(param, r"must match ^\d{4}(-\d{2})?(-\d{2})?$ (year, year-month or date)", text));
    }
    Ok(())
}

fn is_partial_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        [y] => digits(y, 4),
        [y, m] => digits(y, 4) && digits(m, 2),
        [y, m, d] => digits(y, 4) && digits(m, 2) && digits(d, 2),
        _ => false,
    }
}

fn check_topics(param: &str, value: &Value) -> Check {
    let topics: &Map<String, Value> = v::object(param, value)?;
    v::known_keys(param, topics, &["logic", "dimensions"])?;
    if let Some(logic) = topics.get("logic") {
        string(&format!("{param}.logic"), logic)?;
        v::one_of(&format!("{param}.logic"), logic.as_str(), &c::TOPIC_LOGIC)?;
    }
    if let Some(dimensions) = topics.get("dimensions") {
        let param = format!("{param}.dimensions");
        let dimensions = v::object(&param, dimensions)?;
        v::known_keys(&param, dimensions, &["primary_topic", "primary_topic_domain"])?;
        if let Some(topic) = dimensions.get("primary_topic") {
            string(&format!("{param}.primary_topic"), topic)?;
        }
        if let Some(domain) = dimensions.get("primary_topic_domain") {
            let param = format!("{param}.primary_topic_domain");
            string(&param, domain)?;
            v::one_of(&param, domain.as_str(), &TOPIC_DOMAINS)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(params: Value) -> Result<ApiRequest, Error> {
        crate::open_platform::prepare("agentic_search", params, true)
    }

    #[test]
    fn sends_only_given_fields() {
        let request = search(json!({"query": "graph neural networks", "top_k": 5, "retrieval": null})).unwrap();
        assert_eq!(request.path, "/agentic-search");
        let body: Value = serde_json::from_slice(request.body.as_ref().unwrap()).unwrap();
        assert_eq!(body, json!({"query": "graph neural networks", "top_k": 5}));
    }

    #[test]
    fn bounds_of_the_spec() {
        for (params, param) in [
            (json!({"query": ""}), "query"),
            (json!({"query": "   "}), "query"),
            (json!({"query": "x".repeat(4097)}), "query"),
            (json!({"query": "q", "top_k": 0}), "top_k"),
            (json!({"query": "q", "top_k": 101}), "top_k"),
            (json!({"query": "q", "sub_queries": 5}), "sub_queries"),
            (json!({"query": "q", "retrieval": "bm25"}), "retrieval"),
            (json!({"query": "q", "source_types": ["pdf", "book"]}), "source_types[1]"),
            (json!({"query": "q", "filters": {"year": 2020}}), "filters.year"),
            (json!({"query": "q", "filters": {"publication_venue_type": "blog"}}), "filters.publication_venue_type"),
            (
                json!({"query": "q", "filters": {"publication_published_date": "2020/01"}}),
                "filters.publication_published_date",
            ),
            (json!({"query": "q", "filters": {"citation_count": [1, 2, 3]}}), "filters.citation_count"),
            (
                json!({"query": "q", "filters": {"citation_count": {"gte": 1, "from": 2}}}),
                "filters.citation_count.from",
            ),
            (json!({"query": "q", "filters": {"author": ["a", 3]}}), "filters.author[1]"),
            (json!({"query": "q", "filters": {"topics": {"logic": "xor"}}}), "filters.topics.logic"),
            (
                json!({"query": "q", "filters": {"topics": {"dimensions": {"primary_topic_domain": "Arts"}}}}),
                "filters.topics.dimensions.primary_topic_domain",
            ),
        ] {
            match search(params.clone()) {
                Err(Error::Validation { param: p, .. }) => assert_eq!(p, param, "{params}"),
                other => panic!("{params}: expected a validation error, got {other:?}"),
            }
        }
    }

    #[test]
    fn valid_filters_pass() {
        let filters = json!({
            "lang": "en", "author": ["Ada Lovelace", "Alan Turing"], "publication_venue_type": "Book Series",
            "publication_published_date": ["2019-05", null], "publication_published_year": {"gte": 2000, "lt": "2010"},
            "citation_count": 10, "topics": {"logic": "and", "dimensions": {"primary_topic": "Genomics", "primary_topic_domain": "Life Sciences"}}
        });
        assert!(search(json!({"query": "q", "filters": filters, "source_types": ["web"]})).is_ok());
    }

    #[test]
    fn unvalidated_requests_are_sent_as_given() {
        assert!(crate::open_platform::prepare("agentic_search", json!({"query": "", "top_k": 1000}), false).is_ok());
    }

    #[test]
    fn unknown_parameters_and_wrong_types_name_the_field() {
        let err = search(json!({"query": "q", "topk": 3})).unwrap_err().to_string();
        assert!(err.contains("topk"), "{err}");
        let err = search(json!({"query": "q", "top_k": "3"})).unwrap_err().to_string();
        assert!(err.starts_with("top_k:"), "{err}");
    }
}
