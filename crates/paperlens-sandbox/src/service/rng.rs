//! A tiny deterministic generator (SplitMix64). Every random choice of the corpus is
//! drawn from a stream keyed by (seed, purpose, ids), so that any part (one paper, one
//! block of a full text) can be regenerated alone, in any order, with the same result.

#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A 64-bit key derived from a list of numbers; stable across platforms and runs.
pub fn key(parts: &[u64]) -> u64 {
    parts.iter().fold(0x9e37_79b9_7f4a_7c15, |acc, &p| {
        mix(acc ^ p.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    })
}

impl Rng {
    pub fn new(parts: &[u64]) -> Rng {
        Rng { state: key(parts) }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.state)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 11) as u128 * n as u128) >> 53) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Index drawn with a Zipf-like skew towards small indexes.
    pub fn skewed(&mut self, n: usize, exponent: f64) -> usize {
        let u = self.unit();
        ((u.powf(exponent) * n as f64) as usize).min(n - 1)
    }

    /// Pareto-distributed weight >= 1 (heavy tail for `alpha` near 1).
    pub fn pareto(&mut self, alpha: f64) -> f64 {
        (1.0 - self.unit()).powf(-1.0 / alpha)
    }

    /// `count` distinct indexes below `n`, in drawing order.
    pub fn distinct(&mut self, n: usize, count: usize) -> Vec<usize> {
        let count = count.min(n);
        let mut out: Vec<usize> = Vec::with_capacity(count);
        while out.len() < count {
            let i = self.below(n);
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }
}
