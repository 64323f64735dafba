//! Authors: a pool per (topic, name script), so that authors are shared across papers
//! of their topic and CJK papers carry names in their own script.

use super::ids::orcid;
use super::model::{Author, Language};
use super::names::*;
use super::topics::TOPICS;
use crate::service::rng::Rng;

pub const SCRIPTS: [Language; 4] = [Language::En, Language::Zh, Language::Ja, Language::Ko];

pub struct People {
    pub authors: Vec<Author>,
    /// `pools[topic][script]`: author indexes, most prolific first.
    pub pools: Vec<[Vec<u32>; 4]>,
}

pub fn script_of(language: Language) -> usize {
    match language {
        Language::Zh => 1,
        Language::Ja => 2,
        Language::Ko => 3,
        Language::En | Language::Und => 0,
    }
}

impl People {
    pub fn generate(seed: u64, papers: usize) -> People {
        let mut rng = Rng::new(&[seed, 0x6175_7468]);
        let total = (papers * 3 / 5).max(60);
        let mut authors = Vec::with_capacity(total);
        let mut pools = Vec::with_capacity(TOPICS.len());
        for topic in 0..TOPICS.len() {
            let mut topic_pools: [Vec<u32>; 4] = Default::default();
            for (script, share) in [(0usize, 0.8), (1, 0.08), (2, 0.06), (3, 0.06)] {
                let count = ((total as f64 * share / TOPICS.len() as f64) as usize).max(4);
                for _ in 0..count {
                    let index = authors.len() as u32;
                    let (affiliation, country) = rng.pick(INSTITUTIONS);
                    let name = match script {
                        1 => format!("{}{}", rng.pick(ZH_FAMILY), rng.pick(ZH_GIVEN)),
                        2 => format!("{} {}", rng.pick(JA_FAMILY), rng.pick(JA_GIVEN)),
                        3 => format!("{}{}", rng.pick(KO_FAMILY), rng.pick(KO_GIVEN)),
                        _ => format!("{} {}", rng.pick(GIVEN_NAMES), rng.pick(FAMILY_NAMES)),
                    };
                    authors.push(Author {
                        index,
                        orcid: orcid(
                            rng.below(1_000_000_000) as u64 * 100_000 + index as u64 % 100_000,
                        ),
                        name,
                        affiliation,
                        country,
                        topic: topic as u8,
                        works: Vec::new(),
                        cited_by_count: 0,
                        h_index: 0,
                    });
                    topic_pools[script].push(index);
                }
            }
            pools.push(topic_pools);
        }
        People { authors, pools }
    }
}
