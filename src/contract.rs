//! The contract's facts that the Python layer reads (`paperlens.base._contract`), taken from the
//! core's table (`paperlens_core::contract`) so that each is written once.

use paperlens_core::contract as c;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The facts by the names `paperlens.base._contract` gives them: tuples of names and integers.
pub fn facts(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let facts = PyDict::new(py);
    let names = |names: &[&str]| PyTuple::new(py, names);
    let short = |operators: &[&str]| {
        let stripped = operators.iter().map(|op| op.strip_prefix(c::FILTER_OPERATOR_PREFIX).unwrap_or(op));
        PyTuple::new(py, stripped)
    };
    facts.set_item("FILTER_OPERATORS", names(c::FILTER_OPERATOR_NAMES)?)?;
    facts.set_item("FILTER_OPERATOR_PREFIX", c::FILTER_OPERATOR_PREFIX)?;
    facts.set_item("LIST_OPERATORS", short(&c::ARRAY_OPERATORS)?)?;
    facts.set_item("SORT_ORDERS", names(&c::SORT_ORDERS)?)?;
    facts.set_item("COLLECTIONS", names(&c::COLLECTIONS)?)?;
    facts.set_item("PAGE_DEPTH_CAP", c::PAGE_DEPTH_CAP)?;
    facts.set_item("PAGE_SIZE_MAX", c::PAGE_SIZE.max)?;
    facts.set_item("PAGE_SIZE_DEFAULT", c::PAGE_SIZE.default)?;
    facts.set_item("BOOSTS", names(&c::BOOSTS)?)?;
    facts.set_item("BOOST_LEVELS", names(&c::BOOST_LEVELS)?)?;
    facts.set_item("NO_BOOST", c::NO_BOOST)?;
    facts.set_item("PAPER_RELATIONS", names(&c::PAPER_RELATIONS)?)?;
    facts.set_item("RETRIEVAL_MODES", names(&c::RETRIEVAL_MODES)?)?;
    facts.set_item("SOURCE_TYPES", names(&c::SOURCE_TYPES)?)?;
    facts.set_item("CONTENT_PAGE_MAX", c::CONTENT_LIMIT.max)?;
    // The largest `size` that every cursor-paged operation (the searches and the lists) takes.
    facts.set_item("SCHEMA_PAGE_SIZE_MAX", c::SEARCH_SIZE.max.min(c::LIST_SIZE.max))?;
    facts.set_item("EVIDENCE_GROUPS", names(&c::EVIDENCE_GROUPS)?)?;
    facts.set_item("GROUP_OPERATORS", names(&c::GROUP_OPERATORS)?)?;
    facts.set_item("GOALS", names(&c::GOALS)?)?;
    facts.set_item("SIGNALS", names(&c::SIGNALS)?)?;
    facts.set_item("DIRECTIONS", names(&c::DIRECTIONS)?)?;
    Ok(facts)
}
