//! Error bodies `{code, message, request_id, details?}` and JSON responses.

use bytes::Bytes;
use serde_json::{json, Value};

use super::ServiceResponse;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
    pub details: Option<Value>,
}

/// The spelling of error codes: `/meta-search` says `INVALID_ARGUMENT` and
/// `PERMISSION_DENIED`, the other operations `INVALID_REQUEST` and `FORBIDDEN`.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    invalid: &'static str,
    forbidden: &'static str,
}

pub const STANDARD: Dialect = Dialect {
    invalid: "INVALID_REQUEST",
    forbidden: "FORBIDDEN",
};
pub const META_SEARCH: Dialect = Dialect {
    invalid: "INVALID_ARGUMENT",
    forbidden: "PERMISSION_DENIED",
};

impl Dialect {
    pub fn invalid(self, message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            code: self.invalid,
            message: message.into(),
            details: None,
        }
    }

    /// A 400 naming the offending parameter in `details.parameter`.
    pub fn invalid_param(self, parameter: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            code: self.invalid,
            message: message.into(),
            details: Some(json!({ "parameter": parameter })),
        }
    }

    pub fn forbidden(self, message: impl Into<String>) -> ApiError {
        ApiError {
            status: 403,
            code: self.forbidden,
            message: message.into(),
            details: None,
        }
    }
}

impl ApiError {
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            code: "NOT_FOUND",
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }

    pub fn into_response(self, request_id: &str) -> ServiceResponse {
        let mut body = json!({
            "code": self.code,
            "message": self.message,
            "request_id": request_id,
        });
        if let (Some(details), Some(map)) = (self.details, body.as_object_mut()) {
            map.insert("details".into(), details);
        }
        json_response(self.status, body.to_string().into_bytes())
    }
}

pub fn json_response(status: u16, body: Vec<u8>) -> ServiceResponse {
    ServiceResponse {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: Bytes::from(body),
    }
}

pub type Result<T> = std::result::Result<T, ApiError>;
