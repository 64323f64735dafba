//! JSON text into Python objects, for the rows of a page and their values: text the core has
//! already checked ([`crate::rows`]), decoded each time a row or a value of it is read. It is
//! faster than a general decoder by doing only this, in one pass: strings are scanned 16 (or 8)
//! bytes at a time, object keys come from a small cache of the names the rows of a page repeat,
//! and, outside the stable ABI, an ASCII string is copied straight into a new `str`.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;

use crate::objects::{new_dict, new_list};

/// Decodes the one JSON value of `text` (whitespace around it allowed).
pub fn loads<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let mut keys = key_cache();
    let mut decoder =
        Decoder { py, text, at: 0, depth: 0, keys: keys.as_deref_mut(), scratch: Vec::new(), items: Vec::new() };
    decoder.document().map_err(|failure| match failure {
        Failure::Python(error) => error,
        Failure::Syntax(message, at) => PyValueError::new_err(format!("invalid JSON: {message} at byte {at}")),
    })
}

enum Failure {
    Syntax(&'static str, usize),
    Python(PyErr),
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Failure {
        Failure::Python(error)
    }
}

type Decoded<T> = Result<T, Failure>;

/// Deeper than the core's check of a page allows (jiter's 200), so never met in a row.
const MAX_DEPTH: u32 = 1024;

/// A string's bytes: a span of the text, or the scratch buffer when it had escapes.
enum Text {
    Span(usize, usize),
    Unescaped,
}

impl Text {
    /// The bytes of the string in `source` (the decoder's text) or `scratch`.
    fn bytes<'a>(&self, source: &'a [u8], scratch: &'a [u8]) -> &'a [u8] {
        match *self {
            Text::Span(start, end) => &source[start..end],
            Text::Unescaped => scratch,
        }
    }
}

struct Decoder<'t, 'py, 'c> {
    py: Python<'py>,
    text: &'t [u8],
    at: usize,
    depth: u32,
    keys: Option<&'c mut KeyCache>,
    scratch: Vec<u8>,
    /// The items of the arrays being read, innermost last.
    items: Vec<Bound<'py, PyAny>>,
}

