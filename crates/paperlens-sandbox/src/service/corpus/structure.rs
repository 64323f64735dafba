//! The structured view of a paper (for the `/paper-schema` operations): paragraphs with
//! ids and markers, entities, relations, evidence and citations. Generated on demand;
//! every entity, relation and evidence points at the paragraph that contains its text.

use super::model::Paper;
use super::phrases::phrases;
use super::text::{Anchor, Block, TextSource};
use super::Corpus;
use crate::service::rng::Rng;

#[derive(Debug, Clone)]
pub struct Paragraph {
    /// Global id: `<schema_id>:p<ordinal>`.
    pub paragraph_id: String,
    /// In-paper locator number, opaque to callers.
    pub marker: u32,
    pub section: String,
    pub text: String,
    /// Position among the paper's paragraphs (0 = abstract); neighbours are +-1.
    pub position: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    pub marker: u32,
    pub paragraph_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityType {
    Problem,
    Component,
    Finding,
    Measure,
    Resource,
    Reference,
}

impl EntityType {
    pub const ALL: [EntityType; 6] = [
        EntityType::Problem,
        EntityType::Component,
        EntityType::Finding,
        EntityType::Measure,
        EntityType::Resource,
        EntityType::Reference,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EntityType::Problem => "Problem",
            EntityType::Component => "Component",
            EntityType::Finding => "Finding",
            EntityType::Measure => "Measure",
            EntityType::Resource => "Resource",
            EntityType::Reference => "Reference",
        }
    }

    pub fn subtypes(self) -> &'static [&'static str] {
        match self {
            EntityType::Problem => &["ResearchProblem"],
            EntityType::Component => &["Method", "Module"],
            EntityType::Finding => &["Result"],
            EntityType::Measure => &["Metric"],
            EntityType::Resource => &["Dataset", "Code"],
            EntityType::Reference => &["Citation"],
        }
    }
}

#[derive(Debug, Clone)]
pub struct Entity {
    pub entity_id: String,
    pub entity_type: EntityType,
    pub entity_subtype: &'static str,
    pub name: String,
    pub text: String,
    pub section: String,
    pub provenance: Vec<Provenance>,
}

pub const RELATION_TYPES: [&str; 5] = ["uses_component", "evaluates", "reports_metric", "supports", "resolves"];

#[derive(Debug, Clone)]
pub struct Relation {
    pub relation_id: String,
    pub relation_type: &'static str,
    pub source_entity_id: String,
    pub target_entity_id: String,
    pub provenance: Vec<Provenance>,
}

#[derive(Debug, Clone, Default)]
pub struct Evidence {
    pub evidence_id: String,
    pub groups: Vec<&'static str>,
    pub key: String,
    pub value_text: Option<String>,
    pub value_number: Option<f64>,
    pub value_bool: Option<bool>,
    pub source_entity_id: Option<String>,
    pub source_relation_id: Option<String>,
    pub provenance: Vec<Provenance>,
}

impl Evidence {
    /// An evidence of `groups` under `key`; the methods below set its values and source.
    fn new(groups: &[&'static str], key: impl Into<String>) -> Evidence {
        Evidence { groups: groups.to_vec(), key: key.into(), ..Evidence::default() }
    }

    fn text(self, text: impl Into<String>) -> Evidence {
        Evidence { value_text: Some(text.into()), ..self }
    }

    fn number(self, number: f64) -> Evidence {
        Evidence { value_number: Some(number), ..self }
    }

    fn flag(self, flag: bool) -> Evidence {
        Evidence { value_bool: Some(flag), ..self }
    }

    fn entity(self, entity_id: &str) -> Evidence {
        Evidence { source_entity_id: Some(entity_id.to_string()), ..self }
    }

    fn relation(self, relation_id: &str) -> Evidence {
        Evidence { source_relation_id: Some(relation_id.to_string()), ..self }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Cites a corpus paper that has structured data.
    Resolved { target: u32 },
    /// Cites a work outside the corpus.
    Unresolved,
    /// Cites a corpus paper without structured data.
    TargetUnavailable { target: u32 },
}

impl Resolution {
    pub fn status(self) -> &'static str {
        match self {
            Resolution::Resolved { .. } => "resolved",
            Resolution::Unresolved => "unresolved",
            Resolution::TargetUnavailable { .. } => "target_unavailable",
        }
    }
}

#[derive(Debug, Clone)]
pub struct CitationItem {
    pub relation: &'static str,
    /// The Reference entity of the cited work.
    pub reference_entity_id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: u16,
    pub resolution: Resolution,
}

#[derive(Debug, Clone)]
pub struct PaperStructure {
    pub schema_id: String,
    pub paper: u32,
    pub facts: CardFacts,
    pub paragraphs: Vec<Paragraph>,
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    pub evidence: Vec<Evidence>,
    pub citations: Vec<CitationItem>,
}

struct Builder<'a> {
    paragraphs: &'a [Paragraph],
    blocks: &'a [Block],
    entities: Vec<Entity>,
    relations: Vec<Relation>,
    evidence: Vec<Evidence>,
}

