//! Deterministic "embeddings": words and character trigrams hashed into a signed
//! feature vector, L2-normalised and quantised to i8. Cosine similarity of two such
//! vectors approximates their lexical overlap, including partial word matches.

use super::largest::keep_largest;
use super::round;
use super::tokenize::tokens;
use crate::service::rng::key;

pub const DIMENSIONS: usize = 256;
const SCALE: f32 = 127.0;

pub fn embed(text: &str) -> [i8; DIMENSIONS] {
    let mut words = Vec::new();
    tokens(text, &mut words);
    embed_tokens(&words)
}

/// [`embed`] of a text given its [`tokens`].
pub fn embed_tokens(words: &[String]) -> [i8; DIMENSIONS] {
    let mut features = [0f32; DIMENSIONS];
    let mut add = |hash: u64, weight: f32| {
        let h = key(&[hash]);
        let slot = (h % DIMENSIONS as u64) as usize;
        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
        features[slot] += sign * weight;
    };
    let mut padded = String::new();
    let mut bounds: Vec<usize> = Vec::new();
    for word in words {
        add(fnv(FNV_OFFSET, word.as_bytes()), 1.0);
        padded.clear();
        padded.push('^');
        padded.push_str(word);
        padded.push('$');
        bounds.clear();
        bounds.extend(padded.char_indices().map(|(i, _)| i).chain([padded.len()]));
        // A trigram's hash is the FNV of its three characters' UTF-8 bytes.
        for window in bounds.windows(4) {
            add(fnv(FNV_OFFSET, &padded.as_bytes()[window[0]..window[3]]), 0.4);
        }
    }
    let norm = features.iter().map(|v| v * v).sum::<f32>().sqrt();
    let mut out = [0i8; DIMENSIONS];
    if norm > 0.0 {
        // A query hashes into few slots: most are zero and stay so.
        for (o, v) in out.iter_mut().zip(features).filter(|(_, v)| *v != 0.0) {
            *o = round(v / norm * SCALE).clamp(-127.0, 127.0) as i8;
        }
    }
    out
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes`, continuing from `hash`.
fn fnv(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Chunks per block of [`Vectors`]: a block stores its vectors dimension by dimension.
const BLOCK: usize = 512;
/// The largest squared L2 norm of a stored or query vector: two such vectors have a dot
/// product within `i16` (Cauchy-Schwarz), so 16-bit wrapping sums of it are exact.
/// [`embed`] stays well below (its vectors have norms of at most about 135).
const MAX_NORM_SQUARED: i32 = i16::MAX as i32;

/// Quantised vectors in blocks of [`BLOCK`], each block stored dimension-major: a block
/// holds one column of [`BLOCK`] bytes per dimension.
///
/// Query vectors are sparse (a short question hashes into a few dozen of the
/// [`DIMENSIONS`] slots), so a scan only reads the columns of the query's non-zero
/// dimensions. The dot products are exact integers: the same ranking as comparing
/// the full vectors one by one, at a fraction of the cost.
///
/// A column stores each value plus 128 (a byte from 1 to 255), and pairs the vectors
/// of each group of 64 (see [`byte_of`]): a multiply-add of unsigned by signed bytes
/// then weighs 32 vectors of one dimension per instruction, without widening them
/// first, and the offset comes off the sums once at the end.
#[derive(Default)]
pub struct Vectors {
    data: Vec<u8>,
    len: usize,
}

/// Where vector `i` of a block lies in each column: in its group of 64, vectors 0-31
/// take the even bytes and vectors 32-63 the odd ones, so the even (odd) 16-bit lanes
/// of a multiply-add hold the sums of the group's first (second) half in order.
fn byte_of(i: usize) -> usize {
    let r = i % 64;
    i - r + (r % 32) * 2 + r / 32
}

/// A column byte back to the value it stores.
fn value_of(byte: u8) -> i8 {
    (byte ^ 0x80) as i8
}

/// A query vector prepared for [`Vectors::top`]: its non-zero dimensions and weights.
#[derive(Debug, Clone)]
pub struct Query {
    dimensions: Vec<(usize, i8)>,
    /// What the stored offset adds to every dot product (128 times the weights' sum),
    /// modulo 2^16 as the scan's sums are.
    offset: i16,
}

impl Query {
    pub fn new(vector: &[i8; DIMENSIONS]) -> Query {
        assert!(norm_squared(vector) <= MAX_NORM_SQUARED, "query vector norm too large for 16-bit dot products");
        let mut dimensions = Vec::with_capacity(DIMENSIONS);
        dimensions.extend(vector.iter().enumerate().filter(|(_, &q)| q != 0).map(|(d, &q)| (d, q)));
        let offset = (128 * dimensions.iter().map(|&(_, q)| q as i32).sum::<i32>()) as i16;
        Query { dimensions, offset }
    }
}

fn norm_squared(vector: &[i8; DIMENSIONS]) -> i32 {
    vector.iter().map(|&v| v as i32 * v as i32).sum()
}

impl Vectors {
    pub fn push(&mut self, vector: &[i8; DIMENSIONS]) {
        assert!(norm_squared(vector) <= MAX_NORM_SQUARED, "vector norm too large for 16-bit dot products");
        assert!(vector.iter().all(|&v| v != i8::MIN), "vector values must lie within -127..=127");
        let i = self.len % BLOCK;
        if i == 0 {
            self.data.resize(self.data.len() + BLOCK * DIMENSIONS, 0x80);
        }
        let start = self.data.len() - BLOCK * DIMENSIONS;
        for (d, &v) in vector.iter().enumerate() {
            self.data[start + d * BLOCK + byte_of(i)] = v as u8 ^ 0x80;
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
        let byte = byte_of(i % BLOCK);
        let dot: i32 =
            query.iter().enumerate().map(|(d, &q)| q as i32 * value_of(block[d * BLOCK + byte]) as i32).sum();
        to_cosine(dot)
    }

    /// For each query, the `n` stored vectors most similar to it with a positive cosine (of
    /// equal ones, the lower positions), among those `accept` keeps; as (position, cosine)
    /// in no particular order.
    pub fn top(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512BW, checked just above.
            return unsafe { self.top_avx512(queries, n, accept) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.top_avx2(queries, n, accept) };
        }
        self.top_portable(queries, n, accept)
    }

    /// [`Vectors::top`] with AVX-512BW dot products.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    unsafe fn top_avx512(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        self.scan(queries, n, accept, |block, query, floor, out| {
            // SAFETY: only called from here, on a CPU with AVX-512BW.
            unsafe { dots_avx512(block, query, floor, out) }
        })
    }

    /// [`Vectors::top`] with AVX2 dot products.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn top_avx2(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        self.scan(queries, n, accept, |block, query, floor, out| {
            // SAFETY: only called from here, on a CPU with AVX2.
            unsafe { dots_avx2(block, query, out) };
            above(out, floor)
        })
    }

    fn top_portable(&self, queries: &[Query], n: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(u32, f32)>> {
        self.scan(queries, n, accept, |block, query, floor, out| {
            dots(block, query, out);
            above(out, floor)
        })
    }

    /// The scan: per block and query, the block's dot products with the query into a
    /// buffer, and which of them beat the query's floor (by `dots`); those are pushed.
    #[inline(always)]
    fn scan(
        &self,
        queries: &[Query],
        n: usize,
        accept: &dyn Fn(u32) -> bool,
        dots: impl Fn(&[u8], &Query, i16, &mut [i16; BLOCK]) -> Above,
    ) -> Vec<Vec<(u32, f32)>> {
        let mut best: Vec<TopN> = queries.iter().map(|_| TopN::new(n)).collect();
        let mut block_dots = [0i16; BLOCK];
        for (b, block) in self.data.chunks_exact(BLOCK * DIMENSIONS).enumerate() {
            let count = (self.len - b * BLOCK).min(BLOCK);
            for (query, best) in queries.iter().zip(&mut best) {
                // No dot product beats i16::MAX: a higher floor means none.
                let floor = best.floor().min(i16::MAX as i32) as i16;
                for (w, mut word) in dots(block, query, floor, &mut block_dots).into_iter().enumerate() {
                    let stored = count.saturating_sub(64 * w);
                    if stored < 64 {
                        word &= (1u64 << stored) - 1;
                    }
                    while word != 0 {
                        let i = 64 * w + word.trailing_zeros() as usize;
                        word &= word - 1;
                        let position = (b * BLOCK + i) as u32;
                        if accept(position) {
                            best.push(block_dots[i] as i32, position);
                        }
                    }
                }
                best.settle();
            }
        }
        best.into_iter().map(|t| t.into_kept().map(|(dot, i)| (i, to_cosine(dot))).collect()).collect()
    }
}

/// Which of a block's dot products beat a floor: bit `i % 64` of word `i / 64` for the
/// block's vector `i`.
type Above = [u64; BLOCK / 64];

#[inline(always)]
fn above(dots: &[i16; BLOCK], floor: i16) -> Above {
    let mut words = [0u64; BLOCK / 64];
    for (word, group) in words.iter_mut().zip(dots.chunks_exact(64)) {
        *word = group.iter().enumerate().fold(0, |m, (i, &d)| m | ((d > floor) as u64) << i);
    }
    words
}

fn to_cosine(dot: i32) -> f32 {
    dot as f32 / (SCALE * SCALE)
}

/// Vectors per stripe of [`dots_avx2`]: the stripe's 16-bit sums stay in eight registers
/// while the query's dimensions are added up.
const STRIPE: usize = 128;

/// [`dots`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dots_avx2(block: &[u8], query: &Query, out: &mut [i16; BLOCK]) {
    use std::arch::x86_64::*;
    assert_eq!(block.len(), BLOCK * DIMENSIONS);
    for (s, stripe) in out.chunks_exact_mut(STRIPE).enumerate() {
        // Register 2h + half holds, for the stripe's group g = h / 2 and its 16-vector
        // part p = h % 2, the sums of vectors 64g + 32half + 16p .. +16 (see byte_of).
        let mut acc = [_mm256_setzero_si256(); STRIPE / 16];
        for &(d, q) in &query.dimensions {
            debug_assert!(d < DIMENSIONS);
            // SAFETY: d < DIMENSIONS (a query dimension), so the STRIPE bytes of the
            // column from here lie inside `block`.
            let column = unsafe { block.as_ptr().add(d * BLOCK + s * STRIPE) };
            let (even, odd) = (_mm256_set1_epi16(q as u8 as i16), _mm256_set1_epi16((q as u8 as i16) << 8));
            for (h, acc) in acc.chunks_exact_mut(2).enumerate() {
                // SAFETY: 32 bytes from 32 * h inside the STRIPE of `column`.
                let v = unsafe { _mm256_loadu_si256(column.add(32 * h).cast()) };
                // Each 16-bit lane: (value + 128) * q, at most 255 * 127 in size: no
                // saturation; wrapping sums of them are exact, see MAX_NORM_SQUARED.
                acc[0] = _mm256_add_epi16(acc[0], _mm256_maddubs_epi16(v, even));
                acc[1] = _mm256_add_epi16(acc[1], _mm256_maddubs_epi16(v, odd));
            }
        }
        let offset = _mm256_set1_epi16(query.offset);
        for (h, acc) in acc.chunks_exact(2).enumerate() {
            for (half, acc) in acc.iter().enumerate() {
                let first = 64 * (h / 2) + 32 * half + 16 * (h % 2);
                // SAFETY: `stripe` holds 16 i16 (32 bytes) from `first`.
                unsafe { _mm256_storeu_si256(stripe.as_mut_ptr().add(first).cast(), _mm256_sub_epi16(*acc, offset)) };
            }
        }
    }
}

/// [`dots`] with AVX-512BW, and [`above`] the floor: as [`dots_avx2`], twice as wide, a
/// whole block at a time (its sums fill half the registers). The scan waits on memory more than it computes, so the
/// columns of the query's next dimensions are fetched ahead.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn dots_avx512(block: &[u8], query: &Query, floor: i16, out: &mut [i16; BLOCK]) -> Above {
    use std::arch::x86_64::*;
    const AHEAD: usize = 4;
    assert_eq!(block.len(), BLOCK * DIMENSIONS);
    // Register 2g + half: the sums of vectors 64g + 32half .. +32 (see byte_of).
    let mut acc = [_mm512_setzero_si512(); BLOCK / 32];
    for (j, &(d, q)) in query.dimensions.iter().enumerate() {
        debug_assert!(d < DIMENSIONS);
        if let Some(&(next, _)) = query.dimensions.get(j + AHEAD) {
            for line in (0..BLOCK).step_by(64) {
                // SAFETY: next < DIMENSIONS, so its column lies inside `block`.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().add(next * BLOCK + line).cast()) };
            }
        }
        // SAFETY: d < DIMENSIONS (a query dimension), so the BLOCK bytes of the column
        // from here lie inside `block`.
        let column = unsafe { block.as_ptr().add(d * BLOCK) };
        let (even, odd) = (_mm512_set1_epi16(q as u8 as i16), _mm512_set1_epi16((q as u8 as i16) << 8));
        for (g, acc) in acc.chunks_exact_mut(2).enumerate() {
            // SAFETY: 64 bytes from 64 * g inside the column.
            let v = unsafe { _mm512_loadu_si512(column.add(64 * g).cast()) };
            // As in dots_avx2: no saturation, exact wrapping sums.
            acc[0] = _mm512_add_epi16(acc[0], _mm512_maddubs_epi16(v, even));
            acc[1] = _mm512_add_epi16(acc[1], _mm512_maddubs_epi16(v, odd));
        }
    }
    let (offset, floor) = (_mm512_set1_epi16(query.offset), _mm512_set1_epi16(floor));
    let mut words = [0u64; BLOCK / 64];
    for (k, acc) in acc.iter().enumerate() {
        let dots = _mm512_sub_epi16(*acc, offset);
        // SAFETY: `out` holds 32 i16 (64 bytes) from 32 * k.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(32 * k).cast(), dots) };
        words[k / 2] |= (_mm512_cmpgt_epi16_mask(dots, floor) as u64) << (32 * (k % 2));
    }
    words
}

/// The dot products of `query` with the block's vectors, into `out`.
#[inline(always)]
fn dots(block: &[u8], query: &Query, out: &mut [i16; BLOCK]) {
    out.fill(0);
    for &(d, q) in &query.dimensions {
        let column = &block[d * BLOCK..][..BLOCK];
        for (group, bytes) in out.chunks_exact_mut(64).zip(column.chunks_exact(64)) {
            let (first, second) = group.split_at_mut(32);
            for ((a, b), pair) in first.iter_mut().zip(second).zip(bytes.chunks_exact(2)) {
                // Wrapping 16-bit sums: exact, see MAX_NORM_SQUARED.
                *a = a.wrapping_add((value_of(pair[0]) as i16).wrapping_mul(q as i16));
                *b = b.wrapping_add((value_of(pair[1]) as i16).wrapping_mul(q as i16));
            }
        }
    }
}

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
struct TopN {
    n: usize,
    kept: Vec<u64>,
    /// How many kept candidates fall in each bucket.
    counts: [u32; 1 << (15 - BUCKET_BITS)],
    /// Every kept candidate lies in this bucket or a higher one.
    lowest: usize,
}

impl TopN {
    fn new(n: usize) -> TopN {
        TopN { n, kept: Vec::with_capacity(2 * n + BLOCK), counts: [0; 1 << (15 - BUCKET_BITS)], lowest: 0 }
    }

    /// Larger is better: the dot product (positive), then the lower position.
    fn key(dot: i32, position: u32) -> u64 {
        debug_assert!(dot > 0);
        (dot as u64) << 32 | !position as u64
    }

    fn bucket(dot: i32) -> usize {
        (dot >> BUCKET_BITS) as usize
    }

    /// Pushes must beat this dot product: positive, and in the lowest bucket or above.
    fn floor(&self) -> i32 {
        ((self.lowest << BUCKET_BITS) as i32 - 1).max(0)
    }

    fn push(&mut self, dot: i32, position: u32) {
        self.kept.push(TopN::key(dot, position));
        self.counts[TopN::bucket(dot)] += 1;
    }

    /// After a block's pushes: drops the buckets that `n` better candidates rule out.
    fn settle(&mut self) {
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
    fn into_kept(mut self) -> impl Iterator<Item = (i32, u32)> {
        keep_largest(&mut self.kept, self.n);
        self.kept.into_iter().map(|k| ((k >> 32) as i32, !(k as u32)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each query's list best first (ties to the lower position).
    fn best_first(mut lists: Vec<Vec<(u32, f32)>>) -> Vec<Vec<(u32, f32)>> {
        for list in &mut lists {
            list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        lists
    }

    #[test]
    fn similar_texts_are_closer_than_unrelated_ones() {
        let query = embed("quantum error correction");
        let mut store = Vectors::default();
        store.push(&embed("surface codes for quantum error correction on superconducting qubits"));
        store.push(&embed("loss aversion in household savings decisions"));
        assert!(store.cosine(0, &query) > store.cosine(1, &query) + 0.2);
        let top = best_first(store.top(&[Query::new(&query)], 5, &|_| true));
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
    fn dot_products_near_the_16_bit_limit_are_exact() {
        let mut store = Vectors::default();
        store.push(&[11; DIMENSIONS]);
        store.push(&[-11; DIMENSIONS]);
        let top = store.top(&[Query::new(&[11; DIMENSIONS])], 2, &|_| true);
        assert_eq!(top[0], [(0, (121 * DIMENSIONS) as f32 / (SCALE * SCALE))]);
        assert_eq!(top[0], store.top_portable(&[Query::new(&[11; DIMENSIONS])], 2, &|_| true)[0]);
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
            let top = best_first(store.top(&prepared, n, &accept));
            assert_eq!(top, best_first(store.top_portable(&prepared, n, &accept)), "the portable scan agrees");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                let avx2 = best_first(unsafe { store.top_avx2(&prepared, n, &accept) });
                assert_eq!(top, avx2, "the AVX2 scan agrees");
            }
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
