//! Tests of the service through its door: requests in, status and bodies out.

mod agentic_search;
mod citation_graph;
mod content_and_resource;
mod corpus;
mod data_files;
mod meta_catalog;
mod meta_search;
mod paper_relations;
mod routing;

use std::sync::OnceLock;

use bytes::Bytes;
use serde_json::Value;

use super::{Access, Service, ServiceConfig, ServiceRequest, ServiceResponse};

pub const SEED: u64 = 7;

/// One shared service for the tests (600 papers keep debug builds quick).
pub fn service() -> &'static Service {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    SERVICE.get_or_init(|| Service::build(ServiceConfig { papers: 600, seed: SEED, int64_as_string: false }))
}

pub fn request(method: &str, path: &str, query: &[(&str, &str)], body: &str, access: Access) -> ServiceRequest {
    ServiceRequest {
        method: method.into(),
        path: path.into(),
        query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        body: Bytes::from(body.to_string()),
        access,
        request_id: "req-test-1".into(),
    }
}

pub fn json(response: &ServiceResponse) -> Value {
    serde_json::from_slice(&response.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", response.body))
}

pub fn header<'a>(response: &'a ServiceResponse, name: &str) -> Option<&'a str> {
    response.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

pub fn post_as(service: &Service, path: &str, body: Value, access: Access) -> (u16, Value) {
    let response = service.handle(&request("POST", path, &[], &body.to_string(), access));
    assert_eq!(header(&response, "content-type"), Some("application/json"));
    (response.status, json(&response))
}

pub fn post(path: &str, body: Value) -> (u16, Value) {
    post_as(service(), path, body, Access::Full)
}

pub fn get_as(path: &str, query: &[(&str, &str)], access: Access) -> ServiceResponse {
    service().handle(&request("GET", path, query, "", access))
}

/// Asserts an error answer and its body shape; returns the message.
pub fn assert_error(status: u16, body: &Value, want_status: u16, want_code: &str) -> String {
    assert_eq!(status, want_status, "body: {body}");
    assert_eq!(body["code"], want_code, "body: {body}");
    assert_eq!(body["request_id"], "req-test-1");
    body["message"].as_str().map(str::to_string).unwrap_or_default()
}
