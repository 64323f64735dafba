//! Small checks that name the parameter, the rule and the value.

use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::contract::{Bound, Count};
use crate::error::Error;

pub type Check = Result<(), Error>;

/// The contract's rules on the fields of a request type, as [`crate::request!`] declares them;
/// `prefix` goes before each field's name in an error (`filters.`).
pub trait Rules {
    fn rules(&self, prefix: &str) -> Result<(), Error>;
}

/// `value` has between `min` and `max` characters (Unicode code points); `usize::MAX`
/// stands for no upper bound.
pub fn chars(param: &str, value: &str, min: usize, max: usize) -> Check {
    let n = value.chars().count();
    if n < min || n > max {
        let rule = match (min, max) {
            (1, usize::MAX) => "must not be empty".to_string(),
            (_, usize::MAX) => format!("must have at least {min} characters, has {n}"),
            _ => format!("must have {min} to {max} characters, has {n}"),
        };
        return Err(Error::validation(param, rule, value));
    }
    Ok(())
}

/// `value` has as many characters as `count` allows.
pub fn text(param: &str, value: &str, count: Count) -> Check {
    chars(param, value, count.min, count.max)
}

pub fn not_blank(param: &str, value: &str) -> Check {
    if value.trim().is_empty() {
        return Err(Error::validation(param, "must not be empty or only whitespace", value));
    }
    Ok(())
}

pub fn range<T: PartialOrd + Display + Serialize + Copy>(param: &str, value: Option<T>, min: T, max: T) -> Check {
    match value {
        Some(v) if v < min || v > max => Err(Error::validation(param, format!("must be between {min} and {max}"), v)),
        _ => Ok(()),
    }
}

/// `value`, when given, lies within `bound`.
pub fn within(param: &str, value: Option<i64>, bound: Bound) -> Check {
    range(param, value, bound.min, bound.max)
}

pub fn at_least<T: PartialOrd + Display + Serialize + Copy>(param: &str, value: Option<T>, min: T) -> Check {
    match value {
        Some(v) if v < min => Err(Error::validation(param, format!("must be at least {min}"), v)),
        _ => Ok(()),
    }
}

pub fn one_of(param: &str, value: Option<&str>, allowed: &[&str]) -> Check {
    match value {
        Some(v) if !allowed.contains(&v) => {
            Err(Error::validation(param, format!("must be one of {}", allowed.join(", ")), v))
        }
        _ => Ok(()),
    }
}

pub fn max_items<T: Serialize>(param: &str, items: Option<&[T]>, max: usize) -> Check {
    items_between(param, items, 0, max)
}

/// `items`, when given, hold as many items as `count` allows.
pub fn items<T: Serialize>(param: &str, items: Option<&[T]>, count: Count) -> Check {
    items_between(param, items, count.min, count.max)
}

pub fn items_between<T: Serialize>(param: &str, items: Option<&[T]>, min: usize, max: usize) -> Check {
    match items {
        Some(items) if items.len() < min || items.len() > max => {
            let rule = if min == 0 {
                format!("must have at most {max} items")
            } else {
                format!("must have {min} to {max} items")
            };
            Err(Error::validation(param, format!("{rule}, has {}", items.len()), items))
        }
        _ => Ok(()),
    }
}

/// A path-like identifier: no `..` and no backslash (they would escape the service's namespace).
pub fn safe_path(param: &str, value: &str) -> Check {
    if value.contains("..") || value.contains('\\') {
        return Err(Error::validation(param, "must not contain '..' or a backslash", value));
    }
    Ok(())
}

/// A JSON object, or a validation error naming `param`.
pub fn object<'v>(param: &str, value: &'v Value) -> Result<&'v serde_json::Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| Error::validation(param, "must be an object", value))
}

pub fn known_keys(param: &str, object: &serde_json::Map<String, Value>, allowed: &[&str]) -> Check {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(Error::validation(
            format!("{param}.{key}"),
            format!("is not allowed; allowed: {}", allowed.join(", ")),
            key,
        )),
        None => Ok(()),
    }
}

/// The rules of [`crate::request!`]: each checks one field, given or not.
pub mod rule {
    use serde::Serialize;

    use super::{Check, Rules};
    use crate::contract::{Bound, Count};

    /// A field as the rules read it: absent (None) or given.
    pub trait Given {
        type Value: ?Sized;
        fn given(&self) -> Option<&Self::Value>;
    }

    impl Given for String {
        type Value = str;
        fn given(&self) -> Option<&str> {
            Some(self)
        }
    }

