//! The tracing headers every response carries: `X-Request-ID` and `X-Service-Source`.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::Response;

pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
pub(crate) const SERVICE_SOURCE: HeaderName = HeaderName::from_static("x-service-source");

const MAX_REQUEST_ID_LEN: usize = 256;

pub(crate) struct Trace {
    pub request_id: String,
    /// Only a value matching `^[A-Za-z0-9_-]{1,64}$`; an invalid one is silently ignored.
    service_source: Option<HeaderValue>,
}

impl Trace {
    pub fn from_headers(headers: &HeaderMap) -> Trace {
        let request_id = headers
            .get(&REQUEST_ID)
            .and_then(|value| value.to_str().ok())
            .filter(|id| !id.is_empty() && id.len() <= MAX_REQUEST_ID_LEN)
            .map_or_else(generate_request_id, str::to_string);
        let service_source = headers
            .get(&SERVICE_SOURCE)
            .filter(|value| is_valid_service_source(value.as_bytes()))
            .cloned();
        Trace {
            request_id,
            service_source,
        }
    }

    pub fn stamp(self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&self.request_id) {
            headers.insert(REQUEST_ID, value);
        }
        if let Some(value) = self.service_source {
            headers.insert(SERVICE_SOURCE, value);
        }
        response
    }
}

pub(crate) fn is_valid_service_source(value: &[u8]) -> bool {
    (1..=64).contains(&value.len())
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

fn generate_request_id() -> String {
    let bits = rand::random::<u128>();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        (bits >> 96) as u32,
        (bits >> 80) as u16,
        (bits >> 68) as u16 & 0x0fff,
        ((bits >> 52) as u16 & 0x3fff) | 0x8000,
        bits as u64 & 0xffff_ffff_ffff,
    )
}
