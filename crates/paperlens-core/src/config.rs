//! Client settings: arguments first, then environment variables, then defaults.

mod pacing_file;

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use url::{Host, Url};

use crate::error::Error;
use crate::proxy::{self, ProxyUrl};
use crate::request::Quota;

pub const TOKEN_ENV: &str = "PAPERLENS_API_TOKEN";
pub const BASE_URL_ENV: &str = "PAPERLENS_BASE_URL";
/// The documented default quota of `/meta-search` and of all `/paper-schema` operations.
pub const DEFAULT_PER_MINUTE: u32 = 30;
/// How long a cached answer is served when `cache_ttl` is not given: one hour.
pub const DEFAULT_CACHE_TTL: f64 = 3600.0;
/// Requests in flight at once per client when `max_concurrency` is not given: enough to keep
/// a remote service busy, few enough to be a polite neighbour (and to open few connections).
pub const DEFAULT_MAX_CONCURRENCY: usize = 16;
/// The largest JSON answer read into memory when `max_response_bytes` is not given: 256 MiB,
/// far beyond any page the contract allows, well within a laptop's memory.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 256 << 20;
/// The largest `/resource` body streamed to disk when `max_download_bytes` is not given: 1 GiB.
pub const DEFAULT_MAX_DOWNLOAD_BYTES: u64 = 1 << 30;
/// How many times larger than its compressed bytes a gzip answer may grow when
/// `max_compression_ratio` is not given: JSON compresses 5 to 20 times, a gzip bomb 1000.
pub const DEFAULT_MAX_COMPRESSION_RATIO: u64 = 100;

/// The API token. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(token: String) -> Secret {
        Secret(token)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// `rate_limits` entries: a quota and its requests per minute (0: not paced).
pub type RateLimitEntries = Vec<(Quota, u32)>;

/// Settings as the caller gave them; `None` means "take the environment or the default".
#[derive(Debug, Clone, Default)]
pub struct ConfigInput {
    pub api_token: Option<String>,
    pub base_url: Option<String>,
    pub timeout: Option<f64>,
    pub connect_timeout: Option<f64>,
    /// Seconds a whole call may take, its retries and waits included; `None`: no bound.
    pub deadline: Option<f64>,
    pub max_retries: Option<u32>,
    pub retry_backoff: Option<f64>,
    pub max_rate_limit_wait: Option<f64>,
    pub service_source: Option<String>,
    /// `None`: the documented defaults; `Some(None)`: pacing off; `Some(Some(entries))`:
    /// overrides (a quota given twice: the last one holds).
    pub rate_limits: Option<Option<RateLimitEntries>>,
    pub validate: Option<bool>,
    pub user_agent: Option<String>,
    /// Where to cache successful read answers; `None`: no cache.
    pub cache_dir: Option<PathBuf>,
    /// `None`: the default TTL; `Some(None)`: entries never expire; `Some(Some(s))`: seconds.
    pub cache_ttl: Option<Option<f64>>,
    /// At most this many requests in flight, at least 1; `None`: [`DEFAULT_MAX_CONCURRENCY`].
    pub max_concurrency: Option<i64>,
    pub shared_pacing: SharedPacing,
    /// A PEM file of CA certificates trusted on top of the defaults (see [`crate::network`]).
    pub ca_bundle: Option<PathBuf>,
    /// The proxy URL; `None`: the proxy environment variables.
    pub proxy: Option<String>,
    pub bounds: BoundsInput,
}

/// The read bounds as given, each at least 1; `None`: the default.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoundsInput {
    pub max_response_bytes: Option<i64>,
    pub max_download_bytes: Option<i64>,
    pub max_compression_ratio: Option<i64>,
}

/// How much of an answer is read: every successful body is cut off at its bound (decompressed
/// bytes counted), a gzip one also at `max_compression_ratio` times its compressed bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// A JSON (or in-memory `/resource`) answer.
    pub max_response_bytes: u64,
    /// A `/resource` streamed to disk.
    pub max_download_bytes: u64,
    pub max_compression_ratio: u64,
}

