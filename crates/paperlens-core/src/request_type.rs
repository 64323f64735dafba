//! How the request type of an operation is declared ([`request!`]) and what it does: read the
//! caller's parameters, check the contract's rules, become an [`ApiRequest`]. The table of
//! every operation is [`crate::operation`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

use crate::error::Error;

use crate::request::ApiRequest;
use crate::validate::{Check, Rules};

/// A request type of one operation: deserialized from the caller's parameters (unknown
/// names rejected), checked against the spec's bounds, then put on the wire.
pub trait Operation: DeserializeOwned + Rules {
    /// The spec's bounds and narrowing rules: by default, the rules of the fields.
    fn validate(&self) -> Check {
        self.rules("")
    }

    fn request(&self) -> ApiRequest;
}

/// Declares a request type, or a part of one: its fields, each with the rules of the contract
/// on it, checked in order by [`Rules::rules`]. A rule is a function called as
/// `rule(param, &field, args...)` ([`crate::validate::rule`] has the common ones).
///
/// `body` types are sent as JSON without their absent fields; `query` types are only read
/// (their operation builds the query string). Both refuse unknown names. `=> send(path)`
/// also makes it an [`Operation`] whose request is `send(path, &self)`; `=> send(path)
/// requires(check)` one whose validation is `check(&self)`, a condition across fields (which
/// one of two is needed, say), then the fields' rules.
///
/// ```
/// use paperlens_core::contract::{self as c, lists};
/// use paperlens_core::request_type::Operation;
/// use paperlens_core::validate::rule::{items, one_of};
/// use paperlens_core::ApiRequest;
///
/// fn post(path: &str, body: &impl serde::Serialize) -> ApiRequest {
///     ApiRequest::post_json(path, body, None)
/// }
///
/// paperlens_core::request! {
///     /// `POST /paper-schema/materials`: a goal-oriented bundle for known papers.
///     body Materials => post("/paper-schema/materials") {
///         schema_ids: Vec<String> [items(lists::MATERIALS_PAPERS)],
///         goal: Option<String> [one_of(&c::GOALS)],
///         include_relation_context: Option<bool>,
///     }
/// }
///
/// let materials: Materials = serde_json::from_str(r#"{"schema_ids": ["s1"], "goal": "survey"}"#)?;
/// materials.validate()?;
/// let request = materials.request();
/// assert_eq!(request.path, "/paper-schema/materials");
/// // The absent `include_relation_context` is left out of the body.
/// assert_eq!(request.body.as_deref(), Some(&br#"{"schema_ids":["s1"],"goal":"survey"}"#[..]));
///
/// let unknown = serde_json::from_str::<Materials>(r#"{"schema_ids": ["s1"], "goals": "survey"}"#);
/// assert!(unknown.unwrap_err().to_string().starts_with("unknown field `goals`"));
/// let empty: Materials = serde_json::from_str(r#"{"schema_ids": [], "goal": "survey"}"#)?;
/// assert_eq!(empty.validate().unwrap_err().to_string(), "schema_ids: must have 1 to 20 items, has 0 (got [])");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
// Exported (as `paperlens_core::request!`) so that the example above runs as a doctest; the
// crate's own modules import it from here.
#[macro_export]
macro_rules! request {
    ($(#[$meta:meta])* body $name:ident $(=> $send:ident($path:expr) $(requires($check:path))?)? { $($fields:tt)* }) => {
        $crate::request!(@declare [
            $(#[$meta])*
            #[serde_with::skip_serializing_none]
            #[derive(Debug, serde::Deserialize, serde::Serialize)]
        ] $name $(=> $send($path) $(requires($check))?)? { $($fields)* });
    };
    ($(#[$meta:meta])* query $name:ident $(=> $send:ident($path:expr) $(requires($check:path))?)? { $($fields:tt)* }) => {
        $crate::request!(@declare [$(#[$meta])* #[derive(Debug, serde::Deserialize)]] $name $(=> $send($path) $(requires($check))?)? { $($fields)* });
    };
    (@declare [$($attr:tt)*] $name:ident $(=> $send:ident($path:expr) $(requires($check:path))?)? {
        $($(#[$field_meta:meta])* $field:ident: $ty:ty $([$($rule:ident($($arg:expr),*)),+])?),* $(,)?
    }) => {
        $($attr)*
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $crate::validate::Rules for $name {
            #[allow(unused_variables)]
            fn rules(&self, prefix: &str) -> $crate::validate::Check {
                $($($($rule(&format!("{prefix}{}", stringify!($field)), &self.$field $(, $arg)*)?;)+)?)*
                Ok(())
            }
        }

        $(impl $crate::request_type::Operation for $name {
            $(fn validate(&self) -> $crate::validate::Check {
                $check(self)?;
                $crate::validate::Rules::rules(self, "")
            })?

            fn request(&self) -> $crate::request::ApiRequest {
                $send($path, self)
            }
        })?
    };
}

pub(crate) use request;

/// The request of operation `O` from `params`, checked against the contract when `validate`.
pub fn build<'de, O: Operation, D: Deserializer<'de>>(params: D, validate: bool) -> Result<ApiRequest, Error> {
    let operation: O = read(params)?;
    if validate {
        operation.validate()?;
    }
    Ok(operation.request())
}

/// `params` read as a `T`; a parameter that does not fit is named in the error (see [`type_error`]).
pub fn read<'de, T: Deserialize<'de>, D: Deserializer<'de>>(params: D) -> Result<T, Error> {
    serde_path_to_error::deserialize(params).map_err(|e| type_error(&e.path().to_string(), &e.inner().to_string()))
}

/// The table of a group of operations, each name (the Python method name) with its request
/// type: `prepare(name, params, validate)`, as [`crate::operation::prepare`] for the group.
macro_rules! table {
    ($($name:literal => $type:ty,)*) => {
        /// Builds the request of operation `name` of this group from `params`.
        pub fn prepare<'de, D: serde::Deserializer<'de>>(
            name: &str,
            params: D,
            validate: bool,
        ) -> Result<$crate::request::ApiRequest, $crate::error::Error> {
            match name {
                $($name => $crate::request_type::build::<$type, D>(params, validate),)*
                _ => Err($crate::error::Error::Configuration(format!("unknown operation {name:?}"))),
            }
        }
    };
}

pub(crate) use table;

/// The message of a float that is not finite, which JSON cannot carry.
pub(crate) const NOT_FINITE: &str = "not a finite number";

/// A parameter that does not fit its request type, in Python's words: the parameter and the
/// rule, from the message of serde or of the Python converter (the caller, which holds the
/// parameters, shows the value).
pub fn type_error(path: &str, message: &str) -> Error {
    let param = path.trim_start_matches('.');
    let quoted = |text: &str| text.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>();
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let allowed = rest.split_once("expected").map(|(_, names)| quoted(names)).unwrap_or_default();
        let rule = match allowed.as_slice() {
            [] => "is not a parameter here".to_string(),
            names => format!("is not a parameter here; allowed: {}", names.join(", ")),
        };
        return Error::rule(param, rule);
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        let field = quoted(rest).concat();
        let param = if param.is_empty() { field } else { format!("{param}.{field}") };
        return Error::rule(param, "is required");
    }
    if message == NOT_FINITE {
        // Read before the parameter's type is known: a rule for a value of any type.
        return Error::rule(param, "must not be NaN or an infinity");
    }
    let expected = message.rsplit_once(", expected ").map(|(_, e)| e);
    // pyo3's "'int' object is not an instance of 'str'": the type that was needed.
    let needed = message.split_once("not an instance of '").and_then(|(_, t)| t.split_once('\'')).map(|(t, _)| t);
    let kind = match expected.or(needed) {
        Some(e) if e.starts_with('u') && e[1..].chars().all(|c| c.is_ascii_digit()) || e == "usize" => {
            "a non-negative int"
        }
        Some(e) if e.starts_with('i') && e[1..].chars().all(|c| c.is_ascii_digit()) || e == "isize" => {
            if message.starts_with("invalid value: integer") {
                "an int that fits in 64 bits"
            } else {
                "an int"
            }
        }
        Some(e) if e.starts_with('f') && e[1..].chars().all(|c| c.is_ascii_digit()) || e == "a JSON number" => {
            "a number"
        }
        Some("a boolean") => "a bool",
        Some("a string") => "a str",
        Some("a sequence") => "a list",
        Some(e) if e == "a map" || e.starts_with("struct ") || e == "Mapping" || e == "dict" => "a dict",
        Some("Sequence" | "list") => "a list",
        Some("str") => "a str",
        Some("int") => "an int",
        Some("float") => "a number",
        _ if message.contains("interpreted as an integer") => "an int",
        _ if message.contains("int too large")
            || message.contains("int too big")
            || message.contains("out of range") =>
        {
            "an int that fits in 64 bits"
        }
        _ if message.starts_with("unsupported type") => "a str, int, float, bool, None, list or dict",
        _ => return Error::rule(param, format!("has the wrong type ({message})")),
    };
    Error::rule(param, format!("must be {kind}"))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::read;

    request! {
        body Probe {
            query: String,
            size: Option<i64>,
            window: Option<u32>,
            sort: Option<Vec<Order>>,
            items: Option<Vec<Item>>,
            filters: Option<Flags>,
            value: Option<serde_json::Number>,
        }
    }

    request! {
        body Order { field: String, order: Option<String> }
    }

    request! {
        body Item { schema_id: String }
    }

    request! {
        body Flags { schema_ids: Option<Vec<String>>, has_code: Option<bool> }
    }

    /// The error of reading `params` as a `Probe`, with serde's own messages and paths.
    fn error(params: Value) -> String {
        read::<Probe, _>(params).unwrap_err().to_string()
    }

    // The messages of the Python converter are tested where they arise, by
    // tests/test_validation_messages.py.
    #[test]
    fn serde_errors_name_the_parameter_and_the_rule() {
        let allowed = "allowed: query, size, window, sort, items, filters, value";
        assert_eq!(error(json!({"query": "q", "top": 1})), format!("top: is not a parameter here; {allowed}"));
        assert_eq!(
            error(json!({"query": "q", "filters": {"nope": true}})),
            "filters.nope: is not a parameter here; allowed: schema_ids, has_code"
        );
        assert_eq!(
            error(json!({"query": "q", "sort": [{"field": "year", "by": "desc"}]})),
            "sort[0].by: is not a parameter here; allowed: field, order"
        );
        assert_eq!(error(json!({"size": 5})), "query: is required");
        assert_eq!(error(json!({"query": "q", "items": [{}]})), "items[0].schema_id: is required");
        assert_eq!(error(json!({"query": "q", "items": ["s1"]})), "items[0]: must be a dict");
        assert_eq!(error(json!({"query": "q", "size": "5"})), "size: must be an int");
        assert_eq!(error(json!({"query": "q", "size": u64::MAX})), "size: must be an int that fits in 64 bits");
        assert_eq!(error(json!({"query": "q", "window": -1})), "window: must be a non-negative int");
        assert_eq!(error(json!({"query": 7})), "query: must be a str");
        assert_eq!(error(json!({"query": "q", "sort": "year"})), "sort: must be a list");
        assert_eq!(error(json!({"query": "q", "filters": {"has_code": "yes"}})), "filters.has_code: must be a bool");
        assert_eq!(error(json!({"query": "q", "filters": []})), "filters: must be a dict");
        assert_eq!(error(json!({"query": "q", "value": "0.5"})), "value: must be a number");
    }
}
