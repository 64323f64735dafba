//! What the sandbox received, for tests that check what a client sent.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::http::{header, HeaderMap};
use bytes::Bytes;

/// Only the most recent requests are kept, so a long benchmark does not grow memory.
pub const CAPACITY: usize = 10_000;

#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Decoded query parameters in order.
    pub query: Vec<(String, String)>,
    /// Lower-case names, in the order received; `Authorization` is never recorded.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl RecordedRequest {
    pub(crate) fn new(
        method: &str,
        path: &str,
        query: &[(String, String)],
        headers: &HeaderMap,
        body: &Bytes,
    ) -> RecordedRequest {
        let headers = headers
            .iter()
            .filter(|(name, _)| *name != header::AUTHORIZATION)
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_string(), value)
            })
            .collect();
        RecordedRequest {
            method: method.to_string(),
            path: path.to_string(),
            query: query.to_vec(),
            headers,
            body: body.clone(),
        }
    }
}

#[derive(Default)]
pub(crate) struct Recorder {
    requests: Mutex<VecDeque<RecordedRequest>>,
}

impl Recorder {
    pub fn record(&self, request: RecordedRequest) {
        let mut requests = self.lock();
        if requests.len() == CAPACITY {
            requests.pop_front();
        }
        requests.push_back(request);
    }

    pub fn snapshot(&self) -> Vec<RecordedRequest> {
        self.lock().iter().cloned().collect()
    }

    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<RecordedRequest>> {
        self.requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
