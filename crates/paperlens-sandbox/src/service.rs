//! The door between the HTTP shell and the service logic.

use bytes::Bytes;

/// What the token of a request may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Every field and every full text.
    Full,
    /// Limited field permissions: some fields and full texts answer 403.
    Restricted,
}

/// How the corpus is generated and how responses are serialized.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    pub papers: usize,
    pub seed: u64,
    /// Serialize int64 counts (`total_count`, facet `doc_count`) as JSON strings.
    pub int64_as_string: bool,
}

/// One authenticated request, as the HTTP shell hands it over.
#[derive(Debug, Clone)]
pub struct ServiceRequest {
    pub method: String,
    /// Path without the query string, e.g. `/meta-search`.
    pub path: String,
    /// Decoded query parameters in order (repeated names allowed).
    pub query: Vec<(String, String)>,
    pub body: Bytes,
    pub access: Access,
    /// Echoed as `request_id` in error bodies.
    pub request_id: String,
}

/// The answer: status, extra headers (Content-Type included) and body bytes.
#[derive(Debug, Clone)]
pub struct ServiceResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

/// The service over one generated corpus. Placeholder until the corpus lands.
pub struct Service {
    config: ServiceConfig,
}

impl Service {
    pub fn build(config: ServiceConfig) -> Service {
        Service { config }
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    pub fn handle(&self, request: &ServiceRequest) -> ServiceResponse {
        let body = serde_json::json!({
            "code": "NOT_IMPLEMENTED",
            "message": format!("{} {} is not implemented yet", request.method, request.path),
            "request_id": request.request_id,
        });
        ServiceResponse {
            status: 501,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Bytes::from(body.to_string()),
        }
    }
}