impl Bounds {
    /// `input` over `self` (the defaults, or a client's bounds in `with_options`).
    pub fn with(self, input: BoundsInput) -> Result<Bounds, Error> {
        let bound = |count: Count, value: Option<i64>, current: u64| value.map_or(Ok(current), |n| count.check(n));
        Ok(Bounds {
            max_response_bytes: bound(MAX_RESPONSE_BYTES, input.max_response_bytes, self.max_response_bytes)?,
            max_download_bytes: bound(MAX_DOWNLOAD_BYTES, input.max_download_bytes, self.max_download_bytes)?,
            max_compression_ratio: bound(
                MAX_COMPRESSION_RATIO,
                input.max_compression_ratio,
                self.max_compression_ratio,
            )?,
        })
    }
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_download_bytes: DEFAULT_MAX_DOWNLOAD_BYTES,
            max_compression_ratio: DEFAULT_MAX_COMPRESSION_RATIO,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub token: Secret,
    pub base_url: Url,
    /// The bound of one attempt.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// The bound of a whole call: every attempt, retry backoff and pacing wait.
    pub deadline: Option<Duration>,
    pub max_retries: u32,
    pub retry_backoff: Duration,
    pub max_rate_limit_wait: Duration,
    pub service_source: Option<String>,
    pub rate_limits: HashMap<Quota, u32>,
    pub validate: bool,
    pub user_agent: String,
    /// The response cache, when enabled: its directory and TTL (`None`: no expiry).
    pub cache: Option<CacheConfig>,
    /// Read, and checked to hold certificates, when the HTTP client starts.
    pub ca_bundle: Option<PathBuf>,
    pub proxy: Option<ProxyUrl>,
    pub max_concurrency: usize,
    /// Where the pacing state shared with other processes is kept, when shared.
    pub shared_pacing: Option<PacingStore>,
    pub bounds: Bounds,
}

/// Whether the quota pacing is shared with the other processes that use the same token and
/// base URL, and through what.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum SharedPacing {
    #[default]
    Off,
    /// A file in a per-user directory.
    DefaultFile,
    File(PathBuf),
    /// A `scheme://...` URL as given (only Redis ones are supported).
    Url(String),
}

/// Where a shared pacing state lives: a file (the processes of one machine) or a Redis
/// server (the processes of any number of machines).
#[derive(Debug, Clone, PartialEq)]
pub enum PacingStore {
    File(PathBuf),
    Redis(RedisUrl),
}

/// A validated `redis://`, `rediss://` (TLS) or `unix://` URL. Its `Debug` and `Display`,
/// and so every message that names it, hide the password.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisUrl {
    url: Url,
}

impl RedisUrl {
    pub fn parse(raw: &str) -> Result<RedisUrl, Error> {
        // The raw text may hold a password: only the parser's reason is repeated.
        let url = Url::parse(raw.trim())
            .map_err(|e| Error::Configuration(format!("shared_pacing is not a valid URL ({e})")))?;
        let redis = RedisUrl { url };
        match redis.url.scheme() {
            "redis" | "rediss" if redis.url.host_str().is_some_and(|h| !h.is_empty()) => {}
            "redis" | "rediss" => return Err(redis.error("the URL has no host")),
            "unix" | "redis+unix" => {}
            scheme => {
                return Err(Error::Configuration(format!(
                    "shared_pacing: a {scheme}:// URL is not supported; use True, False, the path of a \
                     file, or a redis:// (rediss://, unix://) URL"
                )))
            }
        }
        redis::Client::open(redis.url.as_str()).map_err(|e| redis.error(&e.to_string()))?;
        Ok(redis)
    }

    /// The URL itself, password included, to connect with.
    pub fn expose(&self) -> &str {
        self.url.as_str()
    }

    fn error(&self, reason: &str) -> Error {
        Error::Configuration(format!("shared_pacing {self}: {reason}"))
    }
}

impl fmt::Display for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(proxy::shown(&self.url).as_str())
    }
}

impl fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RedisUrl({:?})", self.to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CacheConfig {
    pub dir: PathBuf,
    pub ttl: Option<Duration>,
}

