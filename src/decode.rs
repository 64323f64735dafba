//! JSON bytes straight into Python objects (jiter), without an intermediate Rust value.

use jiter::{FloatMode, PartialMode, PythonParse, StringCacheMode};
use paperlens_core::{ApiResponse, Error};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::to_py_err;

const PARSER: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::Keys,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// A successful JSON answer: decoded into `(object, request_id)` when it reaches Python.
pub struct JsonAnswer(pub ApiResponse);

impl<'py> IntoPyObject<'py> for JsonAnswer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let response = self.0;
        let value = PARSER.python_parse(py, &response.body).map_err(|e| {
            let error = Error::Decode {
                message: format!("the body is not valid JSON ({e}); it starts with {:?}", head(&response.body)),
                request_id: response.request_id.clone(),
                status: response.status,
            };
            to_py_err(py, error)
        })?;
        (value, response.request_id).into_pyobject(py).map(Bound::into_any)
    }
}

/// A successful binary answer: `(data, content_type, content_disposition, request_id)`.
pub struct BytesAnswer(pub ApiResponse);

impl<'py> IntoPyObject<'py> for BytesAnswer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let response = self.0;
        let content_type = response.header("content-type").map(str::to_string);
        let disposition = response.header("content-disposition").map(str::to_string);
        let data = PyBytes::new(py, &response.body);
        (data, content_type, disposition, response.request_id).into_pyobject(py).map(Bound::into_any)
    }
}

fn head(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned()
}
