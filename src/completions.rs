//! Async answers handed to asyncio without taking the GIL on tokio threads.
//!
//! A finished task pushes its outcome into a queue and writes one byte to a socket pair;
//! the event loop watches the other end (`loop.add_reader`) and calls `drain`, which
//! decodes the answers on the loop's own thread, where the GIL already is. Taking the GIL
//! from a tokio thread while the loop is busy waits for CPython's switch interval (5 ms):
//! this path never does.

use std::collections::HashMap;
use std::future::Future;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tokio::task::AbortHandle;

use crate::errors::PyPaperlensErr;
use crate::operation::Answer;
use crate::runtime::{panic_message, runtime};

/// What a task gives when it finishes.
type Outcome = Result<Answer, PyPaperlensErr>;

/// What a finished task delivers: its outcome, or the message of its panic (made a Python
/// exception on the loop's thread, where the GIL is).
type Delivered = Result<Outcome, String>;

#[derive(Default)]
struct Queues {
    done: Vec<(u64, Delivered)>,
    running: HashMap<u64, AbortHandle>,
}

struct Shared {
    queues: Mutex<Queues>,
    wake: UnixStream,
}

impl Shared {
    fn queues(&self) -> MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Called by a finished task (no GIL).
    fn finish(&self, id: u64, outcome: Delivered) {
        let mut queues = self.queues();
        queues.running.remove(&id);
        queues.done.push((id, outcome));
        drop(queues);
        // A full socket buffer already holds a wake-up byte: the loop will drain anyway.
        let _ = (&self.wake).write(&[1]);
    }
}

/// One per event loop: the queue of finished answers and the socket the loop watches.
#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct Completions {
    shared: Arc<Shared>,
    watched: UnixStream,
}

impl Completions {
    /// Runs `task` on the runtime, remembered under `id` until it finishes or is cancelled;
    /// a task that panics delivers that as an error, so that its awaiter never waits forever.
    /// The queue stays locked while spawning, so the task cannot finish before it is remembered.
    pub fn spawn(&self, id: u64, task: impl Future<Output = Outcome> + Send + 'static) {
        let shared = self.shared.clone();
        let mut queues = self.shared.queues();
        let handle = runtime().spawn(task);
        queues.running.insert(id, handle.abort_handle());
        runtime().spawn(async move {
            match handle.await {
                Ok(outcome) => shared.finish(id, Ok(outcome)),
                Err(failure) if failure.is_panic() => shared.finish(id, Err(panic_message(failure.into_panic()))),
                Err(_cancelled) => {}
            }
        });
    }
}

#[pymethods]
impl Completions {
    #[new]
    fn new() -> PyResult<Completions> {
        let (wake, watched) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        watched.set_nonblocking(true)?;
        Ok(Completions { shared: Arc::new(Shared { queues: Mutex::default(), wake }), watched })
    }

    /// The file descriptor to watch for readability.
    #[getter]
    fn fd(&self) -> i32 {
        self.watched.as_raw_fd()
    }

    /// The answers finished so far, as `(id, ok, result or exception)`.
    fn drain(&self, py: Python<'_>) -> PyResult<Vec<(u64, bool, Py<PyAny>)>> {
        let mut buffer = [0u8; 512];
        while matches!((&self.watched).read(&mut buffer), Ok(n) if n > 0) {}
        let done = std::mem::take(&mut self.shared.queues().done);
        done.into_iter().map(|(id, outcome)| Ok(deliver(py, id, outcome))).collect()
    }

    /// Stops the task behind a cancelled future.
    fn cancel(&self, id: u64) {
        if let Some(task) = self.shared.queues().running.remove(&id) {
            task.abort();
        }
    }
}

fn deliver(py: Python<'_>, id: u64, delivered: Delivered) -> (u64, bool, Py<PyAny>) {
    let outcome = match delivered {
        Ok(outcome) => outcome.map_err(PyErr::from),
        Err(panic) => Err(PyRuntimeError::new_err(panic)),
    };
    match outcome.and_then(|answer| answer.into_pyobject(py)) {
        Ok(value) => (id, true, value.unbind()),
        Err(error) => (id, false, error.into_value(py).into_any()),
    }
}
