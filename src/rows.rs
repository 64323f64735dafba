//! The rows of a large page, left undecoded until read: each holds its JSON text and where
//! each property's value is in it, so that reading a field decodes that value alone.

use std::collections::HashMap;
use std::ops::Range;

use jiter::{Jiter, JiterResult, Peek};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple, PyType};
use pyo3::{ffi, intern};

use paperlens_core::decode_replacing_lone_surrogates;

use crate::json::loads;
use crate::objects::{new_bytes, new_dict, new_list, new_text, new_tuple};

/// One property of a row: the bytes of its name (between the quotes) and of its value.
#[derive(Clone, Copy)]
struct Property {
    name: (u32, u32),
    value: (u32, u32),
}

/// An element of a page's list of rows: an object (left undecoded) or any other value.
pub enum RowSpan {
    Object(Row),
    Other(Range<usize>),
}

/// Scans one element of an array (the jiter stands at it, `peek` its kind): an object becomes
/// a [`Row`] (its text copied, its properties found on the way), anything else says where it is.
/// `expected`: how many properties the row likely has (the rows of a page are alike).
pub fn scan_row(jiter: &mut Jiter, body: &[u8], peek: Peek, expected: usize) -> JiterResult<RowSpan> {
    let start = jiter.current_index();
    if peek != Peek::Object {
        jiter.known_skip(peek)?;
        return Ok(RowSpan::Other(start..jiter.current_index()));
    }
    let mut properties = Some(Vec::with_capacity(expected));
    let mut name = jiter.next_object_bytes()?.map(|name| span_in(body, name));
    while let Some((name_start, name_end)) = name {
        let value_start = jiter.current_index();
        jiter.next_skip()?;
        let value_end = jiter.current_index();
        let plain = !body[name_start..name_end].contains(&b'\\');
        properties = properties.filter(|_| plain).map(|mut list| {
            list.push(Property {
                name: relative(start, name_start, name_end),
                value: relative(start, value_start, value_end),
            });
            list
        });
        name = jiter.next_key_bytes()?.map(|name| span_in(body, name));
    }
    let text: Box<[u8]> = body[start..jiter.current_index()].into();
    let fits = u32::try_from(text.len()).is_ok();
    Ok(RowSpan::Object(Row { text, properties: properties.filter(|_| fits) }))
}

/// Where `part` (a slice of `body`) is in `body`.
fn span_in(body: &[u8], part: &[u8]) -> (usize, usize) {
    let start = part.as_ptr() as usize - body.as_ptr() as usize;
    (start, start + part.len())
}

fn relative(row_start: usize, start: usize, end: usize) -> (u32, u32) {
    ((start - row_start) as u32, (end - row_start) as u32)
}

/// A row of a page whose JSON text is decoded when it is read: the whole object
/// ([`Row::loads`]), or one property ([`Row::get`], and [`LazyField`] for the fields of a
/// result type). Immutable; pickled as its text.
#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct Row {
    text: Box<[u8]>,
    properties: Option<Vec<Property>>,
}

impl Row {
    fn from_text(text: &[u8]) -> PyResult<Row> {
        let mut jiter = Jiter::new(text);
        let peek = jiter.peek().map_err(|e| PyValueError::new_err(e.description(&jiter)))?;
        if peek != Peek::Object {
            return Err(PyValueError::new_err("a row is the JSON text of an object"));
        }
        match scan_row(&mut jiter, text, peek, 0).and_then(|row| jiter.finish().map(|()| row)) {
            Ok(RowSpan::Object(row)) => Ok(row),
            Ok(RowSpan::Other(_)) => unreachable!("an object was peeked"),
            Err(e) => Err(PyValueError::new_err(e.description(&jiter))),
        }
    }

    /// How many properties this row has, when it knows.
    pub fn properties(&self) -> usize {
        self.properties.as_ref().map_or(0, Vec::len)
    }

    /// The JSON text of the value of property `name` (the last one of that name, as a
    /// decoder keeps); `None` when absent; `Err` when this row can only be decoded whole.
    fn value(&self, name: &[u8]) -> Result<Option<&[u8]>, ()> {
        let properties = self.properties.as_deref().ok_or(())?;
        let text = &self.text[..];
        let found = properties.iter().rev().find(|p| &text[p.name.0 as usize..p.name.1 as usize] == name);
        Ok(found.map(|p| &text[p.value.0 as usize..p.value.1 as usize]))
    }
}

