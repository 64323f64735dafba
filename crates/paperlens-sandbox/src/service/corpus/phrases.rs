//! Sentence templates per language. Placeholders: `{a}` `{b}` topic terms, `{m}` the
//! paper's method, `{m2}` another method, `{d}` dataset, `{k}` metric, `{p}` problem,
//! `{x}` improvement, `{f}` field, `{n}` a reference number, `{who}` a family name.
//! The templates are data: `data/phrases.json`, embedded in the binary and parsed once.

use std::borrow::Cow;
use std::sync::LazyLock;

use serde::Deserialize;

use super::model::Language;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phrases {
    pub abstract_heading: &'static str,
    pub sections: [&'static str; 7],
    pub appendix: &'static str,
    pub problem: &'static str,
    pub method: &'static str,
    pub dataset: &'static str,
    pub finding: &'static str,
    pub figure: &'static str,
    pub supplement: &'static str,
    /// Filler sentences per section (one list reused for every section when short).
    pub filler: Vec<Vec<&'static str>>,
    pub titles: Vec<&'static str>,
    pub abstract_opening: Vec<&'static str>,
}

/// The templates of each language of `data/phrases.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
struct Languages {
    en: Phrases,
    zh: Phrases,
    ja: Phrases,
    ko: Phrases,
}

static LANGUAGES: LazyLock<Languages> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../data/phrases.json"))
        .unwrap_or_else(|e| panic!("data/phrases.json: {e}"))
});

pub fn phrases(language: Language) -> &'static Phrases {
    let languages = &*LANGUAGES;
    match language {
        Language::Zh => &languages.zh,
        Language::Ja => &languages.ja,
        Language::Ko => &languages.ko,
        Language::En | Language::Und => &languages.en,
    }
}

impl Phrases {
    pub fn filler(&self, section: usize) -> &[&'static str] {
        &self.filler[section.min(self.filler.len() - 1)]
    }
}

/// Values for the placeholders; an uppercase placeholder (`{P}`, `{M}`, `{A}`)
/// capitalises the first letter of its value.
#[derive(Debug, Default, Clone)]
pub struct Slots<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub m: &'a str,
    pub m2: &'a str,
    pub d: &'a str,
    pub k: &'a str,
    pub p: &'a str,
    pub x: String,
    pub f: &'a str,
    pub n: u32,
    pub who: &'a str,
    pub i: u32,
    pub path: String,
}

impl Slots<'_> {
    /// The value of the placeholder `name` (lowercase), None for a name no slot has.
    pub fn value(&self, name: &str) -> Option<Cow<'_, str>> {
        Some(match name {
            "a" => self.a.into(),
            "b" => self.b.into(),
            "m" => self.m.into(),
            "m2" => self.m2.into(),
            "d" => self.d.into(),
            "k" => self.k.into(),
            "p" => self.p.into(),
            "x" => self.x.as_str().into(),
            "f" => self.f.into(),
            "who" => self.who.into(),
            "n" => self.n.to_string().into(),
            "i" => self.i.to_string().into(),
            "path" => self.path.as_str().into(),
            _ => return None,
        })
    }
}

/// Writes `template` with each `{name}` replaced by its slot's value (an unknown name is
/// written without its braces).
pub fn fill(template: &str, slots: &Slots<'_>, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return;
        };
        let name = &after[..close];
        let value = slots.value(&name.to_ascii_lowercase()).unwrap_or(name.into());
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let mut chars = value.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push_str(&value);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
}
