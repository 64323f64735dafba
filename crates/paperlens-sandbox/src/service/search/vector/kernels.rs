//! The dot products of a query with a block of stored vectors: AVX-512BW, AVX2 and
//! portable kernels of the same arithmetic, and which products beat the scan's floor.

use super::{value_of, Query, BLOCK, DIMENSIONS};

/// Which of a block's dot products beat a floor: bit `i % 64` of word `i / 64` for the
/// block's vector `i`.
pub(super) type Above = [u64; BLOCK / 64];

#[inline(always)]
pub(super) fn above(dots: &[i16; BLOCK], floor: i16) -> Above {
    let mut words = [0u64; BLOCK / 64];
    for (word, group) in words.iter_mut().zip(dots.chunks_exact(64)) {
        *word = group.iter().enumerate().fold(0, |m, (i, &d)| m | ((d > floor) as u64) << i);
    }
    words
}

/// Vectors per stripe of [`dots_avx2`]: the stripe's 16-bit sums stay in eight registers
/// while the query's dimensions are added up.
const STRIPE: usize = 128;

/// [`dots`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dots_avx2(block: &[u8], query: &Query, out: &mut [i16; BLOCK]) {
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
pub(super) unsafe fn dots_avx512(block: &[u8], query: &Query, floor: i16, out: &mut [i16; BLOCK]) -> Above {
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
pub(super) fn dots(block: &[u8], query: &Query, out: &mut [i16; BLOCK]) {
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
