//! The shell over real loopback HTTP, with a minimal HTTP/1.1 client that also sees
//! half-sent bodies.

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;
use crate::service::Access;

pub(super) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

pub(super) async fn sandbox(config: SandboxConfig) -> Sandbox {
    Sandbox::start(config).await.expect("sandbox starts")
}

pub(super) async fn send(
    sandbox: &Sandbox,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let address = sandbox.base_url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    // An aborted connection may end in a reset: keep what arrived before it.
    while let Ok(read) = stream.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        raw.extend_from_slice(&buffer[..read]);
    }
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|window| window == b"\r\n\r\n").expect("a complete head");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_string(), value.trim().to_string())
        })
        .collect();
    Reply { status, headers, body: raw[split + 4..].to_vec() }
}

/// The operations of an OpenAPI document: its paths' methods.
pub(super) fn operation_count(document: &Value) -> usize {
    let methods = ["get", "post", "put", "patch", "delete", "head"];
    document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| methods.iter().filter(|m| item.get(**m).is_some()).count())
        .sum()
}

pub(super) fn bearer(sandbox: &Sandbox) -> String {
    format!("Bearer {}", sandbox.token())
}

fn fault(path: &str, kind: FaultKind) -> Fault {
    Fault { path: path.into(), kind, times: 1, retry_after: None, delay: None }
}

#[tokio::test]
async fn missing_or_bad_tokens_get_401_with_the_code_of_the_path() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    for (path, code) in [
        ("/meta-search", "UNAUTHENTICATED"),
        ("/agentic-search", "UNAUTHORIZED"),
        ("/content?doc_id=x", "UNAUTHORIZED"),
        ("/paper-schema/search", "UNAUTHORIZED"),
        ("/paper-schema", "UNAUTHORIZED"),
    ] {
        for authorization in [None, Some("Token abc"), Some("Bearer "), Some("Bearer wrong")] {
            let headers: Vec<(&str, &str)> = authorization.map(|value| ("Authorization", value)).into_iter().collect();
            let reply = send(&sandbox, "POST", path, &headers, b"{}").await;
            assert_eq!(reply.status, 401, "{path} with {authorization:?}");
            let body = reply.json();
            assert_eq!(body["code"], code);
            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
            assert_eq!(body["request_id"], reply.header("x-request-id").unwrap());
        }
    }
    for token in [sandbox.token().to_string(), sandbox.restricted_token().to_string()] {
        let authorization = format!("bearer {token}");
        let reply = send(&sandbox, "GET", "/paper-schema", &[("Authorization", &authorization)], b"").await;
        assert_ne!(reply.status, 401, "a known token passes");
    }
}

#[test]
fn tokens_map_to_access_levels() {
    let tokens = auth::Tokens::new(Some("secret".into())).unwrap();
    assert_ne!(tokens.restricted, tokens.full);
    let with = |value: String| {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("authorization", value.parse().unwrap());
        tokens.authenticate(&headers)
    };
    assert_eq!(with("Bearer secret".into()), Ok(Access::Full));
    assert_eq!(with(format!("Bearer {}", tokens.restricted)), Ok(Access::Restricted));
    assert!(with("Bearer other".into()).is_err());
    assert!(auth::Tokens::new(Some("has space".into())).is_err());
}

#[tokio::test]
async fn request_id_is_echoed_or_generated() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let reply = send(&sandbox, "GET", "/content", &[("X-Request-ID", "trace-42")], b"").await;
    assert_eq!(reply.header("x-request-id"), Some("trace-42"));
    assert_eq!(reply.json()["request_id"], "trace-42");

    let first = send(&sandbox, "GET", "/content", &[], b"").await;
    let second = send(&sandbox, "GET", "/content", &[], b"").await;
    let generated = first.header("x-request-id").unwrap();
    assert_eq!(generated.len(), 36);
    assert_eq!(first.json()["request_id"], generated);
    assert_ne!(second.header("x-request-id"), Some(generated));
}

#[tokio::test]
async fn valid_service_source_is_echoed_and_invalid_ones_ignored() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    let valid = send(
        &sandbox,
        "GET",
        "/meta-catalog",
        &[("Authorization", &authorization), ("X-Service-Source", "my_app-2")],
        b"",
    )
    .await;
    assert_eq!(valid.header("x-service-source"), Some("my_app-2"));
    let too_long = "a".repeat(65);
    for invalid in ["has space", "dot.ted", too_long.as_str()] {
        let reply = send(
            &sandbox,
            "GET",
            "/meta-catalog",
            &[("Authorization", &authorization), ("X-Service-Source", invalid)],
            b"",
        )
        .await;
        assert_eq!(reply.header("x-service-source"), None, "{invalid}");
        assert_ne!(reply.status, 400, "an invalid source is no error");
    }
}

