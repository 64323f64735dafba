//! Transport events as records of the `paperlens` logger, and for the listeners a client's
//! progress bars register while they iterate. The token never reaches them: events carry
//! methods, paths, statuses, waits and request ids only.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use paperlens_core::{Event, EventSink};
use pyo3::prelude::*;

const DEBUG: u8 = 10;
const INFO: u8 = 20;
const WARNING: u8 = 30;
/// A pacing wait longer than this is logged at WARNING, which Python shows without any logging
/// set up (its last-resort handler): a minute's silence otherwise looks like a hang. Shorter
/// waits, the common case of steady paging, stay at INFO.
const LONG_WAIT: Duration = Duration::from_secs(5);

/// Events come from tokio threads, where taking the GIL is slow when Python is busy: the
/// lowest level the logger lets through is read by the calling thread (which holds the GIL
/// anyway) at the start of every call, so an event nobody logs or listens to costs nothing.
pub struct PythonLog {
    logger: Py<PyAny>,
    lowest_enabled: AtomicU8,
    /// Callables `(kind, wait_seconds, message)`, by the id `add_listener` returned.
    listeners: Mutex<Vec<(u64, Py<PyAny>)>>,
    listening: AtomicBool,
    next_id: AtomicU64,
}

impl PythonLog {
    pub fn new(py: Python<'_>) -> PyResult<PythonLog> {
        let logger = py.import("logging")?.call_method1("getLogger", ("paperlens",))?;
        let log = PythonLog {
            logger: logger.unbind(),
            lowest_enabled: AtomicU8::new(WARNING),
            listeners: Mutex::new(Vec::new()),
            listening: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
        };
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

    pub fn add_listener(&self, callback: Py<PyAny>) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut listeners = self.listeners.lock().unwrap_or_else(|p| p.into_inner());
        listeners.push((id, callback));
        self.listening.store(true, Ordering::Release);
        id
    }

    /// Returns whether a listener of that id was registered.
    pub fn remove_listener(&self, id: u64) -> bool {
        let mut listeners = self.listeners.lock().unwrap_or_else(|p| p.into_inner());
        let before = listeners.len();
        listeners.retain(|(i, _)| *i != id);
        self.listening.store(!listeners.is_empty(), Ordering::Release);
        listeners.len() != before
    }

    fn notify(&self, py: Python<'_>, event: &Event) {
        let (kind, wait) = match event {
            Event::Request { .. } => ("request", 0.0),
            Event::Response { .. } => ("response", 0.0),
            Event::Retry { wait, .. } => ("retry", wait.as_secs_f64()),
            Event::Paced { wait, .. } => ("paced", wait.as_secs_f64()),
            Event::CacheHit { .. } => ("cache_hit", 0.0),
            Event::CacheDamaged { .. } => ("cache_damaged", 0.0),
            Event::CacheRefused { .. } => ("cache_refused", 0.0),
            Event::PacingReset { .. } => ("pacing_reset", 0.0),
        };
        let callbacks: Vec<Py<PyAny>> = {
            let listeners = self.listeners.lock().unwrap_or_else(|p| p.into_inner());
            listeners.iter().map(|(_, c)| c.clone_ref(py)).collect()
        };
        let text = message(event);
        for callback in callbacks {
            // A failing listener must not fail the request; Python reports it as unraisable.
            if let Err(error) = callback.call1(py, (kind, wait, text.as_str())) {
                error.write_unraisable(py, Some(callback.bind(py)));
            }
        }
    }
}

impl EventSink for PythonLog {
    fn emit(&self, event: Event) {
        let level = match &event {
            Event::Request { .. } | Event::Response { .. } | Event::CacheHit { .. } | Event::CacheDamaged { .. } => {
                DEBUG
            }
            Event::Paced { wait, .. } if *wait > LONG_WAIT => WARNING,
            Event::Paced { .. } => INFO,
            Event::Retry { .. } | Event::CacheRefused { .. } | Event::PacingReset { .. } => WARNING,
        };
        let listening = self.listening.load(Ordering::Acquire);
        let logged = level >= self.lowest_enabled.load(Ordering::Relaxed);
        if !listening && !logged {
            return;
        }
        Python::attach(|py| {
            if listening {
                self.notify(py, &event);
            }
            if logged {
                // A failing handler must not fail the request; logging reports its own errors.
                let _ = self.logger.bind(py).call_method1("log", (level, message(&event)));
            }
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
        Event::Paced { quota, per_minute, wait, paused, request_id } => {
            let wait = wait.as_secs_f64();
            let rate = format!("{per_minute} requests/minute");
            match (paused, per_minute) {
                (true, 0) => format!(
                    "pacing: waiting {wait:.2} s until the time a 429 of the {quota} quota advised [request_id={request_id}]"
                ),
                (true, _) => format!(
                    "pacing: waiting {wait:.2} s until the time a 429 of the {quota} quota advised, then within \
                     {rate} [request_id={request_id}]"
                ),
                (false, 0) => format!("pacing: waiting {wait:.2} s to stay within the {quota} quota [request_id={request_id}]"),
                (false, _) => format!(
                    "pacing: waiting {wait:.2} s to stay within {rate} of the {quota} quota [request_id={request_id}]"
                ),
            }
        }
        Event::CacheHit { method, path, request_id, age } => format!(
            "{method} {path} answered from the response cache (stored {:.0} s ago) [request_id={request_id}]",
            age.as_secs_f64()
        ),
        Event::PacingReset { quota, store } => format!(
            "shared_pacing: the pacing state of the {quota} quota in {store} held times from the future \
             (written on another clock: a wall clock stepped, a failover, a reboot); it was reset"
        ),
        Event::CacheDamaged { method, path, entry, reason } => {
            format!("{method} {path}: the response cache entry {entry} is damaged ({reason}); deleted, fetching again")
        }
        Event::CacheRefused { dir, reason } => {
            format!("the response cache {dir} is not used: {reason}; every call goes to the service")
        }
    }
}
