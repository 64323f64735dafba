//! Every operation by its name: parameters in, a validated [`ApiRequest`] out.

use serde::Deserializer;

use crate::error::Error;
use crate::open_platform as op;
use crate::paper_schema as ps;
use crate::request::ApiRequest;
use crate::request_type::read;

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
pub fn as_given<'de, D: Deserializer<'de>>(params: D) -> Result<serde_json::Value, Error> {
    read(params)
}
