//! Deep-paging cursors: an opaque token holding the position after the last returned
//! record, bound to the query it was issued for (collection, query, filters, sort).

use crate::service::cursor::Codec;

pub const CODEC: Codec = Codec {
    prefix: "mc1",
    seed: 0xcbf2_9ce4_8422_2325,
    part_salt: 0xff,
    mask_salt: 0,
    check_salt: 0x5eed,
    check_rotation: 0,
};

#[cfg(test)]
mod tests {
    use super::CODEC;

    #[test]
    fn round_trip_and_binding() {
        let sig = CODEC.signature(&["papers", "quantum"]);
        let token = CODEC.encode(sig, 1234);
        assert_eq!(CODEC.decode(&token, sig), Some(1234));
        assert_eq!(CODEC.decode(&token, CODEC.signature(&["papers", "climate"])), None);
        assert_eq!(CODEC.decode("garbage", sig), None);
        let mut tampered = token.clone();
        tampered.replace_range(30..31, if &token[30..31] == "0" { "1" } else { "0" });
        assert_eq!(CODEC.decode(&tampered, sig), None);
    }
}
