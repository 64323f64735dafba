//! Quantised vectors and the exact scan for a query's most similar ones: the vectors of
//! [`embed`], stored in blocks that a scan reads column by column.

mod embed;
mod kernels;
mod top_n;

use embed::SCALE;
pub use embed::{embed, embed_tokens, DIMENSIONS};
use kernels::{above, dots, Above};
#[cfg(target_arch = "x86_64")]
use kernels::{dots_avx2, dots_avx512};
use top_n::TopN;

/// Chunks per block of [`Vectors`]: a block stores its vectors dimension by dimension.
const BLOCK: usize = 512;
/// The largest squared L2 norm of a stored or query vector: two such vectors have a dot
/// product within `i16` (Cauchy-Schwarz), so 16-bit wrapping sums of it are exact.
/// [`embed`] stays well below (its vectors have norms of at most about 135).
const MAX_NORM_SQUARED: i32 = i16::MAX as i32;

/// Quantised vectors in blocks of `BLOCK`, each block stored dimension-major: a block
/// holds one column of `BLOCK` bytes per dimension.
///
/// Query vectors are sparse (a short question hashes into a few dozen of the
/// [`DIMENSIONS`] slots), so a scan only reads the columns of the query's non-zero
/// dimensions. The dot products are exact integers: the same ranking as comparing
/// the full vectors one by one, at a fraction of the cost.
///
/// A column stores each value plus 128 (a byte from 1 to 255), and pairs the vectors
/// of each group of 64 (see `byte_of`): a multiply-add of unsigned by signed bytes
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

    /// The scan: per block and query, `kernel` writes the block's dot products with the
    /// query into a buffer and tells which of them beat the query's floor; those are pushed.
    #[inline(always)]
    fn scan(
        &self,
        queries: &[Query],
        n: usize,
        accept: &dyn Fn(u32) -> bool,
        kernel: impl Fn(&[u8], &Query, i16, &mut [i16; BLOCK]) -> Above,
    ) -> Vec<Vec<(u32, f32)>> {
        let mut best: Vec<TopN> = queries.iter().map(|_| TopN::new(n)).collect();
        let mut block_dots = [0i16; BLOCK];
        for (b, block) in self.data.chunks_exact(BLOCK * DIMENSIONS).enumerate() {
            let count = (self.len - b * BLOCK).min(BLOCK);
            for (query, best) in queries.iter().zip(&mut best) {
                // No dot product beats i16::MAX: a higher floor means none.
                let floor = best.floor().min(i16::MAX as i32) as i16;
                for (w, mut word) in kernel(block, query, floor, &mut block_dots).into_iter().enumerate() {
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

fn to_cosine(dot: i32) -> f32 {
    dot as f32 / (SCALE * SCALE)
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
