//! Strict reading of JSON bodies and query strings: every type error, unknown property
//! and bound violation becomes a 400 that names the parameter and the rule.

use paperlens_core::contract::Bound;
use serde_json::{Map, Value};

use crate::service::error::{Dialect, Result};

pub fn parse_object(body: &[u8], dialect: Dialect) -> Result<Map<String, Value>> {
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(dialect.invalid("request body is required: a JSON object"));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(dialect.invalid("request body must be a JSON object")),
        Err(e) => Err(dialect.invalid(format!("request body is not valid JSON: {e}"))),
    }
}

/// A JSON object being validated; `path` prefixes parameter names in messages.
pub struct Fields<'a> {
    pub map: &'a Map<String, Value>,
    pub path: String,
    pub dialect: Dialect,
    /// Properties whose documented default is null: given as null, they read as absent.
    null_defaults: &'static [&'static str],
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>, path: &str, dialect: Dialect) -> Fields<'a> {
        Fields { map, path: path.to_string(), dialect, null_defaults: &[] }
    }

    /// These properties may be given as null (the spec's default for them).
    pub fn with_null_defaults(self, names: &'static [&'static str]) -> Fields<'a> {
        Fields { null_defaults: names, ..self }
    }

    pub fn name(&self, field: &str) -> String {
        if self.path.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.path)
        }
    }

    pub fn invalid(&self, field: &str, rule: impl std::fmt::Display) -> crate::service::error::ApiError {
        let name = self.name(field);
        self.dialect.invalid_param(&name, format!("'{name}' {rule}"))
    }

    /// The spec's request types include null only as some properties' default: any other
    /// property given as null is refused, not read as absent.
    pub fn no_nulls(&self) -> Result<()> {
        match self.map.iter().find(|(k, v)| v.is_null() && !self.null_defaults.contains(&k.as_str())) {
            Some((field, _)) => Err(self.invalid(field, "must not be null (leave it out instead)")),
            None => Ok(()),
        }
    }

    pub fn allow_only(&self, allowed: &[&str]) -> Result<()> {
        self.no_nulls()?;
        if let Some(unknown) = self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            let name = self.name(unknown);
            return Err(self.dialect.invalid_param(
                &name,
                format!("unknown property '{name}'; allowed properties: {}", allowed.join(", ")),
            ));
        }
        Ok(())
    }

    /// The value, with JSON null read as absent.
    pub fn get(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    pub fn string(&self, field: &str) -> Result<Option<&'a str>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(field, "must be a string")),
        }
    }

    pub fn required_string(&self, field: &str) -> Result<&'a str> {
        self.string(field)?.ok_or_else(|| self.invalid(field, "is required"))
    }

    pub fn integer(&self, field: &str, min: i64, max: i64) -> Result<Option<i64>> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let number = value
            .as_i64()
            .or_else(|| value.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64));
        match number {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            Some(n) => Err(self.invalid(field, format!("must be between {min} and {max} (got {n})"))),
            None => Err(self.invalid(field, "must be an integer")),
        }
    }

    /// An integer within `bound`, when given.
    pub fn within(&self, field: &str, bound: Bound) -> Result<Option<i64>> {
        self.integer(field, bound.min, bound.max)
    }

    /// An integer within `bound`, else its default.
    pub fn bounded(&self, field: &str, bound: Bound) -> Result<i64> {
        Ok(bound.or_default(self.within(field, bound)?))
    }

    pub fn one_of(&self, field: &str, allowed: &[&'static str]) -> Result<Option<&'static str>> {
        let Some(value) = self.string(field)? else {
            return Ok(None);
        };
        allowed
            .iter()
            .find(|a| **a == value)
            .copied()
            .map(Some)
            .ok_or_else(|| self.invalid(field, format!("must be one of {} (got '{value}')", allowed.join(", "))))
    }

    pub fn array(&self, field: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(_) => Err(self.invalid(field, "must be an array")),
        }
    }

    pub fn object(&self, field: &str) -> Result<Option<Fields<'a>>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(Fields::new(map, &self.name(field), self.dialect))),
            Some(_) => Err(self.invalid(field, "must be an object")),
        }
    }
}

/// The first value of a query parameter.
pub fn query_param<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A boolean query parameter: the contract's boolean is `true` or `false`, anything else a 400.
pub fn query_bool(query: &[(String, String)], name: &str, dialect: Dialect) -> Result<Option<bool>> {
    match query_param(query, name) {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(other) => Err(dialect.invalid_param(name, format!("'{name}' must be true or false (got '{other}')"))),
    }
}

/// A query parameter within `bound`, else its default.
pub fn query_bounded(query: &[(String, String)], name: &str, bound: Bound, dialect: Dialect) -> Result<i64> {
    Ok(bound.or_default(query_int(query, name, bound.min, bound.max, dialect)?))
}

pub fn query_int(query: &[(String, String)], name: &str, min: i64, max: i64, dialect: Dialect) -> Result<Option<i64>> {
    let Some(raw) = query_param(query, name) else {
        return Ok(None);
    };
    match raw.trim().parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
        Ok(n) => Err(dialect.invalid_param(name, format!("'{name}' must be between {min} and {max} (got {n})"))),
        Err(_) => Err(dialect.invalid_param(name, format!("'{name}' must be an integer (got '{raw}')"))),
    }
}
