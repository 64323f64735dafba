//! Research topics and their vocabularies. Titles, abstracts, keywords and full texts
//! are drawn from these lists, so a query on a topic's words finds that topic's papers.
//! The vocabularies are data: `data/topics.json`, embedded in the binary and parsed once.

use std::collections::HashMap;
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
    /// The ids of the topics next to this one: fields that cite each other (quantum computing
    /// and language models, climate and coral reefs, cancer immunotherapy and genome
    /// editing...). Citations mostly stay within a topic and its neighbours, as in real
    /// citation graphs. Named by id so that reordering the file cannot rewire the graph.
    #[serde(rename = "neighbours")]
    neighbour_ids: Vec<&'static str>,
    /// The neighbours' ids as indexes into [`TOPICS`], in the same order.
    #[serde(skip)]
    pub neighbours: Vec<u8>,
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
    parse_topics(include_str!("../../../data/topics.json")).unwrap_or_else(|e| panic!("data/topics.json: {e}"))
});

/// The topics of `json` with each one's [`Topic::neighbours`] resolved from their ids.
pub(crate) fn parse_topics(json: &'static str) -> Result<Vec<Topic>, String> {
    let mut topics: Vec<Topic> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    // A paper keeps its topic's index in a u8.
    let Ok(last) = u8::try_from(topics.len().saturating_sub(1)) else {
        return Err(format!("{} topics, more than 256", topics.len()));
    };
    let index: HashMap<&str, u8> = topics.iter().map(|t| t.id).zip(0..=last).collect();
    for topic in &mut topics {
        let resolve = |id: &&str| {
            index
                .get(id)
                .copied()
                .ok_or_else(|| format!("topic {} names the neighbour {id}, which is no topic", topic.id))
        };
        topic.neighbours = topic.neighbour_ids.iter().map(resolve).collect::<Result<_, _>>()?;
    }
    Ok(topics)
}