impl ClientConfig {
    /// Resolves the settings, reading unset ones from `env` (a lookup of environment variables).
    pub fn resolve(input: ConfigInput, env: impl Fn(&str) -> Option<String>) -> Result<ClientConfig, Error> {
        let token = non_empty(input.api_token).or_else(|| non_empty(env(TOKEN_ENV))).ok_or_else(|| {
            Error::Configuration(format!(
                "no API token: pass api_token= or set the {TOKEN_ENV} environment variable \
                     (or run against a local paperlens.sandbox.Sandbox())"
            ))
        })?;
        if token.chars().any(|c| c.is_control() || c == ' ') {
            return Err(Error::Configuration("the API token contains spaces or control characters".into()));
        }
        crate::error::register_secret(&token);
        let base_url = non_empty(input.base_url).or_else(|| non_empty(env(BASE_URL_ENV))).ok_or_else(|| {
            Error::Configuration(format!("no base URL: pass base_url= or set the {BASE_URL_ENV} environment variable"))
        })?;
        Ok(ClientConfig {
            token: Secret::new(token),
            base_url: parse_base_url(&base_url)?,
            timeout: seconds("timeout", input.timeout.unwrap_or(30.0))?,
            connect_timeout: seconds("connect_timeout", input.connect_timeout.unwrap_or(10.0))?,
            deadline: deadline(input.deadline)?,
            max_retries: input.max_retries.unwrap_or(3),
            retry_backoff: seconds("retry_backoff", input.retry_backoff.unwrap_or(1.0))?,
            max_rate_limit_wait: seconds("max_rate_limit_wait", input.max_rate_limit_wait.unwrap_or(60.0))?,
            service_source: input.service_source.map(check_service_source).transpose()?,
            rate_limits: rate_limits(input.rate_limits),
            validate: input.validate.unwrap_or(true),
            user_agent: input.user_agent.unwrap_or_else(|| format!("paperlens/{}", env!("CARGO_PKG_VERSION"))),
            cache: cache_config(input.cache_dir, input.cache_ttl)?,
            ca_bundle: input.ca_bundle.filter(|p| !p.as_os_str().is_empty()),
            proxy: non_empty(input.proxy).map(|p| ProxyUrl::parse(&p)).transpose()?,
            max_concurrency: max_concurrency(input.max_concurrency)?,
            shared_pacing: shared_pacing_store(input.shared_pacing, &env)?,
            bounds: Bounds::default().with(input.bounds)?,
        })
    }
}

fn max_concurrency(value: Option<i64>) -> Result<usize, Error> {
    value.map_or(Ok(DEFAULT_MAX_CONCURRENCY), |n| MAX_CONCURRENCY.check(n))
}

/// The integers a count setting may be (`max_concurrency`, a read bound, `max_retries`), and the
/// error for one outside them. A binding checks the integers too wide for it to pass on (a
/// Python int past 64 bits) against the same `Count`, so that the wording is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub name: &'static str,
    pub least: i128,
    pub most: i128,
}

/// At most what a tokio semaphore holds: more would panic when the pacer starts.
pub const MAX_CONCURRENCY: Count =
    Count { name: "max_concurrency", least: 1, most: tokio::sync::Semaphore::MAX_PERMITS as i128 };
pub const MAX_RESPONSE_BYTES: Count = Count { name: "max_response_bytes", least: 1, most: i64::MAX as i128 };
pub const MAX_DOWNLOAD_BYTES: Count = Count { name: "max_download_bytes", least: 1, most: i64::MAX as i128 };
pub const MAX_COMPRESSION_RATIO: Count = Count { name: "max_compression_ratio", least: 1, most: i64::MAX as i128 };
pub const MAX_RETRIES: Count = Count { name: "max_retries", least: 0, most: u32::MAX as i128 };
/// A quota's entry of `rate_limits` (0: that quota is not paced); see [`rate_limit_error`].
pub const RATE_LIMIT: Count = Count { name: "requests per minute", least: 0, most: u32::MAX as i128 };

/// `message` (a [`RATE_LIMIT`] broken, or another rule) said of the `rate_limits` entry of `resource`.
pub fn rate_limit_error(resource: &str, message: &str) -> Error {
    Error::Configuration(format!("rate_limits[{resource:?}]: {message}"))
}

/// The quota of a `rate_limits` entry, or the error of a resource that is none.
pub fn quota_named(resource: &str) -> Result<Quota, Error> {
    Quota::from_name(resource)
        .ok_or_else(|| rate_limit_error(resource, "an unknown quota resource; known: meta-search, paper-schema"))
}

