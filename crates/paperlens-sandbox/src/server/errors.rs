//! The contract's error body `{code, message, request_id, details?}` and the code each
//! status carries on each path.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub(crate) fn is_meta_search(path: &str) -> bool {
    path == "/meta-search"
}

pub(crate) fn is_paper_schema(path: &str) -> bool {
    path == "/paper-schema" || path.starts_with("/paper-schema/")
}

/// The error code the service uses for `status` on `path`.
pub(crate) fn code_for(status: u16, path: &str) -> &'static str {
    match status {
        400 | 422 => "INVALID_REQUEST",
        401 if is_meta_search(path) => "UNAUTHENTICATED",
        401 => "UNAUTHORIZED",
        403 if is_meta_search(path) => "PERMISSION_DENIED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        413 => "PAYLOAD_TOO_LARGE",
        429 => "RATE_LIMITED",
        502 | 503 => "UPSTREAM_UNAVAILABLE",
        504 if is_paper_schema(path) => "PAPER_SCHEMA_TIMEOUT",
        504 => "GATEWAY_TIMEOUT",
        507 => "INSUFFICIENT_RESOURCES",
        _ => "INTERNAL_ERROR",
    }
}

/// A JSON error response with the code of `status` on `path`.
pub(crate) fn error_response(
    status: u16,
    path: &str,
    message: &str,
    request_id: &str,
    details: Option<Value>,
) -> Response {
    let mut body = json!({
        "code": code_for(status, path),
        "message": message,
        "request_id": request_id,
    });
    if let Some(details) = details {
        body["details"] = details;
    }
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// 429 with `Retry-After` (whole seconds) and `details.retry_after` (as given).
pub(crate) fn rate_limited(
    path: &str,
    message: &str,
    request_id: &str,
    retry_after_secs: f64,
) -> Response {
    let mut response = error_response(
        429,
        path,
        message,
        request_id,
        Some(json!({ "retry_after": seconds_json(retry_after_secs) })),
    );
    set_retry_after(&mut response, retry_after_secs);
    response
}

pub(crate) fn set_retry_after(response: &mut Response, seconds: f64) {
    let whole = seconds.max(0.0).ceil() as u64;
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(whole));
}

/// Whole seconds as a JSON integer, fractions as a float.
pub(crate) fn seconds_json(seconds: f64) -> Value {
    if seconds.fract() == 0.0 && seconds >= 0.0 {
        json!(seconds as u64)
    } else {
        json!(seconds)
    }
}
