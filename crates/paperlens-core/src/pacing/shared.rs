//! A quota window shared by the processes that use the same token and base URL: kept in a
//! file on one machine ([`file`]) or on a Redis server for any number of machines
//! ([`redis`]). Each process steps the window with the same arithmetic ([`Window`]); a store
//! only makes each step atomic and gives its time, on a clock every sharer reads alike (the
//! machine's monotonic clock for a file, the server's for Redis). The store names each client
//! by a hash of its token and base URL; the token itself is never written.
//!
//! A step whose reply was lost (a Redis reply timed out after the server applied it) may or
//! may not have happened: its slot is settled by id with the next step (and at once, in the
//! background), so a lost reply never leaves a slot counted until it is stale. A window
//! holding times from the future is reset, with a warning.

mod file;
mod redis;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::gate::{Cell, InForce, Step};
use super::window::Window;
use super::Outcome;
use crate::config::{ClientConfig, PacingStore};
use crate::error::Error;
use crate::events::{Event, EventSink};
use crate::request::Quota;

/// How often a waiting request looks again at what the other processes did.
const RECHECK: Duration = Duration::from_millis(50);

/// At most this many steps of unknown fate are remembered (beyond, the oldest count until
/// they are stale, as a dead process's do).
const MAX_UNSETTLED: usize = 1024;

/// The pauses before each background try at settling a step whose reply was lost.
const SETTLE_PAUSES: [Duration; 4] =
    [Duration::ZERO, Duration::from_millis(500), Duration::from_secs(2), Duration::from_secs(8)];

/// A step of a window at the store's time now; it may run more than once (see [`Store::update`]).
pub trait WindowStep<R>: Fn(&mut Window, Duration) -> R + Send {}

impl<R, F: Fn(&mut Window, Duration) -> R + Send> WindowStep<R> for F {}

/// Where the windows of a client are kept.
pub trait Store: Send + Sync + 'static {
    /// Applies `step` to the window of `quota` at the store's time now (its second argument),
    /// with no other process stepping it meanwhile (`step` may run again, on a fresher copy,
    /// before one run is kept).
    fn update<'a, R: Send + 'a>(&'a self, quota: &'static str, step: impl WindowStep<R> + 'a) -> Step<'a, R>;

    /// The store as messages name it (never a password).
    fn describe(&self) -> String;
}

/// The store of a client's shared pacing, checked to be usable when opened.
pub enum Shared {
    File(Arc<file::FileStore>),
    Redis(Arc<redis::RedisStore>),
}

impl Shared {
    pub fn open(store: &PacingStore, config: &ClientConfig) -> Result<Shared, Error> {
        let key = client_key(config);
        Ok(match store {
            PacingStore::File(path) => Shared::File(Arc::new(file::FileStore::open(path, key, config)?)),
            PacingStore::Redis(url) => Shared::Redis(Arc::new(redis::RedisStore::open(url, key, config)?)),
        })
    }

    /// The window of `quota`, configured to `configured` requests per minute; a window reset
    /// for holding times from the future is told to `events`.
    pub fn window(&self, quota: Quota, configured: Option<u32>, events: &Arc<dyn EventSink>) -> Box<dyn Cell> {
        match self {
            Shared::File(store) => SharedWindow::boxed(store, quota, configured, events),
            Shared::Redis(store) => SharedWindow::boxed(store, quota, configured, events),
        }
    }
}

struct SharedWindow<S> {
    store: Arc<S>,
    quota: &'static str,
    configured: Option<u32>,
    events: Arc<dyn EventSink>,
    /// Slots whose last step's reply was lost, and the outcome to settle each with.
    unsettled: Arc<Mutex<Vec<(u64, Outcome)>>>,
}

impl<S: Store> SharedWindow<S> {
    fn boxed(store: &Arc<S>, quota: Quota, configured: Option<u32>, events: &Arc<dyn EventSink>) -> Box<dyn Cell> {
        Box::new(SharedWindow {
            store: Arc::clone(store),
            quota: quota.name(),
            configured,
            events: Arc::clone(events),
            unsettled: Arc::default(),
        })
    }

    /// Runs `step` on the window, settling the slots of lost replies first. `fate`: the slot
    /// and outcome to settle later should this step's reply be lost.
    fn step<'a, R: Send + 'a>(
        &'a self,
        fate: Option<(u64, Outcome)>,
        step: impl Fn(&mut Window, Option<u32>, Duration) -> R + Send + 'a,
    ) -> Step<'a, R> {
        Box::pin(async move {
            match settled_step(&*self.store, self.quota, self.configured, &self.unsettled, &self.events, step).await {
                Ok(result) => Ok(result),
                Err(error) => {
                    if let Some(fate) = fate {
                        self.settle_soon(fate);
                    }
                    Err(error)
                }
            }
        })
    }

    /// Remembers `fate` for the next step, and tries steps in the background until one is kept.
    fn settle_soon(&self, fate: (u64, Outcome)) {
        let mut unsettled = lock(&self.unsettled);
        if unsettled.len() >= MAX_UNSETTLED {
            unsettled.remove(0);
        }
        unsettled.push(fate);
        drop(unsettled);
        let (store, unsettled, events) =
            (Arc::clone(&self.store), Arc::clone(&self.unsettled), Arc::clone(&self.events));
        let (quota, configured) = (self.quota, self.configured);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                // A reply held up on a slow connection holds up the next ones too: a few tries, spaced out.
                for pause in SETTLE_PAUSES {
                    tokio::time::sleep(pause).await;
                    if !lock(&unsettled).contains(&fate) {
                        return;
                    }
                    if settled_step(&*store, quota, configured, &unsettled, &events, |_, _, _| ()).await.is_ok() {
                        return;
                    }
                }
            });
        }
    }
}