impl Builder<'_> {
    /// The paragraph of a (section, n) paragraph block.
    fn paragraph(&self, section: u8, n: u8) -> &Paragraph {
        let position =
            self.blocks.iter().filter(|b| b.is_paragraph()).position(|b| *b == Block::Para { section, n }).unwrap_or(0);
        &self.paragraphs[position]
    }

    fn provenance(paragraph: &Paragraph) -> Vec<Provenance> {
        vec![Provenance { marker: paragraph.marker, paragraph_id: paragraph.paragraph_id.clone() }]
    }

    fn entity(
        &mut self,
        kind: EntityType,
        subtype: &'static str,
        name: String,
        text: String,
        at: &Paragraph,
    ) -> String {
        let entity_id = format!("e{}", self.entities.len() + 1);
        self.entities.push(Entity {
            entity_id: entity_id.clone(),
            entity_type: kind,
            entity_subtype: subtype,
            name,
            text,
            section: at.section.clone(),
            provenance: Self::provenance(at),
        });
        entity_id
    }

    fn relation(&mut self, kind: &'static str, source: &str, target: &str, at: &Paragraph) -> String {
        let relation_id = format!("r{}", self.relations.len() + 1);
        self.relations.push(Relation {
            relation_id: relation_id.clone(),
            relation_type: kind,
            source_entity_id: source.to_string(),
            target_entity_id: target.to_string(),
            provenance: Self::provenance(at),
        });
        relation_id
    }

    fn add_evidence(&mut self, at: &Paragraph, mut evidence: Evidence) {
        evidence.evidence_id = format!("v{}", self.evidence.len() + 1);
        evidence.provenance = Self::provenance(at);
        self.evidence.push(evidence);
    }
}

