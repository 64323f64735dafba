//! Sentence templates per language. Placeholders: `{a}` `{b}` topic terms, `{m}` the
//! paper's method, `{m2}` another method, `{d}` dataset, `{k}` metric, `{p}` problem,
//! `{x}` improvement, `{f}` field, `{n}` a reference number, `{who}` a family name, `{i}` a
//! figure's number, `{path}` the supplement's path.
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

/// A placeholder's value as text.
trait SlotText {
    fn text(&self) -> Cow<'_, str>;
}

impl SlotText for &str {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl SlotText for String {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl SlotText for u32 {
    fn text(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
}

/// The placeholders, each once: a field of `Slots` and the name `value` answers to.
macro_rules! slots {
    ($($name:ident: $kind:ty),* $(,)?) => {
        /// Values for the placeholders; an uppercase placeholder (`{P}`, `{M}`, `{A}`)
        /// capitalises the first letter of its value.
        #[derive(Debug, Default, Clone)]
        pub struct Slots<'a> {
            $(pub $name: $kind,)*
        }

        impl Slots<'_> {
            /// The value of the placeholder `name` (lowercase), None for a name no slot has.
            pub fn value(&self, name: &str) -> Option<Cow<'_, str>> {
                match name {
                    $(stringify!($name) => Some(self.$name.text()),)*
                    _ => None,
                }
            }
        }
    };
}

slots! {
    a: &'a str,
    b: &'a str,
    m: &'a str,
    m2: &'a str,
    d: &'a str,
    k: &'a str,
    p: &'a str,
    x: String,
    f: &'a str,
    n: u32,
    who: &'a str,
    i: u32,
    path: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(template: &str, slots: &Slots<'_>) -> String {
        let mut out = String::new();
        fill(template, slots, &mut out);
        out
    }

    #[test]
    fn every_placeholder_is_filled_by_its_slot() {
        let slots = Slots {
            a: "alpha",
            b: "beta",
            m: "method",
            m2: "other method",
            d: "dataset",
            k: "metric",
            p: "problem",
            x: "12.5".to_string(),
            f: "field",
            n: 7,
            who: "Smith",
            i: 3,
            path: "s1.csv".to_string(),
        };
        let template = "{a}|{b}|{m}|{m2}|{d}|{k}|{p}|{x}|{f}|{n}|{who}|{i}|{path}";
        assert_eq!(
            filled(template, &slots),
            "alpha|beta|method|other method|dataset|metric|problem|12.5|field|7|Smith|3|s1.csv"
        );
        assert_eq!(filled("{P} and {M2}", &slots), "Problem and Other method");
    }

    #[test]
    fn unknown_and_unclosed_placeholders_are_written_as_they_stand() {
        let slots = Slots::default();
        assert_eq!(filled("{nope} and {Nope}", &slots), "nope and Nope");
        assert_eq!(filled("open {a", &slots), "open {a");
        assert_eq!(filled("{a}", &slots), "");
    }
}
