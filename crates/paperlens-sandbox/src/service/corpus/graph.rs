//! Citation edges inside the corpus and the metrics derived from them.
//!
//! Papers join the graph in publication order and cite earlier ones: about three references
//! in four from the paper's own topic, most others from the topics next to it
//! ([`Topic::neighbours`](super::topics::Topic::neighbours)), a few from anywhere. Within a
//! topic a paper is drawn by preferential attachment with fitness: its weight is `fitness * (citations so far + OFFSET)`, the fitness
//! a Pareto draw, so citation counts have a power-law-like tail (a few papers collect many
//! citations, most get a handful) while a late but fit paper can still become well cited.
//! Every list (`references`, `cited_by`, `related`) and every count derives from these edges,
//! so `/meta-paper-relations`, the records' counts and `/paper-schema` agree.

use std::collections::HashMap;

use super::model::{Author, CitationPercentile, Paper, PercentileRange, Source};
use super::topics::TOPICS;
use crate::service::rng::Rng;

const TAG_GRAPH: u64 = 0x6772_6170;
const TAG_FITNESS: u64 = 0x6669_746e;
const TAG_RELATED: u64 = 0x7265_6c61;
/// Shares of references drawn from the paper's own topic and from its neighbours (the rest
/// come from any topic, the topic chosen by its total weight).
const OWN_TOPIC: f64 = 0.76;
const NEIGHBOUR_TOPICS: f64 = 0.16;
/// Weight of a paper before its first citation, in citations. Above the mean number of
/// references, it keeps the in-degree tail near the exponent of 3 measured on real graphs.
const OFFSET: f64 = 20.0;
const FITNESS_ALPHA: f64 = 3.0;
const FITNESS_CAP: f64 = 20.0;
/// (share, years): half the references are drawn among the papers of the last 6 years, 3 in
/// 10 among those of the last 15, the rest from any year. Recent work is cited more, so the
/// first papers of a topic do not collect every citation.
const WINDOWS: [(f64, u32); 2] = [(0.5, 6), (0.3, 15)];
/// Draws of a pool before a reference slot is given up (a draw may repeat a reference).
const TRIES: usize = 4;

/// The papers of one topic in the order they joined, with their weights in a Fenwick tree:
/// a weighted draw (over all of them or a recent window) and a weight update are O(log n).
struct Pool {
    papers: Vec<u32>,
    /// Publication dates (`Date::packed`), ascending.
    dates: Vec<u32>,
    tree: Vec<f64>,
}

impl Pool {
    fn with_capacity(capacity: usize) -> Pool {
        Pool {
            papers: Vec::with_capacity(capacity),
            dates: Vec::with_capacity(capacity),
            tree: vec![0.0; capacity + 1],
        }
    }

    /// Adds a paper with `weight`; returns its position in the pool.
    fn join(&mut self, paper: u32, date: u32, weight: f64) -> u32 {
        let position = self.papers.len();
        self.papers.push(paper);
        self.dates.push(date);
        self.add(position, weight);
        position as u32
    }

    fn add(&mut self, position: usize, weight: f64) {
        let mut i = position + 1;
        while i < self.tree.len() {
            self.tree[i] += weight;
            i += i & i.wrapping_neg();
        }
    }

    /// Sum of the weights of the first `count` papers.
    fn prefix(&self, count: usize) -> f64 {
        let (mut i, mut sum) = (count, 0.0);
        while i > 0 {
            sum += self.tree[i];
            i &= i - 1;
        }
        sum
    }

    fn total(&self) -> f64 {
        self.prefix(self.papers.len())
    }

    /// A paper published on or after `since` (a packed date), drawn with probability
    /// proportional to its weight.
    fn draw(&self, rng: &mut Rng, since: u32) -> Option<u32> {
        let first = self.dates.partition_point(|&d| d < since);
        if first == self.papers.len() {
            return None;
        }
        let below = self.prefix(first);
        let mut remaining = below + rng.unit() * (self.total() - below);
        let (mut position, mut step) = (0, (self.tree.len() - 1).next_power_of_two());
        while step > 0 {
            let next = position + step;
            if next < self.tree.len() && self.tree[next] <= remaining {
                position = next;
                remaining -= self.tree[next];
            }
            step >>= 1;
        }
        Some(self.papers[position.clamp(first, self.papers.len() - 1)])
    }
}

/// The topic a reference is drawn from: the paper's own, a neighbour, or any (by weight).
fn pick_topic(rng: &mut Rng, own: usize, totals: &[f64]) -> usize {
    let u = rng.unit();
    if u < OWN_TOPIC {
        return own;
    }
    if u < OWN_TOPIC + NEIGHBOUR_TOPICS {
        return rng.pick(&TOPICS[own].neighbours) as usize;
    }
    let mut target = rng.unit() * totals.iter().sum::<f64>();
    for (topic, &total) in totals.iter().enumerate() {
        if target < total {
            return topic;
        }
        target -= total;
    }
    own
}

/// The earliest publication date (`Date::packed`) of the [`WINDOWS`] window that `u`, a
/// uniform draw, falls in; 0 (any date) past the last window.
fn window_start(u: f64, date: u32) -> u32 {
    let mut bound = 0.0;
    for (share, years) in WINDOWS {
        bound += share;
        if u < bound {
            return date.saturating_sub(years * 10_000);
        }
    }
    0
}

