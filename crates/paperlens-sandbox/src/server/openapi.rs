//! `GET /openapi.json`: the OpenAPI 3.1 document of all 24 operations, served without auth.

use axum::http::header;
use axum::response::{IntoResponse, Response};

pub(crate) const PATH: &str = "/openapi.json";
pub(crate) const DOCUMENT: &str = include_str!("../../openapi.json");

pub(crate) fn response() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT).into_response()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    fn collect_refs<'a>(value: &'a Value, refs: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    refs.push(target);
                }
                map.values().for_each(|child| collect_refs(child, refs));
            }
            Value::Array(items) => items.iter().for_each(|child| collect_refs(child, refs)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_resolves_and_every_operation_is_bearer_protected() {
        let document: Value = serde_json::from_str(super::DOCUMENT).unwrap();
        let mut refs = Vec::new();
        collect_refs(&document, &mut refs);
        assert!(refs.len() > 100);
        for target in refs {
            let pointer = target.strip_prefix('#').expect("a local reference");
            assert!(document.pointer(pointer).is_some(), "{target} resolves");
        }
        assert_eq!(document["security"][0]["bearerAuth"], serde_json::json!([]));
        assert_eq!(
            document["components"]["schemas"]["Error"]["required"],
            serde_json::json!(["code", "message", "request_id"])
        );
        let closed = &document["components"]["schemas"]["AgenticSearchRequest"];
        assert_eq!(closed["additionalProperties"], false);
    }
}