impl Count {
    /// `value` as `T`, if it is within the range; else a configuration error.
    pub fn check<T: TryFrom<i128>>(self, value: impl Into<i128>) -> Result<T, Error> {
        self.within(value).map_err(Error::Configuration)
    }

    /// `value` as `T`, if it is within the range; else what is wrong with it.
    pub fn within<T: TryFrom<i128>>(self, value: impl Into<i128>) -> Result<T, String> {
        let value = value.into();
        let held = T::try_from(value).ok().filter(|_| (self.least..=self.most).contains(&value));
        held.ok_or_else(|| self.outside(value < self.least, value))
    }

    /// What is wrong with `value`, below the range or above it, shown as the caller wrote it.
    pub fn outside(self, below: bool, value: impl fmt::Display) -> String {
        let name = self.name;
        if below {
            format!("{name} must be at least {}, got {value}", self.least)
        } else {
            format!("{name} must be at most {}, got {value}", self.most)
        }
    }
}

/// The default file is in a local per-user folder ([`pacing_file::default_file`]).
fn shared_pacing_store(
    choice: SharedPacing,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<PacingStore>, Error> {
    Ok(Some(match choice {
        SharedPacing::Off => return Ok(None),
        SharedPacing::File(path) => PacingStore::File(path),
        SharedPacing::Url(url) => PacingStore::Redis(RedisUrl::parse(&url)?),
        SharedPacing::DefaultFile => PacingStore::File(pacing_file::default_file(env)?),
    }))
}

fn cache_config(dir: Option<PathBuf>, ttl: Option<Option<f64>>) -> Result<Option<CacheConfig>, Error> {
    let Some(dir) = dir.filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(None);
    };
    let ttl = match ttl {
        None => Some(seconds("cache_ttl", DEFAULT_CACHE_TTL)?),
        Some(None) => None,
        Some(Some(value)) => Some(seconds("cache_ttl", value)?),
    };
    Ok(Some(CacheConfig { dir, ttl }))
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn parse_base_url(raw: &str) -> Result<Url, Error> {
    let url = Url::parse(raw).map_err(|e| Error::Configuration(format!("base_url {raw:?} is not a URL: {e}")))?;
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return Err(Error::Configuration("base_url must not carry credentials, a query or a fragment".into()));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(Error::Configuration(format!(
            "base_url {raw:?} uses plain http:// to a non-loopback host: the token would travel unencrypted; use https://"
        ))),
        other => Err(Error::Configuration(format!("base_url scheme {other:?} is not supported: use https://"))),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// A whole call's deadline: none when not given or infinite (`math.inf` removes one in
/// `with_options`, where None keeps the client's).
pub fn deadline(value: Option<f64>) -> Result<Option<Duration>, Error> {
    value.filter(|d| *d != f64::INFINITY).map(|d| seconds("deadline", d)).transpose()
}

/// `value` seconds as a `Duration`: a negative, non-finite or too large one (`1e20`, past
/// what a `Duration` holds) is an error naming `name`, never a panic.
pub fn seconds(name: &str, value: f64) -> Result<Duration, Error> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if duration <= MAX_SECONDS => Ok(duration),
        _ => Err(Error::Configuration(format!(
            "{name} must be a number of seconds from 0 to {} (about 31 years), got {value}",
            MAX_SECONDS.as_secs()
        ))),
    }
}

/// The longest duration a setting may have: added to the monotonic clock it never overflows.
pub const MAX_SECONDS: Duration = Duration::from_secs(1_000_000_000);

/// `X-Service-Source` must match `^[A-Za-z0-9_-]{1,64}$`; the server would silently drop anything else.
pub fn check_service_source(value: String) -> Result<String, Error> {
    let ok =
        (1..=64).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(value)
    } else {
        Err(Error::Configuration(format!(
            "service_source must be 1-64 letters, digits, '_' or '-' (the service would silently ignore it), got {value:?}"
        )))
    }
}

