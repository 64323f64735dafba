//! One error type for everything that can go wrong in a call.

use std::fmt;
use std::time::SystemTime;

use serde_json::Value;

/// An error answer of the service (any non-2xx status), decoded from its error body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: Option<String>,
    pub message: String,
    pub request_id: String,
    pub details: Option<Value>,
    /// Seconds to wait before retrying, from `Retry-After` or `details.retry_after` (429).
    pub retry_after: Option<f64>,
    /// What the caller can do about it, added by the client (not part of the error body).
    pub hint: Option<String>,
    /// When the service said to come back, set only when its wait exceeded `max_rate_limit_wait`
    /// (the quota is exhausted until then; computed when the answer arrived).
    pub retry_at: Option<SystemTime>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A missing or invalid client setting.
    Configuration(String),
    /// A parameter breaks a bound of the spec; raised before any request is sent.
    Validation { param: String, rule: String, value: String },
    /// The service answered with an error status.
    Api(Box<ApiError>),
    /// No answer within the configured timeout.
    Timeout { message: String, request_id: String },
    /// The connection failed or broke; the message never holds a URL or the token.
    Connection { message: String, request_id: String },
    /// A 2xx answer whose body could not be decoded.
    Decode { message: String, request_id: String, status: u16 },
    /// Writing a downloaded file failed; `errno`: the operating system's error number.
    Io { message: String, request_id: String, errno: Option<i32> },
}

impl Error {
    /// A failed write of a download: the operating system's message and errno.
    pub fn io(error: &std::io::Error, request_id: String) -> Error {
        Error::Io { message: error.to_string(), request_id, errno: error.raw_os_error() }
    }

    /// `param` breaks `rule`; `value` (what was given) is shown as Python writes it.
    pub fn validation(param: impl Into<String>, rule: impl Into<String>, value: impl serde::Serialize) -> Error {
        let shown = serde_json::to_value(value).map(|v| shortened(python_literal(&v))).unwrap_or_default();
        Error::Validation { param: param.into(), rule: rule.into(), value: shown }
    }

    /// `param` breaks `rule` with no value to show (a parameter missing, or two that exclude
    /// each other).
    pub fn rule(param: impl Into<String>, rule: impl Into<String>) -> Error {
        Error::Validation { param: param.into(), rule: rule.into(), value: String::new() }
    }

    pub fn request_id(&self) -> Option<&str> {
        match self {
            Error::Api(e) => Some(&e.request_id),
            Error::Timeout { request_id, .. }
            | Error::Connection { request_id, .. }
            | Error::Decode { request_id, .. }
            | Error::Io { request_id, .. } => Some(request_id),
            Error::Configuration(_) | Error::Validation { .. } => None,
        }
    }
}

/// At most 80 characters of `text`, the cut marked with `...`.
pub fn shortened(text: String) -> String {
    if text.chars().count() > 80 {
        let head: String = text.chars().take(77).collect();
        format!("{head}...")
    } else {
        text
    }
}

/// A JSON value as Python's `repr` writes the value it came from: `None`, `True`, `'text'`,
/// `[1, 2]`, `{'by': 'year'}`.
pub fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(b) => (if *b { "True" } else { "False" }).into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => python_str(s),
        Value::Array(items) => format!("[{}]", items.iter().map(python_literal).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let pairs: Vec<String> =
                map.iter().map(|(k, v)| format!("{}: {}", python_str(k), python_literal(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// `text` quoted as Python's `repr` of a `str` quotes it.
fn python_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Configuration(message) => f.write_str(message),
            Error::Validation { param, rule, value } if value.is_empty() => {
                write!(f, "{param}: {rule}")
            }
            Error::Validation { param, rule, value } => write!(f, "{param}: {rule} (got {value})"),
            Error::Api(e) => {
                let code = e.code.as_deref().map(|c| format!(" {c}")).unwrap_or_default();
                write!(f, "{}{}: {} (request_id={})", e.status, code, e.message, e.request_id)?;
                match &e.hint {
                    Some(hint) => write!(f, "; {hint}"),
                    None => Ok(()),
                }
            }
            Error::Timeout { message, request_id }
            | Error::Connection { message, request_id }
            | Error::Io { message, request_id, .. } => write!(f, "{message} (request_id={request_id})"),
            Error::Decode { message, request_id, status } => {
                write!(f, "could not decode the {status} response: {message} (request_id={request_id})")
            }
        }
    }
}

impl std::error::Error for Error {}
