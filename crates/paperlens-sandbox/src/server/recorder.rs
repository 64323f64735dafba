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

/// A request as kept: its texts back to back in one buffer, each after its length (one
/// allocation per request instead of one per text).
struct Kept {
    texts: Vec<u8>,
    query_pairs: usize,
    body: Bytes,
}

impl Kept {
    fn new(method: &str, path: &str, query: &[(String, String)], headers: &HeaderMap, body: &Bytes) -> Kept {
        let lengths = method.len() + path.len() + query.iter().map(|(n, v)| n.len() + v.len()).sum::<usize>();
        let header_lengths = headers.iter().map(|(n, v)| n.as_str().len() + v.len()).sum::<usize>();
        let mut texts = Vec::with_capacity(lengths + header_lengths + 8 * (1 + query.len() + headers.len()));
        put(&mut texts, method.as_bytes());
        put(&mut texts, path.as_bytes());
        for (name, value) in query {
            put(&mut texts, name.as_bytes());
            put(&mut texts, value.as_bytes());
        }
        for (name, value) in headers.iter().filter(|(name, _)| *name != header::AUTHORIZATION) {
            put(&mut texts, name.as_str().as_bytes());
            put(&mut texts, String::from_utf8_lossy(value.as_bytes()).as_bytes());
        }
        Kept { texts, query_pairs: query.len(), body: body.clone() }
    }

    fn request(&self) -> RecordedRequest {
        let mut texts = Texts(&self.texts);
        let method = texts.next().unwrap_or_default();
        let path = texts.next().unwrap_or_default();
        let mut pairs = std::iter::from_fn(|| Some((texts.next()?, texts.next()?)));
        let query = pairs.by_ref().take(self.query_pairs).collect();
        let headers = pairs.collect();
        RecordedRequest { method, path, query, headers, body: self.body.clone() }
    }
}

fn put(texts: &mut Vec<u8>, text: &[u8]) {
    texts.extend_from_slice(&(text.len() as u32).to_le_bytes());
    texts.extend_from_slice(text);
}

/// The texts [`put`] wrote, in order.
struct Texts<'a>(&'a [u8]);

impl Iterator for Texts<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let (length, rest) = self.0.split_first_chunk::<4>()?;
        let (text, rest) = rest.split_at(u32::from_le_bytes(*length) as usize);
        self.0 = rest;
        // Every text was written from a str.
        Some(String::from_utf8_lossy(text).into_owned())
    }
}

#[derive(Default)]
pub(crate) struct Recorder {
    requests: Mutex<VecDeque<Kept>>,
}

impl Recorder {
    pub fn record(&self, method: &str, path: &str, query: &[(String, String)], headers: &HeaderMap, body: &Bytes) {
        let kept = Kept::new(method, path, query, headers, body);
        let mut requests = self.lock();
        let evicted = if requests.len() == CAPACITY { requests.pop_front() } else { None };
        requests.push_back(kept);
        drop(requests);
        drop(evicted);
    }

    pub fn snapshot(&self) -> Vec<RecordedRequest> {
        self.lock().iter().map(Kept::request).collect()
    }

    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        self.requests.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