impl<'py> Decoder<'_, 'py, '_> {
    fn document(&mut self) -> Decoded<Bound<'py, PyAny>> {
        self.skip_whitespace();
        let value = self.value()?;
        self.skip_whitespace();
        match self.at == self.text.len() {
            true => Ok(value),
            false => Err(Failure::Syntax("trailing characters", self.at)),
        }
    }

    fn value(&mut self) -> Decoded<Bound<'py, PyAny>> {
        match self.text.get(self.at) {
            Some(b'"') => {
                let (text, ascii) = self.string()?;
                Ok(new_str(self.py, text.bytes(self.text, &self.scratch), ascii)?)
            }
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal(b"true", unsafe { ffi::Py_True() }),
            Some(b'f') => self.literal(b"false", unsafe { ffi::Py_False() }),
            Some(b'n') => self.literal(b"null", unsafe { ffi::Py_None() }),
            _ => Err(Failure::Syntax("expected a value", self.at)),
        }
    }

    fn object(&mut self) -> Decoded<Bound<'py, PyAny>> {
        self.enter()?;
        let dict = new_dict(self.py)?;
        self.skip_whitespace();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
        } else {
            loop {
                if self.text.get(self.at) != Some(&b'"') {
                    return Err(Failure::Syntax("expected a property name", self.at));
                }
                let key = self.key()?;
                self.skip_whitespace();
                self.expect(b':')?;
                self.skip_whitespace();
                let value = self.value()?;
                dict.set_item(key, value)?;
                if self.after_item(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(dict.into_any())
    }

    fn array(&mut self) -> Decoded<Bound<'py, PyAny>> {
        self.enter()?;
        let base = self.items.len();
        self.skip_whitespace();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
        } else {
            loop {
                let value = self.value()?;
                self.items.push(value);
                if self.after_item(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(new_list(self.py, self.items.drain(base..))?.into_any())
    }

    /// Steps into an object or array (at its opening bracket).
    fn enter(&mut self) -> Decoded<()> {
        self.depth += 1;
        self.at += 1;
        match self.depth > MAX_DEPTH {
            true => Err(Failure::Syntax("nested too deeply", self.at)),
            false => Ok(()),
        }
    }

    /// Past the `,` after an item (false) or the closing bracket `close` (true).
    fn after_item(&mut self, close: u8) -> Decoded<bool> {
        self.skip_whitespace();
        match self.text.get(self.at) {
            Some(b',') => {
                self.at += 1;
                self.skip_whitespace();
                Ok(false)
            }
            Some(&c) if c == close => {
                self.at += 1;
                Ok(true)
            }
            _ => Err(Failure::Syntax("expected ',' or a closing bracket", self.at)),
        }
    }

    fn key(&mut self) -> Decoded<Bound<'py, PyAny>> {
        let (text, ascii) = self.string()?;
        let bytes = text.bytes(self.text, &self.scratch);
        match self.keys.as_deref_mut() {
            Some(keys) => Ok(keys.get(self.py, bytes, ascii)?),
            None => Ok(new_str(self.py, bytes, ascii)?),
        }
    }

    fn expect(&mut self, byte: u8) -> Decoded<()> {
        match self.text.get(self.at) == Some(&byte) {
            true => {
                self.at += 1;
                Ok(())
            }
            false => Err(Failure::Syntax("unexpected character", self.at)),
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8], object: *mut ffi::PyObject) -> Decoded<Bound<'py, PyAny>> {
        match self.text[self.at..].starts_with(word) {
            true => {
                self.at += word.len();
                Ok(unsafe { Bound::from_borrowed_ptr(self.py, object) })
            }
            false => Err(Failure::Syntax("expected a value", self.at)),
        }
    }

    /// A string (at its opening quote) and whether it is ASCII: a span of the text, or, when
    /// it has escapes, unescaped into the scratch buffer.
    fn string(&mut self) -> Decoded<(Text, bool)> {
        let text = self.text;
        let start = self.at + 1;
        let (end, high) = scan_plain(text, start);
        match text.get(end) {
            Some(b'"') => {
                self.at = end + 1;
                Ok((Text::Span(start, end), high == 0))
            }
            Some(b'\\') => self.unescape(start, end, high != 0),
            Some(_) => Err(Failure::Syntax("control character in a string", end)),
            None => Err(Failure::Syntax("unterminated string", end)),
        }
    }

    #[cold]
    fn unescape(&mut self, start: usize, mut at: usize, mut non_ascii: bool) -> Decoded<(Text, bool)> {
        let text = self.text;
        self.scratch.clear();
        self.scratch.extend_from_slice(&text[start..at]);
        loop {
            match text.get(at) {
                Some(b'"') => {
                    self.at = at + 1;
                    return Ok((Text::Unescaped, !non_ascii));
                }
                Some(b'\\') => {
                    let unescaped = match text.get(at + 1) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 8,
                        Some(b'f') => 12,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => {
                            let (c, next) = code_point(text, at)?;
                            non_ascii |= !c.is_ascii();
                            self.scratch.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                            at = next;
                            continue;
                        }
                        _ => return Err(Failure::Syntax("invalid escape", at)),
                    };
                    self.scratch.push(unescaped);
                    at += 2;
                }
                Some(&c) if c < 0x20 => return Err(Failure::Syntax("control character in a string", at)),
                Some(&c) => {
                    non_ascii |= c >= 0x80;
                    self.scratch.push(c);
                    at += 1;
                }
                None => return Err(Failure::Syntax("unterminated string", at)),
            }
        }
    }

    fn number(&mut self) -> Decoded<Bound<'py, PyAny>> {
        let text = self.text;
        let start = self.at;
        let mut at = start + usize::from(text[start] == b'-');
        let digits_start = at;
        let mut magnitude: u64 = 0;
        while let Some(&c @ b'0'..=b'9') = text.get(at) {
            magnitude = magnitude.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            at += 1;
        }
        let digits = at - digits_start;
        if digits == 0 || (digits > 1 && text[digits_start] == b'0') {
            return Err(Failure::Syntax("invalid number", start));
        }
        let mut float = false;
        if text.get(at) == Some(&b'.') {
            float = true;
            at = digits_after(text, at + 1).ok_or(Failure::Syntax("invalid number", start))?;
        }
        if let Some(b'e' | b'E') = text.get(at) {
            float = true;
            at += 1 + usize::from(matches!(text.get(at + 1), Some(b'+' | b'-')));
            at = digits_after(text, at).ok_or(Failure::Syntax("invalid number", start))?;
        }
        self.at = at;
        let py = self.py;
        let number = &text[start..at];
        if float {
            // Validated above: JSON's float syntax is a subset of Rust's (an overflow reads as inf).
            let value: f64 = std::str::from_utf8(number).ok().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN);
            return Ok(unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyFloat_FromDouble(value))? });
        }
        if digits <= 18 {
            let value = magnitude as i64;
            let value = if text[start] == b'-' { -value } else { value };
            return Ok(unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(value))? });
        }
        let digits = std::ffi::CString::new(number).expect("digits hold no NUL");
        Ok(unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromString(digits.as_ptr(), std::ptr::null_mut(), 10))?
        })
    }
}

