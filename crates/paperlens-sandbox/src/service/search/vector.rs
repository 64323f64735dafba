//! Deterministic "embeddings": words and character trigrams hashed into a signed
//! feature vector, L2-normalised and quantised to i8. Cosine similarity of two such
//! vectors approximates their lexical overlap, including partial word matches.

use super::tokenize::tokens;
use crate::service::rng::key;

pub const DIMENSIONS: usize = 256;
const SCALE: f32 = 127.0;

pub fn embed(text: &str) -> [i8; DIMENSIONS] {
    let mut features = [0f32; DIMENSIONS];
    let mut add = |bytes: &[u8], weight: f32| {
        let h = key(&[fnv(bytes)]);
        let slot = (h % DIMENSIONS as u64) as usize;
        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
        features[slot] += sign * weight;
    };
    let mut words = Vec::new();
    tokens(text, &mut words);
    for word in &words {
        add(word.as_bytes(), 1.0);
        let padded: Vec<char> = std::iter::once('^').chain(word.chars()).chain(std::iter::once('$')).collect();
        for gram in padded.windows(3) {
            let gram: String = gram.iter().collect();
            add(gram.as_bytes(), 0.4);
        }
    }
    let norm = features.iter().map(|v| v * v).sum::<f32>().sqrt();
    let mut out = [0i8; DIMENSIONS];
    if norm > 0.0 {
        for (o, v) in out.iter_mut().zip(features) {
            *o = (v / norm * SCALE).round().clamp(-127.0, 127.0) as i8;
        }
    }
    out
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Chunks per block of [`Vectors`]: a block stores its vectors dimension by dimension.
const BLOCK: usize = 512;
/// The largest `sum |q_d|` of a group of query dimensions whose partial dot products
/// cannot overflow an `i16` accumulator (`|v_d| <= 127`).
const GROUP_WEIGHT: i32 = i16::MAX as i32 / 127;

/// Quantised vectors in blocks of [`BLOCK`], each block stored dimension-major
/// (`block[d * BLOCK + i]` is dimension `d` of the block's `i`-th vector).
///
/// Query vectors are sparse (a short question hashes into a few dozen of the
/// [`DIMENSIONS`] slots), so a scan only reads the columns of the query's non-zero
/// dimensions. The dot products are exact integers: the same ranking as comparing
/// the full vectors one by one, at a fraction of the cost.
#[derive(Default)]
pub struct Vectors {
    data: Vec<i8>,
    len: usize,
}

/// A query vector prepared for [`Vectors::top`]: its non-zero dimensions, in groups
/// that can be summed in 16-bit lanes without overflow.
#[derive(Debug, Clone)]
pub struct Query {
    groups: Vec<Vec<(usize, i16)>>,
}

impl Query {
    pub fn new(vector: &[i8; DIMENSIONS]) -> Query {
        let mut groups: Vec<Vec<(usize, i16)>> = Vec::new();
        let mut weight = GROUP_WEIGHT;
        for (d, &q) in vector.iter().enumerate().filter(|(_, &q)| q != 0) {
            let w = (q as i32).abs();
            if weight + w > GROUP_WEIGHT {
                groups.push(Vec::new());
                weight = 0;
            }
            weight += w;
            if let Some(group) = groups.last_mut() {
                group.push((d, q as i16));
            }
        }
        Query { groups }
    }
}

impl Vectors {
    pub fn push(&mut self, vector: &[i8; DIMENSIONS]) {
        let i = self.len % BLOCK;
        if i == 0 {
            self.data.resize(self.data.len() + BLOCK * DIMENSIONS, 0);
        }
        let start = self.data.len() - BLOCK * DIMENSIONS;
        for (d, &v) in vector.iter().enumerate() {
            self.data[start + d * BLOCK + i] = v;
        }
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Cosine similarity between stored vector `i` and `query`.
    pub fn cosine(&self, i: usize, query: &[i8; DIMENSIONS]) -> f32 {
        let block = &self.data[(i / BLOCK) * BLOCK * DIMENSIONS..][..BLOCK * DIMENSIONS];
        let dot: i32 = query.iter().enumerate().map(|(d, &q)| q as i32 * block[d * BLOCK + i % BLOCK] as i32).sum();
        to_cosine(dot)
    }

    /// For each query, the `n` stored vectors most similar to it with a positive cosine,
    /// best first (ties by position), among those `accept` keeps; as (position, cosine).
    pub fn top(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.top_avx2(queries, n, accept) };
        }
        self.top_portable(queries, n, accept)
    }

    /// [`Vectors::top`] with AVX2 dot products.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn top_avx2(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        self.scan(queries, n, accept, |block, query, wide| {
            // SAFETY: only called from here, on a CPU with AVX2.
            unsafe { dots_avx2(block, query, wide) }
        })
    }

    fn top_portable(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        self.scan(queries, n, accept, dots)
    }

    #[inline(always)]
    fn scan(
        &self,
        queries: &[Query],
        n: usize,
        accept: &dyn Fn(u32) -> bool,
        dots: impl Fn(&[i8], &Query, &mut [i32; BLOCK]),
    ) -> Vec<Vec<(u32, f32)>> {
        let mut best: Vec<TopN> = queries.iter().map(|_| TopN::new(n)).collect();
        let mut wide = [0i32; BLOCK];
        for (b, block) in self.data.chunks_exact(BLOCK * DIMENSIONS).enumerate() {
            let count = (self.len - b * BLOCK).min(BLOCK);
            for (query, best) in queries.iter().zip(&mut best) {
                dots(block, query, &mut wide);
                let floor = best.floor();
                for (s, stripe) in wide[..count].chunks(STRIPE).enumerate() {
                    // Most stripes hold no candidate: test them branch-free first.
                    if stripe.iter().fold(i32::MIN, |m, &d| m.max(d)) <= floor {
                        continue;
                    }
                    for (i, &dot) in stripe.iter().enumerate() {
                        if dot > best.floor() {
                            let position = (b * BLOCK + s * STRIPE + i) as u32;
                            if accept(position) {
                                best.push(dot, position);
                            }
                        }
                    }
                }
            }
        }
        best.into_iter().map(|t| t.into_sorted().into_iter().map(|(dot, i)| (i, to_cosine(dot))).collect()).collect()
    }
}

