//! Optional per-minute quotas per resource: `meta-search` (`/meta-search`) and
//! `paper-schema` (every `/paper-schema` path, one shared quota), as sliding windows.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::errors::{is_meta_search, is_paper_schema};

const WINDOW: Duration = Duration::from_secs(60);
pub(crate) const RESOURCES: [&str; 2] = ["meta-search", "paper-schema"];

#[derive(Default)]
pub(crate) struct RateLimiter {
    meta_search: Option<Mutex<SlidingWindow>>,
    paper_schema: Option<Mutex<SlidingWindow>>,
}

impl RateLimiter {
    pub fn from_config(limits: &[(String, u32)]) -> Result<RateLimiter, String> {
        let mut limiter = RateLimiter::default();
        for (resource, per_minute) in limits {
            if *per_minute == 0 {
                return Err(format!(
                    "rate limit of {resource} must be at least 1 request per minute"
                ));
            }
            let window = Some(Mutex::new(SlidingWindow::new(*per_minute)));
            match resource.as_str() {
                "meta-search" => limiter.meta_search = window,
                "paper-schema" => limiter.paper_schema = window,
                other => {
                    return Err(format!(
                        "unknown quota resource {other:?}: expected one of {RESOURCES:?}"
                    ))
                }
            }
        }
        Ok(limiter)
    }

    /// Counts a request to `path`; `Err(wait)` when its resource's quota is exhausted.
    pub fn admit(&self, path: &str, now: Instant) -> Result<(), Duration> {
        let window = if is_meta_search(path) {
            &self.meta_search
        } else if is_paper_schema(path) {
            &self.paper_schema
        } else {
            &None
        };
        match window {
            Some(window) => window
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .admit(now),
            None => Ok(()),
        }
    }
}

/// The instants of the requests admitted during the last minute; refused ones do not count.
struct SlidingWindow {
    limit: usize,
    admitted: VecDeque<Instant>,
}

impl SlidingWindow {
    fn new(per_minute: u32) -> SlidingWindow {
        SlidingWindow {
            limit: per_minute as usize,
            admitted: VecDeque::new(),
        }
    }

    fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        while let Some(&oldest) = self.admitted.front() {
            if now.saturating_duration_since(oldest) >= WINDOW {
                self.admitted.pop_front();
            } else {
                break;
            }
        }
        if self.admitted.len() < self.limit {
            self.admitted.push_back(now);
            Ok(())
        } else {
            let oldest = self.admitted[0];
            Err((oldest + WINDOW).saturating_duration_since(now))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_refuses_past_the_limit_and_frees_a_slot_after_a_minute() {
        let limiter = RateLimiter::from_config(&[("paper-schema".into(), 2)]).unwrap();
        let start = Instant::now();
        assert!(limiter.admit("/paper-schema", start).is_ok());
        assert!(limiter
            .admit("/paper-schema/search", start + Duration::from_secs(10))
            .is_ok());
        let wait = limiter
            .admit("/paper-schema/materials", start + Duration::from_secs(20))
            .unwrap_err();
        assert_eq!(wait, Duration::from_secs(40));
        assert!(limiter
            .admit("/paper-schema", start + Duration::from_secs(60))
            .is_ok());
        assert!(limiter.admit("/meta-search", start).is_ok(), "no limit set");
        assert!(limiter.admit("/content", start).is_ok());
    }

    #[test]
    fn config_rejects_unknown_resources_and_zero() {
        assert!(RateLimiter::from_config(&[("content".into(), 5)]).is_err());
        assert!(RateLimiter::from_config(&[("meta-search".into(), 0)]).is_err());
    }
}