/// Where the digits starting at `at` end; `None` when there are none.
fn digits_after(text: &[u8], at: usize) -> Option<usize> {
    let end = at + text[at.min(text.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    (end > at).then_some(end)
}

/// The character of the `\u` escape at `at` (a surrogate pair taken whole) and where it ends.
fn code_point(text: &[u8], at: usize) -> Decoded<(char, usize)> {
    let high = hex4(text, at + 2)?;
    let (value, end) = match high {
        0xD800..=0xDBFF => match (text.get(at + 6), text.get(at + 7)) {
            (Some(b'\\'), Some(b'u')) => match hex4(text, at + 8)? {
                low @ 0xDC00..=0xDFFF => (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), at + 12),
                _ => return Err(Failure::Syntax("lone surrogate", at)),
            },
            _ => return Err(Failure::Syntax("lone surrogate", at)),
        },
        _ => (high, at + 6),
    };
    char::from_u32(value).map(|c| (c, end)).ok_or(Failure::Syntax("lone surrogate", at))
}

fn hex4(text: &[u8], at: usize) -> Decoded<u32> {
    let digits = text.get(at..at + 4).ok_or(Failure::Syntax("invalid escape", at))?;
    digits.iter().try_fold(0u32, |value, &c| {
        let digit = (c as char).to_digit(16).ok_or(Failure::Syntax("invalid escape", at))?;
        Ok(value * 16 + digit)
    })
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// From `at`, where the plain run of a string ends (at a quote, a backslash, a control
/// character or the end of the text) and the high bits of the bytes before (0: all ASCII).
fn scan_plain(text: &[u8], mut at: usize) -> (usize, u64) {
    let mut high = 0u64;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SSE2 is part of x86_64.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let control = _mm_set1_epi8(0x1f);
            while at + 16 <= text.len() {
                let chunk = _mm_loadu_si128(text.as_ptr().add(at) as *const __m128i);
                let is_control = _mm_cmpeq_epi8(_mm_min_epu8(chunk, control), chunk);
                let stops = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)),
                    is_control,
                );
                let stop_mask = _mm_movemask_epi8(stops) as u32;
                let high_mask = _mm_movemask_epi8(chunk) as u32;
                if stop_mask != 0 {
                    let first = stop_mask.trailing_zeros();
                    return (at + first as usize, high | u64::from(high_mask & ((1 << first) - 1)));
                }
                high |= u64::from(high_mask);
                at += 16;
            }
        }
    }
    while at + 8 <= text.len() {
        let word = u64::from_le_bytes(text[at..at + 8].try_into().expect("8 bytes"));
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let stops = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & HIGHS;
        if stops != 0 {
            // The lowest flagged byte is exact (borrows only run upwards from it).
            let first = stops.trailing_zeros() / 8;
            return (at + first as usize, high | (word & HIGHS & ((1 << (first * 8)) - 1)));
        }
        high |= word & HIGHS;
        at += 8;
    }
    while let Some(&c) = text.get(at) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        high |= u64::from(c & 0x80);
        at += 1;
    }
    (at, high)
}

/// A new `str` of UTF-8 `bytes` (`ascii`: all of them are ASCII).
fn new_str<'py>(py: Python<'py>, bytes: &[u8], ascii: bool) -> PyResult<Bound<'py, PyAny>> {
    let length = bytes.len() as ffi::Py_ssize_t;
    unsafe {
        #[cfg(not(feature = "abi3"))]
        if ascii && bytes.len() > 1 {
            // Outside the stable ABI: the characters copied straight in, as orjson does
            // (empty and one-character strings are CPython's shared ones, made below).
            let string = Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(length, 127))?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ffi::PyUnicode_1BYTE_DATA(string.as_ptr()), bytes.len());
            return Ok(string);
        }
        let pointer = bytes.as_ptr().cast();
        let string = match ascii {
            true => ffi::PyUnicode_DecodeLatin1(pointer, length, std::ptr::null()),
            false => ffi::PyUnicode_FromStringAndSize(pointer, length),
        };
        Bound::from_owned_ptr_or_err(py, string)
    }
}

/// The `str` of the object keys met lately, by their bytes: a direct-mapped table of keys up
/// to 32 bytes long, each kept packed in four words, so that a hit is five compares.
struct KeyCache {
    slots: Vec<Slot>,
}