fn to_cosine(dot: i32) -> f32 {
    dot as f32 / (SCALE * SCALE)
}

/// Vectors per stripe of a block: the stripe's 16-bit partial sums stay in registers
/// while the query's dimensions are added up.
const STRIPE: usize = 64;

/// [`dots`] with AVX2: a stripe's 64 partial sums live in four 16-lane registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dots_avx2(block: &[i8], query: &Query, wide: &mut [i32; BLOCK]) {
    use std::arch::x86_64::*;
    wide.fill(0);
    for group in &query.groups {
        for (s, stripe) in wide.chunks_exact_mut(STRIPE).enumerate() {
            let mut acc = [_mm256_setzero_si256(); STRIPE / 16];
            for &(d, q) in group {
                let start = d * BLOCK + s * STRIPE;
                let column: &[i8; STRIPE] = block[start..start + STRIPE].try_into().expect("a stripe of a column");
                let weight = _mm256_set1_epi16(q);
                for (k, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: 16 bytes from 16 * k inside the 64 of `column`.
                    let v = unsafe { _mm_loadu_si128(column.as_ptr().add(16 * k).cast()) };
                    // No overflow: a group's weights sum to at most i16::MAX / 127.
                    *acc = _mm256_add_epi16(*acc, _mm256_mullo_epi16(_mm256_cvtepi8_epi16(v), weight));
                }
            }
            for (k, acc) in acc.iter().enumerate() {
                let halves = [_mm256_castsi256_si128(*acc), _mm256_extracti128_si256::<1>(*acc)];
                for (h, half) in halves.into_iter().enumerate() {
                    let out = &mut stripe[16 * k + 8 * h..16 * k + 8 * h + 8];
                    // SAFETY: `out` holds 8 i32 (32 bytes).
                    unsafe {
                        let sum =
                            _mm256_add_epi32(_mm256_loadu_si256(out.as_ptr().cast()), _mm256_cvtepi16_epi32(half));
                        _mm256_storeu_si256(out.as_mut_ptr().cast(), sum);
                    }
                }
            }
        }
    }
}

