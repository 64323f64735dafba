//! `GET /openapi.json`: the OpenAPI 3.1 document of all 24 operations, served without auth.

use axum::http::header;
use axum::response::{IntoResponse, Response};

pub(crate) const PATH: &str = "/openapi.json";
pub(crate) const DOCUMENT: &str = include_str!("../../openapi.json");

pub(crate) fn response() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT).into_response()
}
