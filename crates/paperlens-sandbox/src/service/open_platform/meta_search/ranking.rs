//! The three relevance boosts of `/meta-search` (rules 5-7 of the spec).

use crate::service::corpus::{Date, Language};
use crate::service::search::tokenize::{script, Script};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    None,
    Mild,
    Strong,
}

impl Strength {
    pub fn parse(text: &str) -> Strength {
        match text {
            "MILD" => Strength::Mild,
            "STRONG" => Strength::Strong,
            _ => Strength::None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Boosts {
    pub freshness: Strength,
    pub impact: Strength,
    pub language: Strength,
}

impl Boosts {
    pub fn any(&self) -> bool {
        [self.freshness, self.impact, self.language].iter().any(|s| *s != Strength::None)
    }
}

/// The language of the query text: kana gives `ja`, hangul `ko`, Han `zh`, Latin `en`;
/// other scripts none.
pub fn query_language(query: &str) -> Option<Language> {
    let scripts: Vec<Script> = query.chars().map(script).collect();
    if scripts.contains(&Script::Kana) {
        Some(Language::Ja)
    } else if scripts.contains(&Script::Hangul) {
        Some(Language::Ko)
    } else if scripts.contains(&Script::Han) {
        Some(Language::Zh)
    } else if scripts.contains(&Script::Latin) {
        Some(Language::En)
    } else {
        None
    }
}

/// Freshness: a decay over the age from the corpus's latest date, halving the score at
/// 10 years (`MILD`) or 3 years (`STRONG`).
pub fn freshness_factor(strength: Strength, date: Date, today: Date) -> f64 {
    let window_years = match strength {
        Strength::None => return 1.0,
        Strength::Mild => 10.0,
        Strength::Strong => 3.0,
    };
    let age_years = ((today.day_number() - date.day_number()).max(0) as f64) / 365.25;
    1.0 / (1.0 + age_years / window_years)
}

/// Impact: `1 + weight * c / (c + 20)`: neutral at zero citations, bounded by `1 + weight`.
pub fn impact_factor(strength: Strength, citations: u32) -> f64 {
    let weight = match strength {
        Strength::None => return 1.0,
        Strength::Mild => 0.3,
        Strength::Strong => 2.0,
    };
    let c = citations as f64;
    1.0 + weight * c / (c + 20.0)
}

/// Language affinity: results in another known language are multiplied by 0.5 (`MILD`)
/// or 0.2 (`STRONG`); `und` documents are never lowered.
pub fn language_factor(strength: Strength, target: Option<Language>, language: Option<Language>) -> f64 {
    let factor = match strength {
        Strength::None => return 1.0,
        Strength::Mild => 0.5,
        Strength::Strong => 0.2,
    };
    match (target, language) {
        (Some(target), Some(language)) if language != Language::Und && language != target => factor,
        _ => 1.0,
    }
}
