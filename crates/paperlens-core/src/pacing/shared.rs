//! A quota window shared by the processes that use the same token and base URL: kept in a
//! file on one machine ([`file`]) or on a Redis server for any number of machines
//! ([`redis`]). Each process steps the window with the same arithmetic ([`Window`]); a store
//! only makes each step atomic. The store names each client by a hash of its token and base
//! URL; the token itself is never written. Times are seconds since the Unix epoch, on a clock
//! every sharer reads alike.

mod file;
mod redis;

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::gate::{Cell, Step};
use super::window::Window;
use super::Outcome;
use crate::config::{ClientConfig, PacingStore};
use crate::error::Error;
use crate::request::Quota;

/// How often a waiting request looks again at what the other processes did.
const RECHECK: Duration = Duration::from_millis(50);

/// Where the windows of a client are kept.
pub trait Store: Send + Sync + 'static {
    /// The clock the windows' times are on.
    fn now(&self) -> Duration;
    /// Applies `step` to the window of `quota` with no other process stepping it meanwhile
    /// (`step` may run again, on a fresher copy, before one run is kept).
    fn update<'a, R: Send + 'a>(
        &'a self,
        quota: &'static str,
        now: Duration,
        step: impl Fn(&mut Window) -> R + Send + 'a,
    ) -> Step<'a, R>;
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
            PacingStore::File(path) => Shared::File(Arc::new(file::FileStore::open(path, key)?)),
            PacingStore::Redis(url) => Shared::Redis(Arc::new(redis::RedisStore::open(url, key, config)?)),
        })
    }

    /// The window of `quota`, configured to `configured` requests per minute.
    pub fn window(&self, quota: Quota, configured: Option<u32>) -> Box<dyn Cell> {
        match self {
            Shared::File(store) => SharedWindow::boxed(store, quota, configured),
            Shared::Redis(store) => SharedWindow::boxed(store, quota, configured),
        }
    }
}

struct SharedWindow<S> {
    store: Arc<S>,
    quota: &'static str,
    configured: Option<u32>,
}

impl<S: Store> SharedWindow<S> {
    fn boxed(store: &Arc<S>, quota: Quota, configured: Option<u32>) -> Box<dyn Cell> {
        Box::new(SharedWindow { store: Arc::clone(store), quota: quota.name(), configured })
    }
}

impl<S: Store> Cell for SharedWindow<S> {
    fn now(&self) -> Duration {
        self.store.now()
    }

    fn take(&self, id: u64, now: Duration) -> Step<'_, Result<(), Duration>> {
        let configured = self.configured;
        self.store.update(self.quota, now, move |window| window.take(id, configured, now))
    }

    fn finish(&self, id: u64, outcome: Outcome, now: Duration) -> Step<'_, ()> {
        let configured = self.configured;
        self.store.update(self.quota, now, move |window| window.finish(id, outcome, configured, now))
    }

    fn per_minute(&self, now: Duration) -> Step<'_, Option<u32>> {
        let configured = self.configured;
        self.store.update(self.quota, now, move |window| window.per_minute(configured, now))
    }

    fn recheck(&self) -> Option<Duration> {
        Some(RECHECK)
    }
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
mod scenarios {
    use super::*;

    /// Two clients of one token share a window of 2 a minute; one of another token has its own.
    /// `window(token)` opens a client's window on the store under test.
    pub async fn two_sharers_and_another_token(window: impl Fn(&str) -> Box<dyn Cell>) {
        let (a, b, other) = (window("tok-secret"), window("tok-secret"), window("tok-other"));
        let now = a.now();
        assert_eq!(a.take(1, now).await.unwrap(), Ok(()));
        assert_eq!(b.take(2, now).await.unwrap(), Ok(()));
        assert!(a.take(3, now).await.unwrap().is_err(), "the window is full for both");
        assert_eq!(other.take(4, now).await.unwrap(), Ok(()), "another token has its own window");
        b.finish(1, Outcome::Refused { pause: None }, now).await.unwrap();
        assert_eq!(a.take(3, now).await.unwrap(), Ok(()), "a refusal seen by one frees the slot for all");
    }
}
