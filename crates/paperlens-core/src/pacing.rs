//! Client-side pacing: at most N requests per minute per quota resource, shared by every
//! thread and task of a client (and of the clients `with_options` derives from it).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::request::Quota;

const WINDOW: Duration = Duration::from_secs(60);

/// A sliding window per quota: a request may start when fewer than N requests started
/// in the 60 seconds before it. Slots are reserved in order, so waiters are served FIFO.
pub struct Pacer {
    windows: HashMap<Quota, (u32, Mutex<VecDeque<Instant>>)>,
}

impl Pacer {
    pub fn new(limits: &HashMap<Quota, u32>) -> Pacer {
        let windows = limits.iter().map(|(q, n)| (*q, (*n, Mutex::new(VecDeque::new())))).collect();
        Pacer { windows }
    }

    pub fn per_minute(&self, quota: Quota) -> Option<u32> {
        self.windows.get(&quota).map(|(n, _)| *n)
    }

    /// Reserves the next slot of `quota` and returns how long to wait for it.
    pub fn reserve(&self, quota: Quota) -> Duration {
        let Some((limit, starts)) = self.windows.get(&quota) else {
            return Duration::ZERO;
        };
        let now = Instant::now();
        let mut starts = starts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while starts.front().is_some_and(|t| *t + WINDOW <= now) {
            starts.pop_front();
        }
        let mut at = starts.back().copied().map_or(now, |last| last.max(now));
        let limit = *limit as usize;
        if starts.len() >= limit {
            at = at.max(starts[starts.len() - limit] + WINDOW);
        }
        starts.push_back(at);
        at - now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pacer(n: u32) -> Pacer {
        Pacer::new(&HashMap::from([(Quota::MetaSearch, n)]))
    }

    #[tokio::test(start_paused = true)]
    async fn bursts_up_to_the_limit_then_waits_for_the_window() {
        let pacer = pacer(3);
        for _ in 0..3 {
            assert_eq!(pacer.reserve(Quota::MetaSearch), Duration::ZERO);
        }
        assert_eq!(pacer.reserve(Quota::MetaSearch), WINDOW);
        assert_eq!(pacer.reserve(Quota::MetaSearch), WINDOW);
        tokio::time::advance(Duration::from_secs(61)).await;
        // Two slots reserved at +60 s are still in the window: one more fits, then a wait.
        assert_eq!(pacer.reserve(Quota::MetaSearch), Duration::ZERO);
        assert_eq!(pacer.reserve(Quota::MetaSearch), Duration::from_secs(59));
    }

    #[tokio::test(start_paused = true)]
    async fn no_window_of_sixty_seconds_holds_more_than_the_limit() {
        let pacer = pacer(5);
        let mut starts = Vec::new();
        for _ in 0..23 {
            starts.push(Instant::now() + pacer.reserve(Quota::MetaSearch));
            tokio::time::advance(Duration::from_millis(700)).await;
        }
        for (i, start) in starts.iter().enumerate() {
            let within = starts[i..].iter().filter(|t| **t < *start + WINDOW).count();
            assert!(within <= 5, "{within} starts within a minute of start {i}");
        }
    }

    #[test]
    fn unpaced_quota_never_waits() {
        let pacer = Pacer::new(&HashMap::new());
        assert_eq!(pacer.reserve(Quota::PaperSchema), Duration::ZERO);
        assert_eq!(pacer.per_minute(Quota::PaperSchema), None);
    }
}
