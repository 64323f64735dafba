//! Opaque cursors: the position after the last returned item, bound by a signature to the
//! request it was issued for, so that a cursor of one query is refused by another. Each
//! family of operations has its own [`Codec`]: its own prefix and salts, so a cursor of one
//! family is refused by the other.

use crate::service::rng::mix;

pub struct Codec {
    pub prefix: &'static str,
    /// Start of the signature hash, and what each part of a request is salted with.
    pub seed: u64,
    pub part_salt: u64,
    /// How the position is hidden in the token, and checked.
    pub mask_salt: u64,
    pub check_salt: u64,
    pub check_rotation: u32,
}

impl Codec {
    /// A signature of the parts of a request that decide its result order (not its page size).
    pub fn signature(&self, parts: &[&str]) -> u64 {
        parts.iter().fold(self.seed, |h, part| {
            let h = part.bytes().fold(h, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
            mix(h ^ self.part_salt)
        })
    }

    fn check(&self, signature: u64, position: u64) -> u64 {
        mix(signature ^ position.rotate_left(self.check_rotation) ^ self.check_salt)
    }

    pub fn encode(&self, signature: u64, position: usize) -> String {
        let position = position as u64;
        let masked = position ^ mix(signature ^ self.mask_salt);
        format!("{}{signature:016x}{masked:016x}{:016x}", self.prefix, self.check(signature, position))
    }

    /// The position of a cursor issued for `expected`, or None when it is not one.
    pub fn decode(&self, token: &str, expected: u64) -> Option<usize> {
        let hex = token.strip_prefix(self.prefix)?;
        if hex.len() != 48 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let field = |i: usize| u64::from_str_radix(&hex[i * 16..(i + 1) * 16], 16).ok();
        let (signature, masked, check) = (field(0)?, field(1)?, field(2)?);
        let position = masked ^ mix(signature ^ self.mask_salt);
        (signature == expected && check == self.check(signature, position)).then_some(position as usize)
    }
}

#[cfg(test)]
mod tests {
    use crate::service::open_platform::meta_search::cursor::CODEC as META_SEARCH;
    use crate::service::paper_schema::cursor::CODEC as PAPER_SCHEMA;

    #[test]
    fn tokens_keep_their_form() {
        let sig = PAPER_SCHEMA.signature(&["search", "quantum"]);
        assert_eq!(PAPER_SCHEMA.encode(sig, 40), "psc1949e15ac977ad2303258b511169e50aba56739c05713e243");
        let sig = META_SEARCH.signature(&["papers", "quantum"]);
        assert_eq!(META_SEARCH.encode(sig, 1234), "mc10ae01ff8cf7008ab64014db8a9a40f7db14edab78548a9cf");
    }

    #[test]
    fn a_cursor_of_one_family_is_refused_by_the_other() {
        let sig = PAPER_SCHEMA.signature(&["x"]);
        assert_eq!(META_SEARCH.decode(&PAPER_SCHEMA.encode(sig, 3), sig), None);
        assert_eq!(PAPER_SCHEMA.decode(&META_SEARCH.encode(sig, 3), sig), None);
    }
}
