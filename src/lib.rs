//! The `paperlens._paperlens` extension module: declares and exports, nothing else.

use pyo3::prelude::*;

mod sandbox;

#[pymodule]
fn _paperlens(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<sandbox::NativeSandbox>()?;
    Ok(())
}
