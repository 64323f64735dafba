//! Lone surrogate escapes in JSON text. JSON allows `\ud83d` without its low half (scraped
//! metadata holds such strings, and Python's `json` module decodes them), while the decoders
//! here (jiter, serde_json, the row decoder) refuse them, as a Rust string cannot hold one. An
//! answer that fails to decode is read again with each unpaired `\uD800`-`\uDFFF` escape
//! rewritten to `\uFFFD`, the replacement character: six bytes for six, so every offset into
//! the text stays valid, and the rest of the text is left as it is.

/// `decode(text)`; when that fails and `text` holds lone surrogate escapes, `decode` of the
/// text with each replaced, and that text (what the decoded value's offsets point into). An
/// answer without lone surrogates is decoded once, as before.
pub fn decode_replacing_lone_surrogates<T, E>(
    text: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, E>,
) -> Result<(T, Option<Vec<u8>>), E> {
    match decode(text) {
        Ok(value) => Ok((value, None)),
        Err(error) => match replace_lone_surrogates(text) {
            Some(fixed) => decode(&fixed).map(|value| (value, Some(fixed))),
            None => Err(error),
        },
    }
}

/// `text` with each unpaired surrogate escape replaced by `\uFFFD`; `None` when it has none.
/// A valid pair (a high escape followed by a low one) is kept.
pub fn replace_lone_surrogates(text: &[u8]) -> Option<Vec<u8>> {
    let mut fixed: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(found) = text[at..].iter().position(|&c| c == b'\\') {
        at += found;
        match escaped_unit(text, at) {
            Some(0xD800..=0xDBFF) if escaped_unit(text, at + 6).is_some_and(is_low) => at += 12,
            Some(0xD800..=0xDFFF) => {
                let out = fixed.get_or_insert_with(|| text.to_vec());
                out[at + 2..at + 6].copy_from_slice(b"FFFD");
                at += 6;
            }
            // Any other escape is two bytes at least: `\\` must not be read as the start of
            // the next escape.
            _ => at += 2,
        }
        if at >= text.len() {
            break;
        }
    }
    fixed
}

/// The UTF-16 unit of the `\uXXXX` escape at `at`, if there is one.
fn escaped_unit(text: &[u8], at: usize) -> Option<u32> {
    match text.get(at..at + 6)? {
        [b'\\', b'u', digits @ ..] => digits.iter().try_fold(0, |unit, &c| Some(unit * 16 + (c as char).to_digit(16)?)),
        _ => None,
    }
}

fn is_low(unit: u32) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

#[cfg(test)]
mod tests {
    use super::replace_lone_surrogates;

    fn replaced(text: &str) -> Option<String> {
        replace_lone_surrogates(text.as_bytes()).map(|fixed| String::from_utf8(fixed).unwrap())
    }

    #[test]
    fn each_unpaired_surrogate_escape_becomes_the_replacement_character() {
        assert_eq!(replaced(r#"{"t": "a\ud83d b"}"#).as_deref(), Some(r#"{"t": "a\uFFFD b"}"#));
        assert_eq!(replaced(r#"["\udc00"]"#).as_deref(), Some(r#"["\uFFFD"]"#));
        assert_eq!(replaced(r#"["\uD83D\u0041"]"#).as_deref(), Some(r#"["\uFFFD\u0041"]"#));
        assert_eq!(replaced(r#"["\ud83d\ud83d\ude00"]"#).as_deref(), Some(r#"["\uFFFD\ud83d\ude00"]"#));
        assert_eq!(replaced(r#"["\ude00\ud83d"]"#).as_deref(), Some(r#"["\uFFFD\uFFFD"]"#));
        assert_eq!(replaced(r#"["x\ud83d"#).as_deref(), Some(r#"["x\uFFFD"#));
    }

    #[test]
    fn pairs_other_escapes_and_escaped_backslashes_are_kept() {
        for text in [
            r#"{"t": "\ud83d\ude00 \u00e9 \n \\ \" plain"}"#,
            r#"["\\ud83d", "\\\\ud83d"]"#,
            r#"["no escapes at all", 1, null]"#,
            r#"["ends in a backslash\"#,
            r#"["\ud8"]"#,
        ] {
            assert_eq!(replaced(text), None, "{text}");
        }
    }
}
