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
        let padded: Vec<char> = std::iter::once('^')
            .chain(word.chars())
            .chain(std::iter::once('$'))
            .collect();
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
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Quantised vectors stored back to back.
#[derive(Default)]
pub struct Vectors {
    data: Vec<i8>,
}

impl Vectors {
    pub fn push(&mut self, vector: &[i8; DIMENSIONS]) {
        self.data.extend_from_slice(vector);
    }

    pub fn len(&self) -> usize {
        self.data.len() / DIMENSIONS
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Cosine similarity between stored vector `i` and `query`.
    pub fn cosine(&self, i: usize, query: &[i8; DIMENSIONS]) -> f32 {
        let row = &self.data[i * DIMENSIONS..(i + 1) * DIMENSIONS];
        let dot: i32 = row
            .iter()
            .zip(query.iter())
            // i8 * i8 fits in i16: this form vectorizes to multiply-add instructions.
            .map(|(&a, &b)| (a as i16 * b as i16) as i32)
            .sum();
        dot as f32 / (SCALE * SCALE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_texts_are_closer_than_unrelated_ones() {
        let query = embed("quantum error correction");
        let mut store = Vectors::default();
        store.push(&embed(
            "surface codes for quantum error correction on superconducting qubits",
        ));
        store.push(&embed("loss aversion in household savings decisions"));
        assert!(store.cosine(0, &query) > store.cosine(1, &query) + 0.2);
        assert!(
            (store.cosine(
                0,
                &embed("surface codes for quantum error correction on superconducting qubits")
            ) - 1.0)
                .abs()
                < 0.05
        );
    }
}
