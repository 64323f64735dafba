//! Which failures are retried, how long to wait, and how `Retry-After` is read.

use std::time::{Duration, SystemTime};

use rand::Rng;
use serde_json::Value;

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Retry after the exponential backoff of this attempt.
    Backoff,
    /// Retry after the wait the service asked for (429).
    RateLimited,
    /// Give up: the failure will not change by retrying (400, 401, 403, 404, 422, ...).
    Fail,
}

/// 502, 503, 504 are retried with backoff, 429 after the asked wait; nothing else.
pub fn decide(status: u16) -> Decision {
    match status {
        502..=504 => Decision::Backoff,
        429 => Decision::RateLimited,
        _ => Decision::Fail,
    }
}

/// Exponential backoff with jitter: about `base`, `2*base`, `4*base`... (±25%), at most 60 s.
pub fn backoff(base: Duration, retry_number: u32) -> Duration {
    let exponential = base.as_secs_f64() * 2f64.powi(retry_number.min(16) as i32);
    let jitter = rand::thread_rng().gen_range(0.75..=1.25);
    Duration::from_secs_f64((exponential * jitter).min(60.0))
}

/// Reads `Retry-After` (integer or fractional seconds, or an HTTP date) relative to `now`.
pub fn parse_retry_after(header: &str, now: SystemTime) -> Option<Duration> {
    let header = header.trim();
    if let Ok(seconds) = header.parse::<f64>() {
        return wait_of(seconds);
    }
    let at = httpdate::parse_http_date(header).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `details.retry_after` of an error body, in seconds.
pub fn retry_after_from_details(details: Option<&Value>) -> Option<Duration> {
    let value = details?.get("retry_after")?;
    let seconds = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    wait_of(seconds)
}

/// A wait of `seconds`; one too long for a `Duration` (`1e30`) is the longest there is.
fn wait_of(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses() {
        for status in [502, 503, 504] {
            assert_eq!(decide(status), Decision::Backoff);
        }
        assert_eq!(decide(429), Decision::RateLimited);
        for status in [400, 401, 403, 404, 405, 422, 500, 507] {
            assert_eq!(decide(status), Decision::Fail, "{status}");
        }
    }

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let base = Duration::from_secs(1);
        for (n, nominal) in [(0, 1.0), (1, 2.0), (2, 4.0)] {
            for _ in 0..200 {
                let wait = backoff(base, n).as_secs_f64();
                assert!(wait >= nominal * 0.75 && wait <= nominal * 1.25, "retry {n}: {wait}");
            }
        }
        assert!(backoff(base, 30) <= Duration::from_secs(60));
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 1.5 ", now), Some(Duration::from_millis(1500)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(120));
        assert_eq!(parse_retry_after(&later, now), Some(Duration::from_secs(120)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(5));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("1e30", now), Some(Duration::MAX));
    }

    #[test]
    fn retry_after_in_details() {
        let details = serde_json::json!({"retry_after": 12});
        assert_eq!(retry_after_from_details(Some(&details)), Some(Duration::from_secs(12)));
        let details = serde_json::json!({"retry_after": "2.5"});
        assert_eq!(retry_after_from_details(Some(&details)), Some(Duration::from_millis(2500)));
        assert_eq!(retry_after_from_details(Some(&serde_json::json!("text"))), None);
        assert_eq!(retry_after_from_details(None), None);
    }
}