fn rate_limits(input: Option<Option<RateLimitEntries>>) -> HashMap<Quota, u32> {
    let mut limits: HashMap<Quota, u32> = Quota::ALL.iter().map(|q| (*q, DEFAULT_PER_MINUTE)).collect();
    match input {
        None => limits,
        Some(None) => HashMap::new(),
        Some(Some(overrides)) => {
            for (quota, per_minute) in overrides {
                if per_minute == 0 {
                    limits.remove(&quota);
                } else {
                    limits.insert(quota, per_minute);
                }
            }
            limits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(token: Option<&str>, url: Option<&str>) -> ConfigInput {
        ConfigInput { api_token: token.map(Into::into), base_url: url.map(Into::into), ..Default::default() }
    }

    #[test]
    fn arguments_win_over_environment() {
        let env = |name: &str| Some(format!("env-{name}"));
        let config = ClientConfig::resolve(input(Some("tok"), Some("https://api.example.org")), env).unwrap();
        assert_eq!(config.token.expose(), "tok");
        assert_eq!(config.base_url.as_str(), "https://api.example.org/");
    }

    #[test]
    fn missing_token_names_the_variable() {
        let err = ClientConfig::resolve(input(None, Some("https://x.org")), |_| None).unwrap_err();
        assert!(err.to_string().contains(TOKEN_ENV), "{err}");
        let err = ClientConfig::resolve(input(Some("t"), None), |_| None).unwrap_err();
        assert!(err.to_string().contains(BASE_URL_ENV), "{err}");
    }

    #[test]
    fn plain_http_only_to_loopback() {
        for ok in ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9"] {
            assert!(ClientConfig::resolve(input(Some("t"), Some(ok)), |_| None).is_ok(), "{ok}");
        }
        let err = ClientConfig::resolve(input(Some("t"), Some("http://api.example.org")), |_| None).unwrap_err();
        assert!(err.to_string().contains("unencrypted"));
    }

    #[test]
    fn service_source_pattern() {
        assert!(check_service_source("notebook_1-a".into()).is_ok());
        for bad in ["", "has space", &"x".repeat(65), "é"] {
            assert!(check_service_source(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn rate_limit_defaults_overrides_and_off() {
        assert_eq!(rate_limits(None)[&Quota::MetaSearch], 30);
        assert!(rate_limits(Some(None)).is_empty());
        let limits = rate_limits(Some(Some(vec![(Quota::MetaSearch, 120)])));
        assert_eq!((limits[&Quota::MetaSearch], limits[&Quota::PaperSchema]), (120, 30));
        let off = rate_limits(Some(Some(vec![(Quota::PaperSchema, 0)])));
        assert_eq!(off, HashMap::from([(Quota::MetaSearch, 30)]));
        assert_eq!(quota_named("paper-schema").unwrap(), Quota::PaperSchema);
        let said = quota_named("search").unwrap_err().to_string();
        assert_eq!(said, r#"rate_limits["search"]: an unknown quota resource; known: meta-search, paper-schema"#);
    }

    #[test]
    fn cache_is_off_unless_a_directory_is_given() {
        let config = ClientConfig::resolve(input(Some("t"), Some("https://x.org")), |_| None).unwrap();
        assert_eq!(config.cache, None);
        let with = |ttl| ConfigInput {
            cache_dir: Some("/tmp/c".into()),
            cache_ttl: ttl,
            ..input(Some("t"), Some("https://x.org"))
        };
        let config = ClientConfig::resolve(with(None), |_| None).unwrap();
        assert_eq!(config.cache.unwrap().ttl, Some(Duration::from_secs(3600)));
        assert_eq!(ClientConfig::resolve(with(Some(None)), |_| None).unwrap().cache.unwrap().ttl, None);
        assert!(ClientConfig::resolve(with(Some(Some(-1.0))), |_| None).is_err());
    }

    #[test]
    fn concurrency_bound_and_shared_pacing_file() {
        let base = || input(Some("t"), Some("https://x.org"));
        let config = ClientConfig::resolve(base(), |_| None).unwrap();
        assert_eq!((config.max_concurrency, config.shared_pacing), (DEFAULT_MAX_CONCURRENCY, None));
        for bad in [0, -2] {
            let input = ConfigInput { max_concurrency: Some(bad), ..base() };
            let err = ClientConfig::resolve(input, |_| None).unwrap_err();
            assert_eq!(err.to_string(), format!("max_concurrency must be at least 1, got {bad}"));
        }
        let most = tokio::sync::Semaphore::MAX_PERMITS;
        let huge = ConfigInput { max_concurrency: i64::try_from(most + 1).ok(), ..base() };
        let err = ClientConfig::resolve(huge, |_| None).unwrap_err();
        assert_eq!(err.to_string(), format!("max_concurrency must be at most {most}, got {}", most + 1));
        let one = ConfigInput { max_concurrency: Some(1), ..base() };
        assert_eq!(ClientConfig::resolve(one, |_| None).unwrap().max_concurrency, 1);
        let shared = ConfigInput { shared_pacing: SharedPacing::DefaultFile, ..base() };
        let env = |name: &str| (name == "HOME").then(|| "/home/me".to_string());
        let file = ClientConfig::resolve(shared, env).unwrap().shared_pacing.unwrap();
        assert_eq!(file, PacingStore::File("/home/me/.cache/paperlens/pacing.json".into()));
        let chosen = ConfigInput { shared_pacing: SharedPacing::File("/tmp/p.json".into()), ..base() };
        let file = ClientConfig::resolve(chosen, env).unwrap().shared_pacing;
        assert_eq!(file, Some(PacingStore::File("/tmp/p.json".into())));
    }

    #[test]
    fn bounds_are_at_least_one_and_keep_the_unset_ones() {
        let custom = Bounds { max_response_bytes: 5, max_download_bytes: 6, max_compression_ratio: 7 };
        let input = BoundsInput { max_download_bytes: Some(1), ..BoundsInput::default() };
        assert_eq!(custom.with(input).unwrap(), Bounds { max_download_bytes: 1, ..custom });
        for bad in [0, -5] {
            let input = BoundsInput { max_compression_ratio: Some(bad), ..BoundsInput::default() };
            let err = custom.with(input).unwrap_err().to_string();
            assert_eq!(err, format!("max_compression_ratio must be at least 1, got {bad}"));
        }
    }

    #[test]
    fn a_count_outside_its_range_is_named_with_its_value_as_written() {
        assert_eq!(MAX_RETRIES.check::<u32>(7).unwrap(), 7);
        let err = MAX_RETRIES.check::<u32>(-1).unwrap_err().to_string();
        assert_eq!(err, "max_retries must be at least 0, got -1");
        let err = MAX_RETRIES.check::<u32>(1_i64 << 32).unwrap_err().to_string();
        assert_eq!(err, "max_retries must be at most 4294967295, got 4294967296");
        let written = "18446744073709551616";
        let most = i64::MAX;
        assert_eq!(
            MAX_DOWNLOAD_BYTES.outside(false, written),
            format!("max_download_bytes must be at most {most}, got {written}")
        );
    }

    #[test]
    fn shared_pacing_urls_are_redis_ones_and_hide_their_password() {
        let with = |url: &str| {
            let input =
                ConfigInput { shared_pacing: SharedPacing::Url(url.into()), ..input(Some("t"), Some("https://x.org")) };
            ClientConfig::resolve(input, |_| None).map(|c| c.shared_pacing)
        };
        let Ok(Some(PacingStore::Redis(url))) = with("redis://:hunter2@127.0.0.1:6390/2") else { panic!() };
        assert_eq!(url.expose(), "redis://:hunter2@127.0.0.1:6390/2");
        assert_eq!(url.to_string(), "redis://:***@127.0.0.1:6390/2");
        assert!(!format!("{url:?}").contains("hunter2"));
        assert!(matches!(with("rediss://h:6380/0"), Ok(Some(PacingStore::Redis(_)))));
        for (bad, told) in [
            ("memcached://h:1/0", "a memcached:// URL is not supported"),
            ("redis:/0", "shared_pacing redis:/0: the URL has no host"),
            ("redis://:hunter2@h:6379/db", "shared_pacing redis://:***@h:6379/db: "),
        ] {
            let err = with(bad).unwrap_err().to_string();
            assert!(err.contains(told) && !err.contains("hunter2"), "{bad}: {err}");
        }
    }

    #[test]
    fn secret_debug_hides_token() {
        assert_eq!(format!("{:?}", Secret::new("abc".into())), "Secret(***)");
    }
}
