//! Deep-paging cursors: an opaque token holding the position after the last returned
//! record, bound to the query it was issued for (collection, query, filters, sort).

use crate::service::rng::mix;

const PREFIX: &str = "mc1";

pub fn signature(parts: &[&str]) -> u64 {
    parts.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, part| {
        let h = part
            .bytes()
            .fold(h, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        mix(h ^ 0xff)
    })
}

pub fn encode(signature: u64, position: usize) -> String {
    let position = position as u64;
    let check = mix(signature ^ position ^ 0x5eed);
    format!(
        "{PREFIX}{signature:016x}{:016x}{check:016x}",
        position ^ mix(signature)
    )
}

/// The position of a cursor issued for `expected`, or None when it is not one.
pub fn decode(token: &str, expected: u64) -> Option<usize> {
    let hex = token.strip_prefix(PREFIX)?;
    if hex.len() != 48 || !hex.is_ascii() {
        return None;
    }
    let field = |i: usize| u64::from_str_radix(&hex[i * 16..(i + 1) * 16], 16).ok();
    let (signature, masked, check) = (field(0)?, field(1)?, field(2)?);
    let position = masked ^ mix(signature);
    (signature == expected && check == mix(signature ^ position ^ 0x5eed))
        .then_some(position as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_binding() {
        let sig = signature(&["papers", "quantum"]);
        let token = encode(sig, 1234);
        assert_eq!(decode(&token, sig), Some(1234));
        assert_eq!(decode(&token, signature(&["papers", "climate"])), None);
        assert_eq!(decode("garbage", sig), None);
        let mut tampered = token.clone();
        tampered.replace_range(30..31, if &token[30..31] == "0" { "1" } else { "0" });
        assert_eq!(decode(&tampered, sig), None);
    }
}
