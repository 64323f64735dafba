//! One request's way through the shell: trace headers, recording, `/openapi.json`,
//! authentication, rate limits, faults, then the service.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{request, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use tokio::sync::watch;

use super::auth::Tokens;
use super::errors::{error_response, rate_limited};
use super::faults::{self, FaultKind, FaultQueue};
use super::openapi;
use super::rate_limit::RateLimiter;
use super::recorder::Recorder;
use super::trace::Trace;
use crate::service::{Service, ServiceRequest, ServiceResponse};

const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

pub(crate) struct Shell {
    pub service: Service,
    pub tokens: Tokens,
    pub limiter: RateLimiter,
    pub faults: FaultQueue,
    pub recorder: Recorder,
    /// Becomes true on shutdown; cuts injected delays short.
    pub stopped: watch::Receiver<bool>,
    /// Added before every `/content` and `/resource` answer (see `SandboxConfig`).
    pub content_latency: Option<Duration>,
}

/// The paths a `content_latency` applies to: the full texts and figures.
const LATENT_PATHS: [&str; 2] = ["/content", "/resource"];

pub(crate) fn router(shell: Arc<Shell>) -> Router {
    Router::new().fallback(handle).with_state(shell)
}

async fn handle(State(shell): State<Arc<Shell>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let trace = Trace::from_headers(&parts.headers);
    let path = parts.uri.path();
    let query: Vec<(String, String)> =
        form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes()).into_owned().collect();
    let body = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(body) => Some(body),
        // GET operations take no body: one too large to read is ignored like any other.
        Err(_) if parts.method == Method::GET || parts.method == Method::HEAD => Some(Bytes::new()),
        Err(_) => None,
    };
    let recorded = body.clone().unwrap_or_default();
    shell.recorder.record(parts.method.as_str(), path, &query, &parts.headers, &recorded);
    let response = shell.answer(&parts, query, body, &trace.request_id).await;
    trace.stamp(response)
}

impl Shell {
    async fn answer(
        &self,
        parts: &request::Parts,
        query: Vec<(String, String)>,
        body: Option<Bytes>,
        request_id: &str,
    ) -> Response {
        let path = parts.uri.path();
        if path == openapi::PATH && parts.method == Method::GET {
            return openapi::response();
        }
        let access = match self.tokens.authenticate(&parts.headers) {
            Ok(access) => access,
            Err(reason) => return error_response(401, path, reason, request_id, None),
        };
        if let Err(wait) = self.limiter.admit(path, Instant::now()) {
            // Rounded up to the microsecond: waiting the advertised time is always enough.
            let seconds = wait.as_nanos().div_ceil(1_000) as f64 / 1e6;
            return rate_limited(path, "rate limit exceeded", request_id, seconds);
        }
        // 400, not 413: every operation with a body lists 400 for a bad request, none lists 413.
        let Some(body) = body else {
            let message = format!("request body unreadable or larger than {MAX_BODY_BYTES} bytes");
            return error_response(400, path, &message, request_id, None);
        };
        if let Some(latency) = self.content_latency.filter(|_| LATENT_PATHS.contains(&path)) {
            self.sleep_unless_stopped(latency).await;
        }
        let fault = self.faults.take(path);
        if let Some(delay) = fault.as_ref().and_then(|fault| fault.delay) {
            self.sleep_unless_stopped(delay).await;
        }
        let service_request = || ServiceRequest {
            method: parts.method.as_str().to_string(),
            path: path.to_string(),
            query,
            body,
            access,
            request_id: request_id.to_string(),
        };
        let Some(fault) = fault else {
            return into_response(self.service.handle(&service_request()));
        };
        match fault.kind {
            FaultKind::Normal => into_response(self.service.handle(&service_request())),
            FaultKind::Status(status) => faults::status_response(status, path, request_id, fault.retry_after),
            FaultKind::NonJson(status) => faults::non_json_response(status),
            FaultKind::Partial => into_response(faults::mark_partial(self.service.handle(&service_request()))),
            FaultKind::DropMidBody => {
                faults::drop_mid_body(into_bytes_response(self.service.handle(&service_request())))
            }
        }
    }

    async fn sleep_unless_stopped(&self, delay: Duration) {
        let mut stopped = self.stopped.clone();
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = stopped.wait_for(|stop| *stop) => {}
        }
    }
}

fn into_response(answer: ServiceResponse) -> Response {
    into_bytes_response(answer).map(Body::from)
}

fn into_bytes_response(answer: ServiceResponse) -> Response<Bytes> {
    let mut response = Response::new(answer.body);
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    for (name, value) in answer.headers {
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
            headers.append(name, value);
        }
    }
    response
}