struct Slot {
    words: [u64; 4],
    length: usize,
    key: Option<Py<PyAny>>,
}

static KEYS: Mutex<KeyCache> = Mutex::new(KeyCache { slots: Vec::new() });

/// The key cache for a decode. Busy only when a decode is re-entered (the collector ran a
/// `__del__` that decodes, or another thread took the GIL meanwhile): that one decodes without
/// it. Poisoned (a decode panicked while holding it): emptied, as a slot may be half written,
/// and used again, so that the process goes on at full speed.
fn key_cache() -> Option<MutexGuard<'static, KeyCache>> {
    match KEYS.try_lock() {
        Ok(keys) => Some(keys),
        Err(TryLockError::WouldBlock) => None,
        Err(TryLockError::Poisoned(poisoned)) => {
            let mut keys = poisoned.into_inner();
            keys.slots.clear();
            KEYS.clear_poison();
            Some(keys)
        }
    }
}

const KEY_MAX: usize = 32;
const SLOT_BITS: u32 = 11;

impl KeyCache {
    fn get<'py>(&mut self, py: Python<'py>, bytes: &[u8], ascii: bool) -> PyResult<Bound<'py, PyAny>> {
        if bytes.len() > KEY_MAX {
            return new_str(py, bytes, ascii);
        }
        if self.slots.is_empty() {
            self.slots = (0..1 << SLOT_BITS).map(|_| Slot { words: [0; 4], length: usize::MAX, key: None }).collect();
        }
        let words = pack(bytes);
        let slot = &mut self.slots[slot_of(&words, bytes.len())];
        if let (true, Some(key)) = (slot.length == bytes.len() && slot.words == words, &slot.key) {
            return Ok(key.bind(py).clone());
        }
        let key = new_str(py, bytes, ascii)?;
        *slot = Slot { words, length: bytes.len(), key: Some(key.clone().unbind()) };
        Ok(key)
    }
}

/// `bytes` (at most 32) in four words, in a way that is one-to-one for a given length.
fn pack(bytes: &[u8]) -> [u64; 4] {
    let n = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")));
    match n {
        17.. => [word(0), word(8), word(n - 16), word(n - 8)],
        8..=16 => [word(0), word(n - 8), 0, 0],
        4..=7 => [half(0), half(n - 4), 0, 0],
        1..=3 => [u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16, 0, 0, 0],
        0 => [0; 4],
    }
}

fn slot_of(words: &[u64; 4], length: usize) -> usize {
    let mixed = u128::from(words[0] ^ words[2] ^ 0x243F_6A88_85A3_08D3)
        * u128::from(words[1] ^ words[3] ^ (length as u64).rotate_left(40) ^ 0x1319_8A2E_0370_7344);
    let hash = (mixed as u64) ^ ((mixed >> 64) as u64);
    (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_cache_poisoned_by_a_panic_is_emptied_and_used_again() {
        let panicked = std::thread::spawn(|| {
            let mut keys = KEYS.lock().unwrap();
            keys.slots = (0..4).map(|_| Slot { words: [1; 4], length: 3, key: None }).collect();
            panic!("a decode failed while holding the cache");
        });
        assert!(panicked.join().is_err() && KEYS.is_poisoned());
        let keys = key_cache().expect("the cache is free");
        assert!(keys.slots.is_empty());
        drop(keys);
        assert!(!KEYS.is_poisoned() && key_cache().is_some());
    }

    #[test]
    fn packing_is_one_to_one_for_a_length() {
        let names =
            ["a", "ab", "ba", "abc", "acb", "abcd", "abce", "title", "titlf", "citation_count", "citation_counu"];
        for a in names {
            for b in names {
                assert_eq!(pack(a.as_bytes()) == pack(b.as_bytes()) && a.len() == b.len(), a == b, "{a} {b}");
            }
        }
        let long = "x".repeat(31) + "y";
        assert_ne!(pack(long.as_bytes()), pack(&[b'x'; 32]));
    }

    #[test]
    fn a_plain_run_stops_at_the_first_quote_backslash_or_control_character() {
        for (text, end, ascii) in [
            (&b"abc\"rest"[..], 3, true),
            (b"0123456789abcdef0123\\n\"", 20, true),
            ("héllo wörld, long enough to take the wide path\"".as_bytes(), 48, false),
            (b"tab\there\"", 3, true),
            (b"unterminated", 12, true),
        ] {
            let (at, high) = scan_plain(text, 0);
            assert_eq!((at, high == 0), (end, ascii), "{:?}", String::from_utf8_lossy(text));
        }
    }
}
