//! One error type for everything that can go wrong in a call.

use std::borrow::Cow;
use std::fmt;
use std::sync::RwLock;
use std::time::SystemTime;

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS, NON_ALPHANUMERIC};

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
    /// A 2xx answer past a read bound (`bound`: the client option, `limit`: its value);
    /// reading stopped there and nothing of it was kept.
    TooLarge { message: String, request_id: String, status: u16, bound: &'static str, limit: u64 },
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
            | Error::TooLarge { request_id, .. }
            | Error::Io { request_id, .. } => Some(request_id),
            Error::Configuration(_) | Error::Validation { .. } => None,
        }
    }
}

impl Error {
    /// This error with every secret of the process ([`redact`]) taken out of its texts.
    pub fn redacted(self) -> Error {
        let r = |text: String| match redact(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(clean) => clean,
        };
        match self {
            Error::Configuration(message) => Error::Configuration(r(message)),
            Error::Validation { param, rule, value } => Error::Validation { param, rule, value: r(value) },
            Error::Api(mut e) => {
                e.message = r(e.message);
                e.request_id = r(e.request_id);
                e.code = e.code.map(r);
                e.details = e.details.map(redact_value);
                Error::Api(e)
            }
            Error::Timeout { message, request_id } => Error::Timeout { message: r(message), request_id: r(request_id) },
            Error::Connection { message, request_id } => {
                Error::Connection { message: r(message), request_id: r(request_id) }
            }
            Error::Decode { message, request_id, status } => {
                Error::Decode { message: r(message), request_id: r(request_id), status }
            }
            Error::TooLarge { message, request_id, status, bound, limit } => {
                Error::TooLarge { message: r(message), request_id: r(request_id), status, bound, limit }
            }
            Error::Io { message, request_id, errno } => {
                Error::Io { message: r(message), request_id: r(request_id), errno }
            }
        }
    }
}

/// The API tokens of this process's clients: taken out of every text that reaches the caller.
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// A token shorter than this is not looked for: it would cut up ordinary words.
pub const MIN_REDACTED_CHARS: usize = 6;

/// What stands in for a secret.
pub const REDACTED: &str = "***";

/// The characters a URL query or path encodes (what `encodeURIComponent` leaves alone stays).
const COMPONENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'&')
    .add(b'+')
    .add(b',')
    .add(b'/')
    .add(b':')
    .add(b';')
    .add(b'<')
    .add(b'=')
    .add(b'>')
    .add(b'?')
    .add(b'@')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Remembers `token` (and its URL-encoded forms) as a secret that [`redact`] takes out.
pub fn register_secret(token: &str) {
    if token.chars().count() < MIN_REDACTED_CHARS {
        return;
    }
    let every = utf8_percent_encode(token, NON_ALPHANUMERIC).to_string();
    let forms =
        [token.to_string(), utf8_percent_encode(token, COMPONENT).to_string(), every.clone(), every.to_lowercase()];
    let mut secrets = SECRETS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    for form in forms {
        if !secrets.contains(&form) {
            secrets.push(form);
        }
    }
    // The longest first: a form that holds another is replaced whole.
    secrets.sort_by_key(|form| std::cmp::Reverse(form.len()));
}

/// `text` with every registered secret, as given or URL-encoded, replaced by `***`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS.read().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut out = Cow::Borrowed(text);
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

/// A JSON value with every string (keys included) redacted.
fn redact_value(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(redact(&text).into_owned()),
        Value::Array(items) => Value::Array(items.into_iter().map(redact_value).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (redact(&k).into_owned(), redact_value(v))).collect())
        }
        other => other,
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
            Error::TooLarge { message, request_id, .. } => write!(f, "{message} (request_id={request_id})"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_token_is_taken_out_as_given_and_url_encoded() {
        register_secret("s3cr3t+tok/en=");
        register_secret("tiny");
        let text = "bad Bearer s3cr3t+tok/en= or s3cr3t%2Btok%2Fen%3D or s3cr3t%2btok%2fen%3d; tiny stays";
        assert_eq!(redact(text), "bad Bearer *** or *** or ***; tiny stays");
        let error = Error::Decode {
            message: "it starts with s3cr3t+tok/en=".into(),
            request_id: "s3cr3t+tok/en=".into(),
            status: 200,
        };
        assert_eq!(
            error.redacted().to_string(),
            "could not decode the 200 response: it starts with *** (request_id=***)"
        );
    }
}
