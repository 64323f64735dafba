//! The `paperlens._paperlens` extension module: declares and exports, nothing else.

mod bibtex;
mod client;
mod completions;
mod contract;
mod decode;
mod errors;
mod events;
mod ints;
mod json;
mod objects;
mod operation;
mod rows;
mod runtime;
mod sandbox;

use pyo3::prelude::*;

#[pymodule]
fn _paperlens(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CONTRACT", contract::facts(m.py())?)?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<completions::Completions>()?;
    m.add_class::<operation::Pending>()?;
    m.add_class::<sandbox::NativeSandbox>()?;
    m.add_class::<rows::Row>()?;
    m.add_class::<rows::LazyField>()?;
    m.add_function(wrap_pyfunction!(rows::columns, m)?)?;
    m.add_function(wrap_pyfunction!(bibtex::read_bibtex, m)?)?;
    m.add_function(wrap_pyfunction!(rows::undecoded_rows, m)?)?;
    m.add_function(wrap_pyfunction!(errors::redact, m)?)?;
    m.add_function(wrap_pyfunction!(client::check_params, m)?)?;
    Ok(())
}

/// Response bodies are large, short-lived buffers filled on tokio threads; glibc's
/// per-thread arenas hand their pages back and fault them in again on every call, which
/// mimalloc does not (about 15% of the CPU of a 200-record page). The 2.x line (Cargo.toml's
/// `v2` feature): mimalloc 3.x faults in its thread set-up on a tokio worker once the thread
/// that first loaded the module has ended (tests/test_host_patterns.py, benches/RESULTS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
