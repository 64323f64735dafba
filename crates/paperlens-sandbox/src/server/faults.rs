//! Injected faults: error statuses, delays, connections dropped mid-body, non-JSON bodies.

use std::io;
use std::sync::Mutex;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use serde_json::json;

use super::errors::{error_response, seconds_json, set_retry_after};

#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// Answer normally, after the fault's delay: how client timeouts are tested.
    Normal,
    /// Answer with this status and a JSON error body.
    Status(u16),
    /// Send the headers and part of the normal answer's body, then drop the connection.
    DropMidBody,
    /// Answer with this status and a non-JSON (HTML) body, as a proxy would.
    NonJson(u16),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    /// Exact request path, e.g. `/meta-search` (no query string).
    pub path: String,
    pub kind: FaultKind,
    /// How many of the next requests to `path` get this fault.
    pub times: u32,
    /// Seconds, sent as `Retry-After` (rounded up) and `details.retry_after` of a status fault.
    pub retry_after: Option<f64>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
}

/// Pending faults, first injected first served.
#[derive(Default)]
pub(crate) struct FaultQueue {
    pending: Mutex<Vec<Fault>>,
}

impl FaultQueue {
    pub fn push(&self, mut fault: Fault) {
        if !fault.path.starts_with('/') {
            fault.path.insert(0, '/');
        }
        if fault.times > 0 {
            self.lock().push(fault);
        }
    }

    /// Takes one use of the first pending fault for `path`.
    pub fn take(&self, path: &str) -> Option<Fault> {
        let mut pending = self.lock();
        let index = pending.iter().position(|fault| fault.path == path)?;
        let fault = &mut pending[index];
        fault.times -= 1;
        if fault.times == 0 {
            Some(pending.remove(index))
        } else {
            Some(fault.clone())
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Fault>> {
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The JSON error answer of a status fault.
pub(crate) fn status_response(
    status: u16,
    path: &str,
    request_id: &str,
    retry_after: Option<f64>,
) -> Response {
    let details = retry_after.map(|seconds| json!({ "retry_after": seconds_json(seconds) }));
    let message = format!("injected fault: HTTP {status}");
    let mut response = error_response(status, path, &message, request_id, details);
    if let Some(seconds) = retry_after {
        set_retry_after(&mut response, seconds);
    }
    response
}

/// An HTML error page, as a reverse proxy in front of the service would send.
pub(crate) fn non_json_response(status: u16) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    let title = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error")
    );
    let html = format!(
        "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n\
         <center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html,
    )
        .into_response()
}

/// `answer` with its full `Content-Length` announced but only its first half sent before
/// the connection is aborted.
pub(crate) fn drop_mid_body(answer: Response<Bytes>) -> Response {
    let (mut parts, body) = answer.into_parts();
    let announced = body.len().max(2);
    let sent = body.slice(..body.len() / 2);
    let chunks = stream::once(async move { Ok::<_, io::Error>(sent) }).chain(stream::once(async {
        // Yielding once lets the server flush the partial body before the abort.
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err(io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "injected fault: connection dropped mid-body",
        ))
    }));
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(announced));
    Response::from_parts(parts, Body::from_stream(chunks))
}
