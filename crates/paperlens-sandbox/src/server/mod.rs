//! The HTTP shell around [`crate::Service`]: authentication, request ids, rate limits,
//! fault injection, request recording and `/openapi.json`.
//!
//! [`Sandbox::start`] is async and must run inside a tokio runtime (multi-thread or
//! current-thread): the server task is spawned on that runtime and lives until
//! [`Sandbox::shutdown`] or until the [`Sandbox`] is dropped.

mod auth;
mod errors;
mod faults;
mod openapi;
mod rate_limit;
mod recorder;
mod shell;
mod trace;

#[cfg(test)]
mod contract_statuses;
#[cfg(test)]
mod tests;

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::serve::ListenerExt;
use paperlens_core::config::Count;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::service::{Service, ServiceConfig};

pub use faults::{Fault, FaultKind};
pub use rate_limit::{limit_outside, RateLimitKind};
pub use recorder::RecordedRequest;

use auth::Tokens;
use faults::FaultQueue;
use rate_limit::RateLimiter;
use recorder::Recorder;
use shell::Shell;

/// How long [`Sandbox::shutdown`] lets in-flight requests finish before aborting.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The corpus sizes a sandbox is made with: a paper takes about 7 KB and 250 µs to build, so
/// the most is about 7 GB of memory and four minutes; more is refused, not tried.
pub const PAPERS: Count = Count { name: "papers", least: 1, most: 1_000_000 };

#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// Within [`PAPERS`].
    pub papers: usize,
    pub seed: u64,
    /// The full-access token; generated when None.
    pub token: Option<String>,
    /// Requests per minute per quota resource (`meta-search`, `paper-schema`); None: unlimited.
    pub rate_limits: Option<Vec<(String, u32)>>,
    /// How the quotas of `rate_limits` are counted.
    pub rate_limit_kind: RateLimitKind,
    pub int64_as_string: bool,
    /// A fixed wait before every authenticated `/content` and `/resource` answer, as a
    /// service across a network has: harvests of full texts are then latency-bound.
    pub content_latency: Option<Duration>,
    /// The share (0 to 1) of the papers hidden from `/meta-search` until revealed: a corpus
    /// that grows (see [`crate::service::growth`]). 0: all visible.
    pub hidden_share: f64,
    /// Reveal the hidden papers once this many authenticated requests have been handled.
    pub reveal_after: Option<u64>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            host: "127.0.0.1".into(),
            port: 0,
            papers: 2000,
            seed: 0,
            token: None,
            rate_limits: None,
            rate_limit_kind: RateLimitKind::default(),
            int64_as_string: false,
            content_latency: None,
            hidden_share: 0.0,
            reveal_after: None,
        }
    }
}

/// A running sandbox server.
pub struct Sandbox {
    base_url: String,
    shell: Arc<Shell>,
    stop: watch::Sender<bool>,
    server: JoinHandle<()>,
}

impl Sandbox {
    /// Builds the corpus (on a blocking thread), binds `host:port` and starts serving.
    pub async fn start(config: SandboxConfig) -> io::Result<Sandbox> {
        let limits = config.rate_limits.as_deref().unwrap_or(&[]);
        let limiter = RateLimiter::new(limits, config.rate_limit_kind, Instant::now())
            .map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
        let tokens = Tokens::new(config.token.clone())
            .map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
        let papers = PAPERS
            .within(config.papers as u64)
            .map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
        let service_config = ServiceConfig { papers, seed: config.seed, int64_as_string: config.int64_as_string };
        if !(0.0..=1.0).contains(&config.hidden_share) {
            let message = format!("hidden_share must be from 0 to 1, got {}", config.hidden_share);
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        }
        let (share, reveal_after) = (config.hidden_share, config.reveal_after);
        let build = tokio::task::spawn_blocking(move || Service::build(service_config).growing(share, reveal_after));
        let listener = TcpListener::bind((config.host.as_str(), config.port)).await?;
        let base_url = base_url_for(listener.local_addr()?);
        let service = build.await.map_err(io::Error::other)?;

        let (stop, stopped) = watch::channel(false);
        let shell = Arc::new(Shell {
            service,
            tokens,
            limiter,
            faults: FaultQueue::default(),
            recorder: Recorder::default(),
            stopped: stopped.clone(),
            content_latency: config.content_latency,
        });
        let listener = listener.tap_io(|stream| {
            // Small JSON answers: do not let Nagle hold them back.
            let _ = stream.set_nodelay(true);
        });
        let router = shell::router(shell.clone());
        let server = tokio::spawn(async move {
            let mut stopped = stopped;
            let signal = async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            };
            let _ = axum::serve(listener, router).with_graceful_shutdown(signal).await;
        });
        Ok(Sandbox { base_url, shell, stop, server })
    }

    /// `http://HOST:PORT`, without a trailing slash; a wildcard bind is reached on loopback.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn token(&self) -> &str {
        &self.shell.tokens.full
    }

    pub fn restricted_token(&self) -> &str {
        &self.shell.tokens.restricted
    }

    /// Queues a fault for the next `fault.times` authenticated requests to `fault.path`.
    pub fn inject_fault(&self, fault: Fault) {
        self.shell.faults.push(fault);
    }

    /// The requests received so far (the most recent 10,000), oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shell.recorder.snapshot()
    }

    pub fn clear_requests(&self) {
        self.shell.recorder.clear();
    }

    /// Reveals the papers `hidden_share` hid: from the next request on, searches see them.
    pub fn reveal(&self) {
        self.shell.service.reveal();
    }

    /// How many papers are hidden from searches now.
    pub fn hidden(&self) -> usize {
        self.shell.service.growth().hidden_count()
    }

    /// Stops accepting connections, cuts injected delays short, lets in-flight requests
    /// finish (aborting after a short grace period) and waits for the server to stop.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        let server = &mut self.server;
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut *server).await.is_err() {
            server.abort();
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

fn base_url_for(address: SocketAddr) -> String {
    let ip = match address.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, address.port()))
}
