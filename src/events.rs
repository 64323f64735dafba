//! Transport events as records of the `paperlens` logger. The token never reaches them:
//! events carry methods, paths, statuses and request ids only.

use std::sync::atomic::{AtomicU8, Ordering};

use paperlens_core::{Event, EventSink};
use pyo3::prelude::*;

const DEBUG: u8 = 10;
const INFO: u8 = 20;
const WARNING: u8 = 30;

/// Logs events on the `paperlens` logger. Events come from tokio threads, where taking the
/// GIL is slow when Python is busy: the lowest enabled level is read by the calling thread
/// (which holds the GIL anyway) at the start of every call, so filtered-out events cost nothing.
pub struct PythonLog {
    logger: Py<PyAny>,
    lowest_enabled: AtomicU8,
}

impl PythonLog {
    pub fn new(py: Python<'_>) -> PyResult<PythonLog> {
        let logger = py.import("logging")?.call_method1("getLogger", ("paperlens",))?;
        let log = PythonLog { logger: logger.unbind(), lowest_enabled: AtomicU8::new(WARNING) };
        log.refresh(py);
        Ok(log)
    }

    /// Reads which levels the logger lets through now.
    pub fn refresh(&self, py: Python<'_>) {
        let logger = self.logger.bind(py);
        let enabled =
            |level: u8| logger.call_method1("isEnabledFor", (level,)).and_then(|e| e.is_truthy()).unwrap_or(false);
        let lowest = [DEBUG, INFO, WARNING].into_iter().find(|level| enabled(*level)).unwrap_or(u8::MAX);
        self.lowest_enabled.store(lowest, Ordering::Relaxed);
    }
}

impl EventSink for PythonLog {
    fn emit(&self, event: Event) {
        let level = match &event {
            Event::Request { .. } | Event::Response { .. } => DEBUG,
            Event::Paced { .. } => INFO,
            Event::Retry { .. } => WARNING,
        };
        if level < self.lowest_enabled.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            // A failing handler must not fail the request; logging reports its own errors.
            let _ = self.logger.bind(py).call_method1("log", (level, message(&event)));
        });
    }
}

fn message(event: &Event) -> String {
    match event {
        Event::Request { method, path, request_id, attempt } => {
            format!("{method} {path} attempt {} [request_id={request_id}]", attempt + 1)
        }
        Event::Response { status, request_id, elapsed } => {
            format!("answered {status} in {:.1} ms [request_id={request_id}]", elapsed.as_secs_f64() * 1000.0)
        }
        Event::Retry { method, path, request_id, attempt, max_retries, wait, reason } => format!(
            "{method} {path} failed ({reason}); retry {attempt} of {max_retries} in {:.2} s [request_id={request_id}]",
            wait.as_secs_f64()
        ),
        Event::Paced { quota, per_minute, wait, request_id } => format!(
            "pacing: waiting {:.2} s to stay within {per_minute} requests/minute of the {quota} quota [request_id={request_id}]",
            wait.as_secs_f64()
        ),
    }
}
