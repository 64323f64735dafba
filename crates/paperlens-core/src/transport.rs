//! The one way a request leaves the client: pacing, headers, retries, error decoding.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CONTENT_TYPE, USER_AGENT};
use reqwest::redirect;
use serde_json::Value;
use tempfile::NamedTempFile;
use tokio::sync::SemaphorePermit;

use crate::cache::{CacheKey, Lookup, ResponseCache};
use crate::config::ClientConfig;
use crate::error::{ApiError, Error};
use crate::events::{Event, EventSink};
use crate::fork::ForkLocal;
use crate::pacing::{Held, Outcome, Pacer, Ticket};
use crate::request::{ApiRequest, ApiResponse};
use crate::retry::{backoff, decide, parse_retry_after, retry_after_from_details, Decision};
use crate::surrogates::decode_replacing_lone_surrogates;

mod body;

use body::{read_body, read_error_body, temp_file_in, BodyError};
pub use body::{Body, BodySink, DownloadProgress, ERROR_BODY_MAX};

const REQUEST_ID: &str = "x-request-id";
const SERVICE_SOURCE: &str = "x-service-source";
const MAX_REDIRECTS: usize = 5;
const EXCERPT_CHARS: usize = 200;

/// Shares one connection pool and one pacer among all clients derived from it.
#[derive(Clone)]
pub struct Transport {
    config: Arc<ClientConfig>,
    connections: Arc<SharedConnections>,
    events: Arc<dyn EventSink>,
    cache: Option<Arc<ResponseCache>>,
}

/// The connection pool and the pacing state, live on this process's runtime: a forked child
/// builds its own from the settings they were first built from.
struct Connections {
    http: reqwest::Client,
    pacer: Pacer,
}

struct SharedConnections {
    settings: ClientConfig,
    of_this_process: ForkLocal<Connections>,
}

impl Connections {
    fn new(config: &ClientConfig, events: &Arc<dyn EventSink>) -> Result<Connections, Error> {
        let http = crate::network::http_client(config, redirect::Policy::custom(follow_redirect))?;
        Ok(Connections { http, pacer: Pacer::new(config, events)? })
    }
}

/// A failed attempt that may be retried after `wait`.
struct Retryable {
    error: Error,
    wait: Duration,
    /// A 429: `wait` is the pause of every request of the resource, not of this one alone.
    refused: bool,
}

enum Attempt {
    Done(ApiResponse, Body),
    Retry(Retryable),
}

