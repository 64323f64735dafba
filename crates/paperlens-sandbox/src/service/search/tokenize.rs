//! Tokens: lowercased Latin words (stop words dropped, plural `s` stripped) and
//! character bigrams of CJK runs (Han, kana, hangul).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Latin,
    Han,
    Kana,
    Hangul,
    Other,
}

pub fn script(c: char) -> Script {
    match c as u32 {
        0x3040..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => Script::Kana,
        0xac00..=0xd7af | 0x1100..=0x11ff | 0x3130..=0x318f => Script::Hangul,
        0x4e00..=0x9fff | 0x3400..=0x4dbf | 0xf900..=0xfaff | 0x20000..=0x2ffff => Script::Han,
        _ if c.is_ascii_alphabetic() => Script::Latin,
        0x00c0..=0x024f => Script::Latin,
        _ => Script::Other,
    }
}

fn is_cjk(c: char) -> bool {
    matches!(script(c), Script::Han | Script::Kana | Script::Hangul)
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on",
    "or", "our", "that", "the", "their", "this", "to", "was", "we", "were", "which", "with", "what", "how", "does",
    "do", "can", "about", "between", "into",
];

fn normalize_word(word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    if STOP_WORDS.contains(&lower.as_str()) {
        return None;
    }
    let stemmed = match lower.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
        _ => lower,
    };
    Some(stemmed)
}

/// The words of `text` that [`tokens`] drops as stop words, lowercased, each once.
pub fn stop_words(text: &str) -> Vec<String> {
    let mut dropped: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric() || is_cjk(c)) {
        let lower = word.to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) && !dropped.contains(&lower) {
            dropped.push(lower);
        }
    }
    dropped
}

/// Appends the tokens of `text` to `out`.
pub fn tokens(text: &str, out: &mut Vec<String>) {
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            if let Some(token) = normalize_word(word) {
                out.push(token);
            }
            word.clear();
        }
    };
    let flush_cjk = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|pair| pair.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, out);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, out);
            word.push(c);
        } else {
            flush_word(&mut word, out);
            flush_cjk(&mut cjk, out);
        }
    }
    flush_word(&mut word, out);
    flush_cjk(&mut cjk, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words_and_cjk_bigrams() {
        let mut out = Vec::new();
        tokens("The Qubits of 量子计算 and 양자", &mut out);
        assert_eq!(out, ["qubit", "量子", "子计", "计算", "양자"]);
        assert_eq!(stop_words("The qubits of THE 量子 and"), ["the", "of", "and"]);
    }
}
