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
use crate::service::ServiceResponse;

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
    /// Answer normally, but mark a JSON object answer `partial: true` with a warning: a
    /// degraded dependent step, as `/paper-schema` operations report it.
    Partial,
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
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The JSON error answer of a status fault.
pub(crate) fn status_response(status: u16, path: &str, request_id: &str, retry_after: Option<f64>) -> Response {
    let details = retry_after.map(|seconds| json!({ "retry_after": seconds_json(seconds) }));
    let message = format!("injected fault: HTTP {status}");
    let mut response = error_response(status, path, &message, request_id, details);
    if let Some(seconds) = retry_after {
        set_retry_after(&mut response, seconds);
    }
    response
}

/// `answer` marked `partial: true`, with a warning appended to `warnings`, when it is a
/// 200 JSON object; any other answer unchanged.
pub(crate) fn mark_partial(mut answer: ServiceResponse) -> ServiceResponse {
    if answer.status != 200 {
        return answer;
    }
    let Ok(serde_json::Value::Object(mut body)) = serde_json::from_slice(&answer.body) else {
        return answer;
    };
    body.insert("partial".into(), serde_json::Value::Bool(true));
    let warning = serde_json::Value::String(
        "injected fault: a dependent step degraded; the results are usable but may be \
         incomplete"
            .into(),
    );
    match body.get_mut("warnings") {
        Some(serde_json::Value::Array(warnings)) => warnings.push(warning),
        _ => {
            body.insert("warnings".into(), serde_json::Value::Array(vec![warning]));
        }
    }
    if let Ok(bytes) = serde_json::to_vec(&body) {
        answer.body = Bytes::from(bytes);
    }
    answer
}

/// An HTML error page, as a reverse proxy in front of the service would send.
pub(crate) fn non_json_response(status: u16) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    let title = format!("{} {}", status.as_u16(), status.canonical_reason().unwrap_or("Error"));
    let html = format!(
        "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n\
         <center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    );
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
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
        Err(io::Error::new(io::ErrorKind::ConnectionAborted, "injected fault: connection dropped mid-body"))
    }));
    parts.headers.insert(header::CONTENT_LENGTH, HeaderValue::from(announced));
    Response::from_parts(parts, Body::from_stream(chunks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::error::json_response;

    #[test]
    fn partial_marks_json_objects_and_keeps_their_warnings() {
        let answer = json_response(200, br#"{"items": [1], "warnings": ["w0"]}"#.to_vec());
        let marked: serde_json::Value = serde_json::from_slice(&mark_partial(answer).body).unwrap();
        assert_eq!(marked["partial"], true);
        assert_eq!(marked["items"], json!([1]));
        assert_eq!(marked["warnings"].as_array().map(Vec::len), Some(2));
        let error = json_response(404, br#"{"code": "NOT_FOUND"}"#.to_vec());
        assert_eq!(mark_partial(error).body, Bytes::from_static(br#"{"code": "NOT_FOUND"}"#));
    }
}
