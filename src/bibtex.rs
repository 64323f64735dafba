//! `read_bibtex`: the entries of a BibTeX text, read by `paperlens_core::bibtex`, as tuples
//! that `paperlens.workflows._bibtex` turns into `BibEntry` dataclasses.

use paperlens_core::bibtex::{self, BibEntry, Budgets};
use paperlens_core::config::Count;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::ints::Int;

/// key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw.
type EntryTuple = (String, String, Vec<(String, String)>, Vec<String>, bool, Vec<String>, bool, usize, String);

/// The entries of `text` within the budgets (bytes of the file, bytes macro uses add, brace
/// depth); a file that cannot be read, or is over a budget, or a budget that is not a size,
/// raises `ValueError(message, key, ordinal, line)`.
#[pyfunction]
#[pyo3(signature = (text, max_bytes, max_expanded_bytes, max_brace_depth))]
pub fn read_bibtex(
    py: Python<'_>,
    text: &str,
    max_bytes: Int<usize>,
    max_expanded_bytes: Int<usize>,
    max_brace_depth: Int<usize>,
) -> PyResult<Vec<EntryTuple>> {
    let budgets = Budgets {
        max_bytes: budget(max_bytes, "max_bytes")?,
        max_expanded_bytes: budget(max_expanded_bytes, "max_expanded_bytes")?,
        max_brace_depth: budget(max_brace_depth, "max_brace_depth")?,
    };
    let entries = py.detach(|| bibtex::read_bibtex_within(text, &budgets));
    match entries {
        Ok(entries) => Ok(entries.into_iter().map(as_tuple).collect()),
        Err(error) => Err(PyValueError::new_err((error.message, error.key, error.ordinal, error.line))),
    }
}

/// A budget as given: an int past what a `usize` holds is refused as the file is, on line 1.
fn budget(given: Int<usize>, name: &'static str) -> PyResult<usize> {
    let count = Count { name, least: 0, most: usize::MAX as i128 };
    given.within(count).map_err(|message| PyValueError::new_err((message, None::<String>, 0, 1)))
}

fn as_tuple(entry: BibEntry) -> EntryTuple {
    let BibEntry { key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw } = entry;
    (key, entry_type, fields, authors, et_al, editors, editors_et_al, line, raw)
}
