//! The operations of `NativeClient`, each one core future whichever way it is run: to the
//! end with the GIL released (sync), as an asyncio awaitable, or through `Completions`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use paperlens_core::{ApiRequest, DownloadProgress, Error, Transport};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tokio::task::JoinHandle;

use crate::decode::{header_text, BytesAnswer, JsonAnswer};
use crate::errors::PyPaperlensErr;
use crate::runtime::{awaitable, runtime, this_process, wait};

pub enum Operation {
    /// `rows`: what `decode::page_rows` gives for the operation.
    Json { request: ApiRequest, rows: Option<&'static str> },
    /// A resource answered in memory.
    Bytes(ApiRequest),
    /// A resource streamed to `dest` atomically; `progress`, if given, is called
    /// `(bytes_written, content_length_or_None)` as the body arrives.
    Download { request: ApiRequest, file_name: String, dest: PathBuf, progress: Option<Py<PyAny>>, overwrite: bool },
}

/// What an operation gives Python: `(object, request_id)` for JSON,
/// `(data, content_type, content_disposition, request_id)` for bytes, `(path, request_id)`
/// for a download.
pub enum Answer {
    Json(JsonAnswer),
    Bytes(BytesAnswer),
    Download(PathBuf, String),
}

impl Operation {
    pub async fn run(self, transport: Transport) -> Result<Answer, PyPaperlensErr> {
        Ok(match self {
            Operation::Json { request, rows } => {
                Answer::Json(JsonAnswer::new(rows, transport.execute(&request).await?))
            }
            Operation::Bytes(request) => Answer::Bytes(BytesAnswer(transport.execute(&request).await?)),
            Operation::Download { request, file_name, dest, progress, overwrite } => {
                let progress = progress.map(python_progress);
                let (path, request_id) = download(transport, request, file_name, dest, progress, overwrite).await?;
                Answer::Download(path, request_id)
            }
        })
    }

    /// Runs to the end with the GIL released; Ctrl-C cancels it.
    pub fn run_blocking(self, py: Python<'_>, transport: Transport) -> PyResult<Py<PyAny>> {
        self.start(transport).wait(py)
    }

    /// Started now, waited for later (see [`Pending`]).
    pub fn start(self, transport: Transport) -> Pending {
        Pending { task: Mutex::new(Some(runtime().spawn(self.run(transport)))), process: this_process() }
    }

    /// An asyncio awaitable of the answer; must be called with a running event loop.
    pub fn run_awaitable<'py>(self, py: Python<'py>, transport: Transport) -> PyResult<Bound<'py, PyAny>> {
        awaitable(py, async move { Ok(self.run(transport).await?) })
    }
}

/// An operation running on the runtime, its answer taken by `wait()`: at once for a blocking
/// call, later for one started ahead of need (a paginator asking for the next page while its
/// caller works on this one). Dropped or cancelled before that, its task is stopped.
#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct Pending {
    task: Mutex<Option<JoinHandle<Result<Answer, PyPaperlensErr>>>>,
    /// Started by this process, not by the parent of a forked child (whose runtime is not here).
    process: u64,
}

impl Pending {
    fn take(&self) -> Option<JoinHandle<Result<Answer, PyPaperlensErr>>> {
        let task = self.task.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if self.process == this_process() {
            return task;
        }
        // The parent's task: touching it here would reach into a runtime this child lacks.
        std::mem::forget(task);
        None
    }
}

#[pymethods]
impl Pending {
    /// The answer, waited for with the GIL released (once; Ctrl-C cancels the wait).
    fn wait(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.process != this_process() {
            self.take();
            return Err(PyRuntimeError::new_err(
                "this request was started by the parent of this forked process; make the call again here",
            ));
        }
        let task = self.take().ok_or_else(|| PyRuntimeError::new_err("this answer was already taken or cancelled"))?;
        Ok(wait(py, task)??.into_pyobject(py)?.unbind())
    }

    /// Stops the operation if it is still running; its answer is not wanted.
    fn cancel(&self) {
        if let Some(task) = self.take() {
            task.abort();
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.cancel();
    }
}

impl<'py> IntoPyObject<'py> for Answer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Answer::Json(answer) => answer.into_pyobject(py),
            Answer::Bytes(answer) => answer.into_pyobject(py),
            Answer::Download(path, request_id) => (path, request_id).into_pyobject(py).map(Bound::into_any),
        }
    }
}

/// A Python callable as a download progress callback; what it raises is reported as
/// unraisable, never failing the download.
fn python_progress(callback: Py<PyAny>) -> Arc<DownloadProgress> {
    Arc::new(move |written: u64, total: Option<u64>| {
        Python::attach(|py| {
            if let Err(error) = callback.call1(py, (written, total)) {
                error.write_unraisable(py, Some(callback.bind(py)));
            }
        })
    })
}

async fn download(
    transport: Transport,
    request: ApiRequest,
    file_name: String,
    dest: PathBuf,
    progress: Option<Arc<DownloadProgress>>,
    overwrite: bool,
) -> Result<(PathBuf, String), Error> {
    let dir = if dest.is_dir() { dest.clone() } else { dest.parent().map(PathBuf::from).unwrap_or_default() };
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let (response, file) =
        transport.download_with_progress(&request, &dir, progress.as_deref()).await.map_err(|error| match error {
            Error::Io { message, request_id, errno } => {
                Error::Io { message: format!("could not write into {}: {message}", dir.display()), request_id, errno }
            }
            other => other,
        })?;
    let target = if dest.is_dir() {
        let disposition = header_text(&response, "content-disposition");
        dest.join(download_name(disposition, &file_name).map_err(|message| Error::Io {
            message,
            request_id: response.request_id.clone(),
            errno: None,
        })?)
    } else {
        dest
    };
    // Without `overwrite`, the rename refuses a file (or link) already there, atomically.
    let moved = if overwrite { file.persist(&target) } else { file.persist_noclobber(&target) };
    moved.map_err(|e| Error::Io {
        message: if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            format!("{} exists: pass overwrite=True to replace it", target.display())
        } else {
            format!("could not move the download into {}: {}", target.display(), e.error)
        },
        request_id: response.request_id.clone(),
        errno: e.error.raw_os_error(),
    })?;
    Ok((target, response.request_id))
}

/// The name a download takes inside a directory: the one `Resource.filename` gives, from the
/// same parser (`paperlens.base._disposition.download_name`).
fn download_name(disposition: Option<String>, file_name: &str) -> Result<String, String> {
    Python::attach(|py| {
        let module = py.import("paperlens.base._disposition")?;
        module.getattr("download_name")?.call1((disposition, file_name))?.extract::<String>()
    })
    .map_err(|e| format!("could not name the download: {e}"))
}
