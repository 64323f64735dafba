//! The search indexes of the structured papers, built once on the first `/paper-schema`
//! request (so a sandbox that never serves these operations never pays for them): paper
//! relevance, entities, relations and evidence across the corpus, and the lookups of the
//! related-paper signals.

use std::collections::HashMap;

use paperlens_core::contract::EVIDENCE_GROUPS;

use crate::service::corpus::structure::{card_facts, CardFacts, EntityType};
use crate::service::corpus::{Corpus, Paper, PaperStructure};
use crate::service::search::{tokens, Bm25, Bm25Builder};

/// Where an evidence sits in the structure of its paper (the `path_bucket` condition).
pub const PATH_BUCKETS: [&str; 8] =
    ["problems", "components", "findings", "measures", "resources", "references", "relations", "formulas"];

pub fn type_code(kind: EntityType) -> u8 {
    EntityType::ALL.iter().position(|k| *k == kind).unwrap_or_default() as u8
}

#[derive(Debug, Clone, Copy)]
pub struct EntityRow {
    /// Corpus index of the paper.
    pub paper: u32,
    /// Position in the paper's entity list.
    pub ordinal: u32,
    pub kind: EntityType,
    pub subtype: &'static str,
    /// Index into [`SchemaIndex::sections`].
    pub section: u16,
}

#[derive(Debug, Clone, Copy)]
pub struct RelationRow {
    pub paper: u32,
    pub ordinal: u32,
    pub relation_type: &'static str,
    pub source: u32,
    pub target: u32,
}

/// A row of a cross-paper index: its paper (corpus index) and its position in that paper.
pub trait Row {
    fn paper(&self) -> u32;
    fn ordinal(&self) -> u32;
}

macro_rules! rows {
    ($($row:ty),*) => {$(
        impl Row for $row {
            fn paper(&self) -> u32 {
                self.paper
            }

            fn ordinal(&self) -> u32 {
                self.ordinal
            }
        }
    )*};
}

rows!(EntityRow, RelationRow, EvidenceRow);

#[derive(Debug, Clone, Copy)]
pub struct EvidenceRow {
    pub paper: u32,
    pub ordinal: u32,
    /// Bit `i` set for group `EVIDENCE_GROUPS[i]`.
    pub groups: u16,
    /// Index into [`SchemaIndex::keys`].
    pub key: u16,
    pub path_bucket: &'static str,
    pub value_number: Option<f64>,
    pub value_bool: Option<bool>,
}

pub struct SchemaIndex {
    /// Corpus indexes of the structured papers in primary-key (`schema_id`) order.
    pub order: Vec<u32>,
    /// Position in `order` of each corpus paper (`u32::MAX` without structured data).
    pub rank: Vec<u32>,
    /// Card facts by corpus index.
    pub facts: Vec<Option<CardFacts>>,
    /// Paper relevance; documents are ranks.
    pub papers: Bm25,
    pub entities: Vec<EntityRow>,
    pub entity_terms: Bm25,
    pub relations: Vec<RelationRow>,
    pub relation_terms: Bm25,
    pub evidence: Vec<EvidenceRow>,
    pub evidence_terms: Bm25,
    /// Interned section names and evidence keys.
    pub sections: Vec<String>,
    pub keys: Vec<String>,
    /// (entity type, normalised name) -> ranks of the papers holding such an entity.
    pub entity_names: HashMap<(u8, String), Vec<u32>>,
    /// Normalised title -> corpus indexes: versions of one work share a title.
    pub works: HashMap<String, Vec<u32>>,
    /// Ranks of the structured papers citing each corpus paper (resolved inbound edges).
    pub cited_by: Vec<Vec<u32>>,
}

/// What one paper contributes to the indexes, computed in parallel.
struct PaperRows {
    paper: u32,
    paper_tokens: Vec<String>,
    entities: Vec<(EntityRow, String, Vec<String>)>,
    relations: Vec<(RelationRow, Vec<String>)>,
    evidence: Vec<(EvidenceRow, String, Vec<String>)>,
    names: Vec<(u8, String)>,
}

impl PaperRows {
    fn empty(paper: u32) -> PaperRows {
        PaperRows {
            paper,
            paper_tokens: Vec::new(),
            entities: Vec::new(),
            relations: Vec::new(),
            evidence: Vec::new(),
            names: Vec::new(),
        }
    }
}

pub fn normalize_name(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A section name without its number (`3. Method` -> `method`), for filters.
pub fn section_key(section: &str) -> String {
    let trimmed = section.trim();
    let without_number = trimmed
        .split_once(". ")
        .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        .map_or(trimmed, |(_, rest)| rest);
    without_number.to_lowercase()
}

pub fn path_bucket(structure: &PaperStructure, evidence_index: usize) -> &'static str {
    let evidence = &structure.evidence[evidence_index];
    if evidence.source_relation_id.is_some() {
        return "relations";
    }
    let kind = evidence
        .source_entity_id
        .as_deref()
        .and_then(|id| structure.entities.iter().find(|e| e.entity_id == id))
        .map(|e| e.entity_type);
    match kind {
        Some(EntityType::Problem) => "problems",
        Some(EntityType::Component) => "components",
        Some(EntityType::Finding) => "findings",
        Some(EntityType::Measure) => "measures",
        Some(EntityType::Resource) => "resources",
        Some(EntityType::Reference) => "references",
        None => "formulas",
    }
}