impl Transport {
    pub fn new(config: ClientConfig, events: Arc<dyn EventSink>) -> Result<Transport, Error> {
        let connections = ForkLocal::new(Connections::new(&config, &events)?);
        let connections = Arc::new(SharedConnections { settings: config.clone(), of_this_process: connections });
        let cache = config.cache.as_ref().and_then(|c| {
            match ResponseCache::open(c.dir.clone(), c.ttl, config.base_url.as_str(), &config.token) {
                Ok(cache) => Some(Arc::new(cache)),
                Err(reason) => {
                    events.emit(Event::CacheRefused { dir: c.dir.display().to_string(), reason });
                    None
                }
            }
        });
        Ok(Transport { config: Arc::new(config), connections, events, cache })
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    fn connections(&self) -> Result<&Connections, Error> {
        let shared = &*self.connections;
        shared.of_this_process.get_or_try_init(|| Connections::new(&shared.settings, &self.events))
    }

    /// The response cache, when enabled.
    pub fn cache(&self) -> Option<&ResponseCache> {
        self.cache.as_deref()
    }

    /// The pacing's requests per minute in force, by quota resource and paced operation (see
    /// [`Pacer::rates`]).
    pub async fn pacing_rates(&self) -> Result<Vec<(&'static str, u32)>, Error> {
        self.connections()?.pacer.rates().await
    }

    /// A transport with other settings sharing this one's pool, pacer, events and cache.
    /// Settings of the pool itself (`connect_timeout`), the quotas, the concurrency bound and
    /// the cache stay those of `self`.
    pub fn with_config(&self, config: ClientConfig) -> Transport {
        Transport { config: Arc::new(config), ..self.clone() }
    }

    /// Sends `request` and reads the whole successful body into memory.
    pub async fn execute(&self, request: &ApiRequest) -> Result<ApiResponse, Error> {
        let (mut response, body) = self.run(request, &BodySink::Memory).await?;
        if let Body::Bytes(bytes) = body {
            response.body = bytes;
        }
        Ok(response)
    }

    /// Sends `request` and streams the successful body into a temporary file in `dir`.
    /// A failure at any point (a connection dropped mid-body included) leaves no file behind.
    pub async fn download(&self, request: &ApiRequest, dir: &Path) -> Result<(ApiResponse, NamedTempFile), Error> {
        self.download_with_progress(request, dir, None).await
    }

    /// [`download`](Self::download), reporting the bytes written as they arrive.
    pub async fn download_with_progress(
        &self,
        request: &ApiRequest,
        dir: &Path,
        progress: Option<&DownloadProgress>,
    ) -> Result<(ApiResponse, NamedTempFile), Error> {
        match self.run(request, &BodySink::TempFileIn(dir, progress)).await? {
            (response, Body::File(file)) => Ok((response, file)),
            (response, Body::Bytes(_)) => {
                unreachable!("a file sink returned bytes for {}", response.request_id)
            }
        }
    }

    async fn run(&self, request: &ApiRequest, sink: &BodySink<'_>) -> Result<(ApiResponse, Body), Error> {
        self.run_attempts(request, sink).await.map_err(Error::redacted)
    }

    async fn run_attempts(&self, request: &ApiRequest, sink: &BodySink<'_>) -> Result<(ApiResponse, Body), Error> {
        // The cache comes before pacing: a hit sends nothing and so costs no quota.
        let cached = self.cache.as_ref().map(|cache| (Arc::clone(cache), cache.key(request)));
        if let Some((cache, key)) = &cached {
            match cache_get(cache, key).await {
                Lookup::Hit(hit) => {
                    self.events.emit(Event::CacheHit {
                        method: request.method.to_string(),
                        path: request.path.clone(),
                        request_id: hit.response.request_id.clone(),
                        age: hit.age,
                    });
                    return serve_hit(hit.response, sink).await;
                }
                Lookup::Damaged { path, reason } => self.events.emit(Event::CacheDamaged {
                    method: request.method.to_string(),
                    path: request.path.clone(),
                    entry: path.display().to_string(),
                    reason,
                }),
                Lookup::Miss => {}
            }
        }
        let connections = self.connections()?;
        let request_id = uuid::Uuid::new_v4().to_string();
        let max_retries = self.config.max_retries;
        let started = Instant::now();
        // A deadline past what the clock can hold is no deadline (one too long for a
        // `Duration` was refused with the setting).
        let deadline = self.config.deadline.and_then(|d| started.checked_add(d)).map(tokio::time::Instant::from_std);
        let mut last: Option<Error> = None;
        for attempt in 0.. {
            let Some(paced) = within(deadline, self.pace(&connections.pacer, request, &request_id)).await else {
                return Err(self.deadline_passed(&request_id, attempt, started, last));
            };
            let answer = match paced {
                Ok((mut ticket, in_flight)) => {
                    ticket.sent();
                    let Some(answer) =
                        within(deadline, self.attempt(&connections.http, request, &request_id, sink, attempt)).await
                    else {
                        return Err(self.deadline_passed(&request_id, attempt + 1, started, last));
                    };
                    // The pacing state learns how the attempt ended before its place in flight is
                    // given up: a request waiting for that place must see the pause a 429 here begins.
                    ticket.finish(outcome(&answer)).await;
                    drop(in_flight);
                    answer
                }
                // The shared pacing state out of reach (or its reply lost): retried like a request.
                Err(error @ (Error::Connection { .. } | Error::Timeout { .. })) => {
                    let wait = backoff(self.config.retry_backoff, attempt);
                    Ok(Attempt::Retry(Retryable { error, wait, refused: false }))
                }
                Err(error) => Err(error),
            };
            // Whatever the service said is redacted before it reaches a log line or an error.
            let answer = match answer {
                Ok(Attempt::Retry(retry)) => Ok(Attempt::Retry(Retryable { error: retry.error.redacted(), ..retry })),
                Err(error) => Err(error.redacted()),
                done => done,
            };
            let failure = match answer {
                Ok(Attempt::Done(response, body)) => {
                    if let Some((cache, key)) = cached {
                        cache_put(cache, key, &response, &body).await;
                    }
                    return Ok((response, body));
                }
                Ok(Attempt::Retry(failure)) => failure,
                Err(error) => return Err(error),
            };
            if attempt >= max_retries {
                return Err(given_up(failure.error, attempt + 1, started.elapsed()));
            }
            if deadline.is_some_and(|at| tokio::time::Instant::now() + failure.wait >= at) {
                return Err(self.deadline_passed(&request_id, attempt + 1, started, Some(failure.error)));
            }
            self.events.emit(Event::Retry {
                method: request.method.to_string(),
                path: request.path.clone(),
                request_id: request_id.clone(),
                attempt: attempt + 1,
                max_retries,
                wait: failure.wait,
                reason: failure.error.to_string(),
            });
            // After a 429 the wait is the pause the pacer now holds for the whole resource.
            if !failure.refused {
                tokio::time::sleep(failure.wait).await;
            }
            last = Some(failure.error);
        }
        unreachable!("the retry loop returns")
    }

    /// The call's `deadline` passed after `attempts` attempts; `last`: the latest failure.
    fn deadline_passed(&self, request_id: &str, attempts: u32, started: Instant, last: Option<Error>) -> Error {
        let deadline = self.config.deadline.unwrap_or_default().as_secs_f64();
        let mut message = format!(
            "no complete answer within the deadline of {deadline:.1} s for the whole call \
             ({attempts} attempts in {:.1} s, retries and waits included)",
            started.elapsed().as_secs_f64()
        );
        if let Some(error) = last {
            message.push_str(&format!("; the last attempt: {error}"));
        }
        Error::Timeout { message, request_id: request_id.to_string() }
    }

    /// Waits for the request's turn under its quota (or its operation's adaptive rate) and
    /// for a place among the requests in flight. `Err`: the shared pacing state is out of reach.
    async fn pace<'p>(
        &self,
        pacer: &'p Pacer,
        request: &ApiRequest,
        request_id: &str,
    ) -> Result<(Ticket, SemaphorePermit<'p>), Error> {
        let events = &self.events;
        let mut told = |Held { quota, wait, per_minute, paused }: Held| {
            events.emit(Event::Paced { quota, per_minute, wait, paused, request_id: request_id.into() });
        };
        pacer.enter(request, &mut told).await.map_err(|error| match error {
            Error::Connection { message, .. } => Error::Connection { message, request_id: request_id.into() },
            Error::Timeout { message, .. } => Error::Timeout { message, request_id: request_id.into() },
            Error::Io { message, errno, .. } => Error::Io { message, errno, request_id: request_id.into() },
            other => other,
        })
    }

