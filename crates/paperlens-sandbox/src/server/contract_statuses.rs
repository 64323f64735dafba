//! The sandbox answers each operation only with status codes the contract lists for it:
//! the OpenAPI document declares no others, and the cases that used to answer unlisted
//! codes (404 on `/content` and `/resource`, 413 for an oversized body) now answer listed
//! ones. One exception, [`UNLISTED_BUT_TYPED`]: a `/meta-catalog` flag that is not a boolean, or
//! a collection that is not one of the three.

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

/// The statuses the sandbox answers although the spec's list leaves them out: the spec types
/// `/meta-catalog`'s two flags boolean (`true` or `false`) and its `collection` one of `papers`,
/// `authors`, `sources`, so any other value is refused with the 400 every other operation gives a
/// value of the wrong type, not read as a guess.
const UNLISTED_BUT_TYPED: [(&str, &str, u16); 1] = [("get", "/meta-catalog", 400)];

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

/// What the sandbox may answer `method path`: the spec's list and [`UNLISTED_BUT_TYPED`].
fn answerable(method: &str, path: &str, listed: &[u16]) -> BTreeSet<u16> {
    let typed = UNLISTED_BUT_TYPED.iter().filter(|(m, p, _)| *m == method && *p == path).map(|&(_, _, s)| s);
    listed.iter().copied().chain(typed).collect()
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
        let listed = answerable(method, path, listed);
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
    assert!(answerable(method, path, listed).contains(&reply.status), "{method} {path} answered {}", reply.status);
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

    for collection in ["venues", "AAA", "Papers"] {
        let catalog = send(&sandbox, "GET", &format!("/meta-catalog?collection={collection}"), &auth, b"").await;
        assert_listed(&catalog, "get", "/meta-catalog");
        assert_eq!((catalog.status, catalog.json()["code"].clone()), (400, "INVALID_REQUEST".into()), "{collection}");
        assert_eq!(catalog.json()["details"]["parameter"], "collection");
    }
    for collection in ["papers", "authors", "sources"] {
        let catalog = send(&sandbox, "GET", &format!("/meta-catalog?collection={collection}"), &auth, b"").await;
        assert_eq!(catalog.status, 200, "{collection}");
        assert!(!catalog.json()["fields"].as_array().unwrap().is_empty(), "{collection}");
    }

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

#[tokio::test]
async fn every_boolean_query_parameter_is_true_or_false_and_anything_else_a_400() {
    let sandbox = sandbox(SandboxConfig { papers: 60, ..SandboxConfig::default() }).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];
    // The four boolean query parameters of the 24 operations (ids need not exist: the query is
    // read before the paper is looked up).
    let parameters = [
        ("/meta-catalog", "/meta-catalog", "include_sample_values"),
        ("/meta-catalog", "/meta-catalog", "include_field_stats"),
        (
            "/paper-schema/schemas/{schema_id}/entities/{entity_id}",
            "/paper-schema/schemas/s0/entities/e0",
            "include_relations",
        ),
        (
            "/paper-schema/schemas/{schema_id}/relations/{relation_id}",
            "/paper-schema/schemas/s0/relations/r0",
            "include_context",
        ),
    ];
    let document: Value = serde_json::from_str(DOCUMENT).unwrap();
    for (template, path, name) in parameters {
        let declared =
            document["paths"][template]["get"]["parameters"].as_array().unwrap().iter().find(|p| p["name"] == name);
        assert_eq!(declared.map(|p| p["schema"]["type"].clone()), Some("boolean".into()), "{template} {name}");
        for bad in ["null", "1", "0", "TRUE", "yes", "", "%5B%5D"] {
            let reply = send(&sandbox, "GET", &format!("{path}?{name}={bad}"), &auth, b"").await;
            assert_listed(&reply, "get", template);
            let body = reply.json();
            assert_eq!((reply.status, body["code"].clone()), (400, "INVALID_REQUEST".into()), "{path} {name}={bad}");
            assert_eq!(body["details"]["parameter"], name.to_string());
            assert!(body["message"].as_str().is_some_and(|m| m.contains("true or false")), "{body}");
            assert!(body["request_id"].as_str().is_some_and(|id| !id.is_empty()), "{body}");
        }
        for good in ["true", "false"] {
            let reply = send(&sandbox, "GET", &format!("{path}?{name}={good}"), &auth, b"").await;
            assert_ne!(reply.status, 400, "{path} {name}={good}: {}", reply.json());
        }
    }
}