pub fn group_mask(groups: &[&str]) -> u16 {
    groups.iter().filter_map(|g| EVIDENCE_GROUPS.iter().position(|known| known == g)).fold(0, |mask, i| mask | (1 << i))
}

/// The ordinal `n - 1` of an id `<prefix><n>` (`e3` -> 2).
pub fn ordinal_of(id: &str, prefix: char) -> Option<u32> {
    let n: u32 = id.strip_prefix(prefix)?.parse().ok()?;
    (n >= 1 && id == format!("{prefix}{n}")).then(|| n - 1)
}

fn paper_tokens(corpus: &Corpus, paper: &Paper, facts: &CardFacts) -> Vec<String> {
    let mut out = Vec::new();
    tokens(&paper.title, &mut out);
    tokens(&paper.title, &mut out);
    tokens(&paper.abstract_text, &mut out);
    tokens(&facts.research_problem, &mut out);
    tokens(&facts.central_contribution, &mut out);
    tokens(&facts.headline_result, &mut out);
    for task in &facts.tasks {
        tokens(task, &mut out);
    }
    for topic in &paper.topics {
        tokens(topic.topic().display_name, &mut out);
    }
    tokens(paper.primary_topic().subfield, &mut out);
    tokens(paper.primary_topic().field, &mut out);
    for keyword in &paper.keywords {
        tokens(keyword, &mut out);
    }
    for name in corpus.author_names(paper) {
        tokens(&name, &mut out);
    }
    tokens(&corpus.sources[paper.venue as usize].name, &mut out);
    out
}

fn rows(corpus: &Corpus, paper: &Paper, facts: &CardFacts) -> Option<PaperRows> {
    let structure = corpus.structure(paper)?;
    let paragraph_text = |paragraph_id: &str| {
        structure
            .paragraphs
            .iter()
            .find(|p| p.paragraph_id == paragraph_id)
            .map(|p| p.text.as_str())
            .unwrap_or_default()
    };
    let mut out = PaperRows {
        paper: paper.index,
        paper_tokens: paper_tokens(corpus, paper, facts),
        entities: Vec::new(),
        relations: Vec::new(),
        evidence: Vec::new(),
        names: Vec::new(),
    };
    for (ordinal, entity) in structure.entities.iter().enumerate() {
        let mut terms = Vec::new();
        tokens(&entity.name, &mut terms);
        tokens(&entity.name, &mut terms);
        tokens(&entity.text, &mut terms);
        tokens(entity.entity_type.as_str(), &mut terms);
        tokens(entity.entity_subtype, &mut terms);
        let row = EntityRow {
            paper: paper.index,
            ordinal: ordinal as u32,
            kind: entity.entity_type,
            subtype: entity.entity_subtype,
            section: 0,
        };
        out.entities.push((row, entity.section.clone(), terms));
        if !matches!(entity.entity_type, EntityType::Finding | EntityType::Reference) {
            out.names.push((type_code(entity.entity_type), normalize_name(&entity.name)));
        }
    }
    let entity_name =
        |id: &str| structure.entities.iter().find(|e| e.entity_id == id).map(|e| e.name.as_str()).unwrap_or_default();
    for (ordinal, relation) in structure.relations.iter().enumerate() {
        let mut terms = Vec::new();
        for location in &relation.provenance {
            tokens(paragraph_text(&location.paragraph_id), &mut terms);
        }
        for evidence in &structure.evidence {
            if evidence.source_relation_id.as_deref() == Some(&relation.relation_id) {
                tokens(&evidence.key, &mut terms);
                tokens(evidence.value_text.as_deref().unwrap_or_default(), &mut terms);
            }
        }
        tokens(entity_name(&relation.source_entity_id), &mut terms);
        tokens(entity_name(&relation.target_entity_id), &mut terms);
        let row = RelationRow {
            paper: paper.index,
            ordinal: ordinal as u32,
            relation_type: relation.relation_type,
            source: ordinal_of(&relation.source_entity_id, 'e').unwrap_or(u32::MAX),
            target: ordinal_of(&relation.target_entity_id, 'e').unwrap_or(u32::MAX),
        };
        out.relations.push((row, terms));
    }
    for (ordinal, evidence) in structure.evidence.iter().enumerate() {
        let mut terms = Vec::new();
        tokens(&evidence.key, &mut terms);
        tokens(evidence.value_text.as_deref().unwrap_or_default(), &mut terms);
        if let Some(id) = &evidence.source_entity_id {
            tokens(entity_name(id), &mut terms);
        }
        let row = EvidenceRow {
            paper: paper.index,
            ordinal: ordinal as u32,
            groups: group_mask(&evidence.groups),
            key: 0,
            path_bucket: path_bucket(&structure, ordinal),
            value_number: evidence.value_number,
            value_bool: evidence.value_bool,
        };
        out.evidence.push((row, evidence.key.clone(), terms));
    }
    Some(out)
}

