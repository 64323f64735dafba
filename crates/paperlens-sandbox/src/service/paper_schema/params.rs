//! Reading the parameters of the `/paper-schema` operations: JSON bodies through
//! [`Fields`], GET query strings (arrays as repeated pairs), and the taxonomy checks.

use paperlens_core::contract::{lists, EVIDENCE_GROUPS, QUERY_CHARS};
use serde_json::{Map, Value};

use crate::service::corpus::structure::{EntityType, RELATION_TYPES};
use crate::service::error::{Result, STANDARD};
use crate::service::open_platform::params::{self, parse_object, Fields};

pub fn body(bytes: &[u8]) -> Result<Map<String, Value>> {
    parse_object(bytes, STANDARD)
}

/// A body's top-level properties: `cursor` defaults to null in every operation that pages.
pub fn fields(map: &Map<String, Value>) -> Fields<'_> {
    Fields::new(map, "", STANDARD).with_null_defaults(&["cursor"])
}

/// A query text of 1-500 characters.
pub fn query_text<'a>(fields: &Fields<'a>, name: &str) -> Result<Option<&'a str>> {
    let Some(text) = fields.string(name)? else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if !QUERY_CHARS.contains(chars) {
        let (min, max) = (QUERY_CHARS.min, QUERY_CHARS.max);
        return Err(fields.invalid(name, format!("must be {min}-{max} characters long (got {chars})")));
    }
    Ok(Some(text))
}

pub fn boolean(fields: &Fields<'_>, name: &str) -> Result<Option<bool>> {
    match fields.get(name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(fields.invalid(name, "must be true or false")),
    }
}

pub fn number(fields: &Fields<'_>, name: &str) -> Result<Option<f64>> {
    match fields.get(name) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(_) => Err(fields.invalid(name, "must be a number")),
    }
}

/// An array of `min` to `max` items, each read by `read` (else refused as not `what`).
fn array<'a, T>(
    fields: &Fields<'a>,
    name: &str,
    (min, max): (usize, usize),
    what: &str,
    read: impl Fn(&'a Value) -> Option<T>,
) -> Result<Option<Vec<T>>> {
    let Some(items) = fields.array(name)? else {
        return Ok(None);
    };
    if items.len() < min || items.len() > max {
        let rule = if min == 0 { format!("at most {max}") } else { format!("{min}-{max}") };
        return Err(fields.invalid(name, format!("must hold {rule} items (got {})", items.len())));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| read(item).ok_or_else(|| fields.invalid(&format!("{name}[{i}]"), format!("must be {what}"))))
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// An array of strings with at most `max` items.
pub fn strings<'a>(fields: &Fields<'a>, name: &str, max: usize) -> Result<Option<Vec<&'a str>>> {
    array(fields, name, (0, max), "a string", Value::as_str)
}

/// An array of integers with 1..=`max` items.
pub fn integers(fields: &Fields<'_>, name: &str, max: usize) -> Result<Option<Vec<i64>>> {
    array(fields, name, (1, max), "an integer", Value::as_i64)
}

/// A list that narrows only when it holds something.
pub fn given<T>(list: &Option<Vec<T>>) -> bool {
    list.as_ref().is_some_and(|l| !l.is_empty())
}

// -- query strings --------------------------------------------------------------------------

/// Refuses query parameters the operation does not take.
pub fn allow_query(query: &[(String, String)], allowed: &[&str]) -> Result<()> {
    match query.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((unknown, _)) => Err(STANDARD.invalid_param(
            unknown,
            format!(
                "unknown query parameter '{unknown}'; allowed: {}",
                if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }
            ),
        )),
        None => Ok(()),
    }
}

/// Every value of a repeated query parameter.
pub fn query_list<'a>(query: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    query.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
}

pub fn query_list_max<'a>(query: &'a [(String, String)], name: &str, max: usize) -> Result<Vec<&'a str>> {
    let values = query_list(query, name);
    if values.len() > max {
        return Err(STANDARD.invalid_param(name, format!("'{name}' takes at most {max} values (got {})", values.len())));
    }
    Ok(values)
}

pub fn query_bool(query: &[(String, String)], name: &str) -> Result<Option<bool>> {
    params::query_bool(query, name, STANDARD)
}

pub use crate::service::open_platform::params::{query_bounded, query_int};

// -- taxonomy --------------------------------------------------------------------------------

pub fn entity_type(name: &str) -> Option<EntityType> {
    EntityType::ALL.into_iter().find(|t| t.as_str() == name)
}

fn all_subtypes() -> impl Iterator<Item = &'static str> {
    EntityType::ALL.into_iter().flat_map(|t| t.subtypes().iter().copied())
}

pub fn check_entity_types(param: &str, values: &[&str]) -> Result<Vec<EntityType>> {
    values
        .iter()
        .map(|v| {
            entity_type(v).ok_or_else(|| {
                let known: Vec<&str> = EntityType::ALL.iter().map(|t| t.as_str()).collect();
                STANDARD.invalid_param(
                    param,
                    format!("'{param}' holds '{v}', not a public entity type ({})", known.join(", ")),
                )
            })
        })
        .collect()
}

pub fn check_entity_subtypes(param: &str, values: &[&str]) -> Result<()> {
    for v in values {
        if !all_subtypes().any(|s| s == *v) {
            let known: Vec<&str> = all_subtypes().collect();
            return Err(STANDARD.invalid_param(
                param,
                format!("'{param}' holds '{v}', not a public entity subtype ({})", known.join(", ")),
            ));
        }
    }
    Ok(())
}

pub fn check_relation_types(param: &str, values: &[&str]) -> Result<()> {
    for v in values {
        if !RELATION_TYPES.contains(v) {
            return Err(STANDARD.invalid_param(
                param,
                format!(
                    "'{param}' holds '{v}', not a relation type of the capability taxonomy ({})",
                    RELATION_TYPES.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

pub fn check_groups(fields: &Fields<'_>, groups: &[&str]) -> Result<()> {
    let count = lists::EVIDENCE_GROUPS;
    if !count.contains(groups.len()) {
        let (min, max, n) = (count.min, count.max, groups.len());
        return Err(fields.invalid("groups", format!("must hold {min}-{max} evidence groups (got {n})")));
    }
    for (i, group) in groups.iter().enumerate() {
        if !EVIDENCE_GROUPS.contains(group) {
            return Err(fields.invalid(
                &format!("groups[{i}]"),
                format!("must be one of {} (got '{group}')", EVIDENCE_GROUPS.join(", ")),
            ));
        }
    }
    Ok(())
}
