//! Every operation by its name: parameters in, a validated [`ApiRequest`] out.

use std::fmt;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value};

use crate::error::Error;
use crate::open_platform as op;
use crate::paper_schema as ps;
use crate::request::ApiRequest;
use crate::request_type::{read, NOT_FINITE};

/// Builds the request of operation `name` (the Python method name) from `params`.
/// With `validate` false the bounds are not checked and the request is sent as given.
pub fn prepare<'de, D: Deserializer<'de>>(name: &str, params: D, validate: bool) -> Result<ApiRequest, Error> {
    if name.starts_with("schema.") {
        ps::prepare(name, params, validate)
    } else {
        op::prepare(name, params, validate)
    }
}

/// The parameters read as JSON values, each as the caller typed it, before [`prepare`] reads
/// them into a request type: a converter that reads a text as a list of characters, or any
/// value as a boolean by its truth, where the type asks for one (as Python's does) cannot
/// then turn `"year"` into `["y", "e", "a", "r"]`, or `"no"` into `true`.
///
/// A float that is not finite (NaN, an infinity), which JSON cannot carry and `serde_json`'s
/// `Value` would read as null, the parameter dropped unsaid, is refused, naming it.
pub fn as_given<'de, D: Deserializer<'de>>(params: D) -> Result<Value, Error> {
    read::<Given, D>(params).map(|given| given.0)
}

/// A JSON value as `serde_json::Value` reads it, but a float that is not finite is an error.
struct Given(Value);

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Given, D::Error> {
        deserializer.deserialize_any(GivenVisitor).map(Given)
    }
}

struct GivenVisitor;

impl<'de> Visitor<'de> for GivenVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Value, E> {
        Number::deserialize(de::value::I128Deserializer::new(value)).map(Value::Number)
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Value, E> {
        Number::deserialize(de::value::U128Deserializer::new(value)).map(Value::Number)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value).map(Value::Number).ok_or_else(|| E::custom(NOT_FINITE))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Given::deserialize(deserializer).map(|given| given.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut values = Vec::new();
        while let Some(Given(value)) = items.next_element()? {
            values.push(value);
        }
        Ok(Value::Array(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        let mut values = Map::new();
        while let Some((key, Given(value))) = entries.next_entry::<String, Given>()? {
            values.insert(key, value);
        }
        Ok(Value::Object(values))
    }
}

#[cfg(test)]
mod tests {
    use serde::de::value::{Error as ValueError, MapDeserializer, SeqDeserializer};
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_read_as_json_reads_them() {
        let params =
            json!({"query": "coral", "top_k": 5, "big": u64::MAX, "filters": {"year": [2020, -1.5, null, true]}});
        assert_eq!(as_given(params.clone()).unwrap(), params);
    }

    #[test]
    fn a_float_that_is_not_finite_is_refused_naming_its_parameter_not_dropped() {
        for not_finite in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let top_k = MapDeserializer::<_, ValueError>::new([("top_k", not_finite)].into_iter());
            assert_eq!(as_given(top_k).unwrap_err().to_string(), "top_k: must not be NaN or an infinity");
            let listed = SeqDeserializer::<_, ValueError>::new([1.0, not_finite].into_iter());
            let nested = MapDeserializer::<_, ValueError>::new([("values", listed)].into_iter());
            assert_eq!(as_given(nested).unwrap_err().to_string(), "values[1]: must not be NaN or an infinity");
        }
    }
}