pub fn build(corpus: &Corpus, paper: &Paper) -> Option<PaperStructure> {
    let schema_id = paper.schema_id.clone()?;
    let source = TextSource::new(corpus.seed, paper);
    let words = phrases(paper.language);
    let blocks = source.plan();
    let mut paragraphs = Vec::new();
    let mut section = words.abstract_heading.to_string();
    for block in &blocks {
        if let Block::Heading(s) = block {
            section = words.sections[*s as usize].to_string();
        }
        if block.is_paragraph() {
            let position = paragraphs.len() as u32;
            paragraphs.push(Paragraph {
                paragraph_id: format!("{schema_id}:p{position}"),
                marker: position + 1,
                section: section.clone(),
                text: source.block_text(*block),
                position,
            });
        }
    }
    let slots = source.focus_slots();
    let mut rng = Rng::new(&[corpus.seed, TAG_STRUCTURE, paper.index as u64]);
    let facts = draw_facts(&source, &mut rng);
    let mut b = Builder {
        paragraphs: &paragraphs,
        blocks: &blocks,
        entities: Vec::new(),
        relations: Vec::new(),
        evidence: Vec::new(),
    };

    let at = |b: &Builder, anchor: Anchor| {
        let (s, n) = anchor.location();
        b.paragraph(s, n).clone()
    };
    let problem_at = at(&b, Anchor::Problem);
    let method_at = at(&b, Anchor::Method);
    let dataset_at = at(&b, Anchor::Dataset);
    let finding_at = at(&b, Anchor::Finding);
    let related_at = b.paragraph(1, 0).clone();

    let problem_sentence = source.anchor_sentence(Anchor::Problem);
    let method_sentence = facts.central_contribution.clone();
    let finding_sentence = facts.headline_result.clone();
    let problem = b.entity(EntityType::Problem, "ResearchProblem", slots.p.into(), problem_sentence, &problem_at);
    let method = b.entity(EntityType::Component, "Method", slots.m.into(), method_sentence.clone(), &method_at);
    let module = b.entity(EntityType::Component, "Module", slots.a.into(), method_sentence.clone(), &method_at);
    let dataset =
        b.entity(EntityType::Resource, "Dataset", slots.d.into(), source.anchor_sentence(Anchor::Dataset), &dataset_at);
    let metric = b.entity(EntityType::Measure, "Metric", slots.k.into(), finding_sentence.clone(), &finding_at);
    let finding = b.entity(
        EntityType::Finding,
        "Result",
        format!("{} +{}%", slots.k, slots.x),
        finding_sentence.clone(),
        &finding_at,
    );

    b.relation("uses_component", &method, &module, &method_at);
    let evaluates = b.relation("evaluates", &method, &dataset, &dataset_at);
    b.relation("reports_metric", &finding, &metric, &finding_at);
    let supports = b.relation("supports", &finding, &method, &finding_at);
    b.relation("resolves", &method, &problem, &method_at);

    // Stored as an f32 with one decimal: widened as is, 27.6 would read 27.600000381469727.
    let improvement = (f64::from(paper.focus.improvement) * 10.0).round() / 10.0;
    let improvement_evidence = Evidence::new(&["core_claim_result"], "improvement_percent").text(slots.x.clone());
    b.add_evidence(&finding_at, improvement_evidence.number(improvement).entity(&finding));
    let metric_evidence = Evidence::new(&["table_evidence", "schema_unit"], slots.k).text(slots.k).number(improvement);
    b.add_evidence(&finding_at, metric_evidence.entity(&metric));
    let confidence = ((0.6 + rng.unit() * 0.39) * 100.0).round() / 100.0;
    b.add_evidence(
        &finding_at,
        Evidence::new(&["evidence_score"], "support_confidence").number(confidence).relation(&supports),
    );
    let dataset_evidence = Evidence::new(&["resource"], "dataset").text(slots.d).flag(facts.has_data).entity(&dataset);
    b.add_evidence(&dataset_at, dataset_evidence);
    b.add_evidence(
        &method_at,
        Evidence::new(&["comparison_detail"], "evaluated_method").text(slots.m).relation(&evaluates),
    );
    let formula = "L(θ) = Σᵢ ℓ(xᵢ; θ) + λ‖θ‖²";
    if let Some(p) = paragraphs.iter().find(|p| p.text.contains(formula)) {
        b.add_evidence(p, Evidence::new(&["formula"], "objective").text(formula));
    }

    let mut citations = Vec::new();
    let mut references: Vec<(String, Vec<String>, u16, Resolution)> = paper
        .references
        .iter()
        .map(|&r| {
            let cited = &corpus.papers[r as usize];
            let resolution = if cited.schema_id.is_some() {
                Resolution::Resolved { target: r }
            } else {
                Resolution::TargetUnavailable { target: r }
            };
            (cited.title.clone(), corpus.author_names(cited), cited.date.year, resolution)
        })
        .collect();
    for k in 0..paper.external_references as usize {
        let work = corpus.external_reference(paper, k);
        references.push((work.title, work.authors, work.year, Resolution::Unresolved));
    }
    for (k, (title, authors, year, resolution)) in references.into_iter().enumerate() {
        let entity = b.entity(EntityType::Reference, "Citation", title.clone(), title.clone(), &related_at);
        if k < 3 {
            let group = ["reference_core", "reference_semantics", "citation_signal"][k];
            let resolved = matches!(resolution, Resolution::Resolved { .. });
            let evidence = Evidence::new(&[group], "reference_number").number(k as f64 + 1.0).flag(resolved);
            b.add_evidence(&related_at, evidence.entity(&entity));
        }
        citations.push(CitationItem {
            relation: "cites",
            reference_entity_id: entity,
            title,
            authors,
            year,
            resolution,
        });
    }
    let Builder { entities, relations, evidence, .. } = b;
    Some(PaperStructure { schema_id, paper: paper.index, facts, paragraphs, entities, relations, evidence, citations })
}

/// The paper-level facts of a structured paper (what a paper card shows), computed
/// without generating its paragraphs: the same values [`build`] puts in
/// [`PaperStructure`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardFacts {
    pub research_problem: String,
    pub central_contribution: String,
    pub headline_result: String,
    pub tasks: Vec<String>,
    pub has_code: bool,
    pub has_data: bool,
}

pub fn card_facts(corpus: &Corpus, paper: &Paper) -> Option<CardFacts> {
    paper.schema_id.as_ref()?;
    let mut rng = Rng::new(&[corpus.seed, TAG_STRUCTURE, paper.index as u64]);
    Some(draw_facts(&TextSource::new(corpus.seed, paper), &mut rng))
}

/// The seed tag of a structured view's stream; its first two draws are the facts'.
const TAG_STRUCTURE: u64 = 0x7374_7275;

fn draw_facts(source: &TextSource<'_>, rng: &mut Rng) -> CardFacts {
    let slots = source.focus_slots();
    CardFacts {
        research_problem: slots.p.to_string(),
        central_contribution: source.anchor_sentence(Anchor::Method),
        headline_result: source.anchor_sentence(Anchor::Finding),
        tasks: vec![slots.p.to_string(), source.paper.primary_topic().subfield.to_string()],
        has_code: rng.chance(0.55),
        has_data: rng.chance(0.6),
    }
}

#[cfg(test)]
mod card_facts_tests {
    use super::*;

    #[test]
    fn card_facts_agree_with_the_structure() {
        let corpus = Corpus::generate(120, 3);
        let mut checked = 0;
        for paper in &corpus.papers {
            let (Some(facts), Some(full)) = (card_facts(&corpus, paper), build(&corpus, paper)) else {
                assert!(paper.schema_id.is_none());
                continue;
            };
            assert_eq!(facts, full.facts);
            checked += 1;
        }
        assert!(checked > 20);
    }
}
