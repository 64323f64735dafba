//! One quota resource's pacing state: at most N counted requests per 60 seconds, where a
//! request counts from the moment its answer arrived. The gateway admitted it at some point
//! between sending and that moment, so a slot freed 60 s after the answer is free at the
//! gateway too, whatever the request's travel time: no 60-second interval at the gateway
//! ever holds more than N admitted requests, which is within a sliding window, a fixed
//! window and a token bucket of N per minute alike.
//!
//! A refused request (429) is not counted; it pauses the resource until the advised time and
//! teaches the limit the gateway was seen to admit. Times are offsets on the store's clock,
//! which never runs backwards for a correct sharer: a state holding a time from the future was
//! written on another clock (a step of the wall clock, a failover to a server whose clock is
//! behind, a reboot) and is dropped ([`Window::is_from_the_future`]), so no wait it implies is
//! longer than one window or the pause a 429 advised.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::gate::InForce;
use super::Outcome;

pub const WINDOW: Duration = Duration::from_secs(60);
/// A learned limit is forgotten after this long without a 429 (it is learned again, at the
/// cost of one refused burst, if the gateway is still stricter than configured).
pub const FORGET_AFTER: Duration = Duration::from_secs(300);
/// A slot still in flight after this long belongs to a process that died; it counts until
/// this plus a window, then goes.
pub const STALE: Duration = Duration::from_secs(600);
/// How far ahead of the store's clock a time written by a sharer may be (each reads the
/// clock a little apart from the others) before the state counts as from the future.
pub const CLOCK_TOLERANCE: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Window {
    slots: Vec<Slot>,
    paused_until: Duration,
    /// When the pause was set: a pause is as long as the 429 that set it advised, from then.
    #[serde(default)]
    paused_at: Duration,
    /// The advised time of a 429 is when the gateway admits a request again: the first one
    /// to come then goes, even if the learned limit would hold it.
    #[serde(default)]
    promised: bool,
    learned: Option<Learned>,
    /// Increases with every refusal that teaches a limit; in-flight slots of that moment
    /// carry it, so those the gateway turns out to have admitted raise the learned limit.
    epoch: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Slot {
    id: u64,
    taken: Duration,
    /// `None` while in flight.
    counted_until: Option<Duration>,
    witness: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Learned {
    per_minute: u32,
    at: Duration,
    epoch: u64,
}

impl Slot {
    fn occupies(&self, now: Duration) -> bool {
        self.occupied_until() > now
    }

    fn occupied_until(&self) -> Duration {
        self.counted_until.unwrap_or(self.taken + STALE + WINDOW)
    }

    /// When this slot will be free at the earliest: an answer still to come counts a whole
    /// window from its arrival.
    fn frees_at(&self, now: Duration) -> Duration {
        self.counted_until.unwrap_or(now + WINDOW)
    }
}

impl Window {
    /// The limit in force: the configured one, or the learned one when it is lower.
    pub fn per_minute(&self, configured: Option<u32>, now: Duration) -> Option<u32> {
        let learned = self.learned.filter(|l| l.per_minute > 0 && l.at + FORGET_AFTER > now).map(|l| l.per_minute);
        match (configured, learned) {
            (Some(c), Some(l)) => Some(c.min(l)),
            (c, l) => c.or(l),
        }
    }

    /// The limit in force and whether a 429's pause holds requests back at `now`.
    pub fn in_force(&self, configured: Option<u32>, now: Duration) -> InForce {
        InForce { per_minute: self.per_minute(configured, now), paused: self.paused_until > now }
    }

    /// Nothing left to remember: no slot, pause or learned limit in force.
    pub fn is_idle(&self, now: Duration) -> bool {
        self.idle_at() <= now
    }

    /// When nothing will be left to remember, unless a step changes the window meanwhile:
    /// the end of the last slot, pause or learned limit.
    pub fn idle_at(&self) -> Duration {
        let slots = self.slots.iter().map(Slot::occupied_until);
        let learned = self.learned.map(|l| l.at + FORGET_AFTER);
        slots.chain(learned).fold(self.paused_until, Duration::max)
    }

    /// Whether a time in the state lies ahead of `now` (beyond [`CLOCK_TOLERANCE`]): a slot
    /// taken, answered, a pause set or a limit learned later than now. Such a state was
    /// written on another clock; every wait computed from it would be off by the difference.
    pub fn is_from_the_future(&self, now: Duration) -> bool {
        let ahead = |time: Duration| time > now + CLOCK_TOLERANCE;
        self.slots.iter().any(|s| ahead(s.taken) || s.counted_until.is_some_and(|u| ahead(u.saturating_sub(WINDOW))))
            || ahead(self.paused_at)
            || self.learned.is_some_and(|l| ahead(l.at))
    }

    /// Takes slot `id` now, or tells when to try again.
    pub fn take(&mut self, id: u64, configured: Option<u32>, now: Duration) -> Result<(), Duration> {
        self.slots.retain(|s| s.occupies(now));
        if self.learned.is_some_and(|l| l.at + FORGET_AFTER <= now) {
            self.learned = None;
        }
        let limit = self.per_minute(configured, now);
        let free_at = match limit {
            Some(limit) if self.slots.len() >= limit as usize => {
                let mut frees: Vec<Duration> = self.slots.iter().map(|s| s.frees_at(now)).collect();
                frees.sort_unstable();
                frees[self.slots.len() - limit as usize]
            }
            _ => now,
        };
        let ready_at = if self.promised { self.paused_until } else { free_at.max(self.paused_until) };
        if ready_at > now {
            return Err(ready_at);
        }
        self.promised = false;
        // Unlimited and never refused: nothing to count, and nothing kept.
        if limit.is_some() {
            self.slots.push(Slot { id, taken: now, counted_until: None, witness: None });
        }
        Ok(())
    }

    pub fn finish(&mut self, id: u64, outcome: Outcome, configured: Option<u32>, now: Duration) {
        let index = self.slots.iter().position(|s| s.id == id);
        match outcome {
            Outcome::Counted => {
                let Some(slot) = index.map(|i| &mut self.slots[i]).filter(|s| s.counted_until.is_none()) else {
                    return;
                };
                slot.counted_until = Some(now + WINDOW);
                if let Some(learned) = self.learned.as_mut().filter(|l| slot.witness == Some(l.epoch)) {
                    learned.per_minute = (learned.per_minute + 1).min(configured.unwrap_or(u32::MAX));
                }
            }
            Outcome::Unsent => {
                if let Some(i) = index {
                    self.slots.swap_remove(i);
                }
            }
            Outcome::Refused { pause } => {
                if let Some(i) = index {
                    self.slots.swap_remove(i);
                }
                if let Some(pause) = pause {
                    if now + pause > self.paused_until {
                        (self.paused_until, self.paused_at) = (now + pause, now);
                    }
                    self.promised = true;
                    self.learn(now, configured);
                }
            }
        }
    }

    /// Finishes slot `id` if it is still in flight: the outcome of a step whose reply was lost
    /// (it may or may not have been applied) is applied once, never twice.
    pub fn settle(&mut self, id: u64, outcome: Outcome, configured: Option<u32>, now: Duration) {
        if self.slots.iter().any(|s| s.id == id && s.counted_until.is_none()) {
            self.finish(id, outcome, configured, now);
        }
    }

    /// The same window with every time moved `by` ahead (a state written on a clock ahead).
    #[cfg(test)]
    pub fn shifted(&self, by: Duration) -> Window {
        let mut moved = self.clone();
        for slot in &mut moved.slots {
            slot.taken += by;
            slot.counted_until = slot.counted_until.map(|u| u + by);
        }
        (moved.paused_until, moved.paused_at) = (moved.paused_until + by, moved.paused_at + by);
        if let Some(learned) = moved.learned.as_mut() {
            learned.at += by;
        }
        moved
    }

    /// After a refusal: the gateway admits what it admitted of ours in the last window (and
    /// whatever still in flight it turns out to have admitted), no more.
    fn learn(&mut self, now: Duration, configured: Option<u32>) {
        let admitted = self.slots.iter().filter(|s| s.counted_until.is_some_and(|u| u > now)).count() as u32;
        let in_flight = self.slots.iter().any(|s| s.counted_until.is_none());
        if admitted == 0 && !in_flight {
            // Nothing of ours is in the gateway's window: the refusal is about something else
            // (another user of the token, a daily quota); the pause is all there is to do.
            return;
        }
        self.epoch += 1;
        let epoch = self.epoch;
        for slot in self.slots.iter_mut().filter(|s| s.counted_until.is_none()) {
            slot.witness = Some(epoch);
        }
        // Zero while only answers still to come can tell: no limit is in force until one does.
        let per_minute = admitted.min(configured.unwrap_or(u32::MAX));
        self.learned = Some(Learned { per_minute, at: now, epoch });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);
    const MS: Duration = Duration::from_millis(1);

    fn refused(seconds: u64) -> Outcome {
        Outcome::Refused { pause: Some(S * seconds as u32) }
    }

    /// Requests `0..n`, all taken at once under `limit`.
    fn taken_at_once(n: u64, limit: Option<u32>) -> Window {
        let mut w = Window::default();
        for id in 0..n {
            assert_eq!(w.take(id, limit, Duration::ZERO), Ok(()));
        }
        w
    }

    #[test]
    fn a_slot_counts_a_window_from_its_answer() {
        let mut w = Window::default();
        let limit = Some(2);
        assert_eq!(w.take(1, limit, Duration::ZERO), Ok(()));
        assert_eq!(w.take(2, limit, Duration::ZERO), Ok(()));
        // Both in flight: the earliest a slot can free is a window from now.
        assert_eq!(w.take(3, limit, S), Err(S + WINDOW));
        w.finish(1, Outcome::Counted, limit, S * 2);
        assert_eq!(w.take(3, limit, S * 3), Err(S * 2 + WINDOW));
        assert_eq!(w.take(3, limit, S * 62), Ok(()));
    }

    #[test]
    fn an_unsent_slot_is_given_back() {
        let mut w = Window::default();
        assert_eq!(w.take(1, Some(1), S), Ok(()));
        w.finish(1, Outcome::Unsent, Some(1), S);
        assert_eq!(w.take(2, Some(1), S), Ok(()));
    }

    #[test]
    fn a_refusal_frees_its_slot_and_pauses_until_the_advised_time() {
        let mut w = Window::default();
        assert_eq!(w.take(1, Some(5), Duration::ZERO), Ok(()));
        w.finish(1, refused(7), Some(5), S);
        assert_eq!(w.take(2, Some(5), S * 3), Err(S * 8));
        assert_eq!(w.take(2, Some(5), S * 8), Ok(()));
        // Nothing of ours was admitted: no limit is learned from that refusal.
        assert_eq!(w.per_minute(Some(5), S * 8), Some(5));
    }

    #[test]
    fn the_limit_learned_is_what_the_gateway_admitted_in_the_window() {
        let limit = Some(30);
        let mut w = taken_at_once(30, limit);
        // Answers come back in any order: 4 admitted, a refusal, 6 more admitted, 20 refused.
        for id in 0..4 {
            w.finish(id, Outcome::Counted, limit, MS * 10);
        }
        w.finish(10, refused(60), limit, MS * 11);
        assert_eq!(w.per_minute(limit, MS * 11), Some(4));
        for id in 4..10 {
            w.finish(id, Outcome::Counted, limit, MS * 12);
        }
        for id in 11..30 {
            w.finish(id, refused(60), limit, MS * 13);
        }
        assert_eq!(w.per_minute(limit, MS * 13), Some(10));
        assert_eq!(w.take(100, limit, S * 30), Err(MS * 13 + WINDOW));
        // Forgotten after a quiet spell.
        assert_eq!(w.per_minute(limit, FORGET_AFTER + S), Some(30));
    }

    #[test]
    fn the_first_request_at_the_advised_time_goes_whatever_was_learned() {
        let limit = Some(30);
        let mut w = taken_at_once(5, limit);
        for id in 0..5 {
            w.finish(id, Outcome::Counted, limit, MS);
        }
        assert_eq!(w.take(5, limit, S), Ok(()));
        w.finish(5, refused(1), limit, S);
        assert_eq!(w.per_minute(limit, S), Some(5));
        assert_eq!(w.take(6, limit, S + MS), Err(S * 2));
        assert_eq!(w.take(6, limit, S * 2), Ok(()));
        assert_eq!(w.take(7, limit, S * 2), Err(MS + WINDOW));
    }

    #[test]
    fn a_burst_refused_whole_teaches_nothing() {
        let mut w = Window::default();
        for id in 0..5 {
            assert_eq!(w.take(id, Some(30), Duration::ZERO), Ok(()));
        }
        for id in 0..5 {
            w.finish(id, refused(1), Some(30), MS * (id as u32 + 1));
        }
        assert_eq!(w.per_minute(Some(30), S), Some(30));
        assert_eq!(w.take(9, Some(30), MS * 1005), Ok(()));
    }

    #[test]
    fn unlimited_keeps_nothing_but_still_pauses() {
        let mut w = Window::default();
        for id in 0..1000 {
            assert_eq!(w.take(id, None, S), Ok(()));
        }
        assert!(w.slots.is_empty());
        w.finish(5, refused(2), None, S);
        assert_eq!(w.take(1001, None, S * 2), Err(S * 3));
        assert_eq!(w.per_minute(None, S * 3), None);
    }

    #[test]
    fn idle_once_its_last_slot_pause_and_learned_limit_end() {
        let limit = Some(2);
        let mut w = taken_at_once(2, limit);
        assert_eq!(w.idle_at(), STALE + WINDOW, "a slot in flight lasts until stale");
        w.finish(0, Outcome::Counted, limit, S);
        w.finish(1, Outcome::Counted, limit, S * 2);
        assert_eq!(w.idle_at(), S * 2 + WINDOW, "an answered one a window from its answer");
        assert!(!w.is_idle(S * 2 + WINDOW - MS) && w.is_idle(S * 2 + WINDOW));
        assert_eq!(w.take(2, limit, S * 70), Ok(()));
        w.finish(2, refused(3600), limit, S * 71);
        assert_eq!(w.idle_at(), S * (71 + 3600), "a pause to its end");
        let mut w = taken_at_once(1, limit);
        w.finish(0, Outcome::Counted, limit, S);
        w.finish(1, refused(1), limit, S * 2);
        assert_eq!(w.idle_at(), S * 2 + FORGET_AFTER, "a learned limit until forgotten");
    }

    #[test]
    fn a_step_of_unknown_fate_is_settled_once() {
        let limit = Some(2);
        let mut w = taken_at_once(2, limit);
        // Slot 0's take was applied but its reply lost: settled as unsent, it frees its place.
        w.settle(0, Outcome::Unsent, limit, S);
        w.settle(0, Outcome::Unsent, limit, S);
        assert_eq!(w.take(5, limit, S), Ok(()));
        // Slot 1's answer was counted, then the same finish settled again: nothing changes.
        w.finish(1, Outcome::Counted, limit, S * 2);
        w.settle(1, Outcome::Counted, limit, S * 30);
        w.finish(1, Outcome::Counted, limit, S * 30);
        assert_eq!(w.take(6, limit, S * 3), Err(S * 2 + WINDOW));
        // A refusal settled again after it was applied pauses nothing further.
        w.finish(5, refused(5), limit, S * 4);
        w.settle(5, refused(50), limit, S * 5);
        assert_eq!(w.take(6, limit, S * 9), Ok(()), "the first request at the advised time goes");
    }

    #[test]
    fn a_state_from_the_future_is_told_by_any_of_its_times() {
        let limit = Some(2);
        let mut w = taken_at_once(2, limit);
        w.finish(0, Outcome::Counted, limit, S);
        w.finish(1, refused(30), limit, S * 2);
        let now = S * 3;
        assert!(!w.is_from_the_future(now));
        assert!(!w.shifted(CLOCK_TOLERANCE).is_from_the_future(now), "within the tolerance");
        assert!(w.shifted(S * 3600).is_from_the_future(now));
        let mut paused = Window::default();
        paused.finish(9, refused(30), None, now + S * 60);
        assert!(paused.is_from_the_future(now), "a pause set a minute from now");
        let mut taught = taken_at_once(1, limit);
        taught.finish(0, Outcome::Counted, limit, MS);
        assert!(!taught.is_from_the_future(S));
        assert!(taught.shifted(S * 10).is_from_the_future(S));
    }

    #[test]
    fn a_slot_left_in_flight_by_a_dead_process_goes_eventually() {
        let mut w = Window::default();
        assert_eq!(w.take(1, Some(1), Duration::ZERO), Ok(()));
        assert!(w.take(2, Some(1), STALE).is_err());
        assert_eq!(w.take(2, Some(1), STALE + WINDOW), Ok(()));
    }
}
