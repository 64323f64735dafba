//! Research topics and their vocabularies. Titles, abstracts, keywords and full texts
//! are drawn from these lists, so a query on a topic's words finds that topic's papers.
//! The vocabularies are data: `data/topics.json`, embedded in the binary and parsed once.

use std::sync::LazyLock;

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
pub enum Domain {
    Physical,
    Social,
    Health,
    Life,
}

impl Domain {
    pub const ALL: [Domain; 4] = [Domain::Physical, Domain::Social, Domain::Health, Domain::Life];

    pub fn display_name(self) -> &'static str {
        match self {
            Domain::Physical => "Physical Sciences",
            Domain::Social => "Social Sciences",
            Domain::Health => "Health Sciences",
            Domain::Life => "Life Sciences",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Domain::Physical => "https://sandbox.paperlens.dev/domains/3",
            Domain::Social => "https://sandbox.paperlens.dev/domains/2",
            Domain::Health => "https://sandbox.paperlens.dev/domains/4",
            Domain::Life => "https://sandbox.paperlens.dev/domains/1",
        }
    }

    pub fn from_display_name(name: &str) -> Option<Domain> {
        Domain::ALL.into_iter().find(|d| d.display_name() == name)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topic {
    pub id: &'static str,
    pub display_name: &'static str,
    pub subfield: &'static str,
    pub field: &'static str,
    pub domain: Domain,
    /// Short stem used to name venues ("Quantum Computing" -> "Journal of Quantum Computing").
    pub venue_stem: &'static str,
    pub terms: Vec<&'static str>,
    pub methods: Vec<&'static str>,
    pub datasets: Vec<&'static str>,
    pub metrics: Vec<&'static str>,
    pub problems: Vec<&'static str>,
    pub zh: Vec<&'static str>,
    pub ja: Vec<&'static str>,
    pub ko: Vec<&'static str>,
}

/// Every topic, in the order of `data/topics.json` (a paper's topic is an index into it).
pub static TOPICS: LazyLock<Vec<Topic>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../data/topics.json")).unwrap_or_else(|e| panic!("data/topics.json: {e}"))
});

/// The topics next to each topic of [`TOPICS`] (by index, symmetric): fields that cite each
/// other (quantum computing and language models, climate and coral reefs, cancer
/// immunotherapy and genome editing...). Citations mostly stay within a topic and its
/// neighbours, as in real citation graphs.
pub static NEIGHBOURS: &[&[u8]] = &[
    &[2],       // Quantum Computing Algorithms: NLP (both computer science)
    &[8, 4],    // Climate: coral reefs, urban mobility
    &[0, 9],    // NLP: quantum computing, synaptic plasticity (neural models)
    &[4, 5],    // Behavioral economics: urban mobility, cardiovascular epidemiology (health behaviour)
    &[3, 1],    // Urban mobility: behavioral economics, climate
    &[3, 6],    // Cardiovascular epidemiology: behavioral economics, cancer immunotherapy
    &[5, 7],    // Cancer immunotherapy: cardiovascular epidemiology, CRISPR
    &[6, 9, 8], // CRISPR: cancer immunotherapy, synaptic plasticity, coral reefs
    &[1, 7],    // Coral reefs: climate, CRISPR
    &[2, 7],    // Synaptic plasticity: NLP, CRISPR
];
