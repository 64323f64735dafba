//! Integer arguments of any size. pyo3 turns a Python int past what the Rust type holds into a
//! bare `OverflowError` that names no parameter; every integer argument a caller chooses is
//! taken as an [`Int`] instead, which keeps such an int as Python writes it, and
//! [`Int::within`] gives the error of the parameter's [`Count`] rule, naming it.

use paperlens_core::config::Count;
use paperlens_core::Error;
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::errors::PyPaperlensErr;

pub enum Int<T> {
    Held(T),
    /// An int past what `T` holds: its sign, and its digits as Python writes them.
    Beyond {
        negative: bool,
        written: String,
    },
}

impl<'a, 'py, T: FromPyObject<'a, 'py>> FromPyObject<'a, 'py> for Int<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Int<T>> {
        let overflow = match T::extract(obj) {
            Ok(value) => return Ok(Int::Held(value)),
            Err(error) => error.into(),
        };
        let py = obj.py();
        if !overflow.is_instance_of::<PyOverflowError>(py) {
            return Err(overflow);
        }
        // An int, whatever the subclass or `__index__` object it came as.
        let int = py.get_type::<PyInt>().call1((py.import("operator")?.call_method1("index", (obj,))?,))?;
        let negative = int.lt(0)?;
        // Past `sys.get_int_max_str_digits()` digits an int has no decimal form.
        let written = match int.repr() {
            Ok(repr) => repr.to_string(),
            Err(_) => format!("an int of {} bits", int.call_method0("bit_length")?),
        };
        Ok(Int::Beyond { negative, written })
    }
}

impl<T> Int<T> {
    /// The value held; an int past what `T` holds breaks `count`'s rule (its range is within
    /// `T`'s): the message says which end. A held value is the caller's to check.
    pub fn within(self, count: Count) -> Result<T, String> {
        self.held_or(|negative, written| count.outside(negative, written))
    }

    /// The value held, or `beyond(negative, written)` for an int past what `T` holds.
    pub fn held_or<E>(self, beyond: impl FnOnce(bool, String) -> E) -> Result<T, E> {
        match self {
            Int::Held(value) => Ok(value),
            Int::Beyond { negative, written } => Err(beyond(negative, written)),
        }
    }
}

/// A client setting as given (`None`: not given); one past what `T` holds is a configuration
/// error, as the core gives for a value outside `count` (it checks the values held).
pub fn setting<T>(given: Option<Int<T>>, count: Count) -> Result<Option<T>, PyPaperlensErr> {
    given.map(|int| int.within(count).map_err(|message| Error::Configuration(message).into())).transpose()
}
