//! Where requests of one quota resource (or one operation) wait their turn: first come,
//! first served, each waiting until the pacing state lets it go. A ticket is given back when
//! its request is answered, refused or dropped, which wakes the waiting.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::{Notify, Semaphore, SemaphorePermit};
use tokio::time::Instant;

use super::adaptive::Adaptive;
use super::window::Window;
use super::Outcome;
use crate::error::Error;

/// A step on a pacing state: at once for a state kept here, a round trip for one kept on a
/// server. `Err`: the state could not be reached.
pub type Step<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// A step already done.
pub fn done<'a, T: Send + 'a>(value: T) -> Step<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

/// A pacing state and its clock, kept in this process or shared with others. Each step reads
/// the time on the state's own clock (for a state kept on a server, the server's, in the same
/// round trip), so that a wait never mixes two clocks.
pub trait Cell: Send + Sync {
    /// Takes slot `id`, or tells how long to wait before trying again.
    fn take(&self, id: u64) -> Step<'_, Result<(), Duration>>;
    fn finish(&self, id: u64, outcome: Outcome) -> Step<'_, ()>;
    /// The limit in force and whether a 429's pause holds requests back now, to tell while a
    /// request waits.
    fn in_force(&self) -> Step<'_, InForce>;
    /// Waits are cut to this to see what other processes changed; `None`: nobody else does.
    fn recheck(&self) -> Option<Duration> {
        None
    }
}

pub struct Gate {
    name: &'static str,
    cell: Box<dyn Cell>,
    turn: tokio::sync::Mutex<()>,
    changed: Notify,
    /// 429s seen so far: a slot taken before one is taken again under what it taught.
    refusals: AtomicU64,
}

/// The limit in force on a state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InForce {
    /// Requests per minute (the configured limit, or the lower one learned); `None`: unlimited.
    pub per_minute: Option<u32>,
    /// A 429's pause holds every request back now.
    pub paused: bool,
}

/// Why a request waits, told once when it starts to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Held {
    /// The quota resource or operation.
    pub quota: &'static str,
    /// The expected wait.
    pub wait: Duration,
    /// The requests per minute in force (0: unlimited, or not yet known).
    pub per_minute: u32,
    /// The wait is the pause a 429 advised, not the rate.
    pub paused: bool,
}

/// Told when a request has to wait.
pub type OnWait<'a> = dyn FnMut(Held) + Send + 'a;

impl Gate {
    pub fn new(name: &'static str, cell: Box<dyn Cell>) -> Arc<Gate> {
        let (turn, changed, refusals) = (tokio::sync::Mutex::new(()), Notify::new(), AtomicU64::new(0));
        Arc::new(Gate { name, cell, turn, changed, refusals })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The requests per minute in force now; `None`: not paced. `Err`: the shared pacing
    /// state could not be reached.
    pub async fn per_minute(&self) -> Result<Option<u32>, Error> {
        Ok(self.cell.in_force().await?.per_minute)
    }

    /// Waits for this request's turn, its slot and a place among the requests in flight.
    /// Dropping the future while it waits leaves no trace. `Err`: the shared pacing state
    /// could not be reached.
    pub async fn enter<'s>(
        self: &Arc<Self>,
        in_flight: &'s Semaphore,
        on_wait: &mut OnWait<'_>,
    ) -> Result<(Ticket, SemaphorePermit<'s>), Error> {
        let _turn = self.turn.lock().await;
        let mut told = false;
        loop {
            let ticket = self.slot(&mut told, on_wait).await?;
            let refusals = self.refusals.load(Ordering::Acquire);
            let permit = in_flight.acquire().await.expect("the semaphore is never closed");
            if self.refusals.load(Ordering::Acquire) == refusals {
                return Ok((ticket, permit));
            }
            // A 429 came while this request waited for a place in flight: its slot was taken
            // before the pause. Give it back (dropping the unsent ticket) and wait again.
        }
    }

