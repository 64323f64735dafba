//! Small checks that name the parameter, the rule and the value.

use std::fmt::Debug;

use serde_json::Value;

use crate::error::Error;

pub type Check = Result<(), Error>;

/// `value` has between `min` and `max` characters (Unicode code points).
pub fn chars(param: &str, value: &str, min: usize, max: usize) -> Check {
    let n = value.chars().count();
    if n < min || n > max {
        return Err(Error::validation(param, format!("must have {min} to {max} characters, has {n}"), value));
    }
    Ok(())
}

pub fn not_blank(param: &str, value: &str) -> Check {
    if value.trim().is_empty() {
        return Err(Error::validation(param, "must not be empty or only whitespace", value));
    }
    Ok(())
}

pub fn range<T: PartialOrd + Debug + Copy>(param: &str, value: Option<T>, min: T, max: T) -> Check {
    match value {
        Some(v) if v < min || v > max => {
            Err(Error::validation(param, format!("must be between {min:?} and {max:?}"), v))
        }
        _ => Ok(()),
    }
}

pub fn at_least<T: PartialOrd + Debug + Copy>(param: &str, value: Option<T>, min: T) -> Check {
    match value {
        Some(v) if v < min => Err(Error::validation(param, format!("must be at least {min:?}"), v)),
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

pub fn max_items<T: Debug>(param: &str, items: Option<&[T]>, max: usize) -> Check {
    items_between(param, items, 0, max)
}

pub fn items_between<T: Debug>(param: &str, items: Option<&[T]>, min: usize, max: usize) -> Check {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_parameter_rule_and_value() {
        let err = range("top_k", Some(101), 1, 100).unwrap_err().to_string();
        assert_eq!(err, "top_k: must be between 1 and 100 (got 101)");
        let err = chars("query", "", 1, 4096).unwrap_err().to_string();
        assert_eq!(err, "query: must have 1 to 4096 characters, has 0 (got \"\")");
        let err = one_of("retrieval", Some("bm25"), &["hybrid", "vector", "es"]).unwrap_err().to_string();
        assert_eq!(err, "retrieval: must be one of hybrid, vector, es (got \"bm25\")");
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
