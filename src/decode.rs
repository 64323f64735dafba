//! JSON bytes straight into Python objects (jiter), without an intermediate Rust value.

use jiter::{FloatMode, Jiter, PartialMode, Peek, PythonParse, StringCacheMode};
use paperlens_core::{ApiResponse, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::to_py_err;

const PARSER: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::All,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// A successful JSON answer: decoded into `(object, request_id)` when it reaches Python.
///
/// `rows` names a top-level list of objects left undecoded: each of its objects reaches
/// Python as the `bytes` of its JSON text, and the result types decode one when it is
/// first read (a 200-record page costs a scan instead of 200 records' worth of objects).
pub struct JsonAnswer {
    pub response: ApiResponse,
    pub rows: Option<&'static str>,
}

impl JsonAnswer {
    pub fn new(operation: &str, response: ApiResponse) -> JsonAnswer {
        let rows = match operation {
            "meta_search" => Some("results"),
            _ => None,
        };
        JsonAnswer { response, rows }
    }
}

impl<'py> IntoPyObject<'py> for JsonAnswer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let response = self.response;
        let lazy = self.rows.filter(|_| std::str::from_utf8(&response.body).is_ok());
        if let Some(Ok(value)) = lazy.map(|rows| decode_with_raw_rows(py, &response.body, rows)) {
            return (value, response.request_id).into_pyobject(py).map(Bound::into_any);
        }
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

/// Decodes a top-level object, except the objects of its list `rows`, which stay JSON text.
/// Any surprise (not an object, invalid JSON) is an error: the caller then decodes the
/// whole body eagerly, which reports it.
fn decode_with_raw_rows<'py>(py: Python<'py>, body: &[u8], rows: &str) -> Result<Bound<'py, PyAny>, ()> {
    let mut jiter = Jiter::new(body);
    let object = PyDict::new(py);
    let mut key = jiter.next_object().map_err(drop)?.map(str::to_owned);
    while let Some(name) = key {
        let value = if name == rows && jiter.peek().map_err(drop)? == Peek::Array {
            raw_rows(py, &mut jiter, body)?.into_any()
        } else {
            let start = jiter.current_index();
            jiter.next_skip().map_err(drop)?;
            PARSER.python_parse(py, &body[start..jiter.current_index()]).map_err(drop)?
        };
        object.set_item(name, value).map_err(drop)?;
        key = jiter.next_key().map_err(drop)?.map(str::to_owned);
    }
    jiter.finish().map_err(drop)?;
    Ok(object.into_any())
}

/// The elements of the array at the cursor: objects as `bytes`, anything else decoded.
fn raw_rows<'py>(py: Python<'py>, jiter: &mut Jiter, body: &[u8]) -> Result<Bound<'py, PyList>, ()> {
    let list = PyList::empty(py);
    let mut next = jiter.known_array().map_err(drop)?;
    while let Some(peek) = next {
        let start = jiter.current_index();
        jiter.known_skip(peek).map_err(drop)?;
        let text = &body[start..jiter.current_index()];
        let item = match peek {
            Peek::Object => PyBytes::new(py, text).into_any(),
            _ => PARSER.python_parse(py, text).map_err(drop)?,
        };
        list.append(item).map_err(drop)?;
        next = jiter.array_step().map_err(drop)?;
    }
    Ok(list)
}

/// Decodes JSON text (a row that [`JsonAnswer`] left undecoded).
#[pyfunction]
pub fn loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    PARSER.python_parse(py, data).map_err(|e| jiter::map_json_error(data, &e))
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
