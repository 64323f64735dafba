//! Filter items `{field, operator, value}` compiled against a field table.
//!
//! Lists match when any element matches (`NE` and `NIN`: when none does). `EQ` and `IN`
//! are exact; `CONTAINS` is a case-insensitive substring test; `MATCH` needs every
//! analysed token of the value in the field, `MATCH_PHRASE` the tokens in sequence.
//! Partial dates (`2020`, `2020-05`) cover their whole period: `EQ 2020` is any day of
//! 2020, `GT 2020` starts in 2021.

use paperlens_core::contract::{FILTER_OPERATORS, FILTER_OPERATOR_NAMES};
use serde_json::Value as Json;

use super::fields::{FieldDef, FieldType};
use super::value::Scalar;
use crate::service::corpus::Corpus;
use crate::service::error::{ApiError, Result, META_SEARCH};
use crate::service::search::tokens;

/// The filter operators, in the order of the contract's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    In,
    Nin,
    Contains,
    Match,
    MatchPhrase,
}

impl Op {
    pub const ALL: [Op; 11] =
        [Op::Eq, Op::Ne, Op::Gt, Op::Gte, Op::Lt, Op::Lte, Op::In, Op::Nin, Op::Contains, Op::Match, Op::MatchPhrase];

    /// The operator a request body names (`FILTER_OP_GTE`).
    pub fn parse(wire: &str) -> Option<Op> {
        FILTER_OPERATORS.iter().position(|n| *n == wire).map(|i| Op::ALL[i])
    }

    /// The catalog's name of the operator (`GTE`).
    pub fn short_name(self) -> &'static str {
        FILTER_OPERATOR_NAMES[self as usize]
    }
}

#[derive(Debug, Clone)]
pub enum Operand {
    Text(String),
    Number(f64),
    Bool(bool),
    /// Inclusive range of packed dates (yyyymmdd).
    Dates(u32, u32),
    Tokens(Vec<String>),
    Any(Vec<Operand>),
}

#[derive(Debug, Clone)]
pub struct Filter {
    pub field: usize,
    pub op: Op,
    pub operand: Operand,
}

fn bad(field: &str, rule: impl std::fmt::Display) -> ApiError {
    META_SEARCH.invalid_param("filters", format!("filter on '{field}': {rule}"))
}

/// `yyyy`, `yyyy-MM` or `yyyy-MM-dd` as an inclusive range of packed dates.
pub fn parse_partial_date(text: &str) -> Option<(u32, u32)> {
    let parts: Vec<&str> = text.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let number = |s: &str| s.parse::<u32>().ok();
    match parts.as_slice() {
        [y] if digits(y, 4) => {
            let y = number(y)?;
            Some((y * 10_000 + 101, y * 10_000 + 1231))
        }
        [y, m] if digits(y, 4) && digits(m, 2) => {
            let (y, m) = (number(y)?, number(m)?);
            (1..=12).contains(&m).then_some((y * 10_000 + m * 100 + 1, y * 10_000 + m * 100 + 31))
        }
        [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2) => {
            let (y, m, d) = (number(y)?, number(m)?, number(d)?);
            ((1..=12).contains(&m) && (1..=31).contains(&d))
                .then_some((y * 10_000 + m * 100 + d, y * 10_000 + m * 100 + d))
        }
        _ => None,
    }
}

fn scalar_operand(name: &str, ty: FieldType, op: Op, value: &Json) -> Result<Operand> {
    if matches!(op, Op::Match | Op::MatchPhrase) {
        let text = value.as_str().ok_or_else(|| bad(name, format!("{} needs a string value", op.short_name())))?;
        let mut words = Vec::new();
        tokens(text, &mut words);
        if words.is_empty() {
            return Err(bad(name, format!("{} needs a value with at least one word", op.short_name())));
        }
        return Ok(Operand::Tokens(words));
    }
    if op == Op::Contains {
        let text = value.as_str().ok_or_else(|| bad(name, "CONTAINS needs a string value"))?;
        return Ok(Operand::Text(text.to_lowercase()));
    }
    match ty {
        FieldType::Integer | FieldType::Float => {
            let number = match value {
                Json::Number(n) => n.as_f64(),
                Json::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            };
            number
                .filter(|n| n.is_finite())
                .map(Operand::Number)
                .ok_or_else(|| bad(name, format!("needs a number (got {value})")))
        }
        FieldType::Date => {
            let range = match value {
                Json::String(s) => parse_partial_date(s),
                Json::Number(n) => n.as_u64().filter(|y| (1000..=9999).contains(y)).map(|y| {
                    let y = y as u32;
                    (y * 10_000 + 101, y * 10_000 + 1231)
                }),
                _ => None,
            };
            range
                .map(|(lo, hi)| Operand::Dates(lo, hi))
                .ok_or_else(|| bad(name, format!("needs a date yyyy, yyyy-MM or yyyy-MM-dd (got {value})")))
        }
        FieldType::Boolean => match value {
            Json::Bool(b) => Ok(Operand::Bool(*b)),
            Json::String(s) if s == "true" || s == "false" => Ok(Operand::Bool(s == "true")),
            _ => Err(bad(name, format!("needs true or false (got {value})"))),
        },
        _ => match value {
            Json::String(s) => Ok(Operand::Text(s.clone())),
            Json::Number(n) => Ok(Operand::Text(n.to_string())),
            Json::Bool(b) => Ok(Operand::Text(b.to_string())),
            _ => Err(bad(name, format!("needs a string (got {value})"))),
        },
    }
}

