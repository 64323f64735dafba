//! `read_bibtex`: the entries of a BibTeX text, read by `paperlens_core::bibtex`, as tuples
//! that `paperlens.workflows._bibtex` turns into `BibEntry` dataclasses.

use paperlens_core::bibtex::{self, BibEntry, Budgets};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw.
type EntryTuple = (String, String, Vec<(String, String)>, Vec<String>, bool, Vec<String>, bool, usize, String);

/// The entries of `text` within the budgets (bytes of the file, bytes macro uses add, brace
/// depth); a file that cannot be read, or is over a budget, raises `ValueError(message, key,
/// ordinal, line, rule)` (`rule`: the budget's name, "macro parts" or "BibTeX syntax").
#[pyfunction]
#[pyo3(signature = (text, max_bytes, max_expanded_bytes, max_brace_depth))]
pub fn read_bibtex(
    py: Python<'_>,
    text: &str,
    max_bytes: usize,
    max_expanded_bytes: usize,
    max_brace_depth: usize,
) -> PyResult<Vec<EntryTuple>> {
    let budgets = Budgets { max_bytes, max_expanded_bytes, max_brace_depth };
    let entries = py.detach(|| bibtex::read_bibtex_within(text, &budgets));
    match entries {
        Ok(entries) => Ok(entries.into_iter().map(as_tuple).collect()),
        Err(error) => Err(PyValueError::new_err((error.message, error.key, error.ordinal, error.line, error.rule))),
    }
}

fn as_tuple(entry: BibEntry) -> EntryTuple {
    let BibEntry { key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw } = entry;
    (key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw)
}
