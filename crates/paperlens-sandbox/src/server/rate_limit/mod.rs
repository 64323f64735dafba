//! Optional per-minute quotas per resource: `meta-search` (`/meta-search`) and
//! `paper-schema` (every `/paper-schema` path, one shared quota), each counted by the
//! algorithm a [`RateLimitKind`] names. Refused requests never use up quota.
//!
//! Time is always passed in (`now`), so the algorithms are exact and testable without sleeping.

mod algorithms;

#[cfg(test)]
mod tests;

use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::errors::{is_meta_search, is_paper_schema};
use algorithms::{FixedWindow, SlidingWindow, TokenBucket};

const WINDOW: Duration = Duration::from_secs(60);
pub(crate) const RESOURCES: [&str; 2] = ["meta-search", "paper-schema"];

/// How a quota of N requests per minute is counted, as a real gateway may count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateLimitKind {
    /// Admitted when fewer than N requests were admitted in the 60 s before it.
    #[default]
    Sliding,
    /// At most N per 60 s window, windows aligned to the limiter's start; the count
    /// resets at each window boundary.
    Fixed,
    /// A bucket of N tokens, full at the start, refilled at N/60 tokens per second; each
    /// admitted request takes one.
    Bucket,
}

impl FromStr for RateLimitKind {
    type Err = String;

    fn from_str(name: &str) -> Result<RateLimitKind, String> {
        match name {
            "sliding" => Ok(RateLimitKind::Sliding),
            "fixed" => Ok(RateLimitKind::Fixed),
            "bucket" => Ok(RateLimitKind::Bucket),
            other => Err(format!("rate_limit_kind must be one of \"sliding\", \"fixed\" or \"bucket\", got {other:?}")),
        }
    }
}

/// The error of a rate limit of `resource` outside 1 to `u32::MAX` requests per minute,
/// `below` or above, `value` shown as the caller wrote it.
pub fn limit_outside(resource: &str, below: bool, value: impl std::fmt::Display) -> String {
    let rule = if below { "at least 1".to_string() } else { format!("at most {}", u32::MAX) };
    format!("rate limit of {resource} must be {rule} request per minute, got {value}")
}

#[derive(Default)]
pub(crate) struct RateLimiter {
    meta_search: Option<Mutex<Quota>>,
    paper_schema: Option<Mutex<Quota>>,
}

impl RateLimiter {
    /// Quotas of `limits` (requests per minute per resource) counted by `kind`; fixed
    /// windows start at `start`.
    pub fn new(limits: &[(String, u32)], kind: RateLimitKind, start: Instant) -> Result<RateLimiter, String> {
        let mut limiter = RateLimiter::default();
        for (resource, per_minute) in limits {
            if *per_minute == 0 {
                return Err(limit_outside(resource, true, per_minute));
            }
            let quota = Some(Mutex::new(Quota::new(kind, *per_minute, WINDOW, start)));
            match resource.as_str() {
                "meta-search" => limiter.meta_search = quota,
                "paper-schema" => limiter.paper_schema = quota,
                other => return Err(format!("unknown quota resource {other:?}: expected one of {RESOURCES:?}")),
            }
        }
        Ok(limiter)
    }

    /// Counts a request to `path` at `now`; `Err(wait)` when its resource's quota is
    /// exhausted, `wait` being the time until a request would be admitted.
    pub fn admit(&self, path: &str, now: Instant) -> Result<(), Duration> {
        let quota = if is_meta_search(path) {
            &self.meta_search
        } else if is_paper_schema(path) {
            &self.paper_schema
        } else {
            &None
        };
        match quota {
            Some(quota) => quota.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).admit(now),
            None => Ok(()),
        }
    }
}

enum Quota {
    Sliding(SlidingWindow),
    Fixed(FixedWindow),
    Bucket(TokenBucket),
}

impl Quota {
    fn new(kind: RateLimitKind, limit: u32, window: Duration, start: Instant) -> Quota {
        match kind {
            RateLimitKind::Sliding => Quota::Sliding(SlidingWindow::new(limit, window)),
            RateLimitKind::Fixed => Quota::Fixed(FixedWindow::new(limit, window, start)),
            RateLimitKind::Bucket => Quota::Bucket(TokenBucket::new(limit, window, start)),
        }
    }

    fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        match self {
            Quota::Sliding(quota) => quota.admit(now),
            Quota::Fixed(quota) => quota.admit(now),
            Quota::Bucket(quota) => quota.admit(now),
        }
    }
}