pub fn compile<R>(field: usize, def: &FieldDef<R>, op: Op, value: &Json) -> Result<Filter> {
    if !def.ty.operators().contains(&op.short_name()) {
        return Err(bad(
            def.name,
            format!(
                "operator FILTER_OP_{} is not supported for {} fields (use one of {})",
                op.short_name(),
                def.ty.as_str(),
                def.ty.operators().join(", ")
            ),
        ));
    }
    let operand = match op {
        Op::In | Op::Nin => {
            let items = value
                .as_array()
                .ok_or_else(|| bad(def.name, format!("FILTER_OP_{} needs an array value", op.short_name())))?;
            if items.len() > 1024 {
                return Err(bad(def.name, "at most 1024 values"));
            }
            Operand::Any(items.iter().map(|v| scalar_operand(def.name, def.ty, Op::Eq, v)).collect::<Result<_>>()?)
        }
        _ => {
            if value.is_array() || value.is_object() || value.is_null() {
                return Err(bad(def.name, format!("FILTER_OP_{} needs a single value", op.short_name())));
            }
            scalar_operand(def.name, def.ty, op, value)?
        }
    };
    Ok(Filter { field, op, operand })
}

fn equals(scalar: Scalar<'_>, operand: &Operand) -> bool {
    match (scalar, operand) {
        (Scalar::Str(s), Operand::Text(t)) => s == t,
        (Scalar::Bool(b), Operand::Bool(c)) => b == *c,
        (Scalar::Date(d), Operand::Dates(lo, hi)) => (*lo..=*hi).contains(&d.packed()),
        (s, Operand::Number(n)) => s.number().is_some_and(|x| (x - n).abs() < 1e-9),
        (s, Operand::Any(items)) => items.iter().any(|o| equals(s, o)),
        _ => false,
    }
}

fn compare(scalar: Scalar<'_>, op: Op, operand: &Operand) -> bool {
    let (value, lo, hi) = match (scalar, operand) {
        (Scalar::Date(d), Operand::Dates(lo, hi)) => (d.packed() as f64, *lo as f64, *hi as f64),
        (s, Operand::Number(n)) => match s.number() {
            Some(x) => (x, *n, *n),
            None => return false,
        },
        _ => return false,
    };
    match op {
        Op::Gt => value > hi,
        Op::Gte => value >= lo,
        Op::Lt => value < lo,
        Op::Lte => value <= hi,
        _ => false,
    }
}

fn text_matches(scalar: Scalar<'_>, op: Op, operand: &Operand) -> bool {
    let Scalar::Str(text) = scalar else {
        return false;
    };
    match operand {
        Operand::Text(needle) => text.to_lowercase().contains(needle.as_str()),
        Operand::Tokens(wanted) => {
            let mut words = Vec::new();
            tokens(text, &mut words);
            if op == Op::MatchPhrase {
                words.windows(wanted.len()).any(|w| w == wanted.as_slice())
            } else {
                wanted.iter().all(|t| words.contains(t))
            }
        }
        _ => false,
    }
}

pub fn matches<R>(filter: &Filter, table: &'static [FieldDef<R>], corpus: &Corpus, record: &R) -> bool {
    let value = (table[filter.field].get)(corpus, record);
    let operand = &filter.operand;
    match filter.op {
        Op::Eq | Op::In => value.any(|s| equals(s, operand)),
        Op::Ne | Op::Nin => !value.any(|s| equals(s, operand)),
        Op::Gt | Op::Gte | Op::Lt | Op::Lte => value.any(|s| compare(s, filter.op, operand)),
        Op::Contains | Op::Match | Op::MatchPhrase => value.any(|s| text_matches(s, filter.op, operand)),
    }
}
