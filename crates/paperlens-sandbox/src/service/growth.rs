//! A corpus that grows: a share of the papers is hidden from `/meta-search` until revealed
//! (after a number of requests, or on a call), as records reach a real index late. The
//! records themselves never change, so the grown service is a superset of the first whose
//! shared records are identical: what a living review's update must find.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::rng;

/// A salt of the hidden papers' draw, apart from every draw of the corpus.
const GROWTH_STREAM: u64 = 0x6772_6f77;

/// Which papers are hidden, and until when.
#[derive(Debug, Default)]
pub struct Growth {
    /// By paper index; empty when nothing is hidden.
    hidden: Vec<bool>,
    /// Revealed once this many requests have been handled.
    reveal_after: Option<u64>,
    handled: AtomicU64,
    revealed: AtomicBool,
}

impl Growth {
    /// Hides about `share` (0 to 1) of `papers` papers, drawn from `seed`; reveals them after
    /// `reveal_after` requests (None: only on [`Growth::reveal`]).
    pub fn new(papers: usize, seed: u64, share: f64, reveal_after: Option<u64>) -> Growth {
        let threshold = (share.clamp(0.0, 1.0) * u64::MAX as f64) as u64;
        let hidden = if share > 0.0 {
            (0..papers as u64).map(|i| rng::key(&[seed, GROWTH_STREAM, i]) < threshold).collect()
        } else {
            Vec::new()
        };
        Growth { hidden, reveal_after, handled: AtomicU64::new(0), revealed: AtomicBool::new(false) }
    }

    /// Counts one request handled; the one that reaches `reveal_after` is the first to see
    /// the grown corpus.
    pub fn count_request(&self) {
        let handled = self.handled.fetch_add(1, Ordering::SeqCst) + 1;
        if self.reveal_after.is_some_and(|after| handled > after) {
            self.revealed.store(true, Ordering::SeqCst);
        }
    }

    /// From now on every paper is visible.
    pub fn reveal(&self) {
        self.revealed.store(true, Ordering::SeqCst);
    }

    /// Whether paper `index` is hidden from searches now.
    pub fn hides(&self, index: u32) -> bool {
        !self.hidden.is_empty()
            && !self.revealed.load(Ordering::SeqCst)
            && self.hidden.get(index as usize).copied().unwrap_or(false)
    }

    /// How many papers are hidden now.
    pub fn hidden_count(&self) -> usize {
        if self.revealed.load(Ordering::SeqCst) {
            0
        } else {
            self.hidden.iter().filter(|&&hidden| hidden).count()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Growth;

    #[test]
    fn hides_about_the_share_until_revealed_by_a_call() {
        let growth = Growth::new(10_000, 7, 0.2, None);
        let hidden = growth.hidden_count();
        assert!((1_800..=2_200).contains(&hidden), "{hidden}");
        assert_eq!((0..10_000).filter(|&i| growth.hides(i)).count(), hidden);
        assert_eq!(Growth::new(10_000, 7, 0.2, None).hidden, growth.hidden, "the same papers for a seed");
        growth.reveal();
        assert_eq!(growth.hidden_count(), 0);
        assert!((0..10_000).all(|i| !growth.hides(i)));
    }

    #[test]
    fn reveals_after_the_requests_named_and_hides_nothing_without_a_share() {
        let growth = Growth::new(100, 1, 1.0, Some(2));
        growth.count_request();
        growth.count_request();
        assert_eq!(growth.hidden_count(), 100, "the first two requests see the corpus before it grew");
        growth.count_request();
        assert_eq!(growth.hidden_count(), 0, "the third sees it grown");
        let none = Growth::new(100, 1, 0.0, Some(0));
        assert!((0..100).all(|i| !none.hides(i)));
    }
}