fn intern(table: &mut Vec<String>, lookup: &mut HashMap<String, u16>, text: String) -> u16 {
    if let Some(&i) = lookup.get(&text) {
        return i;
    }
    let i = table.len() as u16;
    table.push(text.clone());
    lookup.insert(text, i);
    i
}

impl SchemaIndex {
    pub fn build(corpus: &Corpus) -> SchemaIndex {
        let mut order: Vec<u32> = corpus.papers.iter().filter(|p| p.schema_id.is_some()).map(|p| p.index).collect();
        order.sort_by(|a, b| corpus.papers[*a as usize].schema_id.cmp(&corpus.papers[*b as usize].schema_id));
        let mut rank = vec![u32::MAX; corpus.papers.len()];
        for (r, &p) in order.iter().enumerate() {
            rank[p as usize] = r as u32;
        }
        let facts: Vec<Option<CardFacts>> = corpus.papers.iter().map(|p| card_facts(corpus, p)).collect();

        // The structures are the expensive part: build them on every core.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
        let chunk = order.len().div_ceil(threads).max(1);
        let per_paper: Vec<PaperRows> = std::thread::scope(|scope| {
            let handles: Vec<_> = order
                .chunks(chunk)
                .map(|part| {
                    let facts = &facts;
                    scope.spawn(move || {
                        part.iter()
                            .map(|&i| {
                                let paper = &corpus.papers[i as usize];
                                facts[i as usize]
                                    .as_ref()
                                    .and_then(|f| rows(corpus, paper, f))
                                    .unwrap_or_else(|| PaperRows::empty(i))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        });

        let mut papers = Bm25Builder::default();
        let mut entity_terms = Bm25Builder::default();
        let mut relation_terms = Bm25Builder::default();
        let mut evidence_terms = Bm25Builder::default();
        let (mut entities, mut relations, mut evidence) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sections, mut section_ids) = (Vec::new(), HashMap::new());
        let (mut keys, mut key_ids) = (Vec::new(), HashMap::new());
        let mut entity_names: HashMap<(u8, String), Vec<u32>> = HashMap::new();
        for rows in per_paper {
            papers.add(&rows.paper_tokens);
            let r = rank[rows.paper as usize];
            for (mut row, section, terms) in rows.entities {
                row.section = intern(&mut sections, &mut section_ids, section);
                entity_terms.add(&terms);
                entities.push(row);
            }
            for (row, terms) in rows.relations {
                relation_terms.add(&terms);
                relations.push(row);
            }
            for (mut row, key, terms) in rows.evidence {
                row.key = intern(&mut keys, &mut key_ids, key);
                evidence_terms.add(&terms);
                evidence.push(row);
            }
            for name in rows.names {
                let holders = entity_names.entry(name).or_default();
                if holders.last() != Some(&r) {
                    holders.push(r);
                }
            }
        }
        let mut works: HashMap<String, Vec<u32>> = HashMap::new();
        for &i in &order {
            works.entry(normalize_name(&corpus.papers[i as usize].title)).or_default().push(i);
        }
        let mut cited_by = vec![Vec::new(); corpus.papers.len()];
        for (r, &i) in order.iter().enumerate() {
            for &cited in &corpus.papers[i as usize].references {
                cited_by[cited as usize].push(r as u32);
            }
        }
        SchemaIndex {
            order,
            rank,
            facts,
            papers: papers.build(),
            entities,
            entity_terms: entity_terms.build(),
            relations,
            relation_terms: relation_terms.build(),
            evidence,
            evidence_terms: evidence_terms.build(),
            sections,
            keys,
            entity_names,
            works,
            cited_by,
        }
    }

    /// The rank of a structured paper, by corpus index.
    pub fn rank_of(&self, paper: u32) -> Option<u32> {
        self.rank.get(paper as usize).copied().filter(|&r| r != u32::MAX)
    }

    pub fn facts(&self, paper: u32) -> Option<&CardFacts> {
        self.facts.get(paper as usize).and_then(Option::as_ref)
    }

    /// Whether two papers are versions of one work (the same normalised title).
    pub fn same_work(&self, corpus: &Corpus, a: u32, b: u32) -> bool {
        let title = |i: u32| normalize_name(&corpus.papers[i as usize].title);
        a != b && title(a) == title(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sections_and_ordinals() {
        assert_eq!(normalize_name("  Graph-Neural  Nets!"), "graph neural nets");
        assert_eq!(section_key("3. Method"), "method");
        assert_eq!(section_key("Abstract"), "abstract");
        assert_eq!(ordinal_of("e3", 'e'), Some(2));
        assert_eq!(ordinal_of("e03", 'e'), None);
        assert_eq!(ordinal_of("e0", 'e'), None);
        assert_eq!(ordinal_of("r1", 'e'), None);
        assert_eq!(group_mask(&["evidence_score", "resource"]), 1 | (1 << 9));
    }
}
