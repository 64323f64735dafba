//! Deterministic "embeddings": words and character trigrams hashed into a signed
//! feature vector, L2-normalised and quantised to i8. Cosine similarity of two such
//! vectors approximates their lexical overlap, including partial word matches.

use crate::service::rng::key;
use crate::service::search::round;
use crate::service::search::tokenize::tokens;

pub const DIMENSIONS: usize = 256;
/// What a unit vector's components are scaled by before rounding to i8.
pub(super) const SCALE: f32 = 127.0;

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
