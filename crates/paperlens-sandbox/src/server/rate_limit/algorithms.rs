//! The three ways of counting a quota of `limit` requests per `window`. Each `admit`
//! either takes quota and answers `Ok`, or takes none and answers the exact wait after
//! which a request would be admitted.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The instants of the requests admitted during the last window.
pub(super) struct SlidingWindow {
    limit: usize,
    window: Duration,
    admitted: VecDeque<Instant>,
}

impl SlidingWindow {
    pub fn new(limit: u32, window: Duration) -> SlidingWindow {
        SlidingWindow { limit: limit as usize, window, admitted: VecDeque::new() }
    }

    pub fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        while self.admitted.front().is_some_and(|&oldest| now.saturating_duration_since(oldest) >= self.window) {
            self.admitted.pop_front();
        }
        if self.admitted.len() < self.limit {
            self.admitted.push_back(now);
            Ok(())
        } else {
            Err((self.admitted[0] + self.window).saturating_duration_since(now))
        }
    }
}

/// Windows `[start + k·window, start + (k+1)·window)`, each admitting `limit` requests.
pub(super) struct FixedWindow {
    limit: u32,
    window: Duration,
    start: Instant,
    current: u128,
    admitted: u32,
}

impl FixedWindow {
    pub fn new(limit: u32, window: Duration, start: Instant) -> FixedWindow {
        FixedWindow { limit, window, start, current: 0, admitted: 0 }
    }

    pub fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        let elapsed = now.saturating_duration_since(self.start);
        let index = elapsed.as_nanos() / self.window.as_nanos();
        if index != self.current {
            self.current = index;
            self.admitted = 0;
        }
        if self.admitted < self.limit {
            self.admitted += 1;
            Ok(())
        } else {
            let end = nanos((index + 1) * self.window.as_nanos());
            Err(end.saturating_sub(elapsed))
        }
    }
}

/// A bucket of `limit` tokens refilled at `limit` per `window`, kept in integer units
/// (one token = `window` nanoseconds' worth of units; refill = `limit` units per
/// nanosecond) so that waiting the answered time always finds a whole token.
pub(super) struct TokenBucket {
    limit: u128,
    token: u128,
    units: u128,
    refilled_at: Instant,
}

impl TokenBucket {
    pub fn new(limit: u32, window: Duration, start: Instant) -> TokenBucket {
        let token = window.as_nanos();
        TokenBucket { limit: u128::from(limit), token, units: u128::from(limit) * token, refilled_at: start }
    }

    pub fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        if now > self.refilled_at {
            let elapsed = now.duration_since(self.refilled_at).as_nanos();
            self.units = (self.units + elapsed * self.limit).min(self.limit * self.token);
            self.refilled_at = now;
        }
        if self.units >= self.token {
            self.units -= self.token;
            Ok(())
        } else {
            Err(nanos((self.token - self.units).div_ceil(self.limit)))
        }
    }
}

fn nanos(count: u128) -> Duration {
    Duration::from_nanos(u64::try_from(count).unwrap_or(u64::MAX))
}
