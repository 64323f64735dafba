//! The scan's running selection of the best candidates of one query.

use super::BLOCK;
use crate::service::search::largest::keep_largest;

/// Dot products per bucket of [`TopN`]'s counts (2^7): 256 buckets cover the positive
/// `i16` range.
const BUCKET_BITS: u32 = 7;

/// The `n` largest (dot, position) pairs pushed, ties to the lower position; positions
/// are pushed in increasing order. Each pair is kept as one integer that orders as the
/// pairs do (see [`TopN::key`]), so the final cut compares plain integers.
///
/// Rather than cutting back to the `n` best as candidates come (a selection each time),
/// it counts its candidates per bucket of dot products: once the buckets above one hold
/// `n` candidates, that bucket's and lower ones cannot make the final `n`, and go in one
/// pass. The floor is the bottom of the lowest bucket left.
pub(super) struct TopN {
    n: usize,
    kept: Vec<u64>,
    /// How many kept candidates fall in each bucket.
    counts: [u32; 1 << (15 - BUCKET_BITS)],
    /// Every kept candidate lies in this bucket or a higher one.
    lowest: usize,
}

impl TopN {
    pub(super) fn new(n: usize) -> TopN {
        TopN { n, kept: Vec::with_capacity(2 * n + BLOCK), counts: [0; 1 << (15 - BUCKET_BITS)], lowest: 0 }
    }

    /// Larger is better: the dot product (positive), then the lower position.
    #[inline]
    fn key(dot: i32, position: u32) -> u64 {
        debug_assert!(dot > 0);
        (dot as u64) << 32 | !position as u64
    }

    #[inline]
    fn bucket(dot: i32) -> usize {
        (dot >> BUCKET_BITS) as usize
    }

    /// Pushes must beat this dot product: positive, and in the lowest bucket or above.
    #[inline]
    pub(super) fn floor(&self) -> i32 {
        ((self.lowest << BUCKET_BITS) as i32 - 1).max(0)
    }

    #[inline]
    pub(super) fn push(&mut self, dot: i32, position: u32) {
        self.kept.push(TopN::key(dot, position));
        self.counts[TopN::bucket(dot)] += 1;
    }

    /// After a block's pushes: drops the buckets that `n` better candidates rule out.
    pub(super) fn settle(&mut self) {
        let lowest = self.lowest;
        let mut higher = self.kept.len();
        while self.lowest < self.counts.len() && higher - self.counts[self.lowest] as usize >= self.n {
            higher -= self.counts[self.lowest] as usize;
            self.lowest += 1;
        }
        if self.lowest > lowest {
            let floor = self.floor();
            self.kept.retain(|&k| (k >> 32) as i32 > floor);
            self.counts[lowest..self.lowest].fill(0);
        }
    }

    /// The `n` largest, as (dot, position) in no particular order.
    pub(super) fn into_kept(mut self) -> impl Iterator<Item = (i32, u32)> {
        keep_largest(&mut self.kept, self.n);
        self.kept.into_iter().map(|k| ((k >> 32) as i32, !(k as u32)))
    }
}