    async fn slot(self: &Arc<Self>, told: &mut bool, on_wait: &mut OnWait<'_>) -> Result<Ticket, Error> {
        let id = rand::random();
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let wait = match self.cell.take(id).await? {
                Ok(()) => return Ok(Ticket { gate: Arc::clone(self), id, sent: false, done: false }),
                Err(wait) => wait,
            };
            // Never a zero wait: with time paused (in tests) it would spin without time passing.
            let mut wait = wait.max(Duration::from_millis(1));
            if !*told {
                *told = true;
                let InForce { per_minute, paused } = self.cell.in_force().await?;
                on_wait(Held { quota: self.name, wait, per_minute: per_minute.unwrap_or_default(), paused });
            }
            if let Some(recheck) = self.cell.recheck() {
                wait = wait.min(recheck);
            }
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = &mut notified => {}
            }
        }
    }

    async fn finish(self: Arc<Self>, id: u64, outcome: Outcome) {
        if let Outcome::Refused { pause: Some(_) } = outcome {
            self.refusals.fetch_add(1, Ordering::AcqRel);
        }
        // A shared state lost meanwhile is told to the next request that asks for a slot; this
        // one's answer has arrived (its slot, never marked answered, counts until it is stale).
        let _ = self.cell.finish(id, outcome).await;
        self.changed.notify_waiters();
    }
}

/// A request's place in its gate. Dropped unfinished, it counts if it was sent (the gateway
/// may have counted it) and is given back if it was not.
pub struct Ticket {
    gate: Arc<Gate>,
    id: u64,
    sent: bool,
    done: bool,
}

impl Ticket {
    pub fn sent(&mut self) {
        self.sent = true;
    }

    /// Done once the pacing state has learned the outcome. Dropped before (the call given
    /// up meanwhile), the ticket is finished as if dropped unfinished: counted if sent.
    pub async fn finish(mut self, outcome: Outcome) {
        Arc::clone(&self.gate).finish(self.id, outcome).await;
        self.done = true;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let outcome = if self.sent { Outcome::Counted } else { Outcome::Unsent };
        let mut finish = Box::pin(Arc::clone(&self.gate).finish(self.id, outcome));
        // A state kept here is done at once; a shared one's round trip goes on without us.
        if (&mut finish).now_or_never().is_none() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(finish);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A quota window kept in this process, on a monotonic clock.
pub struct LocalWindow {
    origin: Instant,
    configured: Option<u32>,
    window: Mutex<Window>,
}

impl LocalWindow {
    pub fn new(configured: Option<u32>) -> LocalWindow {
        LocalWindow { origin: Instant::now(), configured, window: Mutex::default() }
    }
}

impl Cell for LocalWindow {
    fn take(&self, id: u64) -> Step<'_, Result<(), Duration>> {
        let now = self.origin.elapsed();
        done(lock(&self.window).take(id, self.configured, now).map_err(|at| at.saturating_sub(now)))
    }

    fn finish(&self, id: u64, outcome: Outcome) -> Step<'_, ()> {
        lock(&self.window).finish(id, outcome, self.configured, self.origin.elapsed());
        done(())
    }

    fn in_force(&self) -> Step<'_, InForce> {
        done(lock(&self.window).in_force(self.configured, self.origin.elapsed()))
    }
}

/// An operation's adaptive rate, kept in this process, on a monotonic clock.
pub struct LocalAdaptive {
    origin: Instant,
    state: Mutex<Adaptive>,
}

impl LocalAdaptive {
    pub fn new() -> LocalAdaptive {
        LocalAdaptive { origin: Instant::now(), state: Mutex::default() }
    }
}

impl Cell for LocalAdaptive {
    fn take(&self, _id: u64) -> Step<'_, Result<(), Duration>> {
        let now = self.origin.elapsed();
        done(lock(&self.state).take(now).map_err(|at| at.saturating_sub(now)))
    }

    fn finish(&self, _id: u64, outcome: Outcome) -> Step<'_, ()> {
        lock(&self.state).finish(outcome, self.origin.elapsed());
        done(())
    }

    fn in_force(&self) -> Step<'_, InForce> {
        let state = lock(&self.state);
        let per_minute = state.rate().map(|rate| (rate * 60.0).round() as u32);
        done(InForce { per_minute, paused: state.paused(self.origin.elapsed()) })
    }
}
