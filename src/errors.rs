//! The one conversion from core errors to the exceptions of `paperlens.errors`.

use paperlens_core::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::UNIX_EPOCH;

/// A core error on its way to Python, as polars' `PyPolarsErr`: `?` turns an [`Error`] into
/// it in code returning `Result<_, PyPaperlensErr>`, and it into a `PyErr` in code returning
/// `PyResult` (`.map_err(PyPaperlensErr::from)?` for an `Error` there).
pub struct PyPaperlensErr(Error);

impl From<Error> for PyPaperlensErr {
    fn from(error: Error) -> PyPaperlensErr {
        PyPaperlensErr(error)
    }
}

/// Attaches to the interpreter when the thread is not attached already (tokio threads).
impl From<PyPaperlensErr> for PyErr {
    fn from(error: PyPaperlensErr) -> PyErr {
        Python::attach(|py| to_py_err(py, error.0))
    }
}

/// `text` with the API token of every client of this process (as given or URL-encoded)
/// replaced by `***`: what the Python layer applies to the errors it raises from answers.
#[pyfunction]
pub fn redact(text: &str) -> String {
    paperlens_core::error::redact(text).into_owned()
}

/// Builds the Python exception for `error`; `paperlens.errors._from_native` picks the class.
/// Every text is redacted (the transport already did; decoding errors come here directly).
pub fn to_py_err(py: Python<'_>, error: Error) -> PyErr {
    let error = error.redacted();
    match build(py, &error) {
        Ok(exception) => PyErr::from_value(exception),
        Err(failed) => failed,
    }
}

fn build<'py>(py: Python<'py>, error: &Error) -> PyResult<Bound<'py, PyAny>> {
    let fields = PyDict::new(py);
    if let Some(request_id) = error.request_id() {
        fields.set_item("request_id", request_id)?;
    }
    let kind = match error {
        Error::Configuration(_) => "configuration",
        Error::Validation { param, rule, value } => {
            fields.set_item("param", param)?;
            fields.set_item("rule", rule)?;
            fields.set_item("value", value)?;
            "validation"
        }
        Error::Api(api) => {
            fields.set_item("status", api.status)?;
            fields.set_item("code", &api.code)?;
            fields.set_item("api_message", &api.message)?;
            fields.set_item("details", pythonize::pythonize(py, &api.details)?)?;
            fields.set_item("retry_after", api.retry_after)?;
            let retry_at = api.retry_at.map(|at| at.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64());
            fields.set_item("retry_at", retry_at)?;
            "api"
        }
        Error::Timeout { .. } => "timeout",
        Error::Connection { .. } => "connection",
        Error::Decode { status, .. } => {
            fields.set_item("status", status)?;
            "decode"
        }
        Error::TooLarge { status, bound, limit, .. } => {
            fields.set_item("status", status)?;
            fields.set_item("bound", bound)?;
            fields.set_item("limit", limit)?;
            "too_large"
        }
        Error::Io { errno, .. } => {
            fields.set_item("errno", errno)?;
            "io"
        }
    };
    let from_native = py.import("paperlens.errors")?.getattr("_from_native")?;
    from_native.call1((kind, error.to_string(), fields))
}
