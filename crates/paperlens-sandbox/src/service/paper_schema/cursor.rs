//! Opaque page cursors of the `/paper-schema` list operations: the position after the last
//! returned item, bound (by a signature) to the request it was issued for, so a cursor of
//! one query is refused by another.

use paperlens_core::contract::Bound;
use serde_json::{json, Map, Value};

use super::total_json;
use crate::service::cursor::Codec;
use crate::service::error::{ApiError, Result, STANDARD};
use crate::service::open_platform::params::Fields;

pub const CODEC: Codec = Codec {
    prefix: "psc1",
    seed: 0x9e37_79b9_7f4a_7c15,
    part_salt: 0x5c,
    mask_salt: 0x11,
    check_salt: 0x7073,
    check_rotation: 17,
};

/// A signature of the parts of a request that decide its result order (not `size`).
pub fn signature(parts: &[&str]) -> u64 {
    CODEC.signature(parts)
}

/// A signature of a body without its paging fields (`size`, `cursor`).
pub fn body_signature(op: &str, map: &Map<String, Value>) -> u64 {
    let mut rest = map.clone();
    rest.remove("size");
    rest.remove("cursor");
    signature(&[op, &Value::Object(rest).to_string()])
}

/// The start position of a page: 0 without a cursor, else the cursor's position.
pub fn start(cursor: Option<&str>, signature: u64) -> Result<usize> {
    match cursor {
        None => Ok(0),
        Some(token) => CODEC.decode(token, signature).ok_or_else(|| invalid_cursor(token)),
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
    let next = (to < total).then(|| CODEC.encode(signature, to));
    (from..to, next)
}

/// The paging of a POST list operation: where its page starts, its size, and the signature
/// that binds its cursors to the request.
pub struct Paging {
    start: usize,
    size: usize,
    signature: u64,
}

impl Paging {
    /// Reads `size` (within `size`) and `cursor` of the body of operation `op`.
    pub fn of(op: &str, map: &Map<String, Value>, body: &Fields<'_>, size: Bound) -> Result<Paging> {
        let size = body.bounded("size", size)? as usize;
        let signature = body_signature(op, map);
        let start = start(body.string("cursor")?, signature)?;
        Ok(Paging { start, size, signature })
    }

    /// The page of `rows`, each made an item by `item`: `{total, items, next_cursor}`.
    pub fn page<T>(&self, rows: &[T], item: impl FnMut(&T) -> Value) -> Value {
        let (range, next_cursor) = page(rows.len(), self.start, self.size, self.signature);
        let items: Vec<Value> = rows[range].iter().map(item).collect();
        json!({"total": total_json(rows.len()), "items": items, "next_cursor": next_cursor})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_bound_to_their_request() {
        let sig = signature(&["search", "quantum"]);
        let token = CODEC.encode(sig, 40);
        assert_eq!(CODEC.decode(&token, sig), Some(40));
        assert_eq!(CODEC.decode(&token, signature(&["search", "climate"])), None);
        assert!(start(Some("nope"), sig).is_err());
        let mut tampered = token.clone();
        let at = token.len() - 1;
        tampered.replace_range(at.., if token.ends_with('0') { "1" } else { "0" });
        assert_eq!(CODEC.decode(&tampered, sig), None);
        let (range, next) = page(45, 40, 20, sig);
        assert_eq!((range, next), (40..45, None));
        let (range, next) = page(45, 0, 20, sig);
        assert_eq!(range, 0..20);
        assert_eq!(CODEC.decode(&next.unwrap(), sig), Some(20));
    }
}
