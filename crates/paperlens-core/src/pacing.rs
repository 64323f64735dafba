//! Client-side pacing, shared by every thread and task of a client and by the clients
//! `with_options` derives from it:
//!
//! - each quota resource (meta-search, paper-schema) keeps to its requests per minute,
//!   counting a request from its answer, learning a lower limit from 429s, and pausing on a
//!   429 until the advised time (`window`); optionally shared with other processes
//!   through a file or a Redis server (`shared`), whose steps never block a runtime thread;
//! - each operation without a documented quota slows down adaptively on 429s (`adaptive`);
//! - at most `max_concurrency` requests of the client are in flight at once.

mod adaptive;
mod gate;
mod shared;
#[cfg(test)]
mod simulation;
mod window;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::config::ClientConfig;
use crate::error::Error;
use crate::events::EventSink;
use crate::request::{ApiRequest, Quota};
use gate::{Gate, LocalAdaptive, LocalWindow};
pub use gate::{Held, OnWait, Ticket};
pub use window::WINDOW;

/// How an attempt ended, for the pacing state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Answered (or sent and never answered): the gateway may have counted it.
    Counted,
    /// Never sent.
    Unsent,
    /// Refused with 429; the resource pauses for `pause`, if given.
    Refused { pause: Option<Duration> },
}

/// Operations without a documented quota, each paced adaptively on its own.
const OPERATIONS: [&str; 5] = ["agentic-search", "content", "resource", "meta-paper-relations", "meta-catalog"];
const OTHER: &str = "other";

pub struct Pacer {
    quotas: HashMap<Quota, Arc<Gate>>,
    operations: HashMap<&'static str, Arc<Gate>>,
    in_flight: Semaphore,
}

impl Pacer {
    /// `events` hears of a shared pacing state reset for holding times from the future.
    pub fn new(config: &ClientConfig, events: &Arc<dyn EventSink>) -> Result<Pacer, Error> {
        let mut quotas = HashMap::new();
        let shared = config.shared_pacing.as_ref().map(|store| shared::Shared::open(store, config)).transpose()?;
        for quota in Quota::ALL {
            let configured = config.rate_limits.get(&quota).copied();
            let cell = match &shared {
                Some(shared) => shared.window(quota, configured, events),
                None => Box::new(LocalWindow::new(configured)),
            };
            quotas.insert(quota, Gate::new(quota.name(), cell));
        }
        let operations = OPERATIONS
            .into_iter()
            .chain([OTHER])
            .map(|name| (name, Gate::new(name, Box::new(LocalAdaptive::new()))))
            .collect();
        Ok(Pacer { quotas, operations, in_flight: Semaphore::new(config.max_concurrency) })
    }

    /// Waits until `request` may be sent: its turn, a free slot of its quota, no pause, and a
    /// place among the client's `max_concurrency` requests in flight (the permit). `Err`: the
    /// shared pacing state could not be reached.
    pub async fn enter(
        &self,
        request: &ApiRequest,
        on_wait: &mut OnWait<'_>,
    ) -> Result<(Ticket, SemaphorePermit<'_>), Error> {
        let gate = match request.quota {
            Some(quota) => &self.quotas[&quota],
            None => &self.operations[operation(&request.path)],
        };
        gate.enter(&self.in_flight, on_wait).await
    }

    /// The requests per minute in force now, by quota resource (the configured limit, or the
    /// lower one learned from 429s) and by operation slowed down after 429s; a resource or
    /// operation that is not paced is absent.
    pub async fn rates(&self) -> Result<Vec<(&'static str, u32)>, Error> {
        let mut rates = Vec::new();
        for gate in self.quotas.values().chain(self.operations.values()) {
            if let Some(per_minute) = gate.per_minute().await? {
                rates.push((gate.name(), per_minute));
            }
        }
        Ok(rates)
    }
}

/// A 429's wait at least this long suggests a daily quota used up rather than a per-minute one.
const HOURS: Duration = Duration::from_secs(3600);

/// What a `QuotaExhaustedError` says of a 429 asking for `wait`, longer than the client's
/// `max_rate_limit_wait` (`limit`): what is known, and a daily quota only for a wait of hours.
pub fn quota_exhausted_hint(wait: Duration, limit: Duration, retry_at: SystemTime) -> String {
    let daily =
        if wait >= HOURS { " (a wait of hours usually means a daily quota is used up until it resets)" } else { "" };
    format!(
        "the quota is exhausted until {}: the service asks to wait {:.0} s, longer than \
         max_rate_limit_wait={:.0} s{daily}; try again after that time, or raise max_rate_limit_wait",
        httpdate::fmt_http_date(retry_at),
        wait.as_secs_f64(),
        limit.as_secs_f64(),
    )
}

fn operation(path: &str) -> &'static str {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or_default();
    OPERATIONS.into_iter().find(|name| *name == first).unwrap_or(OTHER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_exhausted_hint_speaks_of_a_daily_quota_only_for_a_wait_of_hours() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let short = quota_exhausted_hint(Duration::from_secs(45), Duration::from_secs(30), at);
        assert_eq!(
            short,
            "the quota is exhausted until Fri, 15 Jan 2027 08:00:00 GMT: the service asks to wait 45 s, longer \
             than max_rate_limit_wait=30 s; try again after that time, or raise max_rate_limit_wait"
        );
        let long = quota_exhausted_hint(Duration::from_secs(7200), Duration::from_secs(60), at);
        assert!(long.contains("wait 7200 s") && long.contains("a daily quota is used up until it resets"), "{long}");
    }

    #[test]
    fn operations_by_path() {
        for (path, name) in [
            ("/agentic-search", "agentic-search"),
            ("/meta-paper-relations", "meta-paper-relations"),
            ("/somewhere/else", OTHER),
        ] {
            assert_eq!(operation(path), name, "{path}");
        }
    }
}
