//! The one tokio runtime of the process, and the bridge from sync Python calls to it.

use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// How often a blocked sync call wakes up to let Python handle Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(200);

/// The runtime shared by every client and the sandbox (the one asyncio calls run on, too).
pub fn runtime() -> &'static Runtime {
    pyo3_async_runtimes::tokio::get_runtime()
}

/// Waits for a task of the runtime with the GIL released; a KeyboardInterrupt while waiting
/// cancels it and is raised at once.
pub fn wait<T>(py: Python<'_>, mut handle: JoinHandle<T>) -> PyResult<T>
where
    T: Send + 'static,
{
    loop {
        let polled = py.detach(|| runtime().block_on(async { tokio::time::timeout(SIGNAL_CHECK, &mut handle).await }));
        match polled {
            Ok(joined) => return joined.map_err(|e| PyRuntimeError::new_err(format!("paperlens task failed: {e}"))),
            Err(_still_running) => {
                if let Err(interrupt) = py.check_signals() {
                    handle.abort();
                    return Err(interrupt);
                }
            }
        }
    }
}
