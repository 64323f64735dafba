//! `NativeSandbox`: the Python handle on a running [`paperlens_sandbox::Sandbox`], served on
//! the shared tokio runtime. `paperlens.sandbox.Sandbox` is the public face.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use paperlens_core::config::Count;
use paperlens_sandbox::server::limit_outside;
use paperlens_sandbox::{Fault, FaultKind, RateLimitKind, Sandbox, SandboxConfig, PAPERS};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::ints::Int;

/// The integer arguments besides `papers` (whose rule is the sandbox's own, [`PAPERS`]).
const SEED: Count = Count { name: "seed", least: 0, most: u64::MAX as i128 };
const PORT: Count = Count { name: "port", least: 0, most: u16::MAX as i128 };
const REVEAL_AFTER: Count = Count { name: "reveal_after", least: 0, most: u64::MAX as i128 };
const TIMES: Count = Count { name: "times", least: 1, most: u32::MAX as i128 };

/// An argument as given; one outside `count` is a `ValueError`, as the sandbox raises.
fn argument<T: TryFrom<i128>>(given: Int<T>, count: Count) -> PyResult<T>
where
    i128: TryFrom<T>,
{
    given.within(count).map_err(PyValueError::new_err)
}

type RecordedTuple<'py> = (String, String, Vec<(String, String)>, Vec<(String, String)>, Bound<'py, PyBytes>);

#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct NativeSandbox {
    base_url: String,
    token: String,
    restricted_token: String,
    running: Mutex<Option<Sandbox>>,
    /// The process serving it: a forked child's copy is the parent's server, left alone.
    process: u64,
}

#[pymethods]
impl NativeSandbox {
    #[new]
    #[pyo3(signature = (papers, seed, rate_limits, rate_limit_kind, token, int64_as_string, host, port, content_latency=None, hidden_share=0.0, reveal_after=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        papers: Int<usize>,
        seed: Int<u64>,
        rate_limits: Option<Vec<(String, Int<u32>)>>,
        rate_limit_kind: &str,
        token: Option<String>,
        int64_as_string: bool,
        host: String,
        port: Int<u16>,
        content_latency: Option<f64>,
        hidden_share: f64,
        reveal_after: Option<Int<u64>>,
    ) -> PyResult<Self> {
        let rate_limits = rate_limits.map(per_minute_limits).transpose()?;
        let rate_limit_kind: RateLimitKind = rate_limit_kind.parse().map_err(PyValueError::new_err)?;
        let content_latency = content_latency
            .map(|seconds| {
                Duration::try_from_secs_f64(seconds).map_err(|_| {
                    PyValueError::new_err(format!("content_latency must be a number of seconds >= 0, got {seconds}"))
                })
            })
            .transpose()?;
        let config = SandboxConfig {
            host,
            port: argument(port, PORT)?,
            // Held values are checked by `Sandbox::start`, against the same rule.
            papers: papers.held_or(|negative, written| PyValueError::new_err(PAPERS.outside(negative, written)))?,
            seed: argument(seed, SEED)?,
            token,
            rate_limits,
            rate_limit_kind,
            int64_as_string,
            content_latency,
            hidden_share,
            reveal_after: reveal_after.map(|n| argument(n, REVEAL_AFTER)).transpose()?,
        };
        let runtime = crate::runtime::runtime();
        let sandbox = py.detach(|| runtime.block_on(Sandbox::start(config))).map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidInput => PyValueError::new_err(error.to_string()),
            _ => PyOSError::new_err(format!("sandbox could not start: {error}")),
        })?;
        Ok(NativeSandbox {
            base_url: sandbox.base_url().to_string(),
            token: sandbox.token().to_string(),
            restricted_token: sandbox.restricted_token().to_string(),
            running: Mutex::new(Some(sandbox)),
            process: crate::runtime::this_process(),
        })
    }

    #[getter]
    fn base_url(&self) -> &str {
        &self.base_url
    }

    #[getter]
    fn token(&self) -> &str {
        &self.token
    }

    #[getter]
    fn restricted_token(&self) -> &str {
        &self.restricted_token
    }

    #[pyo3(signature = (path, kind, status, times, retry_after, delay))]
    fn inject_fault(
        &self,
        path: String,
        kind: &str,
        status: Option<Int<u16>>,
        times: Int<u32>,
        retry_after: Option<f64>,
        delay: Option<f64>,
    ) -> PyResult<()> {
        let status = status.map(|n| n.held_or(|_, written| not_an_error_status(written))).transpose()?;
        let times = argument(times, TIMES)?;
        let kind = fault_kind(kind, status, delay)?;
        if path.contains('?') {
            return Err(PyValueError::new_err("path must not include a query string: faults match the path alone"));
        }
        if retry_after.is_some_and(|seconds| !seconds.is_finite() || seconds < 0.0) {
            return Err(PyValueError::new_err("retry_after must be >= 0 seconds"));
        }
        let delay = delay
            .map(|seconds| {
                Duration::try_from_secs_f64(seconds).map_err(|_| PyValueError::new_err("delay must be >= 0 seconds"))
            })
            .transpose()?;
        self.with_running(|sandbox| sandbox.inject_fault(Fault { path, kind, times, retry_after, delay }))
    }

    /// `(method, path, query pairs, header pairs, body)` of each request, oldest first.
    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Vec<RecordedTuple<'py>>> {
        let recorded = self.with_running(|sandbox| sandbox.requests())?;
        Ok(recorded
            .into_iter()
            .map(|request| {
                let body = PyBytes::new(py, &request.body);
                (request.method, request.path, request.query, request.headers, body)
            })
            .collect())
    }

    fn clear_requests(&self) -> PyResult<()> {
        self.with_running(|sandbox| sandbox.clear_requests())
    }

    fn reveal(&self) -> PyResult<()> {
        self.with_running(|sandbox| sandbox.reveal())
    }

    #[getter]
    fn hidden(&self) -> PyResult<usize> {
        self.with_running(|sandbox| sandbox.hidden())
    }

    #[getter]
    fn closed(&self) -> bool {
        self.lock().is_none()
    }

    /// Stops the server; in-flight requests get a short grace period. Idempotent. In a forked
    /// child of the process serving it, only this handle closes: the parent serves on.
    fn close(&self, py: Python<'_>) {
        let Some(sandbox) = self.lock().take() else {
            return;
        };
        if self.process != crate::runtime::this_process() {
            std::mem::forget(sandbox);
            return;
        }
        let runtime = crate::runtime::runtime();
        py.detach(|| runtime.block_on(sandbox.shutdown()));
    }
}