    /// One attempt. `Err` is final; `Ok(Attempt::Retry)` may be retried.
    async fn attempt(
        &self,
        http: &reqwest::Client,
        request: &ApiRequest,
        request_id: &str,
        sink: &BodySink<'_>,
        attempt: u32,
    ) -> Result<Attempt, Error> {
        self.events.emit(Event::Request {
            method: request.method.to_string(),
            path: request.path.clone(),
            request_id: request_id.into(),
            attempt,
        });
        let started = Instant::now();
        let response = match self.build(http, request, request_id).send().await {
            Ok(response) => response,
            Err(e) => return Ok(Attempt::Retry(self.transport_failure(e, request_id, attempt))),
        };
        let status = response.status().as_u16();
        self.events.emit(Event::Response { status, request_id: request_id.into(), elapsed: started.elapsed() });
        let headers = response.headers().clone();
        let answered_id = crate::error::redact(header_str(&headers, REQUEST_ID).unwrap_or(request_id)).into_owned();
        if response.status().is_success() {
            let meta = ApiResponse { status, headers, body: Bytes::new(), request_id: answered_id };
            return match read_body(response, sink, &self.config.bounds).await {
                Ok(body) => Ok(Attempt::Done(meta, body)),
                Err(BodyError::Transport(e)) => Ok(Attempt::Retry(self.transport_failure(e, request_id, attempt))),
                Err(BodyError::Io(e)) => Err(Error::io(&e, meta.request_id)),
                Err(BodyError::TooLarge { bound, limit, read }) => Err(Error::TooLarge {
                    message: BodyError::too_large_message(bound, limit, read),
                    request_id: meta.request_id,
                    status,
                    bound,
                    limit,
                }),
                Err(BodyError::Corrupt(message)) => Err(Error::Decode { message, request_id: meta.request_id, status }),
            };
        }
        let body = read_error_body(response).await;
        let error = api_error(status, &headers, &body, &answered_id, &request.path);
        match decide(status) {
            Decision::Fail => Err(Error::Api(Box::new(error))),
            Decision::Backoff => Ok(Attempt::Retry(Retryable {
                wait: backoff(self.config.retry_backoff, attempt),
                error: Error::Api(Box::new(error)),
                refused: false,
            })),
            Decision::RateLimited => self.rate_limited(error, attempt),
        }
    }

