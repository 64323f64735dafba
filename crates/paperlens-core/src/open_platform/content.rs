//! `GET /content`: a document's full text, whole or a page of it by code-point offsets.

use crate::contract::{CONTENT_LIMIT, CONTENT_OFFSET};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::{self as v, Check};

// The rules are checked by `validate` below: at least one of `doc_id` and `source` first.
request! {
    query Content {
        doc_id: Option<String>,
        source: Option<String>,
        offset: Option<i64>,
        limit: Option<i64>,
    }
}

impl Operation for Content {
    fn validate(&self) -> Check {
        if self.doc_id.is_none() && self.source.is_none() {
            return Err(Error::rule("doc_id", "at least one of doc_id and source is required"));
        }
        if let Some(doc_id) = &self.doc_id {
            v::chars("doc_id", doc_id, 1, usize::MAX)?;
            v::safe_path("doc_id", doc_id)?;
        }
        if let Some(source) = &self.source {
            if !["http://", "https://", "s3://"].iter().any(|scheme| source.starts_with(scheme)) {
                return Err(Error::validation("source", "must be an http://, https:// or s3:// address", source));
            }
        }
        v::at_least("offset", self.offset, CONTENT_OFFSET.min)?;
        v::within("limit", self.limit, CONTENT_LIMIT)
    }

    fn request(&self) -> ApiRequest {
        let query = [
            ("doc_id", self.doc_id.clone()),
            ("source", self.source.clone()),
            ("offset", self.offset.map(|n| n.to_string())),
            ("limit", self.limit.map(|n| n.to_string())),
        ];
        ApiRequest::get("/content", present(query), None)
    }
}

/// The query pairs whose value is given.
pub(crate) fn present<const N: usize>(pairs: [(&str, Option<String>); N]) -> Vec<(String, String)> {
    pairs.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn query_holds_only_given_parameters() {
        let request =
            crate::open_platform::prepare("content", json!({"doc_id": "abc", "offset": 0, "limit": null}), true)
                .unwrap();
        assert_eq!(request.path, "/content");
        assert_eq!(request.query, vec![("doc_id".into(), "abc".into()), ("offset".into(), "0".into())]);
    }

    #[test]
    fn rules_of_the_spec() {
        for (params, param) in [
            (json!({}), "doc_id"),
            (json!({"doc_id": ""}), "doc_id"),
            (json!({"doc_id": "a/../b"}), "doc_id"),
            (json!({"doc_id": "a\\b"}), "doc_id"),
            (json!({"source": "ftp://x"}), "source"),
            (json!({"doc_id": "a", "offset": -1}), "offset"),
            (json!({"doc_id": "a", "offset": 0, "limit": 0}), "limit"),
            (json!({"doc_id": "a", "offset": 0, "limit": 524_289}), "limit"),
        ] {
            match crate::open_platform::prepare("content", params.clone(), true) {
                Err(Error::Validation { param: p, .. }) => assert_eq!(p, param, "{params}"),
                other => panic!("{params}: {other:?}"),
            }
        }
        assert!(crate::open_platform::prepare("content", json!({"source": "s3://bucket/key"}), true).is_ok());
    }
}
