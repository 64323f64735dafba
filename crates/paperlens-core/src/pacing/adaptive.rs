//! Pacing of an operation whose quota the contract does not give, learned from its 429s in
//! the manner of botocore's adaptive retry mode: unthrottled until the first 429; then a
//! token bucket whose rate drops to 70% of the rate the gateway was seen to admit (the rate
//! of recent admissions, or one per advised wait if that is more), and climbs back along a
//! cubic curve while requests keep being admitted. A 429 also pauses the operation until the
//! advised time, so refused calls do not each retry alone; the 429s of requests sent before
//! that pause began slow it down no further.

use std::time::Duration;

use super::Outcome;

/// The rate falls to this fraction of the admitted one on a 429.
const BETA: f64 = 0.7;
/// How fast the rate climbs back (the cubic's scale).
const SCALE: f64 = 0.4;
const MIN_RATE: f64 = 0.5;
/// The admitted rate is measured over about this many seconds (an exponential average).
const TAU: f64 = 1.0;

#[derive(Debug, Default)]
pub struct Adaptive {
    /// Requests per second once throttled; `None` before the first 429.
    rate: Option<f64>,
    tokens: f64,
    refilled_at: f64,
    paused_until: f64,
    /// The rate at the last 429, and when it was.
    last_max: f64,
    throttled_at: f64,
    admitted: f64,
    admitted_at: f64,
}

impl Adaptive {
    /// Requests per second in force, `None` while unthrottled.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// Whether a 429's pause holds requests back at `now`.
    pub fn paused(&self, now: Duration) -> bool {
        now.as_secs_f64() < self.paused_until
    }

    pub fn take(&mut self, now: Duration) -> Result<(), Duration> {
        let now_s = now.as_secs_f64();
        if now_s < self.paused_until {
            return Err(Duration::from_secs_f64(self.paused_until));
        }
        let Some(rate) = self.rate else { return Ok(()) };
        let capacity = rate.max(1.0);
        self.tokens = (self.tokens + (now_s - self.refilled_at).max(0.0) * rate).min(capacity);
        self.refilled_at = now_s;
        // A token refilled over exactly the wait told may fall short of 1.0 by a rounding error.
        if self.tokens >= 1.0 - 1e-9 {
            self.tokens = (self.tokens - 1.0).max(0.0);
            Ok(())
        } else {
            Err(Duration::from_secs_f64(now_s + (1.0 - self.tokens) / rate))
        }
    }

    pub fn finish(&mut self, outcome: Outcome, now: Duration) {
        let now_s = now.as_secs_f64();
        match outcome {
            Outcome::Unsent | Outcome::Refused { pause: None } => {}
            Outcome::Counted => {
                self.admitted = self.admitted_rate(now_s) + 1.0 / TAU;
                self.admitted_at = now_s;
                if self.rate.is_some() {
                    let k = (self.last_max * (1.0 - BETA) / SCALE).cbrt();
                    let cubic = SCALE * (now_s - self.throttled_at - k).powi(3) + self.last_max;
                    self.rate = Some(cubic.min(2.0 * self.admitted).max(MIN_RATE));
                }
            }
            Outcome::Refused { pause: Some(pause) } => {
                let pause = pause.as_secs_f64();
                let burst = now_s < self.paused_until;
                self.paused_until = self.paused_until.max(now_s + pause);
                if burst {
                    // Sent before the pause began, refused for the same reason: one slow-down per pause.
                    return;
                }
                // The gateway admits one more request after `pause`: a rate it was seen to admit, too.
                let admitted = self.admitted_rate(now_s).max(if pause > 0.0 { 1.0 / pause } else { 0.0 });
                let at = self.rate.map_or(admitted, |rate| rate.min(admitted)).max(MIN_RATE);
                self.last_max = at;
                self.throttled_at = now_s;
                self.tokens = 0.0;
                self.refilled_at = self.paused_until;
                self.rate = Some((at * BETA).max(MIN_RATE));
            }
        }
    }

    /// Requests admitted per second, recently.
    fn admitted_rate(&self, now_s: f64) -> f64 {
        self.admitted * (-(now_s - self.admitted_at).max(0.0) / TAU).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: f64) -> Duration {
        Duration::from_secs_f64(seconds)
    }

    /// Answers at `per_second` from `from` for `seconds`.
    fn answered(a: &mut Adaptive, from: f64, seconds: f64, per_second: f64) -> f64 {
        let n = (seconds * per_second) as u32;
        for i in 0..n {
            a.finish(Outcome::Counted, at(from + f64::from(i) / per_second));
        }
        from + seconds
    }

    /// Three seconds answered at 20 per second, then a 429 advising `pause` seconds; when it came.
    fn slowed_once(pause: f64) -> (Adaptive, f64) {
        let mut a = Adaptive::default();
        let now = answered(&mut a, 0.0, 3.0, 20.0);
        a.finish(Outcome::Refused { pause: Some(at(pause)) }, at(now));
        (a, now)
    }

    #[test]
    fn unthrottled_until_the_first_429() {
        let mut a = Adaptive::default();
        for i in 0..1000 {
            assert_eq!(a.take(at(f64::from(i) * 0.001)), Ok(()));
        }
        assert_eq!(a.rate(), None);
    }

    #[test]
    fn a_429_pauses_then_slows_to_below_the_measured_rate() {
        let (mut a, now) = slowed_once(0.5);
        let rate = a.rate().unwrap();
        assert!((12.0..=15.0).contains(&rate), "{rate}");
        assert_eq!(a.take(at(now + 0.1)), Err(at(now + 0.5)));
        // After the pause, requests go one by one at the lower rate.
        assert_eq!(a.take(at(now + 0.5)), Err(at(now + 0.5 + 1.0 / rate)));
        assert_eq!(a.take(at(now + 0.5 + 1.0 / rate + 1e-6)), Ok(()));
    }

    #[test]
    fn the_429s_of_one_burst_slow_down_once() {
        let mut a = Adaptive::default();
        let now = answered(&mut a, 0.0, 3.0, 20.0);
        for i in 0..50 {
            a.finish(Outcome::Refused { pause: Some(at(1.0)) }, at(now + f64::from(i) * 0.001));
        }
        let rate = a.rate().unwrap();
        assert!((12.0..=15.0).contains(&rate), "{rate}");
        assert_eq!(a.take(at(now + 0.5)), Err(at(now + 1.0 + 0.049)));
    }

    #[test]
    fn a_short_advised_wait_tells_the_rate_the_gateway_admits() {
        let mut a = Adaptive::default();
        a.finish(Outcome::Counted, at(0.0));
        a.finish(Outcome::Refused { pause: Some(at(0.025)) }, at(0.01));
        assert!((a.rate().unwrap() - 40.0 * BETA).abs() < 1e-9);
    }

    #[test]
    fn the_rate_climbs_back_while_answers_keep_coming() {
        let (mut a, now) = slowed_once(0.1);
        let low = a.rate().unwrap();
        let later = answered(&mut a, now, 6.0, low);
        assert!(a.rate().unwrap() > low, "{} <= {low}", a.rate().unwrap());
        let rate = a.rate().unwrap();
        answered(&mut a, later, 10.0, rate);
        assert!(a.rate().unwrap() >= 20.0, "{}", a.rate().unwrap());
    }
}