    fn rate_limited(&self, mut error: ApiError, attempt: u32) -> Result<Attempt, Error> {
        let asked = error.retry_after.map(|s| Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX));
        let limit = self.config.max_rate_limit_wait;
        if let Some(wait) = asked.filter(|wait| *wait > limit) {
            // 9999-12-31 23:59:59 UTC at the latest, the last time a Python `datetime` holds.
            let latest = UNIX_EPOCH + Duration::from_secs(253_402_300_799);
            let retry_at = SystemTime::now().checked_add(wait).filter(|at| *at < latest).unwrap_or(latest);
            error.hint = Some(crate::pacing::quota_exhausted_hint(wait, limit, retry_at));
            error.retry_at = Some(retry_at);
            return Err(Error::Api(Box::new(error)));
        }
        let wait = asked.unwrap_or_else(|| backoff(self.config.retry_backoff, attempt));
        Ok(Attempt::Retry(Retryable { error: Error::Api(Box::new(error)), wait, refused: true }))
    }

    fn transport_failure(&self, error: reqwest::Error, request_id: &str, attempt: u32) -> Retryable {
        let wait = backoff(self.config.retry_backoff, attempt);
        Retryable { error: transport_error(&error, request_id, self.config.timeout), wait, refused: false }
    }

    fn build(&self, http: &reqwest::Client, request: &ApiRequest, request_id: &str) -> reqwest::RequestBuilder {
        let config = &self.config;
        let mut url = config.base_url.clone();
        url.set_path(&format!("{}{}", config.base_url.path().trim_end_matches('/'), request.path));
        if !request.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&request.query);
        }
        let mut headers = HeaderMap::new();
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", config.token.expose()))
            .expect("the token was checked for control characters");
        auth.set_sensitive(true);
        headers.insert(AUTHORIZATION, auth);
        headers.insert(REQUEST_ID, HeaderValue::from_str(request_id).expect("a uuid is a header value"));
        if let Ok(agent) = HeaderValue::from_str(&config.user_agent) {
            headers.insert(USER_AGENT, agent);
        }
        if let Some(source) = config.service_source.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
            headers.insert(SERVICE_SOURCE, source);
        }
        let accept = if request.path == "/resource" { "*/*" } else { "application/json" };
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        // Decompressed by `body`, which bounds the ratio (reqwest's own decoder would not).
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let mut builder = http.request(request.method.clone(), url).headers(headers).timeout(config.timeout);
        if let Some(body) = &request.body {
            builder = builder.header(CONTENT_TYPE, "application/json").body(body.clone());
        }
        builder
    }
}

/// How an attempt ended, for pacing. A 429 asking for a wait too long to make ends the call
/// (`Err`): refused, but no pause for the others.
fn outcome(answer: &Result<Attempt, Error>) -> Outcome {
    match answer {
        Ok(Attempt::Retry(Retryable { refused: true, wait, .. })) => Outcome::Refused { pause: Some(*wait) },
        Err(Error::Api(error)) if error.status == 429 => Outcome::Refused { pause: None },
        _ => Outcome::Counted,
    }
}

/// Redirects are followed within the limit, never from https down to http. reqwest itself
/// drops `Authorization` when a redirect leaves the host, so the token never travels along.
fn follow_redirect(attempt: redirect::Attempt) -> redirect::Action {
    let downgrade =
        attempt.previous().last().is_some_and(|p| p.scheme() == "https") && attempt.url().scheme() != "https";
    if downgrade || attempt.previous().len() > MAX_REDIRECTS {
        attempt.stop()
    } else {
        attempt.follow()
    }
}

async fn cache_get(cache: &Arc<ResponseCache>, key: &CacheKey) -> Lookup {
    let (cache, key) = (Arc::clone(cache), key.clone());
    tokio::task::spawn_blocking(move || cache.get(&key)).await.unwrap_or(Lookup::Miss)
}