#[tokio::test]
async fn rate_limits_answer_429_per_quota_resource() {
    let sandbox = sandbox(SandboxConfig {
        rate_limits: Some(vec![("meta-search".into(), 2), ("paper-schema".into(), 1)]),
        ..SandboxConfig::default()
    })
    .await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];
    for _ in 0..2 {
        assert_ne!(send(&sandbox, "POST", "/meta-search", &auth, b"{}").await.status, 429);
    }
    let limited = send(&sandbox, "POST", "/meta-search", &auth, b"{}").await;
    assert_eq!(limited.status, 429);
    let retry_after: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after));
    let body = limited.json();
    assert_eq!(body["code"], "RATE_LIMITED");
    let exact = body["details"]["retry_after"].as_f64().unwrap();
    assert!(exact > 0.0 && exact.ceil() as u64 == retry_after, "the header is the exact wait rounded up: {exact}");

    assert_ne!(send(&sandbox, "GET", "/paper-schema", &auth, b"").await.status, 429);
    let shared = send(&sandbox, "POST", "/paper-schema/search", &auth, b"{}").await;
    assert_eq!(shared.status, 429, "all /paper-schema paths share one quota");
    assert_ne!(send(&sandbox, "GET", "/content", &auth, b"").await.status, 429);
}

#[tokio::test]
async fn the_configured_kind_counts_the_quota() {
    // 2 per minute: a window frees a slot within 60 s, a bucket refills a token every 30 s.
    for (kind, longest_wait) in
        [(RateLimitKind::Sliding, 60.0), (RateLimitKind::Fixed, 60.0), (RateLimitKind::Bucket, 30.0)]
    {
        let before_start = Instant::now();
        let sandbox = sandbox(SandboxConfig {
            papers: 60,
            rate_limits: Some(vec![("paper-schema".into(), 2)]),
            rate_limit_kind: kind,
            ..SandboxConfig::default()
        })
        .await;
        let authorization = bearer(&sandbox);
        let auth = [("Authorization", authorization.as_str())];
        for _ in 0..2 {
            assert_eq!(send(&sandbox, "GET", "/paper-schema", &auth, b"").await.status, 200, "{kind:?}");
        }
        let limited = send(&sandbox, "GET", "/paper-schema", &auth, b"").await;
        let waited = before_start.elapsed().as_secs_f64();
        assert_eq!(limited.status, 429, "{kind:?}");
        let wait = limited.json()["details"]["retry_after"].as_f64().unwrap();
        assert!(wait <= longest_wait && wait >= longest_wait - waited, "{kind:?}: {wait}");
        assert_eq!(limited.header("retry-after"), Some(wait.ceil().to_string().as_str()));
    }
}

#[tokio::test]
async fn status_faults_answer_the_contract_error_bodies() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];
    sandbox.inject_fault(Fault { times: 2, ..fault("/meta-search", FaultKind::Status(503)) });
    sandbox.inject_fault(fault("/paper-schema/schemas/s1/citation-graph", FaultKind::Status(504)));
    sandbox.inject_fault(Fault { retry_after: Some(2.0), ..fault("agentic-search", FaultKind::Status(429)) });

    let unauthenticated = send(&sandbox, "POST", "/meta-search", &[], b"{}").await;
    assert_eq!(unauthenticated.status, 401, "faults apply after auth");
    for _ in 0..2 {
        let reply = send(&sandbox, "POST", "/meta-search", &auth, b"{}").await;
        assert_eq!(reply.status, 503);
        assert_eq!(reply.json()["code"], "UPSTREAM_UNAVAILABLE");
    }
    assert_ne!(send(&sandbox, "POST", "/meta-search", &auth, b"{}").await.status, 503);

    let timeout = send(&sandbox, "GET", "/paper-schema/schemas/s1/citation-graph", &auth, b"").await;
    assert_eq!(timeout.status, 504);
    assert_eq!(timeout.json()["code"], "PAPER_SCHEMA_TIMEOUT");

    let limited = send(&sandbox, "POST", "/agentic-search", &auth, b"{}").await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("2"));
    assert_eq!(limited.json()["details"]["retry_after"], 2);
    assert_eq!(limited.json()["code"], "RATE_LIMITED");
}

#[tokio::test]
async fn non_json_fault_sends_an_html_page() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    sandbox.inject_fault(fault("/content", FaultKind::NonJson(502)));
    let reply = send(&sandbox, "GET", "/content?doc_id=a", &[("Authorization", &authorization)], b"").await;
    assert_eq!(reply.status, 502);
    assert!(reply.header("content-type").unwrap().starts_with("text/html"));
    assert!(String::from_utf8_lossy(&reply.body).contains("502 Bad Gateway"));
    assert!(serde_json::from_slice::<Value>(&reply.body).is_err());
}

