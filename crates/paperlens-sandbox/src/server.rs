//! The HTTP shell around [`crate::Service`]. Placeholder until the server lands.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub host: String,
    pub port: u16,
    pub papers: usize,
    pub seed: u64,
    pub token: Option<String>,
    /// Requests per minute per quota resource (`meta-search`, `paper-schema`); None: unlimited.
    pub rate_limits: Option<Vec<(String, u32)>>,
    pub int64_as_string: bool,
}

#[derive(Debug, Clone)]
pub enum FaultKind {
    /// Answer with this status and a JSON error body.
    Status(u16),
    /// Start a 200 body, then drop the connection.
    DropMidBody,
    /// Answer with this status and a non-JSON (HTML) body.
    NonJson(u16),
}

#[derive(Debug, Clone)]
pub struct Fault {
    pub path: String,
    pub kind: FaultKind,
    pub times: u32,
    pub retry_after: Option<f64>,
    pub delay: Option<Duration>,
}

#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

pub struct Sandbox;
