//! The one tokio runtime of the process, and the bridges from sync and asyncio Python calls
//! to it. A forked child builds its own on first use (its parent's workers are not there).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use paperlens_core::fork::{self, ForkLocal};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3_async_runtimes::generic::{self, ContextExt};
use pyo3_async_runtimes::TaskLocals;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// How often a blocked sync call wakes up to let Python handle Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(200);

static RUNTIME: ForkLocal<Runtime> = ForkLocal::empty();

/// The runtime shared by every client and the sandbox (the one asyncio calls run on, too).
pub fn runtime() -> &'static Runtime {
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("the tokio runtime could not start")
    })
}

/// Which process made something living on the runtime, to tell it apart in a forked child.
pub fn this_process() -> u64 {
    fork::generation()
}

/// An asyncio awaitable of `future`, run on [`runtime`]: a panic in it raises
/// `RuntimeError` in the awaiter (never a `PanicException`), and cancelling the awaitable
/// stops it.
pub fn awaitable<F, T>(py: Python<'_>, future: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let mut task = AbortOnDrop(runtime().spawn(future));
    generic::future_into_py::<OurRuntime, _, T>(py, async move {
        match (&mut task.0).await {
            Ok(answer) => answer,
            Err(failure) if failure.is_panic() => Err(PyRuntimeError::new_err(panic_message(failure.into_panic()))),
            Err(cancelled) => Err(PyRuntimeError::new_err(format!("paperlens task failed: {cancelled}"))),
        }
    })
}

/// A task of the runtime stopped when what awaits it is dropped (a cancelled awaitable).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a task that panicked tells its awaiter.
pub fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    format!("paperlens internal error (please report it): the request task panicked: {what}")
}

/// [`runtime`] as pyo3-async-runtimes sees it (its own `tokio` one is built once per process
/// and so is dead in a forked child).
struct OurRuntime;

tokio::task_local! {
    static TASK_LOCALS: TaskLocals;
}

impl generic::Runtime for OurRuntime {
    type JoinError = tokio::task::JoinError;
    type JoinHandle = JoinHandle<()>;

    fn spawn<F>(future: F) -> JoinHandle<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        runtime().spawn(future)
    }

    fn spawn_blocking<F>(f: F) -> JoinHandle<()>
    where
        F: FnOnce() + Send + 'static,
    {
        runtime().spawn_blocking(f)
    }
}

impl ContextExt for OurRuntime {
    fn scope<F, R>(locals: TaskLocals, future: F) -> Pin<Box<dyn Future<Output = R> + Send>>
    where
        F: Future<Output = R> + Send + 'static,
    {
        Box::pin(TASK_LOCALS.scope(locals, future))
    }

    fn get_task_locals() -> Option<TaskLocals> {
        TASK_LOCALS.try_with(Clone::clone).ok()
    }
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
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(failure)) if failure.is_panic() => {
                return Err(PyRuntimeError::new_err(panic_message(failure.into_panic())))
            }
            Ok(Err(failure)) => return Err(PyRuntimeError::new_err(format!("paperlens task failed: {failure}"))),
            Err(_still_running) => {
                if let Err(interrupt) = py.check_signals() {
                    handle.abort();
                    return Err(interrupt);
                }
            }
        }
    }
}
