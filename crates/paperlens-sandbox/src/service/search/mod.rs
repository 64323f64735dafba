//! Retrieval: a tokenizer for Latin and CJK text, BM25 keyword recall and hashed
//! character n-gram vectors for a deterministic "semantic" recall.

pub mod bm25;
mod largest;
pub mod tokenize;
pub mod vector;

pub use bm25::{Bm25, Bm25Builder, Match};
pub use tokenize::{stop_words, tokens, Script};
pub use vector::{embed, embed_tokens, Query, Vectors, DIMENSIONS};

/// `x.round()` (half away from zero) for |x| < 2^31. x86-64's baseline has no instruction
/// for it, so `f32::round` is a libm call; this is inline and as exact.
pub fn round(x: f32) -> f32 {
    let truncated = x as i32 as f32;
    if (x - truncated).abs() >= 0.5 {
        truncated + x.signum()
    } else {
        // -0.4 rounds to -0.0.
        truncated.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_is_f32_round() {
        let mut x = -300.0f32;
        while x < 300.0 {
            for y in [x, f32::from_bits(x.to_bits() + 1), f32::from_bits(x.to_bits().saturating_sub(1))] {
                assert_eq!(super::round(y).to_bits(), y.round().to_bits(), "{y}");
            }
            x += 0.125;
        }
        for y in [0.49999997, -0.49999997, 0.5, -0.5, 1e9, -1e9, 0.0, -0.0, 8_388_607.5] {
            assert_eq!(super::round(y).to_bits(), y.round().to_bits(), "{y}");
        }
    }
}
