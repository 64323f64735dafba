//! Integer arguments of any size. pyo3 turns a Python int past what the Rust type holds into a
//! bare `OverflowError` that names no parameter; every integer argument a caller chooses is
//! taken as an [`Int`] instead, which keeps such an int as Python writes it, and
//! [`Int::within`] checks it against the parameter's [`Count`] rule, naming it.

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
    /// The value, if `count`'s rule holds for it; else the message saying which end it breaks
    /// (an int past what `T` holds shown as Python writes it).
    pub fn within(self, count: Count) -> Result<T, String>
    where
        T: TryFrom<i128>,
        i128: TryFrom<T>,
    {
        match self {
            // Every integer type held here fits in an i128.
            Int::Held(value) => count.within(i128::try_from(value).unwrap_or(i128::MAX)),
            Int::Beyond { negative, written } => Err(count.outside(negative, written)),
        }
    }

    /// The value held, or `beyond(negative, written)` for an int past what `T` holds.
    pub fn held_or<E>(self, beyond: impl FnOnce(bool, String) -> E) -> Result<T, E> {
        match self {
            Int::Held(value) => Ok(value),
            Int::Beyond { negative, written } => Err(beyond(negative, written)),
        }
    }
}

/// A client setting as given (`None`: not given); an int past what `T` holds is a configuration
/// error in the words the core gives for a value outside `count` (the core checks the values held).
pub fn setting<T>(given: Option<Int<T>>, count: Count) -> Result<Option<T>, PyPaperlensErr> {
    let beyond = |negative, written| PyPaperlensErr::from(Error::Configuration(count.outside(negative, written)));
    given.map(|int| int.held_or(beyond)).transpose()
}