#[pymethods]
impl Row {
    /// A row from the JSON text of an object (how a pickled row comes back); a lone surrogate
    /// escape in it reads as U+FFFD, as in an answer.
    #[new]
    fn py_new(text: &[u8]) -> PyResult<Row> {
        decode_replacing_lone_surrogates(text, Row::from_text).map(|(row, _)| row)
    }

    /// The whole object, decoded; the value of a property named in `ints` that is a string
    /// (an integer sent as digits) or a float becomes `convert(value, request_id)`.
    #[pyo3(signature = (ints=None, convert=None, request_id=None))]
    fn loads<'py>(
        &self,
        py: Python<'py>,
        ints: Option<&Bound<'py, PyTuple>>,
        convert: Option<&Bound<'py, PyAny>>,
        request_id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = loads(py, &self.text)?;
        if let (Some(ints), Some(convert), Ok(object)) = (ints, convert, value.cast::<PyDict>()) {
            for name in ints {
                if let Some(found) = object.get_item(&name)?.filter(|v| not_int(v)) {
                    object.set_item(&name, convert.call1((found, request_id))?)?;
                }
            }
        }
        Ok(value)
    }

    /// The decoded value of property `name`; `default` when the row has none.
    #[pyo3(signature = (name, default=None))]
    fn get<'py>(&self, py: Python<'py>, name: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let text = match self.value(name.as_bytes()) {
            Ok(text) => text,
            Err(()) => {
                return Ok(loads(py, &self.text)?
                    .get_item(name)
                    .ok()
                    .or(default)
                    .unwrap_or_else(|| py.None().into_bound(py)))
            }
        };
        match (text, default) {
            (Some(text), _) => loads(py, text),
            (None, Some(default)) => Ok(default),
            (None, None) => Ok(py.None().into_bound(py)),
        }
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        new_bytes(py, &self.text)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let text = new_bytes(py, &slf.get().text)?;
        new_tuple(py, [slf.get_type().into_any(), new_tuple(py, [text.into_any()])?.into_any()])
    }

    fn __repr__(&self) -> String {
        format!("Row({} bytes)", self.text.len())
    }
}

/// A field of the result type of undecoded rows (a class attribute): reading it on a row
/// decodes that value alone and keeps it in the instance `__dict__`, where later reads find
/// it first. A row that can only be decoded whole, and reads on the class, go to `whole`.
#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct LazyField {
    name: Py<PyString>,
    /// What an absent or null value reads as (`[]` for a list of resources is made afresh).
    empty_list: bool,
    /// `(value, request_id) -> typed value`, for a value that is not null: integers sent as
    /// strings, nested resources; `int_only` calls it for strings and floats alone.
    convert: Option<Py<PyAny>>,
    int_only: bool,
    /// `(obj, owner, name) -> value`: decodes the row whole and reads the field.
    whole: Py<PyAny>,
}

#[pymethods]
impl LazyField {
    #[new]
    fn new(
        name: Bound<'_, PyString>,
        empty_list: bool,
        convert: Option<Py<PyAny>>,
        int_only: bool,
        whole: Py<PyAny>,
    ) -> LazyField {
        LazyField { name: name.unbind(), empty_list, convert, int_only, whole }
    }

    fn __get__<'py>(&self, obj: Option<Bound<'py, PyAny>>, owner: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = owner.py();
        let name = self.name.bind(py);
        let whole = || self.whole.bind(py).call1((obj.as_ref(), &owner, name));
        let Some(obj) = obj.as_ref() else { return whole() };
        let raw = obj.getattr(intern!(py, "_raw"))?;
        let Ok(row) = raw.cast::<Row>() else { return whole() };
        let Ok(text) = row.get().value(name.to_str()?.as_bytes()) else { return whole() };
        let mut value = match text {
            Some(text) => loads(py, text)?,
            None => py.None().into_bound(py),
        };
        if value.is_none() {
            if self.empty_list {
                value = new_list(py, std::iter::empty())?.into_any();
            }
        } else if let Some(convert) = &self.convert {
            if !self.int_only || not_int(&value) {
                value = convert.bind(py).call1((value, obj.getattr(intern!(py, "_request_id"))?))?;
            }
        }
        // Into the instance dict itself: the type's `__dict__` (a property of undecoded rows)
        // would decode the whole row.
        generic_set(obj, name, &value)?;
        Ok(value)
    }
}

