use super::*;

const SECOND: Duration = Duration::from_secs(1);
const NANO: Duration = Duration::from_nanos(1);

fn limiter(kind: RateLimitKind, per_minute: u32, start: Instant) -> RateLimiter {
    RateLimiter::new(&[("paper-schema".into(), per_minute)], kind, start).unwrap()
}

/// Admits `count` requests at `at`, all of which must pass.
fn admit_all(limiter: &RateLimiter, at: Instant, count: u32) {
    for n in 0..count {
        assert_eq!(limiter.admit("/paper-schema", at), Ok(()), "request {n}");
    }
}

#[test]
fn sliding_admits_while_fewer_than_n_were_admitted_in_the_last_minute() {
    let start = Instant::now();
    let at = |seconds: u64| start + Duration::from_secs(seconds);
    let limiter = limiter(RateLimitKind::Sliding, 3, start);
    for second in [0, 10, 20] {
        admit_all(&limiter, at(second), 1);
    }
    assert_eq!(limiter.admit("/paper-schema/search", at(30)), Err(30 * SECOND));
    for _ in 0..5 {
        assert_eq!(limiter.admit("/paper-schema", at(30)), Err(30 * SECOND), "refusals use no quota");
    }
    assert_eq!(limiter.admit("/paper-schema", at(60) - NANO), Err(NANO));
    admit_all(&limiter, at(60), 1);
    assert_eq!(limiter.admit("/paper-schema", at(60)), Err(10 * SECOND), "the request of second 10 is next to leave");
    admit_all(&limiter, at(70), 1);
}

#[test]
fn fixed_resets_the_count_at_each_window_boundary() {
    let start = Instant::now();
    let at = |seconds: u64| start + Duration::from_secs(seconds);
    let limiter = limiter(RateLimitKind::Fixed, 2, start);
    admit_all(&limiter, at(59), 2);
    assert_eq!(limiter.admit("/paper-schema", at(59)), Err(SECOND), "until the window ends");
    assert_eq!(limiter.admit("/paper-schema", at(60) - NANO), Err(NANO));
    admit_all(&limiter, at(60), 2); // 4 admitted within one second across the boundary
    for second in [61, 90, 119] {
        assert_eq!(limiter.admit("/paper-schema", at(second)), Err(at(120) - at(second)), "refusals use no quota");
    }
    admit_all(&limiter, at(120), 2);
    admit_all(&limiter, at(301), 2); // windows skipped without requests
    assert_eq!(limiter.admit("/paper-schema", at(301)), Err(59 * SECOND));
}

#[test]
fn bucket_starts_full_and_refills_n_per_minute() {
    let start = Instant::now();
    let limiter = limiter(RateLimitKind::Bucket, 60, start);
    admit_all(&limiter, start, 60);
    assert_eq!(limiter.admit("/paper-schema", start), Err(SECOND), "one token per second");
    assert_eq!(limiter.admit("/paper-schema", start + SECOND / 2), Err(SECOND / 2), "refusals use no quota");
    admit_all(&limiter, start + SECOND, 1);
    assert_eq!(limiter.admit("/paper-schema", start + SECOND), Err(SECOND));
    let later = start + Duration::from_secs(3600);
    admit_all(&limiter, later, 60);
    assert!(limiter.admit("/paper-schema", later).is_err(), "the bucket holds at most 60 tokens");
}

#[test]
fn bucket_waits_are_exact_when_the_refill_interval_is_not_a_whole_number_of_nanoseconds() {
    let start = Instant::now();
    let limiter = limiter(RateLimitKind::Bucket, 7, start);
    admit_all(&limiter, start, 7);
    let wait = limiter.admit("/paper-schema", start).unwrap_err();
    assert_eq!(wait, Duration::from_nanos(8_571_428_572), "60 s / 7, rounded up");
    assert_eq!(limiter.admit("/paper-schema", start + wait - NANO), Err(NANO));
    admit_all(&limiter, start + wait, 1);
}

#[test]
fn each_resource_has_its_own_quota_and_other_paths_have_none() {
    let start = Instant::now();
    for kind in [RateLimitKind::Sliding, RateLimitKind::Fixed, RateLimitKind::Bucket] {
        let limits = [("meta-search".to_string(), 1), ("paper-schema".to_string(), 1)];
        let limiter = RateLimiter::new(&limits, kind, start).unwrap();
        assert!(limiter.admit("/meta-search", start).is_ok());
        assert!(limiter.admit("/meta-search", start).is_err(), "{kind:?}");
        assert!(limiter.admit("/paper-schema/schemas/s1/citations", start).is_ok());
        assert!(limiter.admit("/paper-schema", start).is_err(), "all /paper-schema paths share one quota");
        for other in ["/content", "/meta-catalog", "/agentic-search", "/meta-search/x", "/paper-schemas"] {
            assert!(limiter.admit(other, start).is_ok(), "{other} has no quota");
        }
    }
}

#[test]
fn config_rejects_unknown_resources_zero_and_unknown_kinds() {
    let start = Instant::now();
    assert!(RateLimiter::new(&[("content".into(), 5)], RateLimitKind::Sliding, start).is_err());
    assert!(RateLimiter::new(&[("meta-search".into(), 0)], RateLimitKind::Bucket, start).is_err());
    assert_eq!("fixed".parse(), Ok(RateLimitKind::Fixed));
    assert_eq!("bucket".parse(), Ok(RateLimitKind::Bucket));
    assert_eq!("sliding".parse(), Ok(RateLimitKind::Sliding));
    let error = "leaky".parse::<RateLimitKind>().unwrap_err();
    assert!(error.contains("rate_limit_kind") && error.contains("\"bucket\"") && error.contains("leaky"), "{error}");
}