/// One step of `quota`'s window in `store`: a window from the future reset first (and told),
/// then the unsettled slots settled (and forgotten once the step is kept), then `step`.
async fn settled_step<R: Send, S: Store>(
    store: &S,
    quota: &'static str,
    configured: Option<u32>,
    unsettled: &Mutex<Vec<(u64, Outcome)>>,
    events: &Arc<dyn EventSink>,
    step: impl Fn(&mut Window, Option<u32>, Duration) -> R + Send,
) -> Result<R, Error> {
    let pending = lock(unsettled).clone();
    let settle = pending.clone();
    let (result, reset) = store
        .update(quota, move |window, now| {
            let reset = window.is_from_the_future(now);
            if reset {
                *window = Window::default();
            }
            for &(id, outcome) in &settle {
                window.settle(id, outcome, configured, now);
            }
            (step(window, configured, now), reset)
        })
        .await?;
    if !pending.is_empty() {
        lock(unsettled).retain(|fate| !pending.contains(fate));
    }
    if reset {
        // Told only now: a step may run where fork() is held off, and telling takes the GIL.
        events.emit(Event::PacingReset { quota, store: store.describe() });
    }
    Ok(result)
}

impl<S: Store> Cell for SharedWindow<S> {
    fn take(&self, id: u64) -> Step<'_, Result<(), Duration>> {
        self.step(Some((id, Outcome::Unsent)), move |window, configured, now| {
            window.take(id, configured, now).map_err(|at| at.saturating_sub(now))
        })
    }

    fn finish(&self, id: u64, outcome: Outcome) -> Step<'_, ()> {
        self.step(Some((id, outcome)), move |window, configured, now| window.finish(id, outcome, configured, now))
    }

    fn in_force(&self) -> Step<'_, InForce> {
        self.step(None, |window, configured, now| window.in_force(configured, now))
    }

    fn recheck(&self) -> Option<Duration> {
        Some(RECHECK)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Who shares: the same token against the same service. A hash, so no store holds the token.
fn client_key(config: &ClientConfig) -> String {
    let mut hash = Sha256::new();
    hash.update(config.token.expose().as_bytes());
    hash.update(b"\n");
    hash.update(config.base_url.as_str().as_bytes());
    hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// What every store must do, run over each of them by its tests.
#[cfg(test)]
pub mod scenarios {
    use super::*;
    use crate::pacing::window::WINDOW;

    /// The windows reset for holding times from the future, as `<quota> in <store>`.
    #[derive(Default)]
    pub struct Told(Mutex<Vec<String>>);

    impl Told {
        pub fn sink() -> Arc<Told> {
            Arc::default()
        }

        pub fn resets(&self) -> Vec<String> {
            lock(&self.0).clone()
        }
    }

    impl EventSink for Told {
        fn emit(&self, event: Event) {
            if let Event::PacingReset { quota, store } = event {
                lock(&self.0).push(format!("{quota} in {store}"));
            }
        }
    }

    /// Two clients of one token share a window of 2 a minute; one of another token has its own.
    /// `window(token)` opens a client's window on the store under test.
    pub async fn two_sharers_and_another_token(window: impl Fn(&str) -> Box<dyn Cell>) {
        let (a, b, other) = (window("tok-secret"), window("tok-secret"), window("tok-other"));
        assert_eq!(a.take(1).await.unwrap(), Ok(()));
        assert_eq!(b.take(2).await.unwrap(), Ok(()));
        let Err(wait) = a.take(3).await.unwrap() else { panic!("the window is full for both") };
        // Both in flight: the earliest a slot frees is a window from now.
        assert!(WINDOW - Duration::from_secs(2) < wait && wait <= WINDOW, "{wait:?}");
        assert_eq!(other.take(4).await.unwrap(), Ok(()), "another token has its own window");
        b.finish(1, Outcome::Refused { pause: None }).await.unwrap();
        assert_eq!(a.take(3).await.unwrap(), Ok(()), "a refusal seen by one frees the slot for all");
    }

    /// A full window of 2 a minute, all of its times then moved an hour ahead by `move_ahead`
    /// (what a wall clock stepped back an hour, or a failover to a server whose clock is an
    /// hour behind, makes of a state): the next step resets it, tells `told`, and waits no
    /// window at all.
    pub async fn a_state_from_the_future_is_reset(window: &dyn Cell, move_ahead: impl Fn(Duration), told: &Told) {
        for id in 1..=2 {
            assert_eq!(window.take(id).await.unwrap(), Ok(()));
            window.finish(id, Outcome::Counted).await.unwrap();
        }
        let Err(wait) = window.take(3).await.unwrap() else { panic!("a window of 2 holds 2") };
        assert!(wait <= WINDOW, "{wait:?}");
        assert!(told.resets().is_empty());
        move_ahead(Duration::from_secs(3600));
        assert_eq!(window.take(3).await.unwrap(), Ok(()), "a fresh window");
        let resets = told.resets();
        assert!(resets.len() == 1 && resets[0].starts_with("meta-search in the "), "{resets:?}");
        assert_eq!(window.take(4).await.unwrap(), Ok(()));
        let Err(wait) = window.take(5).await.unwrap() else { panic!("a window of 2 holds 2") };
        assert!(wait <= WINDOW, "{wait:?}");
        assert_eq!(told.resets().len(), 1, "told once");
    }
}