/// The dot products of `query` with the block's vectors, into `wide`.
#[inline(always)]
fn dots(block: &[i8], query: &Query, wide: &mut [i32; BLOCK]) {
    wide.fill(0);
    for group in &query.groups {
        for (s, stripe) in wide.chunks_exact_mut(STRIPE).enumerate() {
            let mut narrow = [0i16; STRIPE];
            for &(d, q) in group {
                let start = d * BLOCK + s * STRIPE;
                let column: &[i8; STRIPE] = block[start..start + STRIPE].try_into().expect("a stripe of a column");
                // No overflow: a group's weights sum to at most i16::MAX / 127.
                for (acc, &v) in narrow.iter_mut().zip(column) {
                    *acc += v as i16 * q;
                }
            }
            for (acc, &part) in stripe.iter_mut().zip(narrow.iter()) {
                *acc += part as i32;
            }
        }
    }
}

/// The `n` largest (dot, position) pairs pushed, ties to the lower position; positions
/// are pushed in increasing order.
struct TopN {
    n: usize,
    kept: Vec<(i32, u32)>,
    /// Pushes must beat this dot product (0 until `n` candidates are known).
    floor: i32,
}

impl TopN {
    fn new(n: usize) -> TopN {
        TopN { n, kept: Vec::with_capacity(2 * n + 1), floor: 0 }
    }

    fn floor(&self) -> i32 {
        self.floor
    }

    fn push(&mut self, dot: i32, position: u32) {
        self.kept.push((dot, position));
        if self.kept.len() > 2 * self.n {
            self.shrink();
        }
    }

    fn shrink(&mut self) {
        if self.n == 0 {
            self.kept.clear();
            self.floor = i32::MAX;
            return;
        }
        let order = |a: &(i32, u32), b: &(i32, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if self.kept.len() > self.n {
            self.kept.select_nth_unstable_by(self.n - 1, order);
            self.kept.truncate(self.n);
        }
        if self.kept.len() == self.n {
            // Later positions lose ties, so they must beat the n-th dot product strictly.
            self.floor = self.kept.iter().map(|k| k.0).min().unwrap_or(0).max(0);
        }
    }

    fn into_sorted(mut self) -> Vec<(i32, u32)> {
        self.shrink();
        self.kept.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_texts_are_closer_than_unrelated_ones() {
        let query = embed("quantum error correction");
        let mut store = Vectors::default();
        store.push(&embed("surface codes for quantum error correction on superconducting qubits"));
        store.push(&embed("loss aversion in household savings decisions"));
        assert!(store.cosine(0, &query) > store.cosine(1, &query) + 0.2);
        let top = store.top(&[Query::new(&query)], 5, &|_| true);
        assert_eq!(top[0], [(0, store.cosine(0, &query)), (1, store.cosine(1, &query))]);
        let unrelated = store.top(&[Query::new(&embed("zzz"))], 5, &|_| true);
        assert!(unrelated[0].iter().all(|(i, s)| *s > 0.0 && *s == store.cosine(*i as usize, &embed("zzz"))));
        assert!(
            (store.cosine(0, &embed("surface codes for quantum error correction on superconducting qubits")) - 1.0)
                .abs()
                < 0.05
        );
    }

    #[test]
    fn top_matches_a_one_by_one_comparison() {
        let texts = ["quantum", "error", "correction", "qubit", "surface code", "coral reef", "loss aversion"];
        let mut store = Vectors::default();
        let mut vectors = Vec::new();
        for k in 0..1500 {
            let text = format!("{} {} {}", texts[k % 7], texts[(k / 7) % 7], texts[(k / 49) % 7]);
            vectors.push(embed(&text));
            store.push(&embed(&text));
        }
        assert_eq!(store.len(), 1500);
        let queries = [embed("quantum error correction"), embed("coral reefs and loss"), embed(&"qubit ".repeat(300))];
        let prepared: Vec<Query> = queries.iter().map(Query::new).collect();
        for n in [0, 1, 7, 50, 2000] {
            let accept = |i: u32| i % 3 != 1;
            let top = store.top(&prepared, n, &accept);
            assert_eq!(top, store.top_portable(&prepared, n, &accept), "the portable scan agrees");
            for (query, got) in queries.iter().zip(&top) {
                let mut want: Vec<(u32, f32)> = (0..vectors.len())
                    .filter(|&i| accept(i as u32))
                    .map(|i| {
                        let dot: i32 = vectors[i].iter().zip(query).map(|(&a, &b)| a as i32 * b as i32).sum();
                        (i as u32, dot as f32 / (SCALE * SCALE))
                    })
                    .filter(|(_, s)| *s > 0.0)
                    .collect();
                want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                want.truncate(n);
                assert_eq!(got, &want, "n = {n}");
            }
        }
    }
}
