//! The generated corpus: papers, authors and sources, deterministic from (papers, seed).
//!
//! Records are generated eagerly and kept compact; full texts, figures and the
//! structured view of a paper are regenerated on demand from the seed (the most recent
//! full texts are cached), so 100,000 papers fit in memory.

pub mod graph;
pub mod ids;
pub mod model;
pub mod names;
pub mod people;
pub mod phrases;
pub mod png;
pub mod structure;
pub mod text;
pub mod topics;
pub mod venues;

mod generate;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use model::*;
pub use structure::PaperStructure;
pub use text::{FullText, TextSource};
pub use topics::{Domain, Topic, TOPICS};

use crate::service::rng::Rng;

/// A cited work outside the corpus.
#[derive(Debug, Clone)]
pub struct ExternalWork {
    pub doi: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: u16,
}

/// A binary attachment served by `/resource`.
#[derive(Debug, Clone)]
pub struct Attachment {
    pub content_type: &'static str,
    pub file_name: String,
    pub bytes: Vec<u8>,
    pub paper: u32,
}

pub struct Corpus {
    pub seed: u64,
    pub papers: Vec<Paper>,
    pub authors: Vec<Author>,
    pub sources: Vec<Source>,
    by_unique_id: HashMap<String, u32>,
    by_doc_id: HashMap<String, u32>,
    by_source: HashMap<String, u32>,
    by_schema_id: HashMap<String, u32>,
    /// The corpus's "today": the latest publication date (freshness is measured from it).
    pub today: Date,
    text_cache: Mutex<Vec<(u32, Arc<FullText>)>>,
    /// The DOIs of each paper's references outside the corpus, made on first use.
    external_dois: Vec<OnceLock<Box<[String]>>>,
}

const TEXT_CACHE_SIZE: usize = 16;

impl Corpus {
    pub fn generate(papers: usize, seed: u64) -> Corpus {
        let venues = venues::Venues::generate(seed);
        let mut people = people::People::generate(seed, papers);
        let mut records: Vec<Paper> =
            (0..papers).map(|i| generate::generate_paper(seed, i, &venues, &people)).collect();
        graph::link(seed, &mut records);
        let mut sources = venues.sources;
        graph::aggregate(&records, &mut people.authors, &mut sources);

        let mut by_unique_id = HashMap::with_capacity(papers);
        let mut by_doc_id = HashMap::with_capacity(papers);
        let mut by_source = HashMap::with_capacity(papers);
        let mut by_schema_id = HashMap::with_capacity(papers);
        for p in &records {
            by_unique_id.insert(p.unique_id.clone(), p.index);
            if let Some(doc_id) = &p.doc_id {
                by_doc_id.insert(doc_id.clone(), p.index);
                by_source.insert(p.source.clone(), p.index);
            }
            if let Some(schema_id) = &p.schema_id {
                by_schema_id.insert(schema_id.clone(), p.index);
            }
        }
        let today = records.iter().map(|p| p.date).max().unwrap_or(Date { year: 2026, month: 1, day: 1 });
        Corpus {
            seed,
            papers: records,
            authors: people.authors,
            sources,
            by_unique_id,
            by_doc_id,
            by_source,
            by_schema_id,
            today,
            text_cache: Mutex::new(Vec::new()),
            external_dois: (0..papers).map(|_| OnceLock::new()).collect(),
        }
    }

    pub fn by_unique_id(&self, unique_id: &str) -> Option<&Paper> {
        self.by_unique_id.get(unique_id).map(|&i| &self.papers[i as usize])
    }

    pub fn by_doc_id(&self, doc_id: &str) -> Option<&Paper> {
        self.by_doc_id.get(doc_id).map(|&i| &self.papers[i as usize])
    }

    pub fn by_source(&self, source: &str) -> Option<&Paper> {
        self.by_source.get(source).map(|&i| &self.papers[i as usize])
    }

    pub fn by_schema_id(&self, schema_id: &str) -> Option<&Paper> {
        self.by_schema_id.get(schema_id).map(|&i| &self.papers[i as usize])
    }