pub fn link(seed: u64, papers: &mut [Paper]) {
    let topic_of = |p: &Paper| p.topics[0].topic as usize;
    let mut order: Vec<u32> = (0..papers.len() as u32).collect();
    order.sort_by_key(|&i| (papers[i as usize].date.packed(), i));
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); TOPICS.len()];
    for &i in &order {
        members[topic_of(&papers[i as usize])].push(i);
    }
    let fitness: Vec<f64> = (0..papers.len() as u64)
        .map(|i| Rng::new(&[seed, TAG_GRAPH, TAG_FITNESS, i]).pareto(FITNESS_ALPHA).min(FITNESS_CAP))
        .collect();

    let mut pools: Vec<Pool> = members.iter().map(|m| Pool::with_capacity(m.len())).collect();
    let mut totals = vec![0.0; TOPICS.len()];
    // (topic, position in its pool) of the papers joined so far.
    let mut slot = vec![(0u8, 0u32); papers.len()];
    for &i in &order {
        let i = i as usize;
        let (topic, date) = (topic_of(&papers[i]), papers[i].date.packed());
        let mut rng = Rng::new(&[seed, TAG_GRAPH, i as u64]);
        let wanted = 4 + rng.below(22);
        let mut references: Vec<u32> = Vec::with_capacity(wanted);
        for _ in 0..wanted {
            let from = pick_topic(&mut rng, topic, &totals);
            let since = window_start(rng.unit(), date);
            for _ in 0..TRIES {
                match pools[from].draw(&mut rng, since).or_else(|| pools[from].draw(&mut rng, 0)) {
                    Some(cited) if !references.contains(&cited) => {
                        references.push(cited);
                        break;
                    }
                    Some(_) => continue,
                    None => break,
                }
            }
        }
        for &cited in &references {
            let (t, position) = slot[cited as usize];
            let weight = fitness[cited as usize];
            pools[t as usize].add(position as usize, weight);
            totals[t as usize] += weight;
        }
        let weight = fitness[i] * OFFSET;
        slot[i] = (topic as u8, pools[topic].join(i as u32, date, weight));
        totals[topic] += weight;
        references.sort_unstable();
        papers[i].references = references;
    }

    for (i, paper) in papers.iter_mut().enumerate() {
        let mut rng = Rng::new(&[seed, TAG_GRAPH, TAG_RELATED, i as u64]);
        let same_topic = &members[paper.topics[0].topic as usize];
        let mut related: Vec<u32> = Vec::new();
        for _ in 0..12 {
            let candidate = same_topic[rng.below(same_topic.len())];
            if candidate as usize != i && !related.contains(&candidate) && related.len() < 8 {
                related.push(candidate);
            }
        }
        paper.related = related;
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
        p.cited_by.sort_by_key(|&c| (std::cmp::Reverse(dates[c as usize]), c));
    }
    derive_metrics(seed, papers);
}

fn derive_metrics(seed: u64, papers: &mut [Paper]) {
    let mut by_topic_year: HashMap<(u8, u16), Vec<u32>> = HashMap::new();
    let mut by_year: HashMap<u16, Vec<u32>> = HashMap::new();
    for p in papers.iter() {
        let c = p.citation_count();
        by_topic_year.entry((p.topics[0].topic, p.date.year)).or_default().push(c);
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
        p.fwci = if mean > 0.0 { round(c as f64 / mean, 4) } else { 0.0 };
        // Share of the other works of the group that this one out-cites.
        let below = group.partition_point(|&x| x < c) as f64;
        let value = if group.len() > 1 { round(below / (group.len() - 1) as f64, 4) } else { 0.0 };
        p.citation_normalized_percentile = CitationPercentile {
            value,
            is_in_top_10_percent: c > 0 && value >= 0.9,
            is_in_top_1_percent: c > 0 && value >= 0.99,
        };
        let year = &by_year[&p.date.year];
        p.cited_by_percentile_year = PercentileRange {
            min: round(100.0 * year.partition_point(|&x| x < c) as f64 / year.len() as f64, 2),
            max: round(100.0 * year.partition_point(|&x| x <= c) as f64 / year.len() as f64, 2),
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
        author.h_index = counts.iter().enumerate().take_while(|(i, &c)| c as usize > *i).count() as u32;
    }
}

/// Shares of the citation edges that stay within the citing paper's topic, and within the
/// topic or its neighbours: how topical the graph is (tests and examples/citation_graph_report.rs).
pub fn topical_shares(papers: &[Paper]) -> (f64, f64) {
    let (mut edges, mut own, mut near) = (0usize, 0usize, 0usize);
    for p in papers {
        let topic = p.topics[0].topic;
        for &r in &p.references {
            let cited = papers[r as usize].topics[0].topic;
            edges += 1;
            own += usize::from(cited == topic);
            near += usize::from(cited == topic || TOPICS[topic as usize].neighbours.contains(&cited));
        }
    }
    (own as f64 / edges as f64, near as f64 / edges as f64)
}

/// Citation counts, most cited first.
pub fn citation_counts(papers: &[Paper]) -> Vec<u32> {
    let mut counts: Vec<u32> = papers.iter().map(Paper::citation_count).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts
}

/// Share of all citations that the top `fraction` of papers collect, from [`citation_counts`].
pub fn top_share(counts: &[u32], fraction: f64) -> f64 {
    let top = ((counts.len() as f64 * fraction).ceil() as usize).max(1);
    let total: u64 = counts.iter().map(|&c| c as u64).sum();
    counts[..top].iter().map(|&c| c as u64).sum::<u64>() as f64 / total as f64
}
