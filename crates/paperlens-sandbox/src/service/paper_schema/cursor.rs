//! Opaque page cursors of the `/paper-schema` list operations: the position after the last
//! returned item, bound (by a signature) to the request it was issued for, so a cursor of
//! one query is refused by another.

use crate::service::error::{ApiError, Result, STANDARD};
use crate::service::rng::mix;

const PREFIX: &str = "psc1";

/// A signature of the parts of a request that decide its result order (not `size`).
pub fn signature(parts: &[&str]) -> u64 {
    parts.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, part| {
        let h = part.bytes().fold(h, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        mix(h ^ 0x5c)
    })
}

pub fn encode(signature: u64, position: usize) -> String {
    let position = position as u64;
    let check = mix(signature ^ position.rotate_left(17) ^ 0x7073);
    format!("{PREFIX}{signature:016x}{:016x}{check:016x}", position ^ mix(signature ^ 0x11))
}

pub fn decode(token: &str, expected: u64) -> Option<usize> {
    let hex = token.strip_prefix(PREFIX)?;
    if hex.len() != 48 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let field = |i: usize| u64::from_str_radix(&hex[i * 16..(i + 1) * 16], 16).ok();
    let (signature, masked, check) = (field(0)?, field(1)?, field(2)?);
    let position = masked ^ mix(signature ^ 0x11);
    (signature == expected && check == mix(signature ^ position.rotate_left(17) ^ 0x7073)).then_some(position as usize)
}

/// The start position of a page: 0 without a cursor, else the cursor's position.
pub fn start(cursor: Option<&str>, signature: u64) -> Result<usize> {
    match cursor {
        None => Ok(0),
        Some(token) => decode(token, signature).ok_or_else(|| invalid_cursor(token)),
    }
}

fn invalid_cursor(token: &str) -> ApiError {
    let shown: String = token.chars().take(40).collect();
    STANDARD.invalid_param(
        "cursor",
        format!(
            "'cursor' is not a cursor issued for this request ('{shown}'): pass back a \
             next_cursor unchanged, with the same query and filters"
        ),
    )
}

/// One page of `total` ordered items: the range to return and the next cursor.
pub fn page(total: usize, start: usize, size: usize, signature: u64) -> (std::ops::Range<usize>, Option<String>) {
    let from = start.min(total);
    let to = from.saturating_add(size).min(total);
    let next = (to < total).then(|| encode(signature, to));
    (from..to, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_bound_to_their_request() {
        let sig = signature(&["search", "quantum"]);
        let token = encode(sig, 40);
        assert_eq!(decode(&token, sig), Some(40));
        assert_eq!(decode(&token, signature(&["search", "climate"])), None);
        assert!(start(Some("nope"), sig).is_err());
        let mut tampered = token.clone();
        let at = token.len() - 1;
        tampered.replace_range(at.., if token.ends_with('0') { "1" } else { "0" });
        assert_eq!(decode(&tampered, sig), None);
        let (range, next) = page(45, 40, 20, sig);
        assert_eq!((range, next), (40..45, None));
        let (range, next) = page(45, 0, 20, sig);
        assert_eq!(range, 0..20);
        assert_eq!(decode(&next.unwrap(), sig), Some(20));
    }
}