    pub fn text_source<'a>(&self, paper: &'a Paper) -> TextSource<'a> {
        TextSource::new(self.seed, paper)
    }

    /// The full text of a paper (None without full text); recent texts are cached.
    pub fn full_text(&self, paper: &Paper) -> Option<Arc<FullText>> {
        if let Ok(cache) = self.text_cache.lock() {
            if let Some((_, text)) = cache.iter().find(|(i, _)| *i == paper.index) {
                return Some(text.clone());
            }
        }
        let text = Arc::new(FullText::new(self.text_source(paper).full_text()?));
        if let Ok(mut cache) = self.text_cache.lock() {
            if cache.len() == TEXT_CACHE_SIZE {
                cache.remove(0);
            }
            cache.push((paper.index, text.clone()));
        }
        Some(text)
    }

    /// The structured view of a paper (None for papers without a `schema_id`).
    pub fn structure(&self, paper: &Paper) -> Option<PaperStructure> {
        structure::build(self, paper)
    }

    pub fn author_names(&self, paper: &Paper) -> Vec<String> {
        paper.authors.iter().map(|&a| self.authors[a as usize].name.clone()).collect()
    }

    /// Year and DOI of external reference `k` (cheap: records list these DOIs).
    pub fn external_doi(&self, paper: &Paper, k: usize) -> (u16, String) {
        let mut rng = Rng::new(&[self.seed, 0x6578_7472, paper.index as u64, k as u64]);
        let year = paper.date.year.saturating_sub(1 + rng.below(15) as u16).max(1950);
        let doi = format!("10.{}/ext.{}.{}", 9000 + rng.below(900), year, rng.below(1_000_000));
        (year, doi)
    }

    /// Every DOI of `paper`'s references outside the corpus, in order (cached per paper).
    pub fn external_dois(&self, paper: &Paper) -> &[String] {
        self.external_dois[paper.index as usize]
            .get_or_init(|| (0..paper.external_references as usize).map(|k| self.external_doi(paper, k).1).collect())
    }

    pub fn external_reference(&self, paper: &Paper, k: usize) -> ExternalWork {
        let (year, doi) = self.external_doi(paper, k);
        let mut rng = Rng::new(&[self.seed, 0x6578_7473, paper.index as u64, k as u64]);
        let topic = paper.primary_topic();
        ExternalWork {
            doi,
            title: format!(
                "{} in {}: {}",
                capitalize(rng.pick(&topic.terms)),
                rng.pick(&topic.terms),
                rng.pick(&topic.methods)
            ),
            authors: (0..1 + rng.below(3))
                .map(|_| format!("{} {}", rng.pick(names::GIVEN_NAMES), rng.pick(names::FAMILY_NAMES)))
                .collect(),
            year,
        }
    }

    /// The attachment at `file_name` (`figures/<unique_id>/figN.png` or
    /// `supplementary/<unique_id>/table1.csv`), if it exists.
    pub fn attachment(&self, file_name: &str) -> Option<Attachment> {
        let mut parts = file_name.split('/');
        let (kind, unique_id, leaf) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let paper = self.by_unique_id(unique_id)?;
        if !paper.has_full_text() {
            return None;
        }
        let (content_type, bytes) = match kind {
            "figures" => {
                let n: u8 = leaf.strip_prefix("fig")?.strip_suffix(".png")?.parse().ok()?;
                if n == 0 || n > paper.figures || leaf != format!("fig{n}.png") {
                    return None;
                }
                let key = [self.seed, 0x6669_6775, paper.index as u64, n as u64];
                ("image/png", png::figure_png(&key, paper.topics[0].topic as usize))
            }
            "supplementary" if leaf == "table1.csv" => ("text/csv", self.supplement_csv(paper).into_bytes()),
            _ => return None,
        };
        Some(Attachment { content_type, file_name: leaf.to_string(), bytes, paper: paper.index })
    }

    fn supplement_csv(&self, paper: &Paper) -> String {
        let topic = paper.primary_topic();
        let mut rng = Rng::new(&[self.seed, 0x6373_7673, paper.index as u64]);
        let metric = topic.metrics[paper.focus.metric as usize];
        let mut csv = format!("method,dataset,{metric}\n");
        for method in &topic.methods {
            let dataset = topic.datasets[paper.focus.dataset as usize];
            csv.push_str(&format!("{method},{dataset},{:.3}\n", rng.unit()));
        }
        csv
    }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