/// Whether an integer field's value needs its conversion: digits sent as a string, or a
/// float (`1e3` becomes an int; `12.5` and `1e400`, infinity, are refused).
fn not_int(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyString>() || value.is_instance_of::<PyFloat>()
}

/// The results of a list of resources: each [`Row`] of `values` a new instance of `undecoded`
/// (the hidden class of undecoded rows) holding it, its state set as `Model` sets it (`_absent`
/// to `nothing`), and any other value `build(value, request_id)`. One call for a page's rows.
#[pyfunction]
pub fn undecoded_rows<'py>(
    undecoded: &Bound<'py, PyType>,
    values: &Bound<'py, PyList>,
    request_id: &Bound<'py, PyAny>,
    nothing: &Bound<'py, PyAny>,
    build: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let py = undecoded.py();
    check_plain_class(undecoded)?;
    let none = py.None().into_bound(py);
    let state =
        [(intern!(py, "_absent"), nothing), (intern!(py, "_moved"), &none), (intern!(py, "_request_id"), request_id)];
    let results = values.iter().map(|value| {
        if !value.is_instance_of::<Row>() {
            return build.call1((value, request_id));
        }
        // What `object.__new__(undecoded)` and `object.__setattr__` do, without a call each.
        let object = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyType_GenericAlloc(undecoded.as_type_ptr(), 0))? };
        generic_set(&object, intern!(py, "_raw"), &value)?;
        for (name, slot) in &state {
            generic_set(&object, name, slot)?;
        }
        Ok(object)
    });
    new_list(py, results.collect::<PyResult<Vec<_>>>()?.into_iter())
}

/// Fails unless `object.__new__(class)` may make an instance, as `undecoded_rows` makes each
/// (its raw allocation would crash on the instances of a `dict` or an extension type).
fn check_plain_class(class: &Bound<'_, PyType>) -> PyResult<()> {
    let py = class.py();
    match py.get_type::<PyAny>().call_method1(intern!(py, "__new__"), (class,)) {
        Err(error) if error.is_instance_of::<PyTypeError>(py) => Err(PyTypeError::new_err(format!(
            "undecoded_rows() needs the undecoded class of a result type (a plain Python class), not {}: {}",
            class.fully_qualified_name()?,
            error.value(py),
        ))),
        other => other.map(drop),
    }
}

/// `object.__setattr__(object, name, value)`: past a frozen class's `__setattr__`.
fn generic_set(object: &Bound<'_, PyAny>, name: &Bound<'_, PyString>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    match unsafe { ffi::PyObject_GenericSetAttr(object.as_ptr(), name.as_ptr(), value.as_ptr()) } {
        0 => Ok(()),
        _ => Err(PyErr::fetch(object.py())),
    }
}

/// The properties of `rows` as columns, `{name: [value of each row, None where it has none]}`,
/// names in first-seen order: each value is decoded straight from its row's text, with no
/// dict made per row (what a DataFrame of a harvest needs). A column named in `strings` whose
/// values are all strings or null comes as Arrow `large_string` buffers instead,
/// `(null_count, validity, offsets, data)`, with no Python string made. `None` when a row
/// can only be decoded whole.
#[pyfunction]
pub fn columns<'py>(
    py: Python<'py>,
    rows: Vec<Bound<'py, Row>>,
    strings: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let rows: Vec<&Row> = rows.iter().map(Bound::get).collect();
    let Some(found) = spans(&rows) else { return Ok(None) };
    let out = new_dict(py)?;
    for (name, values) in found {
        let name = std::str::from_utf8(name).map_err(|_| PyValueError::new_err("a property name is not UTF-8"))?;
        let key = new_text(py, name)?;
        let arrow = match strings.contains(&key)? {
            true => arrow_strings(&values),
            false => None,
        };
        match arrow {
            Some(a) => {
                let [validity, offsets, data] = [a.validity, a.offsets, a.data].map(|buffer| new_bytes(py, &buffer));
                let buffers = new_tuple(py, [validity?.into_any(), offsets?.into_any(), data?.into_any()])?;
                let nulls = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromSize_t(a.nulls))? };
                out.set_item(key, new_tuple(py, [nulls, buffers.into_any()])?)?
            }
            None => {
                let decoded = values.iter().map(|value| match value {
                    Some(text) => loads(py, text),
                    None => Ok(py.None().into_bound(py)),
                });
                out.set_item(key, new_list(py, decoded.collect::<PyResult<Vec<_>>>()?.into_iter())?)?
            }
        }
    }
    Ok(Some(out))
}

