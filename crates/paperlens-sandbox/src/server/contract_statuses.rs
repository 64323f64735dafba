//! The sandbox answers each operation only with status codes the contract lists for it:
//! the OpenAPI document declares no others, and the cases that used to answer unlisted
//! codes (404 on `/content` and `/resource`, 400 on `/meta-catalog`, 413 for an oversized
//! body) now answer listed ones.

use std::collections::BTreeSet;

use serde_json::Value;

use super::openapi::DOCUMENT;
use super::tests::{bearer, operation_count, sandbox, send, Reply};
use super::SandboxConfig;

/// The "Status codes:" line of each operation of open-platform-api.md.
const OPEN_PLATFORM: [(&str, &str, &[u16]); 6] = [
    ("post", "/agentic-search", &[200, 400, 401, 429, 500, 502, 503, 507]),
    ("get", "/content", &[200, 400, 401, 403, 405, 429, 502, 503]),
    ("get", "/resource", &[200, 400, 401, 403, 429, 500, 502, 503]),
    ("get", "/meta-catalog", &[200, 401, 429, 502, 503, 504]),
    ("post", "/meta-search", &[200, 400, 401, 403, 429, 502, 503, 504]),
    ("post", "/meta-paper-relations", &[200, 400, 401, 403, 404, 429, 502, 503, 504]),
];

/// paper-schema-api.md lists one table for all 18 operations (plus 200).
const PAPER_SCHEMA: &[u16] = &[200, 400, 401, 403, 404, 422, 429, 502, 503, 504];

const PAPER_SCHEMA_OPERATIONS: [(&str, &str); 18] = [
    ("get", "/paper-schema"),
    ("post", "/paper-schema/search"),
    ("post", "/paper-schema/entities/related-papers"),
    ("post", "/paper-schema/schemas/{schema_id}/related-papers"),
    ("post", "/paper-schema/entities/search"),
    ("get", "/paper-schema/schemas/{schema_id}/entities"),
    ("get", "/paper-schema/schemas/{schema_id}/entities/{entity_id}"),
    ("post", "/paper-schema/relations/search"),
    ("get", "/paper-schema/schemas/{schema_id}/relations/{relation_id}"),
    ("get", "/paper-schema/schemas/{schema_id}/citation-summary"),
    ("get", "/paper-schema/schemas/{schema_id}/citations"),
    ("get", "/paper-schema/schemas/{schema_id}/citation-graph"),
    ("post", "/paper-schema/evidence/search"),
    ("get", "/paper-schema/schemas/{schema_id}/evidence/{evidence_id}"),
    ("post", "/paper-schema/resolve-provenance"),
    ("post", "/paper-schema/search-in-schema"),
    ("post", "/paper-schema/hydrate-items"),
    ("post", "/paper-schema/materials"),
];

fn spec_operations() -> Vec<(&'static str, &'static str, &'static [u16])> {
    let schema = PAPER_SCHEMA_OPERATIONS.iter().map(|&(method, path)| (method, path, PAPER_SCHEMA));
    OPEN_PLATFORM.into_iter().chain(schema).collect()
}

fn declared(document: &Value, method: &str, path: &str) -> BTreeSet<u16> {
    let responses = document["paths"][path][method]["responses"].as_object();
    let responses = responses.unwrap_or_else(|| panic!("{method} {path} is in the OpenAPI document"));
    responses.keys().map(|status| status.parse().unwrap_or_else(|_| panic!("{method} {path}: {status}"))).collect()
}

#[test]
fn openapi_declares_for_each_operation_only_statuses_the_spec_lists() {
    let document: Value = serde_json::from_str(DOCUMENT).unwrap();
    let operations = spec_operations();
    let in_document = operation_count(&document);
    assert_eq!(in_document, operations.len(), "every operation of the document is in the spec table");
    for (method, path, listed) in operations {
        let listed: BTreeSet<u16> = listed.iter().copied().collect();
        let declared = declared(&document, method, path);
        let unlisted: Vec<&u16> = declared.difference(&listed).collect();
        assert!(unlisted.is_empty(), "{method} {path} declares {unlisted:?}, which the spec does not list");
        assert!(declared.contains(&200) && declared.contains(&401) && declared.contains(&429), "{method} {path}");
    }
}

/// `reply` has a status that both the spec and the OpenAPI document give `method path`.
fn assert_listed(reply: &Reply, method: &str, path: &str) {
    let document: Value = serde_json::from_str(DOCUMENT).unwrap();
    let (_, _, listed) =
        spec_operations().into_iter().find(|(m, p, _)| *m == method && *p == path).expect("an operation");
    assert!(listed.contains(&reply.status), "{method} {path} answered {}", reply.status);
    assert!(declared(&document, method, path).contains(&reply.status), "{method} {path} declares {}", reply.status);
}

#[tokio::test]
async fn the_cases_that_answered_unlisted_codes_answer_listed_ones() {
    let sandbox = sandbox(SandboxConfig { papers: 60, ..SandboxConfig::default() }).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];

    let unknown_doc = send(&sandbox, "GET", "/content?doc_id=feedbeef", &auth, b"").await;
    assert_listed(&unknown_doc, "get", "/content");
    assert_eq!((unknown_doc.status, unknown_doc.json()["code"].clone()), (400, "INVALID_REQUEST".into()));
    assert_eq!(unknown_doc.json()["details"]["parameter"], "doc_id");

    let unknown_file = send(&sandbox, "GET", "/resource?file_name=figures/W0/fig1.png", &auth, b"").await;
    assert_listed(&unknown_file, "get", "/resource");
    assert_eq!((unknown_file.status, unknown_file.json()["code"].clone()), (400, "INVALID_REQUEST".into()));
    assert_eq!(unknown_file.json()["details"]["parameter"], "file_name");

    for query in ["collection=venues", "include_field_stats=maybe", "include_sample_values=%5B%5D"] {
        let catalog = send(&sandbox, "GET", &format!("/meta-catalog?{query}"), &auth, b"").await;
        assert_listed(&catalog, "get", "/meta-catalog");
        assert_eq!(catalog.status, 200, "{query}");
    }
    let unknown_collection = send(&sandbox, "GET", "/meta-catalog?collection=venues", &auth, b"").await.json();
    assert_eq!(unknown_collection["fields"], serde_json::json!([]));

    let oversized = vec![b' '; 8 * 1024 * 1024 + 1];
    let too_large = send(&sandbox, "POST", "/meta-search", &auth, &oversized).await;
    assert_listed(&too_large, "post", "/meta-search");
    assert_eq!(too_large.status, 400);
    let ignored = send(&sandbox, "GET", "/meta-catalog", &auth, &oversized).await;
    assert_eq!(ignored.status, 200, "a GET body is ignored, however large");
}

#[tokio::test]
async fn wrong_methods_are_no_operation_and_answer_405_with_allow() {
    // The spec lists 405 only under /content, but a method a path does not serve is not one
    // of its operations, so no operation's list applies; 405 with Allow is what /content
    // shows the service answers (and what RFC 9110 asks).
    let sandbox = sandbox(SandboxConfig { papers: 60, ..SandboxConfig::default() }).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];
    for (method, path, allow) in
        [("POST", "/content", "GET"), ("PUT", "/meta-catalog", "GET"), ("GET", "/paper-schema/search", "POST")]
    {
        let reply = send(&sandbox, method, path, &auth, b"{}").await;
        assert_eq!((reply.status, reply.header("allow")), (405, Some(allow)), "{method} {path}");
    }
}
