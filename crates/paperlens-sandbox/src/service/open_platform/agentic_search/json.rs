//! A small JSON writer for the `/agentic-search` answer: the bytes `serde_json` writes
//! for the same values, without its byte-by-byte string scan for the long passages.

use serde::Serialize;

pub struct JsonOut {
    pub bytes: Vec<u8>,
    /// Whether the next member of the open object or array needs a comma first.
    comma: bool,
}

impl JsonOut {
    pub fn with_capacity(capacity: usize) -> JsonOut {
        JsonOut { bytes: Vec::with_capacity(capacity), comma: false }
    }

    pub fn begin_object(&mut self) {
        self.open(b'{');
    }

    pub fn end_object(&mut self) {
        self.close(b'}');
    }

    pub fn begin_array(&mut self) {
        self.open(b'[');
    }

    pub fn end_array(&mut self) {
        self.close(b']');
    }

    fn open(&mut self, bracket: u8) {
        self.separate();
        self.bytes.push(bracket);
        self.comma = false;
    }

    fn close(&mut self, bracket: u8) {
        self.bytes.push(bracket);
        self.comma = true;
    }

    /// Starts an array element or an object member's key (`key` needs no escaping).
    fn separate(&mut self) {
        if self.comma {
            self.bytes.push(b',');
        }
        self.comma = true;
    }

    /// Members written elsewhere (`"a":1,"b":2`), as if they were one.
    pub fn members(&mut self, members: &[u8]) {
        self.separate();
        self.bytes.extend_from_slice(members);
    }

    pub fn key(&mut self, key: &str) {
        self.separate();
        self.bytes.push(b'"');
        self.bytes.extend_from_slice(key.as_bytes());
        self.bytes.extend_from_slice(b"\":");
        self.comma = false;
    }

    pub fn string(&mut self, value: &str) {
        self.separate();
        self.bytes.push(b'"');
        escape_into(&mut self.bytes, value);
        self.bytes.push(b'"');
    }

    /// A string made of parts written one after another.
    pub fn string_parts(&mut self, parts: &[&str]) {
        self.separate();
        self.bytes.push(b'"');
        for part in parts {
            escape_into(&mut self.bytes, part);
        }
        self.bytes.push(b'"');
    }

    /// Numbers, `null` and other scalars, as `serde_json` writes them.
    pub fn value(&mut self, value: &impl Serialize) {
        self.separate();
        // Writing scalars into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.bytes, value);
    }

    pub fn field(&mut self, key: &str, value: &impl Serialize) {
        self.key(key);
        self.value(value);
    }

    pub fn field_str(&mut self, key: &str, value: &str) {
        self.key(key);
        self.string(value);
    }
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Appends the JSON string contents of `text` (escaped as `serde_json` does).
pub fn escape_into(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    // Fast path: a branch-free test of whole blocks, then one copy.
    let blocks = bytes.chunks_exact(32);
    let tail = blocks.remainder();
    let clean = !blocks.into_iter().any(|block| block.iter().fold(false, |any, &b| any | needs_escape(b)))
        && !tail.iter().any(|&b| needs_escape(b));
    if clean {
        out.extend_from_slice(bytes);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !needs_escape(b) {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]]);
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_does() {
        let mut samples: Vec<String> = (0u8..128).map(|b| format!("a{}b", b as char)).collect();
        samples.push("plain text, long enough to fill more than one block of thirty-two bytes".into());
        samples.push(format!("{}\"{}\n", "x".repeat(40), "量子计算 ✅ θ".repeat(5)));
        samples.push(String::new());
        for sample in samples {
            let mut out = JsonOut::with_capacity(0);
            out.string(&sample);
            assert_eq!(String::from_utf8(out.bytes).ok(), serde_json::to_string(&sample).ok(), "{sample:?}");
        }
    }

    #[test]
    fn objects_and_arrays_match_serde_json() {
        let mut out = JsonOut::with_capacity(0);
        out.begin_object();
        out.key("list");
        out.begin_array();
        for x in ["a", "b\"c"] {
            out.string(x);
        }
        out.end_array();
        out.field("none", &None::<f32>);
        out.field("score", &Some(0.123_4_f32));
        out.field("count", &7u32);
        out.key("id");
        out.string_parts(&["abc", "-", "2"]);
        out.key("empty");
        out.begin_array();
        out.end_array();
        out.key("objects");
        out.begin_array();
        for _ in 0..2 {
            out.begin_object();
            out.field("a", &1);
            out.end_object();
        }
        out.end_array();
        out.end_object();
        let want = r#"{"list":["a","b\"c"],"none":null,"score":0.1234,"count":7,"id":"abc-2","empty":[],"objects":[{"a":1},{"a":1}]}"#;
        assert_eq!(String::from_utf8(out.bytes).ok().as_deref(), Some(want));
    }
}
