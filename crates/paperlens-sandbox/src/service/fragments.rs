//! Parts of answers that depend only on one record or chunk (its JSON, already escaped),
//! made on first use and kept up to a byte budget, so that a long-running sandbox over
//! a large corpus stays bounded.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Bytes a cached value holds on the heap, counted against the budget.
pub trait HeapSize {
    fn heap_size(&self) -> usize;
}

pub struct FragmentCache<T> {
    slots: Vec<OnceLock<T>>,
    used: AtomicUsize,
    budget: usize,
}

impl<T: Clone + HeapSize> FragmentCache<T> {
    pub fn new(len: usize, budget: usize) -> FragmentCache<T> {
        FragmentCache { slots: (0..len).map(|_| OnceLock::new()).collect(), used: AtomicUsize::new(0), budget }
    }

    /// Fragment `i`: the kept one, or the one `make` makes (kept while the budget allows).
    pub fn get(&self, i: usize, make: impl FnOnce() -> T) -> Cow<'_, T> {
        let slot = &self.slots[i];
        if let Some(kept) = slot.get() {
            return Cow::Borrowed(kept);
        }
        let made = make();
        let size = made.heap_size();
        if self.used.fetch_add(size, Ordering::Relaxed) + size > self.budget {
            self.used.fetch_sub(size, Ordering::Relaxed);
            return Cow::Owned(made);
        }
        Cow::Borrowed(slot.get_or_init(|| made))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl HeapSize for Vec<u8> {
        fn heap_size(&self) -> usize {
            self.len()
        }
    }

    #[test]
    fn keeps_fragments_until_the_budget_is_spent() {
        let cache: FragmentCache<Vec<u8>> = FragmentCache::new(3, 5);
        assert!(matches!(cache.get(0, || b"abc".to_vec()), Cow::Borrowed(b) if b == b"abc"));
        assert_eq!(*cache.get(0, || unreachable!()), b"abc");
        assert!(matches!(cache.get(1, || b"defg".to_vec()), Cow::Owned(b) if b == b"defg"), "over budget");
        assert!(matches!(cache.get(1, || b"de".to_vec()), Cow::Borrowed(b) if b == b"de"));
        assert!(matches!(cache.get(2, || b"x".to_vec()), Cow::Owned(_)));
    }
}