    impl Given for Option<String> {
        type Value = str;
        fn given(&self) -> Option<&str> {
            self.as_deref()
        }
    }

    impl<T> Given for Vec<T> {
        type Value = [T];
        fn given(&self) -> Option<&[T]> {
            Some(self)
        }
    }

    impl<T> Given for Option<Vec<T>> {
        type Value = [T];
        fn given(&self) -> Option<&[T]> {
            self.as_deref()
        }
    }

    impl Given for Option<i64> {
        type Value = i64;
        fn given(&self) -> Option<&i64> {
            self.as_ref()
        }
    }

    /// A list of as many items as `count` allows.
    pub fn items<T: Serialize>(param: &str, field: &impl Given<Value = [T]>, count: Count) -> Check {
        super::items(param, field.given(), count)
    }

    /// An integer within `bound`.
    pub fn within(param: &str, field: &impl Given<Value = i64>, bound: Bound) -> Check {
        super::within(param, field.given().copied(), bound)
    }

    pub fn at_least(param: &str, field: &impl Given<Value = i64>, min: i64) -> Check {
        super::at_least(param, field.given().copied(), min)
    }

    /// A text of as many characters as `count` allows.
    pub fn text(param: &str, field: &impl Given<Value = str>, count: Count) -> Check {
        field.given().map_or(Ok(()), |text| super::text(param, text, count))
    }

    /// A text of at least one character.
    pub fn non_empty(param: &str, field: &impl Given<Value = str>) -> Check {
        field.given().map_or(Ok(()), |text| super::chars(param, text, 1, usize::MAX))
    }

    pub fn one_of(param: &str, field: &impl Given<Value = str>, allowed: &[&str]) -> Check {
        super::one_of(param, field.given(), allowed)
    }

    /// Each item of a list is one of `allowed` (an error names the item: `signals[2]`).
    pub fn each_one_of(param: &str, field: &impl Given<Value = [String]>, allowed: &[&str]) -> Check {
        for (i, item) in field.given().unwrap_or_default().iter().enumerate() {
            super::one_of(&format!("{param}[{i}]"), Some(item), allowed)?;
        }
        Ok(())
    }

    /// The rules of a nested part (`filters`), its fields named `param.field`.
    pub fn nested(param: &str, field: &Option<impl Rules>) -> Check {
        field.as_ref().map_or(Ok(()), |part| part.rules(&format!("{param}.")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_parameter_rule_and_value() {
        let err = range("top_k", Some(101), 1, 100).unwrap_err().to_string();
        assert_eq!(err, "top_k: must be between 1 and 100 (got 101)");
        let err = chars("query", "", 1, 4096).unwrap_err().to_string();
        assert_eq!(err, "query: must have 1 to 4096 characters, has 0 (got '')");
        let err = one_of("retrieval", Some("bm25"), &["hybrid", "vector", "es"]).unwrap_err().to_string();
        assert_eq!(err, "retrieval: must be one of hybrid, vector, es (got 'bm25')");
    }

    #[test]
    fn values_are_shown_as_python_writes_them() {
        let err = chars("schema_id", "", 1, usize::MAX).unwrap_err().to_string();
        assert_eq!(err, "schema_id: must not be empty (got '')");
        let sort = serde_json::json!({"by": "year", "on": [1, 2.5, null, true]});
        let err = object("sort[0]", &serde_json::json!(["it's"])).unwrap_err().to_string();
        assert_eq!(err, "sort[0]: must be an object (got [\"it's\"])");
        let err = Error::validation("sort[0]", "needs a field", &sort).to_string();
        assert_eq!(err, "sort[0]: needs a field (got {'by': 'year', 'on': [1, 2.5, None, True]})");
        let err = Error::validation("q", "x", "a\\b\n\u{7}'\"").to_string();
        assert_eq!(err, "q: x (got 'a\\\\b\\n\\x07\\'\"')");
        let long = "x".repeat(200);
        assert!(Error::validation("q", "x", &long).to_string().ends_with("...)"));
    }

    #[test]
    fn characters_are_code_points() {
        assert!(chars("q", "文献检索😀", 1, 5).is_ok());
        assert!(chars("q", "文献检索😀!", 1, 5).is_err());
    }

    #[test]
    fn absent_values_pass() {
        assert!(range::<i64>("x", None, 1, 2).is_ok());
        assert!(one_of("x", None, &["a"]).is_ok());
        assert!(max_items::<String>("x", None, 1).is_ok());
    }
}