impl Drop for NativeSandbox {
    fn drop(&mut self) {
        if self.process != crate::runtime::this_process() {
            let running = self.running.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
            std::mem::forget(running.take());
        }
    }
}

impl NativeSandbox {
    fn lock(&self) -> MutexGuard<'_, Option<Sandbox>> {
        self.running.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn with_running<T>(&self, f: impl FnOnce(&Sandbox) -> T) -> PyResult<T> {
        match self.lock().as_ref() {
            Some(sandbox) => Ok(f(sandbox)),
            None => Err(PyRuntimeError::new_err("the sandbox is closed")),
        }
    }
}

/// The requests per minute of each quota resource, in the sandbox's words for one out of range.
fn per_minute_limits(limits: Vec<(String, Int<u32>)>) -> PyResult<Vec<(String, u32)>> {
    let limit = |(resource, per_minute): (String, Int<u32>)| {
        let per_minute = per_minute
            .held_or(|negative, written| PyValueError::new_err(limit_outside(&resource, negative, written)))?;
        Ok((resource, per_minute))
    };
    limits.into_iter().map(limit).collect()
}

fn not_an_error_status(status: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("status must be an HTTP error status 400-599, got {status}"))
}

fn fault_kind(kind: &str, status: Option<u16>, delay: Option<f64>) -> PyResult<FaultKind> {
    let checked_status = |status: u16| match status {
        400..=599 => Ok(status),
        _ => Err(not_an_error_status(status)),
    };
    match (kind, status) {
        ("status", Some(status)) => Ok(FaultKind::Status(checked_status(status)?)),
        ("status", None) if delay.is_some() => Ok(FaultKind::Normal),
        ("status", None) => Err(PyValueError::new_err("a status fault needs a status, a delay, or both")),
        ("non_json", Some(status)) => Ok(FaultKind::NonJson(checked_status(status)?)),
        ("non_json", None) => Err(PyValueError::new_err("a non_json fault needs a status")),
        ("drop", None) => Ok(FaultKind::DropMidBody),
        ("drop", Some(_)) => Err(PyValueError::new_err("a drop fault takes no status: the normal answer is cut short")),
        ("partial", None) => Ok(FaultKind::Partial),
        ("partial", Some(_)) => {
            Err(PyValueError::new_err("a partial fault takes no status: the normal answer is marked partial"))
        }
        (other, _) => Err(PyValueError::new_err(format!(
            "unknown fault kind {other:?}: expected \"status\", \"drop\", \"non_json\" or \"partial\""
        ))),
    }
}