/// Each property name of `rows` (first-seen order) with the text of its value in each row.
type Spans<'a> = Vec<(&'a [u8], Vec<Option<&'a [u8]>>)>;

fn spans<'a>(rows: &[&'a Row]) -> Option<Spans<'a>> {
    let mut at: HashMap<&[u8], usize> = HashMap::new();
    let mut found: Spans<'a> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for p in row.properties.as_deref()? {
            let name = &row.text[p.name.0 as usize..p.name.1 as usize];
            let column = *at.entry(name).or_insert_with(|| {
                found.push((name, vec![None; rows.len()]));
                found.len() - 1
            });
            found[column].1[i] = Some(&row.text[p.value.0 as usize..p.value.1 as usize]);
        }
    }
    Some(found)
}

/// The buffers of an Arrow `large_string` array.
struct ArrowStrings {
    nulls: usize,
    validity: Vec<u8>,
    offsets: Vec<u8>,
    data: Vec<u8>,
}

/// Arrow `large_string` buffers of values that are all JSON strings or null, else `None`.
fn arrow_strings(values: &[Option<&[u8]>]) -> Option<ArrowStrings> {
    let mut validity = vec![0u8; values.len().div_ceil(8)];
    let mut offsets: Vec<u8> = Vec::with_capacity((values.len() + 1) * 8);
    let mut data = Vec::new();
    let mut nulls = 0;
    offsets.extend_from_slice(&0i64.to_le_bytes());
    for (i, value) in values.iter().enumerate() {
        match value.map(|text| text.trim_ascii_start()) {
            None => nulls += 1,
            Some(text) if text.starts_with(b"null") => nulls += 1,
            Some(text) if text.starts_with(b"\"") => {
                data.extend_from_slice(Jiter::new(text).next_str().ok()?.as_bytes());
                validity[i / 8] |= 1 << (i % 8);
            }
            Some(_) => return None,
        }
        offsets.extend_from_slice(&(data.len() as i64).to_le_bytes());
    }
    Some(ArrowStrings { nulls, validity, offsets, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(text: &str) -> Row {
        let mut jiter = Jiter::new(text.as_bytes());
        let peek = jiter.peek().unwrap();
        match scan_row(&mut jiter, text.as_bytes(), peek, 0).unwrap() {
            RowSpan::Object(row) => row,
            RowSpan::Other(_) => panic!("not an object"),
        }
    }

    #[test]
    fn a_property_is_found_by_name_the_last_one_winning() {
        let row = row(r#"{ "title" : "a", "n": [1, {"title": "inner"}], "title": "b" }"#);
        // The text of a value may start with the whitespace after the colon (decoders skip it).
        let value = |name: &[u8]| row.value(name).map(|text| text.map(<[u8]>::trim_ascii));
        assert_eq!(value(b"title"), Ok(Some(&br#""b""#[..])));
        assert_eq!(value(b"n"), Ok(Some(&br#"[1, {"title": "inner"}]"#[..])));
        assert_eq!(value(b"missing"), Ok(None));
    }

    #[test]
    fn a_row_with_an_escaped_name_is_only_decoded_whole() {
        assert_eq!(row(r#"{"ti\u0074le": "x", "doi": "y"}"#).value(b"doi"), Err(()));
    }

    #[test]
    fn strings_and_nulls_become_arrow_buffers_anything_else_does_not() {
        let values = [Some(&br#""a\n\u00e9""#[..]), None, Some(&b"null"[..]), Some(&br#""""#[..])];
        let arrow = arrow_strings(&values).unwrap();
        assert_eq!(arrow.nulls, 2);
        assert_eq!(arrow.validity, vec![0b1001]);
        assert_eq!(arrow.data, "a\né".as_bytes());
        let offsets: Vec<i64> = arrow.offsets.chunks(8).map(|b| i64::from_le_bytes(b.try_into().unwrap())).collect();
        assert_eq!(offsets, vec![0, 4, 4, 4, 4]);
        assert!(arrow_strings(&[Some(&b"5"[..])]).is_none());
    }
}
