//! JSON bytes straight into Python objects (jiter), without an intermediate Rust value.

use std::ops::Range;

use jiter::{FloatMode, Jiter, JiterResult, PartialMode, Peek, PythonParse, StringCacheMode};
use paperlens_core::{decode_replacing_lone_surrogates, ApiResponse, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::to_py_err;
use crate::json::loads;
use crate::rows::{scan_row, RowSpan};

const PARSER: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::All,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// A successful JSON answer: decoded into `(object, request_id)` when it reaches Python.
///
/// For a page (`meta_search`), the rows of the top-level list `results` are left
/// undecoded: each reaches Python as a [`Row`](crate::rows::Row) (its JSON text and where each property is),
/// and the result types decode a field when it is first read. The body is checked and cut
/// into its parts here, on the thread that received it and without the GIL; only building
/// the Python objects waits for the GIL.
pub struct JsonAnswer {
    response: ApiResponse,
    page: Option<Page>,
}

/// The top-level members of a checked page, in order, each with where its JSON is.
type Page = Vec<(String, Member)>;

enum Member {
    Value(Range<usize>),
    /// The undecoded rows: each element of the list.
    Rows(Vec<RowSpan>),
}

/// The name of the list whose rows `operation`'s answer leaves undecoded, if any.
pub fn page_rows(operation: &str) -> Option<&'static str> {
    match operation {
        "meta_search" => Some("results"),
        _ => None,
    }
}

impl JsonAnswer {
    /// `rows`: what [`page_rows`] gives for the operation.
    pub fn new(rows: Option<&'static str>, mut response: ApiResponse) -> JsonAnswer {
        let page = rows.and_then(|rows| decoded(&mut response, |body| scan_page(body, rows).ok_or(())).ok());
        JsonAnswer { response, page }
    }
}

/// `decode(body)`; when that fails and the body holds lone surrogate escapes, `decode` of the
/// body with each replaced by `\uFFFD` (which then becomes the body): a lone surrogate reads
/// as U+FFFD, and costs nothing to an answer that has none.
fn decoded<T, E>(response: &mut ApiResponse, decode: impl Fn(&[u8]) -> Result<T, E>) -> Result<T, E> {
    let (value, fixed) = decode_replacing_lone_surrogates(&response.body, decode)?;
    if let Some(fixed) = fixed {
        response.body = fixed.into();
    }
    Ok(value)
}

impl<'py> IntoPyObject<'py> for JsonAnswer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut response = self.response;
        let value = match self.page.map(|page| build_page(py, &response.body, page)) {
            Some(value) => value?,
            None => decoded(&mut response, |body| PARSER.python_parse(py, body)).map_err(|e| {
                let error = Error::Decode {
                    message: format!("the body is not valid JSON ({e}); it starts with {:?}", head(&response.body)),
                    request_id: response.request_id.clone(),
                    status: response.status,
                };
                to_py_err(py, error)
            })?,
        };
        (value, response.request_id).into_pyobject(py).map(Bound::into_any)
    }
}

/// Checks a page (valid UTF-8 and JSON, a top-level object) and finds its parts; `None`
/// for anything else, which is then decoded whole so that the error says what is wrong.
fn scan_page(body: &[u8], rows_key: &str) -> Option<Page> {
    std::str::from_utf8(body).ok()?;
    let mut jiter = Jiter::new(body);
    let mut page = Page::new();
    let mut key = jiter.next_object().ok()?.map(str::to_owned);
    while let Some(name) = key {
        let start = jiter.current_index();
        let member = if name == rows_key && jiter.peek().ok()? == Peek::Array {
            Member::Rows(row_spans(&mut jiter, body).ok()?)
        } else {
            jiter.next_skip().ok()?;
            Member::Value(start..jiter.current_index())
        };
        page.push((name, member));
        key = jiter.next_key().ok()?.map(str::to_owned);
    }
    jiter.finish().ok()?;
    Some(page)
}

fn row_spans(jiter: &mut Jiter, body: &[u8]) -> JiterResult<Vec<RowSpan>> {
    let mut rows = Vec::new();
    let mut expected = 0;
    let mut next = jiter.known_array()?;
    while let Some(peek) = next {
        let row = scan_row(jiter, body, peek, expected)?;
        if let RowSpan::Object(row) = &row {
            expected = row.properties();
        }
        rows.push(row);
        next = jiter.array_step()?;
    }
    Ok(rows)
}

/// The page as a dict; its rows that are objects are [`Row`](crate::rows::Row)s (anything else decoded).
fn build_page<'py>(py: Python<'py>, body: &[u8], page: Page) -> PyResult<Bound<'py, PyAny>> {
    let object = PyDict::new(py);
    for (name, member) in page {
        match member {
            Member::Value(span) => object.set_item(name, loads(py, &body[span])?)?,
            Member::Rows(rows) => {
                let list = PyList::empty(py);
                for row in rows {
                    match row {
                        RowSpan::Object(row) => list.append(row)?,
                        RowSpan::Other(span) => list.append(loads(py, &body[span])?)?,
                    }
                }
                object.set_item(name, list)?;
            }
        }
    }
    Ok(object.into_any())
}

/// A successful binary answer: `(data, content_type, content_disposition, request_id)`.
pub struct BytesAnswer(pub ApiResponse);

impl<'py> IntoPyObject<'py> for BytesAnswer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let response = self.0;
        let content_type = header_text(&response, "content-type");
        let disposition = header_text(&response, "content-disposition");
        let data = PyBytes::new(py, &response.body);
        (data, content_type, disposition, response.request_id).into_pyobject(py).map(Bound::into_any)
    }
}

/// The text of a response header, whatever bytes it holds (`HeaderValue::to_str` takes visible
/// ASCII only): UTF-8 when the bytes are, else ISO-8859-1, one character per byte (what HTTP
/// calls obs-text; a quoted `filename` of RFC 6266 may hold ISO-8859-1 text).
pub fn header_text(response: &ApiResponse, name: &str) -> Option<String> {
    response.headers.get(name).map(|value| utf8_or_latin1(value.as_bytes()))
}

fn utf8_or_latin1(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&byte| char::from(byte)).collect(),
    }
}

fn head(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::utf8_or_latin1;

    #[test]
    fn header_bytes_are_read_as_utf8_else_latin1() {
        assert_eq!(utf8_or_latin1(b"attachment; filename=\"a.png\""), "attachment; filename=\"a.png\"");
        assert_eq!(utf8_or_latin1("inline; filename=\"图 2.jpg\"".as_bytes()), "inline; filename=\"图 2.jpg\"");
        assert_eq!(utf8_or_latin1(b"inline; filename=\"\xa3 \xafx\""), "inline; filename=\"\u{a3} \u{af}x\"");
        assert_eq!(utf8_or_latin1(b""), "");
    }
}
