//! `read_bibtex`: the entries of a BibTeX text, read by `paperlens_core::bibtex`, as tuples
//! that `paperlens._bibtex` turns into `BibEntry` dataclasses.

use paperlens_core::bibtex::{self, BibEntry};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw.
type EntryTuple = (String, String, Vec<(String, String)>, Vec<String>, bool, Vec<String>, bool, usize, String);

/// The entries of `text`; a file that cannot be read raises `ValueError(message, key,
/// ordinal, line)`.
#[pyfunction]
pub fn read_bibtex(py: Python<'_>, text: &str) -> PyResult<Vec<EntryTuple>> {
    let entries = py.detach(|| bibtex::read_bibtex(text));
    match entries {
        Ok(entries) => Ok(entries.into_iter().map(as_tuple).collect()),
        Err(error) => Err(PyValueError::new_err((error.message, error.key, error.ordinal, error.line))),
    }
}

fn as_tuple(entry: BibEntry) -> EntryTuple {
    let BibEntry { key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw } = entry;
    (key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw)
}
