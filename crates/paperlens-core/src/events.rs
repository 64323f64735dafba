//! What the transport reports while it works, so that waits never look like hangs.

use std::time::Duration;

#[derive(Debug, Clone)]
pub enum Event {
    /// An attempt is about to be sent.
    Request { method: String, path: String, request_id: String, attempt: u32 },
    /// An attempt was answered.
    Response { status: u16, request_id: String, elapsed: Duration },
    /// An attempt failed and will be retried after `wait`.
    Retry {
        method: String,
        path: String,
        request_id: String,
        attempt: u32,
        max_retries: u32,
        wait: Duration,
        reason: String,
    },
    /// A call was answered from the response cache: nothing was sent.
    CacheHit { method: String, path: String, request_id: String, age: Duration },
    /// A cache entry failed its checks: it was deleted and the call is sent instead.
    CacheDamaged { method: String, path: String, entry: String, reason: &'static str },
    /// The response cache is off for this client: its folder or the user's cache key is unsafe
    /// or missing (`reason` names it and says why).
    CacheRefused { dir: String, reason: String },
    /// Client-side pacing holds a request back to stay within a quota (`per_minute`: the rate
    /// in force, learned or configured; 0: not known) or, `paused`, until the time a 429 advised.
    Paced { quota: &'static str, per_minute: u32, wait: Duration, paused: bool, request_id: String },
    /// A shared pacing state held times from the future (written on another clock: a wall
    /// clock stepped, a failover, a reboot) and was reset; `store` names where it is kept.
    PacingReset { quota: &'static str, store: String },
}

pub trait EventSink: Send + Sync {
    fn emit(&self, event: Event);
}

/// Drops every event (tests and callers that do not listen).
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: Event) {}
}
