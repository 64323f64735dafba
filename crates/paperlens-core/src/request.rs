//! What an operation hands to the transport, and what the transport hands back.

use bytes::Bytes;
use reqwest::header::HeaderMap;
use reqwest::Method;

/// A quota resource of the service: requests to it are paced together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quota {
    MetaSearch,
    PaperSchema,
}

impl Quota {
    pub const ALL: [Quota; 2] = [Quota::MetaSearch, Quota::PaperSchema];

    pub fn name(self) -> &'static str {
        match self {
            Quota::MetaSearch => "meta-search",
            Quota::PaperSchema => "paper-schema",
        }
    }

    pub fn from_name(name: &str) -> Option<Quota> {
        Quota::ALL.into_iter().find(|q| q.name() == name)
    }
}

/// One logical call, ready to send (and to resend on retry: it is never consumed).
#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub method: Method,
    /// Path below the base URL, segments already percent-encoded, e.g. `/meta-search`.
    pub path: String,
    pub query: Vec<(String, String)>,
    /// A JSON body, serialized once.
    pub body: Option<Bytes>,
    pub quota: Option<Quota>,
}

impl ApiRequest {
    pub fn get(path: impl Into<String>, query: Vec<(String, String)>, quota: Option<Quota>) -> ApiRequest {
        ApiRequest { method: Method::GET, path: path.into(), query, body: None, quota }
    }

    pub fn post_json(path: impl Into<String>, body: &impl serde::Serialize, quota: Option<Quota>) -> ApiRequest {
        let body = serde_json::to_vec(body).expect("request types always serialize");
        ApiRequest { method: Method::POST, path: path.into(), query: Vec::new(), body: Some(Bytes::from(body)), quota }
    }
}

/// A successful answer with its body read into memory.
#[derive(Debug, Clone)]
pub struct ApiResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub request_id: String,
}

impl ApiResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}
