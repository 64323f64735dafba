//! New Python containers whose allocation failure is a `MemoryError`: pyo3's own constructors
//! (`PyDict::new`, `PyList::new`, `PyBytes::new`, tuples and strings from Rust values) panic on
//! a NULL, and a `PanicException` escapes `except Exception` (and, inside a decode, would
//! poison the key cache).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

pub fn new_dict(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    unsafe { Ok(Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())?.cast_into_unchecked()) }
}

/// A list of `items`, which must yield exactly `len()` items (a `Vec` or its drain does).
pub fn new_list<'py>(
    py: Python<'py>,
    items: impl ExactSizeIterator<Item = Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let length = items.len();
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(length as ffi::Py_ssize_t))? };
    let mut count = 0;
    for (i, item) in items.take(length).enumerate() {
        // Each steals the reference; every slot is filled before the list is seen.
        unsafe {
            #[cfg(not(feature = "abi3"))]
            ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr());
            #[cfg(feature = "abi3")]
            ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr());
        }
        count += 1;
    }
    assert_eq!(count, length, "an exact-size iterator yielded fewer items than it said");
    Ok(unsafe { list.cast_into_unchecked() })
}

pub fn new_bytes<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, bytes.len(), |buffer| {
        buffer.copy_from_slice(bytes);
        Ok(())
    })
}

pub fn new_text<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyString>> {
    let string = unsafe { ffi::PyUnicode_FromStringAndSize(text.as_ptr().cast(), text.len() as ffi::Py_ssize_t) };
    unsafe { Ok(Bound::from_owned_ptr_or_err(py, string)?.cast_into_unchecked()) }
}

/// `Some(text)` as a `str`, `None` as `None`.
pub fn new_optional_text<'py>(py: Python<'py>, text: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    match text {
        Some(text) => Ok(new_text(py, text)?.into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

pub fn new_tuple<'py, const N: usize>(py: Python<'py>, items: [Bound<'py, PyAny>; N]) -> PyResult<Bound<'py, PyTuple>> {
    let tuple = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(N as ffi::Py_ssize_t))? };
    for (i, item) in items.into_iter().enumerate() {
        unsafe { ffi::PyTuple_SetItem(tuple.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
    }
    Ok(unsafe { tuple.cast_into_unchecked() })
}
