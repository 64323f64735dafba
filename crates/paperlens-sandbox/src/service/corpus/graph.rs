//! Citation edges inside the corpus and the metrics derived from them.
//!
//! A paper cites only earlier papers, mostly of its own topic, chosen with probability
//! proportional to a heavy-tailed "fame" weight: a few papers collect most citations.

use std::collections::HashMap;

use super::model::{Author, CitationPercentile, Paper, PercentileRange, Source};
use super::topics::TOPICS;
use crate::service::rng::Rng;

const TAG_GRAPH: u64 = 0x6772_6170;

/// Papers in publication order with the running sum of their fame.
struct Pool {
    ranks: Vec<u32>,
    papers: Vec<u32>,
    cumulative: Vec<f64>,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            ranks: Vec::new(),
            papers: Vec::new(),
            cumulative: Vec::new(),
        }
    }

    fn push(&mut self, rank: u32, paper: u32, fame: f64) {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        self.ranks.push(rank);
        self.papers.push(paper);
        self.cumulative.push(total + fame);
    }

    /// A paper published before `rank`, drawn by fame.
    fn draw_before(&self, rng: &mut Rng, rank: u32) -> Option<u32> {
        let available = self.ranks.partition_point(|&r| r < rank);
        if available == 0 {
            return None;
        }
        let target = rng.unit() * self.cumulative[available - 1];
        let at = self.cumulative[..available].partition_point(|&c| c <= target);
        Some(self.papers[at.min(available - 1)])
    }
}

pub fn link(seed: u64, papers: &mut [Paper]) {
    let mut rng = Rng::new(&[seed, TAG_GRAPH]);
    let mut order: Vec<u32> = (0..papers.len() as u32).collect();
    order.sort_by_key(|&i| (papers[i as usize].date.packed(), i));
    let mut rank = vec![0u32; papers.len()];
    let mut global = Pool::new();
    let mut by_topic: Vec<Pool> = TOPICS.iter().map(|_| Pool::new()).collect();
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
        let fame = rng.pareto(1.15).min(2_000.0);
        global.push(r as u32, i, fame);
        by_topic[papers[i as usize].topics[0].topic as usize].push(r as u32, i, fame);
    }

    for i in 0..papers.len() {
        let mut rng = Rng::new(&[seed, TAG_GRAPH, i as u64]);
        let topic = papers[i].topics[0].topic as usize;
        let wanted = 4 + rng.below(22);
        let mut references: Vec<u32> = Vec::with_capacity(wanted);
        for _ in 0..wanted * 2 {
            if references.len() == wanted {
                break;
            }
            let pool = if rng.chance(0.8) {
                &by_topic[topic]
            } else {
                &global
            };
            if let Some(cited) = pool.draw_before(&mut rng, rank[i]) {
                if !references.contains(&cited) {
                    references.push(cited);
                }
            }
        }
        references.sort_unstable();
        let same_topic = &by_topic[topic].papers;
        let mut related: Vec<u32> = Vec::new();
        for _ in 0..12 {
            let candidate = same_topic[rng.below(same_topic.len())];
            if candidate as usize != i && !related.contains(&candidate) && related.len() < 8 {
                related.push(candidate);
            }
        }
        papers[i].references = references;
        papers[i].related = related;
    }
    for i in 0..papers.len() {
        for k in 0..papers[i].references.len() {
            let cited = papers[i].references[k] as usize;
            papers[cited].cited_by.push(i as u32);
        }
    }
    // Citing papers newest first, as `/meta-paper-relations` lists them.
    let dates: Vec<u32> = papers.iter().map(|p| p.date.packed()).collect();
    for p in papers.iter_mut() {
        p.cited_by
            .sort_by_key(|&c| (std::cmp::Reverse(dates[c as usize]), c));
    }
    derive_metrics(seed, papers);
}

fn derive_metrics(seed: u64, papers: &mut [Paper]) {
    let mut by_topic_year: HashMap<(u8, u16), Vec<u32>> = HashMap::new();
    let mut by_year: HashMap<u16, Vec<u32>> = HashMap::new();
    for p in papers.iter() {
        let c = p.citation_count();
        by_topic_year
            .entry((p.topics[0].topic, p.date.year))
            .or_default()
            .push(c);
        by_year.entry(p.date.year).or_default().push(c);
    }
    for counts in by_topic_year.values_mut().chain(by_year.values_mut()) {
        counts.sort_unstable();
    }
    for p in papers.iter_mut() {
        let mut rng = Rng::new(&[seed, TAG_GRAPH, 0x6d65_7472, p.index as u64]);
        let c = p.citation_count();
        p.influential_citation_count = (c as f64 * (0.05 + rng.unit() * 0.2)).round() as u32;
        let group = &by_topic_year[&(p.topics[0].topic, p.date.year)];
        let mean = group.iter().map(|&x| x as f64).sum::<f64>() / group.len() as f64;
        p.fwci = if mean > 0.0 {
            round(c as f64 / mean, 4)
        } else {
            0.0
        };
        // Share of the other works of the group that this one out-cites.
        let below = group.partition_point(|&x| x < c) as f64;
        let value = if group.len() > 1 {
            round(below / (group.len() - 1) as f64, 4)
        } else {
            0.0
        };
        p.citation_normalized_percentile = CitationPercentile {
            value,
            is_in_top_10_percent: c > 0 && value >= 0.9,
            is_in_top_1_percent: c > 0 && value >= 0.99,
        };
        let year = &by_year[&p.date.year];
        p.cited_by_percentile_year = PercentileRange {
            min: round(
                100.0 * year.partition_point(|&x| x < c) as f64 / year.len() as f64,
                2,
            ),
            max: round(
                100.0 * year.partition_point(|&x| x <= c) as f64 / year.len() as f64,
                2,
            ),
        };
    }
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Works and citation totals of authors and sources.
pub fn aggregate(papers: &[Paper], authors: &mut [Author], sources: &mut [Source]) {
    let mut citations_per_author: Vec<Vec<u32>> = vec![Vec::new(); authors.len()];
    for p in papers {
        for &a in &p.authors {
            authors[a as usize].works.push(p.index);
            citations_per_author[a as usize].push(p.citation_count());
        }
        let source = &mut sources[p.venue as usize];
        source.works_count += 1;
        source.cited_by_count += p.citation_count();
    }
    for (author, mut counts) in authors.iter_mut().zip(citations_per_author) {
        author.cited_by_count = counts.iter().sum();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        author.h_index = counts
            .iter()
            .enumerate()
            .take_while(|(i, &c)| c as usize > *i)
            .count() as u32;
    }
}