/// Stores a successful answer; a failure to store is not the caller's problem.
async fn cache_put(cache: Arc<ResponseCache>, key: CacheKey, response: &ApiResponse, body: &Body) {
    let meta = ApiResponse { body: Bytes::new(), ..response.clone() };
    let source = match body {
        Body::Bytes(bytes) => Ok(bytes.clone()),
        Body::File(file) => Err(file.path().to_path_buf()),
    };
    let _ = tokio::task::spawn_blocking(move || {
        let bytes = match source {
            Ok(bytes) => bytes,
            Err(path) => {
                let too_big = std::fs::metadata(&path).map_or(true, |m| m.len() > crate::cache::MAX_ENTRY_BYTES as u64);
                if too_big {
                    return;
                }
                match std::fs::read(&path) {
                    Ok(data) => Bytes::from(data),
                    Err(_) => return,
                }
            }
        };
        if ResponseCache::storable(&meta, &bytes) {
            let _ = cache.put(&key, &meta, &bytes);
        }
    })
    .await;
}

/// A cached answer as the sink expects it.
async fn serve_hit(response: ApiResponse, sink: &BodySink<'_>) -> Result<(ApiResponse, Body), Error> {
    match sink {
        BodySink::Memory => {
            let body = response.body.clone();
            Ok((response, Body::Bytes(body)))
        }
        BodySink::TempFileIn(dir, progress) => {
            let dir = dir.to_path_buf();
            let data = response.body.clone();
            let size = data.len() as u64;
            let written = tokio::task::spawn_blocking(move || -> std::io::Result<NamedTempFile> {
                use std::io::Write;
                let mut file = temp_file_in(&dir)?;
                file.write_all(&data)?;
                file.as_file().sync_all()?;
                Ok(file)
            })
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
            match written {
                Ok(file) => {
                    if let Some(progress) = progress {
                        progress(size, Some(size));
                    }
                    Ok((ApiResponse { body: Bytes::new(), ..response }, Body::File(file)))
                }
                Err(e) => Err(Error::io(&e, response.request_id)),
            }
        }
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty())
}

/// What an institution's TLS-inspecting proxy or a private deployment needs.
const UNKNOWN_ISSUER_HINT: &str = " (the service's certificate is signed by a CA this machine does not trust: \
     give its PEM file as ca_bundle=... or in SSL_CERT_FILE / REQUESTS_CA_BUNDLE)";

/// The error of a failed transport attempt, with no URL (and so no host or query) in its text.
/// Awaits `work`, or gives `None` once `deadline` passed.
async fn within<T>(deadline: Option<tokio::time::Instant>, work: impl std::future::Future<Output = T>) -> Option<T> {
    match deadline {
        Some(at) => tokio::time::timeout_at(at, work).await.ok(),
        None => Some(work.await),
    }
}

/// The error of the last attempt, telling how many were made: a timeout bounds one attempt.
fn given_up(error: Error, attempts: u32, elapsed: Duration) -> Error {
    match error {
        Error::Timeout { message, request_id } => Error::Timeout {
            message: format!(
                "{message}; {attempts} attempts in {:.1} s in all (a deadline bounds the whole call)",
                elapsed.as_secs_f64()
            ),
            request_id,
        },
        other => other,
    }
}

fn transport_error(error: &reqwest::Error, request_id: &str, timeout: Duration) -> Error {
    let request_id = request_id.to_string();
    if error.is_timeout() {
        let message = format!("no complete answer within the timeout of {:.1} s per attempt", timeout.as_secs_f64());
        return Error::Timeout { message, request_id };
    }
    let what = if error.is_body() || error.is_decode() {
        "the connection broke while reading the response"
    } else if error.is_connect() {
        "could not connect to the service"
    } else {
        "the request failed"
    };
    let mut message = what.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    if message.contains("UnknownIssuer") {
        message.push_str(UNKNOWN_ISSUER_HINT);
    }
    Error::Connection { message, request_id }
}

/// Decodes an error answer; a non-JSON body (an HTML page of a proxy) still gives the status
/// and a short excerpt.
fn api_error(status: u16, headers: &HeaderMap, body: &[u8], request_id: &str, path: &str) -> ApiError {
    let parsed: Option<serde_json::Map<String, Value>> =
        decode_replacing_lone_surrogates(body, |text| serde_json::from_slice(text)).ok().map(|(map, _)| map);
    let text = |key: &str| parsed.as_ref().and_then(|m| m.get(key)).and_then(Value::as_str).map(str::to_string);
    let details = parsed.as_ref().and_then(|m| m.get("details")).filter(|d| !d.is_null()).cloned();
    let message = text("message").unwrap_or_else(|| match parsed {
        Some(_) => format!("HTTP {status} with an error body that has no message"),
        None => format!("HTTP {status} with a non-JSON body: {}", excerpt(body)),
    });
    let retry_after = header_str(headers, "retry-after")
        .and_then(|h| parse_retry_after(h, SystemTime::now()))
        .or_else(|| retry_after_from_details(details.as_ref()))
        .map(|d| d.as_secs_f64());
    let hint = (status == 504 && path.starts_with("/paper-schema")).then(|| {
        "the structured-paper query timed out: narrow the graph depth, the batch or the result limits, then retry"
            .to_string()
    });
    ApiError {
        status,
        code: text("code"),
        message,
        request_id: text("request_id").unwrap_or_else(|| request_id.to_string()),
        details,
        retry_after,
        hint,
        retry_at: None,
    }
}

fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return "(empty)".into();
    }
    let mut out: String = folded.chars().take(EXCERPT_CHARS).collect();
    if folded.chars().count() > EXCERPT_CHARS {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_json_error_body_keeps_status_and_excerpt() {
        let html = b"<html>\n<body><h1>502 Bad Gateway</h1>   nginx</body></html>";
        let error = api_error(502, &HeaderMap::new(), html, "rid-1", "/meta-search");
        assert_eq!(error.status, 502);
        assert_eq!(error.code, None);
        assert_eq!(error.request_id, "rid-1");
        assert!(
            error.message.contains("non-JSON body: <html> <body><h1>502 Bad Gateway</h1> nginx"),
            "{}",
            error.message
        );
    }

    #[test]
    fn json_error_body_and_retry_after() {
        let body = br#"{"code":"RATE_LIMITED","message":"slow down","request_id":"srv-9","details":{"retry_after":4}}"#;
        let error = api_error(429, &HeaderMap::new(), body, "rid", "/meta-search");
        assert_eq!(error.code.as_deref(), Some("RATE_LIMITED"));
        assert_eq!(error.request_id, "srv-9");
        assert_eq!(error.retry_after, Some(4.0));
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(api_error(429, &headers, body, "rid", "/x").retry_after, Some(2.0));
    }

    #[test]
    fn an_error_body_with_a_lone_surrogate_keeps_its_message() {
        let body = br#"{"code":"BAD","message":"no \ud83d here","request_id":"srv-1"}"#;
        let error = api_error(400, &HeaderMap::new(), body, "rid", "/meta-search");
        assert_eq!((error.message.as_str(), error.code.as_deref()), ("no \u{fffd} here", Some("BAD")));
    }

    #[test]
    fn paper_schema_timeout_carries_a_hint() {
        let error = api_error(504, &HeaderMap::new(), b"{}", "r", "/paper-schema/schemas/s1/citation-graph");
        assert!(error.hint.unwrap().contains("narrow the graph depth"));
        assert!(api_error(504, &HeaderMap::new(), b"{}", "r", "/meta-search").hint.is_none());
    }

    #[test]
    fn a_timeout_given_up_tells_the_attempts_and_the_total() {
        let timeout = Error::Timeout {
            message: "no complete answer within the timeout of 1.0 s per attempt".into(),
            request_id: "r".into(),
        };
        let Error::Timeout { message, request_id } = given_up(timeout, 4, Duration::from_millis(11_600)) else {
            panic!("a timeout stays a timeout")
        };
        assert_eq!(request_id, "r");
        assert_eq!(
            message,
            "no complete answer within the timeout of 1.0 s per attempt; 4 attempts in 11.6 s in all \
             (a deadline bounds the whole call)"
        );
        let refused = Error::Connection { message: "could not connect".into(), request_id: "r".into() };
        assert_eq!(given_up(refused.clone(), 4, Duration::from_secs(1)), refused);
    }

    #[tokio::test(start_paused = true)]
    async fn within_a_deadline_work_ends_when_it_passes() {
        let soon = tokio::time::Instant::now() + Duration::from_secs(1);
        assert_eq!(within(Some(soon), async { 7 }).await, Some(7));
        assert_eq!(within(Some(soon), tokio::time::sleep(Duration::from_secs(5))).await, None);
        assert_eq!(within(None, async { 7 }).await, Some(7));
    }

    #[test]
    fn excerpt_is_short() {
        let long = "x".repeat(1000);
        assert_eq!(excerpt(long.as_bytes()).chars().count(), EXCERPT_CHARS + 3);
        assert_eq!(excerpt(b"  "), "(empty)");
    }
}