#[tokio::test]
async fn drop_fault_cuts_the_body_short() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    sandbox.inject_fault(fault("/meta-search", FaultKind::DropMidBody));
    let reply = send(&sandbox, "POST", "/meta-search", &[("Authorization", &authorization)], b"{}").await;
    let announced: usize = reply.header("content-length").unwrap().parse().unwrap();
    assert!(!reply.body.is_empty(), "part of the body is sent");
    assert!(reply.body.len() < announced, "{} of {announced} bytes", reply.body.len());
    assert!(serde_json::from_slice::<Value>(&reply.body).is_err());
}

#[tokio::test]
async fn delay_fault_delays_a_normal_answer() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str()), ("X-Request-ID", "same")];
    let normal = send(&sandbox, "GET", "/meta-catalog", &auth, b"").await;
    sandbox
        .inject_fault(Fault { delay: Some(Duration::from_millis(300)), ..fault("/meta-catalog", FaultKind::Normal) });
    let started = Instant::now();
    let delayed = send(&sandbox, "GET", "/meta-catalog", &auth, b"").await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(delayed.status, normal.status);
    assert_eq!(delayed.body, normal.body);
}

#[tokio::test]
async fn requests_are_recorded_without_authorization() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let authorization = bearer(&sandbox);
    send(
        &sandbox,
        "POST",
        "/meta-search?a=1&b=x%20y&a=2",
        &[("Authorization", &authorization), ("X-Custom", "yes")],
        br#"{"query":"graph"}"#,
    )
    .await;
    let recorded = sandbox.requests();
    assert_eq!(recorded.len(), 1);
    let request = &recorded[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/meta-search");
    let pairs = |items: &[(&str, &str)]| -> Vec<(String, String)> {
        items.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    assert_eq!(request.query, pairs(&[("a", "1"), ("b", "x y"), ("a", "2")]));
    assert_eq!(&request.body[..], br#"{"query":"graph"}"#);
    assert!(request.headers.contains(&("x-custom".to_string(), "yes".to_string())));
    assert!(request.headers.iter().all(|(name, value)| name != "authorization" && !value.contains(sandbox.token())));
    sandbox.clear_requests();
    assert!(sandbox.requests().is_empty());
}

#[tokio::test]
async fn openapi_document_is_served_without_auth_and_lists_24_operations() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let reply = send(&sandbox, "GET", "/openapi.json", &[], b"").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let document = reply.json();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(operation_count(&document), 24);
}

#[tokio::test]
async fn shutdown_cuts_delays_short_and_closes_the_port() {
    let sandbox = sandbox(SandboxConfig::default()).await;
    let address = sandbox.base_url().trim_start_matches("http://").to_string();
    let authorization = bearer(&sandbox);
    sandbox.inject_fault(Fault { delay: Some(Duration::from_secs(30)), ..fault("/meta-catalog", FaultKind::Normal) });
    let base = sandbox.base_url().to_string();
    let pending = tokio::spawn(async move {
        let mut stream = TcpStream::connect(base.trim_start_matches("http://")).await.unwrap();
        let request = format!("GET /meta-catalog HTTP/1.1\r\nHost: x\r\nAuthorization: {authorization}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        raw
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    sandbox.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let raw = pending.await.unwrap();
    assert!(raw.starts_with(b"HTTP/1.1 "), "the in-flight request was answered");
    assert!(TcpStream::connect(&address).await.is_err());
}

#[test]
fn wildcard_binds_are_reached_on_loopback() {
    assert_eq!(base_url_for("0.0.0.0:8080".parse().unwrap()), "http://127.0.0.1:8080");
    assert_eq!(base_url_for("[::]:81".parse().unwrap()), "http://[::1]:81");
}

#[tokio::test]
async fn a_content_latency_delays_texts_and_figures_only() {
    let latency = Duration::from_millis(300);
    let sandbox =
        sandbox(SandboxConfig { papers: 60, content_latency: Some(latency), ..SandboxConfig::default() }).await;
    let authorization = bearer(&sandbox);
    let auth = [("Authorization", authorization.as_str())];
    for path in ["/content?doc_id=x", "/resource?file_name=x"] {
        let started = Instant::now();
        let reply = send(&sandbox, "GET", path, &auth, b"").await;
        assert!(started.elapsed() >= latency, "{path} answered {} before its latency", reply.status);
    }
}

#[tokio::test]
async fn a_corpus_size_outside_papers_is_refused_before_anything_is_built() {
    for (papers, said) in [
        (0, "papers must be at least 1, got 0"),
        (1_000_001, "papers must be at most 1000000, got 1000001"),
        (usize::MAX, "papers must be at most 1000000, got 18446744073709551615"),
    ] {
        let Err(refused) = Sandbox::start(SandboxConfig { papers, ..SandboxConfig::default() }).await else {
            panic!("a sandbox of {papers} papers started");
        };
        assert_eq!((refused.kind(), refused.to_string()), (io::ErrorKind::InvalidInput, said.to_string()));
    }
}
